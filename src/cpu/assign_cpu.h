/*
 * assign_cpu.h - the group solve (CPU reference): one pass over every
 * group, and a whole level of passes. GPU twins: cuplas_assign_pass_gpu
 * and cuplas_assign_level_gpu (cuda/assign_gpu.cuh).
 */
#ifndef CUPLAS_ASSIGN_CPU_H
#define CUPLAS_ASSIGN_CPU_H

#include <stdint.h>

#include "core/level.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Channels the CPU solve takes (a group's values sit on the stack). */
#define CUPLAS_CPU_MAX_CP 1024

/* One solve pass (level, cfg, pass) over every group (g->group cells
 * each: 0 or 4, 8, 16), in place on q and idx. Returns the sum of identity costs and of chosen costs over all
 * groups. */
void cuplas_assign_pass_cpu(int16_t *q, int64_t *idx, const int16_t *target, int Cp,
                            const cuplas_pass_geom *g, uint64_t seed, uint32_t level,
                            uint32_t cfg, uint32_t pass, uint64_t *before,
                            uint64_t *after);

/* All configurations and passes of one level (core/level.h), in place on
 * q and idx; adds its configurations and passes to st. 0, or -1 when a
 * block-local level's offset tables cannot be allocated. */
int cuplas_assign_level_cpu(int16_t *q, int64_t *idx, const int16_t *target, int Cp,
                            const cuplas_level_params *a, cuplas_sort_stats *st);

#ifdef __cplusplus
}
#endif
#endif
