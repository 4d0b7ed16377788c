/*
 * stage_write.c - the write stage: the AND after the sort, the result's
 * chunks encoded (on the pool, or streamed to the file while they encode
 * for a large compressed result: stage_write_stream.c), its HDF5 part on
 * the HDF5 thread, the raw data, fsync and the rename; a scene's sorted
 * PLY on a side thread beside the encode (ply_task).
 *
 * Design facts: a result is published (renamed under its name) only when
 * every byte of it is written, and with output.fsync on disk; a scene's
 * PLY is published just before its HDF5 result, whose `complete`
 * attribute is what a rerun trusts, and a failure of either side
 * publishes neither. The folders' own fsyncs are batched (sync_due).
 * Apart from stages.c because it is the one stage with side threads.
 */
#include "cuplas_build.h"
#include "pipeline/job_ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/metrics.h"
#include "eval/quality.h"
#include "io/codec.h"
#include "io/h5_write.h"
#include "io/publish.h"
#include "io/scene.h"
#include "util/clock.h"
#include "util/fsutil.h"
#include "util/lock.h"
#include "util/side.h"
#include "util/threads.h"

/* Visit 2: the output's HDF5 part. */
typedef struct write_task {
    job_ctx *j;
    const char *tmp;
    cuplas_h5_encoded *enc;
    const cuplas_result_meta *meta;
    cuplas_error *e;
    int rc;
} write_task;

static void write_run(void *p)
{
    write_task *t = p;
    t->rc = cuplas_h5_write_encoded_to(t->tmp, &t->j->g, t->enc, t->meta, t->e);
}

/* The AND over the filled cells of a padded grid after the sort. */
static int and_after_padded(job_ctx *j, double *out, cuplas_error *e)
{
    int64_t N = j->g.H * j->g.W;
    double *grid = malloc((size_t)N * (size_t)j->nuse * sizeof *grid);
    if (!grid)
        return cuplas_error_set(e, CUPLAS_ERR_NOMEM, "out of memory");
    cuplas_eval_gather(j->x, j->nuse, j->index, N, grid, NULL, j->pool);
    for (int64_t c = 0; c < N; c++)
        j->empty[c] = j->label[j->index[c]] < 0;
    *out = cuplas_eval_and(grid, j->g.H, j->g.W, j->nuse, j->empty);
    free(grid);
    return 0;
}

/* A scene's vertices in grid order into a temp file next to ply_out
 * (*tmp; the caller publishes or unlinks it). Its loop runs as an OpenMP
 * team of this thread, not on the shared pool: the HDF5 result's encode
 * has the pool meanwhile (ply_task). */
static int write_ply(job_ctx *j, char **tmp, cuplas_error *e)
{
    int64_t N = j->g.H * j->g.W;
    int64_t *order = malloc((size_t)N * sizeof *order);
    int rc = 0;

    if (!order)
        return cuplas_error_set(e, CUPLAS_ERR_NOMEM, "out of memory");
    for (int64_t c = 0; c < N; c++)
        order[c] = j->label ? j->label[j->index[c]] : j->index[c];
    if (!(*tmp = cuplas_tmp_create(j->job->ply_out, e)))
        rc = e->code ? (int)e->code : CUPLAS_ERR_OUTPUT;
    else
        rc = cuplas_ply_write(&j->ply, j->rows_in_raw ? j->g.raw : NULL, order, N, *tmp,
                              &(cuplas_ply_write_opts){.writeback = j->r->cfg->output.fsync}, e);
    free(order);
    return rc;
}

/* The sorted PLY on a thread of its own while the HDF5 result is encoded:
 * the one is row gathers and page-cache copies, the other deflate, so
 * together they take little more than the longer (a 7.3M-splat scene's
 * PLY is 1.8 GB). Both read the grid, the index and the labels only. */
typedef struct ply_task {
    job_ctx *j;
    cuplas_side side;
    char *tmp;          /* the written temp file, until published */
    char stamp[80];     /* tmp's size and mtime, kept by the rename: the
                           result's sorted_ply attribute */
    cuplas_error err;
    int rc;
    double seconds;
} ply_task;

