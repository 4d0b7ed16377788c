/*
 * manifest.h - what one `cuplas run` did, as a JSON file in the output
 * folder, and how `cuplas report` merges many of them.
 *
 * One manifest per shard: cuplas-manifest.I-of-N.json (or
 * cuplas-manifest.json unsharded), published atomically twice per run:
 * at its start as a marker ("finished": false, every job pending), so
 * that a run killed before its end never leaves the previous run's
 * manifest standing for outputs it has since replaced; and at the end of
 * every run that reached the runner, an interrupted one included. The
 * format is documented in README.md ("SLURM") and versioned by
 * "format_version".
 */
#ifndef CUPLAS_MANIFEST_H
#define CUPLAS_MANIFEST_H

#include <stdint.h>
#include <stdio.h>

#include "util/error.h"
#include "eval/evaluate.h"
#include "pipeline/jobs.h"
#include "pipeline/runner.h"
#include "pipeline/shard.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUPLAS_MANIFEST_FORMAT_VERSION 1

typedef struct cuplas_manifest_entry {
    char *input;              /* input file as the config matched it         */
    char *dataset;            /* "/a/b", "/" (whole file), NULL (no match)    */
    char *output;             /* NULL when there can be none                  */
    char status[12];          /* done skipped failed cancelled pending        */
    char *error;              /* one line, NULL unless failed/cancelled       */
    double and_before, and_after;   /* NAN = unknown or undefined (null)      */
    double read_s, prep_s, sort_s, write_s, total_s;
    char backend[8];          /* "cpu", "gpu" or ""                           */
    char *device;             /* device name or NULL                          */
    int64_t shape[3];         /* H, W, C; all 0 = unknown                     */
    char dtype[16];
    cuplas_eval_result *eval; /* run's eval step ("eval"), or NULL            */
    int64_t sog_bytes;        /* run's sog step: the SOG folder's bytes; 0 none */
    char *preview;            /* the preview PNG (output.preview), or NULL:
                                 relative to the manifest's folder (or
                                 absolute) where preview_rel, else (0.7.1
                                 and earlier) to the run's working folder */
} cuplas_manifest_entry;

typedef struct cuplas_manifest {
    char *path;               /* where it was read from (report), or NULL     */
    char *version, *host, *config;
    char start_time[40], end_time[40];   /* ISO 8601 UTC                      */
    double start_unix, end_unix;         /* seconds since the epoch           */
    cuplas_shard shard;
    /* SLURM_JOB_ID, SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID,
       SLURM_RESTART_COUNT, SLURMD_NODENAME; NULL when unset */
    char *slurm[5];
    int pid;
    int exit_code;
    int interrupted;
    /* 0: the marker of a run under way or killed (no end time, no exit
       code, every job pending); 1: written at the run's end. Manifests
       from before the marker read as 1: they were only written at the end */
    int finished;
    /* 1: the entries' preview paths are relative to the manifest's folder
       ("preview_base": "manifest"), so a report from any folder finds
       them; cuplas_manifest_write makes them so */
    int preview_rel;
    cuplas_manifest_entry *v;
    int n, cap;
} cuplas_manifest;

/* Run info of this process: version, host, pid, start time, shard, SLURM
 * environment. end time and exit code are set by cuplas_manifest_finish. */
int cuplas_manifest_begin(cuplas_manifest *m, const char *config, const cuplas_shard *shard,
                          cuplas_error *err);

/* One entry per job from the runner's result records. For a skipped job
 * the metrics are read back from its complete output (HDF5 calls: only
 * after the workers stopped). */
int cuplas_manifest_add_results(cuplas_manifest *m, const cuplas_jobs *jobs,
                                const cuplas_job_result *results, const cuplas_worker *workers,
                                cuplas_error *err);

/* Publish the start marker at path (as cuplas_manifest_write): m's run
 * info, "finished": false and one pending entry per job of jobs. It
 * replaces the previous run's manifest of this shard, which describes
 * outputs this run is about to replace. m itself gets no entries. */
