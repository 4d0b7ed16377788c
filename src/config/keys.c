/*
 * keys.c - the config schema: every key with its type, range and one-line
 * doc (the table), the keys that were removed and what replaces them, the
 * defaults, and the names of the enums.
 *
 * Design facts: defaults are not in the table: they live in
 * cuplas_config_defaults (and params.c for sort.*) and the emitter formats
 * them through the table, so there is exactly one copy of each. The table
 * is the only description of a key: adding one here is all it takes for the
 * loader, `cuplas check`, the output attributes and docs/config-keys.md.
 */
#include "config/schema.h"
#include "eval/orders.h"
#include "sort/palette.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * The table
 * ------------------------------------------------------------------------ */

/* Values are read and written through int *: make sure that is the size. */
_Static_assert(sizeof(cuplas_permuter) == sizeof(int), "enum size");
_Static_assert(sizeof(cuplas_border) == sizeof(int), "enum size");
_Static_assert(sizeof(cuplas_preset) == sizeof(int), "enum size");
_Static_assert(sizeof(cuplas_overwrite) == sizeof(int), "enum size");
_Static_assert(sizeof(cuplas_norm) == sizeof(int), "enum size");
_Static_assert(sizeof(cuplas_device_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(cuplas_log_level) == sizeof(int), "enum size");
_Static_assert(sizeof(cuplas_log_format) == sizeof(int), "enum size");
_Static_assert(sizeof(cuplas_fit_mode) == sizeof(int), "enum size");
_Static_assert(sizeof(((cuplas_config *)0)->eval.scheme) == sizeof(int), "enum size");

static const char *const preset_names[] = { "default", "fast", "best", NULL };
static const char *const permuter_names[] = { "feistel", "lcg", NULL };
static const char *const border_names[] = { "circular", "reflect", "replicate", NULL };
static const char *const overwrite_names[] = { "skip", "overwrite", "error", NULL };
static const char *const norm_names[] = { "none", "standardize", "minmax", NULL };
static const char *const device_names[] = { "auto", "cpu", "gpu", NULL };
static const char *const fit_names[] = { "pad", "crop", NULL };
/* the order of cuplas_scheme (eval/schemes.h) */
static const char *const scheme_names[] = { "plain", "sog", "gsplat", "playcanvas", NULL };
#define level_names cuplas_log_level_names
#define format_names cuplas_log_format_names

#define AT(f) offsetof(cuplas_config, f)
#define IN(f) offsetof(cuplas_input_spec, f)

/* Largest channel index and GPU id: bounds the "a-b" range expansion and
 * lets duplicates be found with a small bitmap. */
#define MAX_CHANNEL 65535
#define MAX_GPU 1023

/* Order matters: it is the order of `cuplas check`, the dump and the docs. */
const struct key cuplas_cfg_keys[] = {
    { "inputs", K_INPUTS, AT(inputs), AT(ninputs), .flags = F_REQUIRED,
      .doc = "what to sort: a list of entries with the inputs[] keys below; "
             "required in a config file (absent only when there is no file)" },
    { "output.dir", K_STR, AT(output.dir), .flags = F_NONEMPTY,
      .doc = "directory for the result files, created if missing; "
             "a relative path is relative to the current working directory" },
    { "output.name", K_TEMPLATE, AT(output.name),
      .doc = "result file name: {stem} = input file name without extension, "
             "{file} = input file name, {dataset} = dataset path with '/' and "
             "control characters -> '_' and the leading '/' dropped (a scene's is "
             "vertex), {parent} = the "
             "input's folder name, {relpath} = the input's path below the longest "
             "common folder of its inputs[] entry's matches, without extension, "
             "'/' -> '_' (scenes/a/point_cloud/iteration_7000/point_cloud.ply -> "
             "a_point_cloud_iteration_7000_point_cloud)" },
    { "output.overwrite", K_ENUM, AT(output.overwrite), .names = overwrite_names,
      .doc = "when the result file exists: skip the job if the file is complete "
             "(resume), overwrite it, or fail the job" },
    { "output.chunk_rows", K_I64, AT(output.chunk_rows), .min = 0, .flags = F_MIN,
      .doc = "HDF5 chunk height in grid rows; 0 = auto (chunks of about 1 MiB)" },
    { "output.deflate", K_INT, AT(output.deflate), .min = 0, .max = 9,
      .flags = F_MIN | F_MAX,
      .doc = "gzip level of the result datasets; 0 = uncompressed. Default 1: "
             "with libdeflate as small as zlib's level 4 (within 0.5 %) at 2.6x "
             "its speed, and byte planes that cannot shrink (float32 low "
             "mantissa bytes) stored, not searched: 2.9x faster again on "
             "float32; 2 saves 0.9 % more for 1.3x the time "
             "(bench/results/2026-11-24-cpu-zplanes)" },
    { "output.shuffle", K_BOOL, AT(output.shuffle),
      .doc = "HDF5 byte shuffle before deflate (smaller files for numeric data); "
             "no effect with deflate 0" },
    { "output.fsync", K_BOOL, AT(output.fsync),
      .doc = "each result's data is on disk before its name appears (fdatasync, "
             "then rename); the names themselves are made durable in batches (one "
             "folder fsync per folder at most every second, and all before the run "
             "ends). false leaves the flush to the OS: faster on slow or parallel "
             "file systems, but a crash can then leave a published file incomplete" },
    { "output.ply", K_BOOL, AT(output.ply),
      .doc = "for a PLY or .splat input, also write <output>.ply: the input's vertices "
             "in grid order (row-major, empty cells skipped), every property byte for "
             "byte, the header kept (a .splat or compressed PLY: its decoded float32 "
             "rows, a graphdeco PLY); HDF5 inputs ignore it" },
    { "output.preview", K_BOOL, AT(output.preview),
      .doc = "also write a PNG next to each result (its name with .png for .h5): the "
             "input order and the sorted grid side by side, as `cuplas preview` draws them" },

    { "sort.preset", K_ENUM, AT(sort.preset), .names = preset_names, .flags = F_PARAMS_NONZERO,
      .doc = "a named set of values for the other sort.* keys (README \"Presets\"): fast, "
             "default or best; a sort.* key named in the config or with --set overrides it. "
             "default gives grids of more than 4 sort channels group_size 16, max_passes 1, "
             "improvement_break 1e-2 and max_configs 4 unless one of those four is named, "
             "and grids of under 2^19 cells local_group_size 0, local_passes 0 and "
             "max_configs 4 unless one of those three is named; best gives grids of "
             "under 4096 cells local_group_size 32 and radius_decay 0.998 unless "
             "local_group_size, local_passes, max_configs or radius_decay is named" },
    { "sort.seed", K_U64, AT(sort.seed),
      .doc = "random seed; with the input and the other sort.* keys it fully "
             "determines the result, on any device and thread count" },
    { "sort.permuter", K_ENUM, AT(sort.permuter), .names = permuter_names,
      .doc = "random permutation generator" },
    { "sort.shuffle", K_BOOL, AT(sort.shuffle),
      .doc = "start from a random shuffle of the grid; false = start from the "
             "order as stored" },
    { "sort.start_radius", K_NUM, AT(sort.start_radius), .min = 0, .flags = F_MIN,
      .doc = "first blur radius; 0 = auto (max(H, W) / 2 - 1)" },
    { "sort.radius_decay", K_NUM, AT(sort.radius_decay), .min = 0, .max = 1,
      .flags = F_MIN | F_MAX | F_MIN_OPEN | F_MAX_OPEN,
      .doc = "the radius is multiplied by this after each level (best: 0.99; 0.998 "
             "for grids of under 4096 cells)" },
    { "sort.min_blur_radius", K_INT, AT(sort.min_blur_radius), .min = 1,
      .flags = F_MIN,
      .doc = "smallest blur radius: the schedule stops below it" },
    { "sort.min_block_size", K_INT, AT(sort.min_block_size), .min = 2,
      .flags = F_MIN | F_EVEN,
      .doc = "smallest side of the blocks whose cells are permuted and "
             "swapped (even: blocks split into 2x2 groups)" },
    { "sort.blur_passes", K_INT, AT(sort.blur_passes), .min = 1, .max = 4,
      .flags = F_MIN | F_MAX,
      .doc = "box blurs iterated per target (more = closer to a Gaussian)" },
    { "sort.border_x", K_ENUM, AT(sort.border_x), .names = border_names,
      .doc = "blur border rule along x (within a row)" },
    { "sort.border_y", K_ENUM, AT(sort.border_y), .names = border_names,
      .doc = "blur border rule along y (within a column)" },
    { "sort.improvement_break", K_NUM, AT(sort.improvement_break), .min = 0,
      .max = 1, .flags = F_MIN | F_MAX | F_MAX_OPEN,
      .doc = "a level stops when a pass improves the loss by less than this "
             "fraction" },
    { "sort.min_configs", K_INT, AT(sort.min_configs), .min = 1, .flags = F_MIN,
      .doc = "block configurations tried per level, at least" },
    { "sort.max_configs", K_INT, AT(sort.max_configs), .min = 1, .flags = F_MIN,
      .doc = "block configurations tried per level, at most; must be >= "
             "sort.min_configs" },
    { "sort.max_passes", K_INT, AT(sort.max_passes), .min = 1, .flags = F_MIN,
      .doc = "passes per block configuration, at most" },
    { "sort.group_size", K_INT, AT(sort.group_size), .flags = F_PARAMS_NONDEFAULT,
      .choices = (const int[]){ 4, 8, 16, CHOICES_END },
      .doc = "cells per random group of a pass: 4 (the best of 24 arrangements), 8 or "
             "16 (an exact assignment solve per group: lower AND per pass, more work "
             "per pass; bench/results/2026-11-24-cpu-groups)" },
    { "sort.local_cells", K_INT, AT(sort.local_cells), .min = 0,
      .flags = F_MIN,
      .doc = "levels whose blocks have at most this many cells run block-local "
             "passes: each block runs sort.max_passes passes on its own, with no "
             "grid-wide test between passes (4-cell groups); 0 = never" },
    { "sort.local_passes", K_INT, AT(sort.local_passes), .min = 0, .flags = F_MIN,
      .doc = "passes per configuration on block-local levels (see "
             "sort.local_cells) and on those sort.local_group_size applies to; "
             "0 = sort.max_passes" },
    { "sort.local_group_size", K_INT, AT(sort.local_group_size), .flags = F_PARAMS_NONDEFAULT,
      .choices = (const int[]){ 0, 4, 8, 16, 32, CHOICES_END },
      .doc = "with sort.group_size 4: cells per group on the levels whose blocks have at "
             "most sort.local_cells cells, 8, 16 or 32 (run grid-wide, not block-local); "
             "0 or 4 = block-local 4-cell passes there. default: 16 (0.6.0)" },
    { "sort.polish", K_INT, AT(sort.polish), .min = 0, .max = 64,
      .flags = F_MIN | F_MAX | F_PARAMS_NONDEFAULT,
      .doc = "sweeps of the AND polish after the last level: every 2x2 block takes the "
             "arrangement of its 4 items with the least sum of L2 distances to their "
             "4-neighbours (the AND itself); stops early once a sweep moves nothing; "
             "0 = none. default and best: 8 (0.7.0), fast: 0" },
    { "sort.polish_cells", K_INT, AT(sort.polish_cells), .flags = F_PARAMS_NONDEFAULT,
      .choices = (const int[]){ 4, 6, CHOICES_END },
      .doc = "the polish's windows: 4 (2x2 blocks, 24 arrangements each) or 6 (2x3 and "
             "3x2 windows, 720 arrangements each: about 1 % lower AND than 4, several "
             "times the polish's time). default and fast: 4, best: 6 (0.7.0)" },

    { "channels.use", K_CHANNELS, AT(channels.use), AT(channels.nuse), .min = 0,
      .max = MAX_CHANNEL, .flags = F_MIN | F_MAX, .aux_off = AT(channels.use_names),
      .doc = "channels that drive the sort (all channels are reordered); "
             "all = every channel. Names (PLY/.splat properties, an HDF5 dataset's "
             "columns attribute), globs (f_dc_*), family ranges (f_dc_0-2), indices "
             "and index ranges (\"0-8\"); a name missing from an input is a config "
             "error (exit 2)" },
    { "channels.weights", K_NUMLIST, AT(channels.weights), AT(channels.nweights),
      .min = 0, .flags = F_MIN | F_MIN_OPEN,
      .doc = "one weight per used channel, [] = all 1; with use: all the "
             "length is checked against the data's C when it is read" },
    { "channels.normalize", K_ENUM, AT(channels.normalize), .names = norm_names,
      .doc = "per-channel scaling before the sort: none, zero mean and unit "
             "variance, or onto [0, 1]" },

    { "channels.exp", K_SELECTORS, AT(channels.exp), .flags = F_PARAMS_IF_SET,
      .doc = "used channels the sort sees as exp(v) (3DGS log-scales: scale_*); "
             "sorted keeps the stored values" },
    { "channels.sigmoid", K_SELECTORS, AT(channels.sigmoid), .flags = F_PARAMS_IF_SET,
      .doc = "used channels the sort sees as 1/(1+exp(-v)) (a logit opacity)" },
    { "channels.unit", K_SELECTORS, AT(channels.unit), .flags = F_PARAMS_IF_SET,
      .doc = "used channels scaled together to unit length per item (a quaternion "
             "rot_0-3), after exp/sigmoid" },
    { "channels.sign", K_SELECTORS, AT(channels.sign), .flags = F_PARAMS_IF_SET,
      .doc = "used channels seen as one vector negated when its largest component by "
             "magnitude is negative (a quaternion rot_0-3: q and -q are one rotation, "
             "and PlayCanvas SOG stores that form), after unit" },
    { "channels.groups", K_SELECTORS, AT(channels.groups), .flags = F_PARAMS_IF_SET,
      .doc = "groups of used channels that share one normalisation (one mean and "
             "standard deviation, or min and max), each a comma-separated selector "
             "list such as \"x,y,z\"; other channels are normalised alone" },

    { "grid.shape", K_SHAPE, AT(grid.shape),
      .doc = "grid of an (N, C) dataset or a scene: default = scenes auto, HDF5 as "
             "before (height/width, attributes, a square N, else auto); auto = also HDF5 "
             "(N, C) data with no shape of its own; [H, W] = that grid, N need not "
             "be H*W (fit decides), also written \"HxW\". Auto: the smallest H*W >= N with H <= W <= 2H "
             "(crop: the largest H*W <= N), ties the most square; square: side "
             "ceil(sqrt(N)) (crop: floor(sqrt(N)), as SOG). Rank-3 data keeps "
             "its own shape" },
    { "grid.fit", K_ENUM, AT(grid.fit), .names = fit_names,
      .doc = "N != H*W: pad keeps every item (empty cells: index -1, sorted all "
             "zero bytes; the sort sees them as the mean item), crop keeps the H*W "
             "items with the highest grid.crop_by (ties: lower row) and writes their "
             "complement as the `dropped` dataset" },
    { "grid.crop_by", K_STR, AT(grid.crop_by), .flags = F_NONEMPTY,
      .doc = "the channel crop ranks items by, as a name or an index; a name the "
             "input lacks is a config error (exit 2)" },

    { "backend.device", K_ENUM, AT(backend.device), .names = device_names,
      .doc = "where to sort; auto = the GPUs if any is usable, else the CPU" },
    { "backend.gpus", K_INTLIST, AT(backend.gpus), AT(backend.ngpus), .min = 0,
      .max = MAX_GPU, .flags = F_MIN | F_MAX,
      .doc = "CUDA device ids to use; [] = every visible device" },
    { "backend.cpu_fallback", K_BOOL, AT(backend.cpu_fallback),
      .doc = "rerun a job on the CPU when its GPU fails" },
    { "backend.threads", K_INT, AT(backend.threads), .min = 0, .max = 1024, .flags = F_MIN | F_MAX,
      .doc = "host threads: the CPU backend's, or the GPU lanes' shared pool; 0 = the OpenMP default (OMP_NUM_THREADS, else every core); at most 1024" },
    { "backend.memory_limit_mb", K_INT, AT(backend.memory_limit_mb), .min = 0, .flags = F_MIN,
      .doc = "memory a job may use, MiB: per GPU for the lanes together, or per CPU job; "
             "0 = all free device memory (GPU) or no limit (CPU). A grid that needs more fails "
             "(or falls back to the CPU) with a clear error" },
    { "backend.lanes", K_INT, AT(backend.lanes), .min = 0, .max = 16, .flags = F_MIN | F_MAX,
      .doc = "grids in flight per GPU, each with its own stream, pinned buffers and "
             "host thread: one uploads while another sorts and a third writes; 0 = "
             "by the plan's largest grid (16 under 2^20 cells, 12 up to 2^22, 4 up to "
             "2^24, else 2; never more than the jobs per GPU)" },

    { "eval.enabled", K_BOOL, AT(eval.enabled),
      .doc = "after each sort, measure the result as `cuplas eval` does (AND, VAD, DPQ_16 "
             "and lossless bytes of the sorted grid and the baseline orders of eval.orders); "
             "stored in the output's `eval` attribute, the job_done event, the manifest and "
             "`report`" },
    { "eval.codecs", K_STRLIST, AT(eval.codecs), AT(eval.ncodecs), .flags = F_NONEMPTY,
      .doc = "lossless codecs measured: png, webp, jxl, each once" },
    { "eval.orders", K_STRLIST, AT(eval.orders), AT(eval.norders), .flags = F_NONEMPTY,
      .doc = "orders measured: sorted, input, random, morton, each once; sorted always is "
             "(listed or not), the others left out cost no time and are absent from the "
             "`eval` attribute" },
    { "eval.scheme", K_ENUM, AT(eval.scheme), .names = scheme_names,
      .doc = "8-bit quantisation of the channels: plain (each channel over its range), sog, "
             "gsplat or playcanvas (3DGS channel names needed; else plain is used, with a "
             "warning)" },
    { "eval.images", K_BOOL, AT(eval.images),
      .doc = "also keep the measured image files, in a folder next to each result (its "
             "name with .eval for .h5): ORDER/NAME.EXT" },
    { "eval.webp_method", K_INT, AT(eval.webp_method), .min = 0, .max = 6,
      .flags = F_MIN | F_MAX,
      .doc = "WebP effort (method) of the step; `cuplas eval` uses 6, a few per cent smaller "
             "and several times slower" },
    { "eval.sh_palette", K_INT, AT(eval.sh_palette), .min = 0, .max = 65536,
      .flags = F_MIN | F_MAX,
      .doc = "scheme playcanvas: entries of the SH palette that codes f_rest_* (fitted for "
             "each order measured, as export-sog would); 0 = splat-transform's size for the "
             "splats (1024 x 2^floor(log2(N / 1024)), at most 65536)" },
    { "eval.sh_iterations", K_INT, AT(eval.sh_iterations), .min = 0, .max = 1000,
      .flags = F_MIN | F_MAX,
      .doc = "scheme playcanvas: k-means updates of the SH palette; it runs on the job's GPU "
             "(the CPU on the CPU backend), with the same bytes either way" },

    { "sog.enabled", K_BOOL, AT(sog.enabled),
      .doc = "also write each result as PlayCanvas SOG version 2, as `cuplas export-sog` "
             "writes it: a folder beside it (its name with .sog for .h5) of meta.json and "
             "lossless WebP images, published just before the result; a grid the format "
             "cannot hold (no 3DGS property names, an empty cell before a splat: use "
             "grid.fit: crop) fails the job" },
    { "sog.sh", K_BOOL, AT(sog.sh),
      .doc = "write the higher SH bands (f_rest_*) as SOG's k-means palette "
             "(shN_centroids, shN_labels); false leaves them out, as export-sog --no-sh" },
    { "sog.sh_palette", K_INT, AT(sog.sh_palette), .min = 0, .max = 65536,
      .flags = F_MIN | F_MAX,
      .doc = "SH palette entries; 0 = splat-transform's size for the splats "
             "(1024 x 2^floor(log2(N / 1024)), at most 65536)" },
    { "sog.sh_iterations", K_INT, AT(sog.sh_iterations), .min = 0, .max = 1000,
      .flags = F_MIN | F_MAX,
      .doc = "k-means updates of the SH palette, on the job's GPU (the CPU on the CPU "
             "backend; the same files either way)" },
    { "sog.webp_method", K_INT, AT(sog.webp_method), .min = 0, .max = 6,
      .flags = F_MIN | F_MAX,
      .doc = "WebP effort (method) of the images: 2 writes a collection 65x faster than 6 "
             "for 0.26 % more bytes (bench/results/2026-11-29-h200-v18); 6 is export-sog's "
             "default, the smallest" },

    { "logging.level", K_ENUM, AT(log.level), .names = level_names,
      .doc = "least severe message that is printed" },
    { "logging.format", K_ENUM, AT(log.format), .names = format_names,
      .doc = "log line format; auto = text on a terminal, json otherwise" },
    { "logging.file", K_STR, AT(log.file), .flags = F_EMPTY_NULL,
      .doc = "log file; \"\" = stderr" },
};

/* The keys of one `inputs:` entry. */
const struct key cuplas_cfg_input_keys[] = {
    { "files", K_STRLIST, IN(files), IN(nfiles), .flags = F_REQUIRED | F_NONEMPTY,
      .doc = "HDF5 files or 3DGS scenes (.ply, .splat): a path or glob pattern, or a "
             "list of them; "
             "relative to the current working directory" },
    { "datasets", K_STRLIST, IN(datasets), IN(ndatasets),
      .doc = "dataset paths or fnmatch patterns (string or list; the leading / may "
             "be left out); [] = every numeric dataset of rank 2 or 3" },
    { "height", K_I64, IN(height), .min = 0, .flags = F_MIN,
      .doc = "grid height of (N, C) datasets; 0 = from the dataset's height "
             "and width attributes, else a square when N is one, else grid.shape "
             "(default: an auto grid with empty cells)" },
    { "width", K_I64, IN(width), .min = 0, .flags = F_MIN,
      .doc = "grid width of (N, C) datasets; 0 = as for height" },
    { "allow_external", K_BOOL, IN(allow_external),
      .doc = "read data that lives in other files: external links, external "
             "storage, virtual datasets (refused by default: such an input can "
             "copy any readable local file into the output)" },
};

_Static_assert(sizeof cuplas_cfg_keys / sizeof cuplas_cfg_keys[0] == CUPLAS_CFG_NKEYS,
               "CUPLAS_CFG_NKEYS is the row count of cuplas_cfg_keys");
_Static_assert(sizeof cuplas_cfg_input_keys / sizeof cuplas_cfg_input_keys[0]
                   == CUPLAS_CFG_NINPUT_KEYS,
               "CUPLAS_CFG_NINPUT_KEYS is the row count of cuplas_cfg_input_keys");

/* ------------------------------------------------------------------------
 * Removed keys
 * ------------------------------------------------------------------------ */

/* Keys that configs named in earlier releases. The loader refuses them with
 * the advice (exit 2) instead of "unknown key", so an old config says what
 * changed; an entry stays as long as configs of that age may be around. */
const struct removed_key cuplas_cfg_removed_keys[] = {
    { "backend.h5_helpers", "0.2.0",
      "HDF5 helper processes are gone; where many tiny grids make one process's "
      "HDF5 thread the ceiling, run one task per GPU (README \"Multi-GPU pipeline\")" },
};

const size_t cuplas_cfg_nremoved =
    sizeof cuplas_cfg_removed_keys / sizeof cuplas_cfg_removed_keys[0];

const struct removed_key *cuplas_cfg_find_removed(const char *name)
{
    for (size_t i = 0; i < cuplas_cfg_nremoved; i++)
        if (strcmp(cuplas_cfg_removed_keys[i].name, name) == 0)
            return &cuplas_cfg_removed_keys[i];
    return NULL;
}

/* ------------------------------------------------------------------------
 * Looking keys up
 * ------------------------------------------------------------------------ */

const struct key *cuplas_cfg_find_key(const struct key *keys, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(keys[i].name, name) == 0)
            return &keys[i];
    return NULL;
}

