/*
 * main.c - the `cuplas` binary: dispatch to a subcommand, nothing else.
 *
 *   cuplas run CONFIG     batch job        (cmd_run.c   -> jobs.c, runner.c, log.c)
 *   cuplas check CONFIG   plan, no writes  (cmd_check.c -> jobs.c)
 *   cuplas sort IN OUT    one-off sort     (cmd_sort.c  -> jobs.c, runner.c)
 *   cuplas gen ...        synthetic inputs (cmd_gen.c   -> gen.c)
 *   cuplas report DIR     merge manifests  (cmd_report.c -> manifest_merge.c)
 *   cuplas eval FILE      vs baselines     (cmd_eval.c  -> h5_result.c, eval/)
 *   cuplas preview FILE   PNG side by side (cmd_eval.c  -> eval/preview.c)
 */
#include "cuplas_build.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"       /* provides: the subcommand table entries, exit-code help text */
#include "config/config.h"    /* provides: cuplas_config_print_keys (`cuplas help config`)   */
#include "util/error.h"     /* provides: CUPLAS_EXIT_* process exit codes                   */
#include "io/h5_lib.h"       /* provides: cuplas_h5_version (`cuplas --version`)             */

static const cuplas_cmd *const commands[] = {
    &cuplas_cmd_run_def, &cuplas_cmd_check_def, &cuplas_cmd_sort_def, &cuplas_cmd_gen_def,
    &cuplas_cmd_report_def, &cuplas_cmd_export_def, &cuplas_cmd_export_sog_def,
    &cuplas_cmd_eval_def, &cuplas_cmd_preview_def,
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out, "Usage: cuplas COMMAND [options]   (cuplas help COMMAND for its options)\n"
                 "\nSort HDF5 feature grids with the CUPLAS/PLAS algorithm.\n\nCommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(out, "  help       cuplas help COMMAND, or cuplas help config (every config key)\n"
                 "\nOptions:\n  -h, --help     this text\n  -V, --version  version and "
                 "build features\n\n" CUPLAS_HELP_EXIT_CODES);
}

static void version(void)
{
    unsigned maj = 0, min = 0, rel = 0;
    cuplas_h5_version(&maj, &min, &rel);
#ifdef HAVE_CUDA
    const char *cuda = "yes";
#else
    const char *cuda = "no";
#endif
#ifdef _OPENMP
    const char *omp = "yes";
#else
    const char *omp = "no";
#endif
    const char *wait = getenv("OMP_WAIT_POLICY");
    printf("cuplas %s (CUDA: %s, OpenMP: %s, OMP_WAIT_POLICY=%s, HDF5 %u.%u.%u)\n",
           PACKAGE_VERSION, cuda, omp, wait ? wait : "(unset)", maj, min, rel);
}

static const cuplas_cmd *find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(commands[i]->name, name))
            return commands[i];
    return NULL;
}

static int help(int argc, char **argv)
{
    if (argc < 2) {
        usage(stdout);
        return CUPLAS_EXIT_OK;
    }
    if (!strcmp(argv[1], "help") || !strcmp(argv[1], "-h")
        || !strcmp(argv[1], "--help")) {   /* help's own page is the usage */
        usage(stdout);
        return CUPLAS_EXIT_OK;
    }
    if (!strcmp(argv[1], "config")) {
        cuplas_config_print_keys(stdout); /* the table, its header included */
        return CUPLAS_EXIT_OK;
    }
    const cuplas_cmd *c = find(argv[1]);
    if (!c) {
        fprintf(stderr, "cuplas help: unknown command '%s'\n", argv[1]);
        return CUPLAS_EXIT_USAGE;
    }
    fputs(c->help, stdout);
    return CUPLAS_EXIT_OK;
}

int main(int argc, char **argv)
{
    /* a file size limit (ulimit -f) fails the write with EFBIG, reported
       and recorded like a full disk, instead of killing the process with
       its manifest unwritten */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return CUPLAS_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(stdout);
        return CUPLAS_EXIT_OK;
    }
    if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
        cuplas_cli_passive_openmp(argv);   /* so that --version shows the policy in effect */
        version();
        return CUPLAS_EXIT_OK;
    }
    if (!strcmp(argv[1], "help"))
        return help(argc - 1, argv + 1);
    const cuplas_cmd *c = find(argv[1]);
    if (!c) {
        fprintf(stderr, "cuplas: unknown command '%s'\nTry 'cuplas --help'.\n", argv[1]);
        return CUPLAS_EXIT_USAGE;
    }
    if (!c->openmp_late)
        cuplas_cli_passive_openmp(argv);
    return c->run(argc - 1, argv + 1);
}
