/*
 * evaluate.c - a result against its baselines (evaluate.h).
 *
 * Design facts: the orders are measured one after another (one grid of
 * doubles alive at a time: 10,000 x 384 is 30 MiB), but their images
 * are kept and encoded together afterwards, one (order, codec, image) per
 * parallel item (encode_all: run's host pool, or an OpenMP team), since
 * encoding (WebP at method 6 above all) is
 * where the time goes: one task an (order, codec) pair left a thread with
 * six images in series, and at most four pairs a codec to share among
 * the threads. Each image's bytes come from one encode, so the bytes, the
 * files and the error reported are the same on any thread count. The result's JSON and text forms are in
 * forms.c.
 */
#define _GNU_SOURCE /* asprintf */
#include "eval/evaluate.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fit.h"       /* cuplas_fit_check_index */
#include "core/metrics.h"   /* cuplas_safe_exponent */
#include "eval/quality.h"
#include "eval/sog_sh.h"
#include "util/clock.h"
#include "util/fsutil.h"
#include "util/pool.h"
#include "util/threads.h"

void cuplas_eval_opts_default(cuplas_eval_opts *o)
{
    memset(o, 0, sizeof *o);
    o->codecs = 1u << CUPLAS_CODEC_PNG | 1u << CUPLAS_CODEC_WEBP;
    o->orders = CUPLAS_ORDERS_ALL;
    o->scheme = CUPLAS_SCHEME_PLAIN;
    o->dpq_p = CUPLAS_DPQ_P;
    o->sh_iterations = CUPLAS_PALETTE_ITERATIONS;
    o->sh_device = -1;
    cuplas_codec_opts_default(&o->codec);
}

/* A comma-separated list of names, each once, as a mask of their indices
 * (names[0..n-1]); what (one name's kind: "codec", "order") and accepted
 * are for the messages. --codecs and --orders share it, so both refuse an
 * empty entry, an unknown name and a repeat alike. */
static int parse_names(const char *list, const char *const *names, int n, const char *what,
                       const char *accepted, unsigned *mask, cuplas_error *err)
{
    *mask = 0;
    for (const char *s = list;; s++) {
        size_t len = strcspn(s, ",");
        int k = n;
        if (len == 0 && !*list)
            return cuplas_error_set(err, CUPLAS_ERR_USAGE, "an empty list (accepted: %s, "
                                    "comma-separated, each once)", accepted);
        if (len == 0)
            return cuplas_error_set(err, CUPLAS_ERR_USAGE, "an empty entry in '%s' (accepted: "
                                    "%s, comma-separated, each once)", list, accepted);
        for (int i = 0; i < n && k == n; i++)
            if (strlen(names[i]) == len && strncmp(s, names[i], len) == 0)
                k = i;
        if (k == n)
            return cuplas_error_set(err, CUPLAS_ERR_USAGE, "unknown %s '%.*s' (accepted: %s, "
                                    "comma-separated, each once)", what, (int)len, s, accepted);
        if (*mask & 1u << k)
            return cuplas_error_set(err, CUPLAS_ERR_USAGE, "'%s' is listed twice (accepted: %s, "
                                    "each once)", names[k], accepted);
        *mask |= 1u << k;
        s += len;
        if (!*s)
            break;
    }
    return 0;
}

int cuplas_eval_parse_codecs(const char *list, unsigned *mask, cuplas_error *err)
{
    const char *names[CUPLAS_CODEC_COUNT];
    for (int c = 0; c < CUPLAS_CODEC_COUNT; c++)
        names[c] = cuplas_codec_name((cuplas_codec)c);
    return parse_names(list, names, CUPLAS_CODEC_COUNT, "codec", "png, webp, jxl", mask, err);
}

int cuplas_eval_parse_orders(const char *list, unsigned *mask, cuplas_error *err)
{
    const char *names[CUPLAS_ORDER_COUNT];
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++)
        names[k] = cuplas_order_name((cuplas_order_kind)k);
    if (parse_names(list, names, CUPLAS_ORDER_COUNT, "order", CUPLAS_ORDERS_TEXT, mask, err))
        return (int)err->code;
    *mask |= 1u << CUPLAS_ORDER_SORTED;   /* what the others are baselines of */
    return 0;
}

