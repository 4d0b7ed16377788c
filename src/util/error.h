/*
 * error.h - the one error record every fallible cuplas function fills.
 *
 * Functions return 0 on success and a nonzero cuplas_status on failure,
 * after filling a caller-owned struct cuplas_error: a one-line message, the
 * source location that raised it, and the user-facing context ("where"):
 * file:dataset, config file:line:column, or gpu id. Library code never exits.
 *
 * msg and where are fixed arrays of 512 bytes, and a path may be 4095: a
 * text that does not fit keeps its start and its end, with "[...]" for
 * the middle (cuplas_error_fitf), since the end is where the reason is
 * ("cannot create folder /very/long/...: Permission denied"), and the
 * start says what was done. The arrays are not grown to hold two whole
 * PATH_MAX paths (8 KiB and more): the record is embedded, one per job,
 * in cuplas_job and in the runner's results, copied by value, and kept
 * on worker stacks; a config of 20,000 jobs would hold 300 MiB of it.
 */
#ifndef CUPLAS_ERROR_H
#define CUPLAS_ERROR_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Failure classes. They map onto process exit codes in main (README). */
typedef enum {
    CUPLAS_OK = 0,
    CUPLAS_ERR_USAGE,     /* bad command line or config                  */
    CUPLAS_ERR_INPUT,     /* missing/corrupt/invalid input file or data   */
    CUPLAS_ERR_OUTPUT,    /* cannot write or publish the output           */
    CUPLAS_ERR_EXISTS,    /* output exists and the policy says error       */
    CUPLAS_ERR_NOMEM,     /* host allocation failed                        */
    CUPLAS_ERR_CUDA,      /* CUDA runtime or kernel failure (incl. OOM)    */
    CUPLAS_ERR_NODEVICE,  /* GPU requested but none is usable              */
    CUPLAS_ERR_INTERRUPTED, /* stopped by a signal before completion      */
    CUPLAS_ERR_INTERNAL   /* a broken invariant: a bug                     */
} cuplas_status;

/* Process exit codes (documented in README.md, "Exit codes"). */
enum {
    CUPLAS_EXIT_OK = 0,          /* every job done (or skipped as complete) */
    CUPLAS_EXIT_JOBS_FAILED = 1, /* at least one dataset failed            */
    CUPLAS_EXIT_USAGE = 2,       /* usage or config error; nothing was run  */
    CUPLAS_EXIT_FATAL = 3,       /* environment error (no GPU, no memory)   */
    CUPLAS_EXIT_INTERRUPTED = 75 /* signal: stopped cleanly, rerun resumes  */
};

typedef struct cuplas_error {
    cuplas_status code;
    char msg[512];     /* one line, no trailing newline                  */
    char where[512];   /* user context: "in.h5:/grid", "cfg.yaml:3:5"     */
    const char *file;  /* source location that raised the error          */
    int line;
    int reason;        /* a detail a caller acts on, instead of reading
                          msg: CUPLAS_REASON_* (0 = none)                 */
} cuplas_error;

/* cuplas_error.reason values. */
enum {
    CUPLAS_REASON_NONE = 0,
    CUPLAS_REASON_NOT_SQUARE = 1,  /* (N, C) data, no shape given, N not a square */
    CUPLAS_REASON_OUTPUT_DIR = 2,  /* the output folder cannot be made or written:
                                      a job's message cites output.dir, not the
                                      job's inputs entry                      */
    CUPLAS_REASON_NOT_HDF5 = 3     /* an input that HDF5 cannot open as a file (no
                                      signature, or corrupt): cmd_eval.c names a
                                      scene given in place of a result        */
};

void cuplas_error_clear(cuplas_error *err);

/* snprintf into dst[size], but a text longer than that keeps its start
 * and its end around "[...]" (the end carries the reason), cut on UTF-8
 * character boundaries. For every text that goes into msg or where. */
void cuplas_error_fitf(char *dst, unsigned long size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Fill err (if non-NULL) and return code. printf-style message. */
int cuplas_error_set_(cuplas_error *err, cuplas_status code, const char *file,
                      int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int cuplas_error_vset_(cuplas_error *err, cuplas_status code, const char *file, int line,
                       const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

/* Set the user-facing context if none is set yet (inner context wins). */
void cuplas_error_where(cuplas_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* "where: msg" in buf; the form printed to users. */
const char *cuplas_error_format(const cuplas_error *err, char *buf, unsigned long size);

const char *cuplas_status_name(cuplas_status code);

#define cuplas_error_set(err, code, ...) \
    cuplas_error_set_((err), (code), __FILE__, __LINE__, __VA_ARGS__)

/* Fail into the function's single `fail:` label with rc set. */
#define CUPLAS_FAIL(err, code, ...)                                   \
    do {                                                              \
        rc = cuplas_error_set((err), (code), __VA_ARGS__);            \
        goto fail;                                                    \
    } while (0)

/* CUPLAS_FAIL with the user-facing context set to the file's path (the
 * readers and writers of one file). */
#define CUPLAS_FAIL_IN(err, code, path, ...)                          \
    do {                                                              \
        rc = cuplas_error_set((err), (code), __VA_ARGS__);            \
        cuplas_error_where((err), "%s", (path));                      \
        goto fail;                                                    \
    } while (0)

/* Call a cuplas function returning a status; jump to fail on error. */
#define CUPLAS_TRY(expr)                                              \
    do {                                                              \
        rc = (expr);                                                  \
        if (rc != 0) goto fail;                                       \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
