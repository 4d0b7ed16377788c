/*
 * lane_setup.c - workshop: what making one GPU lane costs, step by step,
 * with the pipeline's own calls (cuda/sort_gpu.h): the lane's context
 * (stream, events, device properties, a pinned counter) and its pinned
 * buffers for a first grid, for L lanes one after another (as
 * pipeline/lane_init.c makes them) and on L threads at once.
 *
 *   lane_setup [LANES [H W Cp]]      default 16 lanes of 256 x 256, Cp 4
 *
 * Why: collection B's 16 lanes were ready over 0.227 -> 0.305 s after
 * the primary context (bench/results/2026-11-24-h200-retire v9): about
 * 5 ms a lane, while their first grids waited. One JSON line per phase.
 */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda/sort_gpu.h"
#include "util/clock.h"

#define MAX_LANES 64

typedef struct {
    cuplas_gpu_ctx *ctx;
    int64_t n_q, n_idx;
    int cp;
    double init_s, prep_s;
    int rc;
} lane;

static void *make(void *p)
{
    lane *l = p;
    cuplas_error e = {0};
    double t0 = cuplas_now_s();
    l->rc = cuplas_gpu_ctx_init(&l->ctx, 0, &e);
    double t1 = cuplas_now_s();
    if (l->rc == 0)
        l->rc = cuplas_gpu_prepare(l->ctx, l->n_q, l->n_idx, l->cp);
    l->init_s = t1 - t0;
    l->prep_s = cuplas_now_s() - t1;
    return NULL;
}

static int phase(const char *name, lane *v, int n, int threads)
{
    pthread_t th[MAX_LANES];
    double t0 = cuplas_now_s(), init = 0, prep = 0;
    int bad = 0;
    for (int k = 0; k < n; k++) {
        if (threads && pthread_create(&th[k], NULL, make, &v[k]) == 0)
            continue;
        th[k] = pthread_self();
        make(&v[k]);
    }
    for (int k = 0; k < n; k++)
        if (!pthread_equal(th[k], pthread_self()))
            pthread_join(th[k], NULL);
    double wall = cuplas_now_s() - t0;
    for (int k = 0; k < n; k++) {
        init += v[k].init_s;
        prep += v[k].prep_s;
        bad += v[k].rc != 0;
        cuplas_gpu_ctx_free(v[k].ctx);
        v[k].ctx = NULL;
    }
    printf("{\"phase\":\"%s\",\"lanes\":%d,\"wall_ms\":%.3f,\"init_ms_mean\":%.3f,"
           "\"prepare_ms_mean\":%.3f,\"failed\":%d}\n", name, n, 1e3 * wall, 1e3 * init / n,
           1e3 * prep / n, bad);
    return bad;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16;
    int64_t H = argc > 3 ? atoll(argv[2]) : 256, W = argc > 3 ? atoll(argv[3]) : 256;
    int cp = argc > 4 ? atoi(argv[4]) : 4;
    lane v[MAX_LANES];
    struct cudaDeviceProp prop;
    int sms = 0, coop = 0;

    if (n < 1 || n > MAX_LANES)
        n = 16;
    if (cuplas_gpu_count() < 1) {
        fprintf(stderr, "lane_setup: no GPU\n");
        return 77;
    }
    double t0 = cuplas_now_s();
    if (cudaSetDevice(0) != cudaSuccess || cudaFree(0) != cudaSuccess)
        return 2;
    printf("{\"phase\":\"primary_context\",\"wall_ms\":%.3f}\n", 1e3 * (cuplas_now_s() - t0));
    t0 = cuplas_now_s();
    for (int k = 0; k < n; k++)
        if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess)
            return 2;
    printf("{\"phase\":\"cudaGetDeviceProperties\",\"calls\":%d,\"ms_each\":%.3f}\n", n,
           1e3 * (cuplas_now_s() - t0) / n);
    t0 = cuplas_now_s();
    for (int k = 0; k < n; k++)
        if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess ||
            cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0) != cudaSuccess)
            return 2;
    printf("{\"phase\":\"cudaDeviceGetAttribute x2\",\"calls\":%d,\"ms_each\":%.3f}\n", n,
           1e3 * (cuplas_now_s() - t0) / n);
    for (int k = 0; k < n; k++)
        v[k] = (lane){.n_q = H * W * cp, .n_idx = H * W, .cp = cp};
    int bad = phase("one_after_another", v, n, 0);
    bad += phase("one_after_another_again", v, n, 0);
    bad += phase("threads", v, n, 1);
    bad += phase("threads_again", v, n, 1);
    return bad ? 1 : 0;
}