bool cuplas_cfg_is_section(const struct key *keys, size_t n, const char *path)
{
    size_t len = strlen(path);
    for (size_t i = 0; i < n; i++)
        if (strncmp(keys[i].name, path, len) == 0 && keys[i].name[len] == '.')
            return true;
    return false;
}

const char *cuplas_cfg_children(const struct key *keys, size_t n, const char *prefix,
                                char *buf, size_t size)
{
    size_t plen = strlen(prefix), len = 0;
    const char *last = NULL;
    size_t lastlen = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && len < size; i++) {
        if (strncmp(keys[i].name, prefix, plen) != 0)
            continue;
        const char *child = keys[i].name + plen;
        size_t clen = strcspn(child, ".");
        if (last && clen == lastlen && strncmp(child, last, clen) == 0)
            continue;
        len += (size_t)snprintf(buf + len, size - len, "%s%.*s", last ? ", " : "",
                                (int)clen, child);
        last = child;
        lastlen = clen;
    }
    return buf;
}

/* "4, 8 or 16": a key's choices as a phrase. */
static void choices_text(const int *c, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; c[i] != CHOICES_END && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%d",
                                i == 0 ? "" : c[i + 1] == CHOICES_END ? " or " : ", ", c[i]);
}

/* The wording is the one place that says what each kind accepts: errors
 * and the docs' "accepted" column both come from here. */