static void ply_task_run(void *p)
{
    ply_task *t = p;
    double t0 = cuplas_now_s();
    cuplas_error_clear(&t->err);
    t->rc = write_ply(t->j, &t->tmp, &t->err);
    if (t->rc == 0 && cuplas_file_stamp(t->tmp, t->stamp, sizeof t->stamp) != 0)
        t->rc = cuplas_error_set(&t->err, CUPLAS_ERR_OUTPUT, "cannot stat %s", t->tmp);
    t->seconds = cuplas_now_s() - t0;
}

/* The PLY thread's OpenMP team: the rows' page-cache copies queue on the
 * file's lock, so a few threads keep it busy and leave the cores to the
 * encode's deflate. */
#define PLY_THREADS 4

/* Start it (or, if no thread can be had, write it now). */
static void ply_task_start(ply_task *t, job_ctx *j)
{
    t->j = j;
    cuplas_side_start(&t->side, ply_task_run, t, PLY_THREADS);
}

static void ply_task_wait(ply_task *t) { cuplas_side_join(&t->side); }
static void ply_task_wait_cb(void *t) { ply_task_wait(t); }

/* output.fsync: the folders whose oldest unsynced rename is older than
 * this are fsync'd by the next job to publish (and all at the run's end):
 * a power loss forgets at most about this much of the run's renames. */
#define DIRSYNC_AGE_S 1.0

static void sync_due(cuplas_runner *r)
{
    cuplas_error e;
    int *bad = NULL, nbad = 0;

    if (!r->dirsync)
        return;
    cuplas_error_clear(&e);
    if (cuplas_dirsync_flush(r->dirsync, DIRSYNC_AGE_S, &bad, &nbad, &e) == 0 || !nbad) {
        free(bad);
        return;
    }
    /* the jobs may be other workers': the runner fails them at the end */
    cuplas_lock_take(&r->queue_lock);
    int *v = realloc(r->sync_bad, (size_t)(r->nsync_bad + nbad) * sizeof *v);
    if (v) {
        memcpy(v + r->nsync_bad, bad, (size_t)nbad * sizeof *v);
        r->sync_bad = v;
        r->nsync_bad += nbad;
    }
    cuplas_lock_give(&r->queue_lock);
    free(bad);
}

/* Rename tmp onto out_path: its folder's fsync batched (output.fsync), or
 * none at all. */
static int publish(job_ctx *j, const char *tmp, const char *out_path, cuplas_error *e)
{
    cuplas_runner *r = j->r;
    return r->dirsync ? cuplas_tmp_publish_deferred(tmp, out_path, r->dirsync,
                                                    (int)(j->job - r->jobs->v), e)
                      : cuplas_tmp_publish(tmp, out_path, 0, e);
}

