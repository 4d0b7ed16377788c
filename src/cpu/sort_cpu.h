/*
 * sort_cpu.h - the CPU reference sorter (OpenMP): the semantics the GPU
 * backend reproduces bit for bit.
 *
 * Exposed step by step (blur, one pass, the whole sort) so that every GPU
 * kernel has a CPU reference to be tested against.
 */
#ifndef CUPLAS_SORT_CPU_H
#define CUPLAS_SORT_CPU_H

#include <stdint.h>

#include "util/error.h"
#include "core/quantize.h"
#include "core/params.h"
#include "core/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuplas_sort_stats {
    int levels;
    int64_t configs;   /* block configurations run             */
    int64_t passes;    /* solve passes over all groups          */
    double device_ms;  /* GPU: shuffle + levels, by CUDA events */
    double h2d_ms, d2h_ms; /* GPU: upload and download, by events */
} cuplas_sort_stats;

/* What one pass needs: the level's block shape, the torus shift, the
 * grouping permutation of the bh*bw block offsets. */
typedef struct cuplas_pass_geom {
    int64_t H, W, bh, bw, sy, sx;
    uint32_t kind;     /* permuter */
    uint32_t n;        /* bh*bw */
} cuplas_pass_geom;

/* target = iterated box blur of q (both N x Cp), rx/ry per-pass radii. */
int cuplas_blur_cpu(const int16_t *q, int16_t *target, int64_t H, int64_t W,
                    int Cp, int rx, int ry, int passes, cuplas_border bx,
                    cuplas_border by, cuplas_error *err);

/* One solve pass over every group, in place on q and idx. Returns the sum
 * of identity costs and of chosen costs over all groups. */
void cuplas_pass_cpu(int16_t *q, int64_t *idx, const int16_t *target, int Cp,
                     const cuplas_pass_geom *g, uint64_t seed, uint32_t level,
                     uint32_t cfg, uint32_t pass, uint64_t *before,
                     uint64_t *after);

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
