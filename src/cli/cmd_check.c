/*
 * cmd_check.c - `cuplas check CONFIG`: validate, probe every input, print
 * the job plan, change nothing.
 *
 * Design fact: check decides each job's action with the same rules as the
 * runner (overwrite policy, resume identity, channel checks, output
 * folder) but only reads: no folder is created and no file is opened for
 * writing. A missing GPU is reported, not fatal: check is typically run on
 * a login node for a job that will run on a GPU node. A run manifest that
 * cannot be written is fatal to run (exit 3, cmd_run.c) in a folder that
 * a login node sees too: check names it and exits 1, as for a bad job.
 */
#define _GNU_SOURCE /* strdup */
#include "cuplas_build.h"
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/h5_lib.h"
#include "io/h5_read.h"
#include "io/h5_result.h"
#include "io/publish.h"
#include "util/fsutil.h"
#include "pipeline/manifest.h"
#ifdef HAVE_CUDA
#include "cuda/sort_gpu.h"
#endif

#define LINE_LEN 2048

static const char check_help[] =
    "Usage: cuplas check CONFIG [--set KEY=VALUE ...] [--shard I/N]\n"
    "\n"
    "Validate CONFIG, open and probe every input (shape and dtype), and print\n"
    "the job plan: one line per job with its input, grid shape, dtype, output\n"
    "and action (sort / skip: output complete / error: why). Nothing is\n"
    "written or created.\n"
    "\n"
    "Options:\n"
    "  --set KEY=VALUE  override a config key (repeatable; YAML value, e.g.\n"
    "                   --set sort.seed=7 --set 'channels.use=[0,1,2]')\n"
    "  --shard I/N      only the plan of shard I (0-based) of N: the jobs that\n"
    "                   `cuplas run --shard I/N` (or array task I of N) runs.\n"
    "                   SLURM array variables are not read here\n"
    "  -h, --help       this text\n"
    "\n"
    "Exit codes (check):\n"
    "  0   every job can run (sort or skip)\n"
    "  1   some input is bad (its plan line says why), or `cuplas run` could\n"
    "      not write its manifest (the manifest: line says why)\n"
    "  2   usage or config error (file:line:column)\n";

/* Why files cannot be created under dir (without creating it), or NULL. */
static const char *dir_problem(const char *dir, char *buf, size_t size)
{
    char *p = strdup(dir);
    struct stat st;
    const char *why = NULL;

    if (!p)
        return "out of memory";
    /* walk up to the nearest existing ancestor: that is where mkdir -p starts */
    for (;;) {
        if (stat(p, &st) == 0) {
            /* a path near PATH_MAX keeps the reason after it (error.h) */
            if (!S_ISDIR(st.st_mode))
                cuplas_error_fitf(buf, size, "output folder %s is not a directory", p), why = buf;
            else if (access(p, W_OK | X_OK) != 0)
                cuplas_error_fitf(buf, size, "output folder %s is not writable", p), why = buf;
            break;
        }
        char *slash = strrchr(p, '/');
        if (!slash || slash == p)
            break;
        *slash = '\0';
    }
    free(p);
    return why;
}

static void shape_text(const cuplas_job *j, char *buf, size_t size)
{
    if (j->rank == 3)
        snprintf(buf, size, "%lldx%lldx%lld", (long long)j->H, (long long)j->W, (long long)j->C);
    else
        snprintf(buf, size, "%lldx%lldx%lld(from %lldx%lld)", (long long)j->H, (long long)j->W,
                 (long long)j->C, (long long)j->dims[0], (long long)j->dims[1]);
}

