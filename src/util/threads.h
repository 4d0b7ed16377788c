/*
 * threads.h - the calling thread's OpenMP team size, read and set the same
 * way in builds with and without OpenMP (without it, one thread).
 */
#ifndef CUPLAS_THREADS_H
#define CUPLAS_THREADS_H

#ifdef _OPENMP
#include <omp.h>
#endif

static inline int cuplas_max_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static inline void cuplas_set_threads(int n)
{
#ifdef _OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

#endif
