/*
 * test_sort_cpu.c - the CPU reference sorter and the helpers it shares
 * with the GPU: permutations, the 4-cell solve, the blur, the schedule,
 * and whole sorts (validity, quality, thread-count independence, shapes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/level.h"
#include "core/quantize.h"
#include "core/quad.h"
#include "cpu/assign_cpu.h"
#include "cpu/blur_cpu.h"
#include "core/metrics.h"
#include "core/schedule.h"
#include "sort/sort.h"
#include "testutil.h"
#include "util/threads.h"

static void test_perm_bijection(void **state)
{
    (void)state;
    const uint32_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 12, 16, 63, 64, 100, 257, 1000, 4096, 65537};
    for (uint32_t kind = 0; kind < 2; kind++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            uint32_t n = sizes[s];
            char *seen = calloc(n, 1);
            cuplas_perm p = cuplas_perm_make(kind, n, 42, CUPLAS_TAG_GROUP, 3, 1, (uint32_t)s);
            for (uint32_t i = 0; i < n; i++) {
                uint32_t v = cuplas_perm_apply(&p, i);
                assert_true(v < n);
                assert_int_equal(seen[v], 0);
                seen[v] = 1;
            }
            free(seen);
        }
}

static void test_perm_depends_on_counter(void **state)
{
    (void)state;
    cuplas_perm a = cuplas_perm_make(0, 1000, 1, CUPLAS_TAG_GROUP, 0, 0, 0);
    cuplas_perm b = cuplas_perm_make(0, 1000, 1, CUPLAS_TAG_GROUP, 0, 0, 1);
    int differ = 0;
    for (uint32_t i = 0; i < 1000; i++)
        differ += cuplas_perm_apply(&a, i) != cuplas_perm_apply(&b, i);
    assert_true(differ > 900);
}

/* The unrolled 24-way search against a direct enumeration. */
static void test_quad_best_matches_enumeration(void **state)
{
    (void)state;
    for (uint32_t trial = 0; trial < 2000; trial++) {
        uint64_t D[4][4];
        for (int i = 0; i < 16; i++)
            D[i / 4][i % 4] = cuplas_philox(7, trial, (uint32_t)i, 0, 0).v[0] % (trial % 3 ? 1000 : 4);
        uint64_t cid, cbest;
        uint32_t code = cuplas_quad_best(D, &cid, &cbest);
        uint64_t best = UINT64_MAX;
        uint32_t best_code = 0;
        for (int a = 0; a < 4; a++) for (int b = 0; b < 4; b++)
        for (int c = 0; c < 4; c++) for (int d = 0; d < 4; d++) {
            if (a == b || a == c || a == d || b == c || b == d || c == d)
                continue;
            uint64_t s = D[a][0] + D[b][1] + D[c][2] + D[d][3];
            if (s < best) {   /* lexicographic loop order: first minimum */
                best = s;
                best_code = a | b << 2 | c << 4 | d << 6;
            }
        }
        assert_int_equal(cbest, best);
        assert_int_equal(code, best_code);
        assert_int_equal(cid, D[0][0] + D[1][1] + D[2][2] + D[3][3]);
        /* the 32-bit variant (the GPU's Cp <= 4 path): the same choice,
           also with costs near 2^32 whose sums need 64 bits */
        uint32_t D32[4][4];
        uint64_t c32id, c32best;
        for (int i = 0; i < 16; i++)
            D32[i / 4][i % 4] = (uint32_t)D[i / 4][i % 4];
        assert_int_equal(cuplas_quad_best32(D32, &c32id, &c32best), code);
        assert_int_equal(c32id, cid);
        assert_int_equal(c32best, cbest);
        for (int i = 0; i < 16; i++) {
            D32[i / 4][i % 4] = UINT32_MAX - (uint32_t)D[i / 4][i % 4];
            D[i / 4][i % 4] = D32[i / 4][i % 4];
        }
        assert_int_equal(cuplas_quad_best32(D32, &c32id, &c32best),
                         cuplas_quad_best(D, &cid, &cbest));
        assert_int_equal(c32best, cbest);
        assert_true(cid > UINT32_MAX);
    }
}

static void test_div_round(void **state)
{
    (void)state;
    assert_int_equal(cuplas_div_round(7, 2), 4);    /* 3.5 -> 4 */
    assert_int_equal(cuplas_div_round(-7, 2), -3);  /* -3.5 -> -3 (half up) */
    assert_int_equal(cuplas_div_round(-8, 3), -3);  /* -2.67 -> -3 */
    assert_int_equal(cuplas_div_round(8, 3), 3);
    assert_int_equal(cuplas_div_round(0, 5), 0);
}

