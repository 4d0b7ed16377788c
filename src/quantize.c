/*
 * quantize.c - normalisation, weights and quantisation of sort features.
 *
 * One scale for all channels (max |x| -> CUPLAS_QMAX) keeps the relative
 * weight of channels exactly as the user set it.
 */
#include "quantize.h"

#include <math.h>
#include <stdlib.h>

/* Rows per partial sum. Partials are added in block order, so the stats
 * do not depend on the thread count, only on this constant. */
#define STAT_BLOCK 4096

/* Per-channel mean, standard deviation, min and max of x (N x C). */
static int channel_stats(const double *x, int64_t N, int C, double *mean, double *sd,
                         double *lo, double *hi)
{
    int64_t nb = (N + STAT_BLOCK - 1) / STAT_BLOCK;
    double *part = malloc((size_t)(nb * C) * sizeof *part);
    if (!part)
        return -1;
    #pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < nb; b++) {
        double *s = part + b * C;
        for (int c = 0; c < C; c++)
            s[c] = 0;
        for (int64_t i = b * STAT_BLOCK; i < N && i < (b + 1) * STAT_BLOCK; i++)
            for (int c = 0; c < C; c++)
                s[c] += x[i * C + c];
    }
    for (int c = 0; c < C; c++) {
        double t = 0;
        for (int64_t b = 0; b < nb; b++)
            t += part[b * C + c];
        mean[c] = t / (double)N;
        lo[c] = hi[c] = x[c];
    }
    #pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < nb; b++) {
        double *s = part + b * C;
        for (int c = 0; c < C; c++)
            s[c] = 0;
        for (int64_t i = b * STAT_BLOCK; i < N && i < (b + 1) * STAT_BLOCK; i++)
            for (int c = 0; c < C; c++) {
                double d = x[i * C + c] - mean[c];
                s[c] += d * d;
            }
    }
    for (int c = 0; c < C; c++) {
        double t = 0;
        for (int64_t b = 0; b < nb; b++)
            t += part[b * C + c];
        sd[c] = sqrt(t / (double)N);
    }
    /* min and max do not depend on the order */
    for (int64_t i = 0; i < N; i++)
        for (int c = 0; c < C; c++) {
            double v = x[i * C + c];
            lo[c] = v < lo[c] ? v : lo[c];
            hi[c] = v > hi[c] ? v : hi[c];
        }
    free(part);
    return 0;
}

int cuplas_features_normalize(double *x, int64_t N, int C, cuplas_norm norm,
                              const double *weights)
{
    double *st = NULL, *scale, *shift;
    if (!(st = malloc((size_t)(6 * C) * sizeof *st)))
        return CUPLAS_ERR_NOMEM;
    double *mean = st, *sd = st + C, *lo = st + 2 * C, *hi = st + 3 * C;
    scale = st + 4 * C;
    shift = st + 5 * C;
    if (norm != CUPLAS_NORM_NONE && channel_stats(x, N, C, mean, sd, lo, hi) != 0) {
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
        #pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < N; i++)
            for (int c = 0; c < C; c++)
                x[i * C + c] = (x[i * C + c] - shift[c]) * scale[c];
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

int cuplas_qgrid_build(const double *x, int64_t H, int64_t W, int C, int16_t *dst,
                       cuplas_qgrid *g, cuplas_error *err)
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
    double amax = 0;
    #pragma omp parallel for reduction(max : amax) schedule(static)
    for (int64_t i = 0; i < N * C; i++)
        amax = fabs(x[i]) > amax ? fabs(x[i]) : amax;
    double s = amax > 0 ? CUPLAS_QMAX_D / amax : 1.0;
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < N; i++) {
        for (int c = 0; c < C; c++)
            g->q[i * g->Cp + c] = round_half_up(x[i * C + c] * s);
        for (int c = C; c < g->Cp; c++)
            g->q[i * g->Cp + c] = 0; /* padding costs nothing */
    }
    return 0;
fail:
    return rc;
}

void cuplas_qgrid_free(cuplas_qgrid *g)
{
    if (g->owned)
        free(g->q);
    g->q = NULL;
}
