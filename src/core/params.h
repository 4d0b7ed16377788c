/*
 * params.h - the sort parameters shared by the CPU reference and the GPU.
 *
 * Every field is one config key under `sort:` (README "Config keys").
 * Together with the input and the seed they fully determine the output
 * index: that is the determinism contract, so nothing else may feed the
 * sorter (no thread count, no device, no clock).
 */
#ifndef CUPLAS_PARAMS_H
#define CUPLAS_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CUPLAS_PERMUTER_FEISTEL = 0, CUPLAS_PERMUTER_LCG = 1 } cuplas_permuter;
typedef enum {
    CUPLAS_BORDER_CIRCULAR = 0, /* wrap around                          */
    CUPLAS_BORDER_REFLECT = 1,  /* mirror without repeating the edge    */
    CUPLAS_BORDER_REPLICATE = 2 /* clamp to the edge sample             */
} cuplas_border;

/* sort.preset: a named set of values for every other sort.* key (params.c
 * holds the table, README "Presets" its figures, docs/tuning.md how the
 * values were found). */
typedef enum {
    CUPLAS_PRESET_DEFAULT = 0, /* the defaults: speed and quality balanced  */
    CUPLAS_PRESET_FAST = 1,    /* CUPLAS's quality in a fraction of the work */
    CUPLAS_PRESET_BEST = 2     /* quality first, tens of times the work      */
} cuplas_preset;

typedef struct cuplas_sort_params {
    uint64_t seed;             /* sort.seed                                 */
    cuplas_permuter permuter;  /* sort.permuter: feistel | lcg              */
    bool shuffle;              /* sort.shuffle: random start (PLAS: caller) */
    double start_radius;       /* sort.start_radius: 0 = max(H,W)/2 - 1     */
    double radius_decay;       /* sort.radius_decay, in (0,1)               */
    int min_blur_radius;       /* sort.min_blur_radius >= 1                 */
    int min_block_size;        /* sort.min_block_size, even, >= 2           */
    int blur_passes;           /* sort.blur_passes: iterated box, 1..4      */
    cuplas_border border_x;    /* sort.border_x                             */
    cuplas_border border_y;    /* sort.border_y                             */
    double improvement_break;  /* sort.improvement_break: relative, >= 0    */
    int min_configs;           /* sort.min_configs per level, >= 1          */
    int max_configs;           /* sort.max_configs per level                */
    int max_passes;            /* sort.max_passes per configuration         */
    int group_size;            /* sort.group_size: cells per group, 4|8|16  */
    int local_cells;           /* sort.local_cells: blocks of at most this
                                  many cells run block-local passes
                                  (core/level.h); 0 = never              */
    int local_passes;          /* sort.local_passes: passes a configuration
                                  of a block-local level runs; 0 = max_passes */
    int local_group_size;      /* sort.local_group_size: a 4-cell sort's
                                  levels of at most local_cells cells take
                                  groups of this many cells (8|16|32), run
                                  grid-wide; 0 or 4 = block-local 4-cell */
    int polish;                /* sort.polish: sweeps of the AND polish after
                                  the last level (core/polish.h); 0 = none */
    int polish_cells;          /* sort.polish_cells: its windows, 4 (2x2)
                                  or 6 (2x3 and 3x2)                      */
    cuplas_preset preset;      /* sort.preset: where the values above came
                                  from; the sorter itself never reads it    */
    bool wide_auto;            /* grids of more than CUPLAS_WIDE_CHANNELS
                                  sort channels take the preset's wide
                                  values (cuplas_sort_params_for_channels);
                                  false once the config names one of them */
    bool small_auto;           /* grids of fewer cells than the preset's
                                  small row asks take its small-level
                                  values (cuplas_sort_params_for_grid);
                                  false once the config names one of them */
} cuplas_sort_params;

/* Grids of more channels than this are "wide": a preset may give them
 * other values (README "Presets"). */
#define CUPLAS_WIDE_CHANNELS 4

/* Cells per group of a sort's levels, its own (sort.group_size; 0 reads
 * as 4), and on its levels of at most local_cells cells (in a 4-cell sort,
 * sort.local_group_size when that is 8, 16 or 32). The one rule: core/level.h
 * applies it, the GPU sizes its launches and tables by it. */
static inline int cuplas_group_main(const cuplas_sort_params *p)
{
    return p->group_size > 4 ? p->group_size : 4;
}

static inline int cuplas_group_small(const cuplas_sort_params *p)
{
    return cuplas_group_main(p) == 4 && p->local_group_size > 4 ? p->local_group_size
                                                                  : cuplas_group_main(p);
}

/* The documented defaults (README "Config keys"): the `default` preset. */
void cuplas_sort_params_default(cuplas_sort_params *p);

/* Every field of preset `preset` (seed 1337, as the defaults). */
void cuplas_sort_params_of_preset(cuplas_preset preset, cuplas_sort_params *p);

/* The same by name ("fast", "default", "best"): 0, or -1 for an unknown
 * name (p untouched). */
int cuplas_sort_params_preset(const char *name, cuplas_sort_params *p);

/* The values for a grid of `channels` sort channels: when p->wide_auto and
 * the grid is wide, sort.group_size, sort.improvement_break,
 * sort.max_passes and sort.max_configs become the preset's wide values (a
 * set: a config that names any of the four keeps its own, see
 * config/yaml.c). Called once
 * the channels are known, before the sort and before the params are
 * written; clears wide_auto. */
void cuplas_sort_params_for_channels(cuplas_sort_params *p, int channels);

/* cuplas_sort_params_for_channels, then: when p->small_auto and the grid
 * has fewer than the preset's small-row cells, sort.local_group_size,
 * sort.local_passes, sort.max_configs and (where the row gives one)
 * sort.radius_decay become its small values (a set, as the wide one).
 * `default`: under 2^19 cells, 0.5.x's block-local 4-cell small levels,
 * whose batch throughput is higher there; `best`: under 4096 cells,
 * 32-cell small levels and decay 0.998. Clears small_auto. What the
 * pipeline and the benches call per grid. */
void cuplas_sort_params_for_grid(cuplas_sort_params *p, int channels, int64_t cells);

/* Whether preset's small row sets sort.radius_decay (`best`'s does): only
 * then does naming that key keep the row's other values from applying. */
bool cuplas_preset_small_row_decays(cuplas_preset preset);

const char *cuplas_preset_name(cuplas_preset p);
const char *cuplas_permuter_name(cuplas_permuter p);
const char *cuplas_border_name(cuplas_border b);

#ifdef __cplusplus
}
#endif
#endif
