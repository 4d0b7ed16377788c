/*
 * assign.cuh - launchers of the initial shuffle and of the solve
 * (cuda/assign.cu).
 *
 * One cooperative kernel runs a whole level: every configuration and every
 * pass, with a grid-wide barrier after each pass. After the barrier every
 * thread reads the same exact integer cost sums and takes the same
 * decision (the CPU reference's run_level), so the host launches one
 * kernel per level and never waits inside a sort.
 */
#ifndef CUPLAS_ASSIGN_CUH
#define CUPLAS_ASSIGN_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "util/error.h"
#include "core/random.h"
#include "core/params.h"
#include "core/schedule.h"
#include "cpu/sort_cpu.h"
#include "cuda/sort_gpu.h"

/* Device-resident counters of one sort. */
typedef struct cuplas_loop_state {
    unsigned long long sums[6];  /* (before, after) x 3 rotating pass slots */
    unsigned long long passes, configs;
} cuplas_loop_state;

/* What a level needs besides the buffers (by value). */
typedef struct cuplas_level_args {
    uint64_t seed;
    uint32_t level, permuter;
    uint32_t H, W, bh, bw;
    double improvement_break;
    uint32_t min_configs, max_configs, max_passes;
} cuplas_level_args;

/* idx[i] = shuffle(i) (or i), q[i] = q_in[idx[i]]; cells of q lie cs
 * elements apart, of q_in Cp. */
int cuplas_shuffle_launch(int16_t *q, int32_t *idx, const int16_t *q_in, int64_t N, int Cp,
                          int cs, uint64_t seed, int shuffle, cudaStream_t stream,
                          cuplas_error *err);

/* Blocks per SM the level kernel for Cp channels and mode keeps resident. */
int cuplas_level_occupancy(int Cp, cuplas_solve_mode mode, int *blocks_per_sm,
                           cuplas_error *err);

/* All configurations and passes of one level, in place on q and idx.
 * PACKED: t == q + Cp and cells 2 Cp elements apart; else Cp apart.
 * max_blocks: the co-resident block count for this Cp (occupancy x SMs). */
int cuplas_level_launch(int16_t *q, int32_t *idx, const int16_t *t, int Cp,
                        cuplas_solve_mode mode, cuplas_level_args a, cuplas_loop_state *st,
                        int max_blocks, cudaStream_t stream, cuplas_error *err);

/* A single pass with explicit geometry (kernel parity tests). */
int cuplas_pass_launch(int16_t *q, int32_t *idx, const int16_t *t, int Cp,
                       cuplas_solve_mode mode, const cuplas_pass_geom *g, cuplas_perm perm,
                       cuplas_loop_state *st, cudaStream_t stream, cuplas_error *err);

#endif
