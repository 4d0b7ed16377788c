/*
 * test_gpu.c - GPU kernels and whole GPU sorts against the CPU reference.
 *
 * Parity is exact: blur outputs, pass outputs and cost sums, and the final
 * index must be byte-identical to the CPU reference's, in both memory
 * layouts the GPU solve uses (Cp <= 4: one [q | t] record per cell; wider:
 * q and the target apart; cuda/assign_gpu.cuh). Each step's GPU twin runs
 * from host arrays (cuplas_*_gpu_host) against its CPU twin. Exits 77
 * (automake SKIP) when the binary has no CUDA or the machine has no usable
 * GPU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cuplas_build.h"
#ifdef HAVE_CUDA
#include "core/metrics.h"
#include "util/pool.h"
#include "core/quantize.h"
#include "cpu/assign_cpu.h"
#include "cpu/blur_cpu.h"
#include "core/polish.h"
#include "sort/sort.h"
#include "cuda/sort_gpu.h"
#include "cpu/kmeans_cpu.h"
#include "cuda/kmeans_gpu.h"
#include "sort/palette.h"
#include "io/sog_write.h"
#include "shared_data.h"
#include "testutil.h"

static cuplas_gpu_ctx *ctx;

/* The GPU solve's layout for Cp channels, for messages. */
static const char *layout(int Cp) { return Cp <= 4 ? "[q|t]" : "q, t apart"; }

static int16_t *random_q(int64_t n, uint64_t seed)
{
    int16_t *q = malloc((size_t)n * sizeof *q);
    for (int64_t i = 0; i < n; i++)
        q[i] = (int16_t)((int)(cuplas_philox(seed, (uint32_t)i, (uint32_t)(i >> 32), 1, 0).v[0] % 32767) - 16383);
    return q;
}

static float *random_f(int64_t n, uint64_t seed)
{
    float *v = malloc((size_t)n * sizeof *v);
    for (int64_t i = 0; i < n; i++)
        v[i] = (float)(cuplas_philox(seed, (uint32_t)i, (uint32_t)(i >> 32), 2, 0).v[0] % 20001) /
                   10000.0f - 1.0f;
    return v;
}

/* The palette's nearest-centroid search: labels and distances equal the
 * CPU's bit for bit (ties included: repeated centroids, points on
 * centroids), and whole k-means fits give the same palette. */
static void test_gpu_kmeans_parity(void **state)
{
    (void)state;
    const int Ds[] = {1, 9, 13, 24, 45}, Ks[] = {1, 5, 127, 129, 1000};
    const int64_t Ns[] = {1, 333, 5000};
    uint64_t seed = 40;
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++)
            for (int n = 0; n < 3; n++) {
                const int D = Ds[a], K = Ks[b];
                const int64_t N = Ns[n];
                float *x = random_f(N * D, seed++), *c = random_f((int64_t)K * D, seed++);
                float *dc = malloc(N * sizeof *dc), *dg = malloc(N * sizeof *dg);
                int32_t *lc = malloc(N * sizeof *lc), *lg = malloc(N * sizeof *lg);
                cuplas_kmeans_gpu *g = NULL;
                cuplas_error err = {0};
                for (int j = 3; j < K; j += 3)
                    memcpy(c + (int64_t)j * D, c + (int64_t)(j - 3) * D, (size_t)D * sizeof *c);
                for (int64_t i = 0; i < N; i += 5)
                    memcpy(x + i * D, c + (i % K) * D, (size_t)D * sizeof *x);
                for (int64_t i = 0; i < N; i++)
                    lc[i] = -1;
                assert_int_equal(cuplas_kmeans_assign_cpu(x, N, D, c, K, lc, dc, NULL), 0);
                if (cuplas_kmeans_gpu_create(&g, 0, x, N, D, K, &err) ||
                    cuplas_kmeans_assign_gpu(g, c, lg, dg, &err))
                    fail_msg("%s", err.msg);
                cuplas_kmeans_gpu_free(g);
                if (memcmp(lc, lg, N * sizeof *lc) || memcmp(dc, dg, N * sizeof *dc))
                    fail_msg("k-means assignment differs: N %lld D %d K %d", (long long)N, D, K);
                free(x), free(c), free(dc), free(dg), free(lc), free(lg);
            }
    const int64_t N = 20000;
    const int D = 45, K = 2048;
    float *x = random_f(N * D, 99);
    for (int64_t i = 0; i < N * D; i++)   /* SH-like: most energy in few coefficients */
        x[i] *= (i % D) < 3 ? 1.0f : 0.1f;
    float *cc = malloc((size_t)K * D * sizeof *cc), *cg = malloc((size_t)K * D * sizeof *cg);
    int32_t *lc = malloc(N * sizeof *lc), *lg = malloc(N * sizeof *lg);
    cuplas_palette_stats sc, sg;
    cuplas_error err = {0};
    assert_int_equal(cuplas_palette_fit(x, N, D, K, 5, -1, cc, lc, &sc, NULL, &err), 0);
    if (cuplas_palette_fit(x, N, D, K, 5, 0, cg, lg, &sg, NULL, &err))
        fail_msg("%s", err.msg);
    assert_memory_equal(cc, cg, (size_t)K * D * sizeof *cc);
    assert_memory_equal(lc, lg, N * sizeof *lc);
    assert_true(sc.mse == sg.mse && sc.updates == sg.updates);
    free(x), free(cc), free(cg), free(lc), free(lg);
}

