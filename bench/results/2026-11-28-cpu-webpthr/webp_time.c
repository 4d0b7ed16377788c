#include <png.h>
#include <webp/encode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  for(int a=2;a<argc;a++){
    png_image im; memset(&im,0,sizeof im); im.version=PNG_IMAGE_VERSION;
    png_image_begin_read_from_file(&im,argv[a]); im.format=PNG_FORMAT_RGBA;
    unsigned char*buf=malloc(PNG_IMAGE_SIZE(im)); png_image_finish_read(&im,NULL,buf,0,NULL);
    WebPConfig cfg; WebPConfigInit(&cfg); cfg.lossless=1; cfg.exact=1; cfg.method=6; cfg.quality=100; cfg.thread_level=atoi(argv[1]);
    WebPPicture pic; WebPPictureInit(&pic); pic.use_argb=1; pic.width=im.width; pic.height=im.height;
    WebPMemoryWriter wr; WebPMemoryWriterInit(&wr); pic.writer=WebPMemoryWrite; pic.custom_ptr=&wr;
    WebPPictureImportRGBA(&pic,buf,im.width*4);
    double t=now(); WebPEncode(&cfg,&pic); t=now()-t;
    printf("%-28s thr%d %8zu bytes %6.2f s\n",argv[a],cfg.thread_level,wr.size,t);
    WebPPictureFree(&pic); WebPMemoryWriterClear(&wr); free(buf);
  }
}
