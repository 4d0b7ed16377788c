/*
 * stages.c - a job's stages in order (stages.h): read and prep here, sort
 * in stage_sort.c, eval in stage_eval.c, sog in stage_sog.c, write in
 * stage_write.c (and stage_write_stream.c for a large compressed result).
 *
 *   read   HDF5 thread: pin the input, resume check, open + locate chunks
 *          lane: pread + inflate the chunks, output folder
 *   prep   lane: channels to double, normalise, AND before
 *   sort   lane (+GPU): admission, sort, CPU fallback
 *   eval   lane, only with eval.enabled / output.preview: measure and
 *          draw the result (eval/), warnings only
 *   sog    lane, only with sog.enabled: the PlayCanvas SOG folder under a
 *          temporary name (io/sog_write.c); a failure fails the job
 *   write  lane: AND after, encode chunks, temp file
 *          HDF5 thread: the output's HDF5 part (small files in memory)
 *          lane: raw data, fsync, rename (the PLY and SOG folder first)
 *
 * Design facts: the HDF5 library is not thread-safe, so every call that
 * touches it runs on the one HDF5 thread (h5_thread.c) and does as little
 * as possible there; the io layer's file names say which calls those are
 * (h5_*). A job's result record is written only by the worker running
 * it. Nothing here calls exit(): a failure ends its job.
 */
#define _GNU_SOURCE /* asprintf */
#include "cuplas_build.h"
#include "pipeline/stages.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fit.h"
#include "core/metrics.h"
#include "core/transform.h"
#include "eval/quality.h"
#include "eval/evaluate.h"
#include "io/codec.h"
#include "io/dtype.h"
#include "io/grid.h"
#include "io/h5_lib.h"
#include "io/h5_read.h"
#include "io/h5_result.h"
#include "io/h5_thread.h"
#include "io/scene.h"
#include "pipeline/lane_init.h"
#include "util/clock.h"
#include "util/sysmem.h"
#include "util/fsutil.h"


/* The pool for a grid of `bytes` (GPU lanes only): a small grid's loops
 * run on its lane alone. Posting them would wake pool threads for a few
 * microseconds of work each, thousands of times a second, and slow the
 * HDF5 thread that small grids are bound by. Deflate and inflate are the
 * exception: a chunk is milliseconds of work (about 1 MiB), so they go to
 * the pool whatever the grid's size (measured: one 1024^2 x 3 grid's
 * encode took 0.34 s on its lane alone, issue 17). So is a run with no
 * more grids than lanes: nothing else would use the pool, and a one-file
 * run's quantising, AND and index copy took 90 ms on one thread
 * (bench/results/2026-11-24-h100-startup2). */
#define POOL_MIN_BYTES ((size_t)4 << 20)

#include "pipeline/job_ctx.h"

static cuplas_pool *grid_pool(const job_ctx *j, size_t bytes)
{
    const cuplas_runner *r = j->r;
    return bytes >= POOL_MIN_BYTES || r->jobs->n <= r->nworkers ? r->pool : NULL;
}

/* ------------------------------------------------------------- logging */

void cuplas_job_log_failure(cuplas_runner *r, const cuplas_job *job, const cuplas_job_result *res)
{
    char line[CUPLAS_JOB_LINE_LEN], text[CUPLAS_JOB_LINE_LEN + 32];
    cuplas_job_error_line(r->jobs, job, &res->err, line, sizeof line);
    snprintf(text, sizeof text, "cuplas: error: %s", line);
    cuplas_log_event(r->log, CUPLAS_LOG_ERROR, "job_failed", text,
                     CUPLAS_LF_S("file", job->file),
                     CUPLAS_LF_S("dataset", job->dataset ? job->dataset : ""),
                     CUPLAS_LF_S("output", job->output ? job->output : ""),
                     CUPLAS_LF_S("code", cuplas_status_name(res->err.code)),
                     CUPLAS_LF_S("error", line),
                     CUPLAS_LF_I("config_line", cuplas_job_line(r->jobs, job, &res->err)), NULL);
}

/* An AND for the text line: NaN (core/metrics.h: no two filled cells
 * touch) as "undefined", never "nan", nor 0, which would read as perfect. */
static const char *and_text(double v, char *buf, size_t size)
{
    if (isnan(v))
        return "undefined";
    snprintf(buf, size, "%.6g", v);
    return buf;
}

