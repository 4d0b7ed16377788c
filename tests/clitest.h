/*
 * clitest.h - what the suites that drive the real cuplas binary share:
 * which binary, running a shell command in the fixture folder, and reading
 * a file back (shared_data.h). Include after tmpdir.h (and so after cmocka.h, with
 * _GNU_SOURCE defined first: vasprintf, asprintf).
 */
#ifndef CUPLAS_TESTS_CLITEST_H
#define CUPLAS_TESTS_CLITEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "shared_data.h"

#ifndef CUPLAS_BUILDDIR
#error "CUPLAS_BUILDDIR must name the build folder (Makefile.am sets it)"
#endif

/* The binary under test: $CUPLAS_BIN if given (a bundle run on the GPU
 * machine), else the build's. Commands see it as $B. */
static inline const char *tu_cuplas_bin(void)
{
    const char *b = getenv("CUPLAS_BIN");
    return b && b[0] ? b : CUPLAS_BUILDDIR "/cuplas";
}

/* Run a shell command inside the fixture folder, stdout to out.txt and
 * stderr to err.txt there; returns the exit status (or -1). */
static inline int tu_sh(const fixture *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline int tu_sh(const fixture *f, const char *fmt, ...)
{
    char *cmd = NULL, *full = NULL;
    va_list ap;
    va_start(ap, fmt);
    assert_true(vasprintf(&cmd, fmt, ap) >= 0);
    va_end(ap);
    assert_true(asprintf(&full, "cd '%s' && B='%s' && { %s ; } >out.txt 2>err.txt", f->dir,
                         tu_cuplas_bin(), cmd) >= 0);
    int st = system(full);
    free(cmd);
    free(full);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A file of the fixture folder; fails the test when it is missing. */
static inline char *tu_slurp(const fixture *f, const char *name, size_t *n)
{
    char path[PATH_MAX];
    char *buf = tu_slurp_path(tu_path(f->dir, name, path), n);
    assert_non_null(buf);
    return buf;
}

#endif
