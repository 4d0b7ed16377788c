/*
 * preview.c - input and sorted side by side (preview.h).
 *
 * Design fact: the ranges come from the items, not the cells, so padding
 * never shifts them and both panels share one colour scale.
 */
#include "eval/preview.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BACKGROUND 32
#define MIN_SIDE 256   /* height a small grid is enlarged towards */

void cuplas_preview_opts_default(cuplas_preview_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_side = 1024;
    o->lo_pct = 1;
    o->hi_pct = 99;
}

int cuplas_preview_parse_channels(const char *list, cuplas_preview_opts *o, cuplas_error *err)
{
    const char *s = list;
    o->nchannels = 0;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > 65535 || (*end && *end != ',') || o->nchannels == 3)
            return cuplas_error_set(err, CUPLAS_ERR_USAGE, "bad channel list '%s' (accepted: one "
                                    "to three channel indices, comma-separated)", list);
        for (int i = 0; i < o->nchannels; i++)
            if (o->channels[i] == v)
                return cuplas_error_set(err, CUPLAS_ERR_USAGE, "channel %ld given twice", v);
        o->channels[o->nchannels++] = (int)v;
        s = *end ? end + 1 : end;
    }
    if (!o->nchannels)
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "empty channel list");
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Percentile range of channel ch over the items; hi > lo unless all equal. */
static int channel_range(const double *items, int64_t N, int C, int ch, double lo_pct,
                         double hi_pct, double *lo, double *hi)
{
    double *v = malloc((size_t)N * sizeof *v);
    if (!v)
        return -1;
    for (int64_t i = 0; i < N; i++)
        v[i] = items[i * C + ch];
    qsort(v, (size_t)N, sizeof *v, cmp_double);
    *lo = v[(int64_t)floor(lo_pct / 100.0 * (double)(N - 1))];
    *hi = v[(int64_t)ceil(hi_pct / 100.0 * (double)(N - 1))];
    if (!(*hi > *lo)) {   /* a near-constant channel: its whole range */
        *lo = v[0];
        *hi = v[N - 1];
    }
    free(v);
    return 0;
}

/* Draw one panel (map: cell -> item or -1) at column x0 of out. */
static void panel(const double *items, int C, const int *ch, int nch, const double *lo,
                  const double *hi, const int64_t *map, int64_t H, int64_t W, int64_t f,
                  int64_t u, cuplas_eval_image *out, int64_t x0)
{
    int64_t ph = (H + f - 1) / f * u, pw = (W + f - 1) / f * u;
    for (int64_t py = 0; py < ph; py++)
        for (int64_t px = 0; px < pw; px++) {
            double sum[3] = {0, 0, 0};
            int64_t n = 0, by = py / u, bx = px / u;
            for (int64_t y = by * f; y < H && y < (by + 1) * f; y++)
                for (int64_t x = bx * f; x < W && x < (bx + 1) * f; x++) {
                    int64_t item = map[y * W + x];
                    if (item < 0)
                        continue;
                    n++;
                    for (int k = 0; k < nch; k++) {
                        double v = items[item * C + ch[k]];
                        double t = hi[k] > lo[k] ? (v - lo[k]) / (hi[k] - lo[k]) : 0.5;
                        sum[k] += t < 0 ? 0 : t > 1 ? 1 : t;
                    }
                }
            uint8_t *p = out->px + (py * out->W + x0 + px) * 3;
            for (int k = 0; k < 3; k++) {
                int kk = nch == 1 ? 0 : k;   /* one channel: gray */
                p[k] = !n ? BACKGROUND
                          : kk < nch ? (uint8_t)lround(sum[kk] / (double)n * 255.0) : 0;
            }
        }
}

int cuplas_preview_build(const double *items, int64_t N, int C, const int64_t *sorted, int64_t H,
                         int64_t W, const cuplas_preview_opts *o, cuplas_eval_image *out,
                         cuplas_error *err)
{
    int ch[3], nch = o->nchannels;
    double lo[3], hi[3];
    int64_t *input = NULL, f = 1, u = 1, cells = H * W;
    int rc = 0;

    memset(out, 0, sizeof *out);
    if (nch == 0) {
        nch = C < 3 ? C : 3;
        for (int k = 0; k < nch; k++)
            ch[k] = k;
    } else {
        for (int k = 0; k < nch; k++)
            if ((ch[k] = o->channels[k]) >= C)
                CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "channel %d does not exist (%d channels)",
                            ch[k], C);
    }
    if (o->max_side < 2 + CUPLAS_PREVIEW_GAP)
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "max side %d is too small", o->max_side);
    while ((H + f - 1) / f > o->max_side || 2 * ((W + f - 1) / f) + CUPLAS_PREVIEW_GAP > o->max_side)
        f++;
    /* a small grid is enlarged (each cell a u x u block) to be seen */
    while (f == 1 && (u + 1) * H <= MIN_SIDE && 2 * (u + 1) * W + CUPLAS_PREVIEW_GAP <= o->max_side)
        u++;
    for (int k = 0; k < nch; k++)
        if (channel_range(items, N, C, ch[k], o->lo_pct, o->hi_pct, &lo[k], &hi[k]) != 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (!(input = malloc((size_t)cells * sizeof *input)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int64_t k = 0; k < cells; k++)
        input[k] = k < N ? k : -1;
    int64_t ph = (H + f - 1) / f * u, pw = (W + f - 1) / f * u;
    snprintf(out->name, sizeof out->name, "preview");
    out->channels = 3;
    out->H = ph;
    out->W = 2 * pw + CUPLAS_PREVIEW_GAP;
    if (!(out->px = malloc((size_t)(out->H * out->W * 3))))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    memset(out->px, BACKGROUND, (size_t)(out->H * out->W * 3));
    panel(items, C, ch, nch, lo, hi, input, H, W, f, u, out, 0);
    panel(items, C, ch, nch, lo, hi, sorted, H, W, f, u, out, pw + CUPLAS_PREVIEW_GAP);
fail:
    free(input);
    if (rc) {
        free(out->px);
        memset(out, 0, sizeof *out);
    }
    return rc;
}