int cuplas_cli_print_plan(FILE *out, const cuplas_config *cfg, const cuplas_jobs *jobs)
{
    int nsort = 0, nskip = 0, nerr = 0;
    char line[LINE_LEN], shape[128], why[LINE_LEN];

    for (int i = 0; i < jobs->n; i++) {
        const cuplas_job *j = &jobs->v[i];
        cuplas_error e;
        const char *action = "sort", *note = "", *extra;
        char note_buf[96];
        struct stat st;
        int *use = NULL, nuse = 0;

        cuplas_error_clear(&e);
        if (j->err.code) {
            e = j->err;
        } else if (j->use /* resolved by name while planning, weights checked there */ ||
                   cuplas_job_channels(cfg, j->C, &use, &nuse, &e) == 0) {
            if (stat(j->output, &st) == 0) {
                if (cfg->output.overwrite == CUPLAS_OVERWRITE_ERROR) {
                    cuplas_error_where(&e, "%s", j->output);
                    cuplas_error_set(&e, CUPLAS_ERR_EXISTS, "output exists (overwrite: error)");
                } else if (cfg->output.overwrite == CUPLAS_OVERWRITE_OVERWRITE) {
                    note = " (replaces the existing output)";
                } else if (!cuplas_h5_output_complete(j->output, j->dataset, j->identity)) {
                    note = " (redo: existing output incomplete or from other inputs/params)";
                } else if ((extra = cuplas_job_extra_missing(j, cfg))) {
                    snprintf(note_buf, sizeof note_buf, " (redo: complete, but %s is missing "
                             "or from another run)", extra);
                    note = note_buf;
                } else {
                    action = "skip";
                    note = " (complete)";
                }
            }
            /* as in the runner: a job that skips, or fails on an existing
               output, never looks at the folder; one that writes does */
            if (!e.code && strcmp(action, "skip") != 0) {
                char *slash = strrchr(j->output, '/');
                char *dir = slash ? strndup(j->output, (size_t)(slash - j->output))
                                  : strdup(".");
                const char *p = dir ? dir_problem(dir[0] ? dir : "/", why, sizeof why) : NULL;
                free(dir);
                if (p) {
                    cuplas_error_clear(&e);
                    cuplas_error_set(&e, CUPLAS_ERR_OUTPUT, "%s", p);
                    e.reason = CUPLAS_REASON_OUTPUT_DIR;   /* cites output.dir */
                }
            }
        }
        free(use);
        if (e.code) {
            nerr++;
            /* names are data: a newline in one must not split the plan */
            fputs("error  ", out);
            cuplas_put_visible(out, cuplas_job_error_line(jobs, j, &e, line, sizeof line));
            fputc('\n', out);
            continue;
        }
        shape_text(j, shape, sizeof shape);
        fprintf(out, "%-5s  ", action);
        cuplas_put_visible(out, j->file);
        fputc(':', out);
        cuplas_put_visible(out, j->dataset);
        fprintf(out, "  %s %s  -> ", shape, j->dtype);
        cuplas_put_visible(out, j->output);
        fprintf(out, "%s\n", note);
        if (action[1] == 'k')
            nskip++;
        else
            nsort++;
    }
    fprintf(out, "plan: %d job%s: %d to sort, %d to skip, %d with errors\n", jobs->n,
            jobs->n == 1 ? "" : "s", nsort, nskip, nerr);
    return nerr;
}

/* Why no file can be published as `path`, the run's manifest (in buf), or
 * NULL: the checks of cuplas_manifest_write that only read: something not
 * a regular file in its place, a folder that cannot be made or written, a
 * name whose temp name is too long. */
static const char *manifest_problem(const char *path, const char *dir, char *buf, size_t size)
{
    struct stat st;
    const char *what, *why;
    cuplas_error e;

    cuplas_error_clear(&e);
    if (stat(path, &st) == 0 && (what = cuplas_mode_not_regular(st.st_mode))) {
        snprintf(buf, size, "it %s", what);
        return buf;
    }
    if ((why = dir_problem(dir, buf, size)))
        return why;
    if (cuplas_tmp_name_check(path, &e) != 0) {
        snprintf(buf, size, "%s", e.msg);
        return buf;
    }
    return NULL;
}

int cuplas_cli_check_manifest(FILE *out, const cuplas_config *cfg, const cuplas_shard *shard,
                              int plan_errors)
{
    const char *dir = cfg->output.dir && cfg->output.dir[0] ? cfg->output.dir : ".";
    char *path = cuplas_manifest_path(dir, shard), why_buf[LINE_LEN], at[LINE_LEN] = "";
    const char *why, *verdict;
    int bad = 0;

    if (!path)
        return 0;   /* out of memory: run would say so itself */
    if (!(why = manifest_problem(path, dir, why_buf, sizeof why_buf)))
        goto done;
    /* cmd_run.c's mark_started: an earlier manifest (or a name that cannot
       be seen to be free) that cannot be replaced stops the run at once;
       else only the manifest at the end fails, exit 3 if nothing else did */
    if (!cuplas_manifest_absent(path))
        verdict = "`cuplas run` would exit 3 before its first job";
    else if (plan_errors == 0)
        verdict = "`cuplas run` would exit 3 after its jobs";
    else
        verdict = "`cuplas run` would exit 1 for the jobs above, without a manifest";
    cuplas_output_dir_cite(cfg->output.dir_where, cfg->path, at, sizeof at);
    fputs("manifest: ", out);
    cuplas_put_visible(out, path);
    fputs(" cannot be written: ", out);
    cuplas_put_visible(out, why);
    fprintf(out, " (%s)", verdict);
    cuplas_put_visible(out, at);
    fputc('\n', out);
    bad = 1;
done:
    free(path);
    return bad;
}

