/* metrics.c - average neighbour distance (AND), thread-count independent. */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>

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
    return x + (index ? index[i] : i) * (int64_t)C;
}

double cuplas_and(const double *x, int64_t H, int64_t W, int C, const int64_t *index)
{
    int64_t edges = H * (W - 1) + (H - 1) * W;
    if (edges <= 0)
        return 0.0;
    double *row = malloc((size_t)H * sizeof *row);
    if (!row)
        return NAN;
    #pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < H; y++) {
        double s = 0;
        for (int64_t xx = 0; xx < W; xx++) {
            const double *a = cell(x, C, index, y * W + xx);
            if (xx + 1 < W)
                s += dist(a, cell(x, C, index, y * W + xx + 1), C);
            if (y + 1 < H)
                s += dist(a, cell(x, C, index, (y + 1) * W + xx), C);
        }
        row[y] = s;
    }
    double total = 0;
    for (int64_t y = 0; y < H; y++)
        total += row[y];
    free(row);
    return total / (double)edges;
}
