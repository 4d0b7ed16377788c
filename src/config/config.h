/*
 * config.h - the YAML job config (libyaml), validated against one schema.
 *
 * cuplas_config_load() parses the file into a node tree, applies --set
 * overrides (dotted keys) on that tree, then walks the schema: unknown keys,
 * wrong types and out-of-range values are errors that carry
 * file:line:column, the key, and what is accepted. Every key has a default
 * and a one-line doc (cuplas_config_print_keys prints the reference table).
 */
#ifndef CUPLAS_CONFIG_H
#define CUPLAS_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/error.h"
#include "util/log.h"
#include "core/params.h"
#include "core/quantize.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CUPLAS_OVERWRITE_SKIP = 0, CUPLAS_OVERWRITE_OVERWRITE, CUPLAS_OVERWRITE_ERROR } cuplas_overwrite;
typedef enum { CUPLAS_DEVICE_AUTO = 0, CUPLAS_DEVICE_CPU, CUPLAS_DEVICE_GPU } cuplas_device_kind;

/* One entry of `inputs:`. */
typedef struct cuplas_input_spec {
    char **files;      /* paths or glob patterns, as written (relative = to the cwd) */
    int nfiles;
    char **datasets;   /* dataset paths or fnmatch patterns; none = every rank-2/3 numeric dataset */
    int ndatasets;
    int64_t height;    /* for (N, C) datasets: 0 = from attributes or a square N */
    int64_t width;
    bool allow_external; /* follow external links/storage into other files */
    int line;          /* config line of this entry, for error messages */
} cuplas_input_spec;

/* Channel selectors as written (names, globs, index ranges:
 * core/channel_names.h), resolved against each input's column names when
 * its job is planned. */
typedef struct cuplas_selectors {
    char **v;          /* the selectors                                   */
    char **where;      /* each one's config location ("cfg.yaml:L:C" or
                          "--set KEY=VALUE"), for errors                   */
    int n;
} cuplas_selectors;

typedef enum { CUPLAS_FIT_PAD = 0, CUPLAS_FIT_CROP } cuplas_fit_mode;

/* grid.*: how N items become an H x W grid (core/fit.h). */
typedef struct cuplas_grid_opts {
    int64_t shape[2];      /* grid.shape: {0, 0} = default, {-1, -1} = auto,
                              else H, W                                    */
    cuplas_fit_mode fit;   /* grid.fit: pad | crop                         */
    char *crop_by;         /* grid.crop_by: the property crop ranks by     */
    char crop_by_where[160]; /* where it was set ("cfg.yaml:L:C", "--set
                              grid.crop_by=..."), "" for the default       */
} cuplas_grid_opts;

typedef struct cuplas_output_opts {
    char *dir;                 /* output.dir                                    */
    char *dir_where;           /* where output.dir was set ("cfg.yaml:L:C" or
                                  "--set output.dir=..."), NULL for the default:
                                  the output folder's errors cite it           */
    int dir_line;              /* its line in the config file, 0 = not there
                                  (--set or the default): JSON's config_line */
    char *name;                /* output.name: template, {stem} {dataset} {file} */
    cuplas_overwrite overwrite;/* output.overwrite: skip | overwrite | error     */
    int64_t chunk_rows;        /* output.chunk_rows: 0 = auto (~1 MiB chunks)   */
    int deflate;               /* output.deflate: 0 (off) .. 9                  */
    bool shuffle;              /* output.shuffle: byte shuffle before deflate    */
    bool fsync;                /* output.fsync: fsync each result before rename  */
    bool ply;                  /* output.ply: also a sorted PLY of a scene       */
    bool preview;              /* output.preview: OUT.png, input | sorted        */
} cuplas_output_opts;

/* eval: run's eval step (README "Evaluating a result"). */
typedef struct cuplas_eval_cfg {
    bool enabled;              /* eval.enabled                                   */
    char **codecs;             /* eval.codecs: "png", "webp", "jxl"              */
    int ncodecs;
    char **orders;             /* eval.orders: "sorted", "input", "random",
                                  "morton" (sorted always measured)              */
    int norders;
    int scheme;                /* eval.scheme: cuplas_scheme (eval/schemes.h)    */
    bool images;               /* eval.images: OUT.eval/ORDER/NAME.EXT           */
    int webp_method;           /* eval.webp_method: 0..6                         */
    int sh_palette;            /* eval.sh_palette: 0 (SOG's size) .. 65536       */
    int sh_iterations;         /* eval.sh_iterations: 0..1000                    */
} cuplas_eval_cfg;

