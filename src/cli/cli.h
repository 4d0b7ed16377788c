/*
 * cli.h - what the subcommands share: their entry points and help texts,
 * option helpers, the config-and-log start of the sorting commands, error
 * printing and the signal -> cancel-flag bridge.
 *
 * Every subcommand is `int cuplas_cmd_X(int argc, char **argv)` with argv[0]
 * the subcommand name; it returns the process exit code (CUPLAS_EXIT_*) and
 * never exits itself, so main stays a dispatch table.
 */
#ifndef CUPLAS_CLI_H
#define CUPLAS_CLI_H

#include <stdio.h>

#include "config/config.h"
#include "util/error.h"
#include "pipeline/jobs.h"
#include "pipeline/shard.h"

typedef struct cuplas_cmd {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;   /* one line for `cuplas --help`      */
    const char *help;      /* the whole `cuplas help CMD` text  */
    int openmp_late;       /* calls cuplas_cli_passive_openmp itself, once it
                              knows whether it sorts on the CPU; its argv - 1
                              is then main's argv */
} cuplas_cmd;

extern const cuplas_cmd cuplas_cmd_export_def, cuplas_cmd_export_sog_def;
extern const cuplas_cmd cuplas_cmd_run_def, cuplas_cmd_check_def, cuplas_cmd_sort_def,
    cuplas_cmd_gen_def, cuplas_cmd_report_def, cuplas_cmd_eval_def,
    cuplas_cmd_preview_def;

/* The exit-code paragraph every help text ends with. */
#define CUPLAS_HELP_EXIT_CODES                                                    \
    "Exit codes:\n"                                                               \
    "  0   every job done, or skipped because its output is complete\n"         \
    "  1   at least one job failed (the others still ran)\n"                      \
    "  2   usage or config error: nothing was run (also: another run holds the\n" \
    "      output folder; an output would replace the job's input or other\n"  \
    "      output, or a file that is not a regular one)\n"                     \
    "  3   environment error (no usable GPU for backend.device: gpu, no memory;\n" \
    "      or the log or manifest could not be written)\n"                      \
    "  75  interrupted by SIGINT/SIGTERM/SIGUSR1: stopped cleanly; a rerun with\n" \
    "      output.overwrite: skip resumes (EX_TEMPFAIL: requeue the SLURM task)\n"

/* --set values collected in order (later ones win in cuplas_config_load). */
typedef struct cuplas_overrides {
    char **v;
    int n, cap;
} cuplas_overrides;

