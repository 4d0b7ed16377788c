/* fsutil.c - folder of a path, mkdir -p, rm -r, lock file, path checks. */
#define _GNU_SOURCE /* nftw, asprintf */
#include "util/fsutil.h"

#include <dirent.h>
#include <ftw.h>
#include <unistd.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *cuplas_path_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* A name that does not exist yet, with its folder resolved (malloc'd), or
 * NULL when the folder cannot be resolved either. */
static char *resolved_name(const char *path)
{
    char *dir = cuplas_path_dir(path), real[PATH_MAX], *out = NULL;
    const char *slash = strrchr(path, '/');

    if (dir && realpath(dir, real) && asprintf(&out, "%s/%s", real,
                                               slash ? slash + 1 : path) < 0)
        out = NULL;
    free(dir);
    return out;
}

char *cuplas_path_key(const char *path)
{
    struct stat st;
    char *key = NULL, *name;

    if (stat(path, &st) == 0) {
        if (asprintf(&key, "i%llx:%llx", (unsigned long long)st.st_dev,
                     (unsigned long long)st.st_ino) < 0)
            key = NULL;
        return key;
    }
    name = resolved_name(path);
    if (asprintf(&key, "p%s", name ? name : path) < 0)
        key = NULL;
    free(name);
    return key;
}

int cuplas_path_same(const char *a, const char *b)
{
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0, same;

    if (ea || eb)   /* one that exists is never a name that does not */
        return ea && eb && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ra = resolved_name(a), *rb = resolved_name(b);
    same = ra && rb ? !strcmp(ra, rb) : !strcmp(a, b);
    free(ra);
    free(rb);
    return same;
}

int cuplas_pread_full(int fd, void *buf, size_t len, int64_t off, size_t *got)
{
    size_t n = 0;
    int code = 0;

    while (n < len) {
        ssize_t r = pread(fd, (char *)buf + n, len - n, (off_t)(off + (int64_t)n));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            code = r < 0 ? (errno ? errno : EIO) : -1;
            break;
        }
        n += (size_t)r;
    }
    if (got)
        *got = n;
    return code;
}

const char *cuplas_mode_not_regular(mode_t m)
{
    return S_ISREG(m) ? NULL
         : S_ISDIR(m) ? "is a directory"
         : S_ISFIFO(m) ? "is a FIFO, not a regular file"
         : S_ISSOCK(m) ? "is a socket, not a regular file"
         : S_ISCHR(m) ? "is a character device, not a regular file"
         : S_ISBLK(m) ? "is a block device, not a regular file"
         : "not a regular file";
}

/* Links a dangling chain is followed through before its text stops: the
 * kernel's own limit (SYMLOOP_MAX is 40 on Linux), so a chain stat() walked
 * is always shown whole. */
#define LINK_HOPS 40

/* Why path cannot be opened, once stat() of it failed with errno e; the
 * text is in buf, or static. A dangling link names where it points; a
 * chain of links names every hop ("to b -> c"), since the link that is
 * missing its file may be the last one, not the first. */
static const char *open_problem(const char *path, int e, char *buf, size_t size)
{
    struct stat st;
    char cur[PATH_MAX], target[PATH_MAX], next[PATH_MAX];
    size_t used = 0;
    ssize_t n;

    if (e != ENOENT && e != ENOTDIR)
        return strerror(e);
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
        return e == ENOENT ? "no such file" : strerror(e);
    snprintf(cur, sizeof cur, "%s", path);
    for (int hop = 0; hop < LINK_HOPS && lstat(cur, &st) == 0 && S_ISLNK(st.st_mode); hop++) {
        if ((n = readlink(cur, target, sizeof target - 1)) < 0)
            break;
        target[n] = '\0';
        int w = snprintf(buf + used, size - used, hop ? " -> %s" : "a dangling symbolic link to %s",
                         target);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
        /* a relative target is relative to the folder of the link holding it */
        const char *slash = strrchr(cur, '/');
        size_t dir = target[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        if (dir + (size_t)n >= sizeof next)
            break;
        memcpy(next, cur, dir);
        memcpy(next + dir, target, (size_t)n + 1);
        memcpy(cur, next, dir + (size_t)n + 1);
    }
    if (used == 0)
        return "a dangling symbolic link (no such file where it points)";
    snprintf(buf + used, size - used, " (no such file there)");
    return buf;
}

int cuplas_input_file_check(const char *path, cuplas_error *err)
{
    struct stat st;
    char why[PATH_MAX + 64];
    const char *what;

    if (stat(path, &st) != 0)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "cannot open: %s",
                                open_problem(path, errno, why, sizeof why));
    if ((what = cuplas_mode_not_regular(st.st_mode)))
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "cannot open: %s", what);
    return 0;
}

