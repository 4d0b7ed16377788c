/*
 * blur.cuh - launchers of the box-blur kernels (cuda/blur.cu).
 *
 * One box pass along an axis = a segmented prefix scan into P, then a
 * window kernel that reads each output's window sum from P in O(1) and
 * rounds it exactly like the CPU reference (cuplas_div_round). The work is
 * independent of the radius.
 */
#ifndef CUPLAS_BLUR_CUH
#define CUPLAS_BLUR_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "util/error.h"
#include "core/params.h"
#include "core/schedule.h"

/* Scratch for one axis pass: P (N*Cp prefix sums) and the segment sums. */
size_t cuplas_blur_workspace(int64_t H, int64_t W, int Cp);

/* One box pass of radius r of `in` into `out` along x (axis 0) or y
 * (axis 1) over channels 0..C-1 of Cp; r <= side-1, r = 0 copies. Cells of
 * in and out lie cs >= Cp elements apart (2 Cp: interleaved with another
 * array). in may equal out; padding channels of out are left untouched. */
int cuplas_blur_pass(int16_t *out, const int16_t *in, int64_t H, int64_t W,
                     int C, int Cp, int cs, int axis, int r, cuplas_border border,
                     void *workspace, cudaStream_t stream, cuplas_error *err);

#endif
