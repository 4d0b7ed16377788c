/*
 * jobs.h - the job list of a batch: one job per (input file, dataset).
 *
 * Built from the config's inputs[] (globs, then dataset names or
 * patterns), probed for shape and type, deduplicated, given an output
 * path and a resume identity, and ordered largest grid first. A bad input
 * never stops the list from being built: it becomes a job that already
 * carries its error, so every other job still runs.
 */
#ifndef CUPLAS_JOBS_H
#define CUPLAS_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuplas_job {
    char *file;          /* input file as matched (for a no-match: the pattern) */
    char *real;          /* its canonical path (dedup, identity)               */
    char *dataset;       /* "/a/b"; "/" for a whole-file failure; NULL for an
                            entry-level failure (a pattern that matched nothing) */
    int input;           /* index into cfg->inputs, -1 for `cuplas sort`        */
    int line;            /* config line of that entry, 0 = none                 */
    int64_t height, width; /* (N, C) shape hints of the entry                   */
    unsigned read_flags; /* CUPLAS_H5_* flags of the reads (allow_external)     */
    char *output;        /* result file; NULL when there can be none            */
    char *identity;      /* resume key; NULL when the input could not be probed */
    /* from the probe (valid when err.code == 0) */
    int64_t H, W, C;
    int rank;
    int64_t dims[3];
    char dtype[16];
    cuplas_error err;    /* code != 0: failed while planning (bad input)       */
    /* scenes and any N (core/fit.h), set while planning */
    int scene;           /* a PLY/.splat input (dataset CUPLAS_SCENE_DATASET)  */
    int fitting;         /* probed as N items to fit (scene, or grid.* asked)  */
    int rel_at;          /* {relpath}: where file's part below the entry's
                            common folder starts                              */
    int64_t read_height, read_width; /* what the HDF5 read is asked for        */
    int64_t nrows;       /* fitted: the input's N items (H*W != N); 0 = not    */
    int crop;            /* fitted by crop (else pad)                          */
    int crop_col;        /* crop: the column ranked                            */
    char *ply_out;       /* scene: the sorted PLY to write too, or NULL        */
    char *preview_out;   /* output.preview: the PNG beside the output, or NULL */
    char *sog_out;       /* sog.enabled: the SOG folder beside it, or NULL     */
    /* channels resolved by name (NULL: cuplas_job_channels at prep), and the
       transforms per used channel (NULL: none) */
    int *use, nuse;
    unsigned char *act, *unit, *sign;
    int *group;
} cuplas_job;

typedef struct cuplas_jobs {
    cuplas_job *v;
    int n, cap;
    const char *config_path; /* for "[cfg.yaml:LINE]" in messages, "" = none */
    const char *output_dir_where; /* where output.dir was set (cfg's), NULL =
                                  its default: errors of the output folder
                                  (CUPLAS_REASON_OUTPUT_DIR) cite it        */
    int output_dir_line;     /* its config line, 0 = none (cuplas_job_line) */
    const char *log_path;    /* logging.file (appended to), or NULL          */
    int log_clash;           /* check_paths: log_path is an input or output  */
    unsigned add_one_flags;  /* read flags of cuplas_jobs_add_one's job         */
    size_t host_limit;       /* host memory a job may have (0: unknown)         */
    const char *host_limit_what;
    int host_limit_known;    /* host_limit was read (once per list)             */
    struct cuplas_probe_cache *probes; /* while cuplas_jobs_build runs      */
} cuplas_jobs;

/*
 * Build the whole list from cfg. Returns 0 even when jobs failed (they
 * carry their errors); nonzero only for config errors that stop the run
 * before anything happens (two jobs writing one output, or an output that
 * would replace its job's input: CUPLAS_ERR_USAGE)
 * or for running out of memory. All HDF5 calls here come from the caller's
 * thread: call it before starting workers.
 */
int cuplas_jobs_build(cuplas_jobs *jobs, const cuplas_config *cfg, cuplas_error *err);

/* One job without inputs[] (`cuplas sort`): output is the exact path. */
int cuplas_jobs_add_one(cuplas_jobs *jobs, const cuplas_config *cfg, const char *file,
                        const char *dataset, int64_t height, int64_t width,
                        const char *output, cuplas_error *err);

/* `cuplas sort --ply OUT.ply`: the last job added also writes this PLY
 * (a scene input only: else CUPLAS_ERR_USAGE). */
int cuplas_jobs_set_ply(cuplas_jobs *jobs, const char *ply_out, cuplas_error *err);

