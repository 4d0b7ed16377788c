/*
 * metrics.h - AND, the average L2 distance between 4-neighbours.
 *
 * Sum over every horizontal and vertical edge of sqrt(sum_c (a_c - b_c)^2),
 * divided by H(W-1) + (H-1)W, in double (shared/reference/peers.md). Rows
 * are summed in parallel into per-row slots and added in row order, so the
 * value is the same for any thread count.
 *
 * A grid with no edge (1 x 1) has no AND: it is NaN, not 0, since 0 would
 * read as a perfect sort. Callers print it as undefined, JSON writes null
 * (util/json.h) and the output's and_before/and_after attributes hold NaN.
 */
#ifndef CUPLAS_METRICS_H
#define CUPLAS_METRICS_H

#include <stdint.h>

#include "util/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x: N x C row-major; index: gather map (cell -> row of x) or NULL for the
 * identity; rows in parallel on pool (NULL: OpenMP). Returns NaN for a grid
 * with no edges, and only then: out of memory, the rows are summed on the
 * caller's thread instead (the same value). */
double cuplas_and(const double *x, int64_t H, int64_t W, int C, const int64_t *index,
                  cuplas_pool *pool);

/* Extreme finite values: for m, the largest magnitude of some data, 0
 * when m is 0 or lies in [2^-400, 2^400] (sums of squares of 2^62 such
 * values stay finite and nonzero: used as they are, bit for bit), else the
 * e that brings m * 2^-e near 1 ([0.5, 1)), clamped so that 2^-e stays
 * finite for subnormals. The AND, the quantiser and eval's metrics scale
 * by it (exact: a power of two) and scale back. */
int cuplas_safe_exponent(double m);

#ifdef __cplusplus
}
#endif
#endif
