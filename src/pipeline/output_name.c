/*
 * output_name.c - a job's output names from output.name (output_name.h).
 *
 * Pure string work, no file system: the names must come out the same on
 * every shard of a SLURM array, since resume and the collision check
 * compare them.
 */
#define _GNU_SOURCE /* strdup, strndup, asprintf */
#include "pipeline/output_name.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Append n bytes of s to the growing string *buf. */
static int put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = (*cap ? *cap * 2 : 64) + n;
        char *p = realloc(*buf, c);
        if (!p)
            return -1;
        *buf = p;
        *cap = c;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
    return 0;
}

char *cuplas_output_path(const char *dir, const char *tmpl, const char *file,
                         const char *dataset, int rel_at)
{
    const char *base = base_name(file), *dot = strrchr(base, '.');
    size_t stem_len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    char *buf = NULL, *ds = strdup(dataset[0] == '/' ? dataset + 1 : dataset);
    char *rel = strndup(file + rel_at, (size_t)(base + stem_len - file - rel_at));
    char *parent = strndup(file, base > file ? (size_t)(base - file - 1) : 0);
    size_t len = 0, cap = 0;
    int bad = !ds || !rel || !parent;

    /* a control character in a file name (a dataset "a\nb") breaks every
       line-based tool that lists the outputs */
    for (char *p = ds; p && *p; p++)
        if (*p == '/' || (unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '_';
    for (char *p = rel; p && *p; p++)
        if (*p == '/')
            *p = '_';
    if (parent && base == file) {   /* a bare name: the folder is "." */
        free(parent);
        parent = strdup(".");
        bad |= !parent;
    }
    const char *pname = parent ? base_name(parent) : "";
    if (dir && dir[0]) {
        bad |= put(&buf, &len, &cap, dir, strlen(dir));
        if (dir[strlen(dir) - 1] != '/')
            bad |= put(&buf, &len, &cap, "/", 1);
    }
    const struct {
        const char *key, *val;
    } sub[] = {
        {"{stem}", base}, {"{file}", base}, {"{dataset}", ds}, {"{parent}", pname}, {"{relpath}", rel},
    };
    const size_t nsub = sizeof sub / sizeof *sub;
    for (const char *t = tmpl; !bad && *t;) {
        size_t k = 0;
        while (k < nsub && strncmp(t, sub[k].key, strlen(sub[k].key)))
            k++;
        if (k == nsub) {
            bad |= put(&buf, &len, &cap, t++, 1);
            continue;
        }
        /* {stem} is the file name up to its last dot */
        bad |= put(&buf, &len, &cap, sub[k].val, k == 0 ? stem_len : strlen(sub[k].val));
        t += strlen(sub[k].key);
    }
    free(ds);
    free(rel);
    free(parent);
    if (bad) {
        free(buf);
        return NULL;
    }
    return buf;
}

char *cuplas_output_beside(const char *output, const char *suffix)
{
    size_t n = strlen(output);
    char *p = NULL;
    if (n > 3 && !strcmp(output + n - 3, ".h5"))
        n -= 3;
    if (asprintf(&p, "%.*s%s", (int)n, output, suffix) < 0)
        return NULL;
    return p;
}

char *cuplas_output_ply_path(const char *output)
{
    size_t n = strlen(output);
    char *p = malloc(n + 5);
    if (!p)
        return NULL;
    memcpy(p, output, n + 1);
    if (n > 3 && !strcmp(p + n - 3, ".h5"))
        p[n - 3] = '\0';
    else if (n > 5 && !strcmp(p + n - 5, ".hdf5"))
        p[n - 5] = '\0';
    strcat(p, ".ply");
    return p;
}
