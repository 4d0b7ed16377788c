/*
 * fit.c - grid shapes for any N, crop selection, pad fill, and the check
 * of a fitted grid's index read back (fit.h).
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

/* The rank order: highest value first, NaN last, then the lower row. Rows
 * are distinct, so the order is total and the top m are one set however
 * they are found. */
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

static void swap_ranked(ranked *a, ranked *b)
{
    ranked t = *a;
    *a = *b;
    *b = t;
}

/* Reorder r so that r[0..m) are the first m in rank order (in no order
 * among themselves). Quickselect, median of three, in O(n) on average;
 * hostile orders that defeat the pivots end in a sort of what is left
 * once the depth bound is spent (introselect), so O(n log n) at worst.
 * A full sort of millions of splats was most of a scene's preparation. */
static void select_top(ranked *r, int64_t n, int64_t m)
{
    int64_t lo = 0, hi = n;   /* the boundary m lies in [lo, hi] */
    int depth = 16;
    for (int64_t k = n; k > 1; k >>= 1)
        depth += 2;
    while (hi - lo > 16 && lo < m && m < hi) {
        if (depth-- == 0) {
            qsort(r + lo, (size_t)(hi - lo), sizeof *r, cmp_ranked);
            return;
        }
        int64_t mid = lo + (hi - lo) / 2;
        if (cmp_ranked(&r[mid], &r[lo]) < 0)
            swap_ranked(&r[mid], &r[lo]);
        if (cmp_ranked(&r[hi - 1], &r[lo]) < 0)
            swap_ranked(&r[hi - 1], &r[lo]);
        if (cmp_ranked(&r[hi - 1], &r[mid]) < 0)
            swap_ranked(&r[hi - 1], &r[mid]);
        swap_ranked(&r[mid], &r[hi - 1]);   /* the median is the pivot, at the end */
        int64_t store = lo;
        for (int64_t i = lo; i < hi - 1; i++)
            if (cmp_ranked(&r[i], &r[hi - 1]) < 0)
                swap_ranked(&r[i], &r[store++]);
        swap_ranked(&r[store], &r[hi - 1]);  /* the pivot in its final place */
        if (store < m)
            lo = store + 1;
        else
            hi = store;
    }
    if (lo < m && m < hi)
        qsort(r + lo, (size_t)(hi - lo), sizeof *r, cmp_ranked);
}

int cuplas_fit_crop_select(const double *v, int64_t n, int64_t m, int64_t *keep,
                           int64_t *dropped)
{
    ranked *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    unsigned char *gone = calloc((size_t)(n ? n : 1), 1);
    if (!r || !gone) {
        free(r);
        free(gone);
        return -1;
    }
    if (m > n)
        m = n;
    for (int64_t i = 0; i < n; i++) {
        r[i].v = v[i];
        r[i].i = i;
    }
    select_top(r, n, m);
    for (int64_t k = m; k < n; k++)
        gone[r[k].i] = 1;
    /* one scan gives both lists in ascending row order */
    int64_t a = 0, b = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!gone[i])
            keep[a++] = i;
        else if (dropped)
            dropped[b++] = i;
    }
    free(r);
    free(gone);
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

int cuplas_fit_check_index(const int64_t *index, int64_t cells, int64_t rows, int64_t *placed,
                           cuplas_error *err)
{
    uint8_t *seen = NULL;
    int64_t top = -1, n = 0;
    int rc = 0;

    /* the values first: a bad one says more than the repeat it may cause */
    for (int64_t k = 0; k < cells; k++) {
        if (index[k] < -1)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "index is not a permutation: cell %lld holds %lld",
                        (long long)k, (long long)index[k]);
        if (rows > 0 && index[k] >= rows)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "index is not a permutation: cell %lld holds "
                        "%lld, past the %lld input rows of input_shape", (long long)k,
                        (long long)index[k], (long long)rows);
        top = index[k] > top ? index[k] : top;
    }
    /* a bit a row: O(cells), where sorting the entries took O(cells log cells) */
    if (top >= 0 && !(seen = calloc((size_t)(top / 8 + 1), 1)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory checking the index (rows up to %lld)",
                    (long long)top);
    for (int64_t k = 0; k < cells; k++) {
        const int64_t r = index[k];
        if (r < 0)
            continue;
        if (seen[r / 8] & 1u << r % 8) {
            int64_t first = 0;
            while (index[first] != r)
                first++;
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "index is not a permutation: row %lld is in cells "
                        "%lld and %lld", (long long)r, (long long)first, (long long)k);
        }
        seen[r / 8] |= (uint8_t)(1u << r % 8);
        n++;
    }
    if (placed)
        *placed = n;
fail:
    free(seen);
    return rc;
}
