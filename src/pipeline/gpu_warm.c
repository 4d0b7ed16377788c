/*
 * gpu_warm.c - the GPUs' primary contexts made ahead (gpu_warm.h).
 *
 * Nothing here decides anything: the thread only pays the driver's and the
 * contexts' start-up early. Its errors are ignored; the runner meets the
 * same error where it always did (cuplas_gpu_count, the lanes' contexts)
 * and reports it there.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include "cuplas_build.h"
#include "pipeline/gpu_warm.h"

#include <stdlib.h>

#ifdef HAVE_CUDA
#include <pthread.h>

#include "cuda/sort_gpu.h"
#include "util/clock.h"

struct cuplas_gpu_warm {
    pthread_t t;
    int *gpus, ngpus;       /* the config's list, copied; 0: every visible */
    double t0, seconds;     /* valid once done is set: the whole thread's */
    double driver_s;        /* of which loading the driver (the first call) */
    int done;
};

static void *warm(void *p)
{
    cuplas_gpu_warm *w = p;
    int n = cuplas_gpu_count();   /* loads the driver */
    cuplas_error e;

    w->driver_s = cuplas_now_s() - w->t0;
    pthread_setname_np(pthread_self(), "cuplas-warm");
    for (int k = 0; k < (w->ngpus ? w->ngpus : n); k++) {
        int d = w->ngpus ? w->gpus[k] : k;
        cuplas_error_clear(&e);
        if (d >= 0 && d < n)
            cuplas_gpu_touch(d, &e);
    }
    w->seconds = cuplas_now_s() - w->t0;
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

cuplas_gpu_warm *cuplas_gpu_warm_start(const cuplas_config *cfg, int lanes)
{
    cuplas_gpu_warm *w;

    if (cfg->backend.device == CUPLAS_DEVICE_CPU || !(w = calloc(1, sizeof *w)))
        return NULL;
    /* several lanes keep the default (8 queues): their streams must not
       queue behind each other (measured only for one lane: bench/results/
       2026-11-24-h200-conn) */
    if (lanes == 1 && !getenv("CUDA_DEVICE_MAX_CONNECTIONS"))
        setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 1);
    w->t0 = cuplas_now_s();
    if (cfg->backend.ngpus > 0) {
        if (!(w->gpus = malloc((size_t)cfg->backend.ngpus * sizeof *w->gpus))) {
            free(w);
            return NULL;
        }
        for (int k = 0; k < cfg->backend.ngpus; k++)
            w->gpus[k] = cfg->backend.gpus[k];
        w->ngpus = cfg->backend.ngpus;
    }
    /* not cuplas_side: without a thread there is nothing to do ahead, and
       warming here would only delay the caller by what it pays later anyway */
    if (pthread_create(&w->t, NULL, warm, w) != 0) {
        free(w->gpus);
        free(w);
        return NULL;
    }
    return w;
}

int cuplas_gpu_run_expected(const cuplas_config *cfg)
{
    return cfg->backend.device == CUPLAS_DEVICE_GPU ||
           (cfg->backend.device == CUPLAS_DEVICE_AUTO && cuplas_gpu_count() > 0);
}

double cuplas_gpu_warm_seconds(cuplas_gpu_warm *w, double *driver_s)
{
    int done = w && __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
    if (driver_s)
        *driver_s = done ? w->driver_s : -1;
    return done ? w->seconds : -1;
}

void cuplas_gpu_warm_free(cuplas_gpu_warm *w)
{
    if (!w)
        return;
    pthread_join(w->t, NULL);
    free(w->gpus);
    free(w);
}
#else
cuplas_gpu_warm *cuplas_gpu_warm_start(const cuplas_config *cfg, int lanes)
{
    (void)cfg;
    (void)lanes;
    return NULL;
}

int cuplas_gpu_run_expected(const cuplas_config *cfg)
{
    return cfg->backend.device == CUPLAS_DEVICE_GPU;   /* fails in the runner: no CUDA */
}

double cuplas_gpu_warm_seconds(cuplas_gpu_warm *w, double *driver_s)
{
    (void)w;
    if (driver_s)
        *driver_s = -1;
    return -1;
}

void cuplas_gpu_warm_free(cuplas_gpu_warm *w) { (void)w; }
#endif
