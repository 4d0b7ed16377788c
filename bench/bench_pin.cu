/*
 * bench_pin.cu - what a lane's start-up costs on this machine: the driver
 * and primary context, pinned host memory by cudaHostAlloc against the
 * lanes' own allocator (cuda/pinned.cu: huge pages zeroed by threads, then
 * cudaHostRegister'd), a device allocation, and upload bandwidth from
 * either and from pageable memory.
 *
 *   bench_pin [MiB pinned, default 576]
 *
 * Why: a 4096^2 x 16 sort waited 0.14-0.20 s for its lane after reading
 * and preparing its grid (bench/results/2026-11-24-h200-levers, r2), and
 * the lane's set-up is mostly its plan-sized pinned buffers (512 MiB of
 * features, 64 MiB of index). One JSON line; every CUDA call checked.
 * (Run r6 of that record timed a first version that made the registered
 * buffer itself: touch and register apart, and a thread-count argument.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "cuda/pinned.cuh"

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

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 576;
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
    unsigned char *r = (unsigned char *)cuplas_pinned_alloc(n);   /* the lanes' way */
    double t_pinned = now() - t0;
    if (!r)
        return 1;

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
    cuplas_pinned_free(r);
    double t_pinned_free = now() - t0;
    CK(cudaFree(d));
    free(pg);
    printf("{\"mib\":%zu,\"ctx_s\":%.4f,\"hostalloc_s\":%.4f,\"freehost_s\":%.4f,"
           "\"pinned_alloc_s\":%.4f,\"pinned_free_s\":%.4f,"
           "\"cudamalloc_4x_s\":%.4f,\"h2d_pinned_gbs\":%.1f,\"h2d_registered_gbs\":%.1f,"
           "\"h2d_pageable_gbs\":%.1f}\n",
           mib, t_ctx, t_hostalloc, t_freehost, t_pinned, t_pinned_free, t_malloc4,
           n / 1e6 / ms_pinned, n / 1e6 / ms_reg, n / 1e6 / ms_pageable);
    return 0;
}
