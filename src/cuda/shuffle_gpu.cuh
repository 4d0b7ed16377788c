/*
 * shuffle_gpu.cuh - launcher of the random start (cuda/shuffle_gpu.cu).
 * CPU twin: cuplas_shuffle_cpu (cpu/shuffle_cpu.h).
 */
#ifndef CUPLAS_SHUFFLE_GPU_CUH
#define CUPLAS_SHUFFLE_GPU_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "util/error.h"

/* idx[i] = cuplas_shuffle_perm(N, seed)(i) (or i without shuffle), and
 * q[i] = q_in[idx[i]]; cells of q lie cs elements apart (Cp, or 2 Cp in
 * the [q | t] layout), of q_in Cp. */
int cuplas_shuffle_gpu(int16_t *q, int32_t *idx, const int16_t *q_in, int64_t N, int Cp,
                       int cs, uint64_t seed, int shuffle, cudaStream_t stream,
                       cuplas_error *err);

#endif
