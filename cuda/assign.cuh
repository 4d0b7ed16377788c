/*
 * assign.cuh - launchers of the solve pass and of the device-side loop
 * control (cuda/assign.cu).
 *
 * The whole per-level loop of the CPU reference (configurations, passes,
 * the relative stopping rule) runs on the device: one thread of a control
 * kernel reads the exact integer cost sums of the pass that just ran,
 * decides, draws the next shift and grouping, and sets the CUDA graph's
 * conditional handles. The host never synchronises inside a sort.
 */
#ifndef CUPLAS_ASSIGN_CUH
#define CUPLAS_ASSIGN_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "error.h"
#include "hd_random.h"
#include "params.h"
#include "schedule.h"

/* Device-resident loop state of one sort. */
typedef struct cuplas_loop_state {
    unsigned long long before, after; /* cost sums of the current pass   */
    unsigned long long passes, configs;
    uint32_t level, cfg, pass, improved;
    int64_t sy, sx;                   /* torus shift of the configuration */
    int64_t bh, bw, nbx, quads, total;/* geometry of the current level   */
    cuplas_perm perm;                 /* grouping of the current pass     */
} cuplas_loop_state;

/* Loop parameters copied by value into the control kernels. */
typedef struct cuplas_loop_params {
    uint64_t seed;
    uint32_t permuter, nlevels;
    int64_t H, W;
    double improvement_break;
    uint32_t min_configs, max_configs, max_passes;
} cuplas_loop_params;

/* idx[i] = shuffle(i) (or i), q[i] = q_in[idx[i]]. */
int cuplas_shuffle_launch(int16_t *q, int32_t *idx, const int16_t *q_in, int64_t N, int Cp,
                          uint64_t seed, int shuffle, cudaStream_t stream, cuplas_error *err);

/* Reset the state for a new sort (level 0). */
int cuplas_loop_init_launch(cuplas_loop_state *st, cudaStream_t stream, cuplas_error *err);

/* Start st->level: geometry, first shift and grouping; sets h_pass = 1. */
int cuplas_level_begin_launch(cuplas_loop_state *st, const cuplas_level *levels,
                              cuplas_loop_params lp, cudaGraphConditionalHandle h_pass,
                              cudaStream_t stream, cuplas_error *err);

/* One solve pass over every group of the level (up to max_quads threads). */
int cuplas_solve_pass_launch(int16_t *q, int32_t *idx, const int16_t *t, int Cp,
                             cuplas_loop_state *st, cuplas_loop_params lp,
                             int64_t max_quads, cudaStream_t stream, cuplas_error *err);

/* After a pass: the stopping rule; sets h_pass to continue or not. */
int cuplas_pass_end_launch(cuplas_loop_state *st, cuplas_loop_params lp,
                           cudaGraphConditionalHandle h_pass, cudaStream_t stream,
                           cuplas_error *err);

/* After a level: next level, or h_level = 0. */
int cuplas_level_end_launch(cuplas_loop_state *st, cuplas_loop_params lp,
                            cudaGraphConditionalHandle h_level, cudaStream_t stream,
                            cuplas_error *err);

#endif
