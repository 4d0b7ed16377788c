/*
 * evaluate.h - one result measured against its baselines: what `cuplas
 * eval` prints and `run`'s eval step stores.
 *
 * The items (N x C, input order) and the sorter's gather map are laid on
 * the H x W grid in four orders (orders.h): sorted, input, random and
 * Morton, or the subset asked for (sorted always: it is what the others
 * are baselines of). Each grid gets AND, VAD and DPQ_p (quality.h), is
 * quantised by one scheme into 8-bit images (schemes.h) and those images
 * are encoded losslessly by each chosen codec (codec.h); bytes are the
 * encoded sizes, which are the file sizes when the images are written.
 * An order not measured costs nothing (no map, metric or encode) and is
 * left out of the JSON and the table, never shown as 0 bytes.
 *
 * Empty cells (a padded grid) are the fill value 0 in every plane, the
 * zero texel a GPU texture is padded with (schemes.h), and are left out
 * of every metric.
 *
 * The JSON form (cuplas_eval_result_json) is the documented contract of
 * `cuplas eval --json` (README "Evaluating a result"); the same object is
 * the output's `eval` attribute and the manifest entry's "eval".
 */
#ifndef CUPLAS_EVAL_EVALUATE_H
#define CUPLAS_EVAL_EVALUATE_H

#include <stdint.h>
#include <stdio.h>

#include "util/error.h"
#include "util/json.h"
#include "eval/codec.h"
#include "eval/orders.h"
#include "eval/schemes.h"
#include "eval/sog_sh.h"
#include "util/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuplas_eval_opts {
    unsigned codecs;           /* bit 1 << cuplas_codec per codec (png|webp) */
    unsigned orders;           /* bit 1 << cuplas_order_kind per order
                                  measured (all four); sorted always is;
                                  0 = all                                  */
    cuplas_scheme scheme;      /* plain                                    */
    double dpq_p;              /* 16                                       */
    int64_t dpq_max_n;         /* 0: CUPLAS_DPQ_MAX_N; < 0: never            */
    uint64_t seed;             /* of the random order (0)                  */
    cuplas_codec_opts codec;   /* cuplas_codec_opts_default                */
    const char *images_dir;    /* NULL, or write DIR/ORDER/NAME.EXT: the
                                  measured files (DIR/ORDER created)       */
    int per_image;             /* 1: keep each image's bytes (the result's
                                  image_* fields; `cuplas eval` sets it, the
                                  pipeline's stored eval leaves it 0)      */
    /* playcanvas with f_rest_*: the SH palette of each order (sog_sh.h) */
    int sh_palette;            /* entries; 0: SOG's size for N (0)         */
    int sh_iterations;         /* k-means updates (CUPLAS_PALETTE_ITERATIONS) */
    int sh_device;             /* CUDA device of the k-means; -1 the CPU
                                  (-1; either gives the same bytes)        */
    cuplas_sog_sh *keep_sh;    /* NULL, or it receives the sorted order's
                                  palette and images (run's sog step takes
                                  them instead of fitting the same again)  */
    cuplas_pool *pool;         /* NULL: the encodes run on an OpenMP team
                                  with the caller's settings; else on this
                                  pool (run's GPU lanes: one OpenMP thread
                                  each). The bytes are the same.           */
} cuplas_eval_opts;

/* Images an order whose bytes per_image keeps, at most: the SOG and gsplat
 * schemes make 21 with 45 f_rest; a plain scheme of more channels gets no
 * breakdown. */
#define CUPLAS_EVAL_MAX_IMAGES 32

void cuplas_eval_opts_default(cuplas_eval_opts *o);

/* Parse "png,webp,jxl" (or a part of it; each name once, no empty entry)
 * into a codec mask. 0 or CUPLAS_ERR_USAGE. */
int cuplas_eval_parse_codecs(const char *list, unsigned *mask, cuplas_error *err);
/* Parse "sorted,morton" (any of sorted, input, random, morton, each once)
 * into an order mask, sorted added (it is always measured). 0 or
 * CUPLAS_ERR_USAGE: empty, an empty entry, an unknown or repeated name. */
int cuplas_eval_parse_orders(const char *list, unsigned *mask, cuplas_error *err);

/* One order's figures; an order not measured has NaN metrics and -1
 * bytes (and no place in the JSON or the table). */
typedef struct cuplas_eval_order_stats {
    double and_, vad, dpq;               /* dpq NaN: not computed           */
    int64_t bytes[CUPLAS_CODEC_COUNT];   /* -1: codec not measured          */
} cuplas_eval_order_stats;