/* A reassignment after an update (moved centroids, some onto unmoved
 * ones' places: ties both ways) equals the CPU's full search. */
static void test_gpu_kmeans_reassign(void **state)
{
    (void)state;
    const int Ds[] = {13, 45}, Ks[] = {129, 1000};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            const int64_t N = 5000;
            const int D = Ds[a], K = Ks[b];
            float *x = random_f(N * D, 500 + a), *c = random_f((int64_t)K * D, 510 + b);
            float *fresh = random_f((int64_t)K * D, 520), *c2 = malloc((size_t)K * D * sizeof *c2);
            float *dc = malloc(N * sizeof *dc), *dg = malloc(N * sizeof *dg);
            int32_t *lc = malloc(N * sizeof *lc), *lg = malloc(N * sizeof *lg);
            int32_t *mlist = malloc(K * sizeof *mlist);
            uint8_t *moved = malloc(K);
            cuplas_kmeans_gpu *g = NULL;
            cuplas_error err = {0};
            int nm = 0;
            for (int64_t i = 0; i < N; i += 7)
                memcpy(x + i * D, c + (i % K) * D, (size_t)D * sizeof *x);
            memcpy(c2, c, (size_t)K * D * sizeof *c);
            for (int j = 0; j < K; j++) {
                if (j % 5 == 1)
                    memcpy(c2 + (int64_t)j * D, fresh + (int64_t)j * D, (size_t)D * sizeof *c);
                else if ((j % 5 == 2 && j + 1 < K) || j % 5 == 4)
                    memcpy(c2 + (int64_t)j * D, c + (int64_t)(j % 5 == 2 ? j + 1 : j - 1) * D,
                           (size_t)D * sizeof *c);
                moved[j] = memcmp(c2 + (int64_t)j * D, c + (int64_t)j * D, (size_t)D * sizeof *c) != 0;
                if (moved[j])
                    mlist[nm++] = j;
            }
            for (int64_t i = 0; i < N; i++)
                lc[i] = -1;
            assert_int_equal(cuplas_kmeans_assign_cpu(x, N, D, c2, K, lc, dc, NULL), 0);
            if (cuplas_kmeans_gpu_create(&g, 0, x, N, D, K, &err) ||
                cuplas_kmeans_assign_gpu(g, c, lg, dg, &err) ||
                cuplas_kmeans_reassign_gpu(g, c2, moved, mlist, nm, lg, dg, &err))
                fail_msg("%s", err.msg);
            cuplas_kmeans_gpu_free(g);
            if (memcmp(lc, lg, N * sizeof *lc) || memcmp(dc, dg, N * sizeof *dc))
                fail_msg("k-means reassignment differs: D %d K %d", D, K);
            free(x), free(c), free(fresh), free(c2), free(dc), free(dg), free(lc), free(lg);
            free(mlist), free(moved);
        }
}

