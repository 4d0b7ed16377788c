/*
 * kmeans_gpu.cu - the nearest centroid of every point on the GPU. CPU
 * reference: cpu/kmeans_cpu.c.
 *
 * A thread per point, its coordinates in registers (D is a template
 * argument for SOG's three SH sizes, 9, 24 and 45; other sizes take the
 * general kernel). A block stages TILE centroids at a time in shared
 * memory, padded to whole float4s, which every thread then reads at the
 * same address (a broadcast), four coordinates a load. Each distance is core/kmeans.h's sequence of float
 * operations and the scan runs in index order keeping the first least,
 * so labels and distances equal the CPU's bit for bit. No early exit and
 * no fused multiply-add (the CPU must get the same bits): 3 D FP32
 * instructions per point and centroid, which run at about two thirds of
 * an H200's issue rate (53 ms for 115K points x 64Ki centroids x 45, 0.40 s
 * for 1M; bench/results/2026-11-28-h200-v14).
 */
#include "cuda/kmeans_gpu.h"

#include <math.h>

#include "core/kmeans.h"
#include "cuda/cuda_check.h"

#define KM_THREADS 128
#define KM_TILE 128

struct cuplas_kmeans_gpu {
    int device, D, K;
    int64_t N;
    cudaStream_t stream;
    float *x, *c, *dist; /* device: N x D points, K x D centroids, N */
    int32_t *label;      /* device: N                               */
};

/* One centroid's distance from the tile: core/kmeans.h's sequence (each
 * term a - b, squared, added in coordinate order), its coordinates read
 * four at a time (one shared-memory load for three FP32 operations
 * would otherwise cost a quarter of the issue slots). */
template <int DT>
__device__ __forceinline__ float tile_d2(const float *xr, const float4 *cj, int Drt)
{
    const int D = DT ? DT : Drt;
    float acc = 0.0f;
#pragma unroll
    for (int q = 0; q < D / 4; q++) {
        const float4 v = cj[q];
        float d = xr[4 * q] - v.x;
        acc = acc + d * d;
        d = xr[4 * q + 1] - v.y;
        acc = acc + d * d;
        d = xr[4 * q + 2] - v.z;
        acc = acc + d * d;
        d = xr[4 * q + 3] - v.w;
        acc = acc + d * d;
    }
    const int q = D / 4;
    if (D % 4) {
        const float4 v = cj[q];
        const float t[3] = {v.x, v.y, v.z};
#pragma unroll
        for (int r = 0; r < 3; r++)
            if (r < D % 4) {
                float d = xr[4 * q + r] - t[r];
                acc = acc + d * d;
            }
    }
    return acc;
}

template <int DT>
__global__ void kmeans_assign_kernel(const float *x, int64_t N, int Drt, const float *c, int K,
                                     int32_t *label, float *dist)
{
    extern __shared__ float4 tile[]; /* KM_TILE centroids of Dq float4s, zero-padded */
    const int D = DT ? DT : Drt, Dq = (D + 3) / 4;
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    float xr[DT ? DT : CUPLAS_PALETTE_MAX_D];
    float best = INFINITY;
    int bi = K;

    if (i < N)
        for (int k = 0; k < D; k++)
            xr[k] = x[i * D + k];
    for (int t0 = 0; t0 < K; t0 += KM_TILE) {
        const int nt = K - t0 < KM_TILE ? K - t0 : KM_TILE;
        __syncthreads();
        for (int e = threadIdx.x; e < nt * Dq; e += blockDim.x) {
            const int j = e / Dq, k = 4 * (e % Dq);
            const float *cj = c + (int64_t)(t0 + j) * D;
            tile[e] = make_float4(cj[k], k + 1 < D ? cj[k + 1] : 0.0f,
                                  k + 2 < D ? cj[k + 2] : 0.0f, k + 3 < D ? cj[k + 3] : 0.0f);
        }
        __syncthreads();
        if (i >= N)
            continue;
        for (int j = 0; j < nt; j++) {
            float d = tile_d2<DT>(xr, tile + j * Dq, D);
            if (d < best || (d == best && t0 + j < bi)) {
                best = d;
                bi = t0 + j;
            }
        }
    }
    if (i < N) {
        label[i] = bi;
        dist[i] = best;
    }
}

