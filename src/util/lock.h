/*
 * lock.h - one mutex type for the batch machinery (log, runner).
 *
 * The workers are OpenMP threads, so the lock is an OpenMP lock; a build
 * without OpenMP has one thread and the lock compiles to nothing.
 */
#ifndef CUPLAS_LOCK_H
#define CUPLAS_LOCK_H

#ifdef _OPENMP
#include <omp.h>
typedef omp_lock_t cuplas_lock;
static inline void cuplas_lock_init(cuplas_lock *l) { omp_init_lock(l); }
static inline void cuplas_lock_free(cuplas_lock *l) { omp_destroy_lock(l); }
static inline void cuplas_lock_take(cuplas_lock *l) { omp_set_lock(l); }
static inline void cuplas_lock_give(cuplas_lock *l) { omp_unset_lock(l); }
#else
typedef int cuplas_lock;
static inline void cuplas_lock_init(cuplas_lock *l) { *l = 0; }
static inline void cuplas_lock_free(cuplas_lock *l) { (void)l; }
static inline void cuplas_lock_take(cuplas_lock *l) { (void)l; }
static inline void cuplas_lock_give(cuplas_lock *l) { (void)l; }
#endif

#endif