static void test_gpu_blur_parity(void **state)
{
    (void)state;
    /* the last two take the general path on one axis (lines too long for shared memory) */
    const int64_t shapes[][2] = {{2, 2}, {3, 5}, {1, 257}, {257, 1}, {64, 64}, {100, 37}, {257, 263},
                                 {3, 30000}, {30000, 2}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int64_t H = shapes[s][0], W = shapes[s][1];
        for (int Cp = 4; Cp <= 16; Cp += 12) {
            int64_t n = H * W * Cp;
            int16_t *q = random_q(n, 3 + s), *a = malloc(n * 2), *b = malloc(n * 2);
            const int radii[] = {0, 1, 2, 7, 40, 300};
            for (int ri = 0; ri < 6; ri++)
                for (int border = 0; border < 3; border++)
                    for (int passes = 1; passes <= 2; passes++) {
                        int rx = (int)(radii[ri] < W - 1 ? radii[ri] : W - 1);
                        int ry = (int)(radii[(ri + 2) % 6] < H - 1 ? radii[(ri + 2) % 6] : H - 1);
                        cuplas_error err = {0};
                        assert_int_equal(cuplas_blur_cpu(q, a, H, W, Cp, rx, ry, passes,
                                                         (cuplas_border)border, (cuplas_border)((border + 1) % 3), &err), 0);
                        memset(b, 0x55, n * 2);
                        if (cuplas_blur_gpu_host(ctx, q, b, H, W, Cp, rx, ry, passes, (cuplas_border)border,
                                                 (cuplas_border)((border + 1) % 3), &err))
                            fail_msg("%s", err.msg);
                        if (memcmp(a, b, n * 2))
                            fail_msg("blur differs (%s): %lldx%lld Cp %d rx %d ry %d border %d passes %d",
                                     layout(Cp), (long long)H, (long long)W, Cp, rx, ry, border, passes);
                    }
            free(q); free(a); free(b);
        }
    }
}

static void test_gpu_pass_parity(void **state)
{
    (void)state;
    const int64_t geo[][4] = {{64, 64, 16, 16}, {100, 37, 8, 36}, {257, 263, 256, 262}, {1, 257, 1, 256},
                              {3, 5, 2, 4}, {24, 20, 6, 6}};
    /* Cp = 4: the [q | t] layout; Cp = 8..16: q and t apart, channels
     * known at compile time (groups of 8, 16: the points path); Cp = 20:
     * the run-time channel loop (groups: the cost-matrix path). Groups of
     * 4 (quad.h), 8, 16 and 32 (lap.h; 6 x 6 and 2 x 4 blocks leave a
     * smaller last group; 32: a whole warp and an idle one) */
    for (uint32_t k = 4; k <= 32; k *= 2)
    for (int Cp = 4; Cp <= 20; Cp += 4)
            for (size_t s = 0; s < sizeof geo / sizeof *geo; s++)
                for (uint32_t kind = 0; kind < 2; kind++) {
                    int64_t H = geo[s][0], W = geo[s][1], N = H * W;
                    int16_t *q = random_q(N * Cp, 10 + s), *t = random_q(N * Cp, 20 + s);
                    int16_t *q2 = malloc(N * Cp * 2);
                    int64_t *i1 = malloc(N * 8), *i2 = malloc(N * 8);
                    for (int64_t i = 0; i < N; i++)
                        i1[i] = i2[i] = i;
                    memcpy(q2, q, N * Cp * 2);
                    cuplas_pass_geom g = {H, W, geo[s][2], geo[s][3], H / 3, W / 2 + 1, kind,
                                          (uint32_t)(geo[s][2] * geo[s][3]), k};
                    uint64_t b1, a1, b2, a2;
                    cuplas_error err = {0};
                    cuplas_assign_pass_cpu(q, i1, t, Cp, &g, 5, 2, 3, 4, &b1, &a1);
                    if (cuplas_assign_pass_gpu_host(ctx, q2, i2, t, Cp, &g, 5, 2, 3, 4, &b2, &a2, &err))
                        fail_msg("%s (%s, group %u)", err.msg, layout(Cp), k);
                    assert_int_equal(b1, b2);
                    assert_int_equal(a1, a2);
                    assert_true(a1 < b1);
                    assert_memory_equal(q, q2, N * Cp * 2);
                    assert_memory_equal(i1, i2, N * 8);
                    free(q); free(t); free(q2); free(i1); free(i2);
                }
}

