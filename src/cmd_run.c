/*
 * cmd_run.c - `cuplas run CONFIG`: the batch job.
 *
 * config -> log -> job list -> runner -> summary -> exit code. Everything
 * that can stop the run before a job starts (config, log file, output
 * collisions, no GPU) is decided here first, so exit codes 2 and 3 always
 * mean that nothing was written.
 */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "h5io.h"
#include "log.h"
#include "runner.h"

static const char run_help[] =
    "Usage: cuplas run CONFIG [--set KEY=VALUE ...] [--log-format text|json]\n"
    "                  [--dry-run]\n"
    "\n"
    "Sort every dataset that CONFIG's inputs name and write one result file\n"
    "per dataset (group named after the dataset: `index` and `sorted`, with\n"
    "the parameters, seed, metrics and input identity as attributes). Jobs\n"
    "run largest grid first; a bad input fails its own job only. With\n"
    "output.overwrite: skip a rerun skips every complete output (resume).\n"
    "\n"
    "Options:\n"
    "  --set KEY=VALUE      override a config key (repeatable; YAML value,\n"
    "                       e.g. --set backend.device=cpu --set sort.seed=7)\n"
    "  --log-format FORMAT  text, json or auto (overrides logging.format;\n"
    "                       auto = text on a terminal, else JSON lines)\n"
    "  --dry-run            print the job plan (as `cuplas check`) and stop\n"
    "  -h, --help           this text\n"
    "\n"
    "Signals: SIGINT, SIGTERM and SIGUSR1 stop after the current job (a CPU\n"
    "sort stops at its next level; nothing partial is written), print the\n"
    "summary and exit 75. A second signal kills at once.\n"
    "\n" CUPLAS_HELP_EXIT_CODES;

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

static int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"set", required_argument, NULL, 's'},
        {"log-format", required_argument, NULL, 'l'},
        {"dry-run", no_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cuplas_overrides ov = {0};
    cuplas_config cfg;
    cuplas_jobs jobs = {0};
    cuplas_runner runner;
    cuplas_log lg = {0};
    cuplas_error err;
    const char *log_format = NULL;
    int c, rc = CUPLAS_EXIT_OK, loaded = 0, dry = 0, have_runner = 0;

    cuplas_error_clear(&err);
    memset(&runner, 0, sizeof runner);
    optind = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
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
        case 'l': {
            cuplas_log_format f;
            if (cuplas_log_format_parse(optarg, &f) != 0) {
                rc = cuplas_cli_usage("run", "--log-format: unknown format '%s' (accepted: "
                                      "text, json, auto)", optarg);
                goto done;
            }
            log_format = optarg;
            break;
        }
        case 'n':
            dry = 1;
            break;
        default:
            rc = cuplas_cli_usage("run", "bad option");
            goto done;
        }
    }
    if (optind != argc - 1) {
        rc = cuplas_cli_usage("run", "expected exactly one CONFIG file");
        goto done;
    }
    cuplas_h5_quiet();
    if (cuplas_config_load(&cfg, argv[optind], (const char *const *)ov.v, ov.n, &err) != 0) {
        cuplas_cli_error(&err);
        rc = cuplas_cli_exit_for(err.code);
        goto done;
    }
    loaded = 1;
    if (cuplas_log_open(&lg, &cfg.log, log_format, &err) != 0) {
        cuplas_cli_error(&err);
        rc = cuplas_cli_exit_for(err.code);
        goto done;
    }
    if (cuplas_jobs_build(&jobs, &cfg, &err) != 0) {
        report(&lg, &err);
        rc = cuplas_cli_exit_for(err.code);
        goto done;
    }
    if (dry) {
        rc = cuplas_cli_print_plan(stdout, &cfg, &jobs) ? CUPLAS_EXIT_JOBS_FAILED
                                                         : CUPLAS_EXIT_OK;
        goto done;
    }
    if (cuplas_runner_init(&runner, &cfg, &jobs, &lg, &err) != 0) {
        report(&lg, &err);
        rc = cuplas_cli_exit_for(err.code);
        goto done;
    }
    have_runner = 1;
    cuplas_cli_catch_signals(&runner.cancel);
    if (cuplas_runner_run(&runner, &err) != 0) {
        report(&lg, &err);
        cuplas_runner_summary(&runner);
        rc = runner.cancel ? CUPLAS_EXIT_INTERRUPTED : CUPLAS_EXIT_FATAL;
        goto done;
    }
    cuplas_runner_summary(&runner);
    rc = cuplas_runner_exit_code(&runner);
done:
    cuplas_cli_catch_signals(NULL);
    if (have_runner)
        cuplas_runner_free(&runner);
    cuplas_jobs_free(&jobs);
    cuplas_log_close(&lg);
    if (loaded)
        cuplas_config_free(&cfg);
    cuplas_cli_overrides_free(&ov);
    return rc;
}

const cuplas_cmd cuplas_cmd_run_def = {
    "run", cmd_run, "sort every input of a config (the batch job)", run_help,
};
