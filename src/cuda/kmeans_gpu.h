/*
 * kmeans_gpu.h - the assignment step of the SH palette's k-means on a GPU
 * (cuda/kmeans_gpu.cu), for C callers. CPU twin: cuplas_kmeans_assign_cpu
 * (cpu/kmeans_cpu.h).
 *
 * The workspace is asked for up front: create uploads the points once and
 * holds room for K centroids, N labels and distances (the last call's,
 * which a reassignment starts from) and the lists a reassignment keeps,
 * so an iteration moves only the centroids in and the labels out.
 */
#ifndef CUPLAS_KMEANS_GPU_H
#define CUPLAS_KMEANS_GPU_H

#include <stdint.h>

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuplas_kmeans_gpu cuplas_kmeans_gpu;

/* x: N x D floats (D <= CUPLAS_PALETTE_MAX_D), K centroids at most. */
int cuplas_kmeans_gpu_create(cuplas_kmeans_gpu **g, int device, const float *x, int64_t N,
                             int D, int K, cuplas_error *err);

/* cuplas_kmeans_assign_cpu's label and dist (may be NULL), bit for bit,
 * for the centroids c (host, K x D). label's entry is not read. */
int cuplas_kmeans_assign_gpu(cuplas_kmeans_gpu *g, const float *c, int32_t *label, float *dist,
                             cuplas_error *err);

/* cuplas_kmeans_reassign_cpu's answer (the same as a full assignment)
 * after an earlier call on g: only the centroids flagged in moved (host,
 * K bytes; their nm indices in mlist) changed since that call. */
int cuplas_kmeans_reassign_gpu(cuplas_kmeans_gpu *g, const float *c, const uint8_t *moved,
                               const int32_t *mlist, int nm, int32_t *label, float *dist,
                               cuplas_error *err);

void cuplas_kmeans_gpu_free(cuplas_kmeans_gpu *g);

#ifdef __cplusplus
}
#endif
#endif