/* Direct-sum blur: the definition, to check the sliding-window version. */
static int64_t ref_border(int64_t i, int64_t n, cuplas_border b)
{
    if (i >= 0 && i < n) return i;
    if (b == CUPLAS_BORDER_CIRCULAR) return ((i % n) + n) % n;
    if (b == CUPLAS_BORDER_REFLECT) return i < 0 ? -i : 2 * n - 2 - i;
    return i < 0 ? 0 : n - 1;
}

static void ref_box(const int16_t *in, int16_t *out, int64_t H, int64_t W, int Cp,
                    int r, cuplas_border b, int along_x)
{
    for (int64_t y = 0; y < H; y++)
        for (int64_t x = 0; x < W; x++)
            for (int c = 0; c < Cp; c++) {
                int64_t s = 0;
                for (int k = -r; k <= r; k++) {
                    int64_t yy = along_x ? y : ref_border(y + k, H, b);
                    int64_t xx = along_x ? ref_border(x + k, W, b) : x;
                    s += in[(yy * W + xx) * Cp + c];
                }
                out[(y * W + x) * Cp + c] = (int16_t)cuplas_div_round(s, 2 * r + 1);
            }
}

static void test_blur_matches_direct_sum(void **state)
{
    (void)state;
    const int64_t shapes[][2] = {{1, 9}, {9, 1}, {5, 7}, {16, 16}, {13, 31}};
    for (size_t s = 0; s < 5; s++) {
        int64_t H = shapes[s][0], W = shapes[s][1];
        int Cp = 4;
        int16_t *q = malloc(H * W * Cp * 2), *t = malloc(H * W * Cp * 2);
        int16_t *a = malloc(H * W * Cp * 2), *bb = malloc(H * W * Cp * 2);
        for (int64_t i = 0; i < H * W * Cp; i++)
            q[i] = (int16_t)((int)(cuplas_philox(3, (uint32_t)i, 0, 0, 0).v[0] % 32767) - 16383);
        for (int bx = 0; bx < 3; bx++)
            for (int passes = 1; passes <= 3; passes++) {
                /* up to side-1: the widest window reflect allows */
                int rx = W > 1 ? (int)((W - 1) < 3 + passes * 4 ? W - 1 : 3 + passes * 4) : 0;
                int ry = H > 1 ? (int)((H - 1) < 2 ? H - 1 : 2) : 0;
                cuplas_error err = {0};
                assert_int_equal(cuplas_blur_cpu(q, t, H, W, Cp, rx, ry, passes,
                                                 (cuplas_border)bx, (cuplas_border)(2 - bx), &err), 0);
                memcpy(a, q, H * W * Cp * 2);
                for (int p = 0; p < passes && rx > 0; p++) {
                    ref_box(a, bb, H, W, Cp, rx, (cuplas_border)bx, 1);
                    memcpy(a, bb, H * W * Cp * 2);
                }
                for (int p = 0; p < passes && ry > 0; p++) {
                    ref_box(a, bb, H, W, Cp, ry, (cuplas_border)(2 - bx), 0);
                    memcpy(a, bb, H * W * Cp * 2);
                }
                assert_memory_equal(a, t, H * W * Cp * 2);
            }
        free(q); free(t); free(a); free(bb);
    }
}

static void test_schedule_plas_levels(void **state)
{
    (void)state;
    cuplas_sort_params p;
    cuplas_sort_params_default(&p);
    cuplas_schedule s;
    cuplas_error err = {0};
    /* PLAS's rule gives 122 levels at 1024^2 and 67 at 64^2 (algorithm.md 1.2) */
    assert_int_equal(cuplas_schedule_build(1024, 1024, &p, &s, &err), 0);
    assert_int_equal(s.nlevels, 122);
    assert_int_equal(s.levels[0].radius, 511);
    assert_int_equal(s.levels[s.nlevels - 1].radius, 1);
    for (int i = 0; i < s.nlevels; i++)
        assert_int_equal((s.levels[i].bh * s.levels[i].bw) % 4, 0);
    cuplas_schedule_free(&s);
    assert_int_equal(cuplas_schedule_build(64, 64, &p, &s, &err), 0);
    assert_int_equal(s.nlevels, 67);
    cuplas_schedule_free(&s);
    assert_int_equal(cuplas_schedule_build(1, 257, &p, &s, &err), 0);
    for (int i = 0; i < s.nlevels; i++) {
        assert_int_equal(s.levels[i].bh, 1);
        assert_int_equal(s.levels[i].bw % 4, 0);
        assert_int_equal(s.levels[i].ry, 0);
    }
    cuplas_schedule_free(&s);
}