/* The eval step's ratios for the text line: sorted over input and over
 * Morton, in the first codec measured, each only when measured
 * (eval.orders), never "nan"; with the scheme, since plain and sog bytes
 * of one scene differ by a few per cent. */
static void eval_text(const cuplas_eval_result *ev, char *buf, size_t size)
{
    static const cuplas_order_kind base[2] = {CUPLAS_ORDER_INPUT, CUPLAS_ORDER_MORTON};
    int c = 0, n = 0;
    while (c < CUPLAS_CODEC_COUNT - 1 && ev->order[CUPLAS_ORDER_SORTED].bytes[c] < 0)
        c++;
    size_t at = (size_t)snprintf(buf, size, "; eval: %s bytes (%s)",
                                 cuplas_codec_name((cuplas_codec)c), cuplas_scheme_name(ev->scheme));
    for (int b = 0; b < 2 && at < size; b++) {
        double q = cuplas_eval_ratio(ev, base[b], (cuplas_codec)c);
        if (isfinite(q))
            at += (size_t)snprintf(buf + at, size - at, "%s sorted/%s %.4f", n++ ? "," : "",
                                   cuplas_order_name(base[b]), q);
    }
    if (!n && at < size)
        snprintf(buf + at, size - at, ", no input or morton baseline measured");
}

static void log_result(cuplas_runner *r, const cuplas_job *job, const cuplas_job_result *res)
{
    char text[CUPLAS_JOB_LINE_LEN], ab[32], aa[32];
    const char *dev = res->worker >= 0 ? r->workers[res->worker].name : "";

    switch (res->state) {
    case CUPLAS_JOB_DONE: {
        char *ej = res->eval ? cuplas_eval_result_json_str(res->eval) : NULL;
        snprintf(text, sizeof text, "cuplas: done %s:%s -> %s (%s, %.2f s, AND %s -> %s%s)",
                 job->file, job->dataset, job->output, res->backend, res->total_s,
                 and_text(res->and_before, ab, sizeof ab), and_text(res->and_after, aa, sizeof aa),
                 isnan(res->and_before) || isnan(res->and_after)
                     ? ": no two filled cells touch" : "");
        if (res->eval) {
            size_t len = strlen(text);
            eval_text(res->eval, text + len, sizeof text - len);
        }
        cuplas_log_event(r->log, CUPLAS_LOG_INFO, "job_done", text,
                         CUPLAS_LF_S("file", job->file), CUPLAS_LF_S("dataset", job->dataset),
                         CUPLAS_LF_S("output", job->output), CUPLAS_LF_S("backend", res->backend),
                         CUPLAS_LF_I("gpu", res->gpu), CUPLAS_LF_S("device", dev),
                         CUPLAS_LF_D("seconds", res->total_s),
                         CUPLAS_LF_D("read_s", res->read_s), CUPLAS_LF_D("prep_s", res->prep_s),
                         CUPLAS_LF_D("sort_s", res->sort_s), CUPLAS_LF_D("write_s", res->write_s),
                         CUPLAS_LF_D("encode_s", res->encode_s),
                         CUPLAS_LF_D("h5_wait_s", res->h5_wait_s),
                         CUPLAS_LF_D("h5_s", res->h5_s),
                         CUPLAS_LF_D("ply_s", res->ply_s),
                         CUPLAS_LF_D("sog_s", res->sog_s),
                         CUPLAS_LF_I("sog_bytes", res->sog_bytes),
                         CUPLAS_LF_D("and_before", res->and_before),
                         CUPLAS_LF_D("and_after", res->and_after),
                         CUPLAS_LF_I("levels", res->stats.levels),
                         CUPLAS_LF_I("passes", res->stats.passes),
                         CUPLAS_LF_I("polish_moves", res->stats.polish_moves),
                         CUPLAS_LF_D("gpu_h2d_ms", res->stats.h2d_ms),
                         CUPLAS_LF_D("gpu_sort_ms", res->stats.device_ms),
                         CUPLAS_LF_D("gpu_d2h_ms", res->stats.d2h_ms),
                         CUPLAS_LF_J("eval", ej), NULL);
        free(ej);
        break;
    }
    case CUPLAS_JOB_SKIPPED:
        snprintf(text, sizeof text, "cuplas: skipped %s:%s (complete: %s)", job->file,
                 job->dataset, job->output);
        cuplas_log_event(r->log, CUPLAS_LOG_INFO, "job_skipped", text,
                         CUPLAS_LF_S("file", job->file), CUPLAS_LF_S("dataset", job->dataset),
                         CUPLAS_LF_S("output", job->output), NULL);
        break;
    case CUPLAS_JOB_CANCELLED:
        snprintf(text, sizeof text, "cuplas: interrupted %s:%s (%s; no output written)",
                 job->file, job->dataset, res->err.msg);
        cuplas_log_event(r->log, CUPLAS_LOG_WARN, "job_interrupted", text,
                         CUPLAS_LF_S("file", job->file), CUPLAS_LF_S("dataset", job->dataset),
                         NULL);
        break;
    case CUPLAS_JOB_FAILED:
        cuplas_job_log_failure(r, job, res);
        break;
    case CUPLAS_JOB_PENDING:
        break;
    }
}

