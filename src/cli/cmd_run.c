/*
 * cmd_run.c - `cuplas run CONFIG`: the batch job.
 *
 * config -> log -> job list -> shard -> stale temps -> runner -> summary
 * -> manifest -> exit code. Everything that can stop the run before a job
 * starts (config, log file, output collisions, shard, no GPU) is decided
 * here first, so exit codes 2 and 3 always mean that no output was
 * written. The manifest is written on every path that reached the runner,
 * the interrupted one (75) included: it is what `cuplas report` reads.
 * It is also written just before the runner starts, as a marker
 * ("finished": false): a run killed with -9 cannot write its end, and the
 * previous run's manifest must not go on describing outputs this run
 * has replaced.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/fsutil.h"
#include "util/log.h"
#include "pipeline/gpu_warm.h"
#include "pipeline/manifest.h"
#include "pipeline/output_name.h"
#include "util/clock.h"
#include "pipeline/runner.h"
#include "pipeline/shard.h"
#include "io/stale.h"

static const char run_help[] =
    "Usage: cuplas run CONFIG [--set KEY=VALUE ...] [--log-format text|json|auto]\n"
    "                  [--shard I/N | --no-shard] [--force] [--dry-run]\n"
    "\n"
    "Sort every dataset that CONFIG's inputs name and write one result file\n"
    "per dataset (group named after the dataset: `index` and `sorted`, with\n"
    "the parameters, seed, metrics and input identity as attributes). Jobs\n"
    "run largest grid first; a bad input fails its own job only. With\n"
    "output.overwrite: skip a rerun skips every complete output (resume),\n"
    "after removing temp files that a killed run left next to this run's\n"
    "outputs.\n"
    "\n"
    "Every run that starts its jobs writes a manifest into output.dir:\n"
    "cuplas-manifest.I-of-N.json (sharded) or cuplas-manifest.json: run info\n"
    "and one record per dataset (status, error, AND, timings, device).\n"
    "It is written at the start too, as a marker (\"finished\": false, every\n"
    "dataset pending) that replaces the previous run's: a run killed before\n"
    "its end is reported as not finished. `cuplas report DIR` merges them.\n"
    "\n"
    "Options:\n"
    "  --set KEY=VALUE      override a config key (repeatable; YAML value,\n"
    "                       e.g. --set backend.device=cpu --set sort.seed=7)\n"
    "  --log-format FORMAT  text, json or auto (overrides logging.format;\n"
    "                       auto = text on a terminal, else JSON lines)\n"
    "  --shard I/N          run shard I (0-based) of N of the job list. The\n"
    "                       split is deterministic and balanced by grid size\n"
    "                       (N*C), so N processes with I = 0..N-1 sort every\n"
    "                       dataset exactly once. Default inside a SLURM array\n"
    "                       task: I = SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN,\n"
    "                       N = MAX - MIN + 1 (or SLURM_ARRAY_TASK_COUNT)\n"
    "  --no-shard           ignore the SLURM array variables: the whole list\n"
    "  --force              redo every job of the shard (= --set\n"
    "                       output.overwrite=overwrite)\n"
    "  --dry-run            print the (shard's) job plan, as `cuplas check`\n"
    "  -h, --help           this text\n"
    "\n"
    "Signals: SIGINT, SIGTERM and SIGUSR1 start no new job; a running CPU\n"
    "sort stops at its next level, a GPU sort when its job ends; nothing\n"
    "partial is published (temp files are removed). The summary and the\n"
    "manifest are written and cuplas exits 75, so a rerun (or SLURM requeue,\n"
    "scripts/cuplas-requeue.sbatch) resumes. A second signal kills at once.\n"
    "\n" CUPLAS_HELP_EXIT_CODES
    "  (3 also when every job succeeded but the manifest could not be written)\n";

/* A fatal error goes to the log; also to stderr when the log is a file. */
static void report(cuplas_log *lg, const cuplas_error *e)
{
    char buf[1100], text[1200];
    snprintf(text, sizeof text, "cuplas: error: %s", cuplas_error_format(e, buf, sizeof buf));
    cuplas_log_event(lg, CUPLAS_LOG_ERROR, "fatal", text,
                     CUPLAS_LF_S("code", cuplas_status_name(e->code)), NULL);
    if (lg->owns_out || !lg->out)
        fprintf(stderr, "%s\n", text);
}

/* The manifest's errors are output.dir's doing: e's message gets its
 * citation (cuplas_output_dir_cite), as the job errors of the folder do. */
static void cite_output_dir(cuplas_error *e, const cuplas_config *cfg)
{
    char at[600], msg[sizeof e->msg];
    cuplas_output_dir_cite(cfg->output.dir_where, cfg->path, at, sizeof at);
    cuplas_error_fitf(msg, sizeof msg, "%s%s", e->msg, at);
    memcpy(e->msg, msg, sizeof msg);
}

