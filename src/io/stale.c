/*
 * stale.c - find and remove dead writers' temp files (stale.h).
 *
 * Design fact: one readdir per output folder, not per output: a shard can
 * have thousands of outputs in one folder. The names of the outputs of a
 * folder are sorted once and each directory entry is looked up in them.
 */
#define _GNU_SOURCE /* strdup, strndup */
#include "io/stale.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fsutil.h"

typedef struct out_name {
    char *dir;    /* "." for a bare name */
    char *base;
} out_name;

static int cmp_name(const void *pa, const void *pb)
{
    const out_name *a = pa, *b = pb;
    int c = strcmp(a->dir, b->dir);
    return c ? c : strcmp(a->base, b->base);
}

int cuplas_stale_match(const char *entry, const char *base, long *pid)
{
    size_t bl = strlen(base);
    const char *p;
    char *end;

    /* "." base ".tmp." digits "." six characters (mkstemp's XXXXXX) */
    if (entry[0] != '.' || strncmp(entry + 1, base, bl) || strncmp(entry + 1 + bl, ".tmp.", 5))
        return 0;
    p = entry + 1 + bl + 5;
    if (*p < '0' || *p > '9')
        return 0;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (errno || v <= 0 || *end != '.' || strlen(end + 1) != 6 || strchr(end + 1, '/'))
        return 0;
    *pid = v;
    return 1;
}

static int alive(long pid)
{
    /* EPERM: it exists, it is just not ours to signal */
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* The temp files of the sorted names[lo..hi) (one folder) in that folder. */
static int clean_dir(const out_name *names, int lo, int hi, time_t since, cuplas_log *lg)
{
    DIR *d = opendir(names[lo].dir);
    struct dirent *de;
    int removed = 0;
    char path[4096], text[4300];

    if (!d)
        return 0;   /* no folder yet: nothing to clean */
    while ((de = readdir(d))) {
        const char *tmp = strstr(de->d_name, ".tmp.");
        long pid = 0;
        struct stat st;

        if (de->d_name[0] != '.' || !tmp)
            continue;
        /* the base is everything between the dot and the last ".tmp." */
        for (const char *t = tmp; (t = strstr(t + 1, ".tmp."));)
            tmp = t;
        char *base = strndup(de->d_name + 1, (size_t)(tmp - de->d_name - 1));
        if (!base)
            break;
        out_name key = {names[lo].dir, base};
        int ours = bsearch(&key, names + lo, (size_t)(hi - lo), sizeof *names, cmp_name) &&
                   cuplas_stale_match(de->d_name, base, &pid);
        free(base);
        if (!ours)
            continue;
        snprintf(path, sizeof path, "%s/%s", names[lo].dir, de->d_name);
        /* a file, or a folder (run's SOG folder, cuplas_tmp_dir_create) */
        if (lstat(path, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
            continue;
        int dead = pid != (long)getpid() && !alive(pid);
        if (!dead && st.st_mtime >= since)
            continue;
        if (S_ISDIR(st.st_mode) ? cuplas_rm_tree(path) != 0 : unlink(path) != 0)
            continue;
        removed++;
        snprintf(text, sizeof text, "cuplas: removed stale temp file %s (%s)", path,
                 dead ? "its writer is gone" : "older than this run");
        if (lg)
            cuplas_log_event(lg, CUPLAS_LOG_WARN, "stale_temp_removed", text,
                             CUPLAS_LF_S("path", path), CUPLAS_LF_I("pid", pid),
                             CUPLAS_LF_S("reason", dead ? "dead writer" : "older than run"),
                             NULL);
    }
    closedir(d);
    return removed;
}

int cuplas_stale_clean(const char *const *paths, int n, time_t since, cuplas_log *lg)
{
    out_name *names = calloc((size_t)n + 1, sizeof *names);
    int k = 0, removed = 0;

    if (!names)
        return 0;
    for (int i = 0; i < n; i++) {
        if (!paths[i])
            continue;
        const char *slash = strrchr(paths[i], '/');
        names[k].dir = slash ? (slash == paths[i] ? strdup("/")
                                                  : strndup(paths[i], (size_t)(slash - paths[i])))
                             : strdup(".");
        names[k].base = strdup(slash ? slash + 1 : paths[i]);
        if (!names[k].dir || !names[k].base) {
            free(names[k].dir);
            free(names[k].base);
            break;
        }
        k++;
    }
    qsort(names, (size_t)k, sizeof *names, cmp_name);
    for (int lo = 0, hi; lo < k; lo = hi) {
        for (hi = lo + 1; hi < k && !strcmp(names[hi].dir, names[lo].dir); hi++)
            ;
        removed += clean_dir(names, lo, hi, since, lg);
    }
    for (int i = 0; i < k; i++) {
        free(names[i].dir);
        free(names[i].base);
    }
    free(names);
    return removed;
}
