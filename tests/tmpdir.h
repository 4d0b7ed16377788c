/*
 * tmpdir.h - the per-test folder of the suites that write files: removal
 * of the whole tree, and paths inside it. Include after cmocka.h, with
 * _GNU_SOURCE defined first (nftw).
 */
#ifndef CUPLAS_TESTS_TMPDIR_H
#define CUPLAS_TESTS_TMPDIR_H

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

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

/* dir/name into buf; fails the test when it does not fit. */
static inline char *tu_path(const char *dir, const char *name, char buf[PATH_MAX])
{
    if (snprintf(buf, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
        fail_msg("path too long");
    return buf;
}

#endif