/* Which shard this process runs: --shard, else the SLURM array task
 * (unless --no-shard), else all of it. */
static int pick_shard(const char *opt, int no_env, cuplas_shard *sh, char *source, size_t size,
                      cuplas_error *err)
{
    memset(sh, 0, sizeof *sh);
    snprintf(source, size, "none");
    if (opt) {
        snprintf(source, size, "--shard");
        return cuplas_shard_parse(opt, sh, err);
    }
    if (no_env)
        return 0;
    if (cuplas_shard_from_env(getenv("SLURM_ARRAY_TASK_ID"), getenv("SLURM_ARRAY_TASK_COUNT"),
                              getenv("SLURM_ARRAY_TASK_MIN"), getenv("SLURM_ARRAY_TASK_MAX"),
                              getenv("SLURM_ARRAY_TASK_STEP"),
                              sh, err) != 0)
        return (int)err->code;
    if (sh->count > 0)
        snprintf(source, size, "SLURM array task %s", getenv("SLURM_ARRAY_TASK_ID"));
    return 0;
}

/*
 * One run per manifest at a time: two runs of one shard on one output
 * folder would overwrite each other's manifest and remove each other's
 * temp files as stale. The lock is a hidden file beside the manifest
 * (".cuplas-manifest.json.lock"), held until the process ends. Before
 * it, the folder's split lock (".cuplas-split.lock", cuplas_lock_split):
 * the shards of one split run together, runs of two splits (unsharded and
 * --shard I/2) would write the same outputs. 0, or CUPLAS_ERR_USAGE when
 * another run holds either (nothing has run yet).
 */
static int lock_folder(const char *dir, const cuplas_shard *shard, cuplas_error *err)
{
    char *man = cuplas_manifest_path(dir, shard), *lock = NULL, *slash;
    long pid = 0;
    int fd = -1, other = -1, rc = 0;

    if (!man || !(lock = malloc(strlen(man) + 32)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    slash = strrchr(man, '/');
    /* a folder that cannot be made or written fails each job as before,
       with its own message: the locks are only for two runs at once */
    if (cuplas_mkdir_p(dir, err) != 0) {
        cuplas_error_clear(err);
        goto fail;
    }
    /* first the split (runs of two splits write the same outputs), then
       this shard of it */
    sprintf(lock, "%s/.cuplas-split.lock", dir);
    if (cuplas_lock_split(lock, shard->count, &fd, &other, &pid, err) == 1) {
        char what[64] = "an unsharded run";
        if (other > 0)
            snprintf(what, sizeof what, "a run of another split (--shard I/%d)", other);
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "output folder %s is in use by %s (pid %ld, lock "
                    "%s): the two would write the same outputs; wait for it, or give this run "
                    "another output.dir", dir, what, pid, lock);
    }
    sprintf(lock, "%.*s.%s.lock", slash ? (int)(slash + 1 - man) : 0, man,
            slash ? slash + 1 : man);
    if (cuplas_lock_path(lock, &fd, &pid, err) == 1)
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "output folder %s is in use by another cuplas run "
                    "(pid %ld, lock %s): wait for it, or give this run another output.dir",
                    dir, pid, lock);
    cuplas_error_clear(err);   /* both fds stay open: the locks last as long as the run */
fail:
    free(lock);
    free(man);
    return rc;
}

/* Outputs of this shard (results, sorted PLYs, previews, SOG folders, eval
 * images folders) and its manifest: where stale temp files can be. */
static void clean_stale(const cuplas_jobs *mine, const char *manifest, int eval_images,
                        time_t since, cuplas_log *lg)
{
    const char **paths = calloc((size_t)mine->n * 5 + 1, sizeof *paths);
    char **images = calloc((size_t)mine->n + 1, sizeof *images);
    int n = 0;
    if (!paths || !images) {
        free(paths);
        free(images);
        return;   /* only housekeeping: the run itself does not need it */
    }
    for (int i = 0; i < mine->n; i++) {
        paths[n++] = mine->v[i].output;
        paths[n++] = mine->v[i].ply_out;
        paths[n++] = mine->v[i].preview_out;
        paths[n++] = mine->v[i].sog_out;
        if (eval_images && mine->v[i].output)
            paths[n++] = images[i] = cuplas_output_beside(mine->v[i].output, ".eval");
    }
    paths[n++] = manifest;
    cuplas_stale_clean(paths, n, since, lg);
    for (int i = 0; i < mine->n; i++)
        free(images[i]);
    free(images);
    free(paths);
}

