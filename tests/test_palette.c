/*
 * test_palette.c - the SH palette's k-means (src/sort/palette.c) and its
 * CPU assignment (src/cpu/kmeans_cpu.c): the blocked search with early
 * exits and hints against a plain scan, ties, the reassignment after an
 * update, the update, Lloyd's descent, and SOG's palette size. GPU
 * parity is in test_gpu.c.
 */
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpu/kmeans_cpu.h"
#include "sort/palette.h"
#include "testutil.h"

static float *rand_floats(int64_t n, uint64_t seed, float scale)
{
    float *v = malloc((size_t)n * sizeof *v);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++)
        v[i] = scale * (float)((double)(tu_next_u64(&seed) >> 11) / 9007199254740992.0 - 0.5);
    return v;
}

/* The plain scan the shortcuts must reproduce: every centroid in order,
 * the first least distance. */
static void scan(const float *x, int64_t N, int D, const float *c, int K, int32_t *label,
                 float *dist)
{
    for (int64_t i = 0; i < N; i++) {
        float best = INFINITY;
        int bi = -1;
        for (int j = 0; j < K; j++) {
            float d = cuplas_kmeans_d2(x + i * D, c + (int64_t)j * D, D, 1);
            if (bi < 0 || d < best) {
                best = d;
                bi = j;
            }
        }
        label[i] = bi;
        dist[i] = best;
    }
}

static void test_assign_matches_scan(void **state)
{
    static const int Ds[] = {1, 3, 9, 13, 24, 45};
    static const int Ks[] = {1, 7, 8, 9, 64, 333};
    const int64_t N = 1500;
    uint64_t seed = 11;
    for (size_t a = 0; a < sizeof Ds / sizeof *Ds; a++)
        for (size_t b = 0; b < sizeof Ks / sizeof *Ks; b++) {
            int D = Ds[a], K = Ks[b];
            float *x = rand_floats(N * D, seed++, 2.0f);
            float *c = rand_floats((int64_t)K * D, seed++, 2.0f);
            int32_t *want = malloc(N * sizeof *want), *got = malloc(N * sizeof *got);
            float *wd = malloc(N * sizeof *wd), *gd = malloc(N * sizeof *gd);
            assert_true(want && got && wd && gd);
            /* ties: copies of centroids later in the list, points on centroids */
            for (int j = 5; j < K; j += 5)
                memcpy(c + (int64_t)j * D, c + (int64_t)(j - 5) * D, (size_t)D * sizeof *c);
            for (int64_t i = 0; i < N; i += 7)
                memcpy(x + i * D, c + (i % K) * D, (size_t)D * sizeof *x);
            scan(x, N, D, c, K, want, wd);
            for (int hints = 0; hints < 3; hints++) {
                for (int64_t i = 0; i < N; i++) {   /* none, the answer's copy, anything */
                    int32_t copy = want[i] + 5 < K ? want[i] + 5 : want[i];
                    int32_t any = (int32_t)((i * 7919) % (K + 3)) - 1;
                    got[i] = hints == 0 ? -1 : hints == 1 ? copy : any;
                }
                assert_int_equal(cuplas_kmeans_assign_cpu(x, N, D, c, K, got, gd, NULL), 0);
                assert_memory_equal(got, want, N * sizeof *got);
                assert_memory_equal(gd, wd, N * sizeof *gd);
            }
            free(x), free(c), free(want), free(got), free(wd), free(gd);
        }
}

/* Two equal nearest centroids: the lower index, whatever the hint. */
static void test_assign_tie_lower_index(void **state)
{
    float c[12 * 2] = {0}, x[2] = {1.0f, 1.0f};
    for (int j = 0; j < 12; j++)
        c[2 * j] = c[2 * j + 1] = 10.0f + j;
    c[2 * 3] = c[2 * 3 + 1] = 1.5f;
    c[2 * 10] = c[2 * 10 + 1] = 1.5f;
    for (int32_t hint = -1; hint < 12; hint++) {
        int32_t l = hint;
        float d;
        assert_int_equal(cuplas_kmeans_assign_cpu(x, 1, 2, c, 12, &l, &d, NULL), 0);
        assert_int_equal(l, 3);
        assert_true(d == 0.5f);
    }
}

/* Eight separated clusters in input order: one label each, centroids the
 * clusters' means. */
/* After an update that moved some centroids (some onto others' places,
 * so that old and new distances tie), a reassignment from the last
 * answer equals a full search without hints. */
