/*
 * evaluate.c - a result against its baselines (evaluate.h).
 *
 * Design facts: the four orders are measured one after another (one grid
 * of doubles alive at a time: 10,000 x 384 is 30 MiB), but their images
 * are kept and encoded together afterwards, one (order, codec) pair per
 * OpenMP task, since encoding (WebP at method 6 above all) is where the
 * time goes. Each pair's bytes come from one thread, so the totals are
 * the same on any thread count.
 */
#define _GNU_SOURCE /* open_memstream */
#include "eval/evaluate.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/metrics.h"   /* cuplas_safe_exponent */
#include "eval/quality.h"
#include "util/clock.h"
#include "util/fsutil.h"

void cuplas_eval_opts_default(cuplas_eval_opts *o)
{
    memset(o, 0, sizeof *o);
    o->codecs = 1u << CUPLAS_CODEC_PNG | 1u << CUPLAS_CODEC_WEBP;
    o->scheme = CUPLAS_SCHEME_PLAIN;
    o->dpq_p = CUPLAS_DPQ_P;
    cuplas_codec_opts_default(&o->codec);
}

int cuplas_eval_parse_codecs(const char *list, unsigned *mask, cuplas_error *err)
{
    char name[16];
    *mask = 0;
    for (const char *s = list; *s;) {
        size_t len = strcspn(s, ",");
        cuplas_codec c;
        if (len == 0 || len >= sizeof name)
            return cuplas_error_set(err, CUPLAS_ERR_USAGE, "bad codec list '%s' (accepted: png, "
                                    "webp, jxl, comma-separated)", list);
        memcpy(name, s, len);
        name[len] = '\0';
        if (cuplas_codec_parse(name, &c, err) != 0)
            return (int)err->code;
        *mask |= 1u << c;
        s += len + (s[len] == ',');
    }
    if (!*mask)
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "no codec given (accepted: png, webp, jxl)");
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

    for (int64_t k = 0; k < cells; k++)
        n += index[k] >= 0;
    if (n == 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "index holds no item");
    if (!(rc_ = malloc((size_t)n * sizeof *rc_)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    /* the rows a result keeps need not be 0..n-1 (a crop keeps some of
     * them): their order is the input order, and they are renumbered so */
    n = 0;
    for (int64_t k = 0; k < cells; k++) {
        if (index[k] < -1)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "index is not a permutation: cell %lld holds "
                        "%lld", (long long)k, (long long)index[k]);
        if (index[k] >= 0)
            rc_[n++] = (row_cell){index[k], k};
    }
    qsort(rc_, (size_t)n, sizeof *rc_, by_row);
    for (int64_t r = 0; r < n; r++) {
        if (r > 0 && rc_[r].row == rc_[r - 1].row)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "index is not a permutation: row %lld is in "
                        "cells %lld and %lld", (long long)rc_[r].row,
                        (long long)rc_[r - 1].cell, (long long)rc_[r].cell);
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
    int rc = 0;

    memset(imgs, 0, sizeof imgs);
    memset(res, 0, sizeof *res);
    res->N = N, res->H = H, res->W = W, res->C = C;
    res->scheme = o->scheme, res->codecs = o->codecs, res->dpq_p = o->dpq_p, res->seed = o->seed;
    res->dpq_max_n = o->dpq_max_n == 0 ? CUPLAS_DPQ_MAX_N : o->dpq_max_n;
    res->codec = o->codec;
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++)
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++)
            res->order[k].bytes[c] = -1;
    if (N < 1 || C < 1 || cells < N)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "%lld items do not fit a %lldx%lld grid", (long long)N,
                    (long long)H, (long long)W);
    if (!cuplas_scheme_applies(o->scheme, names, C))
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "scheme %s needs channels named x, y, z (%s)",
                    cuplas_scheme_name(o->scheme),
                    names ? "this result's names have no x, y, z" : "this result has no "
                    "channel_names attribute; use --scheme plain");
    CUPLAS_TRY(check_map(sorted, cells, N, err));
    for (int k = 1; k < CUPLAS_ORDER_COUNT; k++)
        if (!(maps[k] = malloc((size_t)cells * sizeof *maps[k])))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    maps[CUPLAS_ORDER_SORTED] = (int64_t *)sorted;   /* read only */
    cuplas_order_input(N, cells, maps[CUPLAS_ORDER_INPUT]);
    cuplas_order_random(N, cells, o->seed, maps[CUPLAS_ORDER_RANDOM]);
    CUPLAS_TRY(cuplas_order_morton(items, N, C, names, cells, maps[CUPLAS_ORDER_MORTON], &used,
                                   err));
    snprintf(res->morton_keys, sizeof res->morton_keys, "%s", used);

    if (!(grid = malloc((size_t)cells * (size_t)C * sizeof *grid)) || !(empty = malloc((size_t)cells)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for a %lldx%lldx%d grid", (long long)H,
                    (long long)W, C);
    const int ue = metric_exponent(items, N * (int64_t)C);
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++) {
        cuplas_eval_order_stats *s = &res->order[k];
        int64_t nempty = cuplas_eval_gather(items, C, maps[k], cells, grid, empty);
        const uint8_t *e = nempty ? empty : NULL;
        for (int64_t i = 0; ue && i < cells * (int64_t)C; i++)
            grid[i] = ldexp(grid[i], ue);
        s->and_ = ldexp(cuplas_eval_and(grid, H, W, C, e), -ue);
        s->vad = ldexp(cuplas_eval_vad(grid, H, W, C, e), -2 * ue);
        s->dpq = NAN;
        if (o->dpq_max_n >= 0)
            CUPLAS_TRY(cuplas_eval_dpq(grid, H, W, C, e, o->dpq_p, o->dpq_max_n, &s->dpq, err));
        if (ue)   /* the images code the values as stored */
            cuplas_eval_gather(items, C, maps[k], cells, grid, empty);
        CUPLAS_TRY(cuplas_scheme_encode(o->scheme, grid, H, W, C, names, e, &imgs[k], err));
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

    /* the encodes: one (order, codec) pair per task */
    {
        int ntask = CUPLAS_ORDER_COUNT * CUPLAS_CODEC_COUNT, failed = -1;
        cuplas_error terr[CUPLAS_ORDER_COUNT * CUPLAS_CODEC_COUNT];
#pragma omp parallel for schedule(dynamic, 1)
        for (int t = 0; t < ntask; t++) {
            int k = t / CUPLAS_CODEC_COUNT, c = t % CUPLAS_CODEC_COUNT;
            cuplas_error_clear(&terr[t]);
            if (!(o->codecs & 1u << c))
                continue;
            int64_t total = 0;
            if (cuplas_images_bytes(&imgs[k], (cuplas_codec)c, &o->codec, dirs[k], &total,
                                    res->per_image ? res->image_bytes[k][c] : NULL, &terr[t]) == 0)
                res->order[k].bytes[c] = total;
        }
        for (int t = 0; t < ntask && failed < 0; t++)
            if (terr[t].code)
                failed = t;
        if (failed >= 0) {
            *err = terr[failed];
            rc = (int)err->code;
            goto fail;
        }
    }
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

/* ------------------------------------------------------------- JSON */

static void json_codecs(FILE *f, const cuplas_eval_result *r, int what)
{
    /* what: 0 bytes, 1 bytes per item, 2 ratios (baselines only) */
    int first_order = 1;
    fputc('{', f);
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++) {
        if (what == 2 && k == CUPLAS_ORDER_SORTED)
            continue;
        fprintf(f, "%s\"%s\": {", first_order ? "" : ", ", cuplas_order_name((cuplas_order_kind)k));
        first_order = 0;
        int first = 1;
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++) {
            int64_t b = r->order[k].bytes[c];
            if (b < 0)
                continue;
            fprintf(f, "%s\"%s\": ", first ? "" : ", ", cuplas_codec_name((cuplas_codec)c));
            first = 0;
            if (what == 0)
                fprintf(f, "%lld", (long long)b);
            else if (what == 1)
                cuplas_json_write_num(f, (double)b / (double)r->N);
            else
                cuplas_json_write_num(f, cuplas_eval_ratio(r, (cuplas_order_kind)k,
                                                           (cuplas_codec)c));
        }
        fputc('}', f);
    }
    fputc('}', f);
}