extern "C" int cuplas_kmeans_gpu_create(cuplas_kmeans_gpu **out, int device, const float *x,
                                        int64_t N, int D, int K, cuplas_error *err)
{
    int rc = 0;
    cuplas_kmeans_gpu *g = (cuplas_kmeans_gpu *)calloc(1, sizeof *g);

    *out = NULL;
    if (!g)
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    g->device = device;
    g->N = N;
    g->D = D;
    g->K = K;
    if (D < 1 || D > CUPLAS_PALETTE_MAX_D || K < 1 || N < 1)
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "k-means of %lld points of %d coordinates "
                    "into %d centroids", (long long)N, D, K);
    CUPLAS_CUDA_TRY(err, cudaSetDevice(device));
    CUPLAS_CUDA_TRY(err, cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    CUPLAS_CUDA_TRY(err, cudaMalloc((void **)&g->x, (size_t)N * D * sizeof(float)));
    CUPLAS_CUDA_TRY(err, cudaMalloc((void **)&g->c, (size_t)K * D * sizeof(float)));
    CUPLAS_CUDA_TRY(err, cudaMalloc((void **)&g->dist, (size_t)N * sizeof(float)));
    CUPLAS_CUDA_TRY(err, cudaMalloc((void **)&g->label, (size_t)N * sizeof(int32_t)));
    CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(g->x, x, (size_t)N * D * sizeof(float),
                                         cudaMemcpyHostToDevice, g->stream));
    CUPLAS_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
    *out = g;
    return 0;
fail:
    cuplas_kmeans_gpu_free(g);
    return rc;
}

extern "C" int cuplas_kmeans_assign_gpu(cuplas_kmeans_gpu *g, const float *c, int32_t *label,
                                        float *dist, cuplas_error *err)
{
    int rc = 0;
    const unsigned blocks = cuplas_blocks(g->N, KM_THREADS);
    const size_t smem = (size_t)KM_TILE * ((g->D + 3) / 4) * sizeof(float4);

    CUPLAS_CUDA_TRY(err, cudaSetDevice(g->device));
    CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(g->c, c, (size_t)g->K * g->D * sizeof(float),
                                         cudaMemcpyHostToDevice, g->stream));
    switch (g->D) {
    case 9:
        kmeans_assign_kernel<9><<<blocks, KM_THREADS, smem, g->stream>>>(
            g->x, g->N, g->D, g->c, g->K, g->label, g->dist);
        break;
    case 24:
        kmeans_assign_kernel<24><<<blocks, KM_THREADS, smem, g->stream>>>(
            g->x, g->N, g->D, g->c, g->K, g->label, g->dist);
        break;
    case 45:
        kmeans_assign_kernel<45><<<blocks, KM_THREADS, smem, g->stream>>>(
            g->x, g->N, g->D, g->c, g->K, g->label, g->dist);
        break;
    default:
        kmeans_assign_kernel<0><<<blocks, KM_THREADS, smem, g->stream>>>(
            g->x, g->N, g->D, g->c, g->K, g->label, g->dist);
    }
    CUPLAS_LAUNCH_CHECK(err, g->stream);
    CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(label, g->label, (size_t)g->N * sizeof(int32_t),
                                         cudaMemcpyDeviceToHost, g->stream));
    if (dist)
        CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(dist, g->dist, (size_t)g->N * sizeof(float),
                                             cudaMemcpyDeviceToHost, g->stream));
    CUPLAS_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
fail:
    return rc;
}

extern "C" void cuplas_kmeans_gpu_free(cuplas_kmeans_gpu *g)
{
    if (!g)
        return;
    cudaSetDevice(g->device);
    cudaFree(g->x);
    cudaFree(g->c);
    cudaFree(g->dist);
    cudaFree(g->label);
    if (g->stream)
        cudaStreamDestroy(g->stream);
    free(g);
}
