/*
 * quantize.c - normalisation, weights and quantisation of sort features.
 *
 * One scale for all channels (max |x| -> CUPLAS_QMAX) keeps the relative
 * weight of channels exactly as the user set it.
 *
 * A channel that lies far from 0 compared with its own width (|midrange| >
 * max - min: UTM coordinates, a scene far from its origin, with
 * normalize: none) is first centred on its midrange. Without that, the
 * common scale is set by the offset and the channel's whole width falls
 * into a level or two: a grid of x = 500000 + U(0, 100) did not sort at all
 * (AND 51.6 -> 52.6). Distances do not change under a shift, only the
 * rounding does; every other channel, and so every grid without such a
 * channel, quantises bit for bit as before (0.7.1).
 *
 * Extreme finite values never overflow: a channel whose largest magnitude
 * lies outside [2^-400, 2^400] has its statistics taken, and its
 * normalisation applied, on its values times a power of two that brings
 * them near 1. Multiplying by a power of two is exact and standardize and
 * minmax do not depend on a channel's scale, so the result is the one
 * exact arithmetic would give; ordinary data (every channel inside the
 * range) takes exactly the old operations, bit for bit. What cannot be
 * represented (a weight that pushes values past the largest double) is
 * refused (CUPLAS_ERR_INPUT), never passed on as inf or NaN.
 */
#include "core/quantize.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "core/metrics.h"   /* cuplas_safe_exponent */
#include "core/quad.h"      /* CUPLAS_QMAX */

/* Rows per partial sum and per item of the parallel loops. Partials are
 * added in block order, so the stats do not depend on the thread count,
 * only on this constant. */
#define STAT_BLOCK 4096

/* The power of two that brings magnitude m near 1 ([0.5, 1)), or 1 when
 * m is safe as it is (or 0): core/metrics.h's cuplas_safe_exponent. */
static double safe_unit(double m)
{
    return ldexp(1.0, -cuplas_safe_exponent(m));
}

/* The loops over blocks of rows of x (N x C). */
typedef struct stat_ctx {
    double *x;
    int64_t N;
    int C;
    const double *mean;         /* pass 2: set                       */
    double *part, *lo, *hi;     /* per block: sums (C), min, max (C) */
    const double *shift, *scale;
    const double *unit;         /* per channel: a power of two the values
                                   are taken times (safe_unit), or NULL */
} stat_ctx;

/* x[i][c] in the units of the statistics (exact: a power of two). */
static inline double val(const stat_ctx *k, int64_t i, int c)
{
    return k->unit ? k->x[i * k->C + c] * k->unit[c] : k->x[i * k->C + c];
}

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
        lo[c] = hi[c] = val(k, i0, c);
    }
    for (int64_t i = i0; i < i1; i++)
        for (int c = 0; c < C; c++) {
            double v = val(k, i, c);
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
            double d = val(k, i, c) - k->mean[c];
            s[c] += d * d;
        }
    return 0;
}

/* 1 when a value overflowed (a weight too large to represent the data). */
static int apply_scale(void *p, int64_t b)
{
    const stat_ctx *k = p;
    int64_t i0, i1;
    double m = 0;

    block_rows(k, b, &i0, &i1);
    for (int64_t i = i0; i < i1; i++)
        for (int c = 0; c < k->C; c++) {
            double v = (val(k, i, c) - k->shift[c]) * k->scale[c];
            k->x[i * k->C + c] = v;
            m = fabs(v) > m ? fabs(v) : m;
        }
    return !(m <= DBL_MAX);
}

/* Sum of the per-block partials of channel c, in block order. */
static double add_blocks(const double *part, int64_t nb, int C, int c)
{
    double t = 0;
    for (int64_t b = 0; b < nb; b++)
        t += part[b * C + c];
    return t;
}

/* Per-channel mean, standard deviation, min and max of x (N x C), in the
 * units of unit[c] (set here: 1, or safe_unit of the channel's largest
 * magnitude; then k->unit = unit). */
