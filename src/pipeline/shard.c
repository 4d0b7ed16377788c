/*
 * shard.c - deterministic greedy split of a job list (see shard.h), and
 * where a task's shard comes from (--shard i/n or the SLURM array env).
 *
 * Design fact: the split must not depend on anything a task sees alone
 * (discovery order, hostname, time), only on the job list every task
 * builds from the same config, so the sort order is total.
 */
#include "pipeline/shard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    int64_t cost;
    const char *key, *key2;
    int pos;
} entry;

static int cmp_entry(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    int c = (a->cost < b->cost) - (a->cost > b->cost);   /* descending */
    if (!c)
        c = strcmp(a->key, b->key);
    if (!c)
        c = strcmp(a->key2, b->key2);
    if (!c)
        c = (a->pos > b->pos) - (a->pos < b->pos);
    return c;
}

int cuplas_shard_assign(const cuplas_shard_item *items, int n, int nshards, int *shard_of,
                        cuplas_error *err)
{
    entry *e = NULL;
    int64_t *load = NULL;
    int rc = 0;

    if (nshards < 1)
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "shard count must be at least 1");
    if (!(e = malloc((size_t)n * sizeof *e + 1)) ||
        !(load = calloc((size_t)nshards, sizeof *load)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        /* a job that failed while planning still has to be reported by one task */
        e[i].cost = items[i].cost > 0 ? items[i].cost : 1;
        e[i].key = items[i].key ? items[i].key : "";
        e[i].key2 = items[i].key2 ? items[i].key2 : "";
        e[i].pos = i;
    }
    qsort(e, (size_t)n, sizeof *e, cmp_entry);
    for (int i = 0; i < n; i++) {
        int best = 0;
        for (int s = 1; s < nshards; s++)
            if (load[s] < load[best])
                best = s;
        load[best] += e[i].cost;
        shard_of[e[i].pos] = best;
    }
fail:
    free(load);
    free(e);
    return rc;
}

/* A whole decimal number in [lo, hi]; -1 if s is not one. */
static int whole(const char *s, long lo, long hi, long *v)
{
    char *end;
    if (!s || !*s || *s == '+' || *s == '-' || *s == ' ')
        return -1;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno || *end || x < lo || x > hi)
        return -1;
    *v = x;
    return 0;
}

int cuplas_shard_parse(const char *s, cuplas_shard *out, cuplas_error *err)
{
    const char *slash = s ? strchr(s, '/') : NULL;
    char head[32];
    long i, n;

    if (!slash || (size_t)(slash - s) >= sizeof head)
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "--shard: expected I/N (e.g. 0/4), "
                                "got '%s'", s ? s : "");
    memcpy(head, s, (size_t)(slash - s));
    head[slash - s] = '\0';
    if (whole(slash + 1, 1, 1000000, &n) != 0)
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "--shard %s: N must be a whole number "
                                ">= 1", s);
    if (whole(head, 0, n - 1, &i) != 0)
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "--shard %s: I must be a whole number "
                                "from 0 to %ld", s, n - 1);
    out->index = (int)i;
    out->count = (int)n;
    return 0;
}

int cuplas_shard_from_env(const char *id, const char *count, const char *min,
                          const char *max, const char *step, cuplas_shard *out,
                          cuplas_error *err)
{
    long vid, vcount = -1, vmin, vmax, vstep;
    const long big = 100000000;

    out->index = 0;
    out->count = 0;
    if (!id || !*id)
        return 0;
    if (whole(id, 0, big, &vid) != 0)
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "SLURM_ARRAY_TASK_ID='%s' is not a "
                                "task id", id);
    if (step && *step && (whole(step, 1, big, &vstep) != 0 || vstep != 1))
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "SLURM_ARRAY_TASK_STEP=%s: the array's "
                                "task ids are not contiguous; use --shard I/N or --no-shard",
                                step);
    if (count && *count && whole(count, 1, big, &vcount) != 0)
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "SLURM_ARRAY_TASK_COUNT='%s' is not "
                                "a count", count);
    if (min && *min && max && *max) {
        if (whole(min, 0, big, &vmin) != 0 || whole(max, vmin, big, &vmax) != 0)
            return cuplas_error_set(err, CUPLAS_ERR_USAGE, "SLURM_ARRAY_TASK_MIN='%s' / "
                                    "MAX='%s' are not a task range", min, max);
        if (vid < vmin || vid > vmax)
            return cuplas_error_set(err, CUPLAS_ERR_USAGE, "SLURM_ARRAY_TASK_ID=%ld is "
                                    "outside MIN..MAX = %ld..%ld", vid, vmin, vmax);
        /* --array=0-15:4 or 1,3,7: task ids are not 0..n-1 after the shift */
        if (vcount >= 0 && vcount != vmax - vmin + 1)
            return cuplas_error_set(err, CUPLAS_ERR_USAGE, "the array's task ids are not "
                                    "contiguous (%ld tasks in %ld..%ld); use --shard I/N or "
                                    "--no-shard", vcount, vmin, vmax);
        out->index = (int)(vid - vmin);
        out->count = (int)(vmax - vmin + 1);
        return 0;
    }
    if (vcount < 0)
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "SLURM_ARRAY_TASK_ID is set, but "
                                "neither SLURM_ARRAY_TASK_COUNT nor MIN/MAX; use --shard I/N");
    if (vid >= vcount)
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "SLURM_ARRAY_TASK_ID=%ld is not below "
                                "SLURM_ARRAY_TASK_COUNT=%ld; use --shard I/N", vid, vcount);
    out->index = (int)vid;
    out->count = (int)vcount;
    return 0;
}

int cuplas_shard_select(const cuplas_jobs *all, const cuplas_shard *s, cuplas_jobs *mine,
                        cuplas_error *err)
{
    cuplas_shard_item *items = NULL;
    int *shard_of = NULL, rc = 0;

    memset(mine, 0, sizeof *mine);
    mine->config_path = all->config_path;
    mine->output_dir_where = all->output_dir_where;
    mine->output_dir_line = all->output_dir_line;
    if (!(items = calloc((size_t)all->n + 1, sizeof *items)) ||
        !(shard_of = calloc((size_t)all->n + 1, sizeof *shard_of)) ||
        !(mine->v = calloc((size_t)all->n + 1, sizeof *mine->v)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < all->n; i++) {
        const cuplas_job *j = &all->v[i];
        items[i].cost = j->err.code ? 0 : j->H * j->W * j->C;
        items[i].key = j->file;
        items[i].key2 = j->dataset;
    }
    if (s->count > 0)
        CUPLAS_TRY(cuplas_shard_assign(items, all->n, s->count, shard_of, err));
    for (int i = 0; i < all->n; i++)
        if (s->count == 0 || shard_of[i] == s->index)
            mine->v[mine->n++] = all->v[i];
    mine->cap = all->n;
fail:
    if (rc)
        cuplas_shard_release(mine);
    free(shard_of);
    free(items);
    return rc;
}

void cuplas_shard_release(cuplas_jobs *mine)
{
    free(mine->v);
    memset(mine, 0, sizeof *mine);
}

const char *cuplas_shard_name(const cuplas_shard *s, char *buf, unsigned long size)
{
    if (s->count > 0)
        snprintf(buf, size, "%d-of-%d", s->index, s->count);
    else if (size)
        buf[0] = '\0';
    return buf;
}
