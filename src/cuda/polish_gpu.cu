/*
 * polish_gpu.cu - the AND polish on the GPU (core/polish.h: the rule, the
 * order, why the blocks of a sub-pass may run at once). CPU reference:
 * cpu/polish_cpu.c.
 *
 * One cooperative launch runs every sweep: a grid-stride loop over the
 * 2x2 blocks of a sub-pass, a grid barrier, the next sub-pass. Blocks that
 * move add to moved[sweep]; after a sweep's last barrier every thread
 * reads it and all stop together once a sweep moved nothing (as the CPU
 * does). One launch instead of 16 a sweep matters to batches of small
 * grids, where 128 launches would cost more than the work.
 *
 * The choice is cuplas_polish_block, the CPU's own code (CUPLAS_HD), built
 * with -fmad=false like the rest, so the same doubles come out.
 */
#include "cuda/polish_gpu.cuh"

#include <cooperative_groups.h>

#include "core/polish.h"
#include "cuda/cuda_check.h"

#define POLISH_THREADS 256

__global__ void __launch_bounds__(POLISH_THREADS)
polish_kernel(int16_t *q, int32_t *idx, int cs, int Cp, int64_t H, int64_t W, int sweeps,
              unsigned int *moved)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const int64_t t0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int sw = 0; sw < sweeps; sw++) {
        for (int s = 0; s < CUPLAS_POLISH_STEPS; s++) {
            int64_t oy, ox, ni, nj;
            cuplas_polish_step(H, W, s, &oy, &ox, &ni, &nj);
            unsigned int n = 0;
            for (int64_t b = t0; b < ni * nj; b += stride) {
                const int64_t y = oy + 4 * (b / nj), x = ox + 4 * (b % nj);
                int perm[4];
                if (!cuplas_polish_block(q, cs, Cp, H, W, y, x, perm))
                    continue;
                int64_t cell[4];
                int32_t id[4];
                for (int j = 0; j < 4; j++) {
                    cell[j] = (y + (j >> 1)) * W + x + (j & 1);
                    id[j] = idx[cell[j]];
                }
                for (int j = 0; j < 4; j++)
                    idx[cell[j]] = id[perm[j]];
                for (int c = 0; c < Cp; c++) {
                    int16_t v[4];
                    for (int j = 0; j < 4; j++)
                        v[j] = q[cell[j] * cs + c];
                    for (int j = 0; j < 4; j++)
                        q[cell[j] * cs + c] = v[perm[j]];
                }
                n++;
            }
            if (n)
                atomicAdd(&moved[sw], n);
            cooperative_groups::this_grid().sync();
        }
        if (__ldcg(&moved[sw]) == 0)
            break;
    }
}

int cuplas_polish_gpu(int16_t *q, int32_t *idx, int cs, int Cp, int64_t H, int64_t W,
                      int sweeps, unsigned int *moved, cudaStream_t stream, cuplas_error *err)
{
    int rc = 0, dev = 0, sms = 0, per_sm = 0;
    int64_t most = 0;   /* blocks of the largest sub-pass */
    for (int s = 0; s < CUPLAS_POLISH_STEPS; s++) {
        int64_t oy, ox, ni, nj;
        cuplas_polish_step(H, W, s, &oy, &ox, &ni, &nj);
        most = ni * nj > most ? ni * nj : most;
    }
    if (most == 0 || sweeps <= 0)
        return 0;
    /* a cooperative launch may not exceed what is resident at once */
    CUPLAS_CUDA_TRY(err, cudaGetDevice(&dev));
    CUPLAS_CUDA_TRY(err, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUPLAS_CUDA_TRY(err, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, polish_kernel,
                                                                       POLISH_THREADS, 0));
    if (per_sm < 1)
        CUPLAS_FAIL(err, CUPLAS_ERR_CUDA, "the polish kernel does not fit an SM");
    {
        unsigned blocks = cuplas_blocks((long long)most, POLISH_THREADS);
        if (blocks > (unsigned)(per_sm * sms))
            blocks = (unsigned)(per_sm * sms);
        void *args[] = { &q, &idx, &cs, &Cp, &H, &W, &sweeps, &moved };
        CUPLAS_CUDA_TRY(err, cudaLaunchCooperativeKernel((const void *)polish_kernel, dim3(blocks),
                                                         dim3(POLISH_THREADS), args, 0, stream));
        CUPLAS_LAUNCH_CHECK(err, stream);
    }
fail:
    return rc;
}
