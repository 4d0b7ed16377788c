/*
 * test_polish.c - the AND polish (core/polish.h, cpu/polish_cpu.c), with
 * 2x2 windows and with 2x3 / 3x2 ones: the sub-passes cover every window
 * of a tiling once and never let two windows of one sub-pass touch; a
 * window's choice is the arrangement with the least whole-grid AND (brute
 * force over all n!); a polish never raises the AND, moves values with
 * their index, ends at a fixed point and does not depend on the thread
 * count; degenerate grids are left alone. (GPU parity: tests/test_gpu.c.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/polish.h"
#include "cpu/polish_cpu.h"
#include "testutil.h"

/* a grid of H x W cells, Cp channels in [-range, range], with a smooth
 * part so that polishing has something to find beyond noise */
static int16_t *grid(int64_t H, int64_t W, int Cp, int range, uint64_t seed)
{
    int16_t *q = malloc((size_t)(H * W * Cp) * sizeof *q);
    for (int64_t i = 0; i < H * W; i++)
        for (int c = 0; c < Cp; c++) {
            const int64_t smooth = (c & 1 ? i / W : i % W) * range / (H + W);
            q[i * Cp + c] = (int16_t)(smooth + (int64_t)(tu_next_u64(&seed) % (uint64_t)range) -
                                      range / 2);
        }
    return q;
}

/* the whole grid's sum of 4-neighbour L2 distances, independently of
 * polish.h's block cost */
static double and_sum(const int16_t *q, int64_t H, int64_t W, int Cp)
{
    double s = 0;
    for (int64_t y = 0; y < H; y++)
        for (int64_t x = 0; x < W; x++) {
            const int16_t *a = q + (y * W + x) * Cp;
            for (int d = 0; d < 2; d++) {
                const int64_t yy = y + (d == 1), xx = x + (d == 0);
                if (yy >= H || xx >= W)
                    continue;
                const int16_t *b = q + (yy * W + xx) * Cp;
                double e = 0;
                for (int c = 0; c < Cp; c++)
                    e += (double)(a[c] - b[c]) * (a[c] - b[c]);
                s += sqrt(e);
            }
        }
    return s;
}

/* Every window of a tiling lies in exactly one of its 4 colours'
 * sub-passes; within a sub-pass no window's cells or 4-neighbours meet
 * another window's cells (what lets them run at once). */
static void test_steps_cover_and_separate(void **state)
{
    (void)state;
    for (int cells = 4; cells <= 6; cells += 2)
        for (int64_t H = 1; H <= 13; H++)
            for (int64_t W = 1; W <= 13; W++) {
                /* owner[shape][tiling][y][x]: windows with top-left (y, x) */
                static int owner[2][9][13][13];
                memset(owner, 0, sizeof owner);
                for (int s = 0; s < cuplas_polish_steps(cells); s++) {
                    int64_t oy, ox, ni, nj;
                    int bh, bw;
                    cuplas_polish_step(H, W, cells, s, &bh, &bw, &oy, &ox, &ni, &nj);
                    assert_int_equal(bh * bw, cells);
                    int mark[13][13];
                    memset(mark, 0, sizeof mark);
                    for (int64_t i = 0; i < ni; i++)
                        for (int64_t j = 0; j < nj; j++) {
                            const int64_t y = oy + 2 * bh * i, x = ox + 2 * bw * j;
                            assert_true(y >= 0 && x >= 0 && y + bh <= H && x + bw <= W);
                            owner[bh == 3][(s % 24) / 4][y][x]++;
                            for (int64_t yy = y - 1; yy <= y + bh; yy++)
                                for (int64_t xx = x - 1; xx <= x + bw; xx++) {
                                    const int iny = yy >= y && yy < y + bh;
                                    const int inx = xx >= x && xx < x + bw;
                                    if ((!iny && !inx) || yy < 0 || xx < 0 || yy >= H || xx >= W)
                                        continue; /* a corner: no edge to the window */
                                    /* nobody else of this sub-pass writes here */
                                    assert_true((mark[yy][xx] & 1) == 0);
                                    if (iny && inx)
                                        assert_true(mark[yy][xx] == 0);
                                    mark[yy][xx] |= iny && inx ? 1 : 2;
                                }
                        }
                }
                /* each tiling (ty, tx) of each shape: every window once */
                for (int sh = 0; sh < (cells == 6 ? 2 : 1); sh++) {
                    const int bh = cells == 6 ? 2 + sh : 2, bw = cells == 6 ? 3 - sh : 2;
                    for (int t = 0; t < bh * bw; t++)
                        for (int64_t y = 0; y < H; y++)
                            for (int64_t x = 0; x < W; x++) {
                                const int64_t ty = t / bw, tx = t % bw;
                                const int want = y >= ty && x >= tx && (y - ty) % bh == 0 &&
                                                 (x - tx) % bw == 0 && y + bh <= H &&
                                                 x + bw <= W;
                                assert_int_equal(owner[sh][t][y][x], want);
                            }
                }
            }
}

