/*
 * fit.h - N items on an H x W grid when N is not H*W: the automatic
 * shape, the crop selection and the fill of empty cells. Pure math, no
 * I/O: the pipeline (pipeline/stages.c) and the tests call it.
 *
 * Why: scenes have any N (113,648 splats is no square, no product of two
 * near-equal sides), and the sorter needs a full H x W grid. Two honest
 * ways out, as the 3DGS tools do: pad (keep every item, some cells
 * empty) or crop (keep the H*W items that matter most by one property).
 *
 * The shape rules (exact, so that a result can be predicted):
 *   pad:  the smallest H*W >= N with H <= W <= 2H; among equal H*W the
 *         largest H (the most square). Empty cells: W = ceil(N / H) for
 *         the chosen H, so fewer than H <= ceil(sqrt(N)) cells are empty
 *         (under 0.3 % for N = 113,648).
 *   crop: the largest H*W <= N with H <= W <= 2H; ties: largest H.
 *   square: side ceil(sqrt(N)) (pad) or floor(sqrt(N)) (crop).
 * A square N gives sqrt(N) x sqrt(N) under all of them.
 */
#ifndef CUPLAS_CORE_FIT_H
#define CUPLAS_CORE_FIT_H

#include <stdint.h>

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The automatic H x W for n >= 1 items (crop 0: pad rule, 1: crop rule). */
void cuplas_fit_auto_shape(int64_t n, int crop, int64_t *H, int64_t *W);

/* Square: side ceil(sqrt(n)) (pad) or floor(sqrt(n)) (crop, as SOG's
 * prune_to_square_shape). */
void cuplas_fit_square_shape(int64_t n, int crop, int64_t *H, int64_t *W);

/* Crop: the m (<= n) items with the highest v[i] (ties and NaN: a NaN
 * counts as lowest; among equal values the lower row wins) into
 * keep[0..m), ascending by row, and the other n - m rows into
 * dropped[0..n-m) (may be NULL), ascending. Returns 0, or -1 when out of
 * memory. */
int cuplas_fit_crop_select(const double *v, int64_t n, int64_t m, int64_t *keep,
                           int64_t *dropped);

/* Pad: rows n..cells-1 of x (cells x C, row-major) get the per-channel
 * mean of rows 0..n-1, so that empty cells look like the average item:
 * the sorter's blur and swap costs treat them as the least distinctive
 * items there are, and they settle where they disturb least. */
void cuplas_fit_pad_mean(double *x, int64_t n, int64_t cells, int C);

/* A fitted grid's index read back (cells entries: the input row in each
 * cell, -1 an empty cell): is it a placement of distinct rows? No entry
 * below -1, none at or past rows (the input rows a result's input_shape
 * records; rows <= 0: unknown, any row), no row in two cells. *placed
 * (may be NULL) gets the cells that hold a row. The one check of a
 * result's index: eval, preview and both exports make it, so that none
 * writes or measures a duplicated or lost item. 0; CUPLAS_ERR_INPUT
 * naming the first bad cell (out-of-range values before repeats);
 * CUPLAS_ERR_NOMEM (a bit per row up to the largest). */
int cuplas_fit_check_index(const int64_t *index, int64_t cells, int64_t rows, int64_t *placed,
                           cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