/*
 * Extreme finite values (a result sorted from +-1e308 data, or from
 * 1e-310): the squares in AND, VAD and DPQ overflow to inf or underflow to
 * 0, and eval printed "-" (as if no two cells touched) and "no two items
 * differ". The metrics are then taken on the grid times 2^ue, a power of
 * two that brings the largest magnitude near 1, and scaled back (AND by
 * 2^-ue, VAD by 2^-2ue; DPQ does not depend on scale), as the sort's own
 * AND is (core/metrics.h: cuplas_safe_exponent). Ordinary values take
 * ue = 0: the same bits as before.
 */
/* The orders o measures: o->orders (0: all four), sorted always. */
static unsigned orders_of(const cuplas_eval_opts *o)
{
    return ((o->orders ? o->orders : CUPLAS_ORDERS_ALL) | 1u << CUPLAS_ORDER_SORTED) &
           CUPLAS_ORDERS_ALL;
}

static int metric_exponent(const double *items, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++)
        m = fabs(items[i]) > m ? fabs(items[i]) : m;
    return -cuplas_safe_exponent(m);
}

/* (input row, cell) of a kept item, ordered by row. */
typedef struct { int64_t row, cell; } row_cell;

static int by_row(const void *a, const void *b)
{
    int64_t x = ((const row_cell *)a)->row, y = ((const row_cell *)b)->row;
    return (x > y) - (x < y);
}

int cuplas_eval_unsort(const double *grid, int64_t *index, int64_t cells, int C,
                       double *items, int64_t *N, cuplas_error *err)
{
    int64_t n = 0;
    row_cell *rc_ = NULL;
    int rc = 0;

    CUPLAS_TRY(cuplas_fit_check_index(index, cells, 0, &n, err));
    if (n == 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "index holds no item");
    if (!(rc_ = malloc((size_t)n * sizeof *rc_)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    /* the rows a result keeps need not be 0..n-1 (a crop keeps some of
     * them): their order is the input order, and they are renumbered so */
    n = 0;
    for (int64_t k = 0; k < cells; k++)
        if (index[k] >= 0)
            rc_[n++] = (row_cell){index[k], k};
    qsort(rc_, (size_t)n, sizeof *rc_, by_row);
    for (int64_t r = 0; r < n; r++) {
        index[rc_[r].cell] = r;
        memcpy(items + r * C, grid + rc_[r].cell * C, (size_t)C * sizeof *items);
    }
    *N = n;
fail:
    free(rc_);
    return rc;
}

/* sorted must place each of the N items exactly once. */
static int check_map(const int64_t *map, int64_t cells, int64_t N, cuplas_error *err)
{
    uint8_t *seen = calloc((size_t)N, 1);
    int64_t placed = 0;
    int rc = 0;
    if (!seen)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int64_t k = 0; k < cells; k++) {
        if (map[k] < -1 || map[k] >= N || (map[k] >= 0 && seen[map[k]]))
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "index is not a permutation: cell %lld holds %lld",
                        (long long)k, (long long)map[k]);
        if (map[k] >= 0)
            seen[map[k]] = 1, placed++;
    }
    if (placed != N)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "index places %lld of %lld items", (long long)placed,
                    (long long)N);
fail:
    free(seen);
    return rc;
}

/*
 * The encodes, where the time goes (WebP at method 6 above all): one item
 * per (order, codec, image), numbered in that order, so that every thread
 * has work however few orders and codecs are measured. The items run on
 * o->pool (run's host pool: a GPU lane itself has one OpenMP thread) or
 * on an OpenMP team with the caller's settings. An item encodes an image
 * already held (no copy), so each image's bytes, and the totals, do not
 * depend on who runs it. Neither does the error: the lowest-numbered
 * failing item's is reported, as if the items ran one after another; an
 * item numbered past a failure known when it starts is skipped.
 */
