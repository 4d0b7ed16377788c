/*
 * palette.h - the SH palette of PlayCanvas SOG: k-means of the splats'
 * higher SH coefficients, on the backend asked for.
 *
 * SOG stores each splat's view-dependent colour as a 16-bit label into a
 * palette of at most 64Ki SH vectors (export-sog). The palette is Lloyd's
 * k-means: centroids start at K points evenly spaced in the input's
 * order, then alternate a nearest-centroid assignment (cpu/kmeans_cpu.c
 * or cuda/kmeans_gpu.cu, equal bit for bit) with centroids moved to
 * their points' means (double sums in point order, here on the host for
 * both backends, each centroid's on one thread). A centroid left with no
 * point keeps its place. The distance adds the coordinates in order of
 * falling variance (the CPU's early exits come sooner). Memory: twice
 * the points' floats and 8 bytes a point. So the same input, K and
 * iterations give the same palette and labels on either backend, on any
 * number of threads.
 */
#ifndef CUPLAS_SORT_PALETTE_H
#define CUPLAS_SORT_PALETTE_H

#include <stdint.h>

#include "core/kmeans.h"
#include "util/error.h"
#include "util/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuplas_palette_stats {
    int updates;        /* centroid updates run (<= iterations asked)       */
    int64_t moved;      /* labels the last assignment changed               */
    double mse;         /* mean squared distance of a point to its centroid */
    double assign_s;    /* seconds in the assignment steps                  */
} cuplas_palette_stats;

/* k-means updates of a palette unless asked otherwise (export-sog, eval). */
#define CUPLAS_PALETTE_ITERATIONS 10

/* SOG's palette size for N splats: 1024 x 2^floor(log2(N / 1024)),
 * at most 64Ki (splat-transform's rule), at least 1; never above N. */
int cuplas_palette_sog_size(int64_t N);

/* k-means of x (N x D floats, finite; D <= CUPLAS_PALETTE_MAX_D) into K
 * <= min(N, CUPLAS_PALETTE_MAX_K) centroids (K x D) with at most
 * `iterations` updates (stopping early when an assignment moves no
 * label); label[i]: point i's nearest final centroid. device: a CUDA
 * device, or -1 for the CPU. st may be NULL. Errors: CUPLAS_ERR_NOMEM,
 * CUPLAS_ERR_NODEVICE (a device in a build without CUDA), CUPLAS_ERR_CUDA,
 * CUPLAS_ERR_INTERNAL (sizes out of range). pool: the host's loops (the
 * CPU search, the update; NULL: an OpenMP team); the answer does not
 * depend on it. */
int cuplas_palette_fit(const float *x, int64_t N, int D, int K, int iterations, int device,
                       float *centroid, int32_t *label, cuplas_palette_stats *st,
                       cuplas_pool *pool, cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
