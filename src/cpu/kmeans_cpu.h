/*
 * kmeans_cpu.h - the assignment step of the SH palette's k-means (CPU
 * reference). GPU twin: cuplas_kmeans_assign_gpu (cuda/kmeans_gpu.h).
 */
#ifndef CUPLAS_KMEANS_CPU_H
#define CUPLAS_KMEANS_CPU_H

#include <stdint.h>

#include "util/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* label[i] = the nearest of the K centroids c (K x D floats, row-major)
 * to point i of x (N x D): the least cuplas_kmeans_d2, the lowest index
 * on ties. On entry label[i] may hold a hint (a centroid near point i,
 * e.g. last iteration's; anything outside 0..K-1 is none): it makes the
 * search faster and never changes its answer. dist (may be NULL): the
 * winner's cuplas_kmeans_d2. Blocks of points run on pool (NULL: an
 * OpenMP team). Returns 0, or -1 when out of memory. */
int cuplas_kmeans_assign_cpu(const float *x, int64_t N, int D, const float *c, int K,
                             int32_t *label, float *dist, cuplas_pool *pool);

/* The same answer after a centroid update, when label and dist hold the
 * last assignment's (to these points) and only the centroids flagged in
 * moved (K bytes; their nm indices in mlist) changed since, every other
 * row bit for bit the same. A point whose centroid stayed keeps its
 * distance, which no other unchanged centroid beat, so only the moved
 * ones are measured against it; a point whose centroid moved is searched
 * in full. Returns 0, or -1 when out of memory. */
int cuplas_kmeans_reassign_cpu(const float *x, int64_t N, int D, const float *c, int K,
                               const uint8_t *moved, const int32_t *mlist, int nm,
                               int32_t *label, float *dist, cuplas_pool *pool);

#ifdef __cplusplus
}
#endif
#endif
