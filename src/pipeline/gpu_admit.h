/*
 * devgate.h - memory-aware admission of grids onto one GPU.
 *
 * Several lanes (host threads with their own stream and workspace) share a
 * device. Before a sort, a lane reserves the device bytes its grid needs;
 * if the other lanes hold too much, it waits until one hands its workspace
 * back. A grid larger than the whole budget is refused at once (the job
 * fails, or falls back to the CPU), never retried forever.
 */
#ifndef CUPLAS_DEVGATE_H
#define CUPLAS_DEVGATE_H

#include <pthread.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuplas_devgate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t budget;    /* device bytes the lanes may hold together */
    size_t reserved;  /* bytes held now, summed over lanes        */
    int waiting;      /* lanes blocked in acquire                 */
} cuplas_devgate;

void cuplas_devgate_init(cuplas_devgate *g, size_t budget);
void cuplas_devgate_free(cuplas_devgate *g);

/*
 * Make a lane that holds *held bytes hold `need` (>= *held, or keep more).
 * release() is called, with the lock held, to free the lane's workspace
 * before it waits, so two growing lanes can never block each other.
 * Returns 0, or -1 if need exceeds the whole budget.
 */
int cuplas_devgate_acquire(cuplas_devgate *g, size_t *held, size_t need,
                           void (*release)(void *), void *arg);

/* After a sort: hand the workspace back if another lane is waiting. */
void cuplas_devgate_after(cuplas_devgate *g, size_t *held, void (*release)(void *), void *arg);

/* A lane that stops for good returns what it holds. */
void cuplas_devgate_leave(cuplas_devgate *g, size_t *held);

#ifdef __cplusplus
}
#endif
#endif
