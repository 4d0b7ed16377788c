/*
 * metrics.c - average neighbour distance (AND), thread-count independent.
 *
 * Extreme finite values: when the plain sums overflow (features near the
 * largest double), the AND is taken again on the features times a power
 * of two that brings them near 1 (exact), and scaled back: the result is
 * inf only when the true AND exceeds the largest double. Likewise when
 * they underflow (features under about 1e-154: their squares flush to 0
 * and a sorted grid of 1e-310s reported AND 0 -> 0), if the largest
 * magnitude is under 2^-400. Ordinary data never takes either path, so
 * its AND is the same bit for bit.
 */
#include "core/metrics.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rolling row buffers are used up to this many values a row (2 x 8 MiB an
 * item); a 1 x N line or a very wide grid reads through the index. */
#define GATHER_MAX_VALUES ((int64_t)1 << 20)

/* An AND below this (2^-400) may be squares that underflowed. */
#define TINY_AND 0x1p-400

/* Values per item of the parallel loop over rows. */
#define AND_BLOCK_VALUES ((int64_t)1 << 18)

/* u: 1, or the power of two the values are taken times (exact). */
static double dist(const double *a, const double *b, int C, double u)
{
    double s = 0;
    if (u != 1.0) {
        for (int c = 0; c < C; c++) {
            double d = a[c] * u - b[c] * u;
            s += d * d;
        }
        return sqrt(s);
    }
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
                      int64_t W, double u)
{
    double s = 0;
    for (int64_t xx = 0; xx < W; xx++) {
        const double *a = cell(x, C, index, y * W + xx);
        if (xx + 1 < W)
            s += dist(a, cell(x, C, index, y * W + xx + 1), C, u);
        if (y + 1 < H)
            s += dist(a, cell(x, C, index, (y + 1) * W + xx), C, u);
    }
    return s;
}

/* row_sum on contiguous rows: a is row y, b row y + 1 (NULL on the last). */
static double pair_rows(const double *a, const double *b, int64_t W, int C, double u)
{
    double s = 0;
    for (int64_t xx = 0; xx < W; xx++) {
        if (xx + 1 < W)
            s += dist(a + xx * C, a + (xx + 1) * C, C, u);
        if (b)
            s += dist(a + xx * C, b + xx * C, C, u);
    }
    return s;
}

static void gather_row(const double *x, int C, const int64_t *index, int64_t y, int64_t W,
                       double *dst)
{
    for (int64_t xx = 0; xx < W; xx++)
        memcpy(dst + xx * C, x + index[y * W + xx] * C, (size_t)C * sizeof *dst);
}

/* One loop over blocks of rows, each filling its rows' slots of row[]. */
typedef struct and_ctx {
    const double *x;
    int64_t H, W;
    int C;
    const int64_t *index;   /* NULL: x in grid order */
    int gather;             /* through rolling row buffers */
    int64_t rows;           /* rows per item */
    double *row;
    double u;               /* 1, or a power of two (huge values) */
} and_ctx;

/* Rows [y0, y1) through the index: each row gathered once into two
 * rolling buffers (rows y and y + 1), one random read per cell instead
 * of three. -1 when a buffer could not be allocated. */
static int rows_gathered(const and_ctx *k, int64_t y0, int64_t y1)
{
    const int64_t H = k->H, W = k->W;
    double *a = malloc((size_t)(W * k->C) * sizeof *a), *b = malloc((size_t)(W * k->C) * sizeof *b);
    int rc = a && b ? 0 : -1;

    if (rc == 0)
        gather_row(k->x, k->C, k->index, y0, W, a);
    for (int64_t y = y0; y < y1 && rc == 0; y++) {
        if (y + 1 < H)
            gather_row(k->x, k->C, k->index, y + 1, W, b);
        k->row[y] = pair_rows(a, y + 1 < H ? b : NULL, W, k->C, k->u);
        double *t = a;
        a = b;
        b = t;
    }
    free(a);
    free(b);
    return rc;
}

/* Row y's edges without a buffer: through the index, or contiguous. */
static double row_direct(const and_ctx *k, int64_t y)
{
    const int64_t H = k->H, W = k->W, C = k->C;
    return k->index ? row_sum(k->x, k->C, k->index, y, H, W, k->u)
                    : pair_rows(k->x + y * W * C, y + 1 < H ? k->x + (y + 1) * W * C : NULL, W,
                                k->C, k->u);
}

static int and_rows(void *p, int64_t item)
{
    const and_ctx *k = p;
    int64_t y0 = item * k->rows, y1 = y0 + k->rows < k->H ? y0 + k->rows : k->H;

    if (k->gather)
        return rows_gathered(k, y0, y1);
    for (int64_t y = y0; y < y1; y++)
        k->row[y] = row_direct(k, y);
    return 0;
}

/* The AND of x times k->u (row sums in k->row, added in row order). With
 * no k->row (out of memory for H doubles) the rows are summed here, one
 * after the other: the same additions in the same order, so the same
 * value, only on one thread; NaN must keep meaning "no edge". */
static double and_pass(and_ctx *k, cuplas_pool *pool, int64_t edges)
{
    if (!k->row) {
        double total = 0;
        for (int64_t y = 0; y < k->H; y++)
            total += row_direct(k, y);
        return total / (double)edges;
    }
    int64_t nb = cuplas_par_blocks(k->H, k->rows);
    int gather = k->gather;
    if (cuplas_par_for(pool, nb, and_rows, k, NULL) < nb) {
        k->gather = 0;   /* out of memory for the row buffers: through the index */
        cuplas_par_for(pool, nb, and_rows, k, NULL);
    }
    k->gather = gather;
    double total = 0;
    for (int64_t y = 0; y < k->H; y++)
        total += k->row[y];
    return total / (double)edges;
}

double cuplas_and(const double *x, int64_t H, int64_t W, int C, const int64_t *index,
                  cuplas_pool *pool)
{
    int64_t edges = H * (W - 1) + (H - 1) * W;
    if (edges <= 0)   /* no two cells touch: undefined, not a perfect 0 */
        return NAN;
    and_ctx k = {x, H, W, C, index, index && W * C <= GATHER_MAX_VALUES, 1,
                 malloc((size_t)H * sizeof(double)), 1.0};
    /* about 2^18 values a block: a few dozen items on a large grid */
    k.rows = (AND_BLOCK_VALUES / (W * C)) > 1 ? AND_BLOCK_VALUES / (W * C) : 1;
    double r = and_pass(&k, pool, edges);
    /* huge values overflowed the sums, or tiny ones underflowed (a 0 AND
       of ordinary values is a constant grid): near 1, then back */
    if (isinf(r) || r < TINY_AND) {
        double m = 0;
        for (int64_t i = 0; i < H * W * (int64_t)C; i++)
            m = fabs(x[i]) > m ? fabs(x[i]) : m;
        int e = cuplas_safe_exponent(m);   /* 0: ordinary values, r stands */
        if (e) {
            k.u = ldexp(1.0, -e);
            r = ldexp(and_pass(&k, pool, edges), e);
        }
    }
    free(k.row);
    return r;
}

int cuplas_safe_exponent(double m)
{
    int e;
    if (m == 0 || (m <= 0x1p400 && m >= 0x1p-400))
        return 0;
    frexp(m, &e);
    return e < -(DBL_MAX_EXP - 1) ? -(DBL_MAX_EXP - 1) : e;
}
