/*
 * test_pool.c - the shared host loops (src/pool.c): every item runs
 * exactly once, with or without a pool; the lowest failing item and its
 * code come back whatever the schedule; many callers share one pool at
 * once; and the numeric loops give bit-identical results on a pool and
 * on OpenMP.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/metrics.h"
#include "util/pool.h"
#include "core/quantize.h"

typedef struct count_ctx {
    int64_t n;
    int *hits;            /* per item, atomically incremented */
    int64_t fail_from;    /* items >= this fail (with code item + 1) */
} count_ctx;

static int count_item(void *p, int64_t i)
{
    count_ctx *c = p;
    __atomic_add_fetch(&c->hits[i], 1, __ATOMIC_RELAXED);
    return i >= c->fail_from ? (int)(i + 1) : 0;
}

static void expect_each_once(cuplas_pool *pool, int64_t n, int64_t fail_from)
{
    int *hits = calloc((size_t)(n ? n : 1), sizeof *hits);
    count_ctx c = {n, hits, fail_from};
    int code = -7;

    assert_non_null(hits);
    int64_t bad = cuplas_par_for(pool, n, count_item, &c, &code);
    for (int64_t i = 0; i < n; i++)
        assert_int_equal(hits[i], 1);
    if (fail_from < n) {
        assert_int_equal(bad, fail_from);
        assert_int_equal(code, (int)(fail_from + 1));
    } else {
        assert_int_equal(bad, n);
        assert_int_equal(code, 0);
    }
    free(hits);
}

static void test_pool_each_item_once(void **state)
{
    (void)state;
    cuplas_pool *pool = NULL;
    cuplas_error err;
    const int64_t sizes[] = {0, 1, 2, 7, 1000};

    assert_int_equal(cuplas_pool_create(4, &pool, &err), 0);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        expect_each_once(NULL, sizes[k], sizes[k]);
        expect_each_once(pool, sizes[k], sizes[k]);
    }
    /* the lowest failure wins, even when later items fail first in time */
    expect_each_once(pool, 1000, 3);
    expect_each_once(NULL, 1000, 3);
    expect_each_once(pool, 1000, 999);
    cuplas_pool_free(pool);
    cuplas_pool_free(NULL);
}

/* Several lanes post loops at once, as the GPU lanes do. */
typedef struct caller {
    cuplas_pool *pool;
    int rounds, ok;
} caller;

static void *post_loops(void *p)
{
    caller *c = p;
    int hits[257];

    c->ok = 1;
    for (int r = 0; r < c->rounds; r++) {
        count_ctx x = {257, hits, 257 - r % 5};
        memset(hits, 0, sizeof hits);
        int code = 0;
        int64_t bad = cuplas_par_for(c->pool, 257, count_item, &x, &code);
        for (int i = 0; i < 257; i++)
            c->ok &= hits[i] == 1;
        c->ok &= r % 5 ? bad == 257 - r % 5 && code == 257 - r % 5 + 1 : bad == 257;
    }
    return NULL;
}

static void test_pool_many_callers(void **state)
{
    (void)state;
    enum { CALLERS = 6 };
    cuplas_pool *pool = NULL;
    cuplas_error err;
    pthread_t t[CALLERS];
    caller c[CALLERS];

    assert_int_equal(cuplas_pool_create(3, &pool, &err), 0);
    for (int k = 0; k < CALLERS; k++) {
        c[k] = (caller){pool, 200, 0};
        assert_int_equal(pthread_create(&t[k], NULL, post_loops, &c[k]), 0);
    }
    for (int k = 0; k < CALLERS; k++) {
        pthread_join(t[k], NULL);
        assert_true(c[k].ok);
    }
    cuplas_pool_free(pool);
}

/* Normalising, AND and quantising: the same bits on a pool as on OpenMP,
 * on a shape that leaves partial blocks everywhere. */
static void test_pool_numeric_loops_match(void **state)
{
    (void)state;
    enum { H = 301, W = 97, C = 5, N = H * W };
    double *a = malloc(N * C * sizeof *a), *b = malloc(N * C * sizeof *b);
    int64_t *index = malloc(N * sizeof *index);
    const double w[C] = {1, 0.5, 2, 1, 3};
    cuplas_qgrid qa, qb;
    cuplas_pool *pool = NULL;
    cuplas_error err;

    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(index);
    srand(11);
    for (int i = 0; i < N * C; i++)
        a[i] = b[i] = (double)rand() / RAND_MAX * 40.0 - 7.0 + (i % C) * 100.0;
    for (int i = 0; i < N; i++)
        index[i] = (int64_t)((i * 7919LL + 13) % N);
    assert_int_equal(cuplas_pool_create(4, &pool, &err), 0);
    for (int norm = CUPLAS_NORM_NONE; norm <= CUPLAS_NORM_MINMAX; norm++) {
        assert_int_equal(cuplas_features_normalize(a, N, C, (cuplas_norm)norm, w, NULL), 0);
        assert_int_equal(cuplas_features_normalize(b, N, C, (cuplas_norm)norm, w, pool), 0);
        assert_memory_equal(a, b, N * C * sizeof *a);
    }
    double and_a = cuplas_and(a, H, W, C, NULL, NULL), and_b = cuplas_and(b, H, W, C, NULL, pool);
    assert_memory_equal(&and_a, &and_b, sizeof and_a);
    and_a = cuplas_and(a, H, W, C, index, NULL);
    and_b = cuplas_and(b, H, W, C, index, pool);
    assert_memory_equal(&and_a, &and_b, sizeof and_a);
    assert_true(and_a > 0);
    assert_int_equal(cuplas_qgrid_build(a, H, W, C, NULL, NULL, &qa, &err), 0);
    assert_int_equal(cuplas_qgrid_build(b, H, W, C, NULL, pool, &qb, &err), 0);
    assert_memory_equal(qa.q, qb.q, (size_t)N * qa.Cp * sizeof *qa.q);
    cuplas_qgrid_free(&qa);
    cuplas_qgrid_free(&qb);
    cuplas_pool_free(pool);
    free(a);
    free(b);
    free(index);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_each_item_once),
        cmocka_unit_test(test_pool_many_callers),
        cmocka_unit_test(test_pool_numeric_loops_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