/* A pass never raises the cost, and reports it exactly. */
static void test_pass_reports_exact_costs(void **state)
{
    (void)state;
    int64_t H = 24, W = 20, N = H * W;
    double *x = tu_colors(N, 3, 5);
    cuplas_qgrid g;
    cuplas_error err = {0};
    assert_int_equal(cuplas_qgrid_build(x, H, W, 3, NULL, NULL, &g, &err), 0);
    int16_t *t = malloc(N * g.Cp * 2);
    int64_t *idx = malloc(N * sizeof *idx);
    for (int64_t i = 0; i < N; i++) idx[i] = i;
    assert_int_equal(cuplas_blur_cpu(g.q, t, H, W, g.Cp, 3, 3, 2, 0, 1, &err), 0);
    cuplas_pass_geom geo = {H, W, 8, 8, 5, 17, 0, 64, 4};
    uint64_t before, after;
    cuplas_assign_pass_cpu(g.q, idx, t, g.Cp, &geo, 9, 0, 0, 0, &before, &after);
    assert_true(after < before);
    /* the covered cells: 3 x 2 blocks of 8 x 8, i.e. 24 rows x 16 columns */
    uint64_t direct = 0;
    for (int64_t by = 0; by < 24; by++)
        for (int64_t bx = 0; bx < 16; bx++) {
            int64_t c = ((by + 5) % H) * W + (bx + 17) % W;
            for (int k = 0; k < g.Cp; k++) {
                int d = g.q[c * g.Cp + k] - t[c * g.Cp + k];
                direct += (uint64_t)(d * d);
            }
        }
    /* the reported cost after the pass is the cost of the new state */
    assert_int_equal(after, direct);
    assert_true(tu_is_permutation(idx, N));
    free(t); free(idx); free(x);
    cuplas_qgrid_free(&g);
}

/* Groups of 8 and 16 (sort.group_size): 6 x 6 blocks hold 36 cells, so
 * each block ends with a leftover group of 4; the reported costs are the
 * exact costs of the covered cells before and after, and a second pass on
 * the same grouping finds nothing to gain (every group is optimal). */
static void test_group_pass_reports_exact_costs(void **state)
{
    (void)state;
    int64_t H = 24, W = 20, N = H * W;
    double *x = tu_colors(N, 3, 5);
    cuplas_error err = {0};
    for (uint32_t k = 8; k <= 16; k *= 2) {
        cuplas_qgrid g;
        assert_int_equal(cuplas_qgrid_build(x, H, W, 3, NULL, NULL, &g, &err), 0);
        int16_t *t = malloc(N * g.Cp * 2);
        int64_t *idx = malloc(N * sizeof *idx);
        for (int64_t i = 0; i < N; i++) idx[i] = i;
        assert_int_equal(cuplas_blur_cpu(g.q, t, H, W, g.Cp, 3, 3, 2, 0, 1, &err), 0);
        cuplas_pass_geom geo = {H, W, 6, 6, 5, 17, 0, 36, k};
        uint64_t direct[2] = {0, 0}, before, after, b2, a2;
        for (int round = 0; round < 2; round++) {
            /* the covered cells: 4 x 3 blocks of 6 x 6 = 24 rows x 18 columns */
            for (int64_t by = 0; by < 24; by++)
                for (int64_t bx = 0; bx < 18; bx++) {
                    int64_t c = ((by + 5) % H) * W + (bx + 17) % W;
                    for (int ch = 0; ch < g.Cp; ch++) {
                        int d = g.q[c * g.Cp + ch] - t[c * g.Cp + ch];
                        direct[round] += (uint64_t)(d * d);
                    }
                }
            if (round == 0)
                cuplas_assign_pass_cpu(g.q, idx, t, g.Cp, &geo, 9, 0, 0, 0, &before, &after);
        }
        assert_int_equal(before, direct[0]);
        assert_int_equal(after, direct[1]);
        assert_true(after < before);
        cuplas_assign_pass_cpu(g.q, idx, t, g.Cp, &geo, 9, 0, 0, 0, &b2, &a2);
        assert_int_equal(b2, after);
        assert_int_equal(a2, after);
        assert_true(tu_is_permutation(idx, N));
        /* the index and the values moved together */
        cuplas_qgrid g0;
        assert_int_equal(cuplas_qgrid_build(x, H, W, 3, NULL, NULL, &g0, &err), 0);
        for (int64_t i = 0; i < N; i++)
            assert_memory_equal(g.q + i * g.Cp, g0.q + idx[i] * g.Cp, g.Cp * 2);
        cuplas_qgrid_free(&g0);
        free(t); free(idx);
        cuplas_qgrid_free(&g);
    }
    free(x);
}