/* ------------------------------------------------------ the HDF5 thread */

/* Keep the current input file open between jobs, so that each job's own
 * open finds it open (no superblock or root group to read again). NULL
 * closes it. */
static void pin_input(cuplas_runner *r, const char *file)
{
    if (r->pin_path && file && !strcmp(r->pin_path, file))
        return;
    cuplas_h5_unpin(r->pin_id);
    free(r->pin_path);
    r->pin_path = NULL;
    r->pin_id = -1;
    if (file && (r->pin_id = cuplas_h5_pin(file)) >= 0 && !(r->pin_path = strdup(file))) {
        cuplas_h5_unpin(r->pin_id);
        r->pin_id = -1;
    }
}

static void unpin_task(void *r) { pin_input(r, NULL); }

void cuplas_jobs_unpin(cuplas_runner *r)
{
    cuplas_h5exec_run(r->h5, unpin_task, r, NULL, NULL);
}

/*
 * The overwrite policy (a complete output is checked by reading its
 * attributes). Returns 0 and *skip = 1 when a complete output with this
 * identity exists (and the sorted PLY, when the job asks for one).
 */
static int check_output(const cuplas_runner *r, const cuplas_job *job, int *skip, cuplas_error *e)
{
    struct stat st;
    int rc = 0;

    *skip = 0;
    if (stat(job->output, &st) == 0) {
        /* a complete result without the sorted PLY, preview or eval this
           run asks for is made again: they are only written with it */
        if (r->cfg->output.overwrite == CUPLAS_OVERWRITE_SKIP &&
            cuplas_h5_output_complete(job->output, job->dataset, job->identity) &&
            !cuplas_job_extra_missing(job, r->cfg)) {
            *skip = 1;
            return 0;
        }
        if (r->cfg->output.overwrite == CUPLAS_OVERWRITE_ERROR) {
            cuplas_error_where(e, "%s", job->output);
            CUPLAS_FAIL(e, CUPLAS_ERR_EXISTS, "output exists (overwrite: error)");
        }
    }
fail:
    return rc;
}

/* Visit 1: pin, resume check, open and locate the data. */
typedef struct read_task {
    job_ctx *j;
    cuplas_h5_fetch *fetch;
    int skip;
    cuplas_error *e;
    int rc;
} read_task;

static void read_run(void *p)
{
    read_task *t = p;
    const cuplas_job *job = t->j->job;

    if (job->scene) {   /* the scene is read on the lane: no HDF5 in it */
        t->rc = check_output(t->j->r, job, &t->skip, t->e);
        return;
    }
    pin_input(t->j->r, job->file);
    t->rc = check_output(t->j->r, job, &t->skip, t->e);
    if (t->rc == 0 && !t->skip)
        t->rc = cuplas_h5_read_begin(job->file, job->dataset, job->read_height,
                                     job->read_width, job->read_flags, &t->j->g, &t->fetch,
                                     &t->j->w->io, t->e);
}

/* ------------------------------------------------------------ the stages */

/* mkdir -p, then check that files can be created there. Its errors are
 * output.dir's (CUPLAS_REASON_OUTPUT_DIR: the message cites that key). */
