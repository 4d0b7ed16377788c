/*
 * params.c - the sort parameters' presets; `default` is the documented
 * defaults.
 *
 * One table row per preset holds a value for every sort.* key, so a preset
 * is a plain set of parameters: the sorter never knows which one it runs,
 * CPU and GPU run any of them identically, and a key set explicitly in a
 * config or with --set replaces the preset's value (config/yaml.c applies
 * the preset to the keys the config did not name). A preset may also
 * have a wide row (other values of four keys for grids of more than 4
 * sort channels) and a small row (three or four keys, grids of few cells),
 * applied once a grid is known (cuplas_sort_params_for_grid). How the
 * rows were chosen: docs/tuning.md, NEWS.md, bench/results/2026-11-23-cpu-presets and
 * 2026-11-24-h200-tiles.
 */
#include "core/params.h"

#include <string.h>

static const char *const preset_names[] = { "default", "fast", "best" };

static const cuplas_sort_params presets[] = {
    /* Below PLAS's quality (peers' colors_1024: AND 3.121 against PLAS's
     * 3.141; 2048^2 x 3: 1.976 against 1.979) in 89 / 356 ms on an H200:
     * 2..3 configurations per level. Levels with blocks of more than
     * 4096 cells run 4-cell passes, up to 15 a configuration, until a pass
     * gains under 0.001 %; the smaller ones one pass of 16-cell groups a
     * configuration (0.6.0: an exact 16-cell solve finds what many 4-cell
     * passes do not once the blocks are small; 0.5.0 ran those levels
     * block-local with 4-cell groups and 15 passes, and 4 configurations:
     * 3.137 / 1.985 in 91 / 371 ms. bench/results/2026-11-24-h200-conn r6-r8) */
    [CUPLAS_PRESET_DEFAULT] = {
        .seed = 1337, .permuter = CUPLAS_PERMUTER_FEISTEL, .shuffle = true,
        .start_radius = 0.0, .radius_decay = 0.95, .min_blur_radius = 1,
        .min_block_size = 4, .blur_passes = 1,
        .border_x = CUPLAS_BORDER_CIRCULAR, .border_y = CUPLAS_BORDER_REFLECT,
        .improvement_break = 1e-5, .min_configs = 2, .max_configs = 3, .max_passes = 15,
        .group_size = 4, .local_cells = 4096, .local_passes = 1, .local_group_size = 16,
        .polish = 8, .polish_cells = 4, .preset = CUPLAS_PRESET_DEFAULT, .wide_auto = true, .small_auto = true },
    /* fewer levels (decay 0.85: 39 instead of 122 at 1024^2), 2 passes a
     * configuration, and a configuration ends once a pass gains under 1 %:
     * 1024^2 x 3 AND 3.936 (CUPLAS: 4.285) in 275 passes, 7.7 ms on an H200 */
    [CUPLAS_PRESET_FAST] = {
        .seed = 1337, .permuter = CUPLAS_PERMUTER_FEISTEL, .shuffle = true,
        .start_radius = 0.0, .radius_decay = 0.85, .min_blur_radius = 1,
        .min_block_size = 4, .blur_passes = 1,
        .border_x = CUPLAS_BORDER_CIRCULAR, .border_y = CUPLAS_BORDER_REFLECT,
        .improvement_break = 1e-2, .min_configs = 2, .max_configs = 4, .max_passes = 2,
        .group_size = 4, .local_cells = 4096, .local_passes = 0, .polish_cells = 4,
        .preset = CUPLAS_PRESET_FAST,
        .wide_auto = true, .small_auto = true },
    /* quality first: a slow decay (5x the levels), 4..8 configurations of
     * up to 16 passes per level that run until a pass gains under
     * 0.001 %, and borders that do not wrap (a wrapped target joins the
     * grid's left and right edges, which DPQ on the unwrapped grid
     * penalises), and (0.6.0) two passes of 16-cell groups a configuration
     * on the levels of at most 4096 cells: colors_1024 AND 3.045 (mean of
     * 3 seeds; 0.5.x: 3.086) in 1.50 s on an H200, 32 x 32 DPQ16 0.9485
     * (0.947) (bench/results/2026-11-24-h200-conn r11) */
    [CUPLAS_PRESET_BEST] = {
        .seed = 1337, .permuter = CUPLAS_PERMUTER_FEISTEL, .shuffle = true,
        .start_radius = 0.0, .radius_decay = 0.99, .min_blur_radius = 1,
        .min_block_size = 4, .blur_passes = 1,
        .border_x = CUPLAS_BORDER_REFLECT, .border_y = CUPLAS_BORDER_REFLECT,
        .improvement_break = 1e-5, .min_configs = 4, .max_configs = 8, .max_passes = 16,
        .group_size = 4, .local_cells = 4096, .local_passes = 2, .local_group_size = 16,
        .polish = 8, .polish_cells = 6, .preset = CUPLAS_PRESET_BEST,
        .wide_auto = true, .small_auto = true },
};

_Static_assert(sizeof presets / sizeof presets[0] == sizeof preset_names / sizeof preset_names[0],
               "one name per preset");

