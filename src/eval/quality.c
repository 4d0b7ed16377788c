/*
 * quality.c - AND, VAD and DPQ_p over a grid in cell order with optional
 * empty cells (quality.h has the definitions).
 *
 * DPQ is done row by row: item i's distances to every other item are
 * computed, sorted twice (by grid distance then feature distance, and by
 * feature distance), and their running means added into per-k sums. That
 * needs O(n) memory a row instead of the reference's n x n matrices, and
 * the rows of a block add into the block's own sums, blocks added in
 * order, so the value is the same for any number of threads.
 */
#include "eval/quality.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int filled(const uint8_t *empty, int64_t cell) { return !empty || !empty[cell]; }

static double l2(const double *a, const double *b, int C)
{
    double s = 0;
    for (int c = 0; c < C; c++) {
        double d = a[c] - b[c];
        s += d * d;
    }
    return sqrt(s);
}

double cuplas_eval_and(const double *x, int64_t H, int64_t W, int C, const uint8_t *empty)
{
    double sum = 0;
    int64_t edges = 0;
    for (int64_t y = 0; y < H; y++)
        for (int64_t xx = 0; xx < W; xx++) {
            int64_t i = y * W + xx;
            if (!filled(empty, i))
                continue;
            const double *a = x + i * C;
            if (xx + 1 < W && filled(empty, i + 1)) {
                sum += l2(a, a + C, C);
                edges++;
            }
            if (y + 1 < H && filled(empty, i + W)) {
                sum += l2(a, a + W * C, C);
                edges++;
            }
        }
    return edges ? sum / (double)edges : NAN;   /* no pair: undefined, not perfect */
}

/* Population variance of |a_c - b_c| over the pairs (i, i + step) that
 * the caller's loop admits; two passes (mean, then squared deviations)
 * as numpy's var does. Returns -1 when there is no pair. */
static double absdiff_var(const double *x, int64_t H, int64_t W, int C, const uint8_t *empty,
                          int vertical)
{
    const int64_t step = vertical ? W : 1;
    double sum = 0, n = 0;
    for (int pass = 0; pass < 2; pass++) {
        double mean = pass ? sum / n : 0, acc = 0;
        int64_t cnt = 0;
        for (int64_t y = 0; y + (vertical ? 1 : 0) < H; y++)
            for (int64_t xx = 0; xx + (vertical ? 0 : 1) < W; xx++) {
                int64_t i = y * W + xx;
                if (!filled(empty, i) || !filled(empty, i + step))
                    continue;
                for (int c = 0; c < C; c++) {
                    double d = fabs(x[i * C + c] - x[(i + step) * C + c]);
                    acc += pass ? (d - mean) * (d - mean) : d;
                }
                cnt += C;
            }
        if (cnt == 0)
            return -1;
        if (pass)
            return acc / (double)cnt;
        sum = acc;
        n = (double)cnt;
    }
    return -1; /* not reached */
}

double cuplas_eval_vad(const double *x, int64_t H, int64_t W, int C, const uint8_t *empty)
{
    double vx = absdiff_var(x, H, W, C, empty, 0), vy = absdiff_var(x, H, W, C, empty, 1);
    if (vx < 0 && vy < 0)
        return NAN;   /* no pair: undefined, not perfect */
    if (vx < 0)
        return vy;
    if (vy < 0)
        return vx;
    return (vx + vy) / 2;
}

/* ---- DPQ ---- */

/* One other item as seen from a row's item: squared grid distance and
 * feature distance. */
typedef struct dpq_pair {
    int64_t ld;
    double hd;
} dpq_pair;

static int cmp_pair(const void *pa, const void *pb)
{
    const dpq_pair *a = pa, *b = pb;
    if (a->ld != b->ld)
        return a->ld < b->ld ? -1 : 1;
    return (a->hd > b->hd) - (a->hd < b->hd);
}

static int cmp_hd(const void *pa, const void *pb)
{
    const dpq_pair *a = pa, *b = pb;
    return (a->hd > b->hd) - (a->hd < b->hd);
}

/* Rows a block (the unit of the ordered reduction). */
#define DPQ_BLOCK 32

/* ||g||_p, scaled by max |g| so that g^p neither under- nor overflows. */
static double pnorm(const double *g, int64_t n, double p)
{
    double m = 0, s = 0;
    for (int64_t k = 0; k < n; k++)
        m = g[k] > m ? g[k] : m;
    if (m == 0)
        return 0;
    for (int64_t k = 0; k < n; k++)
        s += pow(g[k] / m, p);
    return m * pow(s, 1.0 / p);
}

/* One block of DPQ rows: its sums of 2D and HD running means and of d. */
typedef struct dpq_job {
    const double *x;
    int C;
    int64_t W, n, K, maxld;
    int bucket;
    const int64_t *cells;
    double *sums;
} dpq_job;