/* "image_bytes": {order: {codec: {image: bytes}}}: where the bytes are */
static void json_image_bytes(FILE *f, const cuplas_eval_result *r)
{
    fputs(", \"image_bytes\": {", f);
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++) {
        fprintf(f, "%s\"%s\": {", k ? ", " : "", cuplas_order_name((cuplas_order_kind)k));
        for (int c = 0, first = 1; c < CUPLAS_CODEC_COUNT; c++) {
            if (!(r->codecs & 1u << c))
                continue;
            fprintf(f, "%s\"%s\": {", first ? "" : ", ", cuplas_codec_name((cuplas_codec)c));
            first = 0;
            for (int i = 0; i < r->nimages; i++) {
                fputs(i ? ", " : "", f);
                cuplas_json_write_str(f, r->image_name[i]);
                fprintf(f, ": %lld", (long long)r->image_bytes[k][c][i]);
            }
            fputc('}', f);
        }
        fputc('}', f);
    }
    fputc('}', f);
}

void cuplas_eval_result_json(FILE *f, const cuplas_eval_result *r)
{
    const cuplas_eval_order_stats *s = &r->order[CUPLAS_ORDER_SORTED];
    fputs("{\"format\": \"cuplas-eval\", \"format_version\": 1, \"and\": ", f);
    cuplas_json_write_num(f, s->and_);
    fputs(", \"vad\": ", f);
    cuplas_json_write_num(f, s->vad);
    fputs(", \"dpq16\": ", f);
    cuplas_json_write_num(f, r->dpq_p == 16 ? s->dpq : NAN);
    fputs(", \"dpq\": ", f);
    cuplas_json_write_num(f, s->dpq);
    fputs(", \"dpq_p\": ", f);
    cuplas_json_write_num(f, r->dpq_p);
    fprintf(f, ", \"N\": %lld, \"H\": %lld, \"W\": %lld, \"C\": %d, \"scheme\": \"%s\", "
            "\"images\": %d, \"fill\": 0, \"morton_keys\": \"%s\", \"seed\": %llu, \"codecs\": [",
            (long long)r->N, (long long)r->H, (long long)r->W, r->C, cuplas_scheme_name(r->scheme),
            r->nimages, r->morton_keys, (unsigned long long)r->seed);
    for (int c = 0, first = 1; c < CUPLAS_CODEC_COUNT; c++)
        if (r->codecs & 1u << c) {
            fprintf(f, "%s\"%s\"", first ? "" : ", ", cuplas_codec_name((cuplas_codec)c));
            first = 0;
        }
    fprintf(f, "], \"codec_opts\": {\"png_level\": %d, \"webp_method\": %d, \"webp_quality\": %d, "
            "\"jxl_effort\": %d}", r->codec.png_level, r->codec.webp_method, r->codec.webp_quality,
            r->codec.jxl_effort);
    fputs(", \"bytes\": ", f);
    json_codecs(f, r, 0);
    fputs(", \"bytes_per_item\": ", f);
    json_codecs(f, r, 1);
    fputs(", \"ratios\": ", f);
    json_codecs(f, r, 2);
    if (r->per_image)
        json_image_bytes(f, r);
    fputs(", \"orders\": {", f);
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++) {
        fprintf(f, "%s\"%s\": {\"and\": ", k ? ", " : "", cuplas_order_name((cuplas_order_kind)k));
        cuplas_json_write_num(f, r->order[k].and_);
        fputs(", \"vad\": ", f);
        cuplas_json_write_num(f, r->order[k].vad);
        fputs(", \"dpq\": ", f);
        cuplas_json_write_num(f, r->order[k].dpq);
        fputc('}', f);
    }
    fputs("}, \"seconds\": ", f);
    cuplas_json_write_num(f, r->seconds);
    fputc('}', f);
}

