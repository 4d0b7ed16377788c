/*
 * gpu_admit.h - memory-aware admission of grids onto one GPU.
 *
 * Several lanes (host threads with their own stream and workspace) share a
 * device. Before a sort, a lane reserves the device bytes its grid needs;
 * if the other lanes hold too much, it waits until one hands its workspace
 * back. A grid larger than the whole budget is refused at once (the job
 * fails, or falls back to the CPU), never retried forever.
 */
#ifndef CUPLAS_GPU_ADMIT_H
#define CUPLAS_GPU_ADMIT_H

#include <pthread.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuplas_gpu_admit {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t budget;    /* device bytes the lanes may hold together */
    size_t reserved;  /* bytes held now, summed over lanes        */
    int waiting;      /* lanes blocked in acquire                 */
} cuplas_gpu_admit;

void cuplas_gpu_admit_init(cuplas_gpu_admit *g, size_t budget);
void cuplas_gpu_admit_free(cuplas_gpu_admit *g);

/*
 * Make a lane that holds *held bytes hold `need` (>= *held, or keep more).
 * release() is called, with the lock held, to free the lane's workspace
 * before it waits, so two growing lanes can never block each other.
 * Returns 0, or -1 if need exceeds the whole budget.
 */
int cuplas_gpu_admit_acquire(cuplas_gpu_admit *g, size_t *held, size_t need,
                           void (*release)(void *), void *arg);

/* After a sort: hand the workspace back if another lane is waiting. */
void cuplas_gpu_admit_after(cuplas_gpu_admit *g, size_t *held, void (*release)(void *), void *arg);

/* A lane that stops for good returns what it holds. */
void cuplas_gpu_admit_leave(cuplas_gpu_admit *g, size_t *held);

#ifdef __cplusplus
}
#endif
#endif