/*
 * The start marker in place of the previous manifest of this shard. A
 * folder it cannot be written to is not fatal by itself (each job then
 * fails with its own message, and the manifest at the end says so once
 * more), as long as no earlier manifest is left there to look complete:
 * one that can be neither replaced nor seen to be absent stops the run
 * before any job (CUPLAS_ERR_OUTPUT; the caller exits 3, as for a
 * manifest that cannot be written at the end).
 */
static int mark_started(const cuplas_manifest *man, const cuplas_jobs *mine, const char *path,
                        cuplas_error *err)
{
    cuplas_error werr;
    int rc = 0;

    cuplas_error_clear(&werr);
    if (cuplas_manifest_start(man, mine, path, &werr) == 0)
        return 0;
    if (cuplas_manifest_absent(path))
        return 0;   /* nothing earlier there to outlive this run */
    CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "%s (the previous run's manifest there would "
                "outlive this run: nothing was run)", werr.msg);
fail:
    cuplas_error_where(err, "%s", path);
    return rc;
}

static int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"set", required_argument, NULL, 's'},
        {"log-format", required_argument, NULL, 'l'},
        {"dry-run", no_argument, NULL, 'n'},
        {"shard", required_argument, NULL, 'S'},
        {"no-shard", no_argument, NULL, 'N'},
        {"force", no_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cuplas_overrides ov = {0};
    cuplas_config cfg;
    cuplas_jobs jobs = {0}, mine = {0};
    cuplas_runner runner;
    cuplas_manifest man;
    cuplas_shard shard;
    cuplas_log lg = {0};
    cuplas_error err;
    const char *log_format = NULL, *shard_opt = NULL;
    char *man_path = NULL, source[64], text[512];
    /* a signal while planning: nothing starts, and the exit is still 75 */
    volatile int early_stop = 0;
    int c, rc = CUPLAS_EXIT_OK, loaded = 0, dry = 0, have_runner = 0, no_shard = 0, force = 0;
    int have_man = 0;
    double t_main = cuplas_now_s(), t_plan = 0;
    cuplas_gpu_warm *warm = NULL;

    cuplas_error_clear(&err);
    memset(&runner, 0, sizeof runner);
    memset(&man, 0, sizeof man);
    optind = 0;
    opterr = 0; /* cuplas_cli_bad_option says it, in one line */
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(run_help, stdout);
            goto done;
        case 's':
            if (cuplas_cli_override(&ov, "%s", optarg) != 0) {
                rc = CUPLAS_EXIT_FATAL;
                goto done;
            }
            break;
        case 'l':
            if ((rc = cuplas_cli_log_format("run", optarg)) != 0)
                goto done;
            log_format = optarg;
            break;
        case 'n':
            dry = 1;
            break;
        case 'S':
            shard_opt = optarg;
            break;
        case 'N':
            no_shard = 1;
            break;
        case 'f':
            force = 1;
            break;
        default:
            rc = cuplas_cli_bad_option("run", c, argv);
            goto done;
        }
    }
    if (optind != argc - 1) {
        rc = cuplas_cli_usage("run", "expected exactly one CONFIG file");
        goto done;
    }
    if (shard_opt && no_shard) {
        rc = cuplas_cli_usage("run", "--shard and --no-shard exclude each other");
        goto done;
    }
    /* last, so that it wins over any --set output.overwrite */
    if (force && cuplas_cli_override(&ov, "output.overwrite=overwrite") != 0) {
        rc = CUPLAS_EXIT_FATAL;
        goto done;
    }
    if (pick_shard(shard_opt, no_shard, &shard, source, sizeof source, &err) != 0) {
        rc = cuplas_cli_usage("run", "%s", err.msg);
        goto done;
    }
    if (!dry) {
        if (cuplas_manifest_begin(&man, argv[optind], &shard, &err) != 0) {
            cuplas_cli_error(&err);
            rc = CUPLAS_EXIT_FATAL;
            goto done;
        }
        have_man = 1;
        cuplas_cli_catch_signals(&early_stop);
    }
    if ((rc = cuplas_cli_load_config(argv[optind], &ov, log_format, &cfg, &lg, &err)) != 0)
        goto done;
    loaded = 1;
    /* the GPUs' contexts are made while the inputs are planned */
    if (!dry)
        warm = cuplas_gpu_warm_start(&cfg, cfg.backend.lanes);   /* 0: by the plan */
    t_plan = cuplas_now_s();
    /* the whole list, failed inputs included: every task must split the same list */
    if (cuplas_jobs_build(&jobs, &cfg, &err) != 0 ||
        cuplas_shard_select(&jobs, &shard, &mine, &err) != 0) {
        if (jobs.log_clash)
            cuplas_log_detach(&lg);   /* not one line into an input */
        report(&lg, &err);
        rc = cuplas_cli_exit_for(err.code);
        goto done;
    }
    /* a CPU run's OpenMP teams must not spin: start again passive (cli.h).
       Here, after planning, the driver has loaded while the inputs were
       probed; nothing is written yet (the manifest is in memory) */
    if (!dry && !cuplas_gpu_run_expected(&cfg))
        cuplas_cli_passive_openmp(argv - 1);
    if (shard.count > 0) {
        snprintf(text, sizeof text, "cuplas: shard %d/%d (%s): %d of %d jobs", shard.index,
                 shard.count, source, mine.n, jobs.n);
        if (dry)
            printf("%s\n", text + 8);
        else
            cuplas_log_event(&lg, CUPLAS_LOG_INFO, "shard", text,
                             CUPLAS_LF_I("index", shard.index), CUPLAS_LF_I("count", shard.count),
                             CUPLAS_LF_S("source", source), CUPLAS_LF_I("jobs", mine.n),
                             CUPLAS_LF_I("all_jobs", jobs.n), NULL);
    }
    if (dry) {
        int nerr = cuplas_cli_print_plan(stdout, &cfg, &mine);
        rc = cuplas_cli_check_manifest(stdout, &cfg, &shard, nerr) || nerr
                 ? CUPLAS_EXIT_JOBS_FAILED : CUPLAS_EXIT_OK;
        goto done;
    }
    if (cuplas_runner_init(&runner, &cfg, &mine, &lg, &err) != 0) {
        report(&lg, &err);
        rc = cuplas_cli_exit_for(err.code);
        goto done;
    }
    have_runner = 1;
    runner.t_main = t_main;
    runner.plan_s = cuplas_now_s() - t_plan;
    runner.warm = warm;
    /* after the devices are known (no GPU: exit 3 with no output folder),
       before anything in the folder is touched */
    if (lock_folder(cfg.output.dir, &shard, &err) != 0) {
        report(&lg, &err);
        rc = cuplas_cli_exit_for(err.code);
        goto done;
    }
    if (!(man_path = cuplas_manifest_path(cfg.output.dir, &shard))) {
        cuplas_error_set(&err, CUPLAS_ERR_NOMEM, "out of memory");
        report(&lg, &err);
        rc = CUPLAS_EXIT_FATAL;
        goto done;
    }
    clean_stale(&mine, man_path, cfg.eval.enabled && cfg.eval.images, (time_t)man.start_unix,
                &lg);
    if (mark_started(&man, &mine, man_path, &err) != 0) {
        cite_output_dir(&err, &cfg);
        report(&lg, &err);
        rc = CUPLAS_EXIT_FATAL;
        goto done;
    }
    /* after a signal while planning, keep that handler (a second signal
       kills) and just pass the request on */
    if (!early_stop)
        cuplas_cli_catch_signals(&runner.cancel);
    if (early_stop)
        runner.cancel = 1;
    if (cuplas_runner_run(&runner, &err) != 0) {
        report(&lg, &err);
        cuplas_runner_summary(&runner);
        rc = runner.cancel ? CUPLAS_EXIT_INTERRUPTED : CUPLAS_EXIT_FATAL;
    } else {
        cuplas_runner_summary(&runner);
        rc = cuplas_runner_exit_code(&runner);
    }
    /* the manifest on every path that reached the runner, 75 included */
    cuplas_error_clear(&err);
    if (cuplas_manifest_add_results(&man, &mine, runner.results, runner.workers, &err) == 0) {
        cuplas_manifest_finish(&man, rc, runner.cancel);
        if (cuplas_manifest_write(&man, man_path, &err) == 0) {
            snprintf(text, sizeof text, "cuplas: manifest %s", man_path);
            cuplas_log_event(&lg, CUPLAS_LOG_INFO, "manifest", text,
                             CUPLAS_LF_S("path", man_path), CUPLAS_LF_I("exit_code", rc), NULL);
        } else {
            cite_output_dir(&err, &cfg);
        }
    }
    if (err.code) {
        report(&lg, &err);
        /* a task without a manifest looks lost to `report`: a clean run must not
           exit 0 then; 1 and 75 already say "look at this" (75: requeue) */
        if (rc == CUPLAS_EXIT_OK)
            rc = CUPLAS_EXIT_FATAL;
    }
done:
    cuplas_cli_settle_signals();
    if (have_runner)
        cuplas_runner_free(&runner);
    cuplas_gpu_warm_free(warm);
    if (have_man)
        cuplas_manifest_free(&man);
    free(man_path);
    cuplas_shard_release(&mine);
    cuplas_jobs_free(&jobs);
    return cuplas_cli_finish(&lg, &cfg, loaded, &ov, rc);
}

const cuplas_cmd cuplas_cmd_run_def = {
    "run", cmd_run, "sort every input of a config (the batch job)", run_help,
    1,   /* openmp_late */
};
