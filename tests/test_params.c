/*
 * test_params.c - the sort presets (core/params.c): their quality floors
 * and their cost order, on the CPU reference (whose index is the GPU's bit
 * for bit, so these floors hold on the GPU too), and the wide rows
 * (grids of more than 4 sort channels).
 *
 * The floors are the values measured when the presets were chosen
 * (README "Presets", bench/results/2026-11-24-h100-local for 0.4.0,
 * 2026-11-24-h200-exit for 0.7.0's polish), rounded
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
#define DEFAULT_AND_128 12.20   /* 0.7.0: 12.083 (4841 passes, the polish); 0.4.0 12.320 */
#define FAST_AND_128 13.85      /* 0.4.0: 13.701 (201 passes); 0.3.0 13.987   */
#define BEST_AND_128 11.87      /* 0.7.0: 11.752 (13287 passes); 0.6.0 12.040; 0.4.0 12.172 */
#define DEFAULT_DPQ_32 0.940    /* 0.7.0: 0.9440; 0.4.0 0.9414 (0.6.0's small row) */
#define BEST_DPQ_32 0.954       /* 0.7.0: 0.9552 (small row); 0.6.0 0.9485     */
/* 64^2 x 16: tu_normals(seed 1337), sort seed 1337, default's wide row */
#define DEFAULT_WIDE_AND_64_16 3.73 /* 0.7.0: 3.690 (147 passes); 0.5.0 3.786 */

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
    cuplas_sort_params_for_grid(&p, C, H * W);   /* as the pipeline: the small row */
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
    assert_true(b.passes > 2 * d.passes);   /* best's 16-cell passes count one each */
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
        assert_int_equal(cuplas_eval_dpq(g, 32, 32, 3, NULL, CUPLAS_DPQ_P, 0, NULL, &d, &err), 0);
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

/* The small rows: default's grids of under 2^19 cells keep 0.5.x's
 * block-local 4-cell small levels unless the config named one of the
 * three keys; best's grids of under 4096 cells take 32-cell small levels
 * and decay 0.998; larger grids keep the preset's values. */
static void test_presets_small_rows(void **state)
{
    (void)state;
    cuplas_sort_params p, q;
    cuplas_sort_params_default(&p);
    assert_true(p.small_auto);
    assert_int_equal(p.local_group_size, 16);
    q = p;
    cuplas_sort_params_for_grid(&q, 3, (int64_t)1 << 19);
    assert_int_equal(q.local_group_size, 16);
    assert_int_equal(q.local_passes, 1);
    assert_int_equal(q.max_configs, 3);
    assert_false(q.small_auto);
    q = p;
    cuplas_sort_params_for_grid(&q, 3, ((int64_t)1 << 19) - 1);
    assert_int_equal(q.local_group_size, 0);
    assert_int_equal(q.local_passes, 0);
    assert_int_equal(q.max_configs, 4);
    cuplas_sort_params again = q;   /* once: a second call changes nothing */
    again.small_auto = true;
    again.preset = CUPLAS_PRESET_FAST;   /* a preset with no small row */
    cuplas_sort_params_for_grid(&again, 3, 16);
    assert_int_equal(again.local_group_size, 0);
    q = p;
    q.small_auto = false;   /* a config that named one of them */
    cuplas_sort_params_for_grid(&q, 3, 16);
    assert_int_equal(q.local_group_size, 16);
    /* best: under 4096 cells, 32-cell small levels and decay 0.998 */
    assert_int_equal(cuplas_sort_params_preset("best", &q), 0);
    cuplas_sort_params_for_grid(&q, 3, 4096);
    assert_int_equal(q.local_group_size, 16);
    assert_true(q.radius_decay == 0.99);
    assert_int_equal(cuplas_sort_params_preset("best", &q), 0);
    cuplas_sort_params_for_grid(&q, 3, 4095);
    assert_int_equal(q.local_group_size, 32);
    assert_int_equal(q.local_passes, 2);
    assert_int_equal(q.max_configs, 8);
    assert_true(q.radius_decay == 0.998);
    assert_int_equal(cuplas_sort_params_preset("best", &q), 0);
    q.small_auto = false;   /* a config that named sort.radius_decay, say */
    cuplas_sort_params_for_grid(&q, 3, 1024);
    assert_int_equal(q.local_group_size, 16);
    assert_true(q.radius_decay == 0.99);
}