char *cuplas_eval_result_json_str(const cuplas_eval_result *r)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    if (!f)
        return NULL;
    cuplas_eval_result_json(f, r);
    if (fclose(f) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

int cuplas_eval_result_from_json(const cuplas_json *v, cuplas_eval_result *r)
{
    const cuplas_json *bytes, *orders;
    cuplas_scheme sch;
    cuplas_error e;

    memset(r, 0, sizeof *r);
    cuplas_error_clear(&e);
    if (!v || v->type != CUPLAS_JSON_OBJECT ||
        strcmp(cuplas_json_get_str(v, "format", ""), "cuplas-eval") ||
        !(bytes = cuplas_json_get(v, "bytes")) || bytes->type != CUPLAS_JSON_OBJECT)
        return -1;
    r->N = cuplas_json_get_int(v, "N", 0, CUPLAS_JSON_INT_MAX, 0);
    r->H = cuplas_json_get_int(v, "H", 0, CUPLAS_JSON_INT_MAX, 0);
    r->W = cuplas_json_get_int(v, "W", 0, CUPLAS_JSON_INT_MAX, 0);
    r->C = (int)cuplas_json_get_int(v, "C", 0, INT_MAX, 0);
    r->nimages = (int)cuplas_json_get_int(v, "images", 0, INT_MAX, 0);
    r->dpq_p = cuplas_json_get_num(v, "dpq_p", CUPLAS_DPQ_P);
    /* the reader keeps numbers as doubles: a seed past 2^53 reads rounded;
     * one outside [0, 2^64) would be an undefined cast, and reads as 0 */
    double seed = cuplas_json_get_num(v, "seed", 0);
    r->seed = seed >= 0 && seed < 18446744073709551616.0 ? (uint64_t)seed : 0;
    r->seconds = cuplas_json_get_num(v, "seconds", NAN);
    r->scheme = cuplas_scheme_parse(cuplas_json_get_str(v, "scheme", "plain"), &sch, &e) == 0
                    ? sch : CUPLAS_SCHEME_PLAIN;
    snprintf(r->morton_keys, sizeof r->morton_keys, "%s", cuplas_json_get_str(v, "morton_keys", ""));
    const cuplas_json *co = cuplas_json_get(v, "codec_opts");
    cuplas_codec_opts_default(&r->codec);
    if (co) {
        r->codec.png_level =
            (int)cuplas_json_get_int(co, "png_level", INT_MIN, INT_MAX, r->codec.png_level);
        r->codec.webp_method =
            (int)cuplas_json_get_int(co, "webp_method", INT_MIN, INT_MAX, r->codec.webp_method);
        r->codec.webp_quality =
            (int)cuplas_json_get_int(co, "webp_quality", INT_MIN, INT_MAX, r->codec.webp_quality);
        r->codec.jxl_effort =
            (int)cuplas_json_get_int(co, "jxl_effort", INT_MIN, INT_MAX, r->codec.jxl_effort);
    }
    orders = cuplas_json_get(v, "orders");
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++) {
        const char *name = cuplas_order_name((cuplas_order_kind)k);
        const cuplas_json *o = orders ? cuplas_json_get(orders, name) : NULL;
        const cuplas_json *b = cuplas_json_get(bytes, name);
        r->order[k].and_ = o ? cuplas_json_get_num(o, "and", NAN) : NAN;
        r->order[k].vad = o ? cuplas_json_get_num(o, "vad", NAN) : NAN;
        r->order[k].dpq = o ? cuplas_json_get_num(o, "dpq", NAN) : NAN;
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++) {
            long long x = cuplas_json_get_int(b, cuplas_codec_name((cuplas_codec)c), 0,
                                              CUPLAS_JSON_INT_MAX, -1);
            r->order[k].bytes[c] = x;
            if (x >= 0)
                r->codecs |= 1u << c;
        }
    }
    return 0;
}