/* sog: run's PlayCanvas SOG step (README "3DGS scenes"). */
typedef struct cuplas_sog_cfg {
    bool enabled;              /* sog.enabled: <output>.sog/ beside each result   */
    bool sh;                   /* sog.sh: higher SH bands as the palette         */
    int sh_palette;            /* sog.sh_palette: 0 (SOG's size) .. 65536         */
    int sh_iterations;         /* sog.sh_iterations: 0..1000                      */
    int webp_method;           /* sog.webp_method: 0..6                           */
} cuplas_sog_cfg;

typedef struct cuplas_channel_opts {
    int *use;          /* channels.use: indices into C; NULL = all (or names) */
    int nuse;
    cuplas_selectors use_names; /* channels.use when it names channels      */
    cuplas_selectors exp;       /* channels.exp: exp() before the sort      */
    cuplas_selectors sigmoid;   /* channels.sigmoid                         */
    cuplas_selectors unit;      /* channels.unit: one unit-length vector    */
    cuplas_selectors sign;      /* channels.sign: one vector, sign canonical */
    cuplas_selectors groups;    /* channels.groups: "x,y,z" share statistics */
    double *weights;   /* channels.weights: one per used channel, or NULL */
    int nweights;
    cuplas_norm normalize; /* channels.normalize                          */
} cuplas_channel_opts;

typedef struct cuplas_backend_opts {
    cuplas_device_kind device; /* backend.device: auto | cpu | gpu           */
    int *gpus;                 /* backend.gpus: device ids; NULL = all visible */
    int ngpus;
    bool cpu_fallback;         /* backend.cpu_fallback: GPU failure -> CPU    */
    int threads;               /* backend.threads: CPU threads, 0 = OpenMP's   */
    int lanes;                 /* backend.lanes: grids in flight per GPU       */
    int memory_limit_mb;       /* backend.memory_limit_mb: 0 = no cap          */
} cuplas_backend_opts;

typedef struct cuplas_config {
    char *path;                /* the config file as given ("" for none)   */
    char *base_dir;            /* its directory ("." for none); informational:
                                  relative inputs and output.dir are resolved
                                  against the current working directory     */
    cuplas_input_spec *inputs;
    int ninputs;
    cuplas_output_opts output;
    cuplas_sort_params sort;
    cuplas_channel_opts channels;
    cuplas_grid_opts grid;
    cuplas_backend_opts backend;
    cuplas_eval_cfg eval;
    cuplas_sog_cfg sog;
    cuplas_log_opts log;
} cuplas_config;

/* Fill every key with its documented default (no inputs). */
void cuplas_config_defaults(cuplas_config *cfg);

/*
 * Load and validate `path`, then apply `overrides` ("a.b=value", YAML
 * scalar or flow-sequence syntax for the value) before validation.
 * path may be NULL: defaults plus overrides only (used by `cuplas sort`).
 * On error cfg is left freed and err says file:line:col, key, accepted.
 */
int cuplas_config_load(cuplas_config *cfg, const char *path,
                       const char *const *overrides, int noverrides,
                       cuplas_error *err);

void cuplas_config_free(cuplas_config *cfg);

/* The effective config as YAML (malloc'd string), with every key set.
 * Stored in output attributes and printed by `cuplas check`. */
char *cuplas_config_to_yaml(const cuplas_config *cfg);

/* The sort parameters alone as YAML (malloc'd): the `sort:` section only. */
char *cuplas_sort_params_to_yaml(const cuplas_sort_params *p);

/* Everything that shapes the result, as YAML (malloc'd): the `sort:` and
 * `channels:` sections. This is the output's "params" attribute. */
char *cuplas_config_params_to_yaml(const cuplas_config *cfg);

/* Print the key reference (key, type, default, accepted, doc), one per line,
 * as the rows of a Markdown table, then a "Removed keys" section: each key
 * that configs may no longer name, its release and what to do instead
 * (docs/config-keys.md is this output). */
void cuplas_config_print_keys(FILE *out);

const char *cuplas_norm_name(cuplas_norm n);
const char *cuplas_fit_name(cuplas_fit_mode f);
void cuplas_selectors_free(cuplas_selectors *s);
const char *cuplas_device_kind_name(cuplas_device_kind d);
const char *cuplas_overwrite_name(cuplas_overwrite o);

#ifdef __cplusplus
}
#endif
#endif
