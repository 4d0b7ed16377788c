// when is CUDA_DEVICE_MAX_CONNECTIONS read: at driver load or at context creation?
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t; clock_gettime(CLOCK_REALTIME,&t); return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc, char **argv){
  const char *mode = argc>1?argv[1]:"none", *val = argc>2?argv[2]:"1";
  double t0=now(); int n=0;
  if(!strcmp(mode,"before")) setenv("CUDA_DEVICE_MAX_CONNECTIONS",val,1);
  if(cudaGetDeviceCount(&n)!=cudaSuccess) return 2;
  double t1=now();
  if(!strcmp(mode,"after")) setenv("CUDA_DEVICE_MAX_CONNECTIONS",val,1);
  if(cudaFree(0)!=cudaSuccess) return 3;
  double t2=now();
  if(cudaDeviceReset()!=cudaSuccess) return 4;
  double t3=now();
  printf("{\"mode\":\"%s\",\"val\":\"%s\",\"driver\":%.4f,\"ctx\":%.4f,\"reset\":%.4f,\"t_start\":%.6f,\"t_end\":%.6f}\n",mode,val,t1-t0,t2-t1,t3-t2,t0,t3);
  return 0;}
