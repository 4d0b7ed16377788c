/*
 * kmeans.h - the distance of the SH palette's k-means (sort/palette.h),
 * shared by the CPU reference (cpu/kmeans_cpu.c) and the GPU
 * (cuda/kmeans_gpu.cu). C11 and CUDA, like quad.h.
 *
 * Both backends must pick the same centroid for every point, so the
 * distance is one fixed sequence of float operations: the squared
 * differences added in coordinate order, no fused multiply-add (the build
 * turns contraction off on both compilers), and a tie goes to the lower
 * centroid index. A partial sum never exceeds the whole (every term is
 * >= 0), which is what lets the CPU stop a candidate early and still
 * return the exhaustive argmin.
 */
#ifndef CUPLAS_CORE_KMEANS_H
#define CUPLAS_CORE_KMEANS_H

#include "core/random.h" /* CUPLAS_HD */

/* Largest palette SOG can label (16-bit labels) and longest SH vector
 * (bands 3: 15 coefficients x 3 colours). */
#define CUPLAS_PALETTE_MAX_K 65536
#define CUPLAS_PALETTE_MAX_D 45

/* sum over k < D of (a[k] - b[k])^2, in k order; b's coordinates lie
 * `stride` floats apart (1 for a row, the block width for a transposed
 * block). */
CUPLAS_HD float cuplas_kmeans_d2(const float *a, const float *b, int D, int stride)
{
    float acc = 0.0f;
    for (int k = 0; k < D; k++) {
        float d = a[k] - b[(long)k * stride];
        acc = acc + d * d;
    }
    return acc;
}

#endif
