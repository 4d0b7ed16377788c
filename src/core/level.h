/*
 * level.h - one level of the sort as both backends run it: the pass
 * geometry, the (configuration, pass) control, and what a sort reports.
 * Compiled as C11 (src/cpu) and as CUDA (src/cuda), like random.h.
 *
 * A level runs block configurations, each with a fresh torus shift, each
 * running solve passes with fresh random groups until a pass stops
 * improving (quad.h: cuplas_pass_stops):
 *
 *      state = {cfg 0, pass 0}          shift(cfg), perm(cfg, pass)
 *      loop: run the pass -> (before, after)
 *            switch (cuplas_level_step(&state, before, after, &params))
 *            NEXT_PASS:   perm(cfg, pass)
 *            NEXT_CONFIG: shift(cfg), perm(cfg, 0)
 *            LEVEL_DONE:  stop
 *
 * The CPU reference drives this loop on the host (cpu/assign_cpu.c); the
 * GPU's cooperative level kernel drives it in every thread after a
 * grid-wide barrier (cuda/assign_gpu.cu; block-local levels, below:
 * cuda/assign_local_gpu.cu). The decision depends only on
 * exact integer cost sums, so both take the same path through the level
 * and draw the same shifts and groups: results are bit-identical.
 */
#ifndef CUPLAS_LEVEL_H
#define CUPLAS_LEVEL_H

#include <stdint.h>

#include "core/params.h"
#include "core/quad.h"
#include "core/random.h"
#include "core/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a sort reports, on either backend. */
typedef struct cuplas_sort_stats {
    int levels;
    int64_t configs;   /* block configurations run             */
    int64_t passes;    /* solve passes over all groups          */
    int64_t polish_moves; /* 2x2 blocks the AND polish rearranged  */
    double device_ms;  /* GPU: shuffle + levels, by CUDA events */
    double h2d_ms, d2h_ms; /* GPU: upload and download, by events */
} cuplas_sort_stats;

/* What one pass needs: the level's block shape, the torus shift, the
 * grouping permutation's kind and domain (the bh*bw block offsets), and
 * the cells per group (0 or 4: the 4-cell solve of quad.h; 8, 16 or 32: the
 * assignment solve of lap.h). */
typedef struct cuplas_pass_geom {
    int64_t H, W, bh, bw, sy, sx;
    uint32_t kind;     /* permuter */
    uint32_t n;        /* bh*bw */
    uint32_t group;    /* sort.group_size; 0 reads as 4 */
} cuplas_pass_geom;

/* Groups of a block of n cells in groups of k (k > 4): the pass
 * permutation of the offsets read k at a time; when k does not divide n,
 * the last group holds the n % k leftover cells (a multiple of 4: blocks
 * have even sides), so every cell is in a group. */
CUPLAS_HD uint32_t cuplas_groups_per_block(uint32_t n, uint32_t k)
{
    return (n + k - 1) / k;
}

CUPLAS_HD int cuplas_group_cells(uint32_t n, uint32_t k, uint32_t r)
{
    return n - r * k < k ? (int)(n - r * k) : (int)k;
}

/* Everything a level's control and draws depend on (passed by value to
 * the GPU's level kernel). */
typedef struct cuplas_level_params {
    uint64_t seed;
    uint32_t level;          /* the level's number: a counter of its draws */
    uint32_t permuter;       /* cuplas_permuter                            */
    uint32_t H, W, bh, bw;   /* N < 2^31 on either backend */
    double improvement_break;
    uint32_t min_configs, max_configs, max_passes;
    uint32_t group;          /* sort.group_size                            */
    uint32_t local_cells;    /* sort.local_cells                           */
} cuplas_level_params;

/* Where a level is: the pass about to run, and the work done so far. */
typedef struct cuplas_level_state {
    uint32_t cfg;      /* configuration of the next pass; at the end: configurations run */
    uint32_t pass;     /* pass number within the configuration */
    uint32_t passes;   /* passes run in this level */
    int improved;      /* some pass of this configuration improved */
} cuplas_level_state;

typedef enum cuplas_level_next {
    CUPLAS_LEVEL_NEXT_PASS = 0,   /* same configuration, pass state.pass  */
    CUPLAS_LEVEL_NEXT_CONFIG = 1, /* configuration state.cfg, pass 0      */
    CUPLAS_LEVEL_DONE = 2
} cuplas_level_next;