/* The level control (core/level.h) against the loop it replaced, written
 * out: the same (configuration, pass) for every pass, and the same counts,
 * for every small limit and random patterns of improving passes. */
static void test_level_step_matches_loop(void **state)
{
    (void)state;
    for (uint32_t minc = 1; minc <= 3; minc++)
        for (uint32_t maxc = 1; maxc <= 4; maxc++)
            for (uint32_t maxp = 1; maxp <= 3; maxp++)
                for (uint32_t trial = 0; trial < 64; trial++) {
                    uint64_t bits = cuplas_u128_lo64(cuplas_philox(11, minc, maxc, maxp, trial));
                    uint32_t want[64][2], n = 0, k = 0, cfg = 0;
                    for (;;) {
                        int improved = 0;
                        for (uint32_t pass = 0;;) {
                            want[n][0] = cfg, want[n][1] = pass, n++;
                            if (!((bits >> k++) & 1))
                                break;
                            improved = 1;
                            if (++pass == maxp)
                                break;
                        }
                        cfg++;
                        if (cfg >= maxc || (!improved && cfg >= minc))
                            break;
                    }
                    cuplas_level_params a = {0};
                    a.improvement_break = 1e-5;
                    a.min_configs = minc, a.max_configs = maxc, a.max_passes = maxp;
                    cuplas_level_state st = cuplas_level_start();
                    uint32_t got = 0;
                    for (cuplas_level_next next = CUPLAS_LEVEL_NEXT_CONFIG;;) {
                        assert_true(got < n);
                        assert_int_equal(st.cfg, want[got][0]);
                        assert_int_equal(st.pass, want[got][1]);
                        if (next == CUPLAS_LEVEL_NEXT_CONFIG)
                            assert_int_equal(st.pass, 0);
                        /* an improving pass halves the cost, the others keep it */
                        uint64_t after = (bits >> got) & 1 ? 500 : 1000;
                        got++;
                        next = cuplas_level_step(&st, 1000, after, &a);
                        if (next == CUPLAS_LEVEL_DONE)
                            break;
                    }
                    assert_int_equal(got, n);
                    assert_int_equal(st.passes, n);
                    assert_int_equal(st.cfg, cfg);
                }
}

static void sort_once(const double *x, int64_t H, int64_t W, int C,
                      const cuplas_sort_params *p, int64_t *index)
{
    cuplas_sort_stats st;
    cuplas_error err = {0};
    int rc = cuplas_sort_features(x, H, W, C, p, NULL, index, &st, &err);
    if (rc)
        fail_msg("sort failed: %s", err.msg);
    assert_true(tu_is_permutation(index, H * W));
}

/* Sort side^2 seed-1337 colours with the defaults; AND must drop by `factor`. */
static void expect_colors_reduction(int64_t side, double factor)
{
    int64_t N = side * side;
    double *x = tu_colors(N, 3, 1337);
    int64_t *index = malloc(N * sizeof *index);
    cuplas_sort_params p;
    cuplas_sort_params_default(&p);
    sort_once(x, side, side, 3, &p, index);
    double before = cuplas_and(x, side, side, 3, NULL, NULL), after = cuplas_and(x, side, side, 3, index, NULL);
    print_message("%lldx%lld colours: AND %.3f -> %.3f\n", (long long)side, (long long)side,
                  before, after);
    assert_true(after * factor <= before);
    free(index);
    free(x);
}

static void test_sort_quality_colors_64(void **state)
{
    (void)state;
    /* PLAS itself reaches 19.72 here (8.6x, shared/reference/peers.md) */
    expect_colors_reduction(64, 8.0);
}

static void test_sort_quality_colors_128(void **state)
{
    (void)state;
    expect_colors_reduction(128, 10.0);
}

/* Block-local levels (core/level.h) differ from grid-wide ones only in
 * when a configuration stops: with improvement_break 0 no pass stops one
 * early and a fixed number of configurations runs, so sorting with every
 * level block-local, none, or the default mix gives one index. */