/* q with the bh x bw window at (y, x) rearranged: cell j <- value pp[j] */
static void arrange(int16_t *r, const int16_t *q, int64_t H, int64_t W, int Cp, int64_t y,
                    int64_t x, int bh, int bw, const int *pp)
{
    memcpy(r, q, (size_t)(H * W * Cp) * sizeof *r);
    for (int j = 0; j < bh * bw; j++)
        memcpy(r + ((y + j / bw) * W + x + j % bw) * Cp,
               q + ((y + pp[j] / bw) * W + x + pp[j] % bw) * Cp, (size_t)Cp * sizeof *r);
}

/* The window's choice against the whole grid's AND over all n! ways:
 * 2x2, 2x3 and 3x2 windows, inside and on every edge of small grids. */
static void test_block_is_best_of_all(void **state)
{
    (void)state;
    uint64_t seed = 7;
    int moved = 0;
    for (int trial = 0; trial < 240; trial++) {
        const int shape = trial % 3, bh = shape == 2 ? 3 : 2, bw = shape == 1 ? 3 : 2;
        const int64_t H = bh + trial % 3, W = bw + (trial / 3) % 4;
        const int Cp = 4 << (trial % 3 == 2 ? 2 : trial % 2); /* a multiple of 4 */
        int16_t *q = grid(H, W, Cp, trial % 2 ? 9 : 4000, seed + trial);
        const int64_t y = (int64_t)(tu_next_u64(&seed) % (uint64_t)(H - bh + 1));
        const int64_t x = (int64_t)(tu_next_u64(&seed) % (uint64_t)(W - bw + 1));
        int perm[CUPLAS_POLISH_CELLS];
        const int k = cuplas_polish_window(q, Cp, Cp, H, W, y, x, bh, bw, perm);
        const double id = and_sum(q, H, W, Cp);
        int16_t *r = malloc((size_t)(H * W * Cp) * sizeof *r);
        double best = id;
        int pp[CUPLAS_POLISH_CELLS];
        for (int j = 0; j < bh * bw; j++)
            pp[j] = j;
        while (tu_next_perm(pp, bh * bw)) {
            arrange(r, q, H, W, Cp, y, x, bh, bw, pp);
            const double s = and_sum(r, H, W, Cp);
            best = s < best ? s : best;
        }
        if (k) {
            arrange(r, q, H, W, Cp, y, x, bh, bw, perm);
            const double chosen = and_sum(r, H, W, Cp);
            assert_true(chosen < id);                        /* strictly better */
            assert_true(chosen <= best + 1e-9 * (1 + best)); /* and the best */
            moved++;
        } else {
            assert_true(best >= id - 1e-9 * (1 + id));       /* nothing was better */
            for (int j = 0; j < bh * bw; j++)
                assert_int_equal(perm[j], j);
        }
        free(r);
        free(q);
    }
    assert_true(moved > 20); /* the noise gives it something to find */
}

/* A polish: never a higher AND, values move with their index, a fixed
 * point at the end, the same grid on 1 and 2 threads. */