static int output_dir(const cuplas_job *job, cuplas_error *e)
{
    char *dir = cuplas_path_dir(job->output);
    struct stat st;
    int rc = 0;

    if (!dir)
        CUPLAS_FAIL(e, CUPLAS_ERR_NOMEM, "out of memory");
    CUPLAS_TRY(cuplas_mkdir_p(dir, e));
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        CUPLAS_FAIL(e, CUPLAS_ERR_OUTPUT, "output folder %s is not a directory", dir);
    if (access(dir, W_OK | X_OK) != 0)
        CUPLAS_FAIL(e, CUPLAS_ERR_OUTPUT, "output folder %s is not writable: %s", dir,
                    strerror(errno));
fail:
    if (rc && rc != CUPLAS_ERR_NOMEM)
        e->reason = CUPLAS_REASON_OUTPUT_DIR;
    free(dir);
    return rc;
}

/* read: the grid in its file type, in j->g; *skip when a complete output
 * with this identity exists (nothing read). */
static int stage_read(job_ctx *j, int *skip, cuplas_error *e)
{
    const cuplas_job *job = j->job;
    double t = cuplas_now_s();
    read_task task = {.j = j, .e = e};
    int rc;

    cuplas_job_h5_visit(j, read_run, &task);
    *skip = task.skip;
    if ((rc = task.rc) != 0 || *skip)
        return rc;
    if (job->scene) {
        /* header and body into the lane's buffer: the only copy (a body
           under 64 MiB is one block: the pool only helps a large one) */
        CUPLAS_TRY(cuplas_scene_read(job->file, &j->g, &j->ply, &j->w->io, &j->rows_in_raw,
                                     j->r->pool, e));
        j->pool = grid_pool(j, (size_t)(j->g.H * j->g.C) * j->g.elem_size);
    } else {
        /* inflating and unshuffling the chunks needs no HDF5 call */
        j->pool = grid_pool(j, (size_t)(j->g.H * j->g.W * j->g.C) * j->g.elem_size);
        /* compressed chunks inflate on the pool whatever the grid's size */
        CUPLAS_TRY(cuplas_h5_read_finish(&j->g, task.fetch,
                                         task.fetch && task.fetch->nfilters ? j->r->pool : j->pool,
                                         e));
    }
    CUPLAS_TRY(output_dir(job, e));
    if (job->fitting && j->g.W == 1 && j->g.H * j->g.W == (job->nrows ? job->nrows
                                                                       : job->H * job->W)) {
        /* read as N items: now the planned grid (core/fit.h) */
        j->g.nrows = job->nrows;
        j->g.H = job->H;
        j->g.W = job->W;
    }
    /* the identity (and the plan) describe the file as it was probed */
    if (j->g.H != job->H || j->g.W != job->W || j->g.C != job->C ||
        strcmp(j->g.dtype, job->dtype))
        CUPLAS_FAIL(e, CUPLAS_ERR_INPUT, "the dataset changed since the job was planned");
    j->res->read_s = cuplas_now_s() - t;
fail:
    return rc;
}

/* *buf with room for n elements of size es, reusing it when big enough.
 * A new buffer's pages are touched on the pool (when there is one): its
 * first writer may be a single thread (the GPU sort's index copy), and
 * 2048 first-touch faults of an 8 MiB index took 20-25 ms there. */
static void *grow(void *buf, size_t *cap, size_t n, size_t es, cuplas_pool *pool)
{
    if (n <= *cap)
        return buf;
    free(buf);
    *cap = 0;
    if (!(buf = cuplas_alloc_big(n * es)))
        return NULL;
    *cap = n;
    if (pool)
        cuplas_par_touch(pool, buf, n * es);
    return buf;
}

void cuplas_worker_buffers_free(cuplas_worker *w)
{
    free(w->x);
    free(w->index);
    w->x = NULL;
    w->index = NULL;
    w->x_cap = w->index_cap = 0;
    cuplas_h5_buffers_free(&w->io);
}

/* A fitted grid's items: crop picks the rows to keep (x compacted to
 * them), pad adds empty items; j->label maps items to input rows. */