static void test_sort_local_levels_match_global(void **state)
{
    (void)state;
    const int64_t H = 96, W = 80;
    double *x = tu_colors(H * W, 3, 77);
    int64_t *want = malloc(H * W * sizeof *want), *got = malloc(H * W * sizeof *got);
    cuplas_sort_params p;
    cuplas_sort_params_default(&p);
    p.improvement_break = 0;
    p.min_configs = p.max_configs = 3;
    p.max_passes = 5;
    p.local_cells = 0;
    p.local_passes = 0;
    p.local_group_size = 0;   /* 4-cell groups on every level */
    sort_once(x, H, W, 3, &p, want);
    const int cells[] = {16, 4096, 1 << 20};
    for (int i = 0; i < 3; i++) {
        p.local_cells = cells[i];
        sort_once(x, H, W, 3, &p, got);
        assert_memory_equal(want, got, H * W * sizeof *got);
    }
    /* sort.local_passes: every level of a 64 x 64 grid is block-local
       (blocks of at most 4096 cells), so each configuration runs exactly
       local_passes passes, whatever max_passes says */
    {
        double *y = tu_colors(64 * 64, 3, 5);
        int64_t *iy = malloc(64 * 64 * sizeof *iy);
        cuplas_sort_stats st;
        cuplas_error err = {0};
        cuplas_sort_params_default(&p);
        p.max_passes = 4;
        p.local_passes = 7;
        p.local_group_size = 0;   /* block-local 4-cell levels */
        assert_int_equal(cuplas_sort_features(y, 64, 64, 3, &p, NULL, iy, &st, &err), 0);
        assert_true(st.configs > 0);
        assert_int_equal(st.passes, 7 * st.configs);
        free(y);
        free(iy);
    }
    /* the default mix (where the grid-wide test may stop a configuration
       early) sorts as well */
    cuplas_sort_params_default(&p);
    sort_once(x, H, W, 3, &p, got);
    assert_true(cuplas_and(x, H, W, 3, got, NULL) < 0.2 * cuplas_and(x, H, W, 3, NULL, NULL));
    free(x);
    free(want);
    free(got);
}

static void test_sort_thread_count_invariant(void **state)
{
    (void)state;
    int64_t H = 48, W = 40, N = H * W;
    double *x = tu_normals(N, 5, 77);
    int64_t *ref = malloc(N * sizeof *ref), *got = malloc(N * sizeof *got);
    cuplas_sort_params p;
    cuplas_sort_params_default(&p);
    for (int permuter = 0; permuter < 2; permuter++) {
        p.permuter = (cuplas_permuter)permuter;
        cuplas_set_threads(1);
        sort_once(x, H, W, 5, &p, ref);
        for (int t = 2; t <= 4; t *= 2) {
            cuplas_set_threads(t);
            sort_once(x, H, W, 5, &p, got);
            assert_memory_equal(ref, got, N * sizeof *ref);
        }
    }
    cuplas_set_threads(2);
    free(ref); free(got); free(x);
}

static void test_sort_shapes_and_permuters(void **state)
{
    (void)state;
    const int64_t shapes[][2] = {{1, 1}, {1, 2}, {3, 1}, {2, 2}, {3, 5}, {1, 257},
                                 {257, 1}, {100, 37}, {37, 100}, {31, 29}};
    cuplas_sort_params p;
    cuplas_sort_params_default(&p);
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int permuter = 0; permuter < 2; permuter++) {
            int64_t H = shapes[s][0], W = shapes[s][1], N = H * W;
            double *x = tu_colors(N, 3, 11 + s);
            int64_t *index = malloc(N * sizeof *index);
            p.permuter = (cuplas_permuter)permuter;
            sort_once(x, H, W, 3, &p, index);
            double before = cuplas_and(x, H, W, 3, NULL, NULL), after = cuplas_and(x, H, W, 3, index, NULL);
            if (N == 1)   /* no edge: AND undefined (NaN), not 0 */
                assert_true(isnan(before) && isnan(after));
            else if (N >= 64)  /* real grids must get much smoother */
                assert_true(after * 2.0 < before);
            else
                assert_true(after <= before * 1.5 + 1e-9);
            free(index);
            free(x);
        }
}

/* Groups of 8 and 16: any shape sorts to a permutation, the same for any
 * thread count, and at 64^2 to a lower AND than groups of 4 (measured:
 * bench/results/2026-11-24-cpu-groups). */
