/*
 * sog_palette.h - PlayCanvas SOG's higher SH bands for export-sog: the
 * palette (sort/palette.h), its centroids as a codebook-labelled texture,
 * and each splat's 16-bit label.
 */
#ifndef CUPLAS_CLI_SOG_PALETTE_H
#define CUPLAS_CLI_SOG_PALETTE_H

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
int cuplas_sog_sh_bands(char *const *names, int C, cuplas_sog_sh *sh, int *col,
                        cuplas_error *err);

/* The two images of the first `count` cells of grid (H x W cells x C
 * doubles) after cuplas_sog_sh_bands: K entries (0: SOG's size for
 * count), `iterations` k-means updates on `device` (-1: the CPU).
 * Refuses a coefficient beyond +-1e18 (or not finite). Free with cuplas_sog_sh_free, also
 * after a failure. */
int cuplas_sog_sh_encode(const double *grid, int64_t H, int64_t W, int C, const int *col,
                         int64_t count, int K, int iterations, int device, cuplas_sog_sh *sh,
                         cuplas_error *err);

void cuplas_sog_sh_free(cuplas_sog_sh *sh);

#endif
