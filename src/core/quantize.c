/*
 * quantize.c - normalisation, weights and quantisation of sort features.
 *
 * One scale for all channels (max |x| -> CUPLAS_QMAX) keeps the relative
 * weight of channels exactly as the user set it.
 */
#include "core/quantize.h"

#include <math.h>
#include <stdlib.h>

#include "core/quad.h"   /* CUPLAS_QMAX */

/* Rows per partial sum and per item of the parallel loops. Partials are
 * added in block order, so the stats do not depend on the thread count,
 * only on this constant. */
#define STAT_BLOCK 4096

/* The loops over blocks of rows of x (N x C). */
typedef struct stat_ctx {
    double *x;
    int64_t N;
    int C;
    const double *mean;         /* pass 2: set                       */
    double *part, *lo, *hi;     /* per block: sums (C), min, max (C) */
    const double *shift, *scale;
} stat_ctx;

static void block_rows(const stat_ctx *k, int64_t b, int64_t *i0, int64_t *i1)
{
    *i0 = b * STAT_BLOCK;
    *i1 = k->N - *i0 < STAT_BLOCK ? k->N : *i0 + STAT_BLOCK;
}

/* Pass 1: per-block sums, minima and maxima (min and max do not depend on
 * the order). */
static int stat_sums(void *p, int64_t b)
{
    const stat_ctx *k = p;
    const int C = k->C;
    double *s = k->part + b * C, *lo = k->lo + b * C, *hi = k->hi + b * C;
    int64_t i0, i1;

    block_rows(k, b, &i0, &i1);
    for (int c = 0; c < C; c++) {
        s[c] = 0;
        lo[c] = hi[c] = k->x[i0 * C + c];
    }
    for (int64_t i = i0; i < i1; i++)
        for (int c = 0; c < C; c++) {
            double v = k->x[i * C + c];
            s[c] += v;
            lo[c] = v < lo[c] ? v : lo[c];
            hi[c] = v > hi[c] ? v : hi[c];
        }
    return 0;
}

/* Pass 2: per-block sums of squared deviations. */
static int stat_squares(void *p, int64_t b)
{
    const stat_ctx *k = p;
    double *s = k->part + b * k->C;
    int64_t i0, i1;

    block_rows(k, b, &i0, &i1);
    for (int c = 0; c < k->C; c++)
        s[c] = 0;
    for (int64_t i = i0; i < i1; i++)
        for (int c = 0; c < k->C; c++) {
            double d = k->x[i * k->C + c] - k->mean[c];
            s[c] += d * d;
        }
    return 0;
}

static int apply_scale(void *p, int64_t b)
{
    const stat_ctx *k = p;
    int64_t i0, i1;

    block_rows(k, b, &i0, &i1);
    for (int64_t i = i0; i < i1; i++)
        for (int c = 0; c < k->C; c++)
            k->x[i * k->C + c] = (k->x[i * k->C + c] - k->shift[c]) * k->scale[c];
    return 0;
}

/* Sum of the per-block partials of channel c, in block order. */
static double add_blocks(const double *part, int64_t nb, int C, int c)
{
    double t = 0;
    for (int64_t b = 0; b < nb; b++)
        t += part[b * C + c];
    return t;
}

/* Per-channel mean, standard deviation, min and max of x (N x C). */
static int channel_stats(stat_ctx *k, cuplas_pool *pool, double *mean, double *sd,
                         double *lo, double *hi)
{
    const int C = k->C;
    int64_t nb = cuplas_par_blocks(k->N, STAT_BLOCK);
    double *part = malloc((size_t)(3 * nb * C) * sizeof *part);
    if (!part)
        return -1;
    k->part = part;
    k->lo = part + nb * C;
    k->hi = part + 2 * nb * C;
    cuplas_par_for(pool, nb, stat_sums, k, NULL);
    for (int c = 0; c < C; c++) {
        mean[c] = add_blocks(part, nb, C, c) / (double)k->N;
        lo[c] = k->lo[c];
        hi[c] = k->hi[c];
        for (int64_t b = 1; b < nb; b++) {
            lo[c] = k->lo[b * C + c] < lo[c] ? k->lo[b * C + c] : lo[c];
            hi[c] = k->hi[b * C + c] > hi[c] ? k->hi[b * C + c] : hi[c];
        }
    }
    k->mean = mean;
    cuplas_par_for(pool, nb, stat_squares, k, NULL);
    for (int c = 0; c < C; c++)
        sd[c] = sqrt(add_blocks(part, nb, C, c) / (double)k->N);
    free(part);
    return 0;
}

