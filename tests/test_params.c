/*
 * test_params.c - the sort presets (core/params.c): their quality floors
 * and their cost order, on the CPU reference (whose index is the GPU's bit
 * for bit, so these floors hold on the GPU too).
 *
 * The floors are the values measured when the presets were chosen
 * (README "Presets", bench/results/2026-11-24-h100-local for 0.4.0), rounded
 * against the preset by about 1 %: a change that makes a preset sort worse
 * fails here, a change of the numbers within a version breaks the
 * determinism contract anyway.
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

#include "core/metrics.h"
#include "core/params.h"
#include "eval/codec.h"
#include "eval/quality.h"
#include "sort/sort.h"
#include "testutil.h"
#include "colors32.h"

#ifndef CUPLAS_SRCDIR
#define CUPLAS_SRCDIR "."
#endif

/* Floors (README "Presets"). 128^2 x 3: tu_colors(seed 1337), sort seed
 * 1337. 32x32: the colors_1024_random.png benchmark, mean over sort seeds
 * 1-5. */
#define DEFAULT_AND_128 12.45   /* 0.4.0: 12.320 (4841 passes); 0.3.0 12.313 */
#define FAST_AND_128 13.85      /* 0.4.0: 13.701 (201 passes); 0.3.0 13.987   */
#define BEST_AND_128 12.30      /* 0.4.0: 12.172 (51070 passes); 0.3.0 12.218 */
#define DEFAULT_DPQ_32 0.937    /* 0.4.0: 0.9414; 0.3.0 0.9397                */
#define BEST_DPQ_32 0.944       /* 0.4.0: 0.9470; 0.3.0 0.9459                */

typedef struct run {
    double and;
    int64_t passes;
} run;

static run sort_with(const char *preset, const double *x, int64_t H, int64_t W, int C,
                     uint64_t seed, int64_t *index)
{
    cuplas_sort_params p;
    cuplas_sort_stats st;
    cuplas_error err = {0};
    assert_int_equal(cuplas_sort_params_preset(preset, &p), 0);
    p.seed = seed;
    assert_int_equal(cuplas_sort_features(x, H, W, C, &p, NULL, index, &st, &err), 0);
    run r = { cuplas_and(x, H, W, C, index, NULL), st.passes };
    return r;
}

/* 128^2 random colours: each preset under its floor, and fast < default
 * < best in work. */
static void test_presets_and_floors_128(void **state)
{
    (void)state;
    const int64_t n = 128, N = n * n;
    double *x = tu_colors(N, 3, 1337);
    int64_t *index = malloc((size_t)N * sizeof *index);
    run d = sort_with("default", x, n, n, 3, 1337, index);
    run f = sort_with("fast", x, n, n, 3, 1337, index);
    run b = sort_with("best", x, n, n, 3, 1337, index);
    print_message("128^2: default AND %.3f (%lld passes), fast %.3f (%lld), best %.3f (%lld)\n",
                  d.and, (long long)d.passes, f.and, (long long)f.passes, b.and,
                  (long long)b.passes);
    assert_true(d.and < DEFAULT_AND_128);
    assert_true(f.and < FAST_AND_128);
    assert_true(b.and < BEST_AND_128);
    assert_true(b.and < d.and && d.and < f.and);
    assert_true(2 * f.passes < d.passes + d.passes / 4);   /* fast: under 0.625x */
    assert_true(b.passes > 4 * d.passes);
    free(index);
    free(x);
}


static double mean_dpq(const char *preset, const double *x)
{
    int64_t index[1024];
    double g[1024 * 3], sum = 0;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        cuplas_error err = {0};
        double d;
        sort_with(preset, x, 32, 32, 3, seed, index);
        for (int i = 0; i < 1024; i++)
            memcpy(g + 3 * i, x + 3 * index[i], 3 * sizeof *g);
        assert_int_equal(cuplas_eval_dpq(g, 32, 32, 3, NULL, CUPLAS_DPQ_P, 0, &d, &err), 0);
        sum += d;
    }
    return sum / 5;
}

/* DPQ16 on the standard 32x32 colour benchmark (mean of seeds 1-5). */
static void test_presets_dpq_floors_32(void **state)
{
    (void)state;
    double *x = tu_load_colors32();
    if (!x)
        return;
    double d = mean_dpq("default", x), b = mean_dpq("best", x);
    print_message("32x32 DPQ16: default %.4f, best %.4f\n", d, b);
    assert_true(d >= DEFAULT_DPQ_32);
    assert_true(b >= BEST_DPQ_32);
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_presets_and_floors_128),
        cmocka_unit_test(test_presets_dpq_floors_32),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
