/*
 * test_gpu_admit.c - memory admission of grids onto one GPU (src/pipeline/gpu_admit.c):
 * refusal above the budget, waiting for another lane's memory, and no
 * deadlock when two lanes grow at once. Pure pthreads: runs without a GPU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <unistd.h>

#include <cmocka.h>

#include "pipeline/gpu_admit.h"

typedef struct lane {
    cuplas_gpu_admit *g;
    size_t held, need;
    int released, done;
} lane;

static void release(void *arg) { ((lane *)arg)->released++; }

static void *grow(void *arg)
{
    lane *l = arg;
    int rc = cuplas_gpu_admit_acquire(l->g, &l->held, l->need, release, l);
    __atomic_store_n(&l->done, rc == 0 ? 1 : -1, __ATOMIC_SEQ_CST);
    /* a sort would run here; then hand memory back if someone waits */
    usleep(20000);
    cuplas_gpu_admit_after(l->g, &l->held, release, l);
    return NULL;
}

static void test_gpu_admit_refuses_oversized(void **state)
{
    (void)state;
    cuplas_gpu_admit g;
    lane a = {&g, 0, 0, 0, 0};
    cuplas_gpu_admit_init(&g, 100);
    assert_int_equal(cuplas_gpu_admit_acquire(&g, &a.held, 101, release, &a), -1);
    assert_int_equal(a.held, 0);
    assert_int_equal(cuplas_gpu_admit_acquire(&g, &a.held, 100, release, &a), 0);
    assert_int_equal(a.held, 100);
    assert_int_equal(g.reserved, 100);
    /* a smaller grid reuses what the lane holds */
    assert_int_equal(cuplas_gpu_admit_acquire(&g, &a.held, 40, release, &a), 0);
    assert_int_equal(a.held, 100);
    assert_int_equal(a.released, 0);
    cuplas_gpu_admit_leave(&g, &a.held);
    assert_int_equal(g.reserved, 0);
    cuplas_gpu_admit_free(&g);
}

static void test_gpu_admit_waits_for_memory(void **state)
{
    (void)state;
    cuplas_gpu_admit g;
    lane a = {&g, 0, 60, 0, 0}, b = {&g, 0, 60, 0, 0};
    pthread_t tb;
    cuplas_gpu_admit_init(&g, 100);
    assert_int_equal(cuplas_gpu_admit_acquire(&g, &a.held, a.need, release, &a), 0);
    pthread_create(&tb, NULL, grow, &b);
    usleep(50000);
    assert_int_equal(__atomic_load_n(&b.done, __ATOMIC_SEQ_CST), 0); /* still waiting */
    assert_int_equal(g.waiting, 1);
    cuplas_gpu_admit_after(&g, &a.held, release, &a); /* a's sort ends: b waits, so a lets go */
    pthread_join(tb, NULL);
    assert_int_equal(b.done, 1);
    assert_int_equal(a.released, 1);
    assert_int_equal(a.held, 0);
    assert_true(g.reserved <= 100);
    cuplas_gpu_admit_leave(&g, &b.held);
    assert_int_equal(g.reserved, 0);
    cuplas_gpu_admit_free(&g);
}

static void test_gpu_admit_two_growing_lanes(void **state)
{
    (void)state;
    cuplas_gpu_admit g;
    lane a = {&g, 0, 30, 0, 0}, b = {&g, 0, 30, 0, 0};
    pthread_t ta, tb;
    cuplas_gpu_admit_init(&g, 70);
    assert_int_equal(cuplas_gpu_admit_acquire(&g, &a.held, 30, release, &a), 0);
    assert_int_equal(cuplas_gpu_admit_acquire(&g, &b.held, 30, release, &b), 0);
    a.need = b.need = 50;   /* both grow at once: 30 + 50 > 70 for each */
    alarm(10);              /* a deadlock fails the test instead of hanging */
    pthread_create(&ta, NULL, grow, &a);
    pthread_create(&tb, NULL, grow, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    alarm(0);
    assert_int_equal(a.done, 1);
    assert_int_equal(b.done, 1);
    assert_true(g.reserved <= 70);
    cuplas_gpu_admit_leave(&g, &a.held);
    cuplas_gpu_admit_leave(&g, &b.held);
    assert_int_equal(g.reserved, 0);
    cuplas_gpu_admit_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_admit_refuses_oversized),
        cmocka_unit_test(test_gpu_admit_waits_for_memory),
        cmocka_unit_test(test_gpu_admit_two_growing_lanes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
