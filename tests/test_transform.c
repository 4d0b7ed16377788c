/*
 * test_transform.c - core/transform: activations, unit length, grouped
 * standardisation and minmax, weights, the ungrouped path being
 * cuplas_features_normalize exactly, and the same bits on any thread
 * count over many row blocks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/transform.h"
#include "util/pool.h"

static void test_transform_activations(void **state)
{
    double x[2 * 6] = {0, 0, 3, 4, 0, 0, log(2.0), 1e9, 0, 0, 0, 0};
    const unsigned char act[6] = {CUPLAS_ACT_EXP, CUPLAS_ACT_SIGMOID, 0, 0, 0, 0};
    const unsigned char unit[6] = {0, 0, 1, 1, 0, 0};
    cuplas_transform t = {act, unit, NULL, CUPLAS_NORM_NONE, NULL, NULL};
    (void)state;
    assert_int_equal(cuplas_transform_apply(x, 2, 6, &t, NULL), 0);
    assert_true(fabs(x[0] - 1.0) < 1e-15);      /* exp(0) */
    assert_true(fabs(x[1] - 0.5) < 1e-15);      /* sigmoid(0) */
    assert_true(fabs(x[2] - 0.6) < 1e-15 && fabs(x[3] - 0.8) < 1e-15);   /* (3,4)/5 */
    assert_true(fabs(x[6] - 2.0) < 1e-12);      /* exp(log 2) */
    assert_true(x[7] == 1.0);                    /* sigmoid of a large logit */
    assert_true(x[8] == 0.0 && x[9] == 0.0);     /* a zero vector stays zero */
}

/* channels.sign after unit: the vector negated when its first largest
 * component by magnitude is negative; other columns untouched. */
static void test_transform_sign(void **state)
{
    double x[5 * 5] = {
        7, -2, 0, 0, 0,          /* -2 largest: (2, 0, 0, 0) after unit and sign */
        7, 0.5, -0.5, 0.5, -0.5, /* a tie: the first (0.5) decides, kept */
        7, -0.5, 0.5, 0.5, 0.5,  /* the first of the tie negative: negated */
        7, 0.1, -0.2, -0.9, 0.3, /* -0.9 largest: negated */
        -7, 0, 0, 0, 0,          /* zero vector: stays zero */
    };
    const unsigned char unit[5] = {0, 1, 1, 1, 1}, sign[5] = {0, 1, 1, 1, 1};
    cuplas_transform t = {NULL, unit, NULL, CUPLAS_NORM_NONE, NULL, sign};
    (void)state;
    assert_int_equal(cuplas_transform_apply(x, 5, 5, &t, NULL), 0);
    assert_true(x[0] == 7 && x[1] == 1 && x[2] == 0);
    assert_true(x[6] == 0.5 && x[7] == -0.5 && x[9] == -0.5);
    assert_true(x[11] == 0.5 && x[12] == -0.5 && x[13] == -0.5 && x[14] == -0.5);
    const double n = sqrt(0.01 + 0.04 + 0.81 + 0.09);
    assert_true(fabs(x[16] + 0.1 / n) < 1e-15 && fabs(x[18] - 0.9 / n) < 1e-15);
    assert_true(x[20] == -7 && x[21] == 0 && x[24] == 0);
    /* sign without unit: the raw vector, its scale kept */
    double y[4] = {1, 3, -4, 0};
    const unsigned char s2[4] = {0, 1, 1, 0};
    cuplas_transform t2 = {NULL, NULL, NULL, CUPLAS_NORM_NONE, NULL, s2};
    assert_int_equal(cuplas_transform_apply(y, 1, 4, &t2, NULL), 0);
    assert_true(y[0] == 1 && y[1] == -3 && y[2] == 4 && y[3] == 0);
}

static void test_transform_groups(void **state)
{
    /* columns 0 and 1 one group: one mean (2.5) and one std for both */
    double x[4 * 3] = {1, 2, 10, 2, 3, 20, 3, 4, 30, 2, 3, 40};
    const int group[3] = {0, 0, -1};
    const double w[3] = {1, 1, 2};
    cuplas_transform t = {NULL, NULL, group, CUPLAS_NORM_STANDARDIZE, w, NULL};
    (void)state;
    assert_int_equal(cuplas_transform_apply(x, 4, 3, &t, NULL), 0);
    double m = (1 + 2 + 2 + 3 + 3 + 4 + 2 + 3) / 8.0, ss = 0;
    const double v[8] = {1, 2, 2, 3, 3, 4, 2, 3};
    for (int i = 0; i < 8; i++)
        ss += (v[i] - m) * (v[i] - m);
    double sd = sqrt(ss / 8);
    assert_true(fabs(x[0] - (1 - m) / sd) < 1e-12);
    assert_true(fabs(x[1] - (2 - m) / sd) < 1e-12);
    /* column 2 alone: mean 25, population std sqrt(125), weight 2 */
    assert_true(fabs(x[2] - 2 * (10 - 25) / sqrt(125.0)) < 1e-12);

    double y[2 * 2] = {0, 10, 5, 20};
    const int g2[2] = {3, 3};
    cuplas_transform mm = {NULL, NULL, g2, CUPLAS_NORM_MINMAX, NULL, NULL};
    assert_int_equal(cuplas_transform_apply(y, 2, 2, &mm, NULL), 0);
    assert_true(y[0] == 0.0 && y[3] == 1.0 && fabs(y[1] - 0.5) < 1e-15);
}

