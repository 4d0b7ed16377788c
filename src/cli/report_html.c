/*
 * report_html.c - `cuplas report DIR --html FILE`: the merged run as one
 * self-contained HTML page (cmd_report.c merges, this draws).
 *
 * Design facts: the page needs nothing but itself: styles inline, every
 * preview PNG embedded as a base64 data: URI, bars drawn with CSS widths,
 * no script; it opens offline and in a mail attachment alike. What it
 * shows comes from the manifests (the eval step's numbers and the
 * preview's path, resolved against the manifest's folder), never from
 * the HDF5 outputs, like the rest of report.
 */
#include "cli/cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "eval/codec.h"
#include "eval/evaluate.h"
#include "eval/orders.h"
#include "pipeline/manifest.h"

/* previews larger than this are linked, not embedded */
#define MAX_EMBED_BYTES (8u << 20)

static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

static void base64(FILE *f, const unsigned char *p, size_t n)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        fputc(t[v >> 18 & 63], f);
        fputc(t[v >> 12 & 63], f);
        fputc(i + 1 < n ? t[v >> 6 & 63] : '=', f);
        fputc(i + 2 < n ? t[v & 63] : '=', f);
    }
}

/* The first bytes of every PNG file (PNG spec, 5.2). */
static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

/* The file at path embedded as a data: URI image: 0; -1 when it cannot be
 * read (or is too big), -2 when it is not a PNG. The signature is checked
 * because a manifest is only a JSON file: one that names /etc/hostname
 * must not get that file into a page as image/png. */
static int embed_png(FILE *f, const char *path, const char *alt)
{
    struct stat st;
    FILE *in = NULL;
    unsigned char *buf = NULL;
    int rc = -1;

    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (size_t)st.st_size > MAX_EMBED_BYTES || !(in = fopen(path, "rb")))
        goto done;
    if (!(buf = malloc((size_t)st.st_size)) ||
        fread(buf, 1, (size_t)st.st_size, in) != (size_t)st.st_size)
        goto done;
    if ((size_t)st.st_size < sizeof png_sig || memcmp(buf, png_sig, sizeof png_sig)) {
        rc = -2;
        goto done;
    }
    fputs("<img class=\"preview\" alt=\"", f);
    esc(f, alt);
    fputs("\" src=\"data:image/png;base64,", f);
    base64(f, buf, (size_t)st.st_size);
    fputs("\">", f);
    rc = 0;
done:
    free(buf);
    if (in)
        fclose(in);
    return rc;
}

static void num(FILE *f, const char *fmt, double v)
{
    if (isfinite(v))
        fprintf(f, fmt, v);
    else
        fputs("&ndash;", f);
}

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}"
    "h1{font-size:22px}h2{font-size:18px;margin-top:32px}h3{font-size:15px;margin:24px 0 8px}"
    "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;"
    "text-align:right}th{background:#f0f0f0}td.l,th.l{text-align:left}"
    ".done{color:#070}.failed,.cancelled,.pending{color:#b00}.skipped{color:#555}"
    ".bar{display:inline-block;height:10px;background:#4a7fd4;vertical-align:middle}"
    ".bar.sorted{background:#2a9d4a}.win{color:#070;font-weight:600}.lose{color:#b00;"
    "font-weight:600}img.preview{max-width:100%;image-rendering:pixelated;border:1px solid #ccc}"
    ".note{color:#555;font-size:12px}";

/* One dataset's compression figures: bytes per item by order and codec,
 * a bar per order, the sorted/baseline ratio. */
/* A ratio's colour: below 1 sorting wins, above it loses; a tie or no
 * figure is left plain. */
static const char *ratio_class(double q)
{
    return !isfinite(q) ? "" : q < 1 ? "win" : q > 1 ? "lose" : "";
}