/* Whole sorts: the GPU index must equal the CPU reference's. */
static void check_sort_parity(int64_t H, int64_t W, int C, const cuplas_sort_params *p)
{
    int64_t N = H * W;
    double *x = C == 3 ? tu_colors(N, C, 1000 + H) : tu_normals(N, C, 1000 + W);
    int64_t *ic = malloc(N * 8), *ig = malloc(N * 8), *ig2 = malloc(N * 8);
    cuplas_sort_stats sc, sg;
    cuplas_error err = {0};
    cuplas_sort_target cpu = {.gpu = NULL}, gpu = {.gpu = ctx};
    const char *lay = layout(cuplas_padded_channels(C));
    if (cuplas_sort_features(x, H, W, C, p, &cpu, ic, &sc, &err))
        fail_msg("cpu: %s", err.msg);
    if (cuplas_sort_features(x, H, W, C, p, &gpu, ig, &sg, &err))
        fail_msg("gpu (%s): %s", lay, err.msg);
    if (cuplas_sort_features(x, H, W, C, p, &gpu, ig2, &sg, &err))
        fail_msg("gpu (%s): %s", lay, err.msg);
    print_message("parity %lldx%lld C=%d permuter=%s %s: passes cpu %lld gpu %lld, AND %.4f -> %.4f\n",
                  (long long)H, (long long)W, C, cuplas_permuter_name(p->permuter), lay,
                  (long long)sc.passes, (long long)sg.passes,
                  cuplas_and(x, H, W, C, NULL, NULL), cuplas_and(x, H, W, C, ig, NULL));
    assert_true(tu_is_permutation(ig, N));
    assert_int_equal(sc.passes, sg.passes);
    assert_int_equal(sc.configs, sg.configs);
    assert_memory_equal(ic, ig, N * 8);
    assert_memory_equal(ig, ig2, N * 8); /* run to run */
    assert_int_equal(sg.levels, sc.levels);
    assert_int_equal(sg.polish_moves, sc.polish_moves);
    if (p->polish > 0 && H >= 4 && W >= 4)
        assert_true(sc.polish_moves > 0);
    free(x); free(ic); free(ig); free(ig2);
}

static void test_gpu_sort_parity_shapes(void **state)
{
    (void)state;
    const int64_t shapes[][2] = {{2, 2}, {3, 5}, {1, 257}, {64, 64}, {100, 37}, {257, 263}};
    cuplas_sort_params p;
    cuplas_sort_params_default(&p);
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int permuter = 0; permuter < 2; permuter++) {
            p.permuter = (cuplas_permuter)permuter;
            check_sort_parity(shapes[s][0], shapes[s][1], 3, &p);
        }
}

/* The block-local levels of these sorts run both GPU kernels: blocks
 * that fit a CTA's shared memory the staged one (cuda/assign_local_gpu.cu),
 * larger ones (C = 59: over 952 cells) and blocks shared by a cluster
 * (few blocks for many CTAs) the one that works in global memory. */
static void test_gpu_sort_parity_channels(void **state)
{
    (void)state;
    const int channels[] = {1, 3, 16, 59};
    cuplas_sort_params p;
    cuplas_sort_params_default(&p);
    for (int i = 0; i < 4; i++) {
        check_sort_parity(96, 80, channels[i], &p);
        cuplas_sort_params q = p;   /* the preset's wide row where it applies */
        cuplas_sort_params_for_channels(&q, channels[i]);
        if (q.group_size != p.group_size)
            check_sort_parity(96, 80, channels[i], &q);
    }
}

static void test_gpu_sort_parity_nondefault(void **state)
{
    (void)state;
    cuplas_sort_params p;
    cuplas_sort_params_default(&p);
    p.seed = 987654321;
    p.blur_passes = 3;
    p.border_x = CUPLAS_BORDER_REPLICATE;
    p.border_y = CUPLAS_BORDER_CIRCULAR;
    p.radius_decay = 0.8;
    p.min_block_size = 6;
    p.improvement_break = 1e-3;
    p.min_configs = 2;
    p.max_configs = 5;
    p.max_passes = 3;
    p.shuffle = false;
    p.permuter = CUPLAS_PERMUTER_LCG;
    check_sort_parity(120, 90, 5, &p);
    /* block-local levels from 8 x 8 blocks down; none; and a single
       configuration that must run (min = max = 1) */
    p.local_cells = 64;
    check_sort_parity(120, 90, 5, &p);
    p.local_cells = 0;
    check_sort_parity(120, 90, 5, &p);
    cuplas_sort_params_default(&p);
    p.min_configs = p.max_configs = 1;
    check_sort_parity(100, 37, 16, &p);
    /* every level block-local: clusters of CTAs share the large blocks,
       which draw their offsets without tables */
    cuplas_sort_params_default(&p);
    p.local_cells = 1 << 20;
    check_sort_parity(300, 256, 3, &p);
    check_sort_parity(200, 128, 16, &p);
    /* so many passes that the offset tables (over 64 MiB) are not made */
    cuplas_sort_params_default(&p);
    p.min_configs = p.max_configs = 2;
    p.max_passes = 8300;
    check_sort_parity(32, 32, 3, &p);
    /* block-local levels with their own pass count */
    cuplas_sort_params_default(&p);
    p.max_passes = 6;
    p.local_passes = 11;
    check_sort_parity(257, 263, 3, &p);
}