typedef struct cuplas_eval_result {
    int64_t N, H, W;
    int C;
    cuplas_scheme scheme;
    cuplas_scheme scheme_asked;          /* run's eval step: eval.scheme where
                                            it fell back to plain (no x, y, z
                                            channels); else = scheme        */
    int nimages;                         /* images per order                 */
    unsigned codecs;
    unsigned orders;                     /* the orders measured (sorted
                                            always): bit 1 << cuplas_order_kind */
    double dpq_p;
    int64_t dpq_max_n;                   /* the items DPQ is computed up to
                                            (0 or less: never)             */
    uint64_t seed;
    char morton_keys[4];                 /* "xyz" or "pca"; "" when Morton is
                                            not measured                    */
    cuplas_codec_opts codec;             /* the codec settings measured with */
    /* playcanvas: the SH palette's entries (0: no f_rest; -1: unknown, a
     * stored eval from before the palette), the entries and k-means
     * updates asked for */
    int sh_count, sh_palette, sh_iterations;
    double seconds;                      /* wall time of the evaluation      */
    cuplas_eval_order_stats order[CUPLAS_ORDER_COUNT];
    /* per_image: each image's bytes (-1: codec not measured), in the
     * scheme's image order; 0 when not asked for or over the cap */
    int per_image;
    char image_name[CUPLAS_EVAL_MAX_IMAGES][32];
    int64_t image_bytes[CUPLAS_ORDER_COUNT][CUPLAS_CODEC_COUNT][CUPLAS_EVAL_MAX_IMAGES];
} cuplas_eval_result;

/* Measure: items (N x C doubles, input order), names (C names or NULL),
 * sorted (H*W cells: the item in each cell, -1 = empty; each item exactly
 * once). Errors: CUPLAS_ERR_INPUT (sorted is not such a map),
 * CUPLAS_ERR_USAGE (the scheme does not apply to these channels, a grid
 * a codec cannot take), CUPLAS_ERR_OUTPUT (images_dir), NOMEM. Encodes
 * run on OpenMP, one order, codec and image per task; the bytes, the files
 * and the error reported (the first in that order) never depend on the
 * thread count. */
int cuplas_evaluate(const double *items, int64_t N, int C, const char *const *names,
                    const int64_t *sorted, int64_t H, int64_t W, const cuplas_eval_opts *o,
                    cuplas_eval_result *res, cuplas_error *err);

/* From a result's grid back to the input order. index holds each kept
 * item's input row (distinct, any subset of rows: a crop keeps some) or -1
 * for an empty cell; the rows are renumbered in place to 0..N-1 in row
 * order, and items[index[cell]] = grid[cell]. items has room for cells x
 * C; *N = the number of items. CUPLAS_ERR_INPUT when a row repeats or an
 * entry is below -1 (cuplas_fit_check_index). */
int cuplas_eval_unsort(const double *grid, int64_t *index, int64_t cells, int C,
                       double *items, int64_t *N, cuplas_error *err);

/* bytes[sorted] / bytes[baseline] for a codec; NaN when either is not
 * measured (the codec, or the order). */
double cuplas_eval_ratio(const cuplas_eval_result *r, cuplas_order_kind baseline,
                         cuplas_codec c);

/* Does a stored result answer a run asking for o: o's scheme measured (or
 * asked for, where it fell back to plain), each codec and order of o
 * measured, with o's settings for those codecs, o's DPQ exponent, and o's
 * seed when o asks for the random order, and o's SH palette settings
 * where one was made? More codecs or orders than o
 * asks for still answer. 1 yes, 0 no. */
int cuplas_eval_result_answers(const cuplas_eval_result *r, const cuplas_eval_opts *o);

/* The result as one JSON object on one line (no newline). */
void cuplas_eval_result_json(FILE *f, const cuplas_eval_result *r);
/* The same into a malloc'd string; NULL when out of memory. */
char *cuplas_eval_result_json_str(const cuplas_eval_result *r);
/* Back from a parsed object (the manifest's "eval"). The orders measured
 * are the keys of its "bytes" (every order, before --orders). 0, or -1
 * when v is not such an object. */
int cuplas_eval_result_from_json(const cuplas_json *v, cuplas_eval_result *r);

/* 1 when order k was measured (eval.orders / --orders), else 0: an order
 * not measured is left out of every form, never shown as a figure. */
static inline int cuplas_eval_measured(const cuplas_eval_result *r, int k)
{
    return (int)(r->orders >> k & 1u);
}

/* The text table of `cuplas eval`. */
/* What eval's Morton order keyed on, for a sentence: "x, y, z", or the
 * first min(3, C) principal components. */
const char *cuplas_eval_morton_text(const cuplas_eval_result *r);
/* The orders not measured, "input, random", into buf ("" for none). */
const char *cuplas_eval_unmeasured_text(const cuplas_eval_result *r, char *buf, size_t size);
void cuplas_eval_result_print(FILE *f, const cuplas_eval_result *r);

#ifdef __cplusplus
}
#endif
#endif