typedef struct encode_ctx {
    const cuplas_eval_images *imgs;
    char *const *dirs;
    const int *pair;              /* order * CUPLAS_CODEC_COUNT + codec   */
    int nimages;
    cuplas_codec_opts codec;
    int64_t *bytes;               /* per item                             */
    cuplas_error *errs;           /* per item                             */
    _Atomic int64_t failed;       /* the lowest failing item so far       */
} encode_ctx;

static int encode_one(void *ctx, int64_t t)
{
    encode_ctx *x = ctx;
    const int k = x->pair[t / x->nimages] / CUPLAS_CODEC_COUNT;
    const int c = x->pair[t / x->nimages] % CUPLAS_CODEC_COUNT;
    cuplas_buf buf = {NULL, 0, 0};
    int rc = 0;

    x->bytes[t] = -1;
    if (t > atomic_load(&x->failed))
        return 0;
    cuplas_error_clear(&x->errs[t]);
    if (cuplas_image_bytes(&x->imgs[k].img[t % x->nimages], (cuplas_codec)c, &x->codec,
                           x->dirs[k], &buf, &x->errs[t]) == 0) {
        x->bytes[t] = (int64_t)buf.size;
    } else {
        rc = (int)x->errs[t].code;
        int64_t seen = atomic_load(&x->failed);
        while (t < seen && !atomic_compare_exchange_weak(&x->failed, &seen, t))
            ;
    }
    free(buf.data);
    return rc;
}

static int encode_all(const cuplas_eval_images *imgs, char *const *dirs,
                      const cuplas_eval_opts *o, cuplas_eval_result *res, cuplas_error *err)
{
    int pair[CUPLAS_ORDER_COUNT * CUPLAS_CODEC_COUNT], npair = 0, rc = 0;
    encode_ctx x = {.imgs = imgs, .dirs = dirs, .pair = pair, .nimages = res->nimages,
                    .codec = o->codec};

    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++)
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++)
            if (cuplas_eval_measured(res, k) && o->codecs & 1u << c) {
                pair[npair++] = k * CUPLAS_CODEC_COUNT + c;
                res->order[k].bytes[c] = 0;
            }
    const int64_t n = res->nimages, ntask = npair * n;
    atomic_init(&x.failed, ntask);
    /* More than one thread lets each WebP encode add its own second thread
     * (codec.h): the last images run alone otherwise. */
    x.codec.threads = o->pool ? cuplas_pool_threads(o->pool) + 1 : cuplas_max_threads();
    x.bytes = malloc((size_t)(ntask ? ntask : 1) * sizeof *x.bytes);
    x.errs = malloc((size_t)(ntask ? ntask : 1) * sizeof *x.errs);
    if (!x.bytes || !x.errs)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    int64_t bad = cuplas_par_for(o->pool, ntask, encode_one, &x, &rc);
    if (bad < ntask) {
        *err = x.errs[bad];
        goto fail;
    }
    for (int64_t t = 0; t < ntask; t++) {
        const int k = pair[t / n] / CUPLAS_CODEC_COUNT, c = pair[t / n] % CUPLAS_CODEC_COUNT;
        res->order[k].bytes[c] += x.bytes[t];
        if (res->per_image)
            res->image_bytes[k][c][t % n] = x.bytes[t];
    }
fail:
    free(x.bytes);
    free(x.errs);
    return rc;
}

/* The playcanvas scheme's SH images of one order's grid, appended to its
 * images: the palette an export of this order gets (entries numbered along
 * its cells), so each order pays for its own labels as a file would.
 * *K: the palette's entries. */