static void test_sort_group_sizes(void **state)
{
    (void)state;
    const int64_t shapes[][2] = {{2, 2}, {3, 5}, {1, 257}, {257, 1}, {100, 37}, {64, 64}};
    cuplas_sort_params p;
    cuplas_sort_params_default(&p);
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int64_t H = shapes[s][0], W = shapes[s][1], N = H * W;
        double *x = tu_colors(N, 3, 1337);
        int64_t *ref = malloc(N * sizeof *ref), *got = malloc(N * sizeof *got);
        double and4 = 0;
        for (int k = 4; k <= 16; k *= 2) {
            p.group_size = k;
            cuplas_set_threads(1);
            sort_once(x, H, W, 3, &p, ref);
            cuplas_set_threads(2);
            sort_once(x, H, W, 3, &p, got);
            assert_memory_equal(ref, got, N * sizeof *ref);
            double and = cuplas_and(x, H, W, 3, ref, NULL);
            if (k == 4)
                and4 = and;
            if (N == 4096) {
                print_message("64x64 colours, group %d: AND %.3f\n", k, and);
                if (k > 4)
                    assert_true(and < and4);
            }
        }
        free(ref); free(got); free(x);
    }
    /* wider vectors (Cp = 8 and 60): the same index for 1 and 2 threads */
    for (int C = 5; C <= 59; C += 54) {
        int64_t H = 40, W = 36, N = H * W;
        double *x = tu_normals(N, C, 31);
        int64_t *ref = malloc(N * sizeof *ref), *got = malloc(N * sizeof *got);
        for (int k = 8; k <= 16; k *= 2) {
            p.group_size = k;
            cuplas_set_threads(1);
            sort_once(x, H, W, C, &p, ref);
            cuplas_set_threads(2);
            sort_once(x, H, W, C, &p, got);
            assert_memory_equal(ref, got, N * sizeof *ref);
        }
        free(ref); free(got); free(x);
    }
    p.group_size = 12;
    int64_t index[64];
    double x[64 * 3] = {0};
    cuplas_sort_stats st;
    cuplas_error err = {0};
    assert_int_equal(cuplas_sort_features(x, 8, 8, 3, &p, NULL, index, &st, &err), CUPLAS_ERR_USAGE);
}

/* Standardised features are the same bytes for 1 and 4 threads. */
static void test_normalize_thread_count_invariant(void **state)
{
    (void)state;
    int64_t N = 10007;
    double *a = tu_normals(N, 7, 21), *b = malloc(N * 7 * sizeof *b);
    for (int64_t i = 0; i < N * 7; i++)
        a[i] = a[i] * (1 + i % 7) + 1000.0;
    memcpy(b, a, N * 7 * sizeof *b);
    double w[7] = {1, 2, 0.5, 1, 1, 3, 1};
    cuplas_set_threads(1);
    assert_int_equal(cuplas_features_normalize(a, N, 7, CUPLAS_NORM_STANDARDIZE, w, NULL), 0);
    cuplas_set_threads(4);
    assert_int_equal(cuplas_features_normalize(b, N, 7, CUPLAS_NORM_STANDARDIZE, w, NULL), 0);
    cuplas_set_threads(2);
    assert_memory_equal(a, b, N * 7 * sizeof *a);
    double m = 0;
    for (int64_t i = 0; i < N; i++)
        m += a[i * 7 + 1];
    assert_true(fabs(m / N) < 1e-9);
    free(a);
    free(b);
}

/* Extreme finite values (issue 18): standardize and minmax of x times a
 * power of two are exactly those of x, however large or small the power;
 * the AND scales exactly; quantisation does not depend on it; a weight
 * that makes values unrepresentable is refused. */
