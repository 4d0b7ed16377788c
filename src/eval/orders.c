/*
 * orders.c - input, random and Morton orders, PCA for the Morton keys of
 * unnamed features, and the gather onto the grid (orders.h).
 *
 * Morton follows PlayCanvas's splat-transform (ecosystem.md §1.9): a 3-D
 * Z-order code of positions over per-axis bounds, the codes laid
 * row-major. It is not that tool's exact order: splat-transform puts z in
 * each triple's highest bit and refines buckets of over 256 splats at 10
 * bits a level by their own bounds; here one flat 21-bit code an axis (63
 * bits, x highest) reaches that depth in one sort. The two orders' images
 * differ by 0.2 % in bytes at most (bench/results/2026-11-29-cpu-baseline).
 */
#include "eval/orders.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/channel_names.h"
#include "core/random.h"

/* Philox tags of this file (distinct from the sorter's, core/random.h). */
#define TAG_EVAL_RANDOM 0x45560001u
#define TAG_EVAL_PCA 0x45560002u

/* PCA: subspace iterations at most, and the change that stops them. */
#define PCA_MAX_ITERS 1000
#define PCA_TOL 1e-13

const char *cuplas_order_name(cuplas_order_kind k)
{
    static const char *const names[CUPLAS_ORDER_COUNT] = {"sorted", "input", "random", "morton"};
    return (unsigned)k < CUPLAS_ORDER_COUNT ? names[k] : "?";
}

int cuplas_order_parse(const char *name, cuplas_order_kind *k)
{
    for (int i = 0; i < CUPLAS_ORDER_COUNT; i++)
        if (strcmp(name, cuplas_order_name((cuplas_order_kind)i)) == 0) {
            *k = (cuplas_order_kind)i;
            return 0;
        }
    return -1;
}

static void fill_tail(int64_t N, int64_t cells, int64_t *order)
{
    for (int64_t i = N; i < cells; i++)
        order[i] = -1;
}

void cuplas_order_input(int64_t N, int64_t cells, int64_t *order)
{
    for (int64_t i = 0; i < N; i++)
        order[i] = i;
    fill_tail(N, cells, order);
}