static int fit_items(job_ctx *j, cuplas_error *e)
{
    cuplas_h5grid *g = &j->g;
    int64_t n = g->nrows, cells = g->H * g->W;
    int rc = 0;

    if (!(j->label = malloc((size_t)cells * sizeof *j->label)))
        CUPLAS_FAIL(e, CUPLAS_ERR_NOMEM, "out of memory");
    if (j->job->crop) {
        double *v = malloc((size_t)n * sizeof *v);
        int col = j->job->crop_col;
        if (!v || !(j->dropped = malloc((size_t)(n - cells + 1) * sizeof *j->dropped))) {
            free(v);
            CUPLAS_FAIL(e, CUPLAS_ERR_NOMEM, "out of memory");
        }
        rc = cuplas_h5grid_to_double(g, &col, 1, v, j->pool, e);
        if (rc == 0 && cuplas_fit_crop_select(v, n, cells, j->label, j->dropped) != 0)
            rc = cuplas_error_set(e, CUPLAS_ERR_NOMEM, "out of memory");
        free(v);
        if (rc)
            goto fail;
        /* keep is ascending, so item k moves down from row label[k] >= k */
        for (int64_t k = 0; k < cells; k++)
            if (j->label[k] != k)
                memcpy(j->x + k * j->nuse, j->x + j->label[k] * j->nuse,
                       (size_t)j->nuse * sizeof *j->x);
        g->dropped = j->dropped;
        g->ndropped = n - cells;
    } else {
        if (!(j->empty = calloc((size_t)cells, 1)))
            CUPLAS_FAIL(e, CUPLAS_ERR_NOMEM, "out of memory");
        for (int64_t k = 0; k < cells; k++) {
            j->label[k] = k < n ? k : -1;
            j->empty[k] = k >= n;
        }
    }
    g->label = j->label;
fail:
    return rc;
}

/* prep: the sort's channels as normalised doubles, and the AND before. */
static int stage_prep(job_ctx *j, cuplas_error *e)
{
    const cuplas_config *cfg = j->r->cfg;
    const cuplas_job *job = j->job;
    cuplas_h5grid *g = &j->g;
    cuplas_worker *w = j->w;
    double t = cuplas_now_s();
    int64_t N = g->H * g->W, rows = cuplas_h5grid_rows(g), items = N < rows ? N : rows;
    int rc = 0;

    if (job->use) {   /* resolved by name while planning */
        if (!(j->use = malloc((size_t)job->nuse * sizeof *j->use)))
            CUPLAS_FAIL(e, CUPLAS_ERR_NOMEM, "out of memory");
        memcpy(j->use, job->use, (size_t)job->nuse * sizeof *j->use);
        j->nuse = job->nuse;
    } else {
        CUPLAS_TRY(cuplas_job_channels(cfg, g->C, &j->use, &j->nuse, e));
    }
    j->sort = cfg->sort;   /* a wide or small grid may take the preset's row for it */
    cuplas_sort_params_for_grid(&j->sort, j->nuse, N);
    size_t xn = (size_t)(N > rows ? N : rows) * (size_t)j->nuse;
    /* x is first written on the pool anyway; the index maybe not */
    if (!(j->x = w->x = grow(w->x, &w->x_cap, xn, sizeof *j->x, NULL)) ||
        !(j->index = w->index = grow(w->index, &w->index_cap, (size_t)N, sizeof *j->index,
                                     j->pool)))
        CUPLAS_FAIL(e, CUPLAS_ERR_NOMEM, "out of memory for a %lldx%lld grid", (long long)g->H,
                    (long long)g->W);
    CUPLAS_TRY(cuplas_h5grid_to_double(g, j->use, j->nuse, j->x, j->pool, e));
    if (g->nrows)
        CUPLAS_TRY(fit_items(j, e));
    /* statistics over the real items only: empty cells come after */
    cuplas_transform tf = {job->act, job->unit, job->group, cfg->channels.normalize,
                           cfg->channels.weights, job->sign};
    rc = cuplas_transform_apply(j->x, items, j->nuse, &tf, j->pool);
    if (rc == CUPLAS_ERR_INPUT) {   /* the first value that overflowed names its channel */
        int64_t i = 0;
        while (i < items * j->nuse - 1 && isfinite(j->x[i]))
            i++;
        int c = (int)(i % j->nuse);
        CUPLAS_FAIL(e, CUPLAS_ERR_INPUT, "channel %d times its weight %g exceeds the range of "
                    "double (%s normalisation); lower channels.weights", j->use[c],
                    cfg->channels.weights ? cfg->channels.weights[c] : 1.0,
                    cuplas_norm_name(cfg->channels.normalize));
    }
    if (rc)
        CUPLAS_FAIL(e, CUPLAS_ERR_NOMEM, "out of memory normalising a %lldx%lld grid",
                    (long long)g->H, (long long)g->W);
    if (j->empty) {
        cuplas_fit_pad_mean(j->x, items, N, j->nuse);
        j->res->and_before = cuplas_eval_and(j->x, g->H, g->W, j->nuse, j->empty);
    } else {
        j->res->and_before = cuplas_and(j->x, g->H, g->W, j->nuse, NULL, j->pool);
    }
    j->res->prep_s = cuplas_now_s() - t;
fail:
    return rc;
}