int cuplas_cli_override(cuplas_overrides *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void cuplas_cli_overrides_free(cuplas_overrides *o);

/* The start of a command that sorts (run, sort): HDF5's own error printing
 * off, the config loaded from path (NULL: defaults and overrides only) with
 * the --set overrides, then its log opened (log_format is --log-format, or
 * NULL). 0 on success; else the error is printed, cfg is left freed and
 * the exit code for it is returned. End with cuplas_cli_finish either way. */
int cuplas_cli_load_config(const char *path, const cuplas_overrides *ov, const char *log_format,
                           cuplas_config *cfg, cuplas_log *lg, cuplas_error *err);

/* The end of a command that sorts: close the log, free the config (when
 * loaded) and the overrides. Returns rc, or CUPLAS_EXIT_FATAL in place of
 * 0 when the log could not be written: the run's record is lost then. */
int cuplas_cli_finish(cuplas_log *lg, cuplas_config *cfg, int loaded, cuplas_overrides *ov,
                      int rc);

/* "cuplas CMD: msg" + a pointer to the help; returns CUPLAS_EXIT_USAGE. */
int cuplas_cli_usage(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* getopt_long's '?' or ':' (c), with opterr 0 and ":h..." options: the
 * usage error naming the option, in the message's one line. */
int cuplas_cli_bad_option(const char *cmd, int c, char **argv);

/* --log-format ARG of command cmd: 0 when ARG is a known format, else the
 * usage message and CUPLAS_EXIT_USAGE. */
int cuplas_cli_log_format(const char *cmd, const char *arg);

/* "cuplas: error: where: msg" on stderr. */
void cuplas_cli_error(const cuplas_error *e);

/* No busy-waiting OpenMP threads unless the user chose a policy: sets
 * OMP_WAIT_POLICY=passive and starts this binary again with main's argv
 * (once; CUPLAS_REEXEC marks the second start). Returns if OMP_WAIT_POLICY
 * or CUPLAS_REEXEC is set, or the exec failed. */
void cuplas_cli_passive_openmp(char **argv);

/* cuplas_cli_error, then the exit code for e's class (cuplas_cli_exit_for). */
int cuplas_cli_fail(const cuplas_error *e);

/* Exit code for a failure that stopped a command before any job ran. */
int cuplas_cli_exit_for(cuplas_status code);

/* "FILE.h5:/GROUP" -> *file, *group (malloc'd; *group NULL when the spec
 * names none). A ':' starts the group only when a '/' follows it, so file
 * names with colons still work. 0, or -1 when out of memory. */
int cuplas_cli_split_spec(const char *spec, char **file, char **group);

/* Parse a whole decimal integer in [lo, hi]; 0 on success. */
int cuplas_cli_int(const char *s, long long lo, long long hi, long long *v);

/* The SH palette's options, shared by export-sog and eval: put
 * CUPLAS_CLI_PALETTE_OPTIONS in the getopt_long table and hand each
 * option to cuplas_cli_palette_option. */
enum { CUPLAS_OPT_SH_PALETTE = 0x1000, CUPLAS_OPT_SH_ITER, CUPLAS_OPT_BACKEND, CUPLAS_OPT_GPU };
#define CUPLAS_CLI_PALETTE_OPTIONS                                                  \
    {"sh-palette", required_argument, NULL, CUPLAS_OPT_SH_PALETTE},                 \
    {"sh-iterations", required_argument, NULL, CUPLAS_OPT_SH_ITER},                 \
    {"backend", required_argument, NULL, CUPLAS_OPT_BACKEND},                       \
    {"gpu", required_argument, NULL, CUPLAS_OPT_GPU}

typedef struct cuplas_cli_palette {
    int K;            /* --sh-palette; 0: SOG's size for the splats      */
    int iterations;   /* --sh-iterations (CUPLAS_PALETTE_ITERATIONS)     */
    int backend;      /* --backend: 0 auto, 1 cpu, 2 gpu (--gpu too)     */
    int gpu;          /* --gpu (0)                                       */
} cuplas_cli_palette;

void cuplas_cli_palette_init(cuplas_cli_palette *p);
/* An option c (getopt's value) that cmd's own switch did not take: 0 when
 * it is one of the palette's and was taken; else the exit code of the
 * usage error printed (a bad value, or an option cmd does not know). */
int cuplas_cli_palette_option(const char *cmd, int c, const char *arg, char **argv,
                              cuplas_cli_palette *p);
/* The k-means device: -1 for the CPU (--backend cpu, auto with no GPU,
 * or auto when no palette is to be fitted: such a run never starts the
 * CUDA driver), else the --gpu device. A GPU named (--backend gpu or
 * --gpu) is checked whether a palette is fitted or not, as `sort` checks
 * it: CUPLAS_ERR_NODEVICE, with the where set to `file`, when that
 * device is not there. */
int cuplas_cli_palette_device(const cuplas_cli_palette *p, int palette, const char *file,
                              int *device, cuplas_error *err);

/* SIGINT, SIGTERM and SIGUSR1 store 1 into *flag (also when one came
 * before this call); a second signal takes the default action, unless it
 * comes within a second of the first (the same request delivered twice:
 * SLURM signals every process of a job, and a batch script may forward
 * it). flag NULL puts the default actions back: call it, or
 * cuplas_cli_settle_signals, before *flag goes out of scope. */
void cuplas_cli_catch_signals(volatile int *flag);

/* The outcome is written (run's manifest): signals are still caught, into
 * a flag of cli.c's own, so a late one does not change the exit status. */
void cuplas_cli_settle_signals(void);

/* The job plan of `cuplas check` (and `run --dry-run`) on out. Returns the
 * number of jobs that cannot run. */
int cuplas_cli_print_plan(FILE *out, const cuplas_config *cfg, const cuplas_jobs *jobs);

/* After the plan: whether `cuplas run` (of that shard) could write its
 * manifest, where run's own rules would make a manifest that cannot be
 * written exit 3 (cmd_run.c): an earlier manifest there that cannot be
 * replaced stops run before its first job; a manifest that cannot be made
 * exits 3 when the run would otherwise exit 0 (plan_errors == 0). Prints
 * one "manifest: ..." line and returns 1 then, else prints nothing and
 * returns 0. Only reads (stat, access), as the plan. */
int cuplas_cli_check_manifest(FILE *out, const cuplas_config *cfg, const cuplas_shard *shard,
                              int plan_errors);

/* `cuplas report --html`: the merged manifests as one self-contained
 * page (report_html.c). */
struct cuplas_merged;
void cuplas_report_html(FILE *f, const char *dir, const struct cuplas_merged *mg, int nbad);

#endif
