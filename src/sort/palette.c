/*
 * palette.c - Lloyd's k-means for the SH palette: backend dispatch of the
 * assignment, the update on the host.
 */
#include "cuplas_build.h"
#include "sort/palette.h"

#include <stdlib.h>
#include <string.h>

#include "cpu/kmeans_cpu.h"
#include "util/clock.h"
#ifdef HAVE_CUDA
#include "cuda/kmeans_gpu.h"
#endif

int cuplas_palette_sog_size(int64_t N)
{
    int64_t K = CUPLAS_PALETTE_MAX_K;
    while (K > 1 && K > N)
        K /= 2;
    return (int)K;
}

/* The coordinates by falling variance (ties: lower index first): the
 * distance adds its terms in this order, so a candidate's partial sum
 * passes the best distance after fewer terms and the CPU's early exits
 * come sooner (SH bands: degree 1 carries most of the variance). */
static void by_variance(const float *x, int64_t N, int D, int *order)
{
    double mean[CUPLAS_PALETTE_MAX_D] = {0}, var[CUPLAS_PALETTE_MAX_D] = {0};
    for (int64_t i = 0; i < N; i++)
        for (int k = 0; k < D; k++)
            mean[k] += x[i * D + k];
    for (int k = 0; k < D; k++)
        mean[k] /= (double)N;
    for (int64_t i = 0; i < N; i++)
        for (int k = 0; k < D; k++)
            var[k] += (x[i * D + k] - mean[k]) * (x[i * D + k] - mean[k]);
    for (int k = 0; k < D; k++)
        order[k] = k;
    for (int k = 1; k < D; k++) {   /* insertion sort, stable: D <= 45 */
        int v = order[k], j = k;
        for (; j > 0 && var[order[j - 1]] < var[v]; j--)
            order[j] = order[j - 1];
        order[j] = v;
    }
}

/* The update's state: points grouped by label (first: K + 1 offsets,
 * member: N point indices), the double sums (K x D) and what moved. */
typedef struct update_task {
    const float *x;
    int D, K;
    float *centroid;
    double *sum;
    const int64_t *first, *member;
    uint8_t *moved;
} update_task;

#define CENTROIDS 256   /* an item of the pool */

static int update_block(void *ctx, int64_t b)
{
    const update_task *t = ctx;
    const int D = t->D, end = (int)cuplas_par_block_end(b, CENTROIDS, t->K);
    for (int j = (int)(b * CENTROIDS); j < end; j++) {
        double *s = t->sum + (int64_t)j * D;
        float *cj = t->centroid + (int64_t)j * D;
        const int64_t m0 = t->first[j], m1 = t->first[j + 1];
        t->moved[j] = 0;
        if (m0 == m1)
            continue;
        for (int k = 0; k < D; k++)
            s[k] = 0.0;
        for (int64_t m = m0; m < m1; m++) {
            /* rows far apart: ask for one 8 ahead (6.1M x 64Ki on 2
               threads: 0.36 s an update, 0.87 s without, 0.48 s serial) */
            if (m + 8 < m1) {
                const char *ahead = (const char *)(t->x + t->member[m + 8] * D);
                for (int o = 0; o < D * (int)sizeof *t->x; o += 64)
                    __builtin_prefetch(ahead + o);
            }
            for (int k = 0; k < D; k++)
                s[k] += t->x[t->member[m] * D + k];
        }
        for (int k = 0; k < D; k++) {
            float v = (float)(s[k] / (double)(m1 - m0));
            if (memcmp(&v, cj + k, sizeof v) != 0) {
                t->moved[j] = 1;
                cj[k] = v;
            }
        }
    }
    return 0;
}

/* Centroids to their points' means (sums in double, in point order); an
 * empty one stays. The points are first grouped by label (a stable
 * counting sort: each group keeps point order), so that each centroid's
 * sum runs on one thread in the order a serial loop would take: the
 * same bits for any thread count. sum: K x D, first: K + 1, member: N,
 * scratch. moved[j]: whether centroid j's bits changed; returns how many
 * did, their indices ascending in mlist. */
static int update(const float *x, int64_t N, int D, int K, const int32_t *label,
                  float *centroid, double *sum, int64_t *first, int64_t *member,
                  uint8_t *moved, int32_t *mlist, cuplas_pool *pool)
{
    update_task t = {x, D, K, centroid, sum, first, member, moved};
    int nm = 0;

    memset(first, 0, (size_t)(K + 1) * sizeof *first);
    for (int64_t i = 0; i < N; i++)
        first[label[i] + 1]++;
    for (int j = 0; j < K; j++)
        first[j + 1] += first[j];
    for (int64_t i = 0; i < N; i++)   /* first[j]: group j's next slot, then its end */
        member[first[label[i]]++] = i;
    for (int j = K; j > 0; j--)
        first[j] = first[j - 1];
    first[0] = 0;
    (void)cuplas_par_for(pool, cuplas_par_blocks(K, CENTROIDS), update_block, &t, NULL);
    for (int j = 0; j < K; j++)
        if (moved[j])
            mlist[nm++] = j;
    return nm;
}

/* x's coordinates into `order` (xp), a block of points an item. */
typedef struct reorder_task {
    const float *x;
    float *xp;
    int64_t N;
    int D;
    const int *order;
} reorder_task;