const char *cuplas_cfg_accepted(const struct key *k, char *buf, size_t size)
{
    char range[96] = "";
    bool lo = k->flags & F_MIN, hi = k->flags & F_MAX;
    if (lo && hi)
        snprintf(range, sizeof range, " in %c%g, %g%c",
                 k->flags & F_MIN_OPEN ? '(' : '[', k->min, k->max,
                 k->flags & F_MAX_OPEN ? ')' : ']');
    else if (lo)
        snprintf(range, sizeof range, " %s %g",
                 k->flags & F_MIN_OPEN ? ">" : ">=", k->min);

    switch (k->kind) {
    case K_BOOL:
        snprintf(buf, size, "true or false (or yes, no)");
        break;
    case K_INT:
    case K_I64:
        if (k->choices)
            choices_text(k->choices, buf, size);
        else
            snprintf(buf, size, "%s%s", k->flags & F_EVEN ? "an even integer" : "an integer",
                     range);
        break;
    case K_U64:
        snprintf(buf, size, "an integer in [0, 2^64-1]");
        break;
    case K_NUM:
        snprintf(buf, size, "a number%s", range);
        break;
    case K_ENUM: {
        size_t len = (size_t)snprintf(buf, size, "one of");
        for (int i = 0; k->names[i] && len < size; i++)
            len += (size_t)snprintf(buf + len, size - len, "%s %s",
                                    i ? "," : "", k->names[i]);
        break;
    }
    case K_STR:
        snprintf(buf, size, "%s", k->flags & F_NONEMPTY ? "a non-empty string" : "a string");
        break;
    case K_TEMPLATE:
        snprintf(buf, size, "a file name with {dataset} and {stem}, {file} or {relpath}");
        break;
    case K_STRLIST:
        snprintf(buf, size, "a string or a list of strings%s",
                 k->flags & F_NONEMPTY ? " (at least one)" : "");
        break;
    case K_INTLIST:
        snprintf(buf, size, "a list of distinct integers%s", range);
        break;
    case K_CHANNELS:
        snprintf(buf, size, "all, or a list of distinct channel indices%s "
                 "or ranges like \"0-2\", or of channel names", range);
        break;
    case K_NUMLIST:
        snprintf(buf, size, "a list of numbers%s", range);
        break;
    case K_INPUTS:
        snprintf(buf, size, "a list of mappings with files and optionally "
                 "datasets, height, width");
        break;
    case K_SELECTORS:
        snprintf(buf, size, "a list of channel names, globs, ranges or indices");
        break;
    case K_SHAPE:
        snprintf(buf, size, "default, auto, square, HxW or [H, W] (positive integers)");
        break;
    }
    return buf;
}

