/*
 * kmeans_gpu.cu - the nearest centroid of every point on the GPU. CPU
 * reference: cpu/kmeans_cpu.c.
 *
 * A thread per point, its coordinates in registers (D is a template
 * argument for SOG's three SH sizes, 9, 24 and 45; other sizes take the
 * general kernel). A block stages TILE centroids at a time in shared
 * memory, padded to whole float4s, which every thread then reads at the
 * same address (a broadcast), four coordinates a load. Each distance is
 * core/kmeans.h's sequence of float operations, and the least distance
 * wins, then the lowest index, so labels and distances equal the CPU's
 * bit for bit. No early exit and no fused multiply-add (the CPU must get
 * the same bits): 3 D FP32 instructions per point and centroid (43 ms for
 * 115K points x 64Ki centroids x 45, 0.35 s for 1M; bench/results/
 * 2026-11-29-h200-v20). After an update, a point whose centroid did not
 * move is measured only against those that did, and the others are
 * listed for a full search (the reasoning of cpu/kmeans_cpu.h).
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
    int32_t *label;      /* device: N (the last call's, with dist)  */
    uint8_t *moved;      /* device: K flags                         */
    int32_t *mlist, *pts; /* device: K moved centroids, N points     */
    int *npts;           /* device: pts's length                    */
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

/* Every thread of the block walks n candidate centroids (cand: their
 * indices; NULL: 0..n-1) a tile at a time; the `active` ones fold each
 * distance into (best, bi), the least distance and then the lowest index
 * winning, so the candidates' order does not matter. */
template <int DT>
__device__ void scan_tiles(const float *xr, int Drt, const float *c, const int32_t *cand, int n,
                           bool active, float &best, int &bi)
{
    extern __shared__ float4 tile[]; /* KM_TILE centroids of Dq float4s, zero-padded */
    __shared__ int id[KM_TILE];
    const int D = DT ? DT : Drt, Dq = (D + 3) / 4;

    for (int t0 = 0; t0 < n; t0 += KM_TILE) {
        const int nt = n - t0 < KM_TILE ? n - t0 : KM_TILE;
        __syncthreads();
        for (int j = threadIdx.x; j < nt; j += blockDim.x)
            id[j] = cand ? cand[t0 + j] : t0 + j;
        __syncthreads();
        for (int e = threadIdx.x; e < nt * Dq; e += blockDim.x) {
            const int j = e / Dq, k = 4 * (e % Dq);
            const float *cj = c + (int64_t)id[j] * D;
            tile[e] = make_float4(cj[k], k + 1 < D ? cj[k + 1] : 0.0f,
                                  k + 2 < D ? cj[k + 2] : 0.0f, k + 3 < D ? cj[k + 3] : 0.0f);
        }
        __syncthreads();
        if (!active)
            continue;
        for (int j = 0; j < nt; j++) {
            float d = tile_d2<DT>(xr, tile + j * Dq, D);
            if (d < best || (d == best && id[j] < bi)) {
                best = d;
                bi = id[j];
            }
        }
    }
}

/* Full search for every point, or (pts) for the *npts points listed. */
template <int DT>
__global__ void kmeans_assign_kernel(const float *x, int64_t N, int Drt, const float *c, int K,
                                     const int32_t *pts, const int *npts, int32_t *label,
                                     float *dist)
{
    const int D = DT ? DT : Drt;
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t n = pts ? *npts : N;
    float xr[DT ? DT : CUPLAS_PALETTE_MAX_D];
    float best = INFINITY;
    int bi = K;

    if ((int64_t)blockIdx.x * blockDim.x >= n)
        return;   /* the whole block: the list is shorter */
    const int64_t i = t < n ? (pts ? pts[t] : t) : -1;
    if (i >= 0)
        for (int k = 0; k < D; k++)
            xr[k] = x[i * D + k];
    scan_tiles<DT>(xr, D, c, NULL, K, i >= 0, best, bi);
    if (i >= 0) {
        label[i] = bi;
        dist[i] = best;
    }
}

/* After an update: a point whose centroid stayed (moved[label] == 0)
 * keeps (dist, label) against every other unchanged centroid, so only the
 * nm moved ones are measured; the others are listed in pts for a full
 * search. */
