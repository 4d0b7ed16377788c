/*
 * clock.h - monotonic seconds, for stage timings and the HDF5 thread's
 * accounting (wall-clock jumps must not show up as negative stages).
 */
#ifndef CUPLAS_CLOCK_H
#define CUPLAS_CLOCK_H

#include <time.h>

static inline double cuplas_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif
