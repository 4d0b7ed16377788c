/*
 * polish.h - the AND polish that may follow a sort's last level
 * (sort.polish, sort.polish_cells), one small window at a time, shared by
 * the CPU reference (cpu/polish_cpu.c) and the GPU (cuda/polish_gpu.cu).
 * C11 and CUDA, like quad.h.
 *
 * Why: the levels minimise a blurred-target energy, squared distances to a
 * box blur that includes the cell itself. What users measure at the end is
 * the mean L2 distance between 4-neighbours (AND), which is not squared,
 * and a local optimum of the one is not one of the other. Sweeps of the
 * exact AND over small windows lower AND by 2-3 % and raise DPQ16 on the
 * 32 x 32 benchmark (bench/results/2026-11-24-h200-exit).
 *
 *      2x2:  c0 c1       2x3:  c0 c1 c2      (and 3x2)
 *            c2 c3             c3 c4 c5
 *
 * A window's n values (4 or 6) take the arrangement of the n! (in
 * lexicographic order of the values given to cells 0, 1, ..., identity
 * first) whose sum of L2 distances over every 4-neighbour edge touching
 * the window (inside it, and to the cells around it; none across the
 * grid's edges: AND does not wrap) is the least; the identity unless
 * that is less by more than rounding (CUPLAS_POLISH_MARGIN).
 *
 * A sweep: for each window shape (2x2; or 2x3 then 3x2), each of its
 * bh x bw tilings of the grid (offset (ty, tx), row-major), in 4
 * sub-passes, one per colour (window row % 2, window column % 2).
 * Windows of one colour are a whole window apart, so none reads a cell
 * another of its sub-pass writes: a sub-pass gives the same grid in any
 * order, on any number of threads. A sweep that moves nothing leaves the
 * grid a fixed point, so the sweeps after it move nothing either; the
 * backends may stop there or run them all.
 *
 * Exactness: squared distances of quantised features are exact integers
 * (< 2^53); sqrt is IEEE (correctly rounded) on the host and the device;
 * each arrangement's sum is the same sequence of double additions on
 * both, and the choice is the first least sum in rank order on both. So
 * both backends choose the same arrangement, bit for bit.
 */
#ifndef CUPLAS_POLISH_H
#define CUPLAS_POLISH_H

#include <math.h>
#include <stdint.h>
#ifdef __CUDACC__
#include <vector_types.h> /* short4 */
#endif

#include "core/random.h" /* CUPLAS_HD */