int cuplas_path_special(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && cuplas_mode_not_regular(st.st_mode) != NULL;
}

int cuplas_paths_check(const cuplas_path_role *p, int n, cuplas_error *err)
{
    int rc = 0;

    for (int b = 0; b < n; b++) {
        if (!p[b].output || !p[b].path)
            continue;
        for (int a = 0; a < b; a++)
            if (p[a].path && cuplas_path_same(p[a].path, p[b].path))
                CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "the %s %s would replace the %s %s (one "
                            "file): name another %s", p[b].role, p[b].path, p[a].role,
                            p[a].path, p[b].role);
        if (cuplas_path_special(p[b].path))
            CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "the %s %s exists and is not a regular file: a "
                        "result would be renamed over it; name another %s", p[b].role,
                        p[b].path, p[b].role);
    }
fail:
    return rc;
}

int cuplas_file_stamp(const char *path, char *buf, size_t n)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    int k = snprintf(buf, n, "size=%lld mtime=%lld.%09ld", (long long)st.st_size,
                     (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
    return k > 0 && (size_t)k < n ? 0 : -1;
}

int cuplas_file_as_new(const char *path, const char *ref)
{
    struct stat a, b;
    if (stat(path, &a) != 0 || !S_ISREG(a.st_mode) || stat(ref, &b) != 0)
        return 0;
    return a.st_mtim.tv_sec > b.st_mtim.tv_sec ||
           (a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec >= b.st_mtim.tv_nsec);
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

int cuplas_lock_path(const char *path, int *fd, long *pid, cuplas_error *err)
{
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    char buf[32];
    int n;

    *pid = 0;
    if ((*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot create the lock file %s: %s",
                                path, strerror(errno)), -1;
    if (fcntl(*fd, F_SETLK, &fl) != 0) {
        if (errno != EACCES && errno != EAGAIN)
            return 0;   /* no locks here: go on as before */
        if (fcntl(*fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
            *pid = (long)fl.l_pid;   /* 0 across NFS hosts: then the file says */
        if (!*pid && (n = (int)pread(*fd, buf, sizeof buf - 1, 0)) > 0) {
            buf[n] = '\0';
            *pid = strtol(buf, NULL, 10);
        }
        close(*fd);
        *fd = -1;
        return 1;
    }
    n = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
    if (ftruncate(*fd, 0) != 0 || pwrite(*fd, buf, (size_t)n, 0) != n) {
        /* the pid is only a courtesy for the other run's message */
    }
    return 0;
}

int cuplas_lock_split(const char *path, int count, int *fd, int *other, long *pid,
                      cuplas_error *err)
{
    struct flock gate = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
    struct flock mine = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = count + 1,
                         .l_len = 1};
    /* a write lock over every other split's byte conflicts with any holder */
    struct flock probe[2] = {
        {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 1, .l_len = count},
        {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = count + 2, .l_len = 0}};
    int held = 0;

    *other = -1;
    *pid = 0;
    if ((*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot create the lock file %s: %s",
                                path, strerror(errno)), -1;
    if (fcntl(*fd, F_SETLKW, &gate) != 0)
        return 0;   /* no locks here: go on as before */
    for (int k = count > 0 ? 0 : 1; k < 2 && !held; k++)
        if (fcntl(*fd, F_GETLK, &probe[k]) == 0 && probe[k].l_type != F_UNLCK) {
            *other = (int)probe[k].l_start - 1;
            *pid = (long)probe[k].l_pid;
            held = 1;
        }
    if (!held)
        fcntl(*fd, F_SETLK, &mine);   /* no conflict: only the gate is ever exclusive */
    gate.l_type = F_UNLCK;
    fcntl(*fd, F_SETLK, &gate);
    if (held) {
        close(*fd);   /* and with it this process's locks on the file */
        *fd = -1;
        return 1;
    }
    return 0;
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

int cuplas_dir_files(const char *dir, int (*fn)(const char *path, const struct stat *st,
                                                void *ctx), void *ctx)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int rc = 0;
    if (!d)
        return -1;
    while (rc == 0 && (de = readdir(d))) {
        struct stat st;
        char *p = NULL;
        if (de->d_name[0] == '.' || asprintf(&p, "%s/%s", dir, de->d_name) < 0)
            continue;
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
            rc = fn(p, &st, ctx);
        free(p);
    }
    closedir(d);
    return rc;
}

char *cuplas_dir_tmp_name(const char *dir)
{
    char *tmp = NULL;
    return asprintf(&tmp, "%s.tmp.%ld", dir, (long)getpid()) < 0 ? NULL : tmp;
}

int cuplas_dir_publish(const char *tmp, const char *dir, cuplas_error *err)
{
    if (rename(tmp, dir) != 0)
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot rename %s to %s: %s", tmp, dir,
                                strerror(errno));
    return 0;
}
