/*
 * quality.h - how well a grid keeps similar items together: AND, VAD and
 * DPQ_p, the metrics of `cuplas eval` (shared/reference/ecosystem.md §3.1).
 *
 * Every function reads a grid in cell order: x holds H*W cells of C
 * doubles, row-major (cell y*W + x). `empty` is NULL (every cell holds an
 * item) or H*W flags, nonzero for an empty (padding) cell; empty cells are
 * left out: an edge or pair counts only when both its cells hold items.
 * cuplas_eval_gather (eval/orders.h) builds such a grid from a gather map.
 *
 * AND and VAD are means over such pairs: with none (one item, or items
 * that no empty-free edge joins, as a few items padded onto a large grid)
 * they are NaN, not 0, which would read as perfect. The eval JSON writes
 * null, the text tables "-".
 */
#ifndef CUPLAS_EVAL_QUALITY_H
#define CUPLAS_EVAL_QUALITY_H

#include <stdint.h>

#include "util/error.h"
#include "util/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DPQ is exact and O(N^2 log N): above this many items it is not computed. */
#define CUPLAS_DPQ_MAX_N 4096
#define CUPLAS_DPQ_P 16

/* AND: mean L2 distance over the 4-neighbour edges whose two cells hold
 * items, summed in row order (right edge, then down edge, cell by cell).
 * Equals cuplas_and (core/metrics.h) when empty is NULL. NaN when there is
 * no such edge. */
double cuplas_eval_and(const double *x, int64_t H, int64_t W, int C, const uint8_t *empty);

/* VAD, PLAS's variance of absolute differences (plas/vad.py): the
 * per-channel absolute differences |a_c - b_c| of horizontal neighbours,
 * all channels pooled, give one population variance; vertical neighbours
 * another; VAD is their mean. (Per channel, not of the L2 distances.) A
 * direction with no pair (W == 1 or H == 1) is left out of the mean; NaN
 * when neither has one. Lower is better. */
double cuplas_eval_vad(const double *x, int64_t H, int64_t W, int C, const uint8_t *empty);

/* DPQ_p (Barthel et al. 2023) with non-wrapped grid distances, as the
 * LAS/FLAS authors' vc_flas.metrics.distance_preservation_quality(wrap=
 * False) defines it: n = items; d = Euclidean feature distance;
 * Dbar = mean of d over ordered pairs i != j; for every item i the others
 * ordered by squared grid distance, ties by d (2D), or by d alone (HD);
 * D_k = mean over i of the mean d to its first k; gain_k = max(0,
 * (Dbar - D_k) / Dbar), k = 1 .. n-1; DPQ_p = ||gain^2D||_p /
 * ||gain^HD||_p. *dpq = NaN (not computed) when n > max_n (<= 0:
 * CUPLAS_DPQ_MAX_N), n < 2 or every item is the same. Rows run in fixed
 * blocks on pool (NULL: an OpenMP team), added in order: the value does
 * not depend on the thread count. Returns 0, or CUPLAS_ERR_NOMEM /
 * CUPLAS_ERR_USAGE (p < 1). */
int cuplas_eval_dpq(const double *x, int64_t H, int64_t W, int C, const uint8_t *empty,
                    double p, int64_t max_n, cuplas_pool *pool, double *dpq, cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