#ifdef __cplusplus
extern "C" {
#endif

/* sort.polish: sweeps, 0 .. CUPLAS_POLISH_MAX */
#define CUPLAS_POLISH_MAX 64

/* Cells of the largest window (sort.polish_cells). */
#define CUPLAS_POLISH_CELLS 6

/* Sub-passes of a sweep with windows of `cells` cells (4 or 6). */
CUPLAS_HD int cuplas_polish_steps(int cells)
{
    return cells == 6 ? 2 * 6 * 4 : 4 * 4;
}

/* Sub-pass s of a sweep over an H x W grid: the window shape bh x bw, and
 * the windows' top-left cells (oy + 2 bh i, ox + 2 bw j) for i < *ni,
 * j < *nj (either may be 0: nothing to do). */
CUPLAS_HD void cuplas_polish_step(int64_t H, int64_t W, int cells, int s, int *bh, int *bw,
                                  int64_t *oy, int64_t *ox, int64_t *ni, int64_t *nj)
{
    int h = 2, w = 2;
    if (cells == 6) {       /* 24 sub-passes of 2x3, then 24 of 3x2 */
        h = s < 24 ? 2 : 3;
        w = 5 - h;
        s %= 24;
    }
    const int tiling = s >> 2, col = s & 3;
    const int64_t ty = tiling / w, tx = tiling % w;
    const int64_t cy = col >> 1, cx = col & 1;
    const int64_t wy = H >= ty + h ? (H - ty) / h : 0; /* windows down, this tiling */
    const int64_t wx = W >= tx + w ? (W - tx) / w : 0;
    *bh = h;
    *bw = w;
    *oy = ty + h * cy;
    *ox = tx + w * cx;
    *ni = wy > cy ? (wy - cy + 1) / 2 : 0;
    *nj = wx > cx ? (wx - cx + 1) / 2 : 0;
}

/* Four channels of a cell (Cp is a multiple of 4, cells 8-byte aligned):
 * one 8-byte load on the device. */
CUPLAS_HD void cuplas_polish_load4(const int16_t *p, int32_t o[4])
{
#ifdef __CUDA_ARCH__
    const short4 v = *(const short4 *)p;
    o[0] = v.x, o[1] = v.y, o[2] = v.z, o[3] = v.w;
#else
    o[0] = p[0], o[1] = p[1], o[2] = p[2], o[3] = p[3];
#endif
}

/* An arrangement must beat the identity by more than this share of its
 * cost: a rearrangement that only rounding calls cheaper (the same edges
 * summed in another order) would otherwise flip back and forth. */
#define CUPLAS_POLISH_MARGIN 1e-12

/* Whether the least sum `best` (rank > 0) beats the identity's `id` by
 * more than rounding. */
CUPLAS_HD int cuplas_polish_beats(double best, double id)
{
    return id - best > id * CUPLAS_POLISH_MARGIN;
}

/*
 * 2x2 windows: the arrangement for the window at (y, x) of the grid q
 * (cell i at q + i * cs, Cp channels, a multiple of 4): returns 1 and
 * writes perm (cell j <- value perm[j], cells row-major) when it moves,
 * else 0 (perm = identity). The caller moves values and index.
 *
 * One pass over the channels gathers the 38 exact squared distances (each
 * of the 4 values against each cell's 2 outer neighbours, and the 6 pairs
 * of values), 12 cells read once; then 38 square roots and 24 sums, each
 * written out so that every index is known when compiled (registers, not
 * local memory, on the device).
 */
CUPLAS_HD int cuplas_polish_block4(const int16_t *q, int64_t cs, int Cp, int64_t H, int64_t W,
                                   int64_t y, int64_t x, int perm[4])
{
    /* cell j at (y + (j >> 1), x + (j & 1)); its outer neighbours: up or
       down, then left or right */
    const int64_t ny[4] = { y - 1, y - 1, y + 2, y + 2 };
    const int64_t nx[4] = { x - 1, x + 2, x - 1, x + 2 };
    const int16_t *v[4], *n[4][2];
    int has[4][2];
    for (int j = 0; j < 4; j++) {
        const int64_t cy = y + (j >> 1), cx = x + (j & 1);
        v[j] = q + (cy * W + cx) * cs;
        has[j][0] = ny[j] >= 0 && ny[j] < H;
        has[j][1] = nx[j] >= 0 && nx[j] < W;
        n[j][0] = has[j][0] ? q + (ny[j] * W + cx) * cs : v[j];
        n[j][1] = has[j][1] ? q + (cy * W + nx[j]) * cs : v[j];
    }
    int64_t so[4][4][2], sp[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            so[i][j][0] = so[i][j][1] = 0;
            sp[i][j] = 0;
        }
    for (int c = 0; c < Cp; c += 4) {
        int32_t a[4][4], b[4][2][4];
        for (int j = 0; j < 4; j++) {
            cuplas_polish_load4(v[j] + c, a[j]);
            cuplas_polish_load4(n[j][0] + c, b[j][0]);
            cuplas_polish_load4(n[j][1] + c, b[j][1]);
        }
        for (int k = 0; k < 4; k++) {
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++)
                    for (int e = 0; e < 2; e++) {
                        const int64_t d = a[i][k] - b[j][e][k];
                        so[i][j][e] += d * d;
                    }
            for (int i = 0; i < 4; i++)
                for (int j = i + 1; j < 4; j++) {
                    const int64_t d = a[i][k] - a[j][k];
                    sp[i][j] += d * d;
                }
        }
    }
    /* E[i][j]: value i on cell j against cell j's outer neighbours */
    double E[4][4], P[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double e = 0;
            for (int k = 0; k < 2; k++)
                if (has[j][k])
                    e += sqrt((double)so[i][j][k]);
            E[i][j] = e;
        }
    for (int i = 0; i < 4; i++) {
        P[i][i] = 0;
        for (int j = i + 1; j < 4; j++)
            P[i][j] = P[j][i] = sqrt((double)sp[i][j]);
    }
    /* the 24 arrangements in lexicographic order (inner edges c0-c1,
       c0-c2, c1-c3, c2-c3); the first least one */
    double id = 0, best = 0;
    int k = 0, found = 0, bp[4] = { 0, 1, 2, 3 };
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            if (b == a)
                continue;
            for (int c = 0; c < 4; c++) {
                if (c == a || c == b)
                    continue;
                const int d = 6 - a - b - c;
                const double s = E[a][0] + E[b][1] + E[c][2] + E[d][3] + P[a][b] + P[a][c] +
                                 P[b][d] + P[c][d];
                if (k == 0)
                    id = best = s;
                else if (s < best) {
                    best = s;
                    found = k;
                    bp[0] = a, bp[1] = b, bp[2] = c, bp[3] = d;
                }
                k++;
            }
        }
    if (found && !cuplas_polish_beats(best, id))
        found = 0;
    for (int j = 0; j < 4; j++)
        perm[j] = found ? bp[j] : j;
    return found;
}


/* 2x3 and 3x2 windows: 720 arrangements, in lexicographic order of the
 * values given to cells 0..5 (rank 0 = the identity). */
#define CUPLAS_POLISH6_ARRANGEMENTS 720

/* The arrangement of rank r (0 <= r < 720): cell j <- value perm[j]. */
CUPLAS_HD void cuplas_polish6_unrank(int r, int perm[6])
{
    const int fact[6] = { 120, 24, 6, 2, 1, 1 };
    unsigned used = 0;
    for (int j = 0; j < 6; j++) {
        int k = r / fact[j], v = 0;
        r %= fact[j];
        for (;; v++)
            if (!(used >> v & 1u) && k-- == 0)
                break;
        used |= 1u << v;
        perm[j] = v;
    }
}

/* The next arrangement in lexicographic order; 0 after the last. */
CUPLAS_HD int cuplas_polish6_next(int p[6])
{
    int i = 4;
    while (i >= 0 && p[i] > p[i + 1])
        i--;
    if (i < 0)
        return 0;
    int j = 5;
    while (p[j] < p[i])
        j--;
    int t = p[i];
    p[i] = p[j];
    p[j] = t;
    for (int l = i + 1, h = 5; l < h; l++, h--) {
        t = p[l];
        p[l] = p[h];
        p[h] = t;
    }
    return 1;
}

/* Outer edge d (0 up, 1 left, 2 right, 3 down) of cell j of the bh x bw
 * window at (y, x): the neighbour's cell index, or -1 when that neighbour
 * is inside the window or outside the grid. */
CUPLAS_HD int64_t cuplas_polish_outer(int64_t H, int64_t W, int64_t y, int64_t x, int bh,
                                      int bw, int j, int d)
{
    const int64_t cy = y + j / bw, cx = x + j % bw;
    const int64_t ny = cy + (d == 3) - (d == 0), nx = cx + (d == 2) - (d == 1);
    if (ny >= y && ny < y + bh && nx >= x && nx < x + bw)
        return -1;
    if (ny < 0 || ny >= H || nx < 0 || nx >= W)
        return -1;
    return ny * W + nx;
}

/* Exact squared distance of two cells' Cp channels. */
CUPLAS_HD int64_t cuplas_polish_d2(const int16_t *a, const int16_t *b, int Cp)
{
    int64_t s = 0;
    for (int c = 0; c < Cp; c += 4) {
        int32_t u[4], v[4];
        cuplas_polish_load4(a + c, u);
        cuplas_polish_load4(b + c, v);
        for (int k = 0; k < 4; k++) {
            const int64_t d = u[k] - v[k];
            s += d * d;
        }
    }
    return s;
}