/* sort.group_size 8 and 16 (a warp tile per group): both layouts, the
 * run-time channel loop, odd shapes, and a slow decay; at full size the
 * default's wide row and 0.2.0's short schedule (the default schedule
 * with 16-cell groups keeps the CPU reference busy for minutes). */
static void test_gpu_sort_parity_groups(void **state)
{
    (void)state;
    cuplas_sort_params p;
    cuplas_sort_params_default(&p);
    for (int k = 8; k <= 16; k *= 2) {
        p.group_size = k;
        check_sort_parity(64, 64, 3, &p);
        check_sort_parity(100, 37, 3, &p);
        check_sort_parity(1, 257, 3, &p);
        check_sort_parity(96, 80, 7, &p);
        check_sort_parity(96, 80, 10, &p);
        check_sort_parity(96, 80, 16, &p);
        check_sort_parity(96, 80, 59, &p);
        check_sort_parity(257, 263, 3, &p);
    }
    cuplas_sort_params_of_preset(CUPLAS_PRESET_BEST, &p);
    p.group_size = 16;
    check_sort_parity(128, 128, 3, &p);
    /* best's small row (32-cell groups on the small levels, decay 0.998),
       both layouts and the run-time channel loop */
    cuplas_sort_params_of_preset(CUPLAS_PRESET_BEST, &p);
    cuplas_sort_params_for_grid(&p, 3, 32 * 32);
    assert_int_equal(p.local_group_size, 32);
    check_sort_parity(32, 32, 3, &p);
    check_sort_parity(40, 36, 16, &p);
    check_sort_parity(24, 30, 21, &p);
    cuplas_sort_params_default(&p);
    p.local_group_size = 32;
    check_sort_parity(100, 37, 3, &p);
    if (getenv("CUPLAS_TEST_QUICK"))
        return;
    cuplas_sort_params_default(&p);
    p.improvement_break = 1e-3;
    p.max_passes = 2;
    for (int k = 8; k <= 16; k *= 2) {
        p.group_size = k;
        check_sort_parity(1000, 1000, 3, &p);
    }
    cuplas_sort_params_default(&p);
    cuplas_sort_params_for_channels(&p, 16);
    assert_int_equal(p.group_size, 16);
    check_sort_parity(1024, 1024, 16, &p);
}

/* sort.polish (core/polish.h) with 2x2 and with 2x3 / 3x2 windows: both
 * layouts ([q | t] at C <= 4, apart above), odd shapes, grids with no
 * window, and enough sweeps to reach the fixed point where the GPU's
 * remaining sweeps stop. */
static void test_gpu_sort_parity_polish(void **state)
{
    (void)state;
    const int64_t shapes[][2] = {{2, 2}, {3, 5}, {1, 257}, {64, 64}, {100, 37}, {257, 263}};
    cuplas_sort_params p;
    for (int cells = 4; cells <= 6; cells += 2) {
        cuplas_sort_params_of_preset(CUPLAS_PRESET_FAST, &p);
        p.polish = CUPLAS_POLISH_MAX;
        p.polish_cells = cells;
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
            check_sort_parity(shapes[s][0], shapes[s][1], 3, &p);
        check_sort_parity(96, 80, 1, &p);
        check_sort_parity(96, 80, 16, &p);
        check_sort_parity(96, 80, 59, &p);
        p.polish = 1;
        check_sort_parity(300, 256, 3, &p);
    }
    cuplas_sort_params_of_preset(CUPLAS_PRESET_BEST, &p);
    check_sort_parity(128, 96, 3, &p);
}