void cuplas_order_random(int64_t N, int64_t cells, uint64_t seed, int64_t *order)
{
    cuplas_order_input(N, cells, order);
    /* Fisher-Yates; j from 64 random bits mod (i + 1): the bias is below
     * N / 2^64, far under anything a byte count can show. */
    for (int64_t i = N - 1; i > 0; i--) {
        cuplas_u128 r = cuplas_philox(seed, TAG_EVAL_RANDOM, (uint32_t)i, (uint32_t)(i >> 32), 0);
        int64_t j = (int64_t)(cuplas_u128_lo64(r) % (uint64_t)(i + 1));
        int64_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

/* Spread the low 21 bits of v to every third bit. */
static uint64_t spread3(uint32_t v)
{
    uint64_t x = v & 0x1fffffu;
    x = (x | x << 32) & 0x1f00000000ffffull;
    x = (x | x << 16) & 0x1f0000ff0000ffull;
    x = (x | x << 8) & 0x100f00f00f00f00full;
    x = (x | x << 4) & 0x10c30c30c30c30c3ull;
    x = (x | x << 2) & 0x1249249249249249ull;
    return x;
}

uint64_t cuplas_morton3_21(uint32_t a, uint32_t b, uint32_t c)
{
    return spread3(a) << 2 | spread3(b) << 1 | spread3(c);
}

/* Gram-Schmidt on the 3 columns of v (C x 3, column k at v + k*C). */
static void orthonormalise(double *v, int C)
{
    for (int k = 0; k < 3; k++) {
        double *a = v + k * C;
        for (int j = 0; j < k; j++) {
            const double *b = v + j * C;
            double d = 0;
            for (int c = 0; c < C; c++)
                d += a[c] * b[c];
            for (int c = 0; c < C; c++)
                a[c] -= d * b[c];
        }
        double n = 0;
        for (int c = 0; c < C; c++)
            n += a[c] * a[c];
        n = sqrt(n);
        for (int c = 0; c < C; c++)
            a[c] = n > 0 ? a[c] / n : 0;
    }
}

int cuplas_pca3(const double *x, int64_t N, int C, double *proj, cuplas_error *err)
{
    int rc = 0;
    double *mean = calloc((size_t)C, sizeof *mean);
    double *cov = calloc((size_t)C * (size_t)C, sizeof *cov);
    double *v = calloc((size_t)C * 3, sizeof *v), *w = calloc((size_t)C * 3, sizeof *w);
    double *d = malloc((size_t)C * sizeof *d);
    if (!mean || !cov || !v || !w || !d)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "PCA: out of memory (%d channels)", C);
    for (int64_t i = 0; i < N; i++)
        for (int c = 0; c < C; c++)
            mean[c] += x[i * C + c];
    for (int c = 0; c < C; c++)
        mean[c] /= N > 0 ? (double)N : 1.0;
    /* upper triangle in item order, then mirrored */
    for (int64_t i = 0; i < N; i++) {
        for (int c = 0; c < C; c++)
            d[c] = x[i * C + c] - mean[c];
        for (int a = 0; a < C; a++)
            for (int b = a; b < C; b++)
                cov[(size_t)a * C + b] += d[a] * d[b];
    }
    for (int a = 0; a < C; a++)
        for (int b = 0; b < a; b++)
            cov[(size_t)a * C + b] = cov[(size_t)b * C + a];

    const int k_used = C < 3 ? C : 3;
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < C; c++) {
            cuplas_u128 r = cuplas_philox(0, TAG_EVAL_PCA, (uint32_t)k, (uint32_t)c, 0);
            v[k * C + c] = k < k_used ? (double)r.v[0] / 4294967296.0 - 0.5 : 0;
        }
    orthonormalise(v, C);
    for (int it = 0; it < PCA_MAX_ITERS; it++) {
        for (int k = 0; k < k_used; k++)
            for (int a = 0; a < C; a++) {
                double s = 0;
                for (int b = 0; b < C; b++)
                    s += cov[(size_t)a * C + b] * v[k * C + b];
                w[k * C + a] = s;
            }
        orthonormalise(w, C);
        double change = 0;
        for (int k = 0; k < k_used; k++) {
            double dot = 0;
            for (int c = 0; c < C; c++)
                dot += w[k * C + c] * v[k * C + c];
            change = fmax(change, 1 - fabs(dot));
        }
        memcpy(v, w, (size_t)C * 3 * sizeof *v);
        if (change < PCA_TOL)
            break;
    }
    /* rank by Rayleigh quotient (selection sort of 3), sign by largest entry */
    double lambda[3] = {0, 0, 0};
    for (int k = 0; k < k_used; k++)
        for (int a = 0; a < C; a++) {
            double s = 0;
            for (int b = 0; b < C; b++)
                s += cov[(size_t)a * C + b] * v[k * C + b];
            lambda[k] += v[k * C + a] * s;
        }
    for (int k = 0; k < k_used; k++) {
        int best = k;
        for (int j = k + 1; j < k_used; j++)
            if (lambda[j] > lambda[best])
                best = j;
        if (best != k) {
            double t = lambda[k];
            lambda[k] = lambda[best];
            lambda[best] = t;
            for (int c = 0; c < C; c++) {
                t = v[k * C + c];
                v[k * C + c] = v[best * C + c];
                v[best * C + c] = t;
            }
        }
        int big = 0;
        for (int c = 1; c < C; c++)
            if (fabs(v[k * C + c]) > fabs(v[k * C + big]))
                big = c;
        if (v[k * C + big] < 0)
            for (int c = 0; c < C; c++)
                v[k * C + c] = -v[k * C + c];
    }
    for (int64_t i = 0; i < N; i++)
        for (int k = 0; k < 3; k++) {
            double s = 0;
            for (int c = 0; c < C && k < k_used; c++)
                s += (x[i * C + c] - mean[c]) * v[k * C + c];
            proj[i * 3 + k] = s;
        }
fail:
    free(mean);
    free(cov);
    free(v);
    free(w);
    free(d);
    return rc;
}