/* E[i*6 + j]: value i (cell i's) on cell j against cell j's outer
 * neighbours, their L2 distances added in the order up, left, right,
 * down. Entry t of 36, so that the GPU's lanes may share them out. */
CUPLAS_HD double cuplas_polish6_e(const int16_t *q, int64_t cs, int Cp, int64_t H, int64_t W,
                                  int64_t y, int64_t x, int bh, int bw, int t)
{
    const int i = t / 6, j = t % 6;
    const int16_t *v = q + ((y + i / bw) * W + x + i % bw) * cs;
    double e = 0;
    for (int d = 0; d < 4; d++) {
        const int64_t nb = cuplas_polish_outer(H, W, y, x, bh, bw, j, d);
        if (nb >= 0)
            e += sqrt((double)cuplas_polish_d2(v, q + nb * cs, Cp));
    }
    return e;
}

/* P[i*6 + j], i < j: the L2 distance of values i and j. */
CUPLAS_HD double cuplas_polish6_p(const int16_t *q, int64_t cs, int Cp, int64_t W, int64_t y,
                                  int64_t x, int bw, int i, int j)
{
    return sqrt((double)cuplas_polish_d2(q + ((y + i / bw) * W + x + i % bw) * cs,
                                         q + ((y + j / bw) * W + x + j % bw) * cs, Cp));
}

/* The sum of arrangement p: E in cell order, then the inner edges, the
 * horizontal ones row by row and then the vertical ones. */
CUPLAS_HD double cuplas_polish6_sum(const double *E, const double *P, int bw, const int p[6])
{
    double s = E[p[0] * 6 + 0] + E[p[1] * 6 + 1] + E[p[2] * 6 + 2] + E[p[3] * 6 + 3] +
               E[p[4] * 6 + 4] + E[p[5] * 6 + 5];
    for (int j = 0; j < 6; j++)   /* horizontal: j and j + 1 in one row */
        if ((j + 1) % bw)
            s += P[p[j] * 6 + p[j + 1]];
    for (int j = 0; j + bw < 6; j++) /* vertical: j and j + bw */
        s += P[p[j] * 6 + p[j + bw]];
    return s;
}

/* The CPU's 2x3 / 3x2 window: E and P, then the 720 sums in rank order,
 * the first least one. Returns 1 and perm when it moves. (The GPU shares
 * the same steps out over a warp: cuda/polish_gpu.cu.) */
static inline int cuplas_polish_block6(const int16_t *q, int64_t cs, int Cp, int64_t H,
                                       int64_t W, int64_t y, int64_t x, int bh, int bw,
                                       int perm[6])
{
    double E[36], P[36], id = 0, best = 0;
    int p[6] = { 0, 1, 2, 3, 4, 5 }, r = 0, best_r = 0;
    for (int t = 0; t < 36; t++)
        E[t] = cuplas_polish6_e(q, cs, Cp, H, W, y, x, bh, bw, t);
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++)
            P[i * 6 + j] = P[j * 6 + i] = cuplas_polish6_p(q, cs, Cp, W, y, x, bw, i, j);
    do {
        const double s = cuplas_polish6_sum(E, P, bw, p);
        if (r == 0)
            id = best = s;
        else if (s < best) {
            best = s;
            best_r = r;
        }
        r++;
    } while (cuplas_polish6_next(p));
    if (best_r == 0 || !cuplas_polish_beats(best, id)) {
        for (int j = 0; j < 6; j++)
            perm[j] = j;
        return 0;
    }
    cuplas_polish6_unrank(best_r, perm);
    return 1;
}

/* Host: the window of either size (the CPU reference's entry point). */
static inline int cuplas_polish_window(const int16_t *q, int64_t cs, int Cp, int64_t H,
                                       int64_t W, int64_t y, int64_t x, int bh, int bw,
                                       int perm[CUPLAS_POLISH_CELLS])
{
    return bh * bw == 4 ? cuplas_polish_block4(q, cs, Cp, H, W, y, x, perm)
                        : cuplas_polish_block6(q, cs, Cp, H, W, y, x, bh, bw, perm);
}

#ifdef __cplusplus
}
#endif
#endif
