/*
 * main.c - the `cuplas` binary: dispatch to a subcommand, nothing else.
 *
 *   cuplas run CONFIG     batch job        (cmd_run.c   -> jobs.c, runner.c, log.c)
 *   cuplas check CONFIG   plan, no writes  (cmd_check.c -> jobs.c)
 *   cuplas sort IN OUT    one-off sort     (cmd_sort.c  -> jobs.c, runner.c)
 *   cuplas gen ...        synthetic inputs (cmd_gen.c   -> gen.c)
 *   cuplas report DIR     merge manifests  (cmd_report.c -> manifest.c)
 *   cuplas eval FILE      vs baselines     (cmd_eval.c  -> h5_result.c, eval/)
 *   cuplas preview FILE   PNG side by side (cmd_eval.c  -> eval/preview.c)
 */
#include "cuplas_build.h"

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
    &cuplas_cmd_report_def, &cuplas_cmd_export_def, &cuplas_cmd_eval_def, &cuplas_cmd_preview_def,
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out, "Usage: cuplas COMMAND [options]   (cuplas help COMMAND for its options)\n"
                 "\nSort HDF5 feature grids with the CUPLAS/PLAS algorithm.\n\nCommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-8s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(out, "  help     cuplas help COMMAND, or cuplas help config (every config key)\n"
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
    if (!strcmp(argv[1], "config")) {
        printf("| key | type | default | accepted | description |\n|---|---|---|---|---|\n");
        cuplas_config_print_keys(stdout);
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

/*
 * No busy waiting by default. libgomp reads OMP_WAIT_POLICY once, when it
 * is loaded (before main); unset, its idle threads spin for a while before
 * they sleep, and on a node shared with one other busy process (a SLURM
 * node) a 2-thread CPU sort ran 10-25x slower (README, "Hostile and
 * careless inputs"). So when the user has not chosen a policy, set it to
 * passive and start this binary again, once: CUPLAS_REEXEC marks the
 * second start. If the exec fails, go on as before. A user who wants
 * spinning exports OMP_WAIT_POLICY=active.
 */
static void passive_openmp(char **argv)
{
#ifdef _OPENMP
    if (getenv("OMP_WAIT_POLICY") || getenv("CUPLAS_REEXEC"))
        return;
    if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0 || setenv("CUPLAS_REEXEC", "1", 1) != 0)
        return;
    fflush(NULL);
    execv("/proc/self/exe", argv);
    unsetenv("OMP_WAIT_POLICY");   /* not in effect: do not claim it to children */
#else
    (void)argv;
#endif
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CUPLAS_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(stdout);
        return CUPLAS_EXIT_OK;
    }
    if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
        passive_openmp(argv);   /* so that --version shows the policy in effect */
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
    passive_openmp(argv);
    return c->run(argc - 1, argv + 1);
}
