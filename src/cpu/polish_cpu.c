/*
 * polish_cpu.c - CPU reference of the AND polish (core/polish.h has the
 * rule, the sweep order and why it exists). GPU twin: cuda/polish_gpu.cu.
 *
 * Each sub-pass's windows are independent (core/polish.h), so they run in
 * parallel with no effect on the result.
 */
#include "cpu/polish_cpu.h"

#include <string.h>

#include "cpu/assign_cpu.h" /* CUPLAS_CPU_MAX_CP */
#include "core/polish.h"

int64_t cuplas_polish_cpu(int16_t *q, int64_t *idx, int64_t H, int64_t W, int Cp, int sweeps,
                          int cells)
{
    int64_t total = 0;
    for (int sw = 0; sw < sweeps; sw++) {
        int64_t moved = 0;
        for (int s = 0; s < cuplas_polish_steps(cells); s++) {
            int64_t oy, ox, ni, nj;
            int bh, bw;
            cuplas_polish_step(H, W, cells, s, &bh, &bw, &oy, &ox, &ni, &nj);
            #pragma omp parallel for reduction(+ : moved) schedule(static)
            for (int64_t b = 0; b < ni * nj; b++) {
                const int64_t y = oy + 2 * bh * (b / nj), x = ox + 2 * bw * (b % nj);
                const int n = bh * bw;
                int perm[CUPLAS_POLISH_CELLS];
                if (!cuplas_polish_window(q, Cp, Cp, H, W, y, x, bh, bw, perm))
                    continue;
                int64_t cell[CUPLAS_POLISH_CELLS], id[CUPLAS_POLISH_CELLS];
                int16_t v[CUPLAS_POLISH_CELLS][CUPLAS_CPU_MAX_CP];
                for (int j = 0; j < n; j++) {
                    cell[j] = (y + j / bw) * W + x + j % bw;
                    id[j] = idx[cell[j]];
                    memcpy(v[j], q + cell[j] * Cp, (size_t)Cp * sizeof *q);
                }
                for (int j = 0; j < n; j++) {
                    idx[cell[j]] = id[perm[j]];
                    memcpy(q + cell[j] * Cp, v[perm[j]], (size_t)Cp * sizeof *q);
                }
                moved++;
            }
        }
        total += moved;
        if (!moved)
            break;
    }
    return total;
}
