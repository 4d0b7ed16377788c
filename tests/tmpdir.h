/*
 * tmpdir.h - the per-test folder of the suites that write files: making
 * it, removing the whole tree, and paths inside it. Include after
 * cmocka.h, with _GNU_SOURCE defined first (nftw).
 */
#ifndef CUPLAS_TESTS_TMPDIR_H
#define CUPLAS_TESTS_TMPDIR_H

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* A test's state: its own fresh folder. */
typedef struct fixture {
    char dir[PATH_MAX];
} fixture;

static int tu_rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* rm -rf dir (links are removed, not followed). */
static inline void tu_rmtree(const char *dir)
{
    nftw(dir, tu_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* *state = a fixture whose folder mkdtemp makes from pattern ("...XXXXXX");
 * -1 when it cannot be made. */
static inline int tu_fixture_new(void **state, const char *pattern)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f || snprintf(f->dir, sizeof f->dir, "%s", pattern) >= (int)sizeof f->dir ||
        !mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

/* Remove the fixture's folder and free it. */
static inline void tu_fixture_free(void **state)
{
    fixture *f = *state;
    tu_rmtree(f->dir);
    free(f);
}

/* dir/name into buf; fails the test when it does not fit. */
static inline char *tu_path(const char *dir, const char *name, char buf[PATH_MAX])
{
    if (snprintf(buf, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
        fail_msg("path too long");
    return buf;
}

#endif