static void test_reassign_matches_assign(void **state)
{
    const int Ds[] = {1, 13, 45}, Ks[] = {2, 300, 1000};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            const int64_t N = 3000;
            const int D = Ds[a], K = Ks[b];
            float *x = rand_floats(N * D, 60 + a, 1.0f), *c = rand_floats((int64_t)K * D, 70 + b, 1.0f);
            float *c2 = malloc((size_t)K * D * sizeof *c2), *fresh = rand_floats((int64_t)K * D, 80, 1.0f);
            float *d0 = malloc(N * sizeof *d0), *d2 = malloc(N * sizeof *d2);
            int32_t *l0 = malloc(N * sizeof *l0), *l2 = malloc(N * sizeof *l2), *mlist = malloc(K * sizeof *mlist);
            uint8_t *moved = malloc(K);
            int nm = 0;
            assert_true(c2 && d0 && d2 && l0 && l2 && mlist && moved);
            for (int j = 3; j < K; j += 3)   /* repeated centroids: ties from the start */
                memcpy(c + (int64_t)j * D, c + (int64_t)(j - 3) * D, D * sizeof *c);
            for (int64_t i = 0; i < N; i += 7)   /* points on centroids */
                memcpy(x + i * D, c + (i % K) * D, D * sizeof *x);
            for (int64_t i = 0; i < N; i++)
                l0[i] = -1;
            assert_int_equal(cuplas_kmeans_assign_cpu(x, N, D, c, K, l0, d0, NULL), 0);
            memcpy(c2, c, (size_t)K * D * sizeof *c);
            for (int j = 0; j < K; j++) {
                if (j % 5 == 1)       /* somewhere else */
                    memcpy(c2 + (int64_t)j * D, fresh + (int64_t)j * D, D * sizeof *c);
                else if ((j % 5 == 2 && j + 1 < K) || j % 5 == 4)
                    /* onto the place of an unmoved one above it, or below */
                    memcpy(c2 + (int64_t)j * D, c + (int64_t)(j % 5 == 2 ? j + 1 : j - 1) * D,
                           D * sizeof *c);
                moved[j] = memcmp(c2 + (int64_t)j * D, c + (int64_t)j * D, D * sizeof *c) != 0;
                if (moved[j])
                    mlist[nm++] = j;
            }
            for (int64_t i = 0; i < N; i++)
                l2[i] = -1;
            assert_int_equal(cuplas_kmeans_assign_cpu(x, N, D, c2, K, l2, d2, NULL), 0);
            assert_int_equal(cuplas_kmeans_reassign_cpu(x, N, D, c2, K, moved, mlist, nm, l0, d0, NULL), 0);
            assert_memory_equal(l0, l2, N * sizeof *l0);
            assert_memory_equal(d0, d2, N * sizeof *d0);
            free(x), free(c), free(c2), free(fresh), free(d0), free(d2), free(l0), free(l2);
            free(mlist), free(moved);
        }
}

static void test_fit_recovers_clusters(void **state)
{
    const int K = 8, D = 9, per = 100;
    const int64_t N = (int64_t)K * per;
    float *x = rand_floats(N * D, 5, 0.2f), *cen = malloc((size_t)K * D * sizeof *cen);
    int32_t *label = malloc(N * sizeof *label);
    cuplas_palette_stats st;
    cuplas_error err;
    cuplas_error_clear(&err);
    assert_true(cen && label);
    for (int64_t i = 0; i < N; i++)
        for (int k = 0; k < D; k++)
            x[i * D + k] += (float)(10 * (i / per) * ((k + i / per) % 3 == 0 ? 1 : -1));
    assert_int_equal(cuplas_palette_fit(x, N, D, K, 10, -1, cen, label, &st, NULL, &err), 0);
    for (int j = 0; j < K; j++) {
        for (int i = 0; i < per; i++)
            assert_int_equal(label[j * per + i], label[j * per]);
        double m0 = 0;
        for (int i = 0; i < per; i++)
            m0 += x[(int64_t)(j * per + i) * D];
        assert_true(fabs(cen[(int64_t)label[j * per] * D] - m0 / per) < 1e-5);
    }
    assert_int_equal(st.moved, 0);
    assert_true(st.updates >= 1 && st.updates < 10);
    assert_true(st.mse > 0 && st.mse < 9 * 0.2 * 0.2 / 12 * 1.5);
    free(x), free(cen), free(label);
}

/* Lloyd's iterations never raise the mean squared distance, and K = N
 * (each point its own centroid) has none. */
static void test_fit_descends(void **state)
{
    const int64_t N = 2000;
    const int D = 24, K = 100;
    float *x = rand_floats(N * D, 9, 1.0f), *cen = malloc((size_t)N * D * sizeof *cen);
    int32_t *label = malloc(N * sizeof *label);
    cuplas_error err;
    cuplas_error_clear(&err);
    double last = INFINITY;
    assert_true(cen && label);
    for (int it = 0; it <= 6; it++) {
        cuplas_palette_stats st;
        assert_int_equal(cuplas_palette_fit(x, N, D, K, it, -1, cen, label, &st, NULL, &err), 0);
        assert_true(st.mse <= last * (1 + 1e-6));
        if (it >= 2)
            assert_true(st.mse < last);  /* random data: it keeps moving */
        last = st.mse;
    }
    cuplas_palette_stats st;
    assert_int_equal(cuplas_palette_fit(x, N, D, (int)N, 3, -1, cen, label, &st, NULL, &err), 0);
    assert_true(st.mse == 0.0);
    for (int64_t i = 0; i < N; i++)
        assert_int_equal(label[i], i);
    free(x), free(cen), free(label);
}

