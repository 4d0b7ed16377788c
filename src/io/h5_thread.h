/*
 * h5_thread.h - one thread makes every HDF5 call of a run.
 *
 * The HDF5 library is not thread-safe, so its calls must be serialised. A
 * lock does that, but then HDF5's internal state (identifier tables, free
 * lists, metadata caches) moves from core to core with every job, and the
 * waiters spin. Here the pipeline's lanes post tasks to one thread that
 * runs them in order, and sleep until theirs is done.
 */
#ifndef CUPLAS_H5EXEC_H
#define CUPLAS_H5EXEC_H

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuplas_h5exec cuplas_h5exec;
typedef void (*cuplas_h5task_fn)(void *arg);

/* Start the HDF5 thread (it silences HDF5's error printing for itself). */
int cuplas_h5exec_start(cuplas_h5exec **out, cuplas_error *err);

/* Run fn(arg) on the HDF5 thread and wait for it; thread-safe. *wait_s
 * gets the time the task queued, *run_s the time it ran (either may be
 * NULL). */
void cuplas_h5exec_run(cuplas_h5exec *x, cuplas_h5task_fn fn, void *arg, double *wait_s,
                       double *run_s);

/* Run what is queued, then join and free the thread. NULL is a no-op. */
void cuplas_h5exec_stop(cuplas_h5exec *x);

#ifdef __cplusplus
}
#endif
#endif