int cuplas_features_normalize(double *x, int64_t N, int C, cuplas_norm norm,
                              const double *weights, cuplas_pool *pool)
{
    double *st = NULL, *scale, *shift;
    stat_ctx k = {.x = x, .N = N, .C = C};
    if (!(st = calloc((size_t)(6 * C), sizeof *st)))
        return CUPLAS_ERR_NOMEM;
    double *mean = st, *sd = st + C, *lo = st + 2 * C, *hi = st + 3 * C;
    scale = st + 4 * C;
    shift = st + 5 * C;
    if (norm != CUPLAS_NORM_NONE && N > 0 && channel_stats(&k, pool, mean, sd, lo, hi) != 0) {
        free(st);
        return CUPLAS_ERR_NOMEM;
    }
    int any = 0;
    for (int c = 0; c < C; c++) {
        shift[c] = 0;
        scale[c] = 1;
        if (norm == CUPLAS_NORM_STANDARDIZE) {
            shift[c] = mean[c];
            scale[c] = sd[c] > 0 ? 1.0 / sd[c] : 0.0; /* a constant channel is all 0 */
        } else if (norm == CUPLAS_NORM_MINMAX) {
            shift[c] = lo[c];
            scale[c] = hi[c] > lo[c] ? 1.0 / (hi[c] - lo[c]) : 0.0;
        }
        if (weights)
            scale[c] *= weights[c];
        any |= shift[c] != 0 || scale[c] != 1;
    }
    if (any) {
        k.shift = shift;
        k.scale = scale;
        cuplas_par_for(pool, cuplas_par_blocks(N, STAT_BLOCK), apply_scale, &k, NULL);
    }
    free(st);
    return 0;
}

/* floor(v + 0.5) for |v| < 2^30, exactly, without a libm call (the
 * quantisation loop then vectorises). */
static inline int16_t round_half_up(double v)
{
    double w = v + 0.5;
    int t = (int)w;             /* truncates toward zero */
    return (int16_t)(t - (w < (double)t));
}

typedef struct quant_ctx {
    const double *x;
    int64_t N;
    int C;
    cuplas_qgrid *g;
    double s;        /* the common scale */
    double *amax;    /* per block: max |x| */
} quant_ctx;

static int block_amax(void *p, int64_t b)
{
    quant_ctx *k = p;
    int64_t i0 = b * STAT_BLOCK * k->C, i1 = (b + 1) * STAT_BLOCK * k->C;
    double m = 0;

    i1 = i1 < k->N * k->C ? i1 : k->N * k->C;
    for (int64_t i = i0; i < i1; i++)
        m = fabs(k->x[i]) > m ? fabs(k->x[i]) : m;
    k->amax[b] = m;
    return 0;
}

static int block_quantize(void *p, int64_t b)
{
    const quant_ctx *k = p;
    const int C = k->C, Cp = k->g->Cp;
    int64_t i0 = b * STAT_BLOCK, i1 = k->N - i0 < STAT_BLOCK ? k->N : i0 + STAT_BLOCK;
    int16_t *q = k->g->q;

    for (int64_t i = i0; i < i1; i++) {
        for (int c = 0; c < C; c++)
            q[i * Cp + c] = round_half_up(k->x[i * C + c] * k->s);
        for (int c = C; c < Cp; c++)
            q[i * Cp + c] = 0; /* padding costs nothing */
    }
    return 0;
}

int cuplas_qgrid_build(const double *x, int64_t H, int64_t W, int C, int16_t *dst,
                       cuplas_pool *pool, cuplas_qgrid *g, cuplas_error *err)
{
    int rc = 0;
    int64_t N = H * W;
    g->H = H;
    g->W = W;
    g->C = C;
    g->Cp = cuplas_padded_channels(C);
    g->owned = dst == NULL;
    g->q = dst ? dst : malloc((size_t)N * g->Cp * sizeof *g->q);
    if (!g->q)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for %lld x %d features",
                    (long long)N, g->Cp);
    quant_ctx k = {x, N, C, g, 0, NULL};
    int64_t nb = cuplas_par_blocks(N, STAT_BLOCK);
    if (!(k.amax = malloc((size_t)(nb > 0 ? nb : 1) * sizeof *k.amax)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory quantising %lld cells", (long long)N);
    cuplas_par_for(pool, nb, block_amax, &k, NULL);
    double amax = 0;   /* the largest of the block maxima: order-free */
    for (int64_t b = 0; b < nb; b++)
        amax = k.amax[b] > amax ? k.amax[b] : amax;
    free(k.amax);
    k.s = amax > 0 ? (double)CUPLAS_QMAX / amax : 1.0;
    cuplas_par_for(pool, nb, block_quantize, &k, NULL);
    return 0;
fail:
    if (g->owned)
        free(g->q);
    g->q = NULL;
    return rc;
}

void cuplas_qgrid_free(cuplas_qgrid *g)
{
    if (g->owned)
        free(g->q);
    g->q = NULL;
}