/* The wide rows: applied to grids of more than 4 sort channels only, for
 * the presets that have one (default), only while the config left all
 * three keys to the preset, and once. */
static void test_presets_wide_rows(void **state)
{
    (void)state;
    cuplas_sort_params p, q;
    cuplas_sort_params_default(&p);
    assert_true(p.wide_auto);
    for (int c = 1; c <= CUPLAS_WIDE_CHANNELS; c++) {
        q = p;
        cuplas_sort_params_for_channels(&q, c);
        assert_int_equal(q.group_size, p.group_size);
        assert_int_equal(q.max_passes, p.max_passes);
        assert_true(q.improvement_break == p.improvement_break);
        assert_false(q.wide_auto);
    }
    q = p;
    cuplas_sort_params_for_channels(&q, CUPLAS_WIDE_CHANNELS + 1);
    assert_int_equal(q.group_size, 16);
    assert_int_equal(q.max_passes, 1);
    assert_true(q.improvement_break == 1e-2);
    assert_int_equal(q.min_configs, p.min_configs);   /* the other keys stay */
    assert_true(q.radius_decay == p.radius_decay);
    assert_false(q.wide_auto);
    cuplas_sort_params again = q;   /* resolved: a second call changes nothing */
    again.max_passes = 7;
    cuplas_sort_params_for_channels(&again, 384);
    assert_int_equal(again.max_passes, 7);

    q = p;   /* a config that named one of the keys */
    q.wide_auto = false;
    q.max_passes = 3;
    cuplas_sort_params_for_channels(&q, 16);
    assert_int_equal(q.group_size, 4);
    assert_int_equal(q.max_passes, 3);

    const char *const others[] = { "fast", "best" };   /* no wide row */
    for (int i = 0; i < 2; i++) {
        assert_int_equal(cuplas_sort_params_preset(others[i], &p), 0);
        q = p;
        cuplas_sort_params_for_channels(&q, 16);
        assert_int_equal(q.group_size, p.group_size);
        assert_int_equal(q.max_passes, p.max_passes);
    }
}

/* 64^2 x 16 normals: the default's wide row under its floor and within
 * 0.5 % of the 4-cell row's AND (1024^2 x 16 on an H200: below it, 2.889
 * against 2.894), in under a tenth of the passes. */
static void test_presets_wide_floor(void **state)
{
    (void)state;
    const int64_t n = 64, N = n * n;
    double *x = tu_normals(N, 16, 1337);
    int64_t *index = malloc((size_t)N * sizeof *index);
    cuplas_sort_params narrow, wide;
    cuplas_sort_stats sn, sw;
    cuplas_error err = {0};
    cuplas_sort_params_default(&narrow);
    wide = narrow;
    narrow.wide_auto = false;
    narrow.local_group_size = 0;   /* 0.5.0's 4-cell row, as measured */
    narrow.local_passes = 0;
    narrow.max_configs = 4;
    cuplas_sort_params_for_channels(&narrow, 16);
    cuplas_sort_params_for_channels(&wide, 16);
    assert_int_equal(cuplas_sort_features(x, n, n, 16, &narrow, NULL, index, &sn, &err), 0);
    double and_narrow = cuplas_and(x, n, n, 16, index, NULL);
    assert_int_equal(cuplas_sort_features(x, n, n, 16, &wide, NULL, index, &sw, &err), 0);
    double and_wide = cuplas_and(x, n, n, 16, index, NULL);
    assert_true(tu_is_permutation(index, N));
    print_message("64^2 x 16: default wide AND %.4f (%lld passes), 4-cell %.4f (%lld)\n",
                  and_wide, (long long)sw.passes, and_narrow, (long long)sn.passes);
    assert_true(and_wide < DEFAULT_WIDE_AND_64_16);
    assert_true(and_wide < 1.005 * and_narrow);
    assert_true(10 * sw.passes < sn.passes);
    free(index);
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_presets_and_floors_128),
        cmocka_unit_test(test_presets_dpq_floors_32),
        cmocka_unit_test(test_presets_small_rows),
        cmocka_unit_test(test_presets_wide_rows),
        cmocka_unit_test(test_presets_wide_floor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