/* write: the output file, published atomically under its name. */
int cuplas_stage_write(job_ctx *j, cuplas_error *e)
{
    cuplas_runner *r = j->r;
    const cuplas_config *cfg = r->cfg;
    const cuplas_job *job = j->job;
    cuplas_job_result *res = j->res;
    double t = cuplas_now_s();
    char *params = NULL, *tmp = NULL, *ply_tmp = NULL, device[256];
    cuplas_h5_encoded *enc = NULL;
    ply_task ply = {0};
    int rc = 0, streamed = 0;

    if (j->empty)
        CUPLAS_TRY(and_after_padded(j, &res->and_after, e));
    else
        res->and_after = cuplas_and(j->x, j->g.H, j->g.W, j->nuse, j->index, j->pool);
    if (!strcmp(res->backend, "gpu"))   /* j->gpu may have retired */
        snprintf(device, sizeof device, "%s", j->w->name);
    else
        snprintf(device, sizeof device, "%s (%d threads)", r->cpu_name, cuplas_max_threads());
    cuplas_config used = *cfg;   /* the params this grid was sorted with */
    used.sort = j->sort;
    if (!(params = cuplas_config_params_to_yaml(&used)))
        CUPLAS_FAIL(e, CUPLAS_ERR_NOMEM, "out of memory");
    cuplas_result_meta meta = {
        .params_yaml = params,
        .seed = cfg->sort.seed,
        .version = PACKAGE_VERSION,
        .and_before = res->and_before,
        .and_after = res->and_after,
        .wall_seconds = res->read_s + res->prep_s + res->sort_s,
        .backend = res->backend,
        .device_name = device,
        .identity = job->identity,
        .eval_json = j->eval_json,
        .sorted_ply = ply.stamp,   /* filled by the PLY task, before the attributes */
        .sog = j->sog_attr,
    };
    if (job->ply_out)
        ply_task_start(&ply, j);
    /* gather, shuffle and deflate here; on the HDF5 thread, the file's
       metadata and (compressed) chunks; uncompressed data, fsync and
       rename here again. A large compressed result overlaps the two. */
    if (cfg->output.deflate > 0 &&
        (size_t)(j->g.H * j->g.W) * (j->g.elem_size * (size_t)j->g.C + 4) >
            CUPLAS_H5_IMAGE_MAX_BYTES) {
        CUPLAS_TRY(cuplas_stage_write_streamed(j, &meta, ply_task_wait_cb, &ply, &enc, &tmp,
                                               t, e));
        streamed = tmp != NULL;
    } else {
        CUPLAS_TRY(cuplas_h5_encode_result(&j->g, j->index, &cfg->output, &j->w->io,
                                           cfg->output.deflate > 0 ? j->r->pool : j->pool, &enc,
                                           e));
        res->encode_s = cuplas_now_s() - t;
    }
    /* the sorted PLY first, published just before the HDF5 result, whose
       `complete` attribute is what a rerun trusts */
    ply_task_wait(&ply);
    ply_tmp = ply.tmp;
    ply.tmp = NULL;
    res->ply_s = ply.seconds;
    if (job->ply_out && ply.rc != 0) {
        *e = ply.err;
        rc = ply.rc;
        cuplas_error_where(e, "%s", job->ply_out);
        if (streamed)
            unlink(tmp);
        goto fail;
    }
    if (!tmp && !(tmp = cuplas_tmp_create(job->output, e))) {
        rc = e->code ? (int)e->code : CUPLAS_ERR_OUTPUT;
    } else {
        write_task task = {.j = j, .tmp = tmp, .enc = enc, .meta = &meta, .e = e};
        if (streamed)
            task.rc = 0;   /* written and closed already */
        else
            cuplas_job_h5_visit(j, write_run, &task);
        if ((rc = task.rc) == 0)
            rc = cuplas_h5_write_raw(tmp, enc, j->pool, e);
        /* the scene's PLY and SOG folder first: a result whose name
           exists is complete */
        if (rc == 0 && ply_tmp) {
            if ((rc = publish(j, ply_tmp, job->ply_out, e)))
                cuplas_error_where(e, "%s", job->ply_out);
        }
        if (rc == 0 && j->sog_tmp) {
            /* an earlier run's folder of this output goes; the folder is
               renamed (its files synced by the step) as a file would be */
            cuplas_rm_tree(job->sog_out);
            if ((rc = publish(j, j->sog_tmp, job->sog_out, e)))
                cuplas_error_where(e, "%s", job->sog_out);
            else
                free(j->sog_tmp), j->sog_tmp = NULL;
        }
        if (rc == 0) {
            free(ply_tmp);
            ply_tmp = NULL;   /* published */
            rc = publish(j, tmp, job->output, e);
        }
        if (rc == 0)
            sync_due(r);
        if (rc)
            unlink(tmp);
    }
    if (rc) {
        cuplas_error_where(e, "%s:%s", job->output, job->dataset);
        goto fail;
    }
    res->write_s = cuplas_now_s() - t;
fail:
    ply_task_wait(&ply);   /* the HDF5 side failed first: the PLY is not published */
    if (ply.tmp)
        unlink(ply.tmp);
    free(ply.tmp);
    if (ply_tmp)
        unlink(ply_tmp);
    free(ply_tmp);
    free(tmp);
    cuplas_h5_encoded_free(enc);
    free(params);
    return rc;
}
