/*
 * test_fit.c - core/fit: the automatic shapes for any N, the crop
 * selection (highest value, ties by row; against a brute-force ranking
 * on patterns hard for its quickselect) and the pad fill.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "core/fit.h"
#include "testutil.h"

/* The rule by brute force: every (h, w) with h <= w <= 2h. */
static void brute(int64_t n, int crop, int64_t *bh, int64_t *bw)
{
    int64_t best = -1;
    for (int64_t h = 1; h <= n; h++)
        for (int64_t w = h; w <= 2 * h && w <= n + 1; w++) {
            int64_t c = h * w;
            if (crop ? c > n : c < n)
                continue;
            if (best < 0 || (crop ? c >= best : c <= best)) {
                best = c;
                *bh = h;
                *bw = w;
            }
        }
}

static void test_fit_auto_shape_small(void **state)
{
    (void)state;
    for (int64_t n = 1; n <= 400; n++)
        for (int crop = 0; crop < 2; crop++) {
            int64_t H, W, h = 0, w = 0;
            cuplas_fit_auto_shape(n, crop, &H, &W);
            brute(n, crop, &h, &w);
            assert_true(H <= W && W <= 2 * H);
            assert_true(crop ? H * W <= n : H * W >= n);
            assert_int_equal(H * W, h * w);
            assert_int_equal(H, h);   /* ties: the most square */
        }
}

static void test_fit_auto_shape_cases(void **state)
{
    int64_t H, W;
    (void)state;
    cuplas_fit_auto_shape(1, 0, &H, &W);   /* N = 1 */
    assert_int_equal(H, 1);
    assert_int_equal(W, 1);
    cuplas_fit_auto_shape(2, 0, &H, &W);   /* N = 2 */
    assert_int_equal(H * W, 2);
    cuplas_fit_auto_shape(10007, 0, &H, &W);   /* a prime */
    assert_true(H * W >= 10007 && H * W - 10007 < H);
    cuplas_fit_auto_shape(99, 0, &H, &W);   /* H*W - 1 of 10 x 10 */
    assert_true(H * W >= 99 && H * W <= 100);
    cuplas_fit_auto_shape(113648, 0, &H, &W);   /* the plant scene */
    assert_int_equal(H, 308);
    assert_int_equal(W, 369);
    cuplas_fit_auto_shape(113648, 1, &H, &W);
    assert_true(H * W <= 113648 && W <= 2 * H);
    cuplas_fit_auto_shape(65536, 0, &H, &W);   /* a square stays square */
    assert_int_equal(H, 256);
    assert_int_equal(W, 256);
    cuplas_fit_square_shape(113648, 1, &H, &W);   /* SOG: floor(sqrt N) */
    assert_int_equal(H, 337);
    assert_int_equal(W, 337);
    cuplas_fit_square_shape(113648, 0, &H, &W);
    assert_int_equal(H, 338);
}

static void test_fit_crop_select(void **state)
{
    /* ties at 5: rows 1 and 3 and 6, the lower rows win; NaN is lowest */
    const double v[8] = {1, 5, 9, 5, NAN, 0, 5, 7};
    int64_t keep[4], dropped[4];
    (void)state;
    assert_int_equal(cuplas_fit_crop_select(v, 8, 4, keep, dropped), 0);
    const int64_t want_keep[4] = {1, 2, 3, 7}, want_drop[4] = {0, 4, 5, 6};
    assert_memory_equal(keep, want_keep, sizeof keep);
    assert_memory_equal(dropped, want_drop, sizeof dropped);
}

/* The selection's rule by brute force: rank every row (value high to low,
 * NaN last, lower row first) and take the first m. */
static void crop_reference(const double *v, int64_t n, int64_t m, unsigned char *kept)
{
    int64_t *rank = malloc((size_t)n * sizeof *rank);
    assert_non_null(rank);
    for (int64_t i = 0; i < n; i++)
        rank[i] = i;
    for (int64_t i = 1; i < n; i++)   /* insertion sort: plain, obviously right */
        for (int64_t k = i; k > 0; k--) {
            double a = v[rank[k]], b = v[rank[k - 1]];
            int before = isnan(b) ? !isnan(a) || rank[k] < rank[k - 1]
                                  : !isnan(a) && (a > b || (a == b && rank[k] < rank[k - 1]));
            if (!before)
                break;
            int64_t t = rank[k];
            rank[k] = rank[k - 1];
            rank[k - 1] = t;
        }
    for (int64_t i = 0; i < n; i++)
        kept[i] = 0;
    for (int64_t k = 0; k < m; k++)
        kept[rank[k]] = 1;
    free(rank);
}

/* Data-driven: value patterns that are hard on a quickselect (sorted,
 * reversed, all equal, organ pipe, few distinct values with NaNs, random)
 * at sizes around the partition cut-off, every m from 0 to n for the small
 * ones; keep and dropped must be the reference's sets, ascending. */
static void test_fit_crop_select_cases(void **state)
{
    static const int64_t sizes[] = {1, 2, 3, 16, 17, 18, 33, 100, 257, 1000};
    uint64_t seed = 7;
    (void)state;
    for (int pattern = 0; pattern < 6; pattern++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            int64_t n = sizes[si];
            double *v = malloc((size_t)n * sizeof *v);
            int64_t *keep = malloc((size_t)n * sizeof *keep);
            int64_t *drop = malloc((size_t)n * sizeof *drop);
            unsigned char *want = malloc((size_t)n);
            assert_true(v && keep && drop && want);
            for (int64_t i = 0; i < n; i++) {
                uint64_t r = tu_next_u64(&seed);
                switch (pattern) {
                case 0: v[i] = (double)i; break;
                case 1: v[i] = (double)(n - i); break;
                case 2: v[i] = 0.5; break;
                case 3: v[i] = (double)(i < n / 2 ? i : n - i); break;
                case 4: v[i] = r % 5 == 0 ? NAN : (double)(r % 3); break;
                default: v[i] = (double)(r >> 11) / 9007199254740992.0; break;
                }
            }
            int64_t step = n <= 100 ? 1 : n / 7;
            for (int64_t m = 0; m <= n; m += step) {
                crop_reference(v, n, m, want);
                assert_int_equal(cuplas_fit_crop_select(v, n, m, keep, drop), 0);
                for (int64_t k = 0; k < m; k++) {
                    assert_true(want[keep[k]]);
                    if (k > 0)
                        assert_true(keep[k] > keep[k - 1]);
                }
                for (int64_t k = 0; k < n - m; k++) {
                    assert_false(want[drop[k]]);
                    if (k > 0)
                        assert_true(drop[k] > drop[k - 1]);
                }
            }
            free(v);
            free(keep);
            free(drop);
            free(want);
        }
}

static void test_fit_pad_mean(void **state)
{
    double x[5 * 2] = {1, 10, 3, 20, 5, 30, -1, -1, -1, -1};
    (void)state;
    cuplas_fit_pad_mean(x, 3, 5, 2);
    for (int i = 3; i < 5; i++) {
        assert_true(x[2 * i] == 3.0);
        assert_true(x[2 * i + 1] == 20.0);
    }
    assert_true(x[0] == 1.0 && x[5] == 30.0);   /* real rows untouched */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_auto_shape_small),
        cmocka_unit_test(test_fit_auto_shape_cases),
        cmocka_unit_test(test_fit_crop_select),
        cmocka_unit_test(test_fit_crop_select_cases),
        cmocka_unit_test(test_fit_pad_mean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
