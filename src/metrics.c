/* metrics.c - average neighbour distance (AND), thread-count independent. */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Rolling row buffers are used up to this many values a row (2 x 8 MiB a
 * thread); a 1 x N line or a very wide grid reads through the index. */
#define GATHER_MAX_VALUES ((int64_t)1 << 20)

static double dist(const double *a, const double *b, int C)
{
    double s = 0;
    for (int c = 0; c < C; c++) {
        double d = a[c] - b[c];
        s += d * d;
    }
    return sqrt(s);
}

static const double *cell(const double *x, int C, const int64_t *index, int64_t i)
{
    return x + index[i] * (int64_t)C;
}

/* Row y's edges through the index, cell by cell: right, then down. Every
 * path below adds the same distances in this order, so the sums do not
 * depend on the path (pair_rows is this on contiguous rows). */
static double row_sum(const double *x, int C, const int64_t *index, int64_t y, int64_t H,
                      int64_t W)
{
    double s = 0;
    for (int64_t xx = 0; xx < W; xx++) {
        const double *a = cell(x, C, index, y * W + xx);
        if (xx + 1 < W)
            s += dist(a, cell(x, C, index, y * W + xx + 1), C);
        if (y + 1 < H)
            s += dist(a, cell(x, C, index, (y + 1) * W + xx), C);
    }
    return s;
}

/* row_sum on contiguous rows: a is row y, b row y + 1 (NULL on the last). */
static double pair_rows(const double *a, const double *b, int64_t W, int C)
{
    double s = 0;
    for (int64_t xx = 0; xx < W; xx++) {
        if (xx + 1 < W)
            s += dist(a + xx * C, a + (xx + 1) * C, C);
        if (b)
            s += dist(a + xx * C, b + xx * C, C);
    }
    return s;
}

static void gather_row(const double *x, int C, const int64_t *index, int64_t y, int64_t W,
                       double *dst)
{
    for (int64_t xx = 0; xx < W; xx++)
        memcpy(dst + xx * C, x + index[y * W + xx] * C, (size_t)C * sizeof *dst);
}

/* Through the index, each thread gathers its block of rows once into two
 * rolling buffers (rows y and y + 1): one random read per cell instead of
 * three. -1 when a buffer could not be allocated. */
static int rows_gathered(const double *x, int64_t H, int64_t W, int C, const int64_t *index,
                         double *row)
{
    int oom = 0;
    #pragma omp parallel reduction(| : oom)
    {
        int nt = 1, t = 0;
#ifdef _OPENMP
        nt = omp_get_num_threads();
        t = omp_get_thread_num();
#endif
        int64_t y0 = H * t / nt, y1 = H * (t + 1) / nt;
        double *a = malloc((size_t)(W * C) * sizeof *a), *b = malloc((size_t)(W * C) * sizeof *b);
        if (!a || !b)
            oom = 1;
        else if (y0 < y1)
            gather_row(x, C, index, y0, W, a);
        for (int64_t y = y0; y < y1 && !oom; y++) {
            if (y + 1 < H)
                gather_row(x, C, index, y + 1, W, b);
            row[y] = pair_rows(a, y + 1 < H ? b : NULL, W, C);
            double *tmp = a;
            a = b;
            b = tmp;
        }
        free(a);
        free(b);
    }
    return oom ? -1 : 0;
}

double cuplas_and(const double *x, int64_t H, int64_t W, int C, const int64_t *index)
{
    int64_t edges = H * (W - 1) + (H - 1) * W;
    if (edges <= 0)
        return 0.0;
    double *row = malloc((size_t)H * sizeof *row);
    if (!row)
        return NAN;
    if (!index) {
        #pragma omp parallel for schedule(static)
        for (int64_t y = 0; y < H; y++)
            row[y] = pair_rows(x + y * W * C, y + 1 < H ? x + (y + 1) * W * C : NULL, W, C);
    } else if (W * C > GATHER_MAX_VALUES || rows_gathered(x, H, W, C, index, row) != 0) {
        #pragma omp parallel for schedule(static)
        for (int64_t y = 0; y < H; y++)
            row[y] = row_sum(x, C, index, y, H, W);
    }
    double total = 0;
    for (int64_t y = 0; y < H; y++)
        total += row[y];
    free(row);
    return total / (double)edges;
}
