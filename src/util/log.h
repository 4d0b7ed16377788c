/*
 * log.h - the run's event log: one human line or one JSON object per event.
 *
 * A cuplas_log is created per run and passed to whoever logs (no global
 * logger). Every event carries a short text line (shown in text mode) and
 * typed key/value fields (the JSON object); one mutex keeps lines whole
 * when several workers log at once.
 */
#ifndef CUPLAS_LOG_H
#define CUPLAS_LOG_H

#include <stdio.h>

#include "util/error.h"
#include "util/lock.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CUPLAS_LOG_ERROR = 0, CUPLAS_LOG_WARN, CUPLAS_LOG_INFO, CUPLAS_LOG_DEBUG } cuplas_log_level;
typedef enum { CUPLAS_LOG_AUTO = 0, CUPLAS_LOG_TEXT, CUPLAS_LOG_JSON } cuplas_log_format;

typedef struct cuplas_log_opts {
    cuplas_log_level level;    /* logging.level  */
    cuplas_log_format format;  /* logging.format: auto | text | json */
    char *file;                /* logging.file: NULL = stderr */
} cuplas_log_opts;

/* The names of the levels and formats, in enum order, NULL-terminated
 * (the config schema's accepted values). */
extern const char *const cuplas_log_level_names[];
extern const char *const cuplas_log_format_names[];
const char *cuplas_log_level_name(cuplas_log_level l);
const char *cuplas_log_format_name(cuplas_log_format f);

typedef struct cuplas_log {
    FILE *out;
    int owns_out;            /* opened from logging.file: closed by us   */
    cuplas_log_level level;  /* least severe event that is written       */
    int json;                /* 1 = JSON lines, 0 = text                 */
    int progress;            /* a progress line is on screen (TTY text)  */
    int write_errno;         /* first failed write (0: none): a lost log
                                must not pass for a complete one        */
    char path[256];          /* logging.file, or "stderr", for messages  */
    cuplas_lock lock;
} cuplas_log;

/* Open the log described by opts. format_override ("text" | "json" |
 * "auto", or NULL) is --log-format and wins over logging.format. */
int cuplas_log_open(cuplas_log *lg, const cuplas_log_opts *opts,
                    const char *format_override, cuplas_error *err);
/* Close the log. Returns 0, or -1 with err set when any line could not be
 * written (a full disk, /dev/full, a closed pipe): the caller must not
 * report success for a run whose log is incomplete. */
int cuplas_log_close(cuplas_log *lg, cuplas_error *err);

/* Write to stderr from now on, closing logging.file unwritten to: the run
 * found that file to be one of its inputs or outputs. */
void cuplas_log_detach(cuplas_log *lg);

/* On a terminal in text mode: redraw the one-line progress display (the
 * next log line replaces it). Elsewhere a no-op: JSON logs have events. */
void cuplas_log_progress(cuplas_log *lg, const char *text);

/* Write s with control characters escaped (\n, \r, \t, \xHH): one message
 * stays one line whatever file or dataset names it carries. */
void cuplas_put_visible(FILE *f, const char *s);

/* Parse a --log-format value; -1 if unknown. */
int cuplas_log_format_parse(const char *s, cuplas_log_format *f);

/* Fields are (key, type, value) triples ended by NULL; build them with the
 * macros below:  cuplas_log_event(lg, CUPLAS_LOG_INFO, "job_done", line,
 *                    CUPLAS_LF_S("file", f), CUPLAS_LF_D("seconds", s), NULL);
 * `text` is the whole text-mode line (no newline); JSON mode writes
 * {"time":..,"level":..,"event":..,<fields>,"msg":text}. */
void cuplas_log_event(cuplas_log *lg, cuplas_log_level level, const char *event,
                      const char *text, ...);

#define CUPLAS_LF_S(k, v) (k), 's', (const char *)(v)
#define CUPLAS_LF_D(k, v) (k), 'd', (double)(v)
#define CUPLAS_LF_I(k, v) (k), 'i', (long long)(v)
/* a JSON value written as it is (JSON mode); NULL leaves the field out */
#define CUPLAS_LF_J(k, v) (k), 'j', (const char *)(v)

/* JSON string escaping (quotes included) into f; shared with plan output. */
void cuplas_json_string(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif
#endif
