/*
 * error.c - filling and formatting struct cuplas_error.
 *
 * Design fact: a message that does not fit its array loses its middle, not
 * its end (error.h says why the arrays stay small): the reason comes last
 * in nearly every message, after the path it is about. The full text is
 * formatted once more into a malloc'd buffer for that; without memory the
 * plain cut is kept, with "..." at its end to say so.
 */
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ELIDED "[...]"

/* The first byte at or after i that starts a UTF-8 character (or end). */
static size_t char_start(const char *s, size_t i, size_t n)
{
    while (i < n && ((unsigned char)s[i] & 0xC0) == 0x80)
        i++;
    return i;
}

/* full (n bytes, n >= size) into dst[size]: a third of the room for its
 * start, the rest for its end. */
static void elide(char *dst, size_t size, const char *full, size_t n)
{
    size_t room = size - 1 - (sizeof ELIDED - 1), head = room / 3, tail;
    while (head > 0 && ((unsigned char)full[head] & 0xC0) == 0x80)
        head--;   /* do not end inside a character */
    tail = char_start(full, n - (room - head), n);
    memcpy(dst, full, head);
    memcpy(dst + head, ELIDED, sizeof ELIDED - 1);
    memcpy(dst + head + sizeof ELIDED - 1, full + tail, n - tail);
    dst[head + sizeof ELIDED - 1 + (n - tail)] = '\0';
}

static void fit_v(char *dst, size_t size, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(dst, size, fmt, ap);
    if (n >= 0 && (size_t)n >= size && size > 2 * sizeof ELIDED) {
        char *full = malloc((size_t)n + 1);
        if (full && vsnprintf(full, (size_t)n + 1, fmt, again) == n)
            elide(dst, size, full, (size_t)n);
        else
            memcpy(dst + size - 4, "...", 4);   /* no memory: at least say it was cut */
        free(full);
    }
    va_end(again);
}

void cuplas_error_fitf(char *dst, unsigned long size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fit_v(dst, size, fmt, ap);
    va_end(ap);
}

void cuplas_error_clear(cuplas_error *err)
{
    if (!err)
        return;
    memset(err, 0, sizeof *err);
}

int cuplas_error_vset_(cuplas_error *err, cuplas_status code, const char *file, int line,
                       const char *fmt, va_list ap)
{
    if (!err)
        return (int)code;
    /* keep the first (innermost) failure: it is the most precise one */
    if (err->code != CUPLAS_OK)
        return (int)err->code;
    err->code = code;
    err->file = file;
    err->line = line;
    err->reason = CUPLAS_REASON_NONE;
    fit_v(err->msg, sizeof err->msg, fmt, ap);
    /* messages are single lines by contract */
    for (char *p = err->msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return (int)code;
}

int cuplas_error_set_(cuplas_error *err, cuplas_status code, const char *file,
                      int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = cuplas_error_vset_(err, code, file, line, fmt, ap);
    va_end(ap);
    return rc;
}

void cuplas_error_where(cuplas_error *err, const char *fmt, ...)
{
    if (!err || err->where[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    fit_v(err->where, sizeof err->where, fmt, ap);
    va_end(ap);
}

const char *cuplas_error_format(const cuplas_error *err, char *buf, unsigned long size)
{
    if (err->where[0])
        snprintf(buf, size, "%s: %s", err->where, err->msg);
    else
        snprintf(buf, size, "%s", err->msg);
    return buf;
}

const char *cuplas_status_name(cuplas_status code)
{
    switch (code) {
    case CUPLAS_OK: return "ok";
    case CUPLAS_ERR_USAGE: return "usage";
    case CUPLAS_ERR_INPUT: return "input";
    case CUPLAS_ERR_OUTPUT: return "output";
    case CUPLAS_ERR_EXISTS: return "exists";
    case CUPLAS_ERR_NOMEM: return "nomem";
    case CUPLAS_ERR_CUDA: return "cuda";
    case CUPLAS_ERR_NODEVICE: return "nodevice";
    case CUPLAS_ERR_INTERRUPTED: return "interrupted";
    case CUPLAS_ERR_INTERNAL: return "internal";
    }
    return "unknown";
}