static void test_polish_grid(void **state)
{
    (void)state;
    const int64_t shapes[][2] = { { 37, 29 }, { 64, 64 }, { 2, 2 }, { 3, 50 }, { 50, 3 } };
    for (size_t s = 0; s < 2 * sizeof shapes / sizeof *shapes; s++) {
        const int cells = s % 2 ? 6 : 4;
        const int64_t H = shapes[s / 2][0], W = shapes[s / 2][1], N = H * W;
        const int Cp = s % 4 < 2 ? 4 : 16;
        int16_t *q0 = grid(H, W, Cp, 300, 100 + s), *q = malloc((size_t)(N * Cp) * 2);
        int64_t *idx = malloc((size_t)N * 8);
        memcpy(q, q0, (size_t)(N * Cp) * 2);
        for (int64_t i = 0; i < N; i++)
            idx[i] = i;
        const double before = and_sum(q, H, W, Cp);
        const int64_t moved = cuplas_polish_cpu(q, idx, H, W, Cp, CUPLAS_POLISH_MAX, cells);
        const double after = and_sum(q, H, W, Cp);
        assert_true(after <= before);
        if (N > cells)
            assert_true(moved > 0 && after < before);
        /* a permutation, and every cell holds its item's values */
        char *seen = calloc((size_t)N, 1);
        for (int64_t i = 0; i < N; i++) {
            assert_true(idx[i] >= 0 && idx[i] < N && !seen[idx[i]]);
            seen[idx[i]] = 1;
            assert_memory_equal(q + i * Cp, q0 + idx[i] * Cp, (size_t)Cp * 2);
        }
        /* a fixed point: no window of any sub-pass would move */
        for (int st = 0; st < cuplas_polish_steps(cells); st++) {
            int64_t oy, ox, ni, nj;
            int bh, bw, perm[CUPLAS_POLISH_CELLS];
            cuplas_polish_step(H, W, cells, st, &bh, &bw, &oy, &ox, &ni, &nj);
            for (int64_t b = 0; b < ni * nj; b++)
                assert_int_equal(cuplas_polish_window(q, Cp, Cp, H, W, oy + 2 * bh * (b / nj),
                                                     ox + 2 * bw * (b % nj), bh, bw, perm), 0);
        }
#ifdef _OPENMP
        /* the thread count changes nothing */
        int16_t *q1 = malloc((size_t)(N * Cp) * 2);
        int64_t *i1 = malloc((size_t)N * 8);
        memcpy(q1, q0, (size_t)(N * Cp) * 2);
        for (int64_t i = 0; i < N; i++)
            i1[i] = i;
        const int nt = omp_get_max_threads();
        omp_set_num_threads(1);
        assert_int_equal(cuplas_polish_cpu(q1, i1, H, W, Cp, CUPLAS_POLISH_MAX, cells), moved);
        omp_set_num_threads(nt);
        assert_memory_equal(i1, idx, (size_t)N * 8);
        free(q1);
        free(i1);
#endif
        free(seen);
        free(q0);
        free(q);
        free(idx);
    }
}

/* Grids with no window are left alone; so is a grid of one value, and
 * a polish of no sweeps. */
static void test_polish_degenerate(void **state)
{
    (void)state;
    const int64_t shapes[][2] = { { 1, 1 }, { 1, 40 }, { 40, 1 } };
    for (size_t s = 0; s < 6; s++) {
        const int64_t H = shapes[s % 3][0], W = shapes[s % 3][1], N = H * W;
        int16_t *q = grid(H, W, 4, 100, 9), *q0 = malloc((size_t)N * 8);
        int64_t *idx = malloc((size_t)N * 8);
        memcpy(q0, q, (size_t)N * 8);
        for (int64_t i = 0; i < N; i++)
            idx[i] = i;
        assert_int_equal(cuplas_polish_cpu(q, idx, H, W, 4, 8, s < 3 ? 4 : 6), 0);
        assert_memory_equal(q, q0, (size_t)N * 8);
        for (int64_t i = 0; i < N; i++)
            assert_int_equal(idx[i], i);
        free(q);
        free(q0);
        free(idx);
    }
    int16_t flat[6 * 6 * 4];
    int64_t idx[36];
    for (int i = 0; i < 6 * 6 * 4; i++)
        flat[i] = 77;
    for (int i = 0; i < 36; i++)
        idx[i] = i;
    assert_int_equal(cuplas_polish_cpu(flat, idx, 6, 6, 4, 8, 4), 0);
    assert_int_equal(cuplas_polish_cpu(flat, idx, 6, 6, 4, 8, 6), 0);
    /* zero sweeps: nothing */
    int16_t *q = grid(8, 8, 4, 100, 3);
    int64_t id8[64];
    for (int i = 0; i < 64; i++)
        id8[i] = i;
    assert_int_equal(cuplas_polish_cpu(q, id8, 8, 8, 4, 0, 6), 0);
    free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steps_cover_and_separate),
        cmocka_unit_test(test_block_is_best_of_all),
        cmocka_unit_test(test_polish_grid),
        cmocka_unit_test(test_polish_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
