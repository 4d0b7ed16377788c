/*
 * polish_gpu.cu - the AND polish on the GPU (core/polish.h: the rule, the
 * order, why the blocks of a sub-pass may run at once). CPU reference:
 * cpu/polish_cpu.c.
 *
 * One cooperative launch runs every sweep: a grid-stride loop over the
 * windows of a sub-pass (a thread per 2x2 window, a warp per 2x3 or 3x2
 * one: 720 arrangements are worth 32 lanes, and a warp's lanes take the
 * same path through them), a grid barrier, the next sub-pass. Windows that
 * move add to moved[sweep]; after a sweep's last barrier every thread
 * reads it and all stop together once a sweep moved nothing (as the CPU
 * does). One launch instead of 16 a sweep matters to batches of small
 * grids, where 128 launches would cost more than the work (d3 -> d4:
 * 256^2 x 3 2.4 -> 0.5 ms for 8 sweeps).
 *
 * The sums are the CPU's own functions (CUPLAS_HD), built with -fmad=false
 * like the rest, so the same doubles come out; and the choice is the same
 * first least sum in rank order.
 */
#include "cuda/polish_gpu.cuh"

#include <cooperative_groups.h>

#include "core/polish.h"
#include "cuda/cuda_check.h"

#define POLISH_THREADS 256
#define POLISH_WARPS (POLISH_THREADS / 32)

/* A 2x2 window, one thread: core/polish.h's cuplas_polish_block4. */
static __device__ __forceinline__ unsigned polish4(int16_t *q, int32_t *idx, int cs, int Cp,
                                                   int64_t H, int64_t W, int64_t y, int64_t x)
{
    int perm[4];
    if (!cuplas_polish_block4(q, cs, Cp, H, W, y, x, perm))
        return 0;
    int64_t cell[4];
    int32_t id[4];
    short4 v[4][4]; /* up to 16 channels in registers; more go chunk by chunk below */
    for (int j = 0; j < 4; j++) {
        cell[j] = (y + (j >> 1)) * W + x + (j & 1);
        id[j] = idx[cell[j]];
    }
    for (int j = 0; j < 4; j++)
        idx[cell[j]] = id[perm[j]];
    for (int c0 = 0; c0 < Cp; c0 += 16) {
        const int nc = Cp - c0 < 16 ? (Cp - c0) / 4 : 4;
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < nc; k++)
                v[j][k] = *(const short4 *)(q + cell[j] * cs + c0 + 4 * k);
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < nc; k++)
                *(short4 *)(q + cell[j] * cs + c0 + 4 * k) = v[perm[j]][k];
    }
    return 1;
}

/* A 2x3 or 3x2 window, one warp: the lanes share out the 36 entries of E
 * and the 15 of P (core/polish.h, the CPU's own functions), then the 720
 * ranks in 32 runs of consecutive ranks, each lane its run's first least
 * sum; the warp's least sum, ties to the lower rank, is the CPU's first
 * least one in rank order. Returns 1 when the window moved. */
static __device__ __forceinline__ unsigned polish6(int16_t *q, int32_t *idx, int cs, int Cp,
                                                   int64_t H, int64_t W, int64_t y, int64_t x,
                                                   int bh, int bw, double *E, double *P,
                                                   int lane)
{
    for (int t = lane; t < 36; t += 32)
        E[t] = cuplas_polish6_e(q, cs, Cp, H, W, y, x, bh, bw, t);
    if (lane < 15) {
        int i = 0, k = lane;   /* pair `lane` of (0,1), (0,2), ..., (4,5) */
        while (k >= 5 - i) {
            k -= 5 - i;
            i++;
        }
        const int j = i + 1 + k;
        P[i * 6 + j] = P[j * 6 + i] = cuplas_polish6_p(q, cs, Cp, W, y, x, bw, i, j);
    }
    __syncwarp();
    const int per = (CUPLAS_POLISH6_ARRANGEMENTS + 31) / 32;
    const int r0 = lane * per;
    int r1 = r0 + per;
    r1 = r1 < CUPLAS_POLISH6_ARRANGEMENTS ? r1 : CUPLAS_POLISH6_ARRANGEMENTS;
    int p[6], best_r = r0;
    double best = 0, id = 0;
    if (lane == 0) { /* the identity (rank 0), the sum to beat */
        const int e[6] = { 0, 1, 2, 3, 4, 5 };
        id = cuplas_polish6_sum(E, P, bw, e);
    }
    id = __shfl_sync(0xffffffffu, id, 0);
    cuplas_polish6_unrank(r0 < CUPLAS_POLISH6_ARRANGEMENTS ? r0 : 0, p);
    for (int r = r0; r < r1; r++) {
        const double s = cuplas_polish6_sum(E, P, bw, p);
        if (r == r0 || s < best) {
            best = s;
            best_r = r;
        }
        cuplas_polish6_next(p);
    }
    if (r0 >= r1)
        best_r = CUPLAS_POLISH6_ARRANGEMENTS; /* an empty run loses every tie */
    for (int o = 16; o > 0; o >>= 1) {
        const double ob = __shfl_xor_sync(0xffffffffu, best, o);
        const int orr = __shfl_xor_sync(0xffffffffu, best_r, o);
        if (orr < CUPLAS_POLISH6_ARRANGEMENTS &&
            (best_r >= CUPLAS_POLISH6_ARRANGEMENTS || ob < best || (ob == best && orr < best_r))) {
            best = ob;
            best_r = orr;
        }
    }
    __syncwarp();  /* E and P are read; the next window may overwrite them */
    if (best_r == 0 || !cuplas_polish_beats(best, id))
        return 0;
    int perm[6];
    cuplas_polish6_unrank(best_r, perm);
    /* every lane reads before any writes: the moving lanes hold their
       source cell's index and channels, chunk by chunk */
    const int n = bh * bw;
    int64_t cell = 0, from = 0;
    if (lane < n) {
        cell = (y + lane / bw) * W + x + lane % bw;
        from = (y + perm[lane] / bw) * W + x + perm[lane] % bw;
    }
    const int32_t nid = lane < n ? idx[from] : 0;
    __syncwarp();
    if (lane < n)
        idx[cell] = nid;
    for (int c = 0; c < Cp; c += 4) {
        short4 v = make_short4(0, 0, 0, 0);
        if (lane < n)
            v = *(const short4 *)(q + from * cs + c);
        __syncwarp();
        if (lane < n)
            *(short4 *)(q + cell * cs + c) = v;
        __syncwarp();
    }
    return 1;
}