/* ------------------------------------------------------------- text */

/* fmt is " %12..." (a space, then 12 columns): "-" takes the same 13. */
/* "-" is "undefined" (README: no two filled cells touch); a value past
 * the largest double (the VAD of +-1e308 data) is "inf", not that. */
static void num(FILE *f, const char *fmt, double v)
{
    if (isfinite(v))
        fprintf(f, fmt, v);
    else
        fprintf(f, " %12s", isinf(v) ? "inf" : "-");
}

const char *cuplas_eval_morton_text(const cuplas_eval_result *r)
{
    if (!strcmp(r->morton_keys, "xyz"))
        return "x, y, z";
    return r->C == 1 ? "the one channel" : r->C == 2 ? "the first 2 principal components"
                                                     : "the first 3 principal components";
}

void cuplas_eval_result_print(FILE *f, const cuplas_eval_result *r)
{
    fprintf(f, "%lld items on a %lldx%lld grid, %d channel%s; scheme %s (%d image%s per order, "
            "empty cells coded 0); Morton of %s\n\n", (long long)r->N, (long long)r->H,
            (long long)r->W, r->C, r->C == 1 ? "" : "s", cuplas_scheme_name(r->scheme),
            r->nimages, r->nimages == 1 ? "" : "s", cuplas_eval_morton_text(r));
    fprintf(f, "%-8s %12s %12s %12s", "order", "AND", "VAD", "DPQ");
    for (int c = 0; c < CUPLAS_CODEC_COUNT; c++)
        if (r->codecs & 1u << c)
            fprintf(f, " %10s/item %9s", cuplas_codec_name((cuplas_codec)c), "sorted/x");
    fputc('\n', f);
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++) {
        const cuplas_eval_order_stats *s = &r->order[k];
        fprintf(f, "%-8s", cuplas_order_name((cuplas_order_kind)k));
        num(f, " %12.6g", s->and_);
        num(f, " %12.6g", s->vad);
        num(f, " %12.6f", s->dpq);
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++) {
            if (!(r->codecs & 1u << c))
                continue;
            fprintf(f, " %15.4f", (double)s->bytes[c] / (double)r->N);
            if (k == CUPLAS_ORDER_SORTED)
                fprintf(f, " %9s", "");
            else
                fprintf(f, " %9.4f", cuplas_eval_ratio(r, (cuplas_order_kind)k, (cuplas_codec)c));
        }
        fputc('\n', f);
    }
    /* a NaN DPQ at or under the item limit is not a skipped computation:
       one item, or items all alike (every distance 0), have none */
    char why[64];
    if (r->dpq_max_n <= 0)
        snprintf(why, sizeof why, "not computed");
    else if (r->N > r->dpq_max_n)
        snprintf(why, sizeof why, "not computed (over %lld items)", (long long)r->dpq_max_n);
    else
        snprintf(why, sizeof why, "undefined (%s)",
                 r->N < 2 ? "fewer than 2 items" : "no two items differ");
    fprintf(f, "\nDPQ_%g: %s. sorted/x: the sorted grid's bytes over that order's (below 1: "
            "sorting wins).\n", r->dpq_p, isfinite(r->order[0].dpq) ? "exact" : why);
    if (!r->per_image)
        return;
    /* where the bytes are: each image, sorted and Morton side by side */
    fprintf(f, "\n%-16s", "image (bytes)");
    for (int c = 0; c < CUPLAS_CODEC_COUNT; c++)
        if (r->codecs & 1u << c)
            fprintf(f, " %11s %11s %8s", cuplas_codec_name((cuplas_codec)c), "morton", "sorted/M");
    fputc('\n', f);
    for (int i = 0; i < r->nimages; i++) {
        fprintf(f, "%-16s", r->image_name[i]);
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++) {
            if (!(r->codecs & 1u << c))
                continue;
            int64_t a = r->image_bytes[CUPLAS_ORDER_SORTED][c][i];
            int64_t b = r->image_bytes[CUPLAS_ORDER_MORTON][c][i];
            fprintf(f, " %11lld %11lld %8.4f", (long long)a, (long long)b,
                    b > 0 ? (double)a / (double)b : NAN);
        }
        fputc('\n', f);
    }
}