/* The backend line: what `run` would use here. */
static void print_backend(FILE *out, const cuplas_config *cfg)
{
    int ngpu = 0;
#ifdef HAVE_CUDA
    ngpu = cuplas_gpu_count();
#endif
    cuplas_device_kind d = cfg->backend.device;
    if (d == CUPLAS_DEVICE_CPU || (d == CUPLAS_DEVICE_AUTO && ngpu == 0))
        fprintf(out, "backend: cpu (threads: %d = %s)\n", cfg->backend.threads,
                cfg->backend.threads ? "fixed" : "OpenMP default");
    else if (ngpu == 0)
        fprintf(out, "backend: gpu requested, but no usable GPU is visible here "
                "(`cuplas run` here would exit 3)\n");
    else
        fprintf(out, "backend: gpu (%d visible; backend.gpus: %s)\n", ngpu,
                cfg->backend.ngpus ? "a list" : "all");
}

static int cmd_check(int argc, char **argv)
{
    static const struct option opts[] = {
        {"set", required_argument, NULL, 's'},
        {"shard", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cuplas_overrides ov = {0};
    cuplas_config cfg;
    cuplas_jobs jobs = {0}, mine = {0};
    cuplas_shard shard = {0, 0};
    cuplas_error err;
    int c, rc = CUPLAS_EXIT_OK, loaded = 0;

    cuplas_error_clear(&err);
    optind = 0;
    opterr = 0; /* cuplas_cli_bad_option says it, in one line */
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(check_help, stdout);
            goto done;
        }
        if (c == 'S') {
            if (cuplas_shard_parse(optarg, &shard, &err) != 0) {
                rc = cuplas_cli_usage("check", "%s", err.msg);
                goto done;
            }
            continue;
        }
        if (c != 's') {
            rc = cuplas_cli_bad_option("check", c, argv);
            goto done;
        }
        if (cuplas_cli_override(&ov, "%s", optarg) != 0) {
            rc = CUPLAS_EXIT_FATAL;
            goto done;
        }
    }
    if (optind != argc - 1) {
        rc = cuplas_cli_usage("check", "expected exactly one CONFIG file");
        goto done;
    }
    cuplas_h5_quiet();
    if (cuplas_config_load(&cfg, argv[optind], (const char *const *)ov.v, ov.n, &err) != 0) {
        rc = cuplas_cli_fail(&err);
        goto done;
    }
    loaded = 1;
    if (cuplas_jobs_build(&jobs, &cfg, &err) != 0 ||
        cuplas_shard_select(&jobs, &shard, &mine, &err) != 0) {
        rc = cuplas_cli_fail(&err);
        goto done;
    }
    printf("config: %s (valid)\n", argv[optind]);
    print_backend(stdout, &cfg);
    if (shard.count > 0)
        printf("shard %d/%d: %d of %d jobs\n", shard.index, shard.count, mine.n, jobs.n);
    int nerr = cuplas_cli_print_plan(stdout, &cfg, &mine);
    /* a manifest run cannot write is run's exit 3: check says so, and fails */
    if (cuplas_cli_check_manifest(stdout, &cfg, &shard, nerr) || nerr > 0)
        rc = CUPLAS_EXIT_JOBS_FAILED;
done:
    cuplas_shard_release(&mine);
    cuplas_jobs_free(&jobs);
    if (loaded)
        cuplas_config_free(&cfg);
    cuplas_cli_overrides_free(&ov);
    return rc;
}

const cuplas_cmd cuplas_cmd_check_def = {
    "check", cmd_check, "validate a config, probe its inputs, print the job plan", check_help, 0,
};
