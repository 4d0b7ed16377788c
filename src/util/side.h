/*
 * side.h - one function run on a thread of its own beside the caller.
 *
 * The write stage runs two such tasks: the streamed HDF5 result's encode
 * (pipeline/stage_write_stream.c) and a scene's sorted PLY
 * (pipeline/stage_write.c); each GPU two more: its lanes' start-up and
 * their retirement (pipeline/lane_init.c). A new thread starts with OpenMP's default team
 * size, not the caller's, so the task says how many threads its own
 * OpenMP loops get. When no thread can be created, the function runs
 * on the caller's thread at once, with the caller's settings: the work
 * is the same, it only overlaps nothing.
 */
#ifndef CUPLAS_SIDE_H
#define CUPLAS_SIDE_H

#include <pthread.h>

typedef struct cuplas_side {
    void (*fn)(void *arg);
    void *arg;
    int threads;         /* the side thread's OpenMP team size */
    pthread_t thread;
    int started;         /* a thread runs fn, to be joined */
} cuplas_side;

/* Run fn(arg) beside the caller (1), or here and now if no thread can be
 * had (0: fn has returned). */
int cuplas_side_start(cuplas_side *s, void (*fn)(void *), void *arg, int threads);

/* Wait for a started side task; a no-op otherwise, and when repeated. */
void cuplas_side_join(cuplas_side *s);

#endif