static void test_gpu_sort_parity_large(void **state)
{
    (void)state;
    if (getenv("CUPLAS_TEST_QUICK"))
        skip();
    cuplas_sort_params p;
    cuplas_sort_params_default(&p);
    check_sort_parity(1000, 1000, 3, &p);
    check_sort_parity(1024, 512, 3, &p);
    /* 2048^2 x 16: a lighter loop keeps the CPU reference to a minute */
    p.improvement_break = 1e-3;
    p.max_configs = 4;
    p.max_passes = 4;
    check_sort_parity(2048, 2048, 16, &p);
    /* over 2^22 cells a host callback counts each level for the progress
       line: the index and the counts are the same (2 passes: the CPU
       reference keeps the whole test within the device's 10 minutes) */
    p.max_passes = 2;
    p.max_configs = 2;
    check_sort_parity(2048, 2056, 3, &p);
}

/* Pinned buffers made ahead from the plan (lane_init.c) are the ones the
 * sort uses: no reallocation for the planned grid, the same index. */
static void test_gpu_prepare(void **state)
{
    (void)state;
    enum { H = 256, W = 192, C = 3, N = H * W };
    cuplas_gpu_ctx *lane = NULL;
    cuplas_error err = {0};
    cuplas_sort_params p;
    cuplas_sort_stats st;
    double *x = tu_colors(N, C, 5);
    int64_t *a = malloc(N * 8), *b = malloc(N * 8);
    cuplas_sort_params_default(&p);
    assert_int_equal(cuplas_gpu_ctx_init(&lane, 0, &err), 0);
    assert_int_equal(cuplas_gpu_prepare(lane, (int64_t)N * 4, N, 4), 0);
    int16_t *pinned = cuplas_gpu_staging(lane, (int64_t)N * 4);
    assert_non_null(pinned);
    cuplas_sort_target t1 = {.gpu = lane}, t0 = {.gpu = ctx};
    assert_int_equal(cuplas_sort_features(x, H, W, C, &p, &t1, a, &st, &err), 0);
    assert_ptr_equal(cuplas_gpu_staging(lane, (int64_t)N * 4), pinned);
    assert_int_equal(cuplas_sort_features(x, H, W, C, &p, &t0, b, &st, &err), 0);
    assert_memory_equal(a, b, N * 8);
    cuplas_gpu_ctx_free(lane);
    free(x); free(a); free(b);
}

/* One lane: its own context on device 0, sharing order and pool, sorts x
 * `rounds` times; returns how many sorts failed or differ from want (a
 * failure's message printed, naming the lane). */
static int lane_sorts(cuplas_gpu_order *order, cuplas_pool *pool, const double *x, int64_t H,
                      int64_t W, int C, const cuplas_sort_params *p, const int64_t *want,
                      int rounds, int id)
{
    cuplas_gpu_ctx *lane = NULL;
    cuplas_error e = {0};
    int64_t *ig = malloc((size_t)(H * W) * 8);
    cuplas_sort_stats sg;
    int bad = 0;
    if (cuplas_gpu_ctx_init(&lane, 0, &e) != 0) {
        bad = rounds;
    } else {
        cuplas_gpu_ctx_set_order(lane, order);
        cuplas_sort_target gpu = {.gpu = lane, .pool = pool};
        for (int r = 0; r < rounds; r++) {
            cuplas_error_clear(&e);
            int rc = cuplas_sort_features(x, H, W, C, p, &gpu, ig, &sg, &e);
            if (rc)
                print_message("lane %d (%lldx%lld), round %d: %s\n", id, (long long)H,
                              (long long)W, r, e.msg);
            bad += rc != 0 || memcmp(ig, want, (size_t)(H * W) * 8) != 0;
        }
    }
    cuplas_gpu_ctx_free(lane);
    free(ig);
    return bad;
}

/* The lane's number in an OpenMP team (0 without OpenMP). */
static int lane_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* Lanes as the pipeline runs them: several contexts on one device share a
 * sort order and a host pool, each sorting grids at once; every index
 * equals the CPU reference. The 1024^2 grids run in order, the small ones
 * side by side. */
