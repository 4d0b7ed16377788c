/*
 * test_eval_quality.c - AND, VAD and DPQ_p (src/eval/quality.c) on
 * hand-computed grids and against the reference implementations.
 *
 * Reference values: scripts/dpq-reference.py, run once as
 *   /tmp/venv-flas/bin/python scripts/dpq-reference.py /work/shared/data/colors_1024_random.png
 * in a venv with `pip install vc-flas numpy pillow` (vc-flas 0.1.7, numpy
 * 2.4.6): DPQ from vc_flas.metrics.distance_preservation_quality(grid,
 * valid, wrap=False, p), VAD from PLAS's plas/vad.py formula in numpy. The
 * synthetic grids are formula_grid() there and here: ((i*mul + 5) mod 23)/8
 * over the flat (h, w, c) index i, exact in binary.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/metrics.h"
#include "eval/codec.h"
#include "eval/quality.h"
#include "testutil.h"
#include "colors32.h"

static double *formula_grid(int h, int w, int c, int mul)
{
    double *g = malloc((size_t)(h * w * c) * sizeof *g);
    for (int i = 0; i < h * w * c; i++)
        g[i] = (double)((i * mul + 5) % 23) / 8.0;
    return g;
}

static void test_and_vad_hand(void **state)
{
    (void)state;
    /* 2x2, one channel: edges 3, 4 (right), 4, 3 (down) */
    const double g[4] = {0, 3, 4, 0};
    assert_true(cuplas_eval_and(g, 2, 2, 1, NULL) == 3.5);
    assert_true(fabs(cuplas_eval_vad(g, 2, 2, 1, NULL) - 0.25) < 1e-15);
    assert_true(cuplas_eval_and(g, 2, 2, 1, NULL) == cuplas_and(g, 2, 2, 1, NULL, NULL));

    /* 3x3 of (v, 2v), v = cell number, the centre empty: the 4 right edges
     * left are (1, 2) apart, the 4 down edges (3, 6) */
    double h[18];
    uint8_t empty[9] = {0, 0, 0, 0, 1, 0, 0, 0, 0};
    for (int i = 0; i < 9; i++) {
        h[2 * i] = i;
        h[2 * i + 1] = 2 * i;
    }
    h[8] = h[9] = 1e9; /* the empty cell's values must not count */
    assert_true(fabs(cuplas_eval_and(h, 3, 3, 2, empty) - 2 * sqrt(5.0)) < 1e-12);
    /* |dx| pooled: 1,2,1,2,... var 0.25; |dy|: 3,6,... var 2.25 */
    assert_true(fabs(cuplas_eval_vad(h, 3, 3, 2, empty) - 1.25) < 1e-12);

    /* one row: only horizontal pairs */
    const double line[3] = {0, 1, 3};
    assert_true(fabs(cuplas_eval_vad(line, 1, 3, 1, NULL) - 0.25) < 1e-15);
}

/* No pair of touching filled cells: AND and VAD are undefined (NaN), not
 * 0, which would report the worst layout as a perfect one. */
static void test_and_vad_no_pair(void **state)
{
    (void)state;
    /* one cell, on both AND implementations */
    const double one[2] = {4, 2};
    assert_true(isnan(cuplas_eval_and(one, 1, 1, 2, NULL)));
    assert_true(isnan(cuplas_eval_vad(one, 1, 1, 2, NULL)));
    assert_true(isnan(cuplas_and(one, 1, 1, 2, NULL, NULL)));
    int64_t self = 0;
    assert_true(isnan(cuplas_and(one, 1, 1, 2, &self, NULL)));
    /* 3x3 with items only on the corners and the centre: 5 items, no edge
     * between two of them (as `cuplas sort` of 5 splats on a 10x10 grid
     * can leave them; it reported AND 0) */
    double g[9];
    const uint8_t empty[9] = {0, 1, 0, 1, 0, 1, 0, 1, 0};
    for (int i = 0; i < 9; i++)
        g[i] = i * 1.5;
    assert_true(isnan(cuplas_eval_and(g, 3, 3, 1, empty)));
    assert_true(isnan(cuplas_eval_vad(g, 3, 3, 1, empty)));
    /* one pair (cells 0 and 1) is enough for both to be defined */
    const uint8_t one_edge[9] = {0, 0, 1, 1, 1, 1, 0, 1, 0};
    assert_true(cuplas_eval_and(g, 3, 3, 1, one_edge) == 1.5);
    assert_true(cuplas_eval_vad(g, 3, 3, 1, one_edge) == 0);
}

static void test_and_matches_core(void **state)
{
    (void)state;
    double *x = tu_normals(37 * 23, 5, 7);
    double a = cuplas_eval_and(x, 37, 23, 5, NULL), b = cuplas_and(x, 37, 23, 5, NULL, NULL);
    assert_true(fabs(a - b) <= 1e-12 * b);
    free(x);
}

static void test_vad_reference(void **state)
{
    (void)state;
    double *g = formula_grid(3, 3, 2, 7);
    assert_true(fabs(cuplas_eval_vad(g, 3, 3, 2, NULL) - 0.29161241319444442) < 1e-12);
    free(g);
    g = formula_grid(4, 6, 3, 11);
    assert_true(fabs(cuplas_eval_vad(g, 4, 6, 3, NULL) - 0.064419260116598084) < 1e-12);
    free(g);
}

static double dpq(const double *x, int64_t H, int64_t W, int C, const uint8_t *empty, double p)
{
    cuplas_error err = {0};
    double v = -1;
    assert_int_equal(cuplas_eval_dpq(x, H, W, C, empty, p, 0, NULL, &v, &err), 0);
    return v;
}

