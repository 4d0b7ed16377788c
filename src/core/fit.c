/*
 * fit.c - grid shapes for any N, crop selection, pad fill (fit.h).
 */
#include "core/fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cuplas_fit_auto_shape(int64_t n, int crop, int64_t *H, int64_t *W)
{
    int64_t bh = 1, bw = n, best = -1;
    if (n < 1)
        n = 1;
    int64_t r = (int64_t)sqrt((double)n);
    while (r * r > n)
        r--;
    while ((r + 1) * (r + 1) <= n)
        r++;
    /* pad: H up to ceil(sqrt n); crop: H up to floor(sqrt n), so W >= H */
    int64_t hmax = crop ? r : (r * r == n ? r : r + 1);
    for (int64_t h = 1; h <= hmax; h++) {
        int64_t w;
        if (crop) {
            w = n / h;
            if (w > 2 * h)
                w = 2 * h;
        } else {
            w = (n + h - 1) / h;
            if (w < h)
                w = h;
            if (w > 2 * h)
                continue;
        }
        int64_t cells = h * w;
        /* ">=" / "<=": a later (larger) h wins ties */
        if (best < 0 || (crop ? cells >= best : cells <= best)) {
            best = cells;
            bh = h;
            bw = w;
        }
    }
    if (best < 0) {   /* n = 1 with pad: h = 1, w = 1 is always found */
        bh = 1;
        bw = n;
    }
    *H = bh;
    *W = bw;
}

void cuplas_fit_square_shape(int64_t n, int crop, int64_t *H, int64_t *W)
{
    int64_t r = (int64_t)sqrt((double)(n < 1 ? 1 : n));
    while (r * r > n)
        r--;
    while ((r + 1) * (r + 1) <= n)
        r++;
    if (!crop && r * r < n)
        r++;
    *H = *W = r < 1 ? 1 : r;
}

typedef struct ranked {
    double v;
    int64_t i;
} ranked;

/* Highest value first, NaN last, then the lower row. */
static int cmp_ranked(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    int na = isnan(a->v), nb = isnan(b->v);
    if (na != nb)
        return na - nb;
    if (!na && a->v != b->v)
        return a->v > b->v ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

int cuplas_fit_crop_select(const double *v, int64_t n, int64_t m, int64_t *keep,
                           int64_t *dropped)
{
    ranked *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    if (!r)
        return -1;
    for (int64_t i = 0; i < n; i++) {
        r[i].v = v[i];
        r[i].i = i;
    }
    qsort(r, (size_t)n, sizeof *r, cmp_ranked);
    for (int64_t k = 0; k < m; k++)
        keep[k] = r[k].i;
    qsort(keep, (size_t)m, sizeof *keep, cmp_i64);
    if (dropped) {
        for (int64_t k = m; k < n; k++)
            dropped[k - m] = r[k].i;
        qsort(dropped, (size_t)(n - m), sizeof *dropped, cmp_i64);
    }
    free(r);
    return 0;
}

void cuplas_fit_pad_mean(double *x, int64_t n, int64_t cells, int C)
{
    if (cells <= n || n <= 0 || C <= 0)
        return;
    double *mean = x + n * C;   /* row n holds the sums, then the means */
    memset(mean, 0, (size_t)C * sizeof *mean);
    for (int64_t i = 0; i < n; i++)
        for (int c = 0; c < C; c++)
            mean[c] += x[i * C + c];
    for (int c = 0; c < C; c++)
        mean[c] /= (double)n;
    for (int64_t i = n + 1; i < cells; i++)
        memcpy(x + i * C, mean, (size_t)C * sizeof *mean);
}
