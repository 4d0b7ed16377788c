/*
 * polish_gpu.cuh - launcher of the AND polish (cuda/polish_gpu.cu).
 * CPU twin: cuplas_polish_cpu (cpu/polish_cpu.h).
 */
#ifndef CUPLAS_POLISH_GPU_CUH
#define CUPLAS_POLISH_GPU_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "util/error.h"

/* Up to `sweeps` sweeps with windows of `cells` cells (4 or 6) over the
 * H x W grid q (cell i at q + i * cs, Cp channels, a multiple of 4)
 * and its index idx, queued on stream (one cooperative launch of at most
 * max_blocks CTAs on the current device). moved[s] (device, at least `sweeps` zeroed counters)
 * counts the windows sweep s moved; the sweeps
 * stop after one that moved nothing, as the CPU's do. */
int cuplas_polish_gpu(int16_t *q, int32_t *idx, int cs, int Cp, int64_t H, int64_t W,
                      int sweeps, int cells, unsigned int *moved, int max_blocks,
                      cudaStream_t stream, cuplas_error *err);

/* Blocks per SM the polish kernel for `cells` keeps resident (the
 * cooperative launch's bound is that times the SMs: max_blocks above). */
int cuplas_polish_gpu_occupancy(int cells, int *blocks_per_sm, cuplas_error *err);

#endif