static void test_transform_ungrouped_is_normalize(void **state)
{
    double a[50 * 3], b[50 * 3];
    const double w[3] = {1, 0.5, 2};
    (void)state;
    for (int i = 0; i < 150; i++)
        a[i] = b[i] = sin(i * 1.7) * (i % 7);
    cuplas_transform t = {NULL, NULL, NULL, CUPLAS_NORM_STANDARDIZE, w, NULL};
    assert_int_equal(cuplas_transform_apply(a, 50, 3, &t, NULL), 0);
    assert_int_equal(cuplas_features_normalize(b, 50, 3, CUPLAS_NORM_STANDARDIZE, w, NULL), 0);
    assert_memory_equal(a, b, sizeof a);
}

/* The transform one row at a time, as 0.7.0 computed it: activations and
 * unit length per row, then per-column sums in row order combined over a
 * group's columns in column order, then shift and scale. */
static void reference(double *x, int64_t N, int C, const unsigned char *act,
                      const unsigned char *unit, const int *group, const double *w)
{
    double sum[16] = {0}, ss[16] = {0}, shift[16], scale[16];
    for (int64_t i = 0; i < N; i++) {
        double *row = x + i * C, n = 0;
        for (int c = 0; c < C; c++)
            if (act[c] == CUPLAS_ACT_EXP)
                row[c] = exp(row[c]);
        for (int c = 0; c < C; c++)
            if (unit[c])
                n += row[c] * row[c];
        if (n > 0) {
            n = 1.0 / sqrt(n);
            for (int c = 0; c < C; c++)
                if (unit[c])
                    row[c] *= n;
        }
    }
    for (int64_t i = 0; i < N; i++)
        for (int c = 0; c < C; c++)
            sum[c] += x[i * C + c];
    for (int c = 0; c < C; c++) {
        double g = 0, m = 0;
        for (int d = 0; d < C; d++)
            if (group[d] == group[c]) {
                g += sum[d];
                m += (double)N;
            }
        shift[c] = g / m;
    }
    for (int64_t i = 0; i < N; i++)
        for (int c = 0; c < C; c++) {
            double d = x[i * C + c] - shift[c];
            ss[c] += d * d;
        }
    for (int c = 0; c < C; c++) {
        double g = 0, m = 0;
        for (int d = 0; d < C; d++)
            if (group[d] == group[c]) {
                g += ss[d];
                m += (double)N;
            }
        double sd = sqrt(g / m);
        scale[c] = (sd > 0 ? 1.0 / sd : 0.0) * w[c];
    }
    for (int64_t i = 0; i < N; i++)
        for (int c = 0; c < C; c++)
            x[i * C + c] = (x[i * C + c] - shift[c]) * scale[c];
}

/* The SOG layout (x,y,z one group, colour, scale with exp, a unit
 * quaternion) over 100,003 rows, several row blocks: an OpenMP loop and
 * a 3-thread pool give the reference's bits. */
static void test_transform_threads(void **state)
{
    enum { N = 100003, C = 10 };
    const unsigned char act[C] = {0, 0, 0, 0, 0, 0, CUPLAS_ACT_EXP, CUPLAS_ACT_EXP, 0, 0};
    const unsigned char unit[C] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
    const int group[C] = {0, 0, 0, 1, 1, 1, 2, 2, 3, 3};
    const double w[C] = {8, 8, 8, 1, 1, 1, 1.5, 1.5, 3, 3};
    double *a = malloc(sizeof(double) * N * C), *b = malloc(sizeof(double) * N * C);
    double *r = malloc(sizeof(double) * N * C);
    cuplas_pool *pool = NULL;
    cuplas_error e;
    (void)state;
    assert_true(a && b && r);
    for (int64_t i = 0; i < (int64_t)N * C; i++)
        a[i] = b[i] = r[i] = sin((double)i * 0.37) * (1 + i % 5);
    cuplas_transform t = {act, unit, group, CUPLAS_NORM_STANDARDIZE, w, NULL};
    assert_int_equal(cuplas_transform_apply(a, N, C, &t, NULL), 0);
    assert_int_equal(cuplas_pool_create(3, &pool, &e), 0);
    assert_int_equal(cuplas_transform_apply(b, N, C, &t, pool), 0);
    cuplas_pool_free(pool);
    reference(r, N, C, act, unit, group, w);
    assert_memory_equal(a, r, sizeof(double) * N * C);
    assert_memory_equal(b, r, sizeof(double) * N * C);
    free(a);
    free(b);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transform_activations),
        cmocka_unit_test(test_transform_sign),
        cmocka_unit_test(test_transform_groups),
        cmocka_unit_test(test_transform_ungrouped_is_normalize),
        cmocka_unit_test(test_transform_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
