/*
 * blur_cpu.h - the target of a level: an iterated box blur (CPU
 * reference). GPU twin: cuplas_blur_gpu (cuda/blur_gpu.cuh).
 */
#ifndef CUPLAS_BLUR_CPU_H
#define CUPLAS_BLUR_CPU_H

#include <stdint.h>

#include "util/error.h"
#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* target = iterated box blur of q (both N x Cp): `passes` box passes of
 * radius rx along x, then `passes` of radius ry along y (r = 0: none),
 * every channel, borders by bx and by. */
int cuplas_blur_cpu(const int16_t *q, int16_t *target, int64_t H, int64_t W,
                    int Cp, int rx, int ry, int passes, cuplas_border bx,
                    cuplas_border by, cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
