/*
 * sort_cpu.h - the CPU reference sorter (OpenMP): the semantics the GPU
 * backend reproduces bit for bit. GPU twin: cuplas_sort_gpu
 * (cuda/sort_gpu.h).
 *
 * Its steps are twins too, each in its own file: the shuffle
 * (shuffle_cpu.h), the blur (blur_cpu.h), the solve (assign_cpu.h).
 */
#ifndef CUPLAS_SORT_CPU_H
#define CUPLAS_SORT_CPU_H

#include <stdint.h>

#include "util/error.h"
#include "core/level.h"
#include "core/params.h"
#include "core/quantize.h"
#include "core/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The whole sort. index (N) receives the gather map cell -> input row.
 * cancel (may be NULL) is polled between levels. */
int cuplas_sort_cpu(const cuplas_qgrid *g, const cuplas_sort_params *p,
                    const cuplas_schedule *s, int64_t *index,
                    const volatile int *cancel, cuplas_sort_stats *st,
                    cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