static int dpq_block(void *ctx, int64_t b)
{
    const dpq_job *j = ctx;
    const int64_t n = j->n, K = j->K, W = j->W;
    const int C = j->C;
    const double *x = j->x;
    const int64_t *cells = j->cells;
    dpq_pair *pairs = malloc((size_t)K * sizeof *pairs);
    dpq_pair *by2d = malloc((size_t)K * sizeof *by2d);
    int64_t *count = j->bucket ? malloc((size_t)(j->maxld + 2) * sizeof *count) : NULL;
    int rc = 0;
    if (!pairs || !by2d || (j->bucket && !count)) {
        rc = CUPLAS_ERR_NOMEM;
        goto done;
    }
    double *s2 = j->sums + b * (2 * K + 1), *shd = s2 + K, *sd = shd + K;
    for (int64_t r = b * DPQ_BLOCK; r < cuplas_par_block_end(b, DPQ_BLOCK, n); r++) {
        const int64_t ci = cells[r], yi = ci / W, xi = ci % W;
        int64_t m = 0;
        for (int64_t o = 0; o < n; o++) {
            if (o == r)
                continue;
            const int64_t co = cells[o], dy = co / W - yi, dx = co % W - xi;
            pairs[m].ld = dy * dy + dx * dx;
            pairs[m].hd = l2(x + ci * C, x + co * C, C);
            m++;
        }
        /* HD order: by d. 2D order: by grid distance, ties by d */
        qsort(pairs, (size_t)K, sizeof *pairs, cmp_hd);
        if (j->bucket) { /* stable by ld over the d-sorted list */
            memset(count, 0, (size_t)(j->maxld + 2) * sizeof *count);
            for (int64_t k = 0; k < K; k++)
                count[pairs[k].ld + 1]++;
            for (int64_t v = 1; v <= j->maxld + 1; v++)
                count[v] += count[v - 1];
            for (int64_t k = 0; k < K; k++)
                by2d[count[pairs[k].ld]++] = pairs[k];
        } else {
            memcpy(by2d, pairs, (size_t)K * sizeof *by2d);
            qsort(by2d, (size_t)K, sizeof *by2d, cmp_pair);
        }
        double c2 = 0, chd = 0;
        for (int64_t k = 0; k < K; k++) {
            c2 += by2d[k].hd;
            chd += pairs[k].hd;
            s2[k] += c2 / (double)(k + 1);
            shd[k] += chd / (double)(k + 1);
        }
        *sd += chd;
    }
done:
    free(pairs);
    free(by2d);
    free(count);
    return rc;
}

int cuplas_eval_dpq(const double *x, int64_t H, int64_t W, int C, const uint8_t *empty,
                    double p, int64_t max_n, cuplas_pool *pool, double *dpq, cuplas_error *err)
{
    int rc = 0;
    int64_t *cells = NULL;
    double *sums = NULL, *gain = NULL;
    *dpq = NAN;
    if (!(p >= 1))
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "DPQ: p must be >= 1 (got %g)", p);
    if (max_n <= 0)
        max_n = CUPLAS_DPQ_MAX_N;
    int64_t n = 0;
    for (int64_t i = 0; i < H * W; i++)
        n += filled(empty, i);
    if (n < 2 || n > max_n)
        return 0;
    const int64_t K = n - 1, nblocks = (n + DPQ_BLOCK - 1) / DPQ_BLOCK;
    cells = malloc((size_t)n * sizeof *cells);
    /* per block: K sums of 2D running means, K of HD, and its sum of d */
    sums = calloc((size_t)nblocks * (size_t)(2 * K + 1), sizeof *sums);
    gain = malloc((size_t)(2 * K) * sizeof *gain);
    if (!cells || !sums || !gain)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "DPQ: out of memory for %lld items", (long long)n);
    for (int64_t i = 0, j = 0; i < H * W; i++)
        if (filled(empty, i))
            cells[j++] = i;

    /* grid distances are bucketed (counting sort) when their range is
     * small, as on any grid without huge holes; else pairs are sorted */
    const int64_t maxld = (H - 1) * (H - 1) + (W - 1) * (W - 1);
    dpq_job job = {.x = x, .C = C, .W = W, .n = n, .K = K, .maxld = maxld,
                   .bucket = maxld <= 16 * n, .cells = cells, .sums = sums};
    if (cuplas_par_for(pool, nblocks, dpq_block, &job, NULL) < nblocks)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "DPQ: out of memory for row buffers");

    /* blocks in order into block 0 */
    for (int64_t b = 1; b < nblocks; b++)
        for (int64_t k = 0; k < 2 * K + 1; k++)
            sums[k] += sums[b * (2 * K + 1) + k];
    const double dbar = sums[2 * K] / ((double)n * (double)K);
    if (dbar > 0) {
        for (int64_t k = 0; k < 2 * K; k++) {
            double g = (dbar - sums[k] / (double)n) / dbar;
            gain[k] = g > 0 ? g : 0;
        }
        double hd_norm = pnorm(gain + K, K, p);
        if (hd_norm > 0)
            *dpq = pnorm(gain, K, p) / hd_norm;
    }
fail:
    free(cells);
    free(sums);
    free(gain);
    return rc;
}
