/*
 * shuffle_cpu.c - the random start of a sort, CPU reference of
 * cuda/shuffle_gpu.cu: cell i starts with input row shuffle(i).
 */
#include "cpu/shuffle_cpu.h"

#include <string.h>

#include "core/random.h"

void cuplas_shuffle_cpu(int16_t *q, int64_t *idx, const int16_t *q_in, int64_t N, int Cp,
                        uint64_t seed, int shuffle)
{
    cuplas_perm perm = cuplas_shuffle_perm((uint32_t)N, seed);
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < N; i++) {
        idx[i] = shuffle ? (int64_t)cuplas_perm_apply(&perm, (uint32_t)i) : i;
        memcpy(q + i * Cp, q_in + idx[i] * Cp, Cp * sizeof *q);
    }
}
