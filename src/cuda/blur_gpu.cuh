/*
 * blur_gpu.cuh - launcher of the level's target blur (cuda/blur_gpu.cu).
 * CPU twin: cuplas_blur_cpu (cpu/blur_cpu.h).
 *
 * One box pass along an axis = a segmented prefix scan into P, then a
 * window kernel that reads each output's window sum from P in O(1) and
 * rounds it exactly like the CPU reference (cuplas_div_round). The work is
 * independent of the radius.
 */
#ifndef CUPLAS_BLUR_GPU_CUH
#define CUPLAS_BLUR_GPU_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "util/error.h"
#include "core/params.h"

/* Once per device, before its first blur (cuplas_gpu_ctx_init): the line
 * kernels' shared-memory limit. */
int cuplas_blur_gpu_setup(cuplas_error *err);

/* Device scratch the blur of an H x W x Cp grid needs: P (N*Cp prefix
 * sums) and the segment sums. */
size_t cuplas_blur_gpu_workspace(int64_t H, int64_t W, int Cp);

/* target = iterated box blur of q, as cuplas_blur_cpu: `passes` box passes
 * of radius rx along x, then `passes` of radius ry along y (r <= side-1;
 * r = 0 copies), over channels 0..C-1 of Cp. Cells of q and target lie
 * cs >= Cp elements apart (2 Cp: the [q | t] layout, target == q + Cp);
 * padding channels of target are left untouched. */
int cuplas_blur_gpu(const int16_t *q, int16_t *target, int64_t H, int64_t W, int C, int Cp,
                    int cs, int rx, int ry, int passes, cuplas_border bx, cuplas_border by,
                    void *workspace, cudaStream_t stream, cuplas_error *err);

#endif
