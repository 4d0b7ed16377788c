/*
 * lap.h - an exact k x k linear assignment solver (k <= CUPLAS_LAP_MAX)
 * for groups of more than 4 cells, shared by the CPU reference and the
 * kernels (C11 and CUDA), like quad.h.
 *
 *      D[i*k + j] = cost of value i on cell j  (exact 64-bit integers)
 *      find pi minimising sum_j D[pi(j)*k + j]; cell j <- value pi(j)
 *
 * The method is the shortest-augmenting-path Hungarian algorithm with row
 * and column potentials (Kuhn-Munkres in the O(k^3) form of Jonker and
 * Volgenant): rows are added one at a time, each by a Dijkstra-like search
 * over reduced costs. Why this and not enumeration: 4! = 24 arrangements
 * are cheap (quad.h), 8! = 40320 and 16! are not.
 *
 * Ties: several arrangements can share the least cost. The answer is the
 * one this exact sequence of integer steps reaches: columns scanned in
 * increasing order, a candidate replaces the current best only when
 * strictly smaller. No floating point, no data-dependent order beyond
 * that, so a CUDA thread and the CPU return the same pi bit for bit. It is
 * NOT the lexicographically first optimum (quad.h's rule for k = 4): that
 * would need a second pass or 128-bit costs at k = 16. Callers keep the
 * identity unless the optimum is strictly cheaper, so a group whose
 * identity ties with the optimum never moves.
 */
#ifndef CUPLAS_LAP_H
#define CUPLAS_LAP_H

#include <stdint.h>

#include "core/random.h" /* CUPLAS_HD */

#define CUPLAS_LAP_MAX 16

/*
 * The solver, over any exact cost expression COST(i, j) (value i on cell
 * j, 0-based, a uint64_t < 2^60): one body for every way of supplying
 * costs, so the integer steps, and with them the tie-break, are the same
 * whichever is used. Writes src[0..k-1] and stores the optimal cost in
 * the uint64_t lvalue `total`.
 */
#define CUPLAS_LAP_SOLVE_BODY(k, COST, src, total)                                 \
    do {                                                                           \
        /* 1-based: index 0 is the search's virtual start column */                \
        const int64_t lap_inf = INT64_MAX / 4;                                     \
        int64_t u[CUPLAS_LAP_MAX + 1], v[CUPLAS_LAP_MAX + 1];                      \
        int64_t minv[CUPLAS_LAP_MAX + 1];                                          \
        int p[CUPLAS_LAP_MAX + 1], way[CUPLAS_LAP_MAX + 1];                        \
        uint8_t used[CUPLAS_LAP_MAX + 1];                                          \
        for (int j = 0; j <= (k); j++) {                                           \
            u[j] = 0;                                                              \
            v[j] = 0;                                                              \
            p[j] = 0;                                                              \
            way[j] = 0;                                                            \
        }                                                                          \
        for (int i = 1; i <= (k); i++) {                                           \
            int j0 = 0;                                                            \
            p[0] = i;                                                              \
            for (int j = 0; j <= (k); j++) {                                       \
                minv[j] = lap_inf;                                                 \
                used[j] = 0;                                                       \
            }                                                                      \
            do {                                                                   \
                used[j0] = 1;                                                      \
                int i0 = p[j0], j1 = 0;                                            \
                int64_t delta = lap_inf;                                           \
                for (int j = 1; j <= (k); j++) {                                   \
                    if (used[j])                                                   \
                        continue;                                                  \
                    int64_t cur = (int64_t)(COST(i0 - 1, j - 1)) - u[i0] - v[j];   \
                    if (cur < minv[j]) {                                           \
                        minv[j] = cur;                                             \
                        way[j] = j0;                                               \
                    }                                                              \
                    if (minv[j] < delta) {                                         \
                        delta = minv[j];                                           \
                        j1 = j;                                                    \
                    }                                                              \
                }                                                                  \
                for (int j = 0; j <= (k); j++) {                                   \
                    if (used[j]) {                                                 \
                        u[p[j]] += delta;                                          \
                        v[j] -= delta;                                             \
                    } else {                                                       \
                        minv[j] -= delta;                                          \
                    }                                                              \
                }                                                                  \
                j0 = j1;                                                           \
            } while (p[j0] != 0);                                                  \
            do { /* flip the augmenting path back to the start column */           \
                int j1 = way[j0];                                                  \
                p[j0] = p[j1];                                                     \
                j0 = j1;                                                           \
            } while (j0 != 0);                                                     \
        }                                                                          \
        (total) = 0;                                                               \
        for (int j = 1; j <= (k); j++) {                                           \
            (src)[j - 1] = (uint8_t)(p[j] - 1);                                    \
            (total) += (uint64_t)(COST(p[j] - 1, j - 1));                          \
        }                                                                          \
    } while (0)

/*
 * Solve the k x k problem D (row-major, D[i*k + j]: value i on cell j,
 * every entry < 2^60). Writes src[j] = the value that goes to cell j and
 * returns the optimal total cost. 1 <= k <= CUPLAS_LAP_MAX.
 */
CUPLAS_HD uint64_t cuplas_lap_solve(int k, const uint64_t *D, uint8_t *src)
{
    uint64_t total;
#define CUPLAS_LAP_COST_D(i, j) D[(i) * k + (j)]
    CUPLAS_LAP_SOLVE_BODY(k, CUPLAS_LAP_COST_D, src, total);
#undef CUPLAS_LAP_COST_D
    return total;
}

/* |x - t|^2 of two cp-channel points (each square < 2^30). */
CUPLAS_HD uint64_t cuplas_lap_sqdist(const int16_t *x, const int16_t *t, int cp)
{
    uint64_t s = 0;
    for (int c = 0; c < cp; c++) {
        int32_t d = (int32_t)x[c] - t[c];
        s += (uint32_t)(d * d);
    }
    return s;
}

/*
 * The same solve for points, costs computed when the solver reads them
 * (x + i*cp: value i, t + j*cp: target j, cp channels each) instead of
 * from a k x k matrix: the GPU's path for up to 16 channels, where a
 * thread's 2 KiB cost matrix would live in local memory. Equal costs and
 * the same body: the same answer as cuplas_lap_solve on the matrix of
 * these costs (test_lap).
 */
CUPLAS_HD uint64_t cuplas_lap_solve_pts(int k, const int16_t *x, const int16_t *t, int cp,
                                        uint8_t *src)
{
    uint64_t total;
#define CUPLAS_LAP_COST_P(i, j) cuplas_lap_sqdist(x + (i) * cp, t + (j) * cp, cp)
    CUPLAS_LAP_SOLVE_BODY(k, CUPLAS_LAP_COST_P, src, total);
#undef CUPLAS_LAP_COST_P
    return total;
}

#endif
