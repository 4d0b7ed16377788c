/* error.c - filling and formatting struct cuplas_error. */
#include "util/error.h"

#include <stdio.h>
#include <string.h>

void cuplas_error_clear(cuplas_error *err)
{
    if (!err)
        return;
    memset(err, 0, sizeof *err);
}

int cuplas_error_set_(cuplas_error *err, cuplas_status code, const char *file,
                      int line, const char *fmt, ...)
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
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    /* messages are single lines by contract */
    for (char *p = err->msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return (int)code;
}

void cuplas_error_where(cuplas_error *err, const char *fmt, ...)
{
    if (!err || err->where[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->where, sizeof err->where, fmt, ap);
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
