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
#include "io/grid.h"
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
    const float *sh_x;        /* NULL, or the splats' SH coefficients as
                                 cuplas_sog_read makes them: the palette
                                 fits these, and the grid need not hold
                                 the f_rest_* columns                     */
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

/* The channels the format stores: x y z f_dc_* opacity scale_* rot_* in
 * the grid's order, then with sh every f_rest_* in the grid's order: their
 * indices into use[] and names into sub[] (room for C each); returns how
 * many. Other channels (a trainer's normals) are never read, so a NaN
 * there does not matter. */
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

/* What cuplas_sog_write reads, from g after cuplas_sog_prepare (use, n,
 * p its): *head, the channels before the f_rest_* (*nhead of them; the
 * first names of sub) as doubles, cells x *nhead in cell order, cell i
 * from g's row row[i] (-1: zeros; row NULL: row i); and with SH bands and
 * want_sh, *sh, the splats' coefficients as floats for o->sh_x (splat i
 * is cell i: a SOG grid's empty cells come last). The coefficients are
 * never a grid of doubles: 45 a splat were 2.2 GB at 6.1M splats. NaN,
 * Inf (naming g's row) and coefficients cuplas_sog_sh_check refuses fail
 * (CUPLAS_ERR_INPUT); CUPLAS_ERR_NOMEM. Free *head and *sh. */
int cuplas_sog_read(const cuplas_h5grid *g, const int64_t *row, int64_t cells, const int *use,
                    int n, const cuplas_sog_plan *p, int want_sh, double **head, int *nhead,
                    float **sh, cuplas_pool *pool, cuplas_error *err);

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