template <int DT>
__global__ void kmeans_moved_kernel(const float *x, int64_t N, int Drt, const float *c,
                                    const uint8_t *moved, const int32_t *mlist, int nm,
                                    int32_t *pts, int *npts, int32_t *label, float *dist)
{
    const int D = DT ? DT : Drt;
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    float xr[DT ? DT : CUPLAS_PALETTE_MAX_D];
    bool active = false;
    float best = INFINITY;
    int bi = 0;

    if (i < N) {
        bi = label[i];
        if (moved[bi]) {
            pts[atomicAdd(npts, 1)] = (int32_t)i;
        } else {
            active = true;
            best = dist[i];
            for (int k = 0; k < D; k++)
                xr[k] = x[i * D + k];
        }
    }
    scan_tiles<DT>(xr, D, c, mlist, nm, active, best, bi);
    if (active) {
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
    CUPLAS_CUDA_TRY(err, cudaMalloc((void **)&g->moved, (size_t)K));
    CUPLAS_CUDA_TRY(err, cudaMalloc((void **)&g->mlist, (size_t)K * sizeof(int32_t)));
    CUPLAS_CUDA_TRY(err, cudaMalloc((void **)&g->pts, (size_t)N * sizeof(int32_t)));
    CUPLAS_CUDA_TRY(err, cudaMalloc((void **)&g->npts, sizeof(int)));
    CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(g->x, x, (size_t)N * D * sizeof(float),
                                         cudaMemcpyHostToDevice, g->stream));
    CUPLAS_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
    *out = g;
    return 0;
fail:
    cuplas_kmeans_gpu_free(g);
    return rc;
}

/* The kernels for one D: SOG's three band sizes unrolled, others general. */
template <int DT>
static void launch(cuplas_kmeans_gpu *g, int nm)
{
    const unsigned blocks = cuplas_blocks(g->N, KM_THREADS);
    const size_t smem = (size_t)KM_TILE * ((g->D + 3) / 4) * sizeof(float4);
    if (nm < 0) {
        kmeans_assign_kernel<DT><<<blocks, KM_THREADS, smem, g->stream>>>(
            g->x, g->N, g->D, g->c, g->K, NULL, NULL, g->label, g->dist);
        return;
    }
    kmeans_moved_kernel<DT><<<blocks, KM_THREADS, smem, g->stream>>>(
        g->x, g->N, g->D, g->c, g->moved, g->mlist, nm, g->pts, g->npts, g->label, g->dist);
    kmeans_assign_kernel<DT><<<blocks, KM_THREADS, smem, g->stream>>>(
        g->x, g->N, g->D, g->c, g->K, g->pts, g->npts, g->label, g->dist);
}

/* Centroids in, the kernels, labels (and dist) out; nm < 0: a full
 * search, else after an update that moved the nm centroids of mlist. */
static int assign(cuplas_kmeans_gpu *g, const float *c, const uint8_t *moved,
                  const int32_t *mlist, int nm, int32_t *label, float *dist, cuplas_error *err)
{
    int rc = 0;

    CUPLAS_CUDA_TRY(err, cudaSetDevice(g->device));
    CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(g->c, c, (size_t)g->K * g->D * sizeof(float),
                                         cudaMemcpyHostToDevice, g->stream));
    if (nm >= 0) {
        CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(g->moved, moved, (size_t)g->K,
                                             cudaMemcpyHostToDevice, g->stream));
        if (nm > 0)
            CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(g->mlist, mlist, (size_t)nm * sizeof(int32_t),
                                                 cudaMemcpyHostToDevice, g->stream));
        CUPLAS_CUDA_TRY(err, cudaMemsetAsync(g->npts, 0, sizeof(int), g->stream));
    }
    switch (g->D) {
    case 9: launch<9>(g, nm); break;
    case 24: launch<24>(g, nm); break;
    case 45: launch<45>(g, nm); break;
    default: launch<0>(g, nm);
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

extern "C" int cuplas_kmeans_assign_gpu(cuplas_kmeans_gpu *g, const float *c, int32_t *label,
                                        float *dist, cuplas_error *err)
{
    return assign(g, c, NULL, NULL, -1, label, dist, err);
}

extern "C" int cuplas_kmeans_reassign_gpu(cuplas_kmeans_gpu *g, const float *c,
                                          const uint8_t *moved, const int32_t *mlist, int nm,
                                          int32_t *label, float *dist, cuplas_error *err)
{
    return assign(g, c, moved, mlist, nm, label, dist, err);
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
    cudaFree(g->moved);
    cudaFree(g->mlist);
    cudaFree(g->pts);
    cudaFree(g->npts);
    if (g->stream)
        cudaStreamDestroy(g->stream);
    free(g);
}