/* Grids of more than CUPLAS_WIDE_CHANNELS channels (group_size 0: as the
 * row above). `default`: one pass of 16-cell groups a configuration, and
 * a configuration that gains under 1 % ends the level's tries. Wide rows
 * cost much to compare and little more to solve in larger groups, so a
 * few exact 16-cell passes beat many 4-cell ones (H200, 2026-11-24,
 * bench/results/2026-11-24-h200-tiles t9: 1024^2 x 8 / 16 / 32 normals
 * 143 / 280 / 739 ms -> 77 / 109 / 163 ms, AND 1.027 / 2.894 / 5.663 ->
 * 1.027 / 2.889 / 5.664; 2048^2 x 16 1.27 -> 0.44 s), with the same
 * bytes on two real scenes (within 0.1 %) and the same AND on 384-channel
 * embeddings. `fast` and `best` keep their rows: not measured wide. */
static const struct {
    int group_size;
    double improvement_break;
    int max_passes, max_configs;   /* 4: 0.5.0's, the row as measured */
} wide[] = {
    [CUPLAS_PRESET_DEFAULT] = { 16, 1e-2, 1, 4 },
    [CUPLAS_PRESET_FAST] = { 0, 0, 0, 0 },
    [CUPLAS_PRESET_BEST] = { 0, 0, 0, 0 },
};

_Static_assert(sizeof wide / sizeof wide[0] == sizeof presets / sizeof presets[0],
               "one wide row per preset");

/* Grids of fewer than min_cells cells (0: no small row). `default`: 16
 * lanes of 256^2 x 3 sorts did 161-167 grids/s with the 16-cell small
 * levels against 193-194 with 0.5.x's block-local 4-cell ones (512^2:
 * 39 against 41-43; 1024^2: 11.1 against 10.8), for 0.4-0.6 % of AND
 * (H200, bench/results/2026-11-24-h200-conn r15): below 2^19 cells a
 * batch's throughput wins. `best`: grids of under 4096 cells (the
 * 32 x 32 benchmark's size) take 32-cell groups on their small levels and
 * a decay of 0.998 (5x the levels), quality first where it costs little:
 * the 32 x 32 benchmark's DPQ16 0.9516 -> 0.9552 (CPU, seeds 1-5), 1 s a
 * seed on one core, 267 ms on an H200 (bench/results/2026-11-24-h200-exit
 * d11). */
static const struct {
    int64_t min_cells;
    int local_group_size, local_passes, max_configs;
    double radius_decay;   /* 0: the preset's */
} small[] = {
    [CUPLAS_PRESET_DEFAULT] = { (int64_t)1 << 19, 0, 0, 4, 0 },
    [CUPLAS_PRESET_FAST] = { 0, 0, 0, 0, 0 },
    [CUPLAS_PRESET_BEST] = { (int64_t)1 << 12, 32, 2, 8, 0.998 },
};

_Static_assert(sizeof small / sizeof small[0] == sizeof presets / sizeof presets[0],
               "one small row per preset");

void cuplas_sort_params_of_preset(cuplas_preset preset, cuplas_sort_params *p)
{
    if ((unsigned)preset >= sizeof presets / sizeof presets[0])
        preset = CUPLAS_PRESET_DEFAULT;
    *p = presets[preset];
}

void cuplas_sort_params_default(cuplas_sort_params *p)
{
    cuplas_sort_params_of_preset(CUPLAS_PRESET_DEFAULT, p);
}

void cuplas_sort_params_for_channels(cuplas_sort_params *p, int channels)
{
    const unsigned pr = (unsigned)p->preset;
    if (p->wide_auto && channels > CUPLAS_WIDE_CHANNELS && pr < sizeof wide / sizeof wide[0] &&
        wide[pr].group_size) {
        p->group_size = wide[pr].group_size;
        p->improvement_break = wide[pr].improvement_break;
        p->max_passes = wide[pr].max_passes;
        p->max_configs = wide[pr].max_configs;
    }
    p->wide_auto = false;
}

void cuplas_sort_params_for_grid(cuplas_sort_params *p, int channels, int64_t cells)
{
    const unsigned pr = (unsigned)p->preset;
    cuplas_sort_params_for_channels(p, channels);
    if (p->small_auto && pr < sizeof small / sizeof small[0] && cells < small[pr].min_cells) {
        p->local_group_size = small[pr].local_group_size;
        p->local_passes = small[pr].local_passes;
        p->max_configs = small[pr].max_configs;
        if (small[pr].radius_decay > 0)
            p->radius_decay = small[pr].radius_decay;
    }
    p->small_auto = false;
}

bool cuplas_preset_small_row_decays(cuplas_preset preset)
{
    return (unsigned)preset < sizeof small / sizeof small[0] && small[preset].radius_decay > 0;
}

int cuplas_sort_params_preset(const char *name, cuplas_sort_params *p)
{
    for (size_t i = 0; i < sizeof preset_names / sizeof preset_names[0]; i++)
        if (name && strcmp(name, preset_names[i]) == 0) {
            cuplas_sort_params_of_preset((cuplas_preset)i, p);
            return 0;
        }
    return -1;
}

const char *cuplas_preset_name(cuplas_preset p)
{
    if ((unsigned)p >= sizeof preset_names / sizeof preset_names[0])
        return "?";
    return preset_names[p];
}

const char *cuplas_permuter_name(cuplas_permuter p)
{
    return p == CUPLAS_PERMUTER_LCG ? "lcg" : "feistel";
}

const char *cuplas_border_name(cuplas_border b)
{
    switch (b) {
    case CUPLAS_BORDER_CIRCULAR: return "circular";
    case CUPLAS_BORDER_REFLECT: return "reflect";
    case CUPLAS_BORDER_REPLICATE: return "replicate";
    }
    return "?";
}