int cuplas_manifest_start(const cuplas_manifest *m, const cuplas_jobs *jobs, const char *path,
                          cuplas_error *err);

/* Stamp the end time, exit code and interrupted flag; m is finished. */
void cuplas_manifest_finish(cuplas_manifest *m, int exit_code, int interrupted);

/* "<dir>/cuplas-manifest.I-of-N.json" or "<dir>/cuplas-manifest.json";
 * malloc'd, NULL when out of memory. */
char *cuplas_manifest_path(const char *dir, const cuplas_shard *shard);

/* 1 when no earlier manifest can be at path: none by that name, a folder
 * on the way that is not one, or a name too long to exist. 0 when one is
 * there or cannot be seen to be absent: a run that cannot replace it must
 * not start (cmd_run.c), and check foresees that (cmd_check.c). */
int cuplas_manifest_absent(const char *path);

/* Write m as JSON to f (the documented format). */
void cuplas_manifest_print(FILE *f, const cuplas_manifest *m);

/* Publish m at path atomically (temp file + fsync + rename), creating
 * the folder if needed. Preview paths (relative to this process's
 * working folder) are written relative to path's folder, or absolute
 * where the PNG lies outside it. */
int cuplas_manifest_write(const cuplas_manifest *m, const char *path, cuplas_error *err);

/* Read a manifest file written by cuplas_manifest_write. */
int cuplas_manifest_read(const char *path, cuplas_manifest *m, cuplas_error *err);

/* Where report finds e's preview (e one of m's entries, m read from a
 * file): a path from this process's working folder, malloc'd; NULL when
 * there is none or out of memory. For a manifest without preview_rel the
 * run's working folder is unknown: the path as written if it names a
 * file from here, else the file of that name in the manifest's folder
 * (where previews lie beside their results), else the path as written. */
char *cuplas_manifest_preview_path(const cuplas_manifest *m, const cuplas_manifest_entry *e);

void cuplas_manifest_free(cuplas_manifest *m);

/* ------------------------------------------------------------ merging */

typedef struct cuplas_merged_entry {
    const cuplas_manifest_entry *e;
    const cuplas_manifest *from;
} cuplas_merged_entry;

typedef struct cuplas_merged {
    const cuplas_manifest **used;   /* manifests that count, by shard        */
    int nused;
    int nsuperseded;                /* older manifests of a shard, ignored    */
    int nunfinished;                /* used ones that are start markers: runs
                                       killed (or still running)              */
    cuplas_merged_entry *v;         /* one per dataset, sorted input, dataset */
    int n;
    cuplas_shard *missing;          /* shards of a seen count with no manifest,
                                       superseded splits left out             */
    int nmissing;
    int *old_splits;                /* shard counts (0: unsharded) of splits
                                       superseded by a later complete split   */
    int nold_splits;
    int done, skipped, failed, cancelled, pending;
    double and_before_mean, and_after_mean;  /* over done+skipped with values */
    int and_count;
    double sort_s;                  /* sum over done entries                  */
    double span_s;                  /* first start .. last end of used ones   */
} cuplas_merged;

/*
 * Merge ms[0..n): per shard (index, count) the manifest with the latest
 * end time (a start marker: its start time) wins; then per dataset (input,
 * dataset) the entry of the latest manifest wins, except that a "skipped"
 * entry never hides an earlier "done" one (skipped means that very output
 * is complete). A split (all manifests of one shard count) that ended
 * before a complete split of another count (every shard's manifest there
 * and finished) began is superseded: its missing shards and unfinished
 * runs are not counted.
 */
int cuplas_manifest_merge(const cuplas_manifest *ms, int n, cuplas_merged *out,
                          cuplas_error *err);
/* Whether mg's split of this shard count (0: unsharded) is superseded. */
int cuplas_merged_superseded(const cuplas_merged *mg, int count);
void cuplas_merged_free(cuplas_merged *mg);

#ifdef __cplusplus
}
#endif
#endif
