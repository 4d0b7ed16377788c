/*
 * log.c - text or JSON-lines events behind one mutex.
 *
 * Design fact: an event is formatted straight into the stream while the
 * lock is held and flushed at once, so a killed job still leaves every
 * finished line in the log (SLURM tails it) and lines never interleave.
 */
#include "util/log.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *const cuplas_log_level_names[] = { "error", "warn", "info", "debug", NULL };
const char *const cuplas_log_format_names[] = { "auto", "text", "json", NULL };

const char *cuplas_log_level_name(cuplas_log_level l)
{
    return l >= CUPLAS_LOG_ERROR && l <= CUPLAS_LOG_DEBUG ? cuplas_log_level_names[l] : "?";
}

const char *cuplas_log_format_name(cuplas_log_format f)
{
    return f >= CUPLAS_LOG_AUTO && f <= CUPLAS_LOG_JSON ? cuplas_log_format_names[f] : "?";
}

int cuplas_log_format_parse(const char *s, cuplas_log_format *f)
{
    static const cuplas_log_format all[] = {CUPLAS_LOG_AUTO, CUPLAS_LOG_TEXT, CUPLAS_LOG_JSON};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(s, cuplas_log_format_name(all[i]))) {
            *f = all[i];
            return 0;
        }
    return -1;
}

int cuplas_log_open(cuplas_log *lg, const cuplas_log_opts *opts, const char *format_override,
                    cuplas_error *err)
{
    cuplas_log_format fmt = opts ? opts->format : CUPLAS_LOG_AUTO;
    int rc = 0;

    memset(lg, 0, sizeof *lg);
    lg->out = stderr;
    snprintf(lg->path, sizeof lg->path, "stderr");
    lg->level = opts ? opts->level : CUPLAS_LOG_INFO;
    if (format_override && cuplas_log_format_parse(format_override, &fmt) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "--log-format: unknown format '%s' "
                    "(accepted: text, json, auto)", format_override);
    if (opts && opts->file && opts->file[0]) {
        /* append: a resubmitted SLURM task keeps the earlier attempts' lines */
        if (!(lg->out = fopen(opts->file, "a")))
            CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "logging.file: cannot open %s: %s",
                        opts->file, strerror(errno));
        lg->owns_out = 1;
        snprintf(lg->path, sizeof lg->path, "%s", opts->file);
    }
    lg->json = fmt == CUPLAS_LOG_JSON ||
               (fmt == CUPLAS_LOG_AUTO && !isatty(fileno(lg->out)));
    cuplas_lock_init(&lg->lock);
    return 0;
fail:
    lg->out = NULL;   /* not open: the caller reports err on stderr */
    return rc;
}

void cuplas_log_progress(cuplas_log *lg, const char *text)
{
    if (lg->json || !lg->out || !isatty(fileno(lg->out)))
        return;
    cuplas_lock_take(&lg->lock);
    fprintf(lg->out, "\r\033[K%s", text);
    fflush(lg->out);
    lg->progress = 1;
    cuplas_lock_give(&lg->lock);
}

/* Remember the first failed write (called under the lock, after a flush). */
static void note_write(cuplas_log *lg)
{
    if (!lg->write_errno && ferror(lg->out))
        lg->write_errno = errno ? errno : EIO;
}

int cuplas_log_close(cuplas_log *lg, cuplas_error *err)
{
    if (!lg->out)
        return 0;
    if (lg->progress)
        fputc('\n', lg->out);
    fflush(lg->out);
    note_write(lg);
    if (lg->owns_out && fclose(lg->out) != 0 && !lg->write_errno)
        lg->write_errno = errno ? errno : EIO;
    cuplas_lock_free(&lg->lock);
    lg->out = NULL;
    if (!lg->write_errno)
        return 0;
    cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "the log %s could not be written: %s", lg->path,
                     strerror(lg->write_errno));
    return -1;
}

void cuplas_log_detach(cuplas_log *lg)
{
    if (!lg->out || !lg->owns_out)
        return;
    fclose(lg->out);   /* nothing written to it yet: nothing to lose */
    lg->out = stderr;
    lg->owns_out = 0;
    lg->json = !isatty(fileno(stderr)) && lg->json;
    snprintf(lg->path, sizeof lg->path, "stderr");
}

/* A text line with control characters made visible: a newline in a file or
 * dataset name must not split one event into two lines. */
void cuplas_put_visible(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                fprintf(f, "\\x%02x", *p);
            else
                fputc(*p, f);
        }
    }
}

void cuplas_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

static void json_fields(FILE *f, va_list ap)
{
    const char *key;
    while ((key = va_arg(ap, const char *))) {
        int type = va_arg(ap, int);
        if (type == 'j') {   /* raw JSON, left out when NULL */
            const char *raw = va_arg(ap, const char *);
            if (raw) {
                fputc(',', f);
                cuplas_json_string(f, key);
                fputc(':', f);
                fputs(raw, f);
            }
            continue;
        }
        fputc(',', f);
        cuplas_json_string(f, key);
        fputc(':', f);
        if (type == 's') {
            cuplas_json_string(f, va_arg(ap, const char *));
        } else if (type == 'd') {
            double d = va_arg(ap, double);
            /* JSON has no NaN or Inf */
            if (isfinite(d))
                fprintf(f, "%.17g", d);
            else
                fputs("null", f);
        } else {
            fprintf(f, "%lld", va_arg(ap, long long));
        }
    }
}

void cuplas_log_event(cuplas_log *lg, cuplas_log_level level, const char *event,
                      const char *text, ...)
{
    if (!lg || !lg->out || level > lg->level)
        return;
    cuplas_lock_take(&lg->lock);
    if (lg->json) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        fprintf(lg->out, "{\"time\":%.3f,\"level\":\"%s\",\"event\":",
                (double)ts.tv_sec + ts.tv_nsec * 1e-9, cuplas_log_level_name(level));
        cuplas_json_string(lg->out, event);
        va_list ap;
        va_start(ap, text);
        json_fields(lg->out, ap);
        va_end(ap);
        if (text) {
            fputs(",\"msg\":", lg->out);
            cuplas_json_string(lg->out, text);
        }
        fputs("}\n", lg->out);
    } else if (text) {
        if (lg->progress)
            fputs("\r\033[K", lg->out);
        cuplas_put_visible(lg->out, text);
        fputc('\n', lg->out);
        lg->progress = 0;
    }
    fflush(lg->out);
    note_write(lg);
    cuplas_lock_give(&lg->lock);
}
