/*
 * quad.h - the 4-cell assignment, the stopping rule and exact integer
 * rounding, shared by the CPU reference and the kernels (C11 and CUDA).
 *
 *      cells c0..c3 (anywhere in a block)     cost D[i][j] = |x_i - t_j|^2
 *      values x0..x3, targets t0..t3          choose pi: cell j <- x_pi(j)
 *
 * Of the 24 arrangements pi (lexicographic order, identity first), take the
 * first with the least total cost, and apply it as scored: cell j receives
 * the value that was at cell pi(j). Costs are exact 64-bit integers, so the
 * choice and every sum of costs are identical on any backend and in any
 * summation order.
 */
#ifndef CUPLAS_QUAD_H
#define CUPLAS_QUAD_H

#include <stdint.h>

#include "core/random.h"

/* Quantised features live in [-CUPLAS_QMAX, CUPLAS_QMAX] (the one
 * definition: core/quantize.c scales onto it, the kernels' 32-bit cost
 * and prefix arithmetic rely on it): a difference fits in 16 bits and its
 * square in 32, so a channel adds < 2^31. */
#define CUPLAS_QMAX 16383

/* round(s / w) with halves rounded up, for w > 0 and any sign of s. */
CUPLAS_HD int64_t cuplas_div_round(int64_t s, int64_t w)
{
    int64_t num = 2 * s + w, den = 2 * w;
    int64_t q = num / den;
    if (num % den != 0 && num < 0)
        q -= 1;
    return q;
}

/*
 * Best arrangement for cost matrix D (D[i][j]: value i on cell j). Returns
 * the sources packed 2 bits per cell (cell j <- value (code >> 2j) & 3) and
 * the identity's and the best cost.
 *
 * The 24 arrangements are scanned in lexicographic order, 12 prefixes
 * (a, b) for cells 0 and 1, each followed by the two ways to put the
 * remaining values {c < d} on cells 2 and 3. The cheaper way of each of
 * the 6 pairs is found once (c, d before d, c on a tie, the order they
 * come in), so a prefix costs one add and one compare: 36 adds instead
 * of 72, the same first minimum as a plain scan of all 24
 * (tests/test_sort_cpu.c checks it against one).
 */
/* The body of both variants below: D of 64- or 32-bit costs, sums in 64
 * bits either way (so both choose the same arrangement for equal D). */
#define CUPLAS_QUAD_BEST_BODY                                                  \
    CUPLAS_TAIL(2, 3) CUPLAS_TAIL(1, 3) CUPLAS_TAIL(1, 2)                      \
    CUPLAS_TAIL(0, 3) CUPLAS_TAIL(0, 2) CUPLAS_TAIL(0, 1)                      \
    uint64_t best = (uint64_t)D[0][0] + D[1][1] + D[2][2] + D[3][3];           \
    uint32_t code = 0u | (1u << 2) | (2u << 4) | (3u << 6);                    \
    *cost_id = best;                                                           \
    CUPLAS_TRY_PREFIX(0, 1, 2, 3) CUPLAS_TRY_PREFIX(0, 2, 1, 3)                \
    CUPLAS_TRY_PREFIX(0, 3, 1, 2) CUPLAS_TRY_PREFIX(1, 0, 2, 3)                \
    CUPLAS_TRY_PREFIX(1, 2, 0, 3) CUPLAS_TRY_PREFIX(1, 3, 0, 2)                \
    CUPLAS_TRY_PREFIX(2, 0, 1, 3) CUPLAS_TRY_PREFIX(2, 1, 0, 3)                \
    CUPLAS_TRY_PREFIX(2, 3, 0, 1) CUPLAS_TRY_PREFIX(3, 0, 1, 2)                \
    CUPLAS_TRY_PREFIX(3, 1, 0, 2) CUPLAS_TRY_PREFIX(3, 2, 0, 1)                \
    *cost_best = best;                                                         \
    return code;

#define CUPLAS_TAIL(c, d)                                                      \
    uint64_t m##c##d = (uint64_t)D[c][2] + D[d][3];                            \
    uint64_t n##c##d = (uint64_t)D[d][2] + D[c][3];                            \
    uint32_t k##c##d = (uint32_t)(c) << 4 | (uint32_t)(d) << 6;                 \
    if (n##c##d < m##c##d) {                                                   \
        m##c##d = n##c##d;                                                     \
        k##c##d = (uint32_t)(d) << 4 | (uint32_t)(c) << 6;                      \
    }
#define CUPLAS_TRY_PREFIX(a, b, c, d)                                          \
    {                                                                          \
        uint64_t s = (uint64_t)D[a][0] + D[b][1] + m##c##d;                    \
        if (s < best) {                                                        \
            best = s;                                                          \
            code = (uint32_t)(a) | (uint32_t)(b) << 2 | k##c##d;                \
        }                                                                      \
    }

CUPLAS_HD uint32_t cuplas_quad_best(const uint64_t D[4][4], uint64_t *cost_id,
                                    uint64_t *cost_best)
{
    CUPLAS_QUAD_BEST_BODY
}

/* The same for costs under 2^32 (Cp <= 4 channels of quantised features:
 * quad.h's CUPLAS_QMAX): half the registers for D on the GPU. */
CUPLAS_HD uint32_t cuplas_quad_best32(const uint32_t D[4][4], uint64_t *cost_id,
                                      uint64_t *cost_best)
{
    CUPLAS_QUAD_BEST_BODY
}
#undef CUPLAS_TAIL
#undef CUPLAS_TRY_PREFIX
#undef CUPLAS_QUAD_BEST_BODY

/* The stopping rule shared by both backends: does a pass whose groups
 * cost `before` and then `after` end its configuration? Relative, so it
 * does not depend on the data's scale; exact integers in, one IEEE
 * multiply and compare out. */
CUPLAS_HD int cuplas_pass_stops(uint64_t before, uint64_t after, double ib)
{
    return before == 0 || (double)(before - after) < ib * (double)before;
}

#endif