static int add_sh_images(const double *grid, int64_t H, int64_t W, int C, const int *col,
                         const uint8_t *empty, const cuplas_sog_sh *bands,
                         const cuplas_eval_opts *o, cuplas_sog_sh *keep,
                         cuplas_eval_images *imgs, int *K, cuplas_error *err)
{
    cuplas_sog_sh sh = *bands;
    cuplas_eval_image *more;
    int rc = 0;

    CUPLAS_TRY(cuplas_sog_sh_encode(grid, H, W, C, col, empty, o->sh_palette, o->sh_iterations,
                                    o->sh_device, &sh, o->pool, err));
    *K = sh.K;
    if (keep && cuplas_sog_sh_copy(keep, &sh) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (!(more = realloc(imgs->img, (size_t)(imgs->n + 2) * sizeof *more)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    imgs->img = more;
    imgs->img[imgs->n++] = sh.centroids;   /* the pixels change hands */
    imgs->img[imgs->n++] = sh.labels;
    sh.centroids.px = sh.labels.px = NULL;
fail:
    cuplas_sog_sh_free(&sh);
    return rc;
}

int cuplas_evaluate(const double *items, int64_t N, int C, const char *const *names,
                    const int64_t *sorted, int64_t H, int64_t W, const cuplas_eval_opts *o,
                    cuplas_eval_result *res, cuplas_error *err)
{
    const int64_t cells = H * W;
    double t0 = cuplas_now_s();
    int64_t *maps[CUPLAS_ORDER_COUNT] = {NULL};
    cuplas_eval_images imgs[CUPLAS_ORDER_COUNT];
    char *dirs[CUPLAS_ORDER_COUNT] = {NULL};
    double *grid = NULL;
    uint8_t *empty = NULL;
    const char *used = "pca";
    cuplas_sog_sh bands = {0};
    int rc = 0, col[CUPLAS_PALETTE_MAX_D];

    memset(imgs, 0, sizeof imgs);
    memset(res, 0, sizeof *res);
    res->N = N, res->H = H, res->W = W, res->C = C;
    res->scheme = res->scheme_asked = o->scheme, res->codecs = o->codecs;
    res->dpq_p = o->dpq_p, res->seed = o->seed;
    res->dpq_max_n = o->dpq_max_n == 0 ? CUPLAS_DPQ_MAX_N : o->dpq_max_n;
    res->codec = o->codec;
    res->orders = orders_of(o);
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++) {
        res->order[k].and_ = res->order[k].vad = res->order[k].dpq = NAN;
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++)
            res->order[k].bytes[c] = -1;
    }
    if (N < 1 || C < 1 || cells < N)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "%lld items do not fit a %lldx%lld grid", (long long)N,
                    (long long)H, (long long)W);
    if (!cuplas_scheme_applies(o->scheme, names, C))
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "scheme %s needs channels named x, y, z (%s)",
                    cuplas_scheme_name(o->scheme),
                    names ? "this result's names have no x, y, z" : "this result has no "
                    "channel_names attribute; use --scheme plain");
    CUPLAS_TRY(check_map(sorted, cells, N, err));
    if (o->scheme == CUPLAS_SCHEME_PLAYCANVAS) {
        /* SH bands the format cannot hold are refused before any work */
        CUPLAS_TRY(cuplas_sog_sh_bands(names, C, &bands, col, err));
        res->sh_palette = o->sh_palette, res->sh_iterations = o->sh_iterations;
    }
    for (int k = 1; k < CUPLAS_ORDER_COUNT; k++)
        if (cuplas_eval_measured(res, k) &&
            !(maps[k] = malloc((size_t)cells * sizeof *maps[k])))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    maps[CUPLAS_ORDER_SORTED] = (int64_t *)sorted;   /* read only */
    if (maps[CUPLAS_ORDER_INPUT])
        cuplas_order_input(N, cells, maps[CUPLAS_ORDER_INPUT]);
    if (maps[CUPLAS_ORDER_RANDOM])
        cuplas_order_random(N, cells, o->seed, maps[CUPLAS_ORDER_RANDOM]);
    if (maps[CUPLAS_ORDER_MORTON]) {
        CUPLAS_TRY(cuplas_order_morton(items, N, C, names, cells, maps[CUPLAS_ORDER_MORTON],
                                       &used, err));
        snprintf(res->morton_keys, sizeof res->morton_keys, "%s", used);
    }

    if (!(grid = malloc((size_t)cells * (size_t)C * sizeof *grid)) || !(empty = malloc((size_t)cells)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for a %lldx%lldx%d grid", (long long)H,
                    (long long)W, C);
    const int ue = metric_exponent(items, N * (int64_t)C);
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++) {
        cuplas_eval_order_stats *s = &res->order[k];
        if (!maps[k])
            continue;   /* not measured */
        int64_t nempty = cuplas_eval_gather(items, C, maps[k], cells, grid, empty, o->pool);
        const uint8_t *e = nempty ? empty : NULL;
        for (int64_t i = 0; ue && i < cells * (int64_t)C; i++)
            grid[i] = ldexp(grid[i], ue);
        s->and_ = ldexp(cuplas_eval_and(grid, H, W, C, e), -ue);
        s->vad = ldexp(cuplas_eval_vad(grid, H, W, C, e), -2 * ue);
        if (o->dpq_max_n >= 0)
            CUPLAS_TRY(cuplas_eval_dpq(grid, H, W, C, e, o->dpq_p, o->dpq_max_n, o->pool,
                                       &s->dpq, err));
        if (ue)   /* the images code the values as stored */
            cuplas_eval_gather(items, C, maps[k], cells, grid, empty, o->pool);
        CUPLAS_TRY(cuplas_scheme_encode(o->scheme, grid, H, W, C, names, e, o->pool, &imgs[k],
                                        err));
        if (bands.bands)
            CUPLAS_TRY(add_sh_images(grid, H, W, C, col, e, &bands, o,
                                     k == CUPLAS_ORDER_SORTED ? o->keep_sh : NULL, &imgs[k],
                                     &res->sh_count, err));
        if (o->images_dir) {
            if (asprintf(&dirs[k], "%s/%s", o->images_dir, cuplas_order_name((cuplas_order_kind)k)) < 0) {
                dirs[k] = NULL;
                CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
            }
            CUPLAS_TRY(cuplas_mkdir_p(dirs[k], err));
        }
    }
    res->nimages = imgs[0].n;
    res->per_image = o->per_image && res->nimages <= CUPLAS_EVAL_MAX_IMAGES;
    for (int i = 0; res->per_image && i < res->nimages; i++)
        snprintf(res->image_name[i], sizeof res->image_name[i], "%s", imgs[0].img[i].name);
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++)
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++)
            for (int i = 0; i < CUPLAS_EVAL_MAX_IMAGES; i++)
                res->image_bytes[k][c][i] = -1;
    free(grid), grid = NULL;

    CUPLAS_TRY(encode_all(imgs, dirs, o, res, err));
    res->seconds = cuplas_now_s() - t0;
