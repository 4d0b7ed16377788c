/*
 * polish_cpu.h - the AND polish after a sort's last level (core/polish.h),
 * CPU reference. GPU twin: cuplas_polish_gpu (cuda/polish_gpu.cuh).
 */
#ifndef CUPLAS_POLISH_CPU_H
#define CUPLAS_POLISH_CPU_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Up to `sweeps` sweeps with windows of `cells` cells (4: 2x2; 6: 2x3
 * and 3x2) over the H x W grid q (Cp channels a cell, a multiple of 4:
 * quantize.h's padding) and its index idx, stopping after a sweep that
 * moved nothing (the rest would move nothing either). Returns the windows
 * that moved. */
int64_t cuplas_polish_cpu(int16_t *q, int64_t *idx, int64_t H, int64_t W, int Cp, int sweeps,
                          int cells);

#ifdef __cplusplus
}
#endif
#endif
