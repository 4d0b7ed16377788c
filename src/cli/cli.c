/*
 * cli.c - helpers shared by the subcommands (options, config and log
 * set-up, errors, signals).
 *
 * Design fact: the signal handler's state is the one piece of
 * process-wide mutable state in cuplas. A handler gets no user argument,
 * so it needs a static pointer to the runner's cancel flag; it only ever
 * stores 1 through it (async-signal-safe), and the workers poll the flag.
 * It also keeps which signal came first and when, so that a copy of the
 * same request is not taken for a second one, and so that a request made
 * while a CPU run restarts itself (cuplas_cli_passive_openmp) survives
 * the exec.
 */
#define _GNU_SOURCE /* vasprintf */
#include "cuplas_build.h"
#include "cli/cli.h"
#include "io/h5_lib.h"
#include "sort/palette.h"
#include "util/log.h"
#ifdef HAVE_CUDA
#include "cuda/sort_gpu.h"
#endif

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile int *signal_flag;
/* The first signal caught (0: none) and when (CLOCK_MONOTONIC seconds): a
 * copy within SIGNAL_GRACE_S is the same request delivered twice (SLURM
 * signals every process of a job, and a batch script may forward it too);
 * one after that means "now". settled: the flag of a run whose outcome is
 * written, where a late signal lands. */
static volatile sig_atomic_t caught;
static double caught_at;
static volatile int settled;
#define SIGNAL_GRACE_S 1.0

int cuplas_cli_override(cuplas_overrides *o, const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    if (o->n == o->cap) {
        int cap = o->cap ? 2 * o->cap : 8;
        char **v = realloc(o->v, (size_t)cap * sizeof *v);
        if (!v) {
            free(s);
            return -1;
        }
        o->v = v;
        o->cap = cap;
    }
    o->v[o->n++] = s;
    return 0;
}

void cuplas_cli_overrides_free(cuplas_overrides *o)
{
    for (int i = 0; i < o->n; i++)
        free(o->v[i]);
    free(o->v);
    memset(o, 0, sizeof *o);
}

/* e as one JSON line on stderr, in the log's JSON form (event
 * "config_error"): with --log-format json a script reads every line of a
 * run as JSON, the failure to load its config included. */
static void cli_error_json(const cuplas_error *e)
{
    char buf[1100], msg[1200];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    cuplas_error_format(e, buf, sizeof buf);
    snprintf(msg, sizeof msg, "cuplas: error: %s", buf);
    fprintf(stderr, "{\"time\":%.3f,\"level\":\"error\",\"event\":\"config_error\",\"code\":",
            (double)ts.tv_sec + ts.tv_nsec * 1e-9);
    cuplas_json_string(stderr, cuplas_status_name(e->code));
    fputs(",\"error\":", stderr);
    cuplas_json_string(stderr, buf);
    fputs(",\"msg\":", stderr);
    cuplas_json_string(stderr, msg);
    fputs("}\n", stderr);
}

int cuplas_cli_load_config(const char *path, const cuplas_overrides *ov, const char *log_format,
                           cuplas_config *cfg, cuplas_log *lg, cuplas_error *err)
{
    /* asked for by name only: `auto` means JSON for a log that is not a
       terminal, but which log that is depends on the config not read */
    int json = log_format && strcmp(log_format, "json") == 0;
    cuplas_h5_quiet();
    if (cuplas_config_load(cfg, path, (const char *const *)ov->v, ov->n, err) != 0)
        goto fail;   /* the load freed cfg */
    if (cuplas_log_open(lg, &cfg->log, log_format, err) != 0) {
        cuplas_config_free(cfg);
        goto fail;
    }
    return 0;
fail:
    if (!json)
        return cuplas_cli_fail(err);
    cli_error_json(err);
    return cuplas_cli_exit_for(err->code);
}

int cuplas_cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "cuplas %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'cuplas help %s'.\n", cmd);
    return CUPLAS_EXIT_USAGE;
}