static void test_dpq_hand(void **state)
{
    (void)state;
    /* a line in feature order: every item's grid neighbours are its
     * nearest features, so 2D = HD and DPQ = 1 */
    const double ok[3] = {0, 1, 2};
    assert_true(fabs(dpq(ok, 1, 3, 1, NULL, 16) - 1) < 1e-15);
    /* 0 2 1: D_1^2D = (2 + 1 + 1)/3 = 4/3 = Dbar: no gain at k = 1 or 2 */
    const double bad[3] = {0, 2, 1};
    assert_true(dpq(bad, 1, 3, 1, NULL, 16) == 0);
    /* not computed: one item, all equal, over max_n */
    const double same[4] = {5, 5, 5, 5};
    assert_true(isnan(dpq(ok, 1, 1, 1, NULL, 16)));
    assert_true(isnan(dpq(same, 2, 2, 1, NULL, 16)));
    cuplas_error err = {0};
    double v = 0;
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_eval_dpq(ok, 1, 3, 1, NULL, 16, 2, NULL, &v, &err), 0);
    assert_true(isnan(v));
    assert_int_equal(cuplas_eval_dpq(ok, 1, 3, 1, NULL, 0.5, 0, NULL, &v, &err), CUPLAS_ERR_USAGE);
}

static void test_dpq_reference_small(void **state)
{
    (void)state;
    double *g = formula_grid(2, 2, 1, 7);
    assert_true(fabs(dpq(g, 2, 2, 1, NULL, 16) - 0) < 1e-6);
    free(g);
    g = formula_grid(3, 3, 2, 7);
    assert_true(fabs(dpq(g, 3, 3, 2, NULL, 16) - 0.38489940467522626) < 1e-6);
    free(g);
    g = formula_grid(4, 6, 3, 11);
    assert_true(fabs(dpq(g, 4, 6, 3, NULL, 16) - 0.067268304967493253) < 1e-6);
    uint8_t empty[24] = {0};
    empty[0 * 6 + 1] = empty[2 * 6 + 3] = empty[3 * 6 + 5] = 1;
    assert_true(fabs(dpq(g, 4, 6, 3, empty, 16) - 0.05632361672429112) < 1e-6);
    free(g);
    /* a sparse line: grid distances too spread to bucket, sorted instead */
    g = formula_grid(1, 200, 2, 13);
    uint8_t sparse[200];
    memset(sparse, 1, sizeof sparse);
    const int at[10] = {0, 3, 17, 40, 41, 90, 120, 150, 151, 199};
    for (int i = 0; i < 10; i++)
        sparse[at[i]] = 0;
    assert_true(fabs(dpq(g, 1, 200, 2, sparse, 16) - 0.34665105098838361) < 1e-6);
    free(g);
}


typedef struct keyed {
    double key;
    int i;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *p = a, *q = b;
    if (p->key != q->key)
        return p->key < q->key ? -1 : 1;
    return p->i - q->i; /* stable, as numpy's kind="stable" */
}

static void test_dpq_colors_1024(void **state)
{
    (void)state;
    double *x = tu_load_colors32();
    if (!x)
        return;
    assert_true(fabs(dpq(x, 32, 32, 3, NULL, 16) - 0.51343167139526547) < 1e-6);
    assert_true(fabs(cuplas_eval_vad(x, 32, 32, 3, NULL) - 2112.9482196054096) < 1e-9);
    /* the same colours ordered by R+G+B, row-major */
    keyed k[1024];
    for (int i = 0; i < 1024; i++)
        k[i] = (keyed){x[3 * i] + x[3 * i + 1] + x[3 * i + 2], i};
    qsort(k, 1024, sizeof *k, cmp_keyed);
    double *s = malloc(1024 * 3 * sizeof *s);
    for (int i = 0; i < 1024; i++)
        memcpy(s + 3 * i, x + 3 * k[i].i, 3 * sizeof *s);
    double v = dpq(s, 32, 32, 3, NULL, 16);
    assert_true(fabs(v - 0.56357152852702563) < 1e-6);
    assert_true(fabs(cuplas_eval_vad(s, 32, 32, 3, NULL) - 2323.9556644689774) < 1e-9);
#ifdef _OPENMP
    /* thread-count independent, bit for bit */
    int nt = omp_get_max_threads();
    omp_set_num_threads(1);
    double v1 = dpq(s, 32, 32, 3, NULL, 16);
    omp_set_num_threads(nt);
    assert_memory_equal(&v, &v1, sizeof v);
#endif
    {
        /* and on a pool (run's GPU lanes), bit for bit */
        cuplas_pool *pool = NULL;
        cuplas_error err = {0};
        double vp = -1;
        assert_int_equal(cuplas_pool_create(3, &pool, &err), 0);
        assert_int_equal(cuplas_eval_dpq(s, 32, 32, 3, NULL, 16, 0, pool, &vp, &err), 0);
        cuplas_pool_free(pool);
        assert_memory_equal(&v, &vp, sizeof v);
    }
    free(s);
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_and_vad_hand),
        cmocka_unit_test(test_and_vad_no_pair),
        cmocka_unit_test(test_and_matches_core),
        cmocka_unit_test(test_vad_reference),
        cmocka_unit_test(test_dpq_hand),
        cmocka_unit_test(test_dpq_reference_small),
        cmocka_unit_test(test_dpq_colors_1024),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
