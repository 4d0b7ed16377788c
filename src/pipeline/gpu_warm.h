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
 * every visible one). lanes: the lanes each GPU will run, when the caller
 * knows it before the driver loads (`cuplas sort`: one), else 0. With one
 * lane, and CUDA_DEVICE_MAX_CONNECTIONS unset, it is set to 1 first: one
 * stream needs one hardware queue, and the driver (which reads the
 * variable when it loads) then makes a context in half the time and tears
 * it down in 40 % (H200: 117 -> 55 ms and 57 -> 22 ms). Call it before any
 * other thread starts (setenv). NULL when backend.device is cpu, the build
 * has no CUDA, or no thread could start: nothing is made ahead then. */
cuplas_gpu_warm *cuplas_gpu_warm_start(const cuplas_config *cfg, int lanes);

/* Whether a run of cfg will sort on GPUs: backend.device gpu, or auto
 * with a GPU visible (that waits for the driver to load, as the runner's
 * own count would a moment later). */
int cuplas_gpu_run_expected(const cuplas_config *cfg);

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
