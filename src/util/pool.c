/*
 * pool.c - a FIFO of loops, served by pool threads and by their callers.
 *
 * A loop (batch) lives on its caller's stack. It sits in the queue while
 * it has unclaimed items; pool threads always take from the oldest one.
 * The caller claims items of its own loop only, then sleeps until the
 * last one it did not run is counted. Claiming and counting happen under
 * the one mutex: items are whole chunks or row blocks (a millisecond or
 * so), so the lock is taken a few thousand times a second at most.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include "util/pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct batch {
    cuplas_par_body body;
    void *ctx;
    int64_t n, next, done;    /* items: total, claimed, finished (under mu) */
    int64_t bad;              /* lowest failing item so far, n if none     */
    int code;
    pthread_cond_t fin;       /* the caller waits on it for done == n      */
    struct batch *prev, *link;
} batch;

struct cuplas_pool {
    pthread_mutex_t mu;
    pthread_cond_t work;      /* idle pool threads wait on it              */
    batch *head, *tail;       /* loops with unclaimed items, oldest first  */
    int stop, nthreads, started;
    pthread_t *threads;
};

/* Under mu: the next item of b; b leaves the queue once all are claimed. */
static int64_t claim(cuplas_pool *p, batch *b)
{
    int64_t i = b->next++;
    if (b->next == b->n) {
        if (b->prev)
            b->prev->link = b->link;
        else
            p->head = b->link;
        if (b->link)
            b->link->prev = b->prev;
        else
            p->tail = b->prev;
    }
    return i;
}

/* Entered and left under mu, released while the body runs. */
static void run_item(cuplas_pool *p, batch *b, int64_t i)
{
    pthread_mutex_unlock(&p->mu);
    int c = b->body(b->ctx, i);
    pthread_mutex_lock(&p->mu);
    if (c && i < b->bad) {
        b->bad = i;
        b->code = c;
    }
    if (++b->done == b->n)
        pthread_cond_signal(&b->fin);
}

static void *serve(void *arg)
{
    cuplas_pool *p = arg;

    pthread_setname_np(pthread_self(), "cuplas-pool");
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->head && !p->stop)
            pthread_cond_wait(&p->work, &p->mu);
        if (!p->head)
            break;   /* stopping, and nothing queued */
        batch *b = p->head;
        run_item(p, b, claim(p, b));
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int cuplas_pool_create(int threads, cuplas_pool **out, cuplas_error *err)
{
    int rc = 0, e;
    cuplas_pool *p = calloc(1, sizeof *p);

    *out = NULL;
    if (threads < 1)
        threads = 1;
    if (!p || !(p->threads = calloc((size_t)threads, sizeof *p->threads))) {
        free(p);
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    p->nthreads = threads;
    for (; p->started < threads; p->started++)
        if ((e = pthread_create(&p->threads[p->started], NULL, serve, p)) != 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "cannot start host thread %d of %d: %s",
                        p->started + 1, threads, strerror(e));
    *out = p;
    return 0;
fail:
    cuplas_pool_free(p);
    return rc;
}

int cuplas_pool_threads(const cuplas_pool *p) { return p->nthreads; }

void cuplas_pool_free(cuplas_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int k = 0; k < p->started; k++)
        pthread_join(p->threads[k], NULL);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->mu);
    free(p->threads);
    free(p);
}

/* No pool: an OpenMP loop with the calling thread's settings. */
static int64_t omp_for(int64_t n, cuplas_par_body body, void *ctx, int *code)
{
    int64_t bad = n;
    int bad_code = 0;

    #pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (int64_t i = 0; i < n; i++) {
        int c = body(ctx, i);
        if (c) {
            #pragma omp critical(cuplas_par_for)
            if (i < bad) {
                bad = i;
                bad_code = c;
            }
        }
    }
    if (code)
        *code = bad_code;
    return bad;
}

int64_t cuplas_par_for(cuplas_pool *p, int64_t n, cuplas_par_body body, void *ctx, int *code)
{
    if (!p || n <= 1)
        return omp_for(n, body, ctx, code);
    batch b = {.body = body, .ctx = ctx, .n = n, .bad = n};
    pthread_cond_init(&b.fin, NULL);
    pthread_mutex_lock(&p->mu);
    b.prev = p->tail;
    if (p->tail)
        p->tail->link = &b;
    else
        p->head = &b;
    p->tail = &b;
    /* wake as many pool threads as there are items for them */
    for (int64_t k = 0; k < n - 1 && k < p->nthreads; k++)
        pthread_cond_signal(&p->work);
    while (b.next < b.n)
        run_item(p, &b, claim(p, &b));
    while (b.done < b.n)
        pthread_cond_wait(&b.fin, &p->mu);
    pthread_mutex_unlock(&p->mu);
    pthread_cond_destroy(&b.fin);
    if (code)
        *code = b.code;
    return b.bad;
}

typedef struct {
    char *p;
    size_t n;
} touch_task;

#define TOUCH_BLOCK ((size_t)1 << 20)

static int touch_block(void *ctx, int64_t b)
{
    const touch_task *t = ctx;
    size_t end = ((size_t)b + 1) * TOUCH_BLOCK < t->n ? ((size_t)b + 1) * TOUCH_BLOCK : t->n;
    for (size_t i = (size_t)b * TOUCH_BLOCK; i < end; i += 4096)
        t->p[i] = 0;
    return 0;
}

void cuplas_par_touch(cuplas_pool *pool, void *p, size_t n)
{
    touch_task t = {p, n};
    (void)cuplas_par_for(pool, cuplas_par_blocks((int64_t)n, (int64_t)TOUCH_BLOCK), touch_block,
                         &t, NULL);
}