static void check_lanes(int64_t H, int64_t W, int C, const cuplas_sort_params *p)
{
    enum { LANES = 4, ROUNDS = 2 };
    int64_t N = H * W;
    double *x = tu_colors(N, C, 77 + H);
    int64_t *ic = malloc(N * 8);
    cuplas_sort_stats sc;
    cuplas_error err = {0};
    cuplas_sort_target cpu = {.gpu = NULL};
    cuplas_gpu_order *order = NULL;
    cuplas_pool *pool = NULL;
    int bad = 0;

    if (cuplas_sort_features(x, H, W, C, p, &cpu, ic, &sc, &err))
        fail_msg("cpu: %s", err.msg);
    assert_int_equal(cuplas_gpu_order_create(&order, 0, &err), 0);
    assert_int_equal(cuplas_pool_create(4, &pool, &err), 0);
    #pragma omp parallel num_threads(LANES) reduction(+ : bad)
    bad += lane_sorts(order, pool, x, H, W, C, p, ic, ROUNDS, lane_id());
    print_message("lanes %lldx%lld C=%d: %d of %d sorts differ or failed\n", (long long)H,
                  (long long)W, C, bad, LANES * ROUNDS);
    assert_int_equal(bad, 0);
    cuplas_pool_free(pool);
    cuplas_gpu_order_free(order);
    free(x);
    free(ic);
}

/* Lanes sorting grids of different shapes at once (two scenes of one
 * run): the fused blur's per-kernel shared-memory attribute must not be
 * one lane's size when another lane launches (a 338-row grid failed with
 * cudaErrorInvalidValue beside a 337-row one). 13 channels, as sog.yaml:
 * column lines of 64-90 KB of shared memory, each grid its own size. */
static void test_gpu_lanes_mixed_shapes(void **state)
{
    (void)state;
    enum { LANES = 4, ROUNDS = 3, C = 13, W = 40 };
    static const int64_t Hs[LANES] = {338, 330, 322, 314};
    cuplas_sort_params p;
    cuplas_error err = {0};
    cuplas_sort_target cpu = {.gpu = NULL};
    cuplas_gpu_order *order = NULL;
    cuplas_pool *pool = NULL;
    double *x[LANES];
    int64_t *ic[LANES];
    int bad = 0;

    cuplas_sort_params_default(&p);
    for (int l = 0; l < LANES; l++) {
        cuplas_sort_stats sc;
        x[l] = tu_colors(Hs[l] * W, C, 500 + l);
        ic[l] = malloc((size_t)(Hs[l] * W) * 8);
        if (cuplas_sort_features(x[l], Hs[l], W, C, &p, &cpu, ic[l], &sc, &err))
            fail_msg("cpu: %s", err.msg);
    }
    assert_int_equal(cuplas_gpu_order_create(&order, 0, &err), 0);
    assert_int_equal(cuplas_pool_create(4, &pool, &err), 0);
    #pragma omp parallel num_threads(LANES) reduction(+ : bad)
    {
        const int l = lane_id();
        bad += lane_sorts(order, pool, x[l], Hs[l], W, C, &p, ic[l], ROUNDS, l);
    }
    print_message("lanes of 4 shapes, C=%d: %d of %d sorts differ or failed\n", C, bad,
                  LANES * ROUNDS);
    cuplas_pool_free(pool);
    cuplas_gpu_order_free(order);
    for (int l = 0; l < LANES; l++) {
        free(x[l]);
        free(ic[l]);
    }
    assert_int_equal(bad, 0);
}

static void test_gpu_lanes_ordered(void **state)
{
    (void)state;
    cuplas_sort_params p;
    cuplas_sort_params_default(&p);
    check_lanes(96, 80, 3, &p);
    if (getenv("CUPLAS_TEST_QUICK"))
        return;
    p.max_configs = 2;   /* keeps the 1024^2 CPU reference short */
    p.max_passes = 2;
    check_lanes(1024, 1024, 3, &p);
}
/* A SOG folder with the palette on the GPU (the five attribute images
 * encoded on a helper thread meanwhile) equals the CPU's file for file:
 * 1,990 splats in a 40 x 50 grid (10 trailing cells empty), 3 SH bands. */
