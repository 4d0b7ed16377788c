/*
 * test_lap.c - core/lap.h, the exact k x k assignment solver of the
 * larger groups: against brute force over all k! arrangements for k <= 8
 * on random, tied and large-magnitude costs; at k = 16 and 32 (no brute force)
 * against every single swap and 3-cycle; and against quad.h at k = 4
 * (the GPU tile's answer against this solver: tests/test_gpu.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/lap.h"
#include "testutil.h"
#include "core/quad.h"

static uint64_t brute(int k, const uint64_t *D)
{
    int a[8];
    for (int i = 0; i < k; i++)
        a[i] = i;
    uint64_t best = UINT64_MAX;
    do {
        uint64_t s = 0;
        for (int j = 0; j < k; j++)
            s += D[a[j] * k + j];
        if (s < best)
            best = s;
    } while (tu_next_perm(a, k));
    return best;
}

/* src is a permutation and the returned total is its cost. */
static void check_answer(int k, const uint64_t *D, const uint8_t *src, uint64_t total)
{
    int seen[CUPLAS_LAP_MAX] = {0};
    uint64_t s = 0;
    for (int j = 0; j < k; j++) {
        assert_true(src[j] < k);
        assert_int_equal(seen[src[j]]++, 0);
        s += D[src[j] * k + j];
    }
    assert_true(s == total);
}

/* Costs as the sort makes them: squared distances of C-channel points
 * (values and targets drawn from `range` levels, so small ranges tie). */
static void fill_sqdist(int k, int C, uint64_t range, uint64_t *rng, uint64_t *D)
{
    int64_t x[CUPLAS_LAP_MAX][4], t[CUPLAS_LAP_MAX][4];
    for (int i = 0; i < k; i++)
        for (int c = 0; c < C; c++) {
            x[i][c] = (int64_t)(tu_next_u64(rng) % range);
            t[i][c] = (int64_t)(tu_next_u64(rng) % range);
        }
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            uint64_t s = 0;
            for (int c = 0; c < C; c++)
                s += (uint64_t)((x[i][c] - t[j][c]) * (x[i][c] - t[j][c]));
            D[i * k + j] = s;
        }
}

static void solve_and_check(int k, const uint64_t *D)
{
    uint8_t src[CUPLAS_LAP_MAX], again[CUPLAS_LAP_MAX];
    uint64_t total = cuplas_lap_solve(k, D, src);
    check_answer(k, D, src, total);
    assert_true(total == brute(k, D));
    /* a pure function of D: the same answer every time */
    assert_true(cuplas_lap_solve(k, D, again) == total);
    assert_memory_equal(src, again, (size_t)k);
}

static void test_lap_random_vs_brute(void **state)
{
    (void)state;
    uint64_t rng = 1, D[64];
    for (int k = 1; k <= 8; k++) {
        int reps = k <= 6 ? 300 : k == 7 ? 60 : 15;
        for (int r = 0; r < reps; r++) {
            for (int e = 0; e < k * k; e++)
                D[e] = tu_next_u64(&rng) % 1000000;
            solve_and_check(k, D);
            fill_sqdist(k, 3, 32768, &rng, D);
            solve_and_check(k, D);
        }
    }
}

static void test_lap_ties_vs_brute(void **state)
{
    (void)state;
    uint64_t rng = 2, D[64];
    for (int k = 1; k <= 8; k++) {
        int reps = k <= 6 ? 300 : k == 7 ? 60 : 15;
        for (int r = 0; r < reps; r++) {
            for (int e = 0; e < k * k; e++)   /* costs 0..2: ties everywhere */
                D[e] = tu_next_u64(&rng) % 3;
            solve_and_check(k, D);
            fill_sqdist(k, 1, 3, &rng, D);    /* duplicate points */
            solve_and_check(k, D);
        }
        for (int e = 0; e < k * k; e++)       /* all equal */
            D[e] = 7;
        solve_and_check(k, D);
        for (int i = 0; i < k; i++)           /* rank one: every arrangement ties */
            for (int j = 0; j < k; j++)
                D[i * k + j] = (uint64_t)(i + 1) + (uint64_t)(2 * j);
        solve_and_check(k, D);
    }
}

