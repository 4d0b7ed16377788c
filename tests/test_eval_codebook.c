/*
 * test_eval_codebook.c - the playcanvas scheme's codebooks (src/eval/
 * codebook.c): the divide-and-conquer split against the plain O(k H^2)
 * programme, and the codebook's labels on values worked out by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "eval/codebook.h"
#include "testutil.h"

/* The least weighted squared error of k runs of x[0..H) (w > 0), the
 * textbook programme. */
static double best_cost(const double *x, const double *w, int H, int k)
{
    double *dp = malloc((size_t)(k + 1) * (size_t)H * sizeof *dp);
    assert_non_null(dp);
    for (int m = 1; m <= k; m++)
        for (int j = 0; j < H; j++) {
            double best = INFINITY;
            for (int s = (m == 1 ? -1 : m - 2); s < j && (m > 1 || s == -1); s++) {
                double sw = 0, sx = 0, sxx = 0;
                for (int i = s + 1; i <= j; i++)
                    sw += w[i], sx += w[i] * x[i], sxx += w[i] * x[i] * x[i];
                double c = (s >= 0 ? dp[(m - 1) * H + s] : 0) + sxx - sx * sx / sw;
                if (c < best)
                    best = c;
            }
            dp[m * H + j] = best;
        }
    double r = dp[k * H + H - 1];
    free(dp);
    return r;
}

/* The error of assigning each point to its nearest mean. */
static double assigned_cost(const double *x, const double *w, int H, const double *mean, int K)
{
    double e = 0;
    for (int i = 0; i < H; i++) {
        double d = INFINITY;
        for (int m = 0; m < K; m++)
            d = fmin(d, (x[i] - mean[m]) * (x[i] - mean[m]));
        e += w[i] * d;
    }
    return e;
}

static void test_split_is_optimal(void **state)
{
    (void)state;
    uint64_t r = 12345;
    for (int trial = 0; trial < 60; trial++) {
        int H = 2 + (int)(tu_next_u64(&r) % 60), k = 1 + (int)(tu_next_u64(&r) % 12);
        double x[64], w[64], mean[64];
        double at = 0;
        for (int i = 0; i < H; i++) {
            at += 0.01 + (double)(tu_next_u64(&r) % 1000) / 100.0;   /* ascending */
            x[i] = at;
            w[i] = 1 + (double)(tu_next_u64(&r) % 50);   /* sqrt-like skew is not needed */
        }
        int K = cuplas_codebook_split(x, w, H, k, mean);
        assert_int_equal(K, k < H ? k : H);
        for (int m = 1; m < K; m++)
            assert_true(mean[m] > mean[m - 1]);
        double want = best_cost(x, w, H, K), got = assigned_cost(x, w, H, mean, K);
        print_message("trial %d: H %d k %d: %.12g vs %.12g\n", trial, H, k, got, want);
        /* relative to the error of one run: the textbook sums cancel too */
        assert_true(got <= fmax(want, 0) + 1e-9 * best_cost(x, w, H, 1));
    }
    /* zero weights are not points: two points left, so two runs */
    const double x[4] = {1, 2, 3, 4}, w[4] = {0, 5, 0, 1};
    double mean[4];
    assert_int_equal(cuplas_codebook_split(x, w, 4, 3, mean), 2);
    assert_true(fabs(mean[0] - 2) < 1e-12 && fabs(mean[1] - 4) < 1e-12);
    assert_int_equal(cuplas_codebook_split(x, (const double[4]){0, 0, 0, 0}, 4, 3, mean), 0);
}

static void test_build_and_labels(void **state)
{
    (void)state;
    double entry[CUPLAS_CODEBOOK_SIZE];
    /* 2 cells x 3 channels, channels 0 and 2 pooled; cell 1 empty */
    const double g[3 * 3] = {-1, 99, 3, 7, 99, 7, 0.5, 99, NAN};
    const int ch[2] = {0, 2};
    const uint8_t empty[3] = {0, 1, 0};
    cuplas_codebook_build(g, 3, 3, ch, 2, empty, entry);
    /* -1, 0.5, 3: three runs, each its own value, 3 repeated to the end */
    assert_true(fabs(entry[0] + 1) < 1e-12 && fabs(entry[1] - 0.5) < 1e-12 &&
                fabs(entry[2] - 3) < 1e-12 && entry[255] == entry[2]);
    assert_int_equal(cuplas_codebook_label(entry, -1), 0);
    const double mid = 0.5 * (entry[0] + entry[1]);   /* about -0.25 */
    assert_int_equal(cuplas_codebook_label(entry, nextafter(mid, -INFINITY)), 0);
    assert_int_equal(cuplas_codebook_label(entry, mid), 1);   /* a tie goes up */
    assert_int_equal(cuplas_codebook_label(entry, 1.7), 1);
    assert_int_equal(cuplas_codebook_label(entry, 2), 2);
    assert_int_equal(cuplas_codebook_label(entry, NAN), 0);
    /* one value */
    cuplas_codebook_build(g, 1, 3, ch, 1, NULL, entry);
    assert_true(entry[0] == -1 && entry[255] == -1);
    /* no finite value */
    const double n2[2] = {NAN, INFINITY};
    cuplas_codebook_build(n2, 2, 1, ch, 1, NULL, entry);
    assert_true(entry[0] == 0 && entry[255] == 0);

    /* many values: 256 distinct entries, ascending; the same codebook for
       the values in any order */
    enum { N = 20000 };
    double *v = malloc(N * sizeof *v), *p = malloc(N * sizeof *p), e2[CUPLAS_CODEBOOK_SIZE];
    assert_non_null(v);
    assert_non_null(p);
    uint64_t r = 7;
    for (int i = 0; i < N; i++)   /* a heavy tail: exp of a uniform */
        v[i] = exp(8.0 * (double)(tu_next_u64(&r) % 100000) / 100000.0);
    for (int i = 0; i < N; i++)
        p[i] = v[(int)(((int64_t)i * 7919) % N)];
    const int c0 = 0;
    cuplas_codebook_build(v, N, 1, &c0, 1, NULL, entry);
    cuplas_codebook_build(p, N, 1, &c0, 1, NULL, e2);
    assert_memory_equal(entry, e2, sizeof entry);
    for (int e = 1; e < CUPLAS_CODEBOOK_SIZE; e++)
        assert_true(entry[e] > entry[e - 1]);
    /* every label decodes to the nearest entry */
    for (int i = 0; i < N; i += 97) {
        int l = cuplas_codebook_label(entry, v[i]);
        for (int e = 0; e < CUPLAS_CODEBOOK_SIZE; e++)
            assert_true(fabs(v[i] - entry[l]) <= fabs(v[i] - entry[e]));
    }
    free(v);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_is_optimal),
        cmocka_unit_test(test_build_and_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
