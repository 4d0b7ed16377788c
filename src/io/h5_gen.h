/*
 * h5_gen.h - deterministic synthetic input grids for `cuplas gen` and tests.
 *
 * Every value is a pure function of (seed, dataset item, cell, channel):
 * a counter-based generator (splitmix64 of the combined counter), so a seed
 * gives byte-identical files on any machine and any OpenMP thread count.
 */
#ifndef CUPLAS_GEN_H
#define CUPLAS_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CUPLAS_GEN_COLORS = 0, /* uint8 (H, W, 3), uniform 0..255                */
    CUPLAS_GEN_NORMAL,     /* float32 (H, W, C), standard normal             */
    CUPLAS_GEN_GAUSSIANS   /* float32 3DGS-like attributes, 14 channels:     */
} cuplas_gen_kind;

/*
 * Gaussians channel layout (float32, CUPLAS_GEN_GAUSSIAN_CHANNELS = 14):
 *   0..2   xyz          position, a mixture of a few Gaussian blobs
 *   3..5   features_dc  colour (SH DC), correlated with position + noise
 *   6..8   scaling      log scales, normal around -4.5 (all negative-ish)
 *   9..12  rotation     unit quaternion (w, x, y, z)
 *   13     opacity      logit of the opacity
 */
#define CUPLAS_GEN_GAUSSIAN_CHANNELS 14

typedef struct cuplas_gen_opts {
    cuplas_gen_kind kind;
    int64_t H, W;
    int64_t C;           /* normal only (colors: 3, gaussians: 14)            */
    uint64_t seed;
    const char *path;    /* output file                                       */
    const char *dataset; /* dataset path; with count > 1 the prefix of
                            "<dataset>_000", "<dataset>_001", ...             */
    int count;           /* datasets in the file, >= 1                        */
    bool flat;           /* gaussians as (N, 14) + height/width attributes
                            (default) instead of (H, W, 14)                  */
    int64_t chunk_rows;  /* grid rows per chunk, 0 = about 1 MiB             */
    int deflate;         /* 0 (off) .. 9                                      */
    bool shuffle;
    bool corrupt;        /* truncate the finished file to half its size: a
                            deliberately unreadable input for pipeline tests */
    const volatile int *cancel; /* set (by a signal handler) = stop before the
                            next slab: CUPLAS_ERR_INTERRUPTED, no file left;
                            NULL = never                                      */
} cuplas_gen_opts;

/* Defaults: colors 256 x 256, seed 0, "/grid", one dataset, chunked +
 * shuffle + deflate 4, gaussians flat. path stays NULL. */
void cuplas_gen_defaults(cuplas_gen_opts *o);

/* "colors" | "normal" | "gaussians" <-> kind; parse returns -1 if unknown. */
int cuplas_gen_kind_parse(const char *name, cuplas_gen_kind *kind);
const char *cuplas_gen_kind_name(cuplas_gen_kind kind);

/* Channels per cell and bytes per value of the kind's data. */
int64_t cuplas_gen_channels(const cuplas_gen_opts *o);
size_t cuplas_gen_elem_size(const cuplas_gen_opts *o);

/* Fill cells [first, first + ncells) of dataset `item` into buf
 * (ncells * channels values of the kind's type, row-major). Pure. */
void cuplas_gen_fill(const cuplas_gen_opts *o, int item, int64_t first, int64_t ncells,
                     void *buf);

/* Write o->path (tmp + rename) with o->count datasets. */
int cuplas_gen_write(const cuplas_gen_opts *o, cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
