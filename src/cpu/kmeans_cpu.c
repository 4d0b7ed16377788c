/*
 * kmeans_cpu.c - the nearest centroid of every point (CPU reference of
 * cuda/kmeans_gpu.cu).
 *
 * An exhaustive search gives the answer; two exact shortcuts make it
 * affordable at SOG's 64Ki-entry palettes. The centroids are transposed
 * into blocks of LANES, so that one point's distances to a block's
 * centroids are LANES independent sums that the compiler can keep in one
 * vector, each lane still adding its terms in coordinate order (the
 * arithmetic of core/kmeans.h, so the distances equal the GPU's bit for
 * bit). And a block is left as soon as every lane's partial sum exceeds
 * the best distance so far: terms are never negative, so such a block
 * cannot hold the winner nor a tie. A hint (last iteration's label) makes
 * that bound tight from the first block. After an update, a point whose
 * centroid stayed put is measured only against the centroids that moved
 * (cuplas_kmeans_reassign_cpu).
 */
#include "cpu/kmeans_cpu.h"

#include <math.h>
#include <stdlib.h>

#include "core/kmeans.h"
#include "util/pool.h"

#define LANES 8
#define CHECK_EVERY 8 /* coordinates between two looks at the bound */

/* (d, j) beats (best, bi): smaller, or equal at a lower index. */
static inline int beats(float d, int j, float best, int bi)
{
    return d < best || (d == best && j < bi);
}

static void nearest(const float *xi, int D, const float *c, const float *ct, int K,
                    int32_t *label, float *dist)
{
    int bi = K;              /* none yet: any index beats it on a tie */
    float best = INFINITY;
    int h = *label;

    if (h >= 0 && h < K) {
        bi = h;
        best = cuplas_kmeans_d2(xi, c + (int64_t)h * D, D, 1);
    }
    for (int b = 0; b * LANES < K; b++) {
        const float *cb = ct + (int64_t)b * D * LANES;
        float acc[LANES] = {0};
        int left = 0;
        for (int k0 = 0; k0 < D && !left; k0 += CHECK_EVERY) {
            int k1 = k0 + CHECK_EVERY < D ? k0 + CHECK_EVERY : D;
            for (int k = k0; k < k1; k++)
                for (int j = 0; j < LANES; j++) {
                    float t = xi[k] - cb[k * LANES + j];
                    acc[j] = acc[j] + t * t;
                }
            float m = acc[0];
            for (int j = 1; j < LANES; j++)
                m = acc[j] < m ? acc[j] : m;
            left = m > best;
        }
        if (left)
            continue;
        for (int j = 0; j < LANES && b * LANES + j < K; j++)
            if (beats(acc[j], b * LANES + j, best, bi)) {
                best = acc[j];
                bi = b * LANES + j;
            }
    }
    *label = bi;
    if (dist)
        *dist = best;
}

/* The centroids transposed into blocks of LANES (padding lanes 0, never
 * chosen); NULL when out of memory. */
static float *transpose(const float *c, int K, int D)
{
    int nb = (K + LANES - 1) / LANES;
    float *ct = calloc((size_t)nb * (size_t)D * LANES, sizeof *ct);
    if (ct)
        for (int i = 0; i < K; i++)
            for (int k = 0; k < D; k++)
                ct[((int64_t)(i / LANES) * D + k) * LANES + i % LANES] = c[(int64_t)i * D + k];
    return ct;
}

/* A block of points an item of the pool: a full search each, or (moved
 * set) the reassignment. */
#define POINTS 64

typedef struct assign_task {
    const float *x, *c, *ct;
    int64_t N;
    int D, K, nm;
    const uint8_t *moved;    /* NULL: every point searched in full */
    const int32_t *mlist;
    int32_t *label;
    float *dist;
} assign_task;

static int assign_block(void *ctx, int64_t b)
{
    const assign_task *t = ctx;
    const int D = t->D;
    const int64_t end = cuplas_par_block_end(b, POINTS, t->N);
    for (int64_t i = b * POINTS; i < end; i++) {
        const float *xi = t->x + i * D;
        int bi = t->label[i];
        if (!t->moved || bi < 0 || bi >= t->K || t->moved[bi]) {
            nearest(xi, D, t->c, t->ct, t->K, t->label + i, t->dist ? t->dist + i : NULL);
            continue;
        }
        float best = t->dist[i];
        for (int m = 0; m < t->nm; m++) {
            const int j = t->mlist[m];
            float d = cuplas_kmeans_d2(xi, t->c + (int64_t)j * D, D, 1);
            if (beats(d, j, best, bi)) {
                best = d;
                bi = j;
            }
        }
        t->label[i] = bi;
        t->dist[i] = best;
    }
    return 0;
}

static int run(assign_task *t, cuplas_pool *pool)
{
    float *ct = transpose(t->c, t->K, t->D);
    if (!ct)
        return -1;
    t->ct = ct;
    (void)cuplas_par_for(pool, cuplas_par_blocks(t->N, POINTS), assign_block, t, NULL);
    free(ct);
    return 0;
}

int cuplas_kmeans_assign_cpu(const float *x, int64_t N, int D, const float *c, int K,
                             int32_t *label, float *dist, cuplas_pool *pool)
{
    assign_task t = {.x = x, .c = c, .N = N, .D = D, .K = K, .label = label, .dist = dist};
    return run(&t, pool);
}

int cuplas_kmeans_reassign_cpu(const float *x, int64_t N, int D, const float *c, int K,
                               const uint8_t *moved, const int32_t *mlist, int nm,
                               int32_t *label, float *dist, cuplas_pool *pool)
{
    assign_task t = {.x = x, .c = c, .N = N, .D = D, .K = K, .nm = nm, .moved = moved,
                     .mlist = mlist, .label = label, .dist = dist};
    return run(&t, pool);
}
