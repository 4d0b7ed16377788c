/*
 * sog_write.h - a sorted grid as PlayCanvas SOG version 2: meta.json and
 * the lossless WebP images (means_l, means_u, scales, quats, sh0, and
 * shN_centroids, shN_labels for higher SH bands), the splats in the grid's
 * row-major order. `cuplas export-sog` writes a result file's grid so, and
 * run's `sog` step the grid a job holds.
 *
 * The images are the playcanvas scheme's (eval/schemes.h) and the SH
 * palette's (eval/sog_sh.h), so what is written is what `cuplas eval
 * --scheme playcanvas` measures; their decode information (the positions'
 * log ranges, the codebooks) becomes meta.json. The format has no holes:
 * only trailing texels are padding.
 */
#ifndef CUPLAS_IO_SOG_WRITE_H
#define CUPLAS_IO_SOG_WRITE_H

#include <stdint.h>

#include "eval/codec.h"
#include "eval/sog_sh.h"
#include "util/error.h"
#include "util/pool.h"

typedef struct cuplas_sog_opts {
    int sh;                   /* 1: higher SH bands as SOG's palette (when
                                 the grid has f_rest_*); 0: left out      */
    int palette;              /* palette entries; 0: SOG's size          */
    int iterations;           /* k-means updates                          */
    int device;               /* the k-means's CUDA device; -1 the CPU    */
    cuplas_codec_opts co;     /* WebP method; threads (the same bytes)    */
    cuplas_pool *pool;        /* the encodes; NULL: an OpenMP team        */
    const cuplas_sog_sh *reuse; /* NULL, or the palette and images a fit of
                                 this grid with these settings gave (run's
                                 eval step): taken instead of a new fit    */
} cuplas_sog_opts;

/* What cuplas_sog_check found and cuplas_sog_write wrote. */
typedef struct cuplas_sog_plan {
    int64_t count;                   /* splats: the cells before the first empty */
    int col[CUPLAS_PALETTE_MAX_D];   /* f_rest_0, f_rest_1, ... channels      */
    cuplas_sog_sh sh;                /* bands (0: none or left out), then the
                                        palette's size, stats and images     */
    int files;                       /* written, meta.json included          */
    int64_t bytes;                   /* their total size                     */
    double quantise_s;               /* wall seconds: the five images' texels */
    double palette_s;                /* the SH palette and its two images    */
    double webp_s;                   /* WebP encodes not hidden behind it    */
    int reused;                      /* 1: the palette was o->reuse's        */
} cuplas_sog_plan;

/* The channels the format stores, in the grid's order: x y z f_dc_* opacity
 * scale_* rot_*, and with sh every f_rest_*: their indices into use[] and
 * names into sub[] (room for C each); returns how many. Other channels (a
 * trainer's normals) are never read, so a NaN there does not matter. */
int cuplas_sog_channels(const char *const *names, int C, int sh, int *use, const char **sub);

/* The names alone can be written: x y z f_dc_0..2 opacity scale_0..2
 * rot_0..3 there, and with sh f_rest_* whole bands (9, 24 or 45) or none
 * (bands: may be NULL). CUPLAS_ERR_INPUT with one line otherwise; what a
 * plan checks before the grid is read. */
int cuplas_sog_check_names(const char *const *names, int C, int sh, cuplas_sog_sh *bands,
                           int *col, cuplas_error *err);

/* The grid can be written: names (C of them) has x y z f_dc_0..2 opacity
 * scale_0..2 rot_0..3; with sh, f_rest_* are whole bands (9, 24 or 45) or
 * none; index (cells entries, -1 = empty) has no empty cell before a
 * filled one, and a splat. Fills p->count, p->col, p->sh.bands/coeffs.
 * CUPLAS_ERR_INPUT with one line otherwise. */
int cuplas_sog_check(const char *const *names, int C, const int64_t *index, int64_t cells,
                     int sh, cuplas_sog_plan *p, cuplas_error *err);

/* cuplas_sog_channels, then cuplas_sog_check on them (p->col indexes
 * sub): what export-sog and run's step read and write. *n: the channels;
 * names NULL is refused, as cuplas_sog_check refuses it. */
int cuplas_sog_prepare(const char *const *names, int C, const int64_t *index, int64_t cells,
                       int sh, int *use, const char **sub, int *n, cuplas_sog_plan *p,
                       cuplas_error *err);

/* Write the grid (H x W cells x C doubles, cell order; names as checked)
 * into dir, an existing empty folder, after cuplas_sog_check. The files'
 * bytes do not depend on the threads or on o->device. Free p with
 * cuplas_sog_plan_free, also after a failure. Errors: CUPLAS_ERR_INPUT
 * (an SH coefficient beyond +-1e18), CUPLAS_ERR_OUTPUT, CUPLAS_ERR_NOMEM,
 * CUPLAS_ERR_CUDA, CUPLAS_ERR_NODEVICE. */
int cuplas_sog_write(const double *grid, int64_t H, int64_t W, int C, const char *const *names,
                     const cuplas_sog_opts *o, const char *dir, cuplas_sog_plan *p,
                     cuplas_error *err);

void cuplas_sog_plan_free(cuplas_sog_plan *p);

#endif
