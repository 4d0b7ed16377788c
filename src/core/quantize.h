/*
 * quantize.h - from input values to the sorter's integer features.
 *
 * Selected channels are normalised and weighted in double (block sums in a
 * fixed order, so the result never depends on the thread count), then quantised onto
 * one common integer scale, |q| <= CUPLAS_QMAX (core/quad.h). The sorter only ever sees
 * the integers: that is what makes CPU and GPU results bit-identical.
 */
#ifndef CUPLAS_QUANTIZE_H
#define CUPLAS_QUANTIZE_H

#include <stdint.h>

#include "util/error.h"
#include "util/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* channels.normalize: per-channel scaling before weights. */
typedef enum { CUPLAS_NORM_NONE = 0, CUPLAS_NORM_STANDARDIZE, CUPLAS_NORM_MINMAX } cuplas_norm;

/* Quantised grid: N = H*W cells of Cp int16, Cp = C rounded up to 4 (the
 * padding channels are zero and cost nothing). */
typedef struct cuplas_qgrid {
    int64_t H, W;
    int C, Cp;
    int16_t *q;
    int owned;   /* q was allocated by cuplas_qgrid_build */
} cuplas_qgrid;

static inline int cuplas_padded_channels(int C) { return (C + 3) & ~3; }

/* In place on x (N x C, row-major): normalise per channel, then scale
 * channel c by weights[c] (weights may be NULL = all 1). Sums run in
 * fixed blocks added in order: the result is the same for any thread
 * count. Blocks run in parallel on pool (NULL: OpenMP). Extreme finite
 * values never overflow the statistics (quantize.c). Returns 0,
 * CUPLAS_ERR_NOMEM, or CUPLAS_ERR_INPUT when a weighted value would exceed
 * the range of double (x then holds inf there). */
int cuplas_features_normalize(double *x, int64_t N, int C, cuplas_norm norm,
                              const double *weights, cuplas_pool *pool);

/* Quantise x (N x C) into g, in parallel on pool (NULL: OpenMP). dst:
 * N*Cp int16 owned by the caller (e.g. a GPU's pinned upload buffer), or
 * NULL to allocate (cuplas_qgrid_free). */
int cuplas_qgrid_build(const double *x, int64_t H, int64_t W, int C, int16_t *dst,
                       cuplas_pool *pool, cuplas_qgrid *g, cuplas_error *err);
void cuplas_qgrid_free(cuplas_qgrid *g);

#ifdef __cplusplus
}
#endif
#endif