static void test_normalize_extreme_values(void **state)
{
    (void)state;
    enum { H = 23, W = 19, C = 3, N = H * W };
    const int exps[] = {600, 1000, -600, -1000};
    double *ref = tu_normals(N, C, 5), *x = malloc(N * C * sizeof *x);
    double *want = malloc(N * C * sizeof *want);

    for (int norm = CUPLAS_NORM_STANDARDIZE; norm <= CUPLAS_NORM_MINMAX; norm++) {
        memcpy(want, ref, N * C * sizeof *want);
        assert_int_equal(cuplas_features_normalize(want, N, C, (cuplas_norm)norm, NULL, NULL), 0);
        for (size_t k = 0; k < sizeof exps / sizeof exps[0]; k++) {
            for (int i = 0; i < N * C; i++)
                x[i] = ldexp(ref[i], exps[k]);
            assert_int_equal(cuplas_features_normalize(x, N, C, (cuplas_norm)norm, NULL, NULL),
                             0);
            assert_memory_equal(x, want, N * C * sizeof *x);
        }
    }
    /* +-1e308: the sums of the old code overflowed to inf and NaN */
    for (int i = 0; i < N * C; i++)
        x[i] = ref[i] > 0 ? 1e308 : -1e308;
    assert_int_equal(cuplas_features_normalize(x, N, C, CUPLAS_NORM_STANDARDIZE, NULL, NULL), 0);
    for (int i = 0; i < N * C; i++)
        assert_true(isfinite(x[i]) && fabs(x[i]) < 10);

    /* the AND of huge features: exact, scaled back */
    double a = cuplas_and(ref, H, W, C, NULL, NULL);
    for (int i = 0; i < N * C; i++)
        x[i] = ldexp(ref[i], 1000);
    double big = cuplas_and(x, H, W, C, NULL, NULL);
    assert_true(isfinite(big));
    assert_true(fabs(big / ldexp(a, 1000) - 1) < 1e-15);
    /* and of tiny ones, whose squares underflow (before: AND 0) */
    const int tiny[] = {-600, -1030};
    for (size_t t = 0; t < sizeof tiny / sizeof tiny[0]; t++) {
        for (int i = 0; i < N * C; i++)
            x[i] = ldexp(ref[i], tiny[t]);
        double small = cuplas_and(x, H, W, C, NULL, NULL);
        if (!(fabs(small / ldexp(a, tiny[t]) - 1) < 1e-9))   /* subnormals lose bits */
            fail_msg("AND at 2^%d: %g, want %g", tiny[t], small, ldexp(a, tiny[t]));
    }
    for (int i = 0; i < N * C; i++)
        x[i] = 2.5;   /* a constant grid: 0, as ever */
    assert_true(cuplas_and(x, H, W, C, NULL, NULL) == 0);

    /* quantisation of tiny features: the same integers */
    cuplas_qgrid qa, qb;
    cuplas_error err;
    cuplas_error_clear(&err);
    for (int i = 0; i < N * C; i++)
        x[i] = ldexp(ref[i], -1030);   /* QMAX / max|x| overflows */
    assert_int_equal(cuplas_qgrid_build(ref, H, W, C, NULL, NULL, &qa, &err), 0);
    assert_int_equal(cuplas_qgrid_build(x, H, W, C, NULL, NULL, &qb, &err), 0);
    int differ = 0;
    for (int i = 0; i < N * qa.Cp; i++)
        differ += abs(qa.q[i] - qb.q[i]) > 1;   /* subnormals lost a few bits */
    assert_int_equal(differ, 0);
    cuplas_qgrid_free(&qa);
    cuplas_qgrid_free(&qb);

    /* weights that push values past the largest double */
    const double w[C] = {1, 1e308, 1};
    memcpy(x, ref, N * C * sizeof *x);
    assert_int_equal(cuplas_features_normalize(x, N, C, CUPLAS_NORM_STANDARDIZE, w, NULL),
                     CUPLAS_ERR_INPUT);
    memcpy(x, ref, N * C * sizeof *x);
    for (int i = 0; i < N * C; i++)
        x[i] = fabs(x[i]) / 8;   /* |x| < 1: x * 1e308 still fits */
    assert_int_equal(cuplas_features_normalize(x, N, C, CUPLAS_NORM_NONE, w, NULL), 0);
    assert_true(isfinite(cuplas_and(x, H, W, C, NULL, NULL)));
    free(ref);
    free(x);
    free(want);
}

/* Channels far from 0 compared with their width (UTM-like coordinates,
 * normalize none) are centred before quantisation: 64^2 colours moved to
 * 500000, 4e6 and -7e5 sort about as well as the colours themselves.
 * Before, the offset set the common scale and each channel quantised to a
 * level or two: the AND did not fall at all. Channels that straddle their
 * midrange's sign or lie near 0 (every grid of 0.7.1's benchmarks) keep the
 * plain rule, q = round(x * QMAX / max |x|), bit for bit. */
static void test_sort_offset_channels(void **state)
{
    (void)state;
    const int64_t side = 64, N = side * side;
    const double offset[3] = {500000, 4e6, -7e5};
    double *x = tu_colors(N, 3, 1337), *y = malloc(N * 3 * sizeof *y);
    int64_t *index = malloc(N * sizeof *index);
    cuplas_sort_params p;
    cuplas_sort_params_default(&p);
    for (int64_t i = 0; i < N * 3; i++)
        y[i] = x[i] + offset[i % 3];
    sort_once(y, side, side, 3, &p, index);
    double before = cuplas_and(y, side, side, 3, NULL, NULL);
    double after = cuplas_and(y, side, side, 3, index, NULL);
    print_message("offset colours: AND %.3f -> %.3f\n", before, after);
    assert_true(after * 8.0 <= before);

    /* the plain rule where nothing is centred: colours, and normals */
    double *z = tu_normals(N, 5, 7);
    const struct { const double *v; int C; } plain[] = {{x, 3}, {z, 5}};
    for (size_t t = 0; t < sizeof plain / sizeof plain[0]; t++) {
        const double *v = plain[t].v;
        int C = plain[t].C;
        double amax = 0;
        cuplas_qgrid g;
        cuplas_error err = {0};
        for (int64_t i = 0; i < N * C; i++)
            amax = fabs(v[i]) > amax ? fabs(v[i]) : amax;
        assert_int_equal(cuplas_qgrid_build(v, side, side, C, NULL, NULL, &g, &err), 0);
        for (int64_t i = 0; i < N; i++)
            for (int c = 0; c < C; c++)
                assert_int_equal(g.q[i * g.Cp + c], (int)floor(v[i * C + c] *
                                                               (CUPLAS_QMAX / amax) + 0.5));
        cuplas_qgrid_free(&g);
    }
    free(z);
    free(index);
    free(y);
    free(x);
}

