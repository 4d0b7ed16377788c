/* gpu_admit.c - per-device memory budget shared by the lanes of one GPU. */
#include "pipeline/gpu_admit.h"

void cuplas_gpu_admit_init(cuplas_gpu_admit *g, size_t budget)
{
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->budget = budget;
    g->reserved = 0;
    g->waiting = 0;
}

void cuplas_gpu_admit_free(cuplas_gpu_admit *g)
{
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
}

static void drop(cuplas_gpu_admit *g, size_t *held, void (*release)(void *), void *arg)
{
    if (*held == 0)
        return;
    if (release)
        release(arg);
    g->reserved -= *held;
    *held = 0;
    pthread_cond_broadcast(&g->cv);
}

int cuplas_gpu_admit_acquire(cuplas_gpu_admit *g, size_t *held, size_t need,
                           void (*release)(void *), void *arg)
{
    int rc = 0;
    pthread_mutex_lock(&g->mu);
    if (need > g->budget) {
        rc = -1;
    } else if (need > *held) {
        /* the workspace is reallocated to grow anyway: give it back first */
        drop(g, held, release, arg);
        while (g->reserved + need > g->budget) {
            g->waiting++;
            pthread_cond_wait(&g->cv, &g->mu);
            g->waiting--;
        }
        g->reserved += need;
        *held = need;
    }
    pthread_mutex_unlock(&g->mu);
    return rc;
}

void cuplas_gpu_admit_after(cuplas_gpu_admit *g, size_t *held, void (*release)(void *), void *arg)
{
    pthread_mutex_lock(&g->mu);
    if (g->waiting > 0)
        drop(g, held, release, arg);
    pthread_mutex_unlock(&g->mu);
}

void cuplas_gpu_admit_leave(cuplas_gpu_admit *g, size_t *held)
{
    pthread_mutex_lock(&g->mu);
    drop(g, held, NULL, NULL);
    pthread_mutex_unlock(&g->mu);
}
