/*
 * orders.h - the baselines the sorted grid is measured against, and the
 * gather that lays any order on the grid.
 *
 * An order is a gather map over the grid's cells: order[cell] = the item
 * (row of the N x C input) placed in that cell, or -1 for an empty cell.
 * The baselines lay their 1-D sequence on the H x W grid row-major, item
 * k in cell k, and leave the cells past N empty, as PlayCanvas's
 * splat-transform lays its Morton-ordered splats on a texture
 * (shared/reference/ecosystem.md §1.9). The sorted grid's own order is the
 * sorter's index dataset, used as it is.
 */
#ifndef CUPLAS_EVAL_ORDERS_H
#define CUPLAS_EVAL_ORDERS_H

#include <stdint.h>

#include "util/error.h"
#include "util/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CUPLAS_ORDER_SORTED = 0, /* the sorter's index (not built here)   */
    CUPLAS_ORDER_INPUT,      /* file order: item k in cell k          */
    CUPLAS_ORDER_RANDOM,     /* a seeded uniform shuffle               */
    CUPLAS_ORDER_MORTON,     /* Z-order of x,y,z, else of 3 PCs         */
    CUPLAS_ORDER_COUNT
} cuplas_order_kind;

/* A set of orders: bit 1 << cuplas_order_kind per order. */
#define CUPLAS_ORDERS_ALL ((1u << CUPLAS_ORDER_COUNT) - 1)
/* The names, for messages and help: what the parsers accept. */
#define CUPLAS_ORDERS_TEXT "sorted, input, random, morton"

/* "sorted", "input", "random", "morton" (the JSON keys of `eval`). */
const char *cuplas_order_name(cuplas_order_kind k);
/* The order of that name: 0, or -1 for none (the caller says why). */
int cuplas_order_parse(const char *name, cuplas_order_kind *k);

/* order[0..cells) = 0..N-1 then -1. cells >= N. */
void cuplas_order_input(int64_t N, int64_t cells, int64_t *order);

/* A uniform random permutation of 0..N-1 (Fisher-Yates driven by Philox
 * on seed, core/random.h: the same for a seed on every machine), then -1. */
void cuplas_order_random(int64_t N, int64_t cells, uint64_t seed, int64_t *order);

/* Interleave the low 21 bits of a, b, c into a 63-bit Morton code (bit
 * 3i+2 from a, 3i+1 from b, 3i from c). */
uint64_t cuplas_morton3_21(uint32_t a, uint32_t b, uint32_t c);

/* The first three principal components of x (N x C): the covariance
 * (C x C, summed in item order), its top-3 eigenvectors by subspace
 * (block power) iteration from a fixed Philox start, orthonormalised by
 * Gram-Schmidt each step, ranked by Rayleigh quotient and signed so the
 * largest-magnitude entry is positive. proj: N x 3 projections of the
 * centred items; components past C (C < 3) are 0. Deterministic. */
int cuplas_pca3(const double *x, int64_t N, int C, double *proj, cuplas_error *err);

/* Morton order: each of three keys quantised to 21 bits over its own
 * min..max, codes sorted ascending, ties by item number. The keys are the
 * channels named "x", "y", "z" when names (C strings, may be NULL) has all
 * three, else the first three principal components (cuplas_pca3). *used
 * (may be NULL) = "xyz" or "pca". Then -1 past N. */
int cuplas_order_morton(const double *x, int64_t N, int C, const char *const *names,
                        int64_t cells, int64_t *order, const char **used, cuplas_error *err);

/* Lay an order on the grid: grid (cells x C) gets row order[cell] of x,
 * or zeros for an empty cell (order[cell] < 0), and empty (cells flags,
 * may be NULL) 1 there, else 0. The grid the quality metrics and the
 * schemes read. Blocks of cells run on pool (NULL: an OpenMP team).
 * Returns the number of empty cells. */
int64_t cuplas_eval_gather(const double *x, int C, const int64_t *order, int64_t cells,
                           double *grid, uint8_t *empty, cuplas_pool *pool);

#ifdef __cplusplus
}
#endif
#endif
