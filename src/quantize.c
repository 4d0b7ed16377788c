/*
 * quantize.c - normalisation, weights and quantisation of sort features.
 *
 * One scale for all channels (max |x| -> CUPLAS_QMAX) keeps the relative
 * weight of channels exactly as the user set it.
 */
#include "quantize.h"

#include <math.h>
#include <stdlib.h>

static void channel_stats(const double *x, int64_t N, int C, int c,
                          double *mean, double *sd, double *lo, double *hi)
{
    double s = 0, mn = x[c], mx = x[c];
    for (int64_t i = 0; i < N; i++) {
        double v = x[i * C + c];
        s += v;
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
    }
    double m = s / (double)N, ss = 0;
    for (int64_t i = 0; i < N; i++) {
        double d = x[i * C + c] - m;
        ss += d * d;
    }
    *mean = m;
    *sd = sqrt(ss / (double)N);
    *lo = mn;
    *hi = mx;
}

void cuplas_features_normalize(double *x, int64_t N, int C, cuplas_norm norm,
                               const double *weights)
{
    for (int c = 0; c < C; c++) {
        double mean, sd, lo, hi, shift = 0, scale = 1;
        channel_stats(x, N, C, c, &mean, &sd, &lo, &hi);
        if (norm == CUPLAS_NORM_STANDARDIZE) {
            shift = mean;
            scale = sd > 0 ? 1.0 / sd : 0.0;   /* a constant channel is all 0 */
        } else if (norm == CUPLAS_NORM_MINMAX) {
            shift = lo;
            scale = hi > lo ? 1.0 / (hi - lo) : 0.0;
        }
        if (weights)
            scale *= weights[c];
        if (shift == 0 && scale == 1)
            continue;
        for (int64_t i = 0; i < N; i++)
            x[i * C + c] = (x[i * C + c] - shift) * scale;
    }
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
    for (int64_t i = 0; i < N * C; i++)
        amax = fabs(x[i]) > amax ? fabs(x[i]) : amax;
    double s = amax > 0 ? CUPLAS_QMAX_D / amax : 1.0;
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < N; i++) {
        for (int c = 0; c < C; c++)
            g->q[i * g->Cp + c] = (int16_t)floor(x[i * C + c] * s + 0.5);
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