/* ------------------------------------------------------------------------
 * Defaults, freeing, names
 * ------------------------------------------------------------------------ */

void cuplas_config_defaults(cuplas_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    /* strdup can fail here; cuplas_config_load checks for the NULLs */
    cfg->path = strdup("");
    cfg->base_dir = strdup(".");
    cfg->output.dir = strdup("cuplas-out");
    cfg->output.name = strdup("{stem}.{dataset}.h5");
    cfg->output.overwrite = CUPLAS_OVERWRITE_SKIP;
    cfg->output.chunk_rows = 0;
    cfg->output.deflate = 1;   /* see the key's doc: measured, issue 17 */
    cfg->output.shuffle = true;
    cfg->output.fsync = true;
    cfg->output.ply = false;
    cfg->output.preview = false;
    cfg->eval.enabled = false;
    cfg->eval.ncodecs = 2;
    if ((cfg->eval.codecs = calloc(2, sizeof *cfg->eval.codecs))) {
        cfg->eval.codecs[0] = strdup("png");
        cfg->eval.codecs[1] = strdup("webp");
    }
    if ((cfg->eval.orders = calloc(CUPLAS_ORDER_COUNT, sizeof *cfg->eval.orders))) {
        cfg->eval.norders = CUPLAS_ORDER_COUNT;   /* all of them */
        for (int k = 0; k < CUPLAS_ORDER_COUNT; k++)
            cfg->eval.orders[k] = strdup(cuplas_order_name((cuplas_order_kind)k));
    }
    cfg->eval.scheme = 0;   /* plain */
    cfg->eval.images = false;
    cfg->eval.webp_method = 4;
    cfg->eval.sh_iterations = CUPLAS_PALETTE_ITERATIONS;
    cfg->sog.enabled = false;
    cfg->sog.sh = true;
    cfg->sog.sh_palette = 0;
    cfg->sog.sh_iterations = CUPLAS_PALETTE_ITERATIONS;
    cfg->sog.webp_method = 2;
    cuplas_sort_params_default(&cfg->sort);
    cfg->grid.fit = CUPLAS_FIT_PAD;
    cfg->grid.crop_by = strdup("opacity");
    cfg->channels.normalize = CUPLAS_NORM_NONE;
    cfg->backend.device = CUPLAS_DEVICE_AUTO;
    cfg->backend.cpu_fallback = false;
    cfg->backend.threads = 0;
    cfg->backend.lanes = 0;
    cfg->backend.memory_limit_mb = 0;
    cfg->log.level = CUPLAS_LOG_INFO;
    cfg->log.format = CUPLAS_LOG_AUTO;
    cfg->log.file = NULL;
}