int cuplas_cli_bad_option(const char *cmd, int c, char **argv)
{
    /* getopt has stepped past the word it could not take */
    const char *word = optind > 0 ? argv[optind - 1] : "";
    int len = (int)strcspn(word, "=");
    if (c == ':')
        return cuplas_cli_usage(cmd, "option '%.*s' needs a value", len, word);
    if (optopt > 0 && optopt < 128 && word[0] == '-' && word[1] != '-')
        return cuplas_cli_usage(cmd, "unknown option '-%c'", optopt);
    return cuplas_cli_usage(cmd, "unknown option '%.*s'", len, word);
}

int cuplas_cli_log_format(const char *cmd, const char *arg)
{
    cuplas_log_format f;
    if (cuplas_log_format_parse(arg, &f) == 0)
        return 0;
    return cuplas_cli_usage(cmd, "--log-format: unknown format '%s' (accepted: text, json, auto)",
                            arg);
}

void cuplas_cli_error(const cuplas_error *e)
{
    char buf[1100];
    fputs("cuplas: error: ", stderr);
    cuplas_put_visible(stderr, cuplas_error_format(e, buf, sizeof buf));
    fputc('\n', stderr);
}

int cuplas_cli_fail(const cuplas_error *e)
{
    cuplas_cli_error(e);
    return cuplas_cli_exit_for(e->code);
}

int cuplas_cli_exit_for(cuplas_status code)
{
    switch (code) {
    case CUPLAS_OK: return CUPLAS_EXIT_OK;
    case CUPLAS_ERR_USAGE: return CUPLAS_EXIT_USAGE;
    case CUPLAS_ERR_NOMEM:
    case CUPLAS_ERR_NODEVICE:
    case CUPLAS_ERR_CUDA:
    case CUPLAS_ERR_INTERNAL: return CUPLAS_EXIT_FATAL;
    case CUPLAS_ERR_INTERRUPTED: return CUPLAS_EXIT_INTERRUPTED;
    default: return CUPLAS_EXIT_JOBS_FAILED;
    }
}

int cuplas_cli_split_spec(const char *spec, char **file, char **group)
{
    const char *c = strstr(spec, ":/");
    *file = *group = NULL;
    if (c && !(*group = strdup(c + 1)))
        return -1;
    *file = c ? strndup(spec, (size_t)(c - spec)) : strdup(spec);
    return *file ? 0 : -1;
}

int cuplas_cli_int(const char *s, long long lo, long long hi, long long *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s || *end || x < lo || x > hi)
        return -1;
    *v = x;
    return 0;
}

void cuplas_cli_palette_init(cuplas_cli_palette *p)
{
    memset(p, 0, sizeof *p);
    p->iterations = CUPLAS_PALETTE_ITERATIONS;
}

int cuplas_cli_palette_option(const char *cmd, int c, const char *arg, char **argv,
                              cuplas_cli_palette *p)
{
    long long v;
    switch (c) {
    case CUPLAS_OPT_SH_PALETTE:
        if (cuplas_cli_int(arg, 1, CUPLAS_PALETTE_MAX_K, &v) != 0)
            return cuplas_cli_usage(cmd, "--sh-palette wants an integer in [1, %d], got '%s'",
                                    CUPLAS_PALETTE_MAX_K, arg);
        p->K = (int)v;
        return 0;
    case CUPLAS_OPT_SH_ITER:
        if (cuplas_cli_int(arg, 0, 1000, &v) != 0)
            return cuplas_cli_usage(cmd, "--sh-iterations wants an integer in [0, 1000], got "
                                    "'%s'", arg);
        p->iterations = (int)v;
        return 0;
    case CUPLAS_OPT_BACKEND:
        if (strcmp(arg, "auto") && strcmp(arg, "cpu") && strcmp(arg, "gpu"))
            return cuplas_cli_usage(cmd, "--backend wants auto, cpu or gpu, got '%s'", arg);
        p->backend = !strcmp(arg, "cpu") ? 1 : !strcmp(arg, "gpu") ? 2 : 0;
        return 0;
    case CUPLAS_OPT_GPU:
        if (cuplas_cli_int(arg, 0, 1023, &v) != 0)
            return cuplas_cli_usage(cmd, "--gpu wants a device number, got '%s'", arg);
        p->gpu = (int)v;
        p->backend = 2;
        return 0;
    default:
        return cuplas_cli_bad_option(cmd, c, argv);
    }
}

