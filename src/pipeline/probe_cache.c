/*
 * probe_cache.c - probe and list results by key (probe_cache.h): an open
 * addressing hash table of malloc'd keys, grown at half full. An entry
 * keeps what the call returned: the status, the error and the result.
 * A probe's column names stay the entry's; each caller gets a copy of its
 * own, since a probe's grid is freed by its caller like an uncached one.
 */
#define _GNU_SOURCE /* asprintf */
#include "pipeline/probe_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5_list.h"
#include "io/h5_read.h"

typedef struct entry {
    char *key;            /* NULL: a free slot */
    int rc;
    cuplas_error err;
    cuplas_h5grid g;      /* probes: no file, dataset or data */
    char **names;         /* lists */
    int count;
} entry;

struct cuplas_probe_cache {
    entry *v;
    size_t cap, n;        /* cap: a power of two */
};

static uint64_t hash(const char *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
    return h;
}

cuplas_probe_cache *cuplas_probe_cache_new(void)
{
    cuplas_probe_cache *pc = calloc(1, sizeof *pc);
    if (pc && !(pc->v = calloc(pc->cap = 64, sizeof *pc->v))) {
        free(pc);
        return NULL;
    }
    return pc;
}

void cuplas_probe_cache_free(cuplas_probe_cache *pc)
{
    if (!pc)
        return;
    for (size_t i = 0; i < pc->cap; i++)
        if (pc->v[i].key) {
            free(pc->v[i].key);
            cuplas_h5_free_names(pc->v[i].names, pc->v[i].count);
            cuplas_h5grid_free_names(&pc->v[i].g);
        }
    free(pc->v);
    free(pc);
}

static entry *slot(entry *v, size_t cap, const char *key)
{
    size_t i = (size_t)hash(key) & (cap - 1);
    while (v[i].key && strcmp(v[i].key, key))
        i = (i + 1) & (cap - 1);
    return &v[i];
}

/* The entry of key (e->key set: a hit), or NULL when out of memory. */
static entry *find(cuplas_probe_cache *pc, const char *key)
{
    if (2 * (pc->n + 1) > pc->cap) {
        size_t cap = 2 * pc->cap;
        entry *v = calloc(cap, sizeof *v);
        if (!v)
            return NULL;
        for (size_t i = 0; i < pc->cap; i++)
            if (pc->v[i].key)
                *slot(v, cap, pc->v[i].key) = pc->v[i];
        free(pc->v);
        pc->v = v;
        pc->cap = cap;
    }
    return slot(pc->v, pc->cap, key);
}

/* Take e (a free slot) for key; the key is the cache's from now on. */
static void claim(cuplas_probe_cache *pc, entry *e, char *key)
{
    e->key = key;
    pc->n++;
}

int cuplas_probe_cached(cuplas_probe_cache *pc, const char *file, const char *dataset,
                        int64_t height, int64_t width, unsigned flags, cuplas_h5grid *g,
                        cuplas_error *err)
{
    char *key = NULL;
    entry *e;
    int rc;

    /* lengths first: no separator can be forged by a name */
    if (!pc || asprintf(&key, "P%zu:%s%zu:%s|%lld|%lld|%u", strlen(file), file,
                        strlen(dataset), dataset, (long long)height, (long long)width,
                        flags) < 0 || !(e = find(pc, key))) {
        free(key);
        return cuplas_h5_probe_grid(file, dataset, height, width, flags, g, err);
    }
    if (!e->key) {
        cuplas_h5grid t;
        e->rc = cuplas_h5_probe_grid(file, dataset, height, width, flags, &t, &e->err);
        claim(pc, e, key);
        key = NULL;
        e->g = t;   /* a probe holds no data; the names are the entry's now */
        e->g.file = e->g.dataset = NULL;
        e->g.raw = NULL;
        t.names = NULL;
        cuplas_h5grid_free(&t);
    }
    free(key);
    rc = e->rc;
    if (rc)
        *err = e->err;
    *g = e->g;
    g->names = NULL;
    if (e->g.names && !(g->names = calloc((size_t)g->C, sizeof *g->names)))
        goto oom;
    for (int64_t c = 0; e->g.names && c < g->C; c++)
        if (!(g->names[c] = strdup(e->g.names[c])))
            goto oom;
    return rc;
oom:
    cuplas_h5grid_free_names(g);
    return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory copying %s's column names",
                            file);
}

int cuplas_list_cached(cuplas_probe_cache *pc, const char *file, char ***names, int *count,
                       cuplas_error *err)
{
    char *key = NULL;
    entry *e;

    if (!pc || asprintf(&key, "L%s", file) < 0 || !(e = find(pc, key))) {
        free(key);
        return cuplas_h5_list_datasets(file, names, count, err);
    }
    if (!e->key) {
        e->rc = cuplas_h5_list_datasets(file, &e->names, &e->count, &e->err);
        claim(pc, e, key);
        key = NULL;
    }
    free(key);
    *names = e->names;
    *count = e->count;
    if (e->rc)
        *err = e->err;
    return e->rc;
}