fail:
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++) {
        if (k != CUPLAS_ORDER_SORTED)
            free(maps[k]);
        cuplas_eval_images_free(&imgs[k]);
        free(dirs[k]);
    }
    free(grid);
    free(empty);
    return rc;
}

double cuplas_eval_ratio(const cuplas_eval_result *r, cuplas_order_kind baseline, cuplas_codec c)
{
    int64_t s = r->order[CUPLAS_ORDER_SORTED].bytes[c], b = r->order[baseline].bytes[c];
    return s >= 0 && b > 0 ? (double)s / (double)b : NAN;
}

int cuplas_eval_result_answers(const cuplas_eval_result *r, const cuplas_eval_opts *o)
{
    const unsigned orders = orders_of(o);
    const cuplas_codec_opts *a = &r->codec, *b = &o->codec;

    if (r->scheme_asked != o->scheme || (r->codecs & o->codecs) != o->codecs ||
        (r->orders & orders) != orders || r->dpq_p != o->dpq_p)
        return 0;
    if ((orders & 1u << CUPLAS_ORDER_RANDOM) && r->seed != o->seed)
        return 0;
    if ((o->codecs & 1u << CUPLAS_CODEC_PNG) && a->png_level != b->png_level)
        return 0;
    if ((o->codecs & 1u << CUPLAS_CODEC_WEBP) &&
        (a->webp_method != b->webp_method || a->webp_quality != b->webp_quality))
        return 0;
    if ((o->codecs & 1u << CUPLAS_CODEC_JXL) && a->jxl_effort != b->jxl_effort)
        return 0;
    /* the SH palette's images depend on its settings; a playcanvas eval
     * stored before the palette coded the bands otherwise */
    if (r->scheme == CUPLAS_SCHEME_PLAYCANVAS &&
        (r->sh_count < 0 || (r->sh_count > 0 && (r->sh_palette != o->sh_palette ||
                                                 r->sh_iterations != o->sh_iterations))))
        return 0;
    return 1;
}
