/*
 * pool.h - parallel loops whose items from many callers share one set of
 * host threads.
 *
 * A GPU run has dozens of lanes, each with a grid to inflate, convert,
 * quantise, gather or write. Sized per lane (an OpenMP team each), the
 * threads go where the lanes were when they started a phase: a lane that
 * started among forty others keeps one thread after they left, and cores
 * sit idle (measured: 30-60 % idle on 64 cores, r11). Here every loop's
 * items go to one first-come, first-served queue served by a pool of
 * threads and by the caller itself: no core idles while any lane has an
 * item left, and the oldest grid's work is done first, so lanes leave
 * their host phases in the order they entered them.
 *
 * Without a pool (NULL), cuplas_par_for is an OpenMP loop with the
 * calling thread's settings (the CPU backend, the tools, the tests).
 * Results never depend on which runs an item, or on the thread count.
 */
#ifndef CUPLAS_POOL_H
#define CUPLAS_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuplas_pool cuplas_pool;

/* One item of a loop: 0, or a nonzero code of the caller's choosing. */
typedef int (*cuplas_par_body)(void *ctx, int64_t item);

/* Start `threads` pool threads (at least 1). */
int cuplas_pool_create(int threads, cuplas_pool **out, cuplas_error *err);

/* The pool's own threads (a loop's caller serves it as well). */
int cuplas_pool_threads(const cuplas_pool *pool);

/* Join and free the threads; no loop may be running. NULL is a no-op. */
void cuplas_pool_free(cuplas_pool *pool);

/*
 * body(ctx, i) for every i in [0, n), each exactly once, in any order and
 * on any thread; returns when all are done. Every item runs even after
 * one failed. Returns the lowest failing item (n when none failed) and,
 * if code is not NULL, its code in *code: the same answer for any thread
 * count and schedule. Thread-safe; never call it from inside a body.
 */
int64_t cuplas_par_for(cuplas_pool *pool, int64_t n, cuplas_par_body body, void *ctx,
                       int *code);

/* First touch of a new buffer [p, p + n) in 1 MiB blocks (a zero byte
 * per 4 KiB page): its page faults taken on many threads, ahead of a
 * first writer that is a single thread. */
void cuplas_par_touch(cuplas_pool *pool, void *p, size_t n);

/* Items of `block` consecutive indices that cover [0, n). */
static inline int64_t cuplas_par_blocks(int64_t n, int64_t block)
{
    return n > 0 ? (n + block - 1) / block : 0;
}

/* One past the last index of item b of those. */
static inline int64_t cuplas_par_block_end(int64_t b, int64_t block, int64_t n)
{
    return (b + 1) * block < n ? (b + 1) * block : n;
}

#ifdef __cplusplus
}
#endif
#endif
