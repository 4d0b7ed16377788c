/*
 * test_polish.c - the AND polish (core/polish.h, cpu/polish_cpu.c): the
 * sub-passes cover every 2x2 block of a tiling once and never let two
 * blocks of one sub-pass touch; a block's choice is the arrangement with
 * the least whole-grid AND (brute force over 24); a polish never raises
 * the AND, moves values with their index, ends at a fixed point and does
 * not depend on the thread count; degenerate grids are left alone.
 * (GPU parity: tests/test_gpu.c.)
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

static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* a grid of H x W cells, Cp channels in [-range, range], with a smooth
 * part so that polishing has something to find beyond noise */
static int16_t *grid(int64_t H, int64_t W, int Cp, int range, uint64_t seed)
{
    int16_t *q = malloc((size_t)(H * W * Cp) * sizeof *q);
    for (int64_t i = 0; i < H * W; i++)
        for (int c = 0; c < Cp; c++) {
            const int64_t smooth = (c & 1 ? i / W : i % W) * range / (H + W);
            q[i * Cp + c] = (int16_t)(smooth + (int64_t)(next_u64(&seed) % (uint64_t)range) -
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

/* Every block of a tiling lies in exactly one of its 4 colours'
 * sub-passes; within a sub-pass no block's cells or 4-neighbours meet
 * another block's cells (what lets them run at once). */
static void test_steps_cover_and_separate(void **state)
{
    (void)state;
    for (int64_t H = 1; H <= 11; H++)
        for (int64_t W = 1; W <= 11; W++) {
            int owner[4][11][11];
            memset(owner, 0, sizeof owner);
            for (int s = 0; s < CUPLAS_POLISH_STEPS; s++) {
                int64_t oy, ox, ni, nj;
                cuplas_polish_step(H, W, s, &oy, &ox, &ni, &nj);
                int mark[11][11];
                memset(mark, 0, sizeof mark);
                for (int64_t i = 0; i < ni; i++)
                    for (int64_t j = 0; j < nj; j++) {
                        const int64_t y = oy + 4 * i, x = ox + 4 * j;
                        assert_true(y >= 0 && x >= 0 && y + 1 < H && x + 1 < W);
                        owner[s / 4][y][x]++;
                        /* this block's cells and their neighbours */
                        for (int64_t yy = y - 1; yy <= y + 2; yy++)
                            for (int64_t xx = x - 1; xx <= x + 2; xx++) {
                                const int corner = (yy == y - 1 || yy == y + 2) &&
                                                   (xx == x - 1 || xx == x + 2);
                                if (corner || yy < 0 || xx < 0 || yy >= H || xx >= W)
                                    continue;
                                const int inside = yy >= y && yy <= y + 1 && xx >= x &&
                                                   xx <= x + 1;
                                /* nobody else of this sub-pass writes here */
                                assert_true((mark[yy][xx] & 1) == 0);
                                if (inside)
                                    assert_true(mark[yy][xx] == 0);
                                mark[yy][xx] |= inside ? 1 : 2;
                            }
                    }
            }
            /* the tilings' blocks: offsets (0,0), (1,1), (0,1), (1,0) */
            const int ty[4] = { 0, 1, 0, 1 }, tx[4] = { 0, 1, 1, 0 };
            for (int t = 0; t < 4; t++)
                for (int64_t y = 0; y < H; y++)
                    for (int64_t x = 0; x < W; x++) {
                        const int is_block = y >= ty[t] && x >= tx[t] && (y - ty[t]) % 2 == 0 &&
                                             (x - tx[t]) % 2 == 0 && y + 1 < H && x + 1 < W;
                        assert_int_equal(owner[t][y][x], is_block);
                    }
        }
}

/* The block's choice against the whole grid's AND over all 24 ways. */
static void test_block_is_best_of_24(void **state)
{
    (void)state;
    uint64_t seed = 7;
    for (int trial = 0; trial < 300; trial++) {
        const int64_t H = 2 + trial % 4, W = 2 + trial % 5;
        const int Cp = 4 << (trial % 3); /* 4, 8, 16: Cp is a multiple of 4 */
        int16_t *q = grid(H, W, Cp, trial % 2 ? 9 : 4000, seed + trial);
        const int64_t y = (int64_t)(next_u64(&seed) % (uint64_t)(H - 1));
        const int64_t x = (int64_t)(next_u64(&seed) % (uint64_t)(W - 1));
        int perm[4];
        const int k = cuplas_polish_block(q, Cp, Cp, H, W, y, x, perm);
        const double id = and_sum(q, H, W, Cp);
        int16_t *r = malloc((size_t)(H * W * Cp) * sizeof *r);
        double best = id;
        /* all 24 arrangements, in any order */
        for (int p0 = 0; p0 < 4; p0++)
            for (int p1 = 0; p1 < 4; p1++)
                for (int p2 = 0; p2 < 4; p2++) {
                    const int p3 = 6 - p0 - p1 - p2;
                    if (p0 == p1 || p0 == p2 || p1 == p2 || p3 < 0 || p3 > 3)
                        continue;
                    const int pp[4] = { p0, p1, p2, p3 };
                    memcpy(r, q, (size_t)(H * W * Cp) * sizeof *r);
                    for (int j = 0; j < 4; j++)
                        memcpy(r + ((y + (j >> 1)) * W + x + (j & 1)) * Cp,
                               q + ((y + (pp[j] >> 1)) * W + x + (pp[j] & 1)) * Cp,
                               (size_t)Cp * sizeof *r);
                    const double s = and_sum(r, H, W, Cp);
                    best = s < best ? s : best;
                }
        if (k) {
            int16_t *c = malloc((size_t)(H * W * Cp) * sizeof *c);
            memcpy(c, q, (size_t)(H * W * Cp) * sizeof *c);
            for (int j = 0; j < 4; j++)
                memcpy(c + ((y + (j >> 1)) * W + x + (j & 1)) * Cp,
                       q + ((y + (perm[j] >> 1)) * W + x + (perm[j] & 1)) * Cp,
                       (size_t)Cp * sizeof *c);
            const double chosen = and_sum(c, H, W, Cp);
            assert_true(chosen < id);                     /* strictly better */
            assert_true(chosen <= best + 1e-9 * (1 + best)); /* and the best */
            free(c);
        } else {
            assert_true(best >= id - 1e-9 * (1 + id));    /* nothing was better */
        }
        free(r);
        free(q);
    }
}

/* A polish: never a higher AND, values move with their index, a fixed
 * point at the end, the same grid on 1 and 2 threads. */
static void test_polish_grid(void **state)
{
    (void)state;
    const int64_t shapes[][2] = { { 37, 29 }, { 64, 64 }, { 2, 2 }, { 3, 50 }, { 50, 3 } };
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const int64_t H = shapes[s][0], W = shapes[s][1], N = H * W;
        const int Cp = s % 2 ? 4 : 16;
        int16_t *q0 = grid(H, W, Cp, 300, 100 + s), *q = malloc((size_t)(N * Cp) * 2);
        int64_t *idx = malloc((size_t)N * 8);
        memcpy(q, q0, (size_t)(N * Cp) * 2);
        for (int64_t i = 0; i < N; i++)
            idx[i] = i;
        const double before = and_sum(q, H, W, Cp);
        const int64_t moved = cuplas_polish_cpu(q, idx, H, W, Cp, CUPLAS_POLISH_MAX);
        const double after = and_sum(q, H, W, Cp);
        assert_true(after <= before);
        if (N > 4)
            assert_true(moved > 0 && after < before);
        /* a permutation, and every cell holds its item's values */
        char *seen = calloc((size_t)N, 1);
        for (int64_t i = 0; i < N; i++) {
            assert_true(idx[i] >= 0 && idx[i] < N && !seen[idx[i]]);
            seen[idx[i]] = 1;
            assert_memory_equal(q + i * Cp, q0 + idx[i] * Cp, (size_t)Cp * 2);
        }
        /* a fixed point: no block of any sub-pass would move */
        for (int st = 0; st < CUPLAS_POLISH_STEPS; st++) {
            int64_t oy, ox, ni, nj;
            int perm[4];
            cuplas_polish_step(H, W, st, &oy, &ox, &ni, &nj);
            for (int64_t b = 0; b < ni * nj; b++)
                assert_int_equal(cuplas_polish_block(q, Cp, Cp, H, W, oy + 4 * (b / nj),
                                                     ox + 4 * (b % nj), perm), 0);
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
        assert_int_equal(cuplas_polish_cpu(q1, i1, H, W, Cp, CUPLAS_POLISH_MAX), moved);
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

/* Grids with no 2x2 block are left alone; so is a grid of one value. */
static void test_polish_degenerate(void **state)
{
    (void)state;
    const int64_t shapes[][2] = { { 1, 1 }, { 1, 40 }, { 40, 1 } };
    for (size_t s = 0; s < 3; s++) {
        const int64_t H = shapes[s][0], W = shapes[s][1], N = H * W;
        int16_t *q = grid(H, W, 4, 100, 9), *q0 = malloc((size_t)N * 8);
        int64_t *idx = malloc((size_t)N * 8);
        memcpy(q0, q, (size_t)N * 8);
        for (int64_t i = 0; i < N; i++)
            idx[i] = i;
        assert_int_equal(cuplas_polish_cpu(q, idx, H, W, 4, 8), 0);
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
    assert_int_equal(cuplas_polish_cpu(flat, idx, 6, 6, 4, 8), 0);
    /* zero sweeps: nothing */
    int16_t *q = grid(8, 8, 4, 100, 3);
    int64_t id8[64];
    for (int i = 0; i < 64; i++)
        id8[i] = i;
    assert_int_equal(cuplas_polish_cpu(q, id8, 8, 8, 4, 0), 0);
    free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steps_cover_and_separate),
        cmocka_unit_test(test_block_is_best_of_24),
        cmocka_unit_test(test_polish_grid),
        cmocka_unit_test(test_polish_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
