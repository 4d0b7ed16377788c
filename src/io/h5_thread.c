/*
 * h5_thread.c - the HDF5 thread: a FIFO of tasks posted by the lanes.
 *
 * A task lives on the poster's stack until its done flag is set, under the
 * queue mutex; the poster then returns. The thread never holds the mutex
 * while a task runs, so posting never waits for HDF5.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include "io/h5_thread.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/clock.h"
#include "io/h5_lib.h"

typedef struct task {
    cuplas_h5task_fn fn;
    void *arg;
    double posted, started, ended;
    int done;
    pthread_cond_t cv;        /* the poster waits on it for done */
    struct task *next;
} task;

struct cuplas_h5exec {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;        /* the HDF5 thread waits on it for work */
    task *head, *tail;
    int stop;
};

static void *serve(void *p)
{
    cuplas_h5exec *x = p;

    pthread_setname_np(pthread_self(), "cuplas-h5");   /* for top -H and perf */
    cuplas_h5_quiet();
    pthread_mutex_lock(&x->mu);
    for (;;) {
        while (!x->head && !x->stop)
            pthread_cond_wait(&x->cv, &x->mu);
        task *t = x->head;
        if (!t)
            break;   /* stop, and nothing left */
        x->head = t->next;
        if (!x->head)
            x->tail = NULL;
        pthread_mutex_unlock(&x->mu);
        t->started = cuplas_now_s();
        t->fn(t->arg);
        t->ended = cuplas_now_s();
        pthread_mutex_lock(&x->mu);
        t->done = 1;
        pthread_cond_signal(&t->cv);
    }
    pthread_mutex_unlock(&x->mu);
    return NULL;
}

int cuplas_h5exec_start(cuplas_h5exec **out, cuplas_error *err)
{
    cuplas_h5exec *x = calloc(1, sizeof *x);
    int e;

    *out = NULL;
    if (!x)
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&x->mu, NULL);
    pthread_cond_init(&x->cv, NULL);
    if ((e = pthread_create(&x->thread, NULL, serve, x)) != 0) {
        pthread_cond_destroy(&x->cv);
        pthread_mutex_destroy(&x->mu);
        free(x);
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "cannot start the HDF5 thread: %s",
                                strerror(e));
    }
    *out = x;
    return 0;
}

void cuplas_h5exec_run(cuplas_h5exec *x, cuplas_h5task_fn fn, void *arg, double *wait_s,
                       double *run_s)
{
    task t = {.fn = fn, .arg = arg, .posted = cuplas_now_s()};

    pthread_cond_init(&t.cv, NULL);
    pthread_mutex_lock(&x->mu);
    if (x->tail)
        x->tail->next = &t;
    else
        x->head = &t;
    x->tail = &t;
    pthread_cond_signal(&x->cv);
    while (!t.done)
        pthread_cond_wait(&t.cv, &x->mu);
    pthread_mutex_unlock(&x->mu);
    pthread_cond_destroy(&t.cv);
    if (wait_s)
        *wait_s = t.started - t.posted;
    if (run_s)
        *run_s = t.ended - t.started;
}

void cuplas_h5exec_stop(cuplas_h5exec *x)
{
    if (!x)
        return;
    pthread_mutex_lock(&x->mu);
    x->stop = 1;
    pthread_cond_signal(&x->cv);
    pthread_mutex_unlock(&x->mu);
    pthread_join(x->thread, NULL);
    pthread_cond_destroy(&x->cv);
    pthread_mutex_destroy(&x->mu);
    free(x);
}