/*
 * Block-local levels (sort.local_cells, 4-cell groups only). When a
 * level's blocks have at most local_cells cells, each configuration runs
 * every block on its own: a block runs max_passes passes (the groupings
 * of passes 0..max_passes-1, as above; sort.local_passes replaces
 * max_passes there when set) with no test between them, so no
 * pass waits for the whole grid. Blocks are disjoint, so the order in
 * which blocks run cannot change the result. The level ends after
 * max_configs configurations, or once min_configs have run and the last
 * one moved no cell. improvement_break applies to the larger levels only.
 */
CUPLAS_HD int cuplas_level_is_local(const cuplas_level_params *a)
{
    return a->group <= 4 && a->local_cells != 0 && a->bh * a->bw <= a->local_cells;
}

/* Host only: the level parameters of level L of schedule-level lv. */
static inline cuplas_level_params cuplas_level_params_make(const cuplas_sort_params *p,
                                                           const cuplas_level *lv,
                                                           int64_t H, int64_t W, int L)
{
    cuplas_level_params a;
    a.seed = p->seed;
    a.level = (uint32_t)L;
    a.permuter = (uint32_t)p->permuter;
    a.H = (uint32_t)H;
    a.W = (uint32_t)W;
    a.bh = (uint32_t)lv->bh;
    a.bw = (uint32_t)lv->bw;
    a.improvement_break = p->improvement_break;
    a.min_configs = (uint32_t)p->min_configs;
    a.max_configs = (uint32_t)p->max_configs;
    a.max_passes = (uint32_t)p->max_passes;
    a.group = (uint32_t)p->group_size;
    a.local_cells = (uint32_t)p->local_cells;
    /* a 4-cell sort's small levels may take larger groups
       (cuplas_group_small), run grid-wide: only 4-cell levels run
       block-local */
    int small_groups = cuplas_group_small(p) != cuplas_group_main(p) && a.local_cells != 0 &&
                       a.bh * a.bw <= a.local_cells;
    if (small_groups)
        a.group = (uint32_t)cuplas_group_small(p);
    /* a block-local level, or one of those, runs sort.local_passes passes when set */
    if (p->local_passes > 0 && (small_groups || cuplas_level_is_local(&a)))
        a.max_passes = (uint32_t)p->local_passes;
    return a;
}

CUPLAS_HD cuplas_level_state cuplas_level_start(void)
{
    cuplas_level_state s = {0, 0, 0, 0};
    return s;
}

/* The geometry of every pass of configuration cfg (its torus shift). */
CUPLAS_HD cuplas_pass_geom cuplas_level_geom(const cuplas_level_params *a, uint32_t cfg)
{
    cuplas_pass_geom g;
    g.H = a->H;
    g.W = a->W;
    g.bh = a->bh;
    g.bw = a->bw;
    g.kind = a->permuter;
    g.n = a->bh * a->bw;
    g.group = a->group;
    cuplas_shift_draw(a->seed, a->level, cfg, a->H, a->W, &g.sy, &g.sx);
    return g;
}

/* The grouping of pass (level, cfg, pass): a permutation of the bh*bw
 * offsets of a block, read 4 (or group) at a time. */
CUPLAS_HD cuplas_perm cuplas_pass_perm(const cuplas_pass_geom *g, uint64_t seed, uint32_t level,
                                       uint32_t cfg, uint32_t pass)
{
    return cuplas_perm_make(g->kind, g->n, seed, CUPLAS_TAG_GROUP, level, cfg, pass);
}

/*
 * The pass that just ran cost `before` and then `after` over all groups:
 * advance the state and say what runs next. A configuration ends when a
 * pass stops improving or after max_passes passes; the level ends after
 * max_configs configurations, or once min_configs have run and the last
 * one had no improving pass.
 */
CUPLAS_HD cuplas_level_next cuplas_level_step(cuplas_level_state *s, uint64_t before,
                                              uint64_t after, const cuplas_level_params *a)
{
    int config_done = cuplas_pass_stops(before, after, a->improvement_break);
    s->passes++;
    if (!config_done) {
        s->improved = 1;
        config_done = ++s->pass == a->max_passes;
    }
    if (!config_done)
        return CUPLAS_LEVEL_NEXT_PASS;
    s->cfg++;
    if (s->cfg >= a->max_configs || (!s->improved && s->cfg >= a->min_configs))
        return CUPLAS_LEVEL_DONE;
    s->improved = 0;
    s->pass = 0;
    return CUPLAS_LEVEL_NEXT_CONFIG;
}

/* Whether configuration cfg of a block-local level runs, given whether
 * configuration cfg - 1 moved a cell (ignored for cfg 0). */
CUPLAS_HD int cuplas_local_config_runs(const cuplas_level_params *a, uint32_t cfg, int moved)
{
    return cfg < a->max_configs && (cfg < a->min_configs || moved);
}

#ifdef __cplusplus
}
#endif
#endif
