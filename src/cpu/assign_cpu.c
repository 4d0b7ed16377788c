/*
 * assign_cpu.c - the group solve, CPU reference of cuda/assign_gpu.cu.
 *
 * A pass splits every block of the level into random groups of 4 cells
 * (the pass's permutation of the block offsets, read 4 at a time), and
 * gives each group the best of its 24 arrangements (core/quad.h). With
 * sort.group_size 8 or 16 the offsets are read 8 or 16 at a time and each
 * group gets its optimal arrangement from the assignment solver
 * (core/lap.h; a block's leftover cells form one smaller group). Groups
 * are disjoint, so a pass is order-free; its costs are exact integer
 * sums. A level repeats passes and configurations as core/level.h's
 * control decides.
 */
#include "cpu/assign_cpu.h"

#include <stdlib.h>
#include <string.h>

#include "core/lap.h"
#include "core/quad.h"
#include "core/random.h"

/* The grid cell of block offset o in block (by, bx) under the shift. */
static int64_t quad_cell(const cuplas_pass_geom *g, int64_t by, int64_t bx, uint32_t o)
{
    int64_t y = (by * g->bh + o / g->bw + g->sy) % g->H;
    int64_t x = (bx * g->bw + o % g->bw + g->sx) % g->W;
    return y * g->W + x;
}

static void quad_costs(const int16_t *q, const int16_t *t, int Cp,
                       const int64_t cell[4], uint64_t D[4][4])
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            const int16_t *a = q + cell[i] * Cp, *b = t + cell[j] * Cp;
            uint64_t s = 0;
            for (int c = 0; c < Cp; c++) {
                int32_t d = (int32_t)a[c] - b[c];
                s += (uint32_t)(d * d);
            }
            D[i][j] = s;
        }
}

static void quad_apply(int16_t *q, int64_t *idx, int Cp, const int64_t cell[4],
                       uint32_t code)
{
    int16_t v[4][CUPLAS_CPU_MAX_CP];
    int64_t id[4];
    for (int i = 0; i < 4; i++) {
        memcpy(v[i], q + cell[i] * Cp, Cp * sizeof *q);
        id[i] = idx[cell[i]];
    }
    for (int j = 0; j < 4; j++) {
        int src = (code >> (2 * j)) & 3;
        memcpy(q + cell[j] * Cp, v[src], Cp * sizeof *q);
        idx[cell[j]] = id[src];
    }
}

/* Solve the group of 4 cells of block (by, bx) at offsets off[0..3] in
 * place; add its identity and best costs to *sb, *sa. Returns whether it
 * moved. */
static inline int quad_solve(int16_t *q, int64_t *idx, const int16_t *target, int Cp,
                      const cuplas_pass_geom *g, int64_t by, int64_t bx, const uint32_t off[4],
                      uint64_t *sb, uint64_t *sa)
{
    int64_t cell[4];
    for (int j = 0; j < 4; j++)
        cell[j] = quad_cell(g, by, bx, off[j]);
    uint64_t D[4][4], cid, cbest;
    quad_costs(q, target, Cp, cell, D);
    uint32_t code = cuplas_quad_best(D, &cid, &cbest);
    *sb += cid;
    *sa += cbest;
    if (cbest == cid)
        return 0;
    quad_apply(q, idx, Cp, cell, code);
    return 1;
}

/*
 * Groups of k > 4 cells (sort.group_size): the m x m costs of group r of
 * block b (m = k, or the leftover count), lap.h's optimal arrangement,
 * applied only when strictly cheaper than the identity (as the 4-cell
 * solve), so a group whose identity ties with the optimum never moves.
 */
static void group_pass(int16_t *q, int64_t *idx, const int16_t *t, int Cp,
                       const cuplas_pass_geom *g, const cuplas_perm *perm,
                       uint64_t *before, uint64_t *after)
{
    const uint32_t k = g->group;
    const int64_t nbx = g->W / g->bw, per = cuplas_groups_per_block(g->n, k);
    const int64_t total = nbx * (g->H / g->bh) * per;
    uint64_t sb = 0, sa = 0;
    #pragma omp parallel for reduction(+ : sb, sa) schedule(static)
    for (int64_t gi = 0; gi < total; gi++) {
        const int64_t b = gi / per, r = gi % per;
        const int m = cuplas_group_cells(g->n, k, (uint32_t)r);
        int64_t cell[CUPLAS_LAP_MAX];
        for (int j = 0; j < m; j++)
            cell[j] = quad_cell(g, b / nbx, b % nbx,
                                cuplas_perm_apply(perm, (uint32_t)(r * k + j)));
        uint64_t D[CUPLAS_LAP_MAX * CUPLAS_LAP_MAX], cid = 0;
        for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++) {
                const int16_t *a = q + cell[i] * Cp, *bb = t + cell[j] * Cp;
                uint64_t s = 0;
                for (int c = 0; c < Cp; c++) {
                    int32_t d = (int32_t)a[c] - bb[c];
                    s += (uint32_t)(d * d);
                }
                D[i * m + j] = s;
            }
        for (int j = 0; j < m; j++)
            cid += D[j * m + j];
        uint8_t src[CUPLAS_LAP_MAX];
        uint64_t cbest = cuplas_lap_solve(m, D, src);
        sb += cid;
        sa += cbest;
        if (cbest < cid) {
            static _Thread_local int16_t v[CUPLAS_LAP_MAX][CUPLAS_CPU_MAX_CP];
            int64_t id[CUPLAS_LAP_MAX];
            for (int i = 0; i < m; i++) {
                memcpy(v[i], q + cell[i] * Cp, (size_t)Cp * sizeof *q);
                id[i] = idx[cell[i]];
            }
            for (int j = 0; j < m; j++) {
                memcpy(q + cell[j] * Cp, v[src[j]], (size_t)Cp * sizeof *q);
                idx[cell[j]] = id[src[j]];
            }
        }
    }
    *before = sb;
    *after = sa;
}

