/*
 * jobs_check.c - the checks across a whole job list (jobs.h): no two jobs
 * publish one output, and no path a job writes is another path of the run.
 *
 * Design fact: these are the only planning errors that stop a run (exit
 * 2, before anything is written): running on would destroy data, an
 * output renamed over another job's output, over an input, over the
 * config or the log, or over a device or FIFO that has the output's name.
 * Paths are compared by cuplas_path_key (the device and inode of a file
 * that exists, else its name with the folder resolved), so two spellings
 * of one file are one file.
 */
#define _GNU_SOURCE /* strdup */
#include "pipeline/jobs.h"

#include <stdlib.h>
#include <string.h>

#include "util/fsutil.h"

/* ------------------------------------------------------------ one output */

static int cmp_output(const void *pa, const void *pb)
{
    const cuplas_job *a = *(cuplas_job *const *)pa, *b = *(cuplas_job *const *)pb;
    return strcmp(a->output, b->output);
}

int cuplas_jobs_check_collisions(const cuplas_jobs *jobs, cuplas_error *err)
{
    const cuplas_job **by = malloc((size_t)jobs->n * sizeof *by + 1);
    int n = 0, rc = 0;

    if (!by)
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < jobs->n; i++)
        if (jobs->v[i].output)
            by[n++] = &jobs->v[i];
    qsort(by, (size_t)n, sizeof *by, cmp_output);
    for (int i = 1; i < n; i++) {
        const cuplas_job *a = by[i - 1], *b = by[i];
        if (strcmp(a->output, b->output))
            continue;
        if (a->line && jobs->config_path[0])
            cuplas_error_where(err, "%s:%d", jobs->config_path, a->line);
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "output.name: %s:%s and %s:%s both map to %s "
                    "(make output.name tell them apart)", a->file, a->dataset, b->file,
                    b->dataset, a->output);
    }
fail:
    free(by);
    return rc;
}

/* ------------------------------------------------------------ every path */

/* One path of the run, for the check across every job's paths. */
typedef struct path_entry {
    char *key;              /* cuplas_path_key */
    const char *path;
    const cuplas_job *job;  /* NULL: the config file or the log */
    int role;               /* path_role; from ROLE_OUTPUT on, written */
} path_entry;

enum { ROLE_CONFIG, ROLE_INPUT, ROLE_OUTPUT, ROLE_PLY, ROLE_PREVIEW, ROLE_SOG, ROLE_LOG };
static const char *const path_role[] = {"config file", "input", "output", "sorted PLY",
                                        "preview", "SOG folder (sog.enabled)",
                                        "log file (logging.file)"};

static int cmp_entry(const void *pa, const void *pb)
{
    const path_entry *a = pa, *b = pb;
    int c = strcmp(a->key, b->key);
    return c ? c : a->role - b->role;
}

static int add_entry_path(path_entry *v, int *n, const char *path, const cuplas_job *job,
                          int role, cuplas_error *err)
{
    if (!path || !path[0])
        return 0;
    /* the SOG folder is a folder: its earlier self is replaced whole */
    if (role >= ROLE_OUTPUT && role != ROLE_LOG && role != ROLE_SOG && cuplas_path_special(path))
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "the %s %s exists and is not a regular "
                                "file: a result would be renamed over it; name another %s",
                                path_role[role], path, path_role[role]);
    if (!(v[*n].key = cuplas_path_key(path)))
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    v[*n].path = path;
    v[*n].job = job;
    v[(*n)++].role = role;
    return 0;
}

int cuplas_jobs_check_paths(cuplas_jobs *jobs, cuplas_error *err)
{
    path_entry *v = malloc(((size_t)jobs->n * 5 + 2) * sizeof *v);
    const cuplas_job *j = NULL;
    int n = 0, rc = 0;

    if (!v)
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    CUPLAS_TRY(add_entry_path(v, &n, jobs->config_path, NULL, ROLE_CONFIG, err));
    CUPLAS_TRY(add_entry_path(v, &n, jobs->log_path, NULL, ROLE_LOG, err));
    for (int i = 0; i < jobs->n; i++) {
        j = &jobs->v[i];
        if (!j->output)
            continue;   /* failed before it had a name: it writes nothing */
        CUPLAS_TRY(add_entry_path(v, &n, j->file, j, ROLE_INPUT, err));
        CUPLAS_TRY(add_entry_path(v, &n, j->output, j, ROLE_OUTPUT, err));
        CUPLAS_TRY(add_entry_path(v, &n, j->ply_out, j, ROLE_PLY, err));
        CUPLAS_TRY(add_entry_path(v, &n, j->preview_out, j, ROLE_PREVIEW, err));
        CUPLAS_TRY(add_entry_path(v, &n, j->sog_out, j, ROLE_SOG, err));
    }
    j = NULL;
    /* an output is renamed onto its name (the log appended to): any other
       path to that file, of this job or another, an input above all,
       would be destroyed */
    qsort(v, (size_t)n, sizeof *v, cmp_entry);
    for (int a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && !strcmp(v[a].key, v[b].key); b++)
            ;
        if (b - a < 2 || v[b - 1].role < ROLE_OUTPUT)
            continue;   /* one path, or read only (one file, several datasets) */
        int o = a;
        while (v[o].role < ROLE_OUTPUT)
            o++;
        const path_entry *kept = &v[a], *out = &v[o > a ? o : a + 1];
        j = out->job ? out->job : kept->job;
        jobs->log_clash = out->role == ROLE_LOG || kept->role == ROLE_LOG;
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "the %s %s would %s the %s %s (one file): name "
                    "another %s", path_role[out->role], out->path,
                    out->role == ROLE_LOG ? "append to" : "replace", path_role[kept->role],
                    kept->path, out->role == ROLE_LOG ? "logging.file" : path_role[out->role]);
    }
fail:
    for (int i = 0; i < n; i++)
        free(v[i].key);
    free(v);
    if (rc && j && j->line && jobs->config_path && jobs->config_path[0])
        cuplas_error_where(err, "%s:%d", jobs->config_path, j->line);
    return rc;
}
