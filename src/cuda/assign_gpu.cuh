/*
 * assign_gpu.cuh - launchers of the 4-cell solve (cuda/assign_gpu.cu).
 * CPU twins: cuplas_assign_pass_cpu and cuplas_assign_level_cpu
 * (cpu/assign_cpu.h).
 *
 * One cooperative kernel runs a whole level: every configuration and every
 * pass, with a grid-wide barrier after each pass. After the barrier every
 * thread reads the same exact integer cost sums and takes the same
 * decision (core/level.h: cuplas_level_step, as the CPU reference does),
 * so the host launches one kernel per level and never waits inside a sort.
 *
 * Memory layout (cuplas_assign_gpu_packed): for Cp <= 4 the value and the
 * target of a cell share one record [q | t] of 2 Cp elements (t == q + Cp),
 * so a random gather fetches one 32-byte sector for both; above, q and the
 * target are separate N x Cp arrays. Measured against the alternatives in
 * bench/bench_solve.cu.
 */
#ifndef CUPLAS_ASSIGN_GPU_CUH
#define CUPLAS_ASSIGN_GPU_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "util/error.h"
#include "core/level.h"
#include "core/polish.h" /* CUPLAS_POLISH_MAX */

/* Device-resident counters of one sort: the cost sums of the passes in
 * flight, and the passes and configurations run. */
typedef struct cuplas_level_counters {
    unsigned long long sums[6];  /* (before, after) x 3 rotating pass slots */
    unsigned long long passes, configs;
    unsigned int moved[3];       /* block-local levels: whether configuration
                                    k moved a cell, slot k % 3 */
    unsigned int polish_moved[CUPLAS_POLISH_MAX]; /* blocks each sweep of the
                                    AND polish moved (cuda/polish_gpu.cu) */
} cuplas_level_counters;

/* Whether the solve for Cp channels keeps q and the target in one record
 * per cell (cell stride 2 Cp, t == q + Cp) or apart (stride Cp). H200,
 * 2026-11-21: [q | t] wins at Cp = 4 (2048^2 x 3: 142 vs 145 ms), separate
 * arrays at Cp = 16 (1024^2 x 16: 74 vs 78 ms), where a record no longer
 * fits one 32-byte sector. */
static inline __host__ __device__ int cuplas_assign_gpu_packed(int Cp) { return Cp <= 4; }

/* Blocks per SM the level kernel for Cp channels and groups of `group`
 * cells (sort.group_size) keeps resident. */
int cuplas_assign_level_gpu_occupancy(int Cp, int group, int *blocks_per_sm, cuplas_error *err);

/* All configurations and passes of one level, in place on q and idx, in
 * the layout of cuplas_assign_gpu_packed(Cp) (C channels padded to Cp,
 * the padding zero in q and t); adds the passes and
 * configurations to c. max_blocks: the co-resident block count for this
 * Cp (occupancy x SMs). A block-local level (core/level.h) is max_configs
 * ordinary launches instead, one per configuration, each CTA running all
 * passes over its own tile of blocks; a configuration that must not run
 * (the previous one moved nothing) returns at once; `tab` (device,
 * cuplas_assign_local_tab_bytes) holds their offset tables. */
int cuplas_assign_level_gpu(int16_t *q, int32_t *idx, const int16_t *t, int C, int Cp,
                            cuplas_level_params a, uint32_t *tab, cuplas_level_counters *c,
                            int max_blocks, cudaStream_t stream, cuplas_error *err);

/* Device bytes of the offset tables block-local levels need (the `tab`
 * of cuplas_assign_level_gpu): max_configs x max_passes x the largest
 * local block (at most sort.local_cells, at most N, at most 4096) x 4; 0
 * when no level can be block-local, or when that would exceed 64 MiB
 * (then pass tab = NULL: the kernels draw the offsets as they go). 786 KiB
 * for the default preset. */
size_t cuplas_assign_local_tab_bytes(const cuplas_sort_params *p, int64_t N);

/* One solve pass (level, cfg, pass) with explicit geometry, in the layout
 * of cuplas_assign_gpu_packed(Cp); its identity and chosen cost sums land
 * in c->sums[0..1] (the parity tests). */
int cuplas_assign_pass_gpu(int16_t *q, int32_t *idx, const int16_t *t, int Cp,
                           const cuplas_pass_geom *g, uint64_t seed, uint32_t level,
                           uint32_t cfg, uint32_t pass, cuplas_level_counters *c,
                           cudaStream_t stream, cuplas_error *err);

#endif
