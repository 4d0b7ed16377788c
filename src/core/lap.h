/*
 * lap.h - an exact k x k linear assignment solver (k <= CUPLAS_LAP_MAX)
 * for groups of more than 4 cells: the CPU reference's solver, and the
 * steps cuda/assign_group_gpu.cu's tile runs with one lane per column
 * (kept CUPLAS_HD, like quad.h, so a kernel may also call it whole).
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
 * that, so the GPU tile and the CPU return the same pi bit for bit. It is
 * NOT the lexicographically first optimum (quad.h's rule for k = 4): that
 * would need a second pass or 128-bit costs at k = 16. Callers keep the
 * identity unless the optimum is strictly cheaper, so a group whose
 * identity ties with the optimum never moves.
 */
#ifndef CUPLAS_LAP_H
#define CUPLAS_LAP_H

#include <stdint.h>

#include "core/random.h" /* CUPLAS_HD */

#define CUPLAS_LAP_MAX 32

/*
 * Solve the k x k problem D (row-major, D[i*k + j]: value i on cell j,
 * every entry < 2^60). Writes src[j] = the value that goes to cell j and
 * returns the optimal total cost. 1 <= k <= CUPLAS_LAP_MAX.
 */
CUPLAS_HD uint64_t cuplas_lap_solve(int k, const uint64_t *D, uint8_t *src)
{
    /* 1-based: index 0 is the search's virtual start column */
    const int64_t inf = INT64_MAX / 4;
    int64_t u[CUPLAS_LAP_MAX + 1], v[CUPLAS_LAP_MAX + 1], minv[CUPLAS_LAP_MAX + 1];
    int p[CUPLAS_LAP_MAX + 1], way[CUPLAS_LAP_MAX + 1];
    uint8_t used[CUPLAS_LAP_MAX + 1];
    for (int j = 0; j <= k; j++) {
        u[j] = 0;
        v[j] = 0;
        p[j] = 0;
        way[j] = 0;
    }
    for (int i = 1; i <= k; i++) {
        int j0 = 0;
        p[0] = i;
        for (int j = 0; j <= k; j++) {
            minv[j] = inf;
            used[j] = 0;
        }
        do {
            used[j0] = 1;
            int i0 = p[j0], j1 = 0;
            int64_t delta = inf;
            for (int j = 1; j <= k; j++) {
                if (used[j])
                    continue;
                int64_t cur = (int64_t)D[(i0 - 1) * k + j - 1] - u[i0] - v[j];
                if (cur < minv[j]) {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for (int j = 0; j <= k; j++) {
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (p[j0] != 0);
        do { /* flip the augmenting path back to the start column */
            int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0 != 0);
    }
    uint64_t total = 0;
    for (int j = 1; j <= k; j++) {
        src[j - 1] = (uint8_t)(p[j] - 1);
        total += D[(p[j] - 1) * k + j - 1];
    }
    return total;
}

#endif
