/*
 * sog_sh.h - PlayCanvas SOG's higher SH bands as the format stores them:
 * a k-means palette (sort/palette.h), its centroids as a codebook-labelled
 * texture, and each splat's 16-bit label. export-sog writes these two
 * images; eval's playcanvas scheme measures them for every order, each
 * order with the palette an export of that order would get.
 */
#ifndef CUPLAS_EVAL_SOG_SH_H
#define CUPLAS_EVAL_SOG_SH_H

#include <math.h>
#include <stdint.h>

#include "eval/schemes.h"
#include "sort/palette.h"
#include "util/error.h"

typedef struct cuplas_sog_sh {
    int bands;        /* 1, 2 or 3 (0: the result has none)             */
    int coeffs;       /* 3, 8 or 15 per colour                           */
    int K;            /* palette entries (meta.json's shN.count)        */
    cuplas_eval_image centroids, labels; /* shN_centroids, shN_labels  */
    double codebook[CUPLAS_SCHEME_CODEBOOK];
    cuplas_palette_stats st;
} cuplas_sog_sh;

/* The result's SH bands from its channel names: sh->bands, sh->coeffs,
 * and col[0 .. 3 coeffs) the channels of f_rest_0, f_rest_1, ... (the
 * PLY's colour-major order). Refuses (CUPLAS_ERR_INPUT) a set of f_rest_*
 * that is not 9, 24 or 45 consecutive coefficients. */
int cuplas_sog_sh_bands(const char *const *names, int C, cuplas_sog_sh *sh, int *col,
                        cuplas_error *err);

/* The two images of grid (H x W cells x C doubles) after
 * cuplas_sog_sh_bands. The splats are the cells empty does not flag (NULL:
 * every cell), in cell order; the palette starts from them in that order,
 * so its entries are numbered along the grid. K entries (0: SOG's size
 * for the splats; at most their count), `iterations` k-means updates on
 * `device` (-1: the CPU; either gives the same images). shN_labels is H x
 * W, an empty cell 0 in every plane. Refuses (CUPLAS_ERR_INPUT) a
 * coefficient beyond +-1e18 or not finite, and a grid with no splat.
 * Free with cuplas_sog_sh_free, also after a failure. */
int cuplas_sog_sh_encode(const double *grid, int64_t H, int64_t W, int C, const int *col,
                         const uint8_t *empty, int K, int iterations, int device,
                         cuplas_sog_sh *sh, cuplas_pool *pool, cuplas_error *err);

/* cuplas_sog_sh_encode from the coefficients as floats: x holds D = 3 *
 * sh->coeffs of them a splat, the splats (the cells empty does not flag)
 * in cell order, each checked by cuplas_sog_sh_check. The same images as
 * cuplas_sog_sh_encode of a grid whose coefficients are x's: a caller
 * that reads them straight from its own data needs no grid of doubles
 * for them (45 a splat, 2.2 GB at 6.1M splats). */
int cuplas_sog_sh_fit(const float *x, int64_t H, int64_t W, const uint8_t *empty, int K,
                      int iterations, int device, cuplas_sog_sh *sh, cuplas_pool *pool,
                      cuplas_error *err);

/* Whether the palette takes coefficient v: finite and within +-1e18, so
 * that a squared distance of 45 such terms stays a finite float. */
static inline int cuplas_sog_sh_takes(double v)
{
    return fabs(v) <= 1e18;
}

/* 0 when coefficient k of the splat in `cell` (v) is one the palette
 * takes (cuplas_sog_sh_takes); else CUPLAS_ERR_INPUT naming them. */
int cuplas_sog_sh_check(double v, int k, int64_t cell, cuplas_error *err);

/* dst (its images freed first) = src with images of its own; -1 when out
 * of memory (dst then holds no image). */
int cuplas_sog_sh_copy(cuplas_sog_sh *dst, const cuplas_sog_sh *src);

void cuplas_sog_sh_free(cuplas_sog_sh *sh);

#endif