/* The stages in order; fills j->res->state on success, or e. */
static int run_stages(job_ctx *j, cuplas_error *e)
{
    int skip = 0, rc = 0;

    if (j->job->err.code) {
        *e = j->job->err;
        return (int)e->code;
    }
    CUPLAS_TRY(cuplas_stage_fits_device(j, e));
    CUPLAS_TRY(stage_read(j, &skip, e));
    if (skip) {
        j->res->state = CUPLAS_JOB_SKIPPED;
        return 0;
    }
    CUPLAS_TRY(stage_prep(j, e));
    if (j->w->gpu >= 0 && !j->gpu) {   /* the lane's context, made meanwhile */
        if (cuplas_lane_ready(j->r, j->w) != 0) {
            j->give_back = 1;
            return -1;
        }
        j->gpu = j->w->ctx;
    }
    CUPLAS_TRY(cuplas_stage_sort(j, e));
    cuplas_stage_eval(j);
    CUPLAS_TRY(cuplas_stage_sog(j, e));
    CUPLAS_TRY(cuplas_stage_write(j, e));
    cuplas_stage_publish_extras(j);
    j->res->state = CUPLAS_JOB_DONE;
fail:
    return rc;
}

int cuplas_job_run(cuplas_runner *r, int wi, struct cuplas_gpu_ctx *gpu, int i)
{
    cuplas_worker *w = &r->workers[wi];
    job_ctx j = {.r = r, .w = w, .gpu = gpu, .job = &r->jobs->v[i], .res = &r->results[i]};
    cuplas_job_result *res = j.res;
    cuplas_error e;
    double t0 = cuplas_now_s();

    cuplas_error_clear(&e);
    res->worker = wi;
    res->gpu = w->gpu;
    snprintf(res->backend, sizeof res->backend, "%s", w->gpu >= 0 ? "gpu" : "cpu");
    cuplas_log_event(r->log, CUPLAS_LOG_DEBUG, "job_start", NULL,
                     CUPLAS_LF_S("file", j.job->file), CUPLAS_LF_S("dataset", j.job->dataset),
                     CUPLAS_LF_I("gpu", w->gpu), NULL);
    if (run_stages(&j, &e) != 0 && !j.give_back) {
        res->err = e;
        res->state = e.code == CUPLAS_ERR_INTERRUPTED ? CUPLAS_JOB_CANCELLED : CUPLAS_JOB_FAILED;
    }
    free(j.use);   /* x and index belong to the worker */
    free(j.label);
    free(j.dropped);
    free(j.empty);
    cuplas_ply_close(&j.ply);
    free(j.eval_json);
    free(j.png.data);
    if (j.images_tmp) {   /* the job failed after its eval */
        cuplas_rm_tree(j.images_tmp);
        free(j.images_tmp);
    }
    if (j.sog_tmp) {   /* the job failed after its sog step */
        cuplas_rm_tree(j.sog_tmp);
        free(j.sog_tmp);
    }
    free(j.sog_attr);
    cuplas_sog_sh_free(&j.eval_sh);
    cuplas_h5grid_free(&j.g);   /* no HDF5 call: the grid holds none */
    if (j.give_back) {   /* this lane's GPU could not start: another lane's job */
        memset(res, 0, sizeof *res);
        res->worker = -1;
        res->gpu = -1;
        return -1;   /* the runner hands it to another lane */
    }
    res->total_s = cuplas_now_s() - t0;
    w->jobs++;
    w->sorted += res->state == CUPLAS_JOB_DONE;
    w->busy_s += res->total_s;
    log_result(r, j.job, res);
    return 0;
}