/* One update against a plain serial Lloyd step: the centroids are the
 * means summed in double in point order, bit for bit, whatever the
 * threads (coordinates of falling scale, so that the fit's variance
 * order is the input's and scan's distances are the fit's). A float sum
 * fails it; another order of the double sum rarely shows in a float. */
static void test_fit_update_reference(void **state)
{
    const int64_t N = 5000;
    const int D = 9, K = 64;
    float *x = rand_floats(N * D, 33, 1.0f), *c0 = malloc((size_t)K * D * sizeof *c0);
    float *want = malloc((size_t)K * D * sizeof *want), *got = malloc((size_t)K * D * sizeof *got);
    float *dist = malloc(N * sizeof *dist);
    double *sum = calloc((size_t)K * D, sizeof *sum);
    int64_t *count = calloc(K, sizeof *count);
    int32_t *l0 = malloc(N * sizeof *l0), *l1 = malloc(N * sizeof *l1), *lg = malloc(N * sizeof *lg);
    cuplas_error err;
    cuplas_error_clear(&err);
    assert_true(c0 && want && got && dist && sum && count && l0 && l1 && lg);
    for (int64_t i = 0; i < N; i++)
        for (int k = 0; k < D; k++)
            x[i * D + k] /= (float)(k + 1);
    for (int j = 0; j < K; j++)
        memcpy(c0 + (int64_t)j * D, x + (int64_t)j * N / K * D, D * sizeof *x);
    scan(x, N, D, c0, K, l0, dist);
    for (int64_t i = 0; i < N; i++) {
        for (int k = 0; k < D; k++)
            sum[(int64_t)l0[i] * D + k] += x[i * D + k];
        count[l0[i]]++;
    }
    for (int j = 0; j < K; j++)
        for (int k = 0; k < D; k++)
            want[(int64_t)j * D + k] = count[j] ? (float)(sum[(int64_t)j * D + k] / count[j])
                                                : c0[(int64_t)j * D + k];
    scan(x, N, D, want, K, l1, dist);
    int saved = omp_get_max_threads();
    for (int t = 1; t <= 3; t += 2) {
        omp_set_num_threads(t);
        assert_int_equal(cuplas_palette_fit(x, N, D, K, 1, -1, got, lg, NULL, NULL, &err), 0);
        assert_memory_equal(got, want, (size_t)K * D * sizeof *got);
        assert_memory_equal(lg, l1, N * sizeof *lg);
    }
    omp_set_num_threads(saved);
    free(x), free(c0), free(want), free(got), free(dist), free(sum), free(count);
    free(l0), free(l1), free(lg);
}

/* One thread or several: the same palette and labels. */
static void test_fit_threads(void **state)
{
    const int64_t N = 3000;
    const int D = 45, K = 200;
    float *x = rand_floats(N * D, 21, 1.0f);
    float *c1 = malloc((size_t)K * D * sizeof *c1), *c2 = malloc((size_t)K * D * sizeof *c2);
    int32_t *l1 = malloc(N * sizeof *l1), *l2 = malloc(N * sizeof *l2);
    cuplas_error err;
    cuplas_error_clear(&err);
    assert_true(c1 && c2 && l1 && l2);
    int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    assert_int_equal(cuplas_palette_fit(x, N, D, K, 4, -1, c1, l1, NULL, NULL, &err), 0);
    omp_set_num_threads(3);
    assert_int_equal(cuplas_palette_fit(x, N, D, K, 4, -1, c2, l2, NULL, NULL, &err), 0);
    omp_set_num_threads(saved);
    assert_memory_equal(c1, c2, (size_t)K * D * sizeof *c1);
    assert_memory_equal(l1, l2, N * sizeof *l1);
    free(x), free(c1), free(c2), free(l1), free(l2);
}

static void test_fit_refuses(void **state)
{
    float x[4] = {0}, c[4];
    int32_t l[4];
    cuplas_error err;
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_palette_fit(x, 4, 1, 5, 1, -1, c, l, NULL, NULL, &err), CUPLAS_ERR_INTERNAL);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_palette_fit(x, 4, 1, 0, 1, -1, c, l, NULL, NULL, &err), CUPLAS_ERR_INTERNAL);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_palette_fit(x, 1, 46, 1, 1, -1, c, l, NULL, NULL, &err),
                     CUPLAS_ERR_INTERNAL);
}

static void test_sog_size(void **state)
{
    static const struct { int64_t n; int k; } t[] = {
        {1, 1},         {2, 2},       {1000, 512},   {1023, 512},      {1024, 1024},
        {2047, 1024},   {2048, 2048}, {114865, 65536}, {65535, 32768}, {10000000, 65536},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        assert_int_equal(cuplas_palette_sog_size(t[i].n), t[i].k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_assign_matches_scan),
        cmocka_unit_test(test_assign_tie_lower_index),
        cmocka_unit_test(test_reassign_matches_assign),
        cmocka_unit_test(test_fit_recovers_clusters),
        cmocka_unit_test(test_fit_descends),
        cmocka_unit_test(test_fit_update_reference),
        cmocka_unit_test(test_fit_threads),
        cmocka_unit_test(test_fit_refuses),
        cmocka_unit_test(test_sog_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