static void eval_table(FILE *f, const cuplas_eval_result *r)
{
    char unmeasured[64];
    const int morton = cuplas_eval_measured(r, CUPLAS_ORDER_MORTON);
    double maxb = 0;
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++)
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++)
            if (r->order[k].bytes[c] > 0 && (double)r->order[k].bytes[c] / r->N > maxb)
                maxb = (double)r->order[k].bytes[c] / r->N;
    fprintf(f, "<p class=\"note\">%lld items on a %lldx%lld grid, %d channel%s; scheme %s, %d "
            "image%s per order; empty cells coded 0%s%s. Ratio = sorted bytes / that order's "
            "bytes (below 1: sorting wins).", (long long)r->N, (long long)r->H, (long long)r->W,
            r->C, r->C == 1 ? "" : "s", cuplas_scheme_name(r->scheme), r->nimages,
            r->nimages == 1 ? "" : "s", morton ? "; Morton of " : "",
            morton ? cuplas_eval_morton_text(r) : "");
    if (*cuplas_eval_unmeasured_text(r, unmeasured, sizeof unmeasured))
        fprintf(f, " Not measured (eval.orders): %s.", unmeasured);
    fputs("</p>\n", f);
    fputs("<table><tr><th class=\"l\">order</th><th>AND</th><th>VAD</th><th>DPQ</th>", f);
    for (int c = 0; c < CUPLAS_CODEC_COUNT; c++)
        if (r->codecs & 1u << c)
            fprintf(f, "<th>%s bytes/item</th><th class=\"l\"></th><th>ratio</th>",
                    cuplas_codec_name((cuplas_codec)c));
    fputs("</tr>\n", f);
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++) {
        const cuplas_eval_order_stats *s = &r->order[k];
        if (!cuplas_eval_measured(r, k))
            continue;
        fprintf(f, "<tr><td class=\"l\">%s</td><td>", cuplas_order_name((cuplas_order_kind)k));
        num(f, "%.4g", s->and_);
        fputs("</td><td>", f);
        num(f, "%.4g", s->vad);
        fputs("</td><td>", f);
        num(f, "%.4f", s->dpq);
        fputs("</td>", f);
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++) {
            if (!(r->codecs & 1u << c))
                continue;
            double b = s->bytes[c] >= 0 ? (double)s->bytes[c] / r->N : NAN;
            fputs("<td>", f);
            num(f, "%.4f", b);
            fprintf(f, "</td><td class=\"l\"><span class=\"bar%s\" style=\"width:%.0fpx\"></span>"
                    "</td><td>", k == CUPLAS_ORDER_SORTED ? " sorted" : "",
                    maxb > 0 && isfinite(b) ? 120.0 * b / maxb : 0.0);
            if (k != CUPLAS_ORDER_SORTED) {
                double q = cuplas_eval_ratio(r, (cuplas_order_kind)k, (cuplas_codec)c);
                fprintf(f, "<span class=\"%s\">", ratio_class(q));
                num(f, "%.4f", q);
                fputs("</span>", f);
            }
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

void cuplas_report_html(FILE *f, const char *dir, const cuplas_merged *mg, int nbad)
{
    int neval = 0;

    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<title>cuplas report: ", f);
    esc(f, dir);
    fprintf(f, "</title><style>%s</style></head><body>\n<h1>cuplas report: ", style);
    esc(f, dir);
    fprintf(f, "</h1>\n<p>%d manifest%s, %d dataset%s: %d done, %d skipped, %d failed, "
            "%d cancelled, %d pending%s.", mg->nused, mg->nused == 1 ? "" : "s", mg->n,
            mg->n == 1 ? "" : "s", mg->done, mg->skipped, mg->failed, mg->cancelled, mg->pending,
            nbad ? "; some manifests could not be read" : "");
    if (mg->and_count)
        fprintf(f, " Mean AND of %d: before %.6g, after %.6g.", mg->and_count,
                mg->and_before_mean, mg->and_after_mean);
    fprintf(f, " Sort time %.3f s in total.</p>\n", mg->sort_s);
    if (mg->nmissing)
        fprintf(f, "<p class=\"failed\">%d shard%s without a manifest.</p>\n", mg->nmissing,
                mg->nmissing == 1 ? "" : "s");
    for (int i = 0; i < mg->nold_splits; i++)
        fprintf(f, "<p class=\"note\">The %d-way split ended before a complete split of "
                "another count began: superseded, its missing shards are not counted.</p>\n",
                mg->old_splits[i] > 0 ? mg->old_splits[i] : 1);
    if (mg->nunfinished)
        fprintf(f, "<p class=\"failed\">%d run%s did not finish (killed, or still running): "
                "their datasets are pending.</p>\n", mg->nunfinished,
                mg->nunfinished == 1 ? "" : "s");

    fputs("<h2>Datasets</h2>\n<table><tr><th class=\"l\">input</th><th class=\"l\">dataset"
          "</th><th class=\"l\">status</th><th>shape</th><th>AND before</th><th>AND after"
          "</th><th>sort s</th><th>PNG sorted/input</th><th>PNG sorted/morton</th>"
          "<th>WebP sorted/input</th><th>WebP sorted/morton</th><th>SOG bytes</th></tr>\n", f);
    for (int i = 0; i < mg->n; i++) {
        const cuplas_manifest_entry *e = mg->v[i].e;
        fputs("<tr><td class=\"l\">", f);
        esc(f, e->input);
        fputs("</td><td class=\"l\">", f);
        esc(f, e->dataset);
        fprintf(f, "</td><td class=\"l %s\">%s</td><td>", e->status, e->status);
        if (e->shape[0] > 0)
            fprintf(f, "%lldx%lldx%lld", (long long)e->shape[0], (long long)e->shape[1],
                    (long long)e->shape[2]);
        fputs("</td><td>", f);
        num(f, "%.6g", e->and_before);
        fputs("</td><td>", f);
        num(f, "%.6g", e->and_after);
        fputs("</td><td>", f);
        num(f, "%.3f", e->sort_s);
        fputs("</td>", f);
        for (int c = CUPLAS_CODEC_PNG; c <= CUPLAS_CODEC_WEBP; c++)
            for (int k = CUPLAS_ORDER_INPUT; k <= CUPLAS_ORDER_MORTON; k += 2) {
                if (e->eval && !cuplas_eval_measured(e->eval, k)) {
                    fputs("<td class=\"note\">not measured</td>", f);
                    continue;
                }
                double q = e->eval ? cuplas_eval_ratio(e->eval, (cuplas_order_kind)k,
                                                       (cuplas_codec)c) : NAN;
                fprintf(f, "<td class=\"%s\">", ratio_class(q));
                num(f, "%.4f", q);
                fputs("</td>", f);
            }
        if (e->sog_bytes > 0)   /* run's sog step: the PlayCanvas SOG folder */
            fprintf(f, "<td>%lld</td></tr>\n", (long long)e->sog_bytes);
        else
            fputs("<td></td></tr>\n", f);
        if (e->error) {
            fputs("<tr><td class=\"l failed\" colspan=\"12\">", f);
            esc(f, e->error);
            fputs("</td></tr>\n", f);
        }
        neval += e->eval || e->preview;
    }
    fputs("</table>\n", f);
    if (!neval)
        fputs("<p class=\"note\">No eval results or previews in these manifests: run with "
              "<code>eval: {enabled: true}</code> and <code>output: {preview: true}</code>.</p>\n",
              f);

    for (int i = 0; i < mg->n; i++) {
        const cuplas_manifest_entry *e = mg->v[i].e;
        if (!e->eval && !e->preview)
            continue;
        fputs("<h3>", f);
        esc(f, e->input);
        fputs(" : ", f);
        esc(f, e->dataset);
        fputs("</h3>\n", f);
        if (e->preview) {
            /* manifest paths are not relative to where report runs */
            char *png = cuplas_manifest_preview_path(mg->v[i].from, e);
            const char *shown = png ? png : e->preview;
            fputs("<p class=\"note\">input order (left) and sorted (right): ", f);
            esc(f, shown);
            fputs("</p>\n", f);
            int r = png ? embed_png(f, png, e->dataset ? e->dataset : "preview") : -1;
            if (r == -2)   /* said on stderr too: the page may never be opened */
                fprintf(stderr, "cuplas report: warning: %s: not a PNG file, not embedded\n",
                        shown);
            if (r != 0) {
                fprintf(f, "<p class=\"failed\">preview %s: ",
                        r == -2 ? "is not a PNG file" : "not readable");
                esc(f, shown);
                fputs("</p>\n", f);
            }
            free(png);
        }
        if (e->eval)
            eval_table(f, e->eval);
    }
    fputs("<p class=\"note\">Written by cuplas report. Bytes are the lossless files "
          "`cuplas eval` measures (README \"Evaluating a result\").</p>\n</body></html>\n", f);
}