static void test_sort_tiny_is_optimal(void **state)
{
    (void)state;
    double x[3] = {0.0, 10.0, 1.0};
    int64_t index[3];
    cuplas_sort_params p;
    cuplas_sort_params_default(&p);
    sort_once(x, 1, 3, 1, &p, index);
    /* 0,1,10 (or reversed) is the shortest path; the first found wins */
    assert_int_equal(index[0], 0);
    assert_int_equal(index[1], 2);
    assert_int_equal(index[2], 1);
}

static void test_sort_seed_changes_result(void **state)
{
    (void)state;
    int64_t H = 32, W = 32, N = H * W;
    double *x = tu_colors(N, 3, 3);
    int64_t *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    cuplas_sort_params p;
    cuplas_sort_params_default(&p);
    sort_once(x, H, W, 3, &p, a);
    sort_once(x, H, W, 3, &p, b);
    assert_memory_equal(a, b, N * sizeof *a);
    p.seed = 4;
    sort_once(x, H, W, 3, &p, b);
    assert_memory_not_equal(a, b, N * sizeof *a);
    free(a); free(b); free(x);
}

/* AND through an index (rolling row gathers, any thread count) is bit for
 * bit AND of the explicitly permuted grid; shapes include lines. */
static void test_and_index_matches_permuted(void **state)
{
    (void)state;
    static const int64_t shapes[][2] = {{1, 1}, {1, 7}, {7, 1}, {2, 2}, {13, 17}, {64, 33}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        int64_t H = shapes[k][0], W = shapes[k][1], N = H * W;
        const int C = 5;
        double *x = malloc((size_t)(N * C) * sizeof *x), *p = malloc((size_t)(N * C) * sizeof *p);
        int64_t *index = malloc((size_t)N * sizeof *index);
        assert_non_null(x);
        assert_non_null(p);
        assert_non_null(index);
        for (int64_t i = 0; i < N * C; i++)
            x[i] = sin((double)i * 0.7) * 3.0;
        /* reversal, then a rotation by N / 2: a permutation for any N */
        for (int64_t i = 0; i < N; i++)
            index[i] = (N - 1 - i + N / 2) % N;
        for (int64_t i = 0; i < N; i++)
            memcpy(p + i * C, x + index[i] * C, C * sizeof *p);
        double want = cuplas_and(p, H, W, C, NULL, NULL);
        for (int t = 1; t <= 4; t++) {
            cuplas_set_threads(t);
            double got = cuplas_and(x, H, W, C, index, NULL);
            assert_memory_equal(&got, &want, sizeof got);
        }
        cuplas_set_threads(2);
        free(index);
        free(p);
        free(x);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perm_bijection),
        cmocka_unit_test(test_and_index_matches_permuted),
        cmocka_unit_test(test_perm_depends_on_counter),
        cmocka_unit_test(test_quad_best_matches_enumeration),
        cmocka_unit_test(test_div_round),
        cmocka_unit_test(test_blur_matches_direct_sum),
        cmocka_unit_test(test_schedule_plas_levels),
        cmocka_unit_test(test_pass_reports_exact_costs),
        cmocka_unit_test(test_group_pass_reports_exact_costs),
        cmocka_unit_test(test_level_step_matches_loop),
        cmocka_unit_test(test_sort_quality_colors_64),
        cmocka_unit_test(test_sort_quality_colors_128),
        cmocka_unit_test(test_sort_local_levels_match_global),
        cmocka_unit_test(test_sort_thread_count_invariant),
        cmocka_unit_test(test_sort_shapes_and_permuters),
        cmocka_unit_test(test_sort_group_sizes),
        cmocka_unit_test(test_normalize_thread_count_invariant),
        cmocka_unit_test(test_normalize_extreme_values),
        cmocka_unit_test(test_sort_offset_channels),
        cmocka_unit_test(test_sort_tiny_is_optimal),
        cmocka_unit_test(test_sort_seed_changes_result),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
