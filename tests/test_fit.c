/*
 * test_fit.c - core/fit: the automatic shapes for any N, the crop
 * selection (highest value, ties by row) and the pad fill.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "core/fit.h"

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
        cmocka_unit_test(test_fit_pad_mean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
