/*
 * shuffle_cpu.h - the random start of a sort (CPU reference). GPU twin:
 * cuplas_shuffle_gpu (cuda/shuffle_gpu.cuh).
 */
#ifndef CUPLAS_SHUFFLE_CPU_H
#define CUPLAS_SHUFFLE_CPU_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* idx[i] = cuplas_shuffle_perm(N, seed)(i) (or i without shuffle), and
 * q[i] = q_in[idx[i]]; cells are Cp elements apart. */
void cuplas_shuffle_cpu(int16_t *q, int64_t *idx, const int16_t *q_in, int64_t N, int Cp,
                        uint64_t seed, int shuffle);

#ifdef __cplusplus
}
#endif
#endif
