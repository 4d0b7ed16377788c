/*
 * sort_gpu.h - the GPU backend, callable from C. CPU twin: cuplas_sort_cpu
 * (cpu/sort_cpu.h).
 *
 * A cuplas_gpu_ctx owns one device's stream and a workspace that grows to
 * the largest grid seen and is then reused. cuplas_sort_gpu runs the whole
 * sort with one cooperative kernel per level: no host synchronisation
 * until the index comes back. The steps' kernels and launchers live in
 * their own files, named after their CPU twins: shuffle_gpu, blur_gpu,
 * assign_gpu.
 */
#ifndef CUPLAS_SORT_GPU_H
#define CUPLAS_SORT_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "core/params.h"
#include "core/quantize.h"
#include "core/level.h"
#include "core/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuplas_gpu_ctx cuplas_gpu_ctx;

/* Usable devices; 0 on any error (no driver gives error 35, not 100). */
int cuplas_gpu_count(void);

int cuplas_gpu_ctx_init(cuplas_gpu_ctx **ctx, int device, cuplas_error *err);
void cuplas_gpu_ctx_free(cuplas_gpu_ctx *ctx);
const char *cuplas_gpu_name(const cuplas_gpu_ctx *ctx);
/* Free and total device memory now, in bytes. */
int cuplas_gpu_mem_info(cuplas_gpu_ctx *ctx, size_t *free_b, size_t *total_b);
/* Create device's primary context (what the first CUDA call on it
 * pays, 0.1-0.5 s), e.g. on a thread of its own while the run is
 * planned; every context on the device then finds it made. */
int cuplas_gpu_touch(int device, cuplas_error *err);
/* Destroy device's primary context (cudaDeviceReset) once nothing of the
 * process uses the device any more. Tearing a context down costs 0.07-0.1
 * s; at exit the process waits for it, here it can overlap the last
 * writes (bench/results/2026-11-24-h100-startup2). Errors are ignored:
 * exit tears down whatever is left. */
void cuplas_gpu_device_release(int device);
/* Before the first sort (the lane's first grid, from the plan): grow ctx's pinned
 * buffers to n_q int16 features and n_idx index entries, so that no sort
 * allocates them, and load the level kernel for Cp padded channels (0:
 * not). 0, or -1 if the buffers cannot be allocated (the sort then tries
 * again). */
int cuplas_gpu_prepare(cuplas_gpu_ctx *ctx, int64_t n_q, int64_t n_idx, int Cp);
/* Pinned host buffer of at least n int16 for the next sort's features
 * (grown on demand, owned by ctx); NULL if it cannot be allocated. */
int16_t *cuplas_gpu_staging(cuplas_gpu_ctx *ctx, int64_t n);
/* The order of sorts on one device, shared by the contexts (lanes) of
 * that device. Without it, 1024^2 grids queued by several lanes
 * interleave level by level and all finish together, so the lanes' host
 * work comes in waves. With it, grids of 2^20 cells or more run one after
 * another in queue order (each upload still overlaps the sort ahead);
 * smaller grids, which do not fill the GPU, run several at a time as
 * before. Results never depend on it. */
typedef struct cuplas_gpu_order cuplas_gpu_order;
int cuplas_gpu_order_create(cuplas_gpu_order **order, int device, cuplas_error *err);
void cuplas_gpu_order_free(cuplas_gpu_order *order);
/* Later sorts on ctx follow order (NULL: none; ignored for another device). */
void cuplas_gpu_ctx_set_order(cuplas_gpu_ctx *ctx, cuplas_gpu_order *order);

/* Release the device workspace (a lane hands memory back to others). */
void cuplas_gpu_release(cuplas_gpu_ctx *ctx);
/* Peak device bytes cuplas_sort_gpu needs for this grid. */
size_t cuplas_sort_gpu_bytes(int64_t H, int64_t W, int Cp);

int cuplas_sort_gpu(cuplas_gpu_ctx *ctx, const cuplas_qgrid *g,
                    const cuplas_sort_params *p, const cuplas_schedule *s,
                    int64_t *index, const volatile int *cancel,
                    cuplas_sort_stats *st, cuplas_error *err);

/* The steps' GPU twins run from host arrays: upload, launch in the
 * layout cuplas_sort_gpu uses for Cp channels, download (the parity tests
 * in tests/test_gpu.c hold them against cuplas_blur_cpu and
 * cuplas_assign_pass_cpu). The blur covers every channel, padding too. */
int cuplas_blur_gpu_host(cuplas_gpu_ctx *ctx, const int16_t *q, int16_t *target,
                         int64_t H, int64_t W, int Cp, int rx, int ry, int passes,
                         cuplas_border bx, cuplas_border by, cuplas_error *err);
int cuplas_assign_pass_gpu_host(cuplas_gpu_ctx *ctx, int16_t *q, int64_t *idx,
                                const int16_t *target, int Cp, const cuplas_pass_geom *g,
                                uint64_t seed, uint32_t level, uint32_t cfg, uint32_t pass,
                                uint64_t *before, uint64_t *after, cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
