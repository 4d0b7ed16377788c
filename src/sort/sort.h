/*
 * sort.h - one grid in, one gather map out, on the backend asked for.
 *
 * The backend-independent front of the sorter: quantise the features,
 * build the schedule, solve grids too small for groups of 4 exactly, then
 * hand the rest to the CPU reference or to a GPU. Both backends return the
 * same index for the same input, parameters and seed.
 */
#ifndef CUPLAS_SORT_H
#define CUPLAS_SORT_H

#include <stdint.h>

#include "util/error.h"
#include "core/params.h"
#include "util/pool.h"
#include "core/level.h"   /* cuplas_sort_stats */

#ifdef __cplusplus
extern "C" {
#endif

struct cuplas_gpu_ctx; /* cuda/sort_gpu.h: per-device streams and workspace */

typedef struct cuplas_sort_target {
    struct cuplas_gpu_ctx *gpu; /* NULL = CPU reference */
    const volatile int *cancel; /* polled between levels; may be NULL */
    cuplas_pool *pool;          /* host loops (quantising); NULL = OpenMP */
    volatile int *levels_total; /* may be NULL: set to the schedule's level
                                   count before the levels run, for a
                                   progress display that reads st->levels
                                   (the CPU sorter counts it up level by
                                   level, a GPU sort of more than 2^22
                                   cells as each level's kernel ends; a
                                   smaller GPU sort sets it at its end) */
} cuplas_sort_target;

/* x: N x C features (normalised and weighted). index: N gather entries. */
int cuplas_sort_features(const double *x, int64_t H, int64_t W, int C,
                         const cuplas_sort_params *p,
                         const cuplas_sort_target *target, int64_t *index,
                         cuplas_sort_stats *st, cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