typedef struct code_item {
    uint64_t code;
    int64_t item;
} code_item;

static int cmp_code(const void *pa, const void *pb)
{
    const code_item *a = pa, *b = pb;
    if (a->code != b->code)
        return a->code < b->code ? -1 : 1;
    return (a->item > b->item) - (a->item < b->item);
}

int cuplas_order_morton(const double *x, int64_t N, int C, const char *const *names,
                        int64_t cells, int64_t *order, const char **used, cuplas_error *err)
{
    int rc = 0;
    double *keys = malloc((size_t)(N ? N : 1) * 3 * sizeof *keys);
    code_item *ci = malloc((size_t)(N ? N : 1) * sizeof *ci);
    if (!keys || !ci)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "Morton order: out of memory (%lld items)", (long long)N);
    int cx = cuplas_channel_index(names, C, "x"), cy = cuplas_channel_index(names, C, "y"),
        cz = cuplas_channel_index(names, C, "z");
    if (cx >= 0 && cy >= 0 && cz >= 0) {
        for (int64_t i = 0; i < N; i++) {
            keys[i * 3 + 0] = x[i * C + cx];
            keys[i * 3 + 1] = x[i * C + cy];
            keys[i * 3 + 2] = x[i * C + cz];
        }
        if (used)
            *used = "xyz";
    } else {
        CUPLAS_TRY(cuplas_pca3(x, N, C, keys, err));
        if (used)
            *used = "pca";
    }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int64_t i = 0; i < N; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], keys[i * 3 + k]);
            hi[k] = fmax(hi[k], keys[i * 3 + k]);
        }
    for (int64_t i = 0; i < N; i++) {
        uint32_t q[3];
        for (int k = 0; k < 3; k++) {
            double t = hi[k] > lo[k] ? (keys[i * 3 + k] - lo[k]) / (hi[k] - lo[k]) : 0;
            t = t > 0 ? (t < 1 ? t : 1) : 0; /* NaN -> 0 */
            q[k] = (uint32_t)floor(t * 2097151.0 + 0.5);
        }
        ci[i].code = cuplas_morton3_21(q[0], q[1], q[2]);
        ci[i].item = i;
    }
    qsort(ci, (size_t)N, sizeof *ci, cmp_code);
    for (int64_t i = 0; i < N; i++)
        order[i] = ci[i].item;
    fill_tail(N, cells, order);
fail:
    free(keys);
    free(ci);
    return rc;
}

typedef struct gather_task {
    const double *x;
    int C;
    const int64_t *order;
    int64_t cells;
    double *grid;
    uint8_t *empty;
} gather_task;

#define GATHER_CELLS 16384

static int gather_block(void *ctx, int64_t b)
{
    const gather_task *t = ctx;
    const int64_t end = cuplas_par_block_end(b, GATHER_CELLS, t->cells);
    for (int64_t i = b * GATHER_CELLS; i < end; i++) {
        if (t->order[i] >= 0)
            memcpy(t->grid + i * t->C, t->x + t->order[i] * t->C, (size_t)t->C * sizeof *t->grid);
        else
            memset(t->grid + i * t->C, 0, (size_t)t->C * sizeof *t->grid);
        if (t->empty)
            t->empty[i] = t->order[i] < 0;
    }
    return 0;
}

int64_t cuplas_eval_gather(const double *x, int C, const int64_t *order, int64_t cells,
                           double *grid, uint8_t *empty, cuplas_pool *pool)
{
    gather_task t = {x, C, order, cells, grid, empty};
    int64_t n_empty = 0;
    (void)cuplas_par_for(pool, cuplas_par_blocks(cells, GATHER_CELLS), gather_block, &t, NULL);
    for (int64_t i = 0; i < cells; i++)
        n_empty += order[i] < 0;
    return n_empty;
}