/* Every sweep, one cooperative launch: CELLS 4 a thread per window, 6 a
 * warp per window. */
template <int CELLS>
__global__ void __launch_bounds__(POLISH_THREADS)
polish_kernel(int16_t *q, int32_t *idx, int cs, int Cp, int64_t H, int64_t W, int sweeps,
              unsigned int *moved)
{
    __shared__ double sE[CELLS == 6 ? POLISH_WARPS : 1][36], sP[CELLS == 6 ? POLISH_WARPS : 1][36];
    const int per = CELLS == 6 ? 32 : 1;   /* threads per window */
    const int64_t stride = (int64_t)gridDim.x * blockDim.x / per;
    const int64_t w0 = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / per;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int sw = 0; sw < sweeps; sw++) {
        for (int s = 0; s < cuplas_polish_steps(CELLS); s++) {
            int64_t oy, ox, ni, nj;
            int bh, bw;
            cuplas_polish_step(H, W, CELLS, s, &bh, &bw, &oy, &ox, &ni, &nj);
            unsigned int moves = 0;
            for (int64_t b = w0; b < ni * nj; b += stride) {
                const int64_t y = oy + 2 * bh * (b / nj), x = ox + 2 * bw * (b % nj);
                if (CELLS == 6)
                    moves += polish6(q, idx, cs, Cp, H, W, y, x, bh, bw,
                                     sE[CELLS == 6 ? warp : 0], sP[CELLS == 6 ? warp : 0], lane);
                else
                    moves += polish4(q, idx, cs, Cp, H, W, y, x);
            }
            if (moves && (CELLS == 4 || lane == 0))
                atomicAdd(&moved[sw], moves);
            cooperative_groups::this_grid().sync();
        }
        if (__ldcg(&moved[sw]) == 0)
            break;
    }
}

/* The kernel for windows of `cells` cells. */
static const void *polish_kernel_for(int cells)
{
    return cells == 6 ? (const void *)polish_kernel<6> : (const void *)polish_kernel<4>;
}

int cuplas_polish_gpu_occupancy(int cells, int *blocks_per_sm, cuplas_error *err)
{
    int rc = 0;
    CUPLAS_CUDA_TRY(err, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                             blocks_per_sm, polish_kernel_for(cells), POLISH_THREADS, 0));
    if (*blocks_per_sm < 1)
        CUPLAS_FAIL(err, CUPLAS_ERR_CUDA, "the polish kernel does not fit an SM");
fail:
    return rc;
}

int cuplas_polish_gpu(int16_t *q, int32_t *idx, int cs, int Cp, int64_t H, int64_t W,
                      int sweeps, int cells, unsigned int *moved, int max_blocks,
                      cudaStream_t stream, cuplas_error *err)
{
    int rc = 0;
    int64_t most = 0;   /* windows of the largest sub-pass */
    for (int s = 0; s < cuplas_polish_steps(cells); s++) {
        int64_t oy, ox, ni, nj;
        int bh, bw;
        cuplas_polish_step(H, W, cells, s, &bh, &bw, &oy, &ox, &ni, &nj);
        most = ni * nj > most ? ni * nj : most;
    }
    if (most == 0 || sweeps <= 0)
        return 0;
    {
        /* a cooperative launch may not exceed what is resident at once */
        unsigned blocks = cuplas_blocks(most * (cells == 6 ? 32 : 1), POLISH_THREADS);
        if (blocks > (unsigned)max_blocks)
            blocks = (unsigned)max_blocks;
        void *args[] = { &q, &idx, &cs, &Cp, &H, &W, &sweeps, &moved };
        CUPLAS_CUDA_TRY(err, cudaLaunchCooperativeKernel(polish_kernel_for(cells), dim3(blocks),
                                                         dim3(POLISH_THREADS), args, 0, stream));
        CUPLAS_LAUNCH_CHECK(err, stream);
    }
fail:
    return rc;
}
