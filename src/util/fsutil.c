/* fsutil.c - folder of a path, mkdir -p, rm -r. */
#define _GNU_SOURCE /* nftw */
#include "util/fsutil.h"

#include <ftw.h>
#include <unistd.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *cuplas_path_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

int cuplas_mkdir_p(const char *dir, cuplas_error *err)
{
    char *p = strdup(dir);
    int rc = 0;

    if (!p)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    /* every prefix, then the whole path; existing folders are fine */
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST)
            CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot create folder %s: %s", p,
                        strerror(errno));
        *s = c;
        if (c == '\0')
            break;
    }
fail:
    free(p);
    return rc;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

int cuplas_rm_tree(const char *path)
{
    return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
