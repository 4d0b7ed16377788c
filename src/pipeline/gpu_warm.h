/*
 * gpu_warm.h - the GPUs' primary contexts made on a thread of their own
 * while the command parses its config and plans its jobs.
 *
 * The first CUDA call of a process loads the driver and the first use of
 * a device creates its context: a few hundred milliseconds that a
 * one-file `cuplas sort` used to spend before reading anything. The CLI
 * starts this right after the config is loaded; the runner's lanes then
 * find the contexts made (or wait for them inside the CUDA runtime, never
 * longer than if they had made them).
 */
#ifndef CUPLAS_GPU_WARM_H
#define CUPLAS_GPU_WARM_H

#include "config/config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuplas_gpu_warm cuplas_gpu_warm;

/* Start making the contexts of the GPUs cfg will use (backend.gpus, else
 * every visible one). NULL when backend.device is cpu, the build has no
 * CUDA, or no thread could start: nothing is made ahead then. */
cuplas_gpu_warm *cuplas_gpu_warm_start(const cuplas_config *cfg);

/* Seconds the thread took (driver and contexts), once it is done, with
 * in *driver_s (if not NULL) the first CUDA call's part (loading the
 * driver: the runner's own first call waits for it); -1 if still running
 * or w is NULL. Never waits. */
double cuplas_gpu_warm_seconds(cuplas_gpu_warm *w, double *driver_s);

/* Join the thread and free w. NULL is a no-op. */
void cuplas_gpu_warm_free(cuplas_gpu_warm *w);

#ifdef __cplusplus
}
#endif
#endif