/* The largest costs the sort can make: 1024 channels of (2 * 16383)^2. */
static void test_lap_large_costs(void **state)
{
    (void)state;
    uint64_t rng = 3, D[64];
    const uint64_t top = 1024ull * (2ull * CUPLAS_QMAX) * (2ull * CUPLAS_QMAX);
    for (int k = 2; k <= 8; k++)
        for (int r = 0; r < 10; r++) {
            for (int e = 0; e < k * k; e++)
                D[e] = top - tu_next_u64(&rng) % 1000;
            solve_and_check(k, D);
        }
}

/* k = 16 and 32 (the largest groups): no brute force; no swap of two
 * cells and no 3-cycle improves the answer, and it beats the identity and
 * a greedy choice. */
static void check_local_optimum(int K, uint64_t rng)
{
    uint64_t D[CUPLAS_LAP_MAX * CUPLAS_LAP_MAX];
    for (int r = 0; r < 60; r++) {
        if (r % 2)
            fill_sqdist(K, 3, r % 4 == 1 ? 4 : 32768, &rng, D);
        else
            for (int e = 0; e < K * K; e++)
                D[e] = tu_next_u64(&rng) % 100000;
        uint8_t s[CUPLAS_LAP_MAX];
        uint64_t total = cuplas_lap_solve(K, D, s);
        check_answer(K, D, s, total);
        uint64_t id = 0, greedy = 0;
        int taken[CUPLAS_LAP_MAX] = {0};
        for (int j = 0; j < K; j++) {
            id += D[j * K + j];
            int bi = -1;
            for (int i = 0; i < K; i++)
                if (!taken[i] && (bi < 0 || D[i * K + j] < D[bi * K + j]))
                    bi = i;
            taken[bi] = 1;
            greedy += D[bi * K + j];
        }
        assert_true(total <= id && total <= greedy);
        for (int a = 0; a < K; a++)
            for (int b = a + 1; b < K; b++) {
                assert_true(D[s[b] * K + a] + D[s[a] * K + b] >=
                            D[s[a] * K + a] + D[s[b] * K + b]);
                for (int c = b + 1; c < K; c++) {
                    uint64_t now = D[s[a] * K + a] + D[s[b] * K + b] + D[s[c] * K + c];
                    assert_true(D[s[b] * K + a] + D[s[c] * K + b] + D[s[a] * K + c] >= now);
                    assert_true(D[s[c] * K + a] + D[s[a] * K + b] + D[s[b] * K + c] >= now);
                }
            }
    }
}

static void test_lap_16_local_optimum(void **state)
{
    (void)state;
    check_local_optimum(16, 4);
    check_local_optimum(CUPLAS_LAP_MAX, 7);
}

/* k = 4: the same least cost as quad.h's enumeration of 24 (quad.h's
 * D[i][j] has the same meaning: value i on cell j). */
static void test_lap_4_matches_quad(void **state)
{
    (void)state;
    uint64_t rng = 5, flat[16], D[4][4];
    for (int r = 0; r < 2000; r++) {
        fill_sqdist(4, 3, r % 2 ? 4 : 32768, &rng, flat);
        memcpy(D, flat, sizeof D);
        uint64_t cid, cbest;
        uint8_t src[4];
        cuplas_quad_best(D, &cid, &cbest);
        assert_true(cuplas_lap_solve(4, flat, src) == cbest);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lap_random_vs_brute),
        cmocka_unit_test(test_lap_ties_vs_brute),
        cmocka_unit_test(test_lap_large_costs),
        cmocka_unit_test(test_lap_16_local_optimum),
        cmocka_unit_test(test_lap_4_matches_quad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
