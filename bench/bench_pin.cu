/*
 * bench_pin.cu - what a lane's start-up costs on this machine: the driver
 * and primary context, pinned host memory by cudaHostAlloc against
 * huge-page memory touched by T threads and then cudaHostRegister'd, a
 * device allocation, and upload bandwidth from pinned and pageable memory.
 *
 *   bench_pin [MiB pinned, default 576] [threads, default 16]
 *
 * Why: a 4096^2 x 16 sort waited 0.14-0.20 s for its lane after reading
 * and preparing its grid (bench/results/2026-11-24-h200-levers, r2), and
 * the lane's set-up is mostly its plan-sized pinned buffers (512 MiB of
 * features, 64 MiB of index). One JSON line; every CUDA call checked.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <cuda_runtime.h>

#define CK(x)                                                                        \
    do {                                                                             \
        cudaError_t e_ = (x);                                                        \
        if (e_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,                 \
                    cudaGetErrorString(e_));                                         \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

struct touch_arg {
    unsigned char *p;
    size_t n;
};

static void *touch(void *a)
{
    struct touch_arg *t = (struct touch_arg *)a;
    memset(t->p, 0, t->n);
    return NULL;
}

/* n bytes, 2 MiB aligned, huge pages asked for, zeroed by T threads. */
static unsigned char *huge_touched(size_t n, int T)
{
    const size_t huge = (size_t)2 << 20;
    size_t rn = (n + huge - 1) / huge * huge;
    unsigned char *p = (unsigned char *)aligned_alloc(huge, rn);
    if (!p)
        return NULL;
    madvise(p, rn, MADV_HUGEPAGE);
    pthread_t th[64];
    struct touch_arg ta[64];
    T = T > 64 ? 64 : T < 1 ? 1 : T;
    size_t per = (rn / huge + T - 1) / T * huge;
    int k = 0;
    for (size_t off = 0; off < rn && k < T; off += per, k++) {
        ta[k].p = p + off;
        ta[k].n = off + per <= rn ? per : rn - off;
        pthread_create(&th[k], NULL, touch, &ta[k]);
    }
    for (int i = 0; i < k; i++)
        pthread_join(th[i], NULL);
    return p;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 576;
    int T = argc > 2 ? atoi(argv[2]) : 16;
    size_t n = mib << 20;
    double t0 = now();
    CK(cudaFree(0));
    double t_ctx = now() - t0;

    void *h = NULL;
    t0 = now();
    CK(cudaHostAlloc(&h, n, cudaHostAllocPortable));
    double t_hostalloc = now() - t0;
    memset(h, 1, n);   /* as a lane would fill it */

    t0 = now();
    unsigned char *r = huge_touched(n, T);
    double t_touch = now() - t0;
    if (!r)
        return 1;
    t0 = now();
    CK(cudaHostRegister(r, (n + ((size_t)2 << 20) - 1) / ((size_t)2 << 20) * ((size_t)2 << 20),
                        cudaHostRegisterPortable));
    double t_register = now() - t0;

    void *d = NULL;
    t0 = now();
    CK(cudaMalloc(&d, 4 * n));
    double t_malloc4 = now() - t0;

    unsigned char *pg = (unsigned char *)malloc(n);
    memset(pg, 2, n);
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    float ms_pinned = 0, ms_reg = 0, ms_pageable = 0;
    for (int rep = 0; rep < 2; rep++) {   /* the second of each counts */
        CK(cudaEventRecord(a));
        CK(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice));
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms_pinned, a, b));
        CK(cudaEventRecord(a));
        CK(cudaMemcpy(d, r, n, cudaMemcpyHostToDevice));
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms_reg, a, b));
        CK(cudaEventRecord(a));
        CK(cudaMemcpy(d, pg, n, cudaMemcpyHostToDevice));
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms_pageable, a, b));
    }

    t0 = now();
    CK(cudaFreeHost(h));
    double t_freehost = now() - t0;
    t0 = now();
    CK(cudaHostUnregister(r));
    free(r);
    double t_unregister = now() - t0;
    CK(cudaFree(d));
    free(pg);
    printf("{\"mib\":%zu,\"threads\":%d,\"ctx_s\":%.4f,\"hostalloc_s\":%.4f,\"freehost_s\":%.4f,"
           "\"huge_touch_s\":%.4f,\"register_s\":%.4f,\"unregister_free_s\":%.4f,"
           "\"cudamalloc_4x_s\":%.4f,\"h2d_pinned_gbs\":%.1f,\"h2d_registered_gbs\":%.1f,"
           "\"h2d_pageable_gbs\":%.1f}\n",
           mib, T, t_ctx, t_hostalloc, t_freehost, t_touch, t_register, t_unregister, t_malloc4,
           n / 1e6 / ms_pinned, n / 1e6 / ms_reg, n / 1e6 / ms_pageable);
    return 0;
}