int cuplas_cli_palette_device(const cuplas_cli_palette *p, int palette, const char *file,
                              int *device, cuplas_error *err)
{
    int n = 0;
    *device = -1;
    if (p->backend == 1 || (p->backend == 0 && !palette))
        return 0;   /* the CPU's, or nothing to fit: the driver is not started */
#ifdef HAVE_CUDA
    n = cuplas_gpu_count();
#endif
    if (p->backend == 0 && n == 0)
        return 0;
    if (p->gpu >= n) {
        cuplas_error_set(err, CUPLAS_ERR_NODEVICE, "GPU %d asked for (--backend gpu or --gpu), "
                         "but %d usable here", p->gpu, n);
        cuplas_error_where(err, "%s", file);
        return (int)CUPLAS_ERR_NODEVICE;
    }
    *device = palette ? p->gpu : -1;
    return 0;
}

static double monotonic_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void stop_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGUSR1);
}

static void on_signal(int sig)
{
    const int saved = errno;
    const double now = monotonic_s();
    if (!caught) {
        caught = sig;
        caught_at = now;
        if (signal_flag)
            *signal_flag = 1;
    } else if (now - caught_at >= SIGNAL_GRACE_S) {
        signal(sig, SIG_DFL);   /* a second request: the default action, at once */
        raise(sig);
    }
    errno = saved;
}

void cuplas_cli_catch_signals(volatile int *flag)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGUSR1};
    struct sigaction sa;
    sigset_t set;

    memset(&sa, 0, sizeof sa);
    stop_signals(&set);
    if (flag) {
        signal_flag = flag;
        if (caught)
            *flag = 1;   /* a request made before this flag stands */
        sa.sa_handler = on_signal;
        sa.sa_mask = set;
    } else {
        sa.sa_handler = SIG_DFL;
    }
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
    if (!flag) {
        signal_flag = NULL;
        caught = 0;
    }
    /* blocked across cuplas_cli_passive_openmp's exec: one sent meanwhile
       is pending, and taken here */
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

void cuplas_cli_settle_signals(void)
{
    if (signal_flag)
        signal_flag = &settled;
}

int cuplas_cli_finish(cuplas_log *lg, cuplas_config *cfg, int loaded, cuplas_overrides *ov,
                      int rc)
{
    cuplas_error err;
    cuplas_error_clear(&err);
    if (cuplas_log_close(lg, &err) != 0) {
        cuplas_cli_error(&err);
        if (rc == CUPLAS_EXIT_OK)
            rc = CUPLAS_EXIT_FATAL;
    }
    if (loaded)
        cuplas_config_free(cfg);
    cuplas_cli_overrides_free(ov);
    return rc;
}

/*
 * Why: libgomp reads OMP_WAIT_POLICY once, when it is loaded (before
 * main); unset, its idle threads spin for a while before they sleep, and
 * on a node shared with one other busy process (a SLURM node) a 2-thread
 * CPU sort ran 10-25x slower (README, "Hostile and careless inputs"). A
 * second start costs ~20 ms, so `cuplas sort` and `cuplas run` pay it
 * only when they will sort on the CPU (GPU lanes run no OpenMP teams). A user who wants
 * spinning exports OMP_WAIT_POLICY=active.
 */
void cuplas_cli_passive_openmp(char **argv)
{
#ifdef _OPENMP
    if (getenv("OMP_WAIT_POLICY") || getenv("CUPLAS_REEXEC"))
        return;
    if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0 || setenv("CUPLAS_REEXEC", "1", 1) != 0)
        return;
    fflush(NULL);
    /* a stop asked for before or during the exec survives it: blocked,
       pending, and taken once the new image arms its handler */
    sigset_t set, old;
    stop_signals(&set);
    sigprocmask(SIG_BLOCK, &set, &old);
    if (caught)
        raise(caught);
    execv("/proc/self/exe", argv);
    sigprocmask(SIG_SETMASK, &old, NULL);
    unsetenv("OMP_WAIT_POLICY");   /* not in effect: do not claim it to children */
#else
    (void)argv;
#endif
}
