/*
 * polish.h - the AND polish that may follow a sort's last level (sort.polish),
 * one 2x2 block at a time, shared by the CPU reference (cpu/polish_cpu.c)
 * and the GPU (cuda/polish_gpu.cu). C11 and CUDA, like quad.h.
 *
 * Why: the levels minimise a blurred-target energy, squared distances to a
 * box blur that includes the cell itself. What users measure at the end is
 * the mean L2 distance between 4-neighbours (AND), which is not squared,
 * and a local optimum of the one is not one of the other. A few sweeps of
 * the exact AND over every 2x2 block lower AND by about 2 % and raise
 * DPQ16 on the 32 x 32 benchmark (bench/results/2026-11-24-h200-exit).
 *
 *      cells  c0 c1      a block's 4 values take the arrangement of the 24
 *             c2 c3      (lexicographic, identity first) whose sum of L2
 *                        distances over every 4-neighbour edge touching the
 *                        block (4 inside, up to 8 to the cells around it;
 *                        none across the grid's edges: AND does not wrap)
 *                        is the least; the identity unless that is less
 *                        by more than rounding (CUPLAS_POLISH_MARGIN).
 *
 * A sweep: 4 tilings of the grid by 2x2 blocks (offsets (0,0), (1,1),
 * (0,1), (1,0)), each in 4 sub-passes, one per colour (block row % 2,
 * block column % 2). Blocks of one colour are at least one block apart,
 * so none reads a cell another of its sub-pass writes: a sub-pass gives
 * the same grid in any order, on any number of threads. A sweep that moves
 * nothing leaves the grid a fixed point, so the sweeps after it move
 * nothing either; the backends may stop there or run them all.
 *
 * Exactness: squared distances of quantised features are exact integers
 * (< 2^53); sqrt is IEEE (correctly rounded) on the host and the device;
 * each arrangement's sum is the same sequence of double additions on both.
 * So both backends choose the same arrangement, bit for bit.
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

/* The 16 sub-passes of a sweep: tiling offset and block colour. */
#define CUPLAS_POLISH_STEPS 16

/* Sub-pass s (0..15) of a sweep over an H x W grid: its blocks'
 * top-left cells are (oy + 4 i, ox + 4 j) for i < *ni, j < *nj (either
 * may be 0: nothing to do). s / 4 picks the tiling, s % 4 the colour. */
CUPLAS_HD void cuplas_polish_step(int64_t H, int64_t W, int s, int64_t *oy, int64_t *ox,
                                  int64_t *ni, int64_t *nj)
{
    const int off = s >> 2, col = s & 3;
    const int64_t ty = off == 1 || off == 3, tx = off == 1 || off == 2;
    const int64_t cy = col >> 1, cx = col & 1;
    const int64_t by = H >= ty + 2 ? (H - ty) / 2 : 0; /* blocks down, this tiling */
    const int64_t bx = W >= tx + 2 ? (W - tx) / 2 : 0;
    *oy = ty + 2 * cy;
    *ox = tx + 2 * cx;
    *ni = by > cy ? (by - cy + 1) / 2 : 0;
    *nj = bx > cx ? (bx - cx + 1) / 2 : 0;
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

/*
 * The arrangement for the 2x2 block at (y, x) of the grid q (cell i at
 * q + i * cs, Cp channels, a multiple of 4): returns 0 (keep) or 1..23,
 * the lexicographic index of the arrangement (cell j <- value perm[j]),
 * and writes it to perm. The caller moves the values and the index.
 *
 * One pass over the channels gathers the 38 exact squared distances (each
 * of the 4 values against each cell's 2 outer neighbours, and the 6 pairs
 * of values), 12 cells read once; then 38 square roots and 24 sums.
 */
CUPLAS_HD int cuplas_polish_block(const int16_t *q, int64_t cs, int Cp, int64_t H, int64_t W,
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
    if (found && !(id - best > id * CUPLAS_POLISH_MARGIN))
        found = 0;
    for (int j = 0; j < 4; j++)
        perm[j] = found ? bp[j] : j;
    return found;
}

#ifdef __cplusplus
}
#endif
#endif
