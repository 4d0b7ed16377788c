/*
 * forms.c - a result's forms (evaluate.h): the JSON object of `cuplas eval
 * --json` and of the `eval` attribute, read back from a manifest, and the
 * text table of `cuplas eval`.
 *
 * Design fact: apart from evaluate.c because it is only formatting; the
 * JSON keys are the documented contract (README "Evaluating a result").
 */
#define _GNU_SOURCE /* open_memstream */
#include "eval/evaluate.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/quality.h"


/* ------------------------------------------------------------- JSON */

static void json_codecs(FILE *f, const cuplas_eval_result *r, int what)
{
    /* what: 0 bytes, 1 bytes per item, 2 ratios (baselines only) */
    int first_order = 1;
    fputc('{', f);
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++) {
        if ((what == 2 && k == CUPLAS_ORDER_SORTED) || !cuplas_eval_measured(r, k))
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
    for (int k = 0, first_order = 1; k < CUPLAS_ORDER_COUNT; k++) {
        if (!cuplas_eval_measured(r, k))
            continue;
        fprintf(f, "%s\"%s\": {", first_order ? "" : ", ",
                cuplas_order_name((cuplas_order_kind)k));
        first_order = 0;
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
    fprintf(f, ", \"N\": %lld, \"H\": %lld, \"W\": %lld, \"C\": %d, \"scheme\": \"%s\", ",
            (long long)r->N, (long long)r->H, (long long)r->W, r->C, cuplas_scheme_name(r->scheme));
    if (r->scheme_asked != r->scheme)   /* run's eval step fell back to plain */
        fprintf(f, "\"scheme_asked\": \"%s\", ", cuplas_scheme_name(r->scheme_asked));
    fprintf(f, "\"images\": %d, \"fill\": 0, \"morton_keys\": ", r->nimages);
    if (cuplas_eval_measured(r, CUPLAS_ORDER_MORTON))
        fprintf(f, "\"%s\"", r->morton_keys);
    else
        fputs("null", f);
    fprintf(f, ", \"seed\": %llu, \"codecs\": [", (unsigned long long)r->seed);
    for (int c = 0, first = 1; c < CUPLAS_CODEC_COUNT; c++)
        if (r->codecs & 1u << c) {
            fprintf(f, "%s\"%s\"", first ? "" : ", ", cuplas_codec_name((cuplas_codec)c));
            first = 0;
        }
    fprintf(f, "], \"codec_opts\": {\"png_level\": %d, \"webp_method\": %d, \"webp_quality\": %d, "
            "\"jxl_effort\": %d}", r->codec.png_level, r->codec.webp_method, r->codec.webp_quality,
            r->codec.jxl_effort);
    if (r->scheme == CUPLAS_SCHEME_PLAYCANVAS)
        fprintf(f, ", \"sh_palette\": {\"count\": %d, \"asked\": %d, \"iterations\": %d}",
                r->sh_count, r->sh_palette, r->sh_iterations);
    fputs(", \"bytes\": ", f);
    json_codecs(f, r, 0);
    fputs(", \"bytes_per_item\": ", f);
    json_codecs(f, r, 1);
    fputs(", \"ratios\": ", f);
    json_codecs(f, r, 2);
    if (r->per_image)
        json_image_bytes(f, r);
    fputs(", \"orders\": {", f);
    for (int k = 0, first = 1; k < CUPLAS_ORDER_COUNT; k++) {
        if (!cuplas_eval_measured(r, k))
            continue;
        fprintf(f, "%s\"%s\": {\"and\": ", first ? "" : ", ",
                cuplas_order_name((cuplas_order_kind)k));
        first = 0;
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
    r->scheme_asked = cuplas_scheme_parse(cuplas_json_get_str(v, "scheme_asked", ""), &sch,
                                          &e) == 0 ? sch : r->scheme;
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
    const cuplas_json *sh = cuplas_json_get(v, "sh_palette");
    r->sh_count = sh ? (int)cuplas_json_get_int(sh, "count", 0, INT_MAX, -1)
                     : r->scheme == CUPLAS_SCHEME_PLAYCANVAS ? -1 : 0;
    r->sh_palette = sh ? (int)cuplas_json_get_int(sh, "asked", 0, INT_MAX, -1) : 0;
    r->sh_iterations = sh ? (int)cuplas_json_get_int(sh, "iterations", 0, INT_MAX, -1) : 0;
    orders = cuplas_json_get(v, "orders");
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++) {
        const char *name = cuplas_order_name((cuplas_order_kind)k);
        const cuplas_json *o = orders ? cuplas_json_get(orders, name) : NULL;
        const cuplas_json *b = cuplas_json_get(bytes, name);
        if (b && b->type == CUPLAS_JSON_OBJECT)
            r->orders |= 1u << k;   /* measured: all four before --orders */
        else
            o = b = NULL;
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

const char *cuplas_eval_unmeasured_text(const cuplas_eval_result *r, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; k < CUPLAS_ORDER_COUNT && at < size; k++)
        if (!cuplas_eval_measured(r, k))
            at += (size_t)snprintf(buf + at, size - at, "%s%s", at ? ", " : "",
                                   cuplas_order_name((cuplas_order_kind)k));
    return buf;
}

void cuplas_eval_result_print(FILE *f, const cuplas_eval_result *r)
{
    const int morton = cuplas_eval_measured(r, CUPLAS_ORDER_MORTON);
    char unmeasured[64];
    fprintf(f, "%lld items on a %lldx%lld grid, %d channel%s; scheme %s (%d image%s per order, "
            "empty cells coded 0)%s%s\n\n", (long long)r->N, (long long)r->H,
            (long long)r->W, r->C, r->C == 1 ? "" : "s", cuplas_scheme_name(r->scheme),
            r->nimages, r->nimages == 1 ? "" : "s", morton ? "; Morton of " : "",
            morton ? cuplas_eval_morton_text(r) : "");
    if (r->sh_count > 0)
        fprintf(f, "SH bands: each order's own palette of %d entries, %d k-means update%s "
                "(shN_centroids, shN_labels), as export-sog writes it\n\n", r->sh_count,
                r->sh_iterations, r->sh_iterations == 1 ? "" : "s");
    fprintf(f, "%-8s %12s %12s %12s", "order", "AND", "VAD", "DPQ");
    for (int c = 0; c < CUPLAS_CODEC_COUNT; c++)
        if (r->codecs & 1u << c)
            fprintf(f, " %10s/item %9s", cuplas_codec_name((cuplas_codec)c), "sorted/x");
    fputc('\n', f);
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++) {
        const cuplas_eval_order_stats *s = &r->order[k];
        if (!cuplas_eval_measured(r, k))
            continue;
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
    if (*cuplas_eval_unmeasured_text(r, unmeasured, sizeof unmeasured))
        fprintf(f, "Not measured (--orders): %s.\n", unmeasured);
    if (!r->per_image)
        return;
    /* where the bytes are: each image, sorted and Morton side by side
     * (sorted alone when Morton is not measured) */
    fprintf(f, "\n%-16s", "image (bytes)");
    for (int c = 0; c < CUPLAS_CODEC_COUNT; c++)
        if (r->codecs & 1u << c) {
            fprintf(f, " %11s", cuplas_codec_name((cuplas_codec)c));
            if (morton)
                fprintf(f, " %11s %8s", "morton", "sorted/M");
        }
    fputc('\n', f);
    for (int i = 0; i < r->nimages; i++) {
        fprintf(f, "%-16s", r->image_name[i]);
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++) {
            if (!(r->codecs & 1u << c))
                continue;
            int64_t a = r->image_bytes[CUPLAS_ORDER_SORTED][c][i];
            int64_t b = r->image_bytes[CUPLAS_ORDER_MORTON][c][i];
            if (morton)
                fprintf(f, " %11lld %11lld %8.4f", (long long)a, (long long)b,
                        b > 0 ? (double)a / (double)b : NAN);
            else
                fprintf(f, " %11lld", (long long)a);
        }
        fputc('\n', f);
    }
}
