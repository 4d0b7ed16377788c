/*
 * test_h5exec.c - the HDF5 thread (src/h5exec.c): tasks posted from many
 * threads all run, once each, one at a time, on one thread, and each
 * poster's tasks in the order it posted them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#include <cmocka.h>

#include "io/h5_thread.h"

enum { POSTERS = 8, TASKS = 300 };

typedef struct shared {
    pthread_t runner;      /* touched only by the HDF5 thread */
    int have_runner, running, overlaps, other_thread, total;
    int last_seq[POSTERS];
    int out_of_order;
} shared;

typedef struct job {
    shared *s;
    int poster, seq;
} job;

static void task(void *arg)
{
    job *j = arg;
    shared *s = j->s;
    if (s->running++)
        s->overlaps++;
    if (!s->have_runner) {
        s->runner = pthread_self();
        s->have_runner = 1;
    } else if (!pthread_equal(s->runner, pthread_self())) {
        s->other_thread++;
    }
    if (j->seq != s->last_seq[j->poster] + 1)
        s->out_of_order++;
    s->last_seq[j->poster] = j->seq;
    s->total++;
    s->running--;
}

typedef struct poster {
    cuplas_h5exec *x;
    shared *s;
    int id;
    double waited;
} poster;

static void *post(void *arg)
{
    poster *p = arg;
    for (int k = 1; k <= TASKS; k++) {
        job j = {p->s, p->id, k};
        double w = -1, r = -1;
        cuplas_h5exec_run(p->x, task, &j, &w, &r);
        if (w < 0 || r < 0)
            p->waited = -1;   /* times must be filled in */
    }
    return NULL;
}

static void test_h5exec_serialises(void **state)
{
    (void)state;
    cuplas_h5exec *x = NULL;
    cuplas_error err = {0};
    shared s = {0};
    poster p[POSTERS];
    pthread_t t[POSTERS];

    assert_int_equal(cuplas_h5exec_start(&x, &err), 0);
    for (int i = 0; i < POSTERS; i++) {
        p[i] = (poster){x, &s, i, 0};
        assert_int_equal(pthread_create(&t[i], NULL, post, &p[i]), 0);
    }
    for (int i = 0; i < POSTERS; i++)
        pthread_join(t[i], NULL);
    cuplas_h5exec_stop(x);
    assert_int_equal(s.total, POSTERS * TASKS);
    assert_int_equal(s.overlaps, 0);
    assert_int_equal(s.other_thread, 0);
    assert_int_equal(s.out_of_order, 0);
    for (int i = 0; i < POSTERS; i++) {
        assert_int_equal(s.last_seq[i], TASKS);
        assert_true(p[i].waited == 0);
    }
    assert_false(pthread_equal(s.runner, pthread_self()));
}

static void test_h5exec_stop_idle(void **state)
{
    (void)state;
    cuplas_h5exec *x = NULL;
    cuplas_error err = {0};
    assert_int_equal(cuplas_h5exec_start(&x, &err), 0);
    cuplas_h5exec_stop(x);     /* no task ever: must not hang */
    cuplas_h5exec_stop(NULL);  /* a no-op */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h5exec_serialises),
        cmocka_unit_test(test_h5exec_stop_idle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