static void test_gpu_sog_write_parity(void **state)
{
    enum { H = 40, W = 50, C = 59 };
    static const char *const base[] = {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity",
                                       "scale_0", "scale_1", "scale_2", "rot_0", "rot_1",
                                       "rot_2", "rot_3"};
    static const char *const files[] = {"meta.json", "means_l.webp", "means_u.webp",
                                        "scales.webp", "quats.webp", "sh0.webp",
                                        "shN_centroids.webp", "shN_labels.webp"};
    char names_buf[C][16], dirs[2][64];
    const char *names[C];
    int64_t index[H * W];
    double *grid = malloc((size_t)H * W * C * sizeof *grid);
    float *v = random_f((int64_t)H * W * C, 77);
    cuplas_error err;
    cuplas_error_clear(&err);
    assert_true(grid && v);
    for (int c = 0; c < C; c++) {
        if (c < 14)
            snprintf(names_buf[c], sizeof names_buf[c], "%s", base[c]);
        else
            snprintf(names_buf[c], sizeof names_buf[c], "f_rest_%d", c - 14);
        names[c] = names_buf[c];
    }
    for (int64_t i = 0; i < H * W; i++) {
        index[i] = i < H * W - 10 ? i : -1;
        for (int c = 0; c < C; c++)   /* positions +-10, SH bands +-0.1 */
            grid[i * C + c] = index[i] < 0 ? 0.0 : v[i * C + c] * (c < 3 ? 10.0 : c >= 14 ? 0.1 : 1.0);
    }
    for (int d = 0; d < 2; d++) {
        cuplas_sog_plan p = {0};
        cuplas_sog_opts o = {.sh = 1, .palette = 0, .iterations = 4, .device = d ? 0 : -1};
        cuplas_codec_opts_default(&o.co);
        o.co.webp_method = 0;
        snprintf(dirs[d], sizeof dirs[d], "/tmp/cuplas-test-gpu-sog-XXXXXX");
        assert_non_null(mkdtemp(dirs[d]));
        assert_int_equal(cuplas_sog_check(names, C, index, H * W, 1, &p, &err), 0);
        if (cuplas_sog_write(grid, H, W, C, names, &o, dirs[d], &p, &err) != 0)
            fail_msg("sog write (device %d): %s", o.device, err.msg);
        assert_int_equal(p.files, 8);
        cuplas_sog_plan_free(&p);
    }
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char path[2][128];
        size_t n[2];
        char *buf[2];
        for (int d = 0; d < 2; d++) {
            snprintf(path[d], sizeof path[d], "%s/%s", dirs[d], files[k]);
            assert_non_null(buf[d] = tu_slurp_path(path[d], &n[d]));
        }
        if (n[0] != n[1] || memcmp(buf[0], buf[1], n[0]) != 0)
            fail_msg("%s: the GPU palette's folder differs from the CPU's", files[k]);
        for (int d = 0; d < 2; d++) {
            free(buf[d]);
            unlink(path[d]);
        }
    }
    rmdir(dirs[0]), rmdir(dirs[1]);
    free(grid), free(v);
}

#endif

int main(void)
{
#ifdef HAVE_CUDA
    cuplas_error err = {0};
    setvbuf(stdout, NULL, _IONBF, 0);
    if (cuplas_gpu_count() == 0) {
        printf("no GPU: skipped\n");
        return 77;
    }
    if (cuplas_gpu_ctx_init(&ctx, 0, &err)) {
        printf("GPU 0 unusable (%s): skipped\n", err.msg);
        return 77;
    }
    printf("GPU 0: %s\n", cuplas_gpu_name(ctx));
    /* CUPLAS_TEST_FILTER=test_gpu_prepare (cmocka's * and ? patterns)
       runs a part of the suite: one device call has 10 minutes */
    if (getenv("CUPLAS_TEST_FILTER"))
        cmocka_set_test_filter(getenv("CUPLAS_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_blur_parity),
        cmocka_unit_test(test_gpu_pass_parity),
        cmocka_unit_test(test_gpu_sort_parity_shapes),
        cmocka_unit_test(test_gpu_sort_parity_channels),
        cmocka_unit_test(test_gpu_sort_parity_nondefault),
        cmocka_unit_test(test_gpu_sort_parity_groups),
        cmocka_unit_test(test_gpu_sort_parity_polish),
        cmocka_unit_test(test_gpu_sort_parity_large),
        cmocka_unit_test(test_gpu_lanes_ordered),
        cmocka_unit_test(test_gpu_lanes_mixed_shapes),
        cmocka_unit_test(test_gpu_prepare),
        cmocka_unit_test(test_gpu_kmeans_parity),
        cmocka_unit_test(test_gpu_kmeans_reassign),
        cmocka_unit_test(test_gpu_sog_write_parity),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    cuplas_gpu_ctx_free(ctx);
    return failed;
#else
    printf("built without CUDA: skipped\n");
    return 77;
#endif
}