static int channel_stats(stat_ctx *k, cuplas_pool *pool, double *mean, double *sd,
                         double *lo, double *hi, double *unit)
{
    const int C = k->C;
    int64_t nb = cuplas_par_blocks(k->N, STAT_BLOCK);
    double *part = malloc((size_t)(3 * nb * C) * sizeof *part);
    if (!part)
        return -1;
    k->part = part;
    k->lo = part + nb * C;
    k->hi = part + 2 * nb * C;
    for (int pass = 0; pass < 2; pass++) {
        int scaled = 0;
        cuplas_par_for(pool, nb, stat_sums, k, NULL);
        for (int c = 0; c < C; c++) {
            mean[c] = add_blocks(part, nb, C, c) / (double)k->N;
            lo[c] = k->lo[c];
            hi[c] = k->hi[c];
            for (int64_t b = 1; b < nb; b++) {
                lo[c] = k->lo[b * C + c] < lo[c] ? k->lo[b * C + c] : lo[c];
                hi[c] = k->hi[b * C + c] > hi[c] ? k->hi[b * C + c] : hi[c];
            }
            /* lo and hi are exact: they tell whether the sums were safe */
            unit[c] = pass ? unit[c] : safe_unit(fmax(fabs(lo[c]), fabs(hi[c])));
            scaled |= unit[c] != 1.0;
        }
        if (pass || !scaled)
            break;
        k->unit = unit;   /* again, in units where nothing overflows */
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
    int rc = 0;
    if (!(st = calloc((size_t)(7 * C), sizeof *st)))
        return CUPLAS_ERR_NOMEM;
    double *mean = st, *sd = st + C, *lo = st + 2 * C, *hi = st + 3 * C;
    scale = st + 4 * C;
    shift = st + 5 * C;
    double *unit = st + 6 * C;
    if (norm != CUPLAS_NORM_NONE && N > 0 &&
        channel_stats(&k, pool, mean, sd, lo, hi, unit) != 0) {
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
        any |= shift[c] != 0 || scale[c] != 1 || (k.unit && k.unit[c] != 1);
    }
    if (any) {
        int64_t nb = cuplas_par_blocks(N, STAT_BLOCK);
        k.shift = shift;
        k.scale = scale;
        if (cuplas_par_for(pool, nb, apply_scale, &k, NULL) < nb)
            rc = CUPLAS_ERR_INPUT;
    }
    free(st);
    return rc;
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
    double pre;      /* 1, or a power of two taken first (tiny data) */
    double s;        /* the common scale */
    double *lo, *hi; /* per block and channel (b * C + c): min and max */
    const double *shift; /* per channel, subtracted first; NULL = none */
} quant_ctx;

static int block_minmax(void *p, int64_t b)
{
    quant_ctx *k = p;
    const int C = k->C;
    int64_t i0 = b * STAT_BLOCK, i1 = cuplas_par_block_end(b, STAT_BLOCK, k->N);
    double *lo = k->lo + b * C, *hi = k->hi + b * C;

    for (int c = 0; c < C; c++)
        lo[c] = hi[c] = k->x[i0 * C + c];
    for (int64_t i = i0 + 1; i < i1; i++)
        for (int c = 0; c < C; c++) {
            double v = k->x[i * C + c];
            lo[c] = v < lo[c] ? v : lo[c];
            hi[c] = v > hi[c] ? v : hi[c];
        }
    return 0;
}

/* The channels' shifts (0: kept) from their min and max, and max |x -
 * shift| over every channel: max(|lo - shift|, |hi - shift|), which for a
 * shift of 0 is max |x| exactly. Returns 1 when some shift is not 0. */
static int centre_channels(const double *lo, const double *hi, int C, double *shift,
                           double *amax)
{
    int any = 0;
    *amax = 0;
    for (int c = 0; c < C; c++) {
        double mid = 0.5 * lo[c] + 0.5 * hi[c], width = hi[c] - lo[c];
        shift[c] = fabs(mid) > width ? mid : 0.0;   /* width inf: never */
        any |= shift[c] != 0.0;
        double a = fmax(fabs(lo[c] - shift[c]), fabs(hi[c] - shift[c]));
        *amax = a > *amax ? a : *amax;
    }
    return any;
}

static int block_quantize(void *p, int64_t b)
{
    const quant_ctx *k = p;
    const int C = k->C, Cp = k->g->Cp;
    int64_t i0 = b * STAT_BLOCK, i1 = cuplas_par_block_end(b, STAT_BLOCK, k->N);
    int16_t *q = k->g->q;

    for (int64_t i = i0; i < i1; i++) {
        if (k->shift)   /* some channel is centred first */
            for (int c = 0; c < C; c++)
                q[i * Cp + c] = round_half_up((k->x[i * C + c] - k->shift[c]) * k->pre * k->s);
        else if (k->pre != 1.0)   /* max |x| so small that QMAX / max overflows */
            for (int c = 0; c < C; c++)
                q[i * Cp + c] = round_half_up(k->x[i * C + c] * k->pre * k->s);
        else
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
    quant_ctx k = {x, N, C, g, 1.0, 0, NULL, NULL, NULL};
    int64_t nb = cuplas_par_blocks(N, STAT_BLOCK);
    size_t nv = (size_t)(nb > 0 ? nb : 1) * (size_t)(C > 0 ? C : 1);
    double *shift = malloc((size_t)(C > 0 ? C : 1) * sizeof *shift), amax = 0;
    if (!shift || !(k.lo = malloc(nv * sizeof *k.lo)) || !(k.hi = malloc(nv * sizeof *k.hi))) {
        free(shift), free(k.lo);
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory quantising %lld cells", (long long)N);
    }
    if (N > 0 && C > 0) {
        cuplas_par_for(pool, nb, block_minmax, &k, NULL);
        for (int64_t b = 1; b < nb; b++)   /* min and max: order-free */
            for (int c = 0; c < C; c++) {
                k.lo[c] = k.lo[b * C + c] < k.lo[c] ? k.lo[b * C + c] : k.lo[c];
                k.hi[c] = k.hi[b * C + c] > k.hi[c] ? k.hi[b * C + c] : k.hi[c];
            }
        if (centre_channels(k.lo, k.hi, C, shift, &amax))
            k.shift = shift;
    }
    free(k.lo), free(k.hi);
    k.s = amax > 0 ? (double)CUPLAS_QMAX / amax : 1.0;
    if (!(k.s <= DBL_MAX)) {   /* tiny values: scale them near 1 first (exact) */
        k.pre = safe_unit(amax);
        k.s = (double)CUPLAS_QMAX / (amax * k.pre);
    }
    cuplas_par_for(pool, nb, block_quantize, &k, NULL);
    free(shift);
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