/* No two jobs publish the same output: else CUPLAS_ERR_USAGE at the first
 * pair (their inputs and the output), with the first one's inputs line.
 * cuplas_jobs_build calls it (jobs_check.c). */
int cuplas_jobs_check_collisions(const cuplas_jobs *jobs, cuplas_error *err);

/* Each job's input, output and sorted PLY are three files, and neither
 * output names an existing file that is not a regular one (publishing
 * renames a temp file onto it): else CUPLAS_ERR_USAGE naming the paths,
 * before anything is written. cuplas_jobs_build calls it; `cuplas sort`
 * after cuplas_jobs_set_ply. */
int cuplas_jobs_check_paths(cuplas_jobs *jobs, cuplas_error *err);

void cuplas_jobs_free(cuplas_jobs *jobs);

/* What a complete result on disk lacks of what this run asks for, as a
 * phrase ("its sorted PLY", "its preview", "its eval", "its eval images"),
 * or NULL: the job is then made again, since these are only ever written
 * with the result. The PLY must be the one the result records (sorted_ply:
 * size and mtime; not one an earlier run left, or a later, killed one
 * published), the preview (published after the result) no older than the
 * result, the eval attribute one that answers this run's eval keys
 * (cuplas_eval_result_answers: scheme, codecs, orders, webp_method), and
 * with eval.images the images folder there, and with sog.enabled the
 * SOG folder the result's `sog` attribute records (the sog keys, the
 * files' total bytes). Opens the result (HDF5 thread). */
const char *cuplas_job_extra_missing(const cuplas_job *job, const cuplas_config *cfg);

/* The eval step's options from the config's eval keys (codecs, orders,
 * scheme, webp_method; every other field its default). The step adds its
 * pool and falls back to plain where the scheme does not apply. */
struct cuplas_eval_opts;   /* eval/evaluate.h */
void cuplas_job_eval_opts(const cuplas_config *cfg, struct cuplas_eval_opts *o);

/* The sog keys a SOG folder was written with, as the result's `sog`
 * attribute opens: {"sh": .., "sh_palette": .., "sh_iterations": ..,
 * "webp_method": ..} without the closing brace (the step adds the files and
 * bytes). Into buf. */
void cuplas_job_sog_keys(const cuplas_config *cfg, char *buf, size_t size);
/* The files' total bytes a `sog` attribute records; -1 when attr is NULL
 * or has none. */
int64_t cuplas_job_sog_bytes(const char *attr);

/* The channels that drive the sort of a C-channel grid: channels.use (or
 * all) checked against C, and channels.weights checked against their
 * count. *use is malloc'd. Errors are CUPLAS_ERR_INPUT (a job failure). */
int cuplas_job_channels(const cuplas_config *cfg, int64_t C, int **use, int *nuse,
                        cuplas_error *err);

/* Room for one such line, and for the log text around it (the stages,
 * the runner and the manifest size their buffers by it). */
#define CUPLAS_JOB_LINE_LEN 2048

/* " [cfg.yaml:L:C]", " [--set output.dir=...]" or " [cfg.yaml: output.dir's
 * default]" into buf: where the output folder's errors point (dir_where:
 * cuplas_config.output.dir_where, NULL for the default); "" without a
 * config file. */
const char *cuplas_output_dir_cite(const char *dir_where, const char *config_path, char *buf,
                                   size_t size);

/* The config file line a job failure is about: output.dir's for an error
 * of the output folder (0 when it was not set in the file), else the
 * job's inputs entry's (0 for none). JSON's config_line. */
int cuplas_job_line(const cuplas_jobs *jobs, const cuplas_job *job, const cuplas_error *e);

/* The one-line description of a job failure, without the "cuplas: error: "
 * prefix:  "file:/dataset: msg [cfg.yaml:LINE]", the line of the job's
 * inputs entry; for an error of the output folder (CUPLAS_REASON_OUTPUT_DIR)
 * where output.dir was set instead: "[cfg.yaml:LINE:COL]", "[--set
 * output.dir=...]", or "[cfg.yaml: output.dir's default]". */
const char *cuplas_job_error_line(const cuplas_jobs *jobs, const cuplas_job *job,
                                  const cuplas_error *e, char *buf, size_t size);

/* FNV-1a 64 of a string, as 16 hex digits in out[17]. */
void cuplas_fnv1a_hex(const char *s, char out[17]);

#ifdef __cplusplus
}
#endif
#endif
