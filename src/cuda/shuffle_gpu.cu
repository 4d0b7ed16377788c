/*
 * shuffle_gpu.cu - the random start of a sort on the GPU: cell i starts
 * with input row shuffle(i). CPU reference: cpu/shuffle_cpu.c.
 *
 * One thread per cell evaluates the permutation on the fly (core/random.h)
 * and gathers its row 8 bytes at a time into the solve's layout.
 */
#include "cuda/shuffle_gpu.cuh"

#include "cuda/cuda_check.h"
#include "core/random.h"

#define COPY_THREADS 256

__global__ void shuffle_kernel(int16_t *q, int32_t *idx, const int16_t *q_in, int64_t N,
                               int Cp, int cs, uint64_t seed, int shuffle)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N)
        return;
    cuplas_perm perm = cuplas_shuffle_perm((uint32_t)N, seed);
    int64_t src = shuffle ? (int64_t)cuplas_perm_apply(&perm, (uint32_t)i) : i;
    idx[i] = (int32_t)src;
    const short4 *from = (const short4 *)(q_in + src * Cp);
    short4 *to = (short4 *)(q + i * cs);
    for (int c = 0; c < Cp / 4; c++)
        to[c] = from[c];
}

int cuplas_shuffle_gpu(int16_t *q, int32_t *idx, const int16_t *q_in, int64_t N, int Cp,
                       int cs, uint64_t seed, int shuffle, cudaStream_t stream,
                       cuplas_error *err)
{
    int rc = 0;
    shuffle_kernel<<<cuplas_blocks(N, COPY_THREADS), COPY_THREADS, 0, stream>>>(
        q, idx, q_in, N, Cp, cs, seed, shuffle);
    CUPLAS_LAUNCH_CHECK(err, stream);
fail:
    return rc;
}