void cuplas_assign_pass_cpu(int16_t *q, int64_t *idx, const int16_t *target, int Cp,
                            const cuplas_pass_geom *g, uint64_t seed, uint32_t level,
                            uint32_t cfg, uint32_t pass, uint64_t *before,
                            uint64_t *after)
{
    if (g->group > 4) {
        cuplas_perm gp = cuplas_pass_perm(g, seed, level, cfg, pass);
        group_pass(q, idx, target, Cp, g, &gp, before, after);
        return;
    }
    cuplas_perm perm = cuplas_pass_perm(g, seed, level, cfg, pass);
    const int64_t nbx = g->W / g->bw, quads = g->n / 4;
    const int64_t total = nbx * (g->H / g->bh) * quads;
    uint64_t sb = 0, sa = 0;
    #pragma omp parallel for reduction(+ : sb, sa) schedule(static)
    for (int64_t gi = 0; gi < total; gi++) {
        const int64_t b = gi / quads, k = gi % quads;
        uint32_t off[4];
        for (int j = 0; j < 4; j++)
            off[j] = cuplas_perm_apply(&perm, (uint32_t)(4 * k + j));
        quad_solve(q, idx, target, Cp, g, b / nbx, b % nbx, off, &sb, &sa);
    }
    *before = sb;
    *after = sa;
}

/*
 * A block-local level (core/level.h): per configuration, every block runs
 * all its passes before the next block. Blocks of up to 4096 cells read
 * the passes' offsets from tables drawn once per configuration; larger
 * ones (a large sort.local_cells) evaluate the permutations as they go,
 * as the GPU does. Returns -1 when the tables cannot be allocated (the
 * caller's error), else 0.
 */
static int local_level(int16_t *q, int64_t *idx, const int16_t *target, int Cp,
                       const cuplas_level_params *a, cuplas_sort_stats *st)
{
    const uint32_t n = a->bh * a->bw, P = a->max_passes;
    const int64_t nbx = a->W / a->bw, nblocks = nbx * (a->H / a->bh), quads = n / 4;
    cuplas_perm *perms = malloc((size_t)P * sizeof *perms);
    uint32_t *tab = n <= 4096 ? malloc((size_t)P * n * sizeof *tab) : NULL;
    if (!perms || (n <= 4096 && !tab)) {
        free(perms);
        free(tab);
        return -1;
    }
    int moved = 1;
    uint32_t cfg = 0;
    for (; cuplas_local_config_runs(a, cfg, moved); cfg++) {
        const cuplas_pass_geom g = cuplas_level_geom(a, cfg);
        for (uint32_t p = 0; p < P; p++) {
            perms[p] = cuplas_pass_perm(&g, a->seed, a->level, cfg, p);
            for (uint32_t o = 0; tab && o < n; o++)
                tab[(size_t)p * n + o] = cuplas_perm_apply(&perms[p], o);
        }
        moved = 0;
        #pragma omp parallel for reduction(| : moved) schedule(static)
        for (int64_t b = 0; b < nblocks; b++)
            for (uint32_t p = 0; p < P; p++)
                for (int64_t k = 0; k < quads; k++) {
                    uint32_t off[4];
                    uint64_t sb = 0, sa = 0;   /* unused: no test between passes */
                    for (int j = 0; j < 4; j++) {
                        const uint32_t o = (uint32_t)(4 * k + j);
                        off[j] = tab ? tab[(size_t)p * n + o] : cuplas_perm_apply(&perms[p], o);
                    }
                    moved |= quad_solve(q, idx, target, Cp, &g, b / nbx, b % nbx, off, &sb, &sa);
                }
        st->passes += P;
    }
    st->configs += cfg;
    free(perms);
    free(tab);
    return 0;
}

int cuplas_assign_level_cpu(int16_t *q, int64_t *idx, const int16_t *target, int Cp,
                            const cuplas_level_params *a, cuplas_sort_stats *st)
{
    if (cuplas_level_is_local(a))
        return local_level(q, idx, target, Cp, a, st);
    cuplas_level_state s = cuplas_level_start();
    cuplas_pass_geom geo = cuplas_level_geom(a, s.cfg);
    for (;;) {
        uint64_t before, after;
        cuplas_assign_pass_cpu(q, idx, target, Cp, &geo, a->seed, a->level, s.cfg, s.pass,
                               &before, &after);
        cuplas_level_next next = cuplas_level_step(&s, before, after, a);
        if (next == CUPLAS_LEVEL_DONE)
            break;
        if (next == CUPLAS_LEVEL_NEXT_CONFIG)
            geo = cuplas_level_geom(a, s.cfg);
    }
    st->passes += s.passes;
    st->configs += s.cfg;
    return 0;
}