#define REORDER_POINTS 16384

static int reorder_block(void *ctx, int64_t b)
{
    const reorder_task *t = ctx;
    const int64_t end = cuplas_par_block_end(b, REORDER_POINTS, t->N);
    for (int64_t i = b * REORDER_POINTS; i < end; i++)
        for (int k = 0; k < t->D; k++)
            t->xp[i * t->D + k] = t->x[i * t->D + t->order[k]];
    return 0;
}

int cuplas_palette_fit(const float *x, int64_t N, int D, int K, int iterations, int device,
                       float *centroid, int32_t *label, cuplas_palette_stats *st,
                       cuplas_pool *pool, cuplas_error *err)
{
    int rc = 0, order[CUPLAS_PALETTE_MAX_D];
    double *sum = NULL, t0;
    float *xp = NULL, *cp = NULL; /* x and the centroids, coordinates in `order` */
    int64_t *first = NULL, *member = NULL;
    int32_t *prev = NULL, *mlist = NULL;
    uint8_t *moved = NULL;
    int nm = -1;   /* centroids the last update moved; -1: no assignment yet */
    float *dist = NULL;
    cuplas_palette_stats s = {0};
#ifdef HAVE_CUDA
    cuplas_kmeans_gpu *g = NULL;
#endif

    if (N < 1 || D < 1 || D > CUPLAS_PALETTE_MAX_D || K < 1 || K > N ||
        K > CUPLAS_PALETTE_MAX_K || iterations < 0)
        return cuplas_error_set(err, CUPLAS_ERR_INTERNAL, "a palette of %d entries for %lld "
                                "points of %d coordinates, %d iterations", K, (long long)N, D,
                                iterations);
    sum = malloc((size_t)K * D * sizeof *sum);
    first = malloc((size_t)(K + 1) * sizeof *first);
    member = malloc((size_t)N * sizeof *member);
    prev = malloc((size_t)N * sizeof *prev);
    dist = malloc((size_t)N * sizeof *dist);
    xp = malloc((size_t)N * D * sizeof *xp);
    cp = malloc((size_t)K * D * sizeof *cp);
    moved = malloc((size_t)K);
    mlist = malloc((size_t)K * sizeof *mlist);
    if (!sum || !first || !member || !prev || !dist || !xp || !cp || !moved || !mlist)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for a palette of %d x %d", K, D);
    by_variance(x, N, D, order);
    reorder_task ro = {x, xp, N, D, order};
    (void)cuplas_par_for(pool, cuplas_par_blocks(N, REORDER_POINTS), reorder_block, &ro, NULL);
    if (device >= 0) {
#ifdef HAVE_CUDA
        CUPLAS_TRY(cuplas_kmeans_gpu_create(&g, device, xp, N, D, K, err));
#else
        CUPLAS_FAIL(err, CUPLAS_ERR_NODEVICE, "built without CUDA: no GPU for the palette");
#endif
    }
    for (int j = 0; j < K; j++)
        memcpy(cp + (int64_t)j * D, xp + (int64_t)j * N / K * D, (size_t)D * sizeof *xp);
    /* the first search's hint: the entry started from a point near i in
       the input's order (a grid order: similar splats) */
    for (int64_t i = 0; i < N; i++)
        label[i] = (int32_t)(i * K / N);
    for (int it = 0;; it++) {
        memcpy(prev, label, (size_t)N * sizeof *label);
        t0 = cuplas_now_s();
        /* after an update, only the points whose centroid moved are
           searched in full (the same answer, kmeans_cpu.h) */
#ifdef HAVE_CUDA
        if (g && nm < 0)
            CUPLAS_TRY(cuplas_kmeans_assign_gpu(g, cp, label, dist, err));
        else if (g)
            CUPLAS_TRY(cuplas_kmeans_reassign_gpu(g, cp, moved, mlist, nm, label, dist, err));
        else
#endif
        if ((nm < 0 ? cuplas_kmeans_assign_cpu(xp, N, D, cp, K, label, dist, pool)
                    : cuplas_kmeans_reassign_cpu(xp, N, D, cp, K, moved, mlist, nm, label,
                                                 dist, pool)) != 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for a palette of %d x %d", K, D);
        s.assign_s += cuplas_now_s() - t0;
        s.moved = 0;
        for (int64_t i = 0; i < N; i++)
            s.moved += label[i] != prev[i];
        if (it == iterations || (it > 0 && s.moved == 0))
            break;
        nm = update(xp, N, D, K, label, cp, sum, first, member, moved, mlist, pool);
        s.updates++;
    }
    for (int j = 0; j < K; j++)
        for (int k = 0; k < D; k++)
            centroid[(int64_t)j * D + order[k]] = cp[(int64_t)j * D + k];
    for (int64_t i = 0; i < N; i++)
        s.mse += dist[i];
    s.mse /= (double)N;
    if (st)
        *st = s;
fail:
#ifdef HAVE_CUDA
    cuplas_kmeans_gpu_free(g);
#endif
    free(mlist);
    free(moved);
    free(cp);
    free(xp);
    free(dist);
    free(prev);
    free(member);
    free(first);
    free(sum);
    return rc;
}