void cuplas_cfg_free_strv(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void cuplas_cfg_free_input(cuplas_input_spec *in)
{
    cuplas_cfg_free_strv(in->files, in->nfiles);
    cuplas_cfg_free_strv(in->datasets, in->ndatasets);
    memset(in, 0, sizeof *in);
}

void cuplas_config_free(cuplas_config *cfg)
{
    if (!cfg)
        return;
    for (int i = 0; i < cfg->ninputs; i++)
        cuplas_cfg_free_input(&cfg->inputs[i]);
    free(cfg->inputs);
    free(cfg->path);
    free(cfg->base_dir);
    free(cfg->output.dir);
    free(cfg->output.dir_where);
    free(cfg->output.name);
    free(cfg->channels.use);
    free(cfg->channels.weights);
    cuplas_selectors_free(&cfg->channels.use_names);
    cuplas_selectors_free(&cfg->channels.exp);
    cuplas_selectors_free(&cfg->channels.sigmoid);
    cuplas_selectors_free(&cfg->channels.unit);
    cuplas_selectors_free(&cfg->channels.sign);
    cuplas_selectors_free(&cfg->channels.groups);
    free(cfg->grid.crop_by);
    free(cfg->backend.gpus);
    cuplas_cfg_free_strv(cfg->eval.codecs, cfg->eval.ncodecs);
    cuplas_cfg_free_strv(cfg->eval.orders, cfg->eval.norders);
    free(cfg->log.file);
    memset(cfg, 0, sizeof *cfg);
}

const char *cuplas_cfg_enum_name(const char *const *names, int v)
{
    for (int i = 0; names[i]; i++)
        if (i == v)
            return names[i];
    return "?";
}

const char *cuplas_norm_name(cuplas_norm n)
{
    return cuplas_cfg_enum_name(norm_names, (int)n);
}

const char *cuplas_fit_name(cuplas_fit_mode f)
{
    return cuplas_cfg_enum_name(fit_names, (int)f);
}

void cuplas_selectors_free(cuplas_selectors *s)
{
    cuplas_cfg_free_strv(s->v, s->n);
    cuplas_cfg_free_strv(s->where, s->n);
    memset(s, 0, sizeof *s);
}

const char *cuplas_device_kind_name(cuplas_device_kind d)
{
    return cuplas_cfg_enum_name(device_names, (int)d);
}

const char *cuplas_overwrite_name(cuplas_overwrite o)
{
    return cuplas_cfg_enum_name(overwrite_names, (int)o);
}
