/*
 * runner.c - the work queue: workers take jobs in list order and run
 * read -> channels -> double -> normalise -> sort -> write.
 *
 * Design facts: h5io is not thread-safe by contract, so every cuplas_h5_*
 * call that touches HDF5 runs on the one HDF5 thread (h5exec.c), while
 * chunk (de)compression, conversion, normalisation, metrics, the sort,
 * fsync and rename run on the lanes (one sorts while another reads).
 * A job's result record is written only by the worker that took the job;
 * the queue head is the only shared counter. Nothing here calls exit():
 * a failure ends its job, a signal ends the queue.
 *
 *   queue:  [ job0 | job1 | job2 | ... ]   next ->   (largest grid first)
 *              ^gpu0/lane1  ^gpu1/lane0 ...  one host thread per worker
 *   workers: the CPU worker, or per GPU (one OpenMP thread) its lanes
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include "cuplas_build.h"
#include "pipeline/runner.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "util/clock.h"
#include "util/fsutil.h"
#include "io/h5_thread.h"
#include "io/h5io.h"
#include "core/metrics.h"
#include "core/quantize.h"
#include "sort/sort.h"
#include "util/threads.h"
#ifdef HAVE_CUDA
#include "cuda/sort_gpu.h"
#endif

#define LINE_LEN 2048

/* ---------------------------------------------------------------- helpers */

/* Threads of the GPU lanes' host pool: backend.threads, else the OpenMP
 * default (OMP_NUM_THREADS, else every core this process may run on). */
static int host_threads(const cuplas_config *cfg)
{
    return cfg->backend.threads > 0 ? cfg->backend.threads : cuplas_max_threads();
}

/* "model name" of /proc/cpuinfo (x86) or a plain fallback. */
static void cpu_model(char *buf, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];

    snprintf(buf, size, "cpu");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) || !colon)
            continue;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        colon[strcspn(colon, "\n")] = '\0';
        if (*colon)
            snprintf(buf, size, "%s", colon);
        break;
    }
    fclose(f);
}

/* mkdir -p, then check that files can be created there. */
static int ensure_dir(const char *dir, cuplas_error *err)
{
    struct stat st;
    int rc = 0;

    CUPLAS_TRY(cuplas_mkdir_p(dir, err));
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "output folder %s is not a directory", dir);
    if (access(dir, W_OK | X_OK) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "output folder %s is not writable: %s", dir,
                    strerror(errno));
fail:
    return rc;
}

const char *cuplas_job_state_name(cuplas_job_state s)
{
    switch (s) {
    case CUPLAS_JOB_PENDING: return "pending";
    case CUPLAS_JOB_DONE: return "done";
    case CUPLAS_JOB_SKIPPED: return "skipped";
    case CUPLAS_JOB_FAILED: return "failed";
    case CUPLAS_JOB_CANCELLED: return "cancelled";
    }
    return "?";
}

/* ------------------------------------------------------------- logging */

static void log_failure(cuplas_runner *r, const cuplas_job *job, const cuplas_job_result *res)
{
    char line[LINE_LEN], text[LINE_LEN + 32];
    cuplas_job_error_line(r->jobs, job, &res->err, line, sizeof line);
    snprintf(text, sizeof text, "cuplas: error: %s", line);
    cuplas_log_event(r->log, CUPLAS_LOG_ERROR, "job_failed", text,
                     CUPLAS_LF_S("file", job->file),
                     CUPLAS_LF_S("dataset", job->dataset ? job->dataset : ""),
                     CUPLAS_LF_S("output", job->output ? job->output : ""),
                     CUPLAS_LF_S("code", cuplas_status_name(res->err.code)),
                     CUPLAS_LF_S("error", line), CUPLAS_LF_I("config_line", job->line), NULL);
}

static void log_result(cuplas_runner *r, const cuplas_job *job, const cuplas_job_result *res)
{
    char text[LINE_LEN];
    const char *dev = res->worker >= 0 ? r->workers[res->worker].name : "";

    switch (res->state) {
    case CUPLAS_JOB_DONE:
        snprintf(text, sizeof text, "cuplas: done %s:%s -> %s (%s, %.2f s, AND %.6g -> %.6g)",
                 job->file, job->dataset, job->output, res->backend, res->total_s,
                 res->and_before, res->and_after);
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
                         CUPLAS_LF_D("and_before", res->and_before),
                         CUPLAS_LF_D("and_after", res->and_after),
                         CUPLAS_LF_I("levels", res->stats.levels),
                         CUPLAS_LF_I("passes", res->stats.passes),
                         CUPLAS_LF_D("gpu_h2d_ms", res->stats.h2d_ms),
                         CUPLAS_LF_D("gpu_sort_ms", res->stats.device_ms),
                         CUPLAS_LF_D("gpu_d2h_ms", res->stats.d2h_ms), NULL);
        break;
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
        log_failure(r, job, res);
        break;
    case CUPLAS_JOB_PENDING:
        break;
    }
}

/* ----------------------------------------------------------------- a job */

/* Take the next pending job; -1 when the queue is empty or cancelled. */
static int take_job(cuplas_runner *r)
{
    int i = -1;
    cuplas_lock_take(&r->queue_lock);
    while (!r->cancel && r->next < r->jobs->n) {
        int k = r->next++;
        if (r->results[k].state == CUPLAS_JOB_PENDING) {
            i = k;
            break;
        }
    }
    cuplas_lock_give(&r->queue_lock);
    return i;
}

/*
 * The overwrite policy, on the HDF5 thread (a complete output is checked by
 * reading its attributes). Returns 0 and *skip = 1 when a complete output
 * with this identity exists.
 */
static int check_output(cuplas_runner *r, const cuplas_job *job, int *skip, cuplas_error *e)
{
    struct stat st;
    int rc = 0;

    *skip = 0;
    if (stat(job->output, &st) == 0) {
        if (r->cfg->output.overwrite == CUPLAS_OVERWRITE_SKIP &&
            cuplas_h5_output_complete(job->output, job->dataset, job->identity)) {
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

/* The output's folder: created if missing, and writable. */
static int output_dir(const cuplas_job *job, cuplas_error *e)
{
    char *dir = cuplas_path_dir(job->output);
    int rc = dir ? ensure_dir(dir, e) : cuplas_error_set(e, CUPLAS_ERR_NOMEM, "out of memory");
    free(dir);
    return rc;
}

/* On the HDF5 thread: keep the current input file open between jobs, so
 * that each job's own open finds it open (no superblock or root group to
 * read again). NULL closes it. */
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

/* One HDF5 step of a job, run on the HDF5 thread (h5_do). */
typedef enum { STEP_READ, STEP_CONVERT, STEP_WRITE, STEP_FREE } step_kind;

typedef struct h5_step {
    step_kind kind;
    cuplas_runner *r;
    const cuplas_job *job;
    cuplas_h5grid *g;
    cuplas_h5_fetch **fetch;          /* READ                          */
    cuplas_h5_buffers *io;            /* READ: the lane's lent memory    */
    int *skip;                        /* READ: complete output found   */
    const int *use;                   /* CONVERT                       */
    int nuse;
    double *x;
    cuplas_h5_encoded *enc;           /* WRITE                         */
    const cuplas_result_meta *meta;
    const char *tmp;
    cuplas_error *e;
    int rc;
} h5_step;

static void step_run(void *p)
{
    h5_step *s = p;
    const cuplas_job *job = s->job;

    switch (s->kind) {
    case STEP_READ:
        pin_input(s->r, job->file);
        s->rc = check_output(s->r, job, s->skip, s->e);
        if (s->rc == 0 && !*s->skip)
            s->rc = cuplas_h5_read_begin(job->file, job->dataset, job->height, job->width, s->g,
                                         s->fetch, s->io, s->e);
        break;
    case STEP_CONVERT:   /* non-native types: HDF5 converts them */
        s->rc = cuplas_h5grid_to_double(s->g, s->use, s->nuse, s->x, NULL, s->e);
        break;
    case STEP_WRITE:
        s->rc = cuplas_h5_write_encoded_to(s->tmp, s->g, s->enc, s->meta, s->e);
        cuplas_h5grid_free(s->g);   /* its H5Tclose here, not in one more step */
        break;
    case STEP_FREE:
        cuplas_h5grid_free(s->g);
        break;
    }
}

/* The pool for a grid of `bytes` (GPU lanes only): a small grid's loops
 * run on its lane alone. Posting them would wake pool threads for a few
 * microseconds of work each, thousands of times a second, and slow the
 * HDF5 thread that small grids are bound by. */
#define POOL_MIN_BYTES ((size_t)4 << 20)
static cuplas_pool *job_pool(const cuplas_runner *r, size_t bytes)
{
    return bytes >= POOL_MIN_BYTES ? r->pool : NULL;
}

/* Run s on the HDF5 thread; the job's time queued and in HDF5 add up. */
static int h5_do(cuplas_runner *r, cuplas_job_result *res, h5_step *s)
{
    double wait = 0, run = 0;
    cuplas_h5exec_run(r->h5, step_run, s, &wait, &run);
    res->h5_wait_s += wait;
    res->h5_s += run;
    return s->rc;
}

#ifdef HAVE_CUDA
static void release_workspace(void *ctx) { cuplas_gpu_release((cuplas_gpu_ctx *)ctx); }
#endif

/* Reserve the device memory of a grid on this lane's GPU (waits for other
 * lanes if needed). Fails with CUPLAS_ERR_CUDA when no lane could ever fit
 * it, so cpu_fallback applies. */
static int admit(cuplas_runner *r, cuplas_worker *w, struct cuplas_gpu_ctx *gpu, int64_t H,
                 int64_t W, int C, cuplas_error *e)
{
    size_t limit = (size_t)r->cfg->backend.memory_limit_mb << 20;
    if (!gpu) {
        /* features in double, three int16 grids and the index */
        size_t need = (size_t)(H * W) * (8 * (size_t)C + 6 * cuplas_padded_channels(C) + 16);
        if (limit && need > limit)
            return cuplas_error_set(e, CUPLAS_ERR_NOMEM, "needs %.0f MiB on the CPU, over "
                                    "backend.memory_limit_mb = %d", need / 1048576.0,
                                    r->cfg->backend.memory_limit_mb);
        return 0;
    }
#ifdef HAVE_CUDA
    size_t need = cuplas_sort_gpu_bytes(H, W, cuplas_padded_channels(C));
    cuplas_devgate *gate = &r->gates[w->dev];
    if (cuplas_devgate_acquire(gate, &w->held, need, release_workspace, gpu) != 0)
        return cuplas_error_set(e, CUPLAS_ERR_CUDA, "does not fit GPU %d: needs %.2f GiB, "
                                "%.2f GiB usable", w->gpu, need / 1073741824.0,
                                gate->budget / 1073741824.0);
#else
    (void)r, (void)w, (void)gpu, (void)H, (void)W, (void)C, (void)e;
#endif
    return 0;
}

static void after_sort(cuplas_runner *r, cuplas_worker *w, struct cuplas_gpu_ctx *gpu)
{
#ifdef HAVE_CUDA
    if (gpu)
        cuplas_devgate_after(&r->gates[w->dev], &w->held, release_workspace, gpu);
#else
    (void)r, (void)w, (void)gpu;
#endif
}

/* *buf with room for n elements of size es, reusing it when big enough. */
static void *grow(void *buf, size_t *cap, size_t n, size_t es)
{
    if (n <= *cap)
        return buf;
    free(buf);
    *cap = 0;
    if (!(buf = malloc(n * es)))
        return NULL;
    *cap = n;
    return buf;
}

static void worker_buffers_free(cuplas_worker *w)
{
    free(w->x);
    free(w->index);
    w->x = NULL;
    w->index = NULL;
    w->x_cap = w->index_cap = 0;
    cuplas_h5_buffers_free(&w->io);
}

/* Everything a job does; fills res (state on success) or e. */
static int job_body(cuplas_runner *r, cuplas_worker *w, struct cuplas_gpu_ctx *gpu,
                    const cuplas_job *job, cuplas_job_result *res, cuplas_error *e)
{
    const cuplas_config *cfg = r->cfg;
    cuplas_h5grid g;
    double *x = NULL, t;
    int64_t *index = NULL, N;
    int *use = NULL, nuse = 0, skip = 0, rc = 0;
    char *params = NULL, device[256];
    cuplas_h5_fetch *fetch = NULL;
    cuplas_h5_encoded *enc = NULL;
    cuplas_pool *pool = NULL;   /* this grid's host loops */
    char *tmp = NULL;
    h5_step step = {.r = r, .job = job, .g = &g, .e = e};

    memset(&g, 0, sizeof g);
    g.file_type = -1;
    if (job->err.code) {
        *e = job->err;
        return (int)e->code;
    }

    t = cuplas_now_s();
    step.kind = STEP_READ;
    step.fetch = &fetch;
    step.io = &w->io;
    step.skip = &skip;
    rc = h5_do(r, res, &step);
    /* inflating and unshuffling the chunks needs no HDF5 call */
    if (rc == 0 && !skip) {
        pool = job_pool(r, (size_t)(g.H * g.W * g.C) * g.elem_size);
        rc = cuplas_h5_read_finish(&g, fetch, pool, e);
    }
    if (rc == 0 && !skip)
        rc = output_dir(job, e);
    if (rc)
        goto fail;
    if (skip) {
        res->state = CUPLAS_JOB_SKIPPED;
        return 0;
    }
    /* the identity (and the plan) describe the file as it was probed */
    if (g.H != job->H || g.W != job->W || g.C != job->C || strcmp(g.dtype, job->dtype))
        CUPLAS_FAIL(e, CUPLAS_ERR_INPUT, "the dataset changed since the job was planned");
    res->read_s = cuplas_now_s() - t;

    t = cuplas_now_s();
    N = g.H * g.W;
    CUPLAS_TRY(cuplas_job_channels(cfg, g.C, &use, &nuse, e));
    if (!(x = w->x = grow(w->x, &w->x_cap, (size_t)N * (size_t)nuse, sizeof *x)) ||
        !(index = w->index = grow(w->index, &w->index_cap, (size_t)N, sizeof *index)))
        CUPLAS_FAIL(e, CUPLAS_ERR_NOMEM, "out of memory for a %lldx%lld grid", (long long)g.H,
                    (long long)g.W);
    if (g.native) {
        CUPLAS_TRY(cuplas_h5grid_to_double(&g, use, nuse, x, pool, e));
    } else {   /* HDF5 converts the other types itself */
        step.kind = STEP_CONVERT;
        step.use = use;
        step.nuse = nuse;
        step.x = x;
        CUPLAS_TRY(h5_do(r, res, &step));
    }
    if (cuplas_features_normalize(x, N, nuse, cfg->channels.normalize, cfg->channels.weights,
                                  pool))
        CUPLAS_FAIL(e, CUPLAS_ERR_NOMEM, "out of memory normalising a %lldx%lld grid",
                    (long long)g.H, (long long)g.W);
    res->and_before = cuplas_and(x, g.H, g.W, nuse, NULL, pool);
    res->prep_s = cuplas_now_s() - t;

    t = cuplas_now_s();
    cuplas_sort_target target = {gpu, &r->cancel, pool};
    rc = admit(r, w, gpu, g.H, g.W, nuse, e);
    if (rc == 0) {
        rc = cuplas_sort_features(x, g.H, g.W, nuse, &cfg->sort, &target, index, &res->stats, e);
        after_sort(r, w, gpu);
    }
    if (rc == CUPLAS_ERR_CUDA && gpu && cfg->backend.cpu_fallback) {
        char line[LINE_LEN], text[LINE_LEN + 64];
        cuplas_job_error_line(r->jobs, job, e, line, sizeof line);
        snprintf(text, sizeof text, "cuplas: warning: %s; retrying on the CPU", line);
        cuplas_log_event(r->log, CUPLAS_LOG_WARN, "gpu_fallback", text,
                         CUPLAS_LF_S("file", job->file), CUPLAS_LF_S("dataset", job->dataset),
                         CUPLAS_LF_S("error", e->msg), NULL);
        cuplas_error_clear(e);
        gpu = NULL;
        target.gpu = NULL;
        rc = admit(r, w, NULL, g.H, g.W, nuse, e);
        cuplas_set_threads(r->fallback_threads);   /* the lane's share of the cores */
        if (rc == 0)
            rc = cuplas_sort_features(x, g.H, g.W, nuse, &cfg->sort, &target, index,
                                      &res->stats, e);
        cuplas_set_threads(1);
    }
    if (rc)
        goto fail;
    snprintf(res->backend, sizeof res->backend, "%s", gpu ? "gpu" : "cpu");
    if (gpu) {
        w->gpu_ms += res->stats.h2d_ms + res->stats.device_ms + res->stats.d2h_ms;
        w->bytes += (double)(g.H * g.W) * (cuplas_padded_channels(nuse) * 2 + 4);
    }
    res->sort_s = cuplas_now_s() - t;
    t = cuplas_now_s();
    res->and_after = cuplas_and(x, g.H, g.W, nuse, index, pool);
    if (gpu)
        snprintf(device, sizeof device, "%s", w->name);
    else
        snprintf(device, sizeof device, "%s (%d threads)", r->cpu_name, cuplas_max_threads());
    if (!(params = cuplas_config_params_to_yaml(cfg)))
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
    };
    /* gather, shuffle and deflate here; on the HDF5 thread, the file's
       metadata and (compressed) chunks; uncompressed data, fsync and
       rename here again */
    CUPLAS_TRY(cuplas_h5_encode_result(&g, index, &cfg->output, &w->io, pool, &enc, e));
    res->encode_s = cuplas_now_s() - t;
    if (!(tmp = cuplas_tmp_create(job->output, e))) {
        rc = e->code ? (int)e->code : CUPLAS_ERR_OUTPUT;
    } else {
        step.kind = STEP_WRITE;
        step.enc = enc;
        step.meta = &meta;
        step.tmp = tmp;
        if ((rc = h5_do(r, res, &step)) == 0)
            rc = cuplas_h5_write_raw(tmp, enc, pool, e);
        if (rc == 0)
            rc = cuplas_tmp_publish(tmp, job->output, cfg->output.fsync, e);
        if (rc)
            unlink(tmp);
    }
    if (rc) {
        cuplas_error_where(e, "%s:%s", job->output, job->dataset);
        goto fail;
    }
    res->write_s = cuplas_now_s() - t;
    res->state = CUPLAS_JOB_DONE;
fail:
    free(tmp);
    cuplas_h5_encoded_free(enc);
    free(params);
    free(use);   /* x and index belong to the worker */
    if (g.file || g.raw) {
        /* H5Tclose of the grid's copied type is an HDF5 call */
        step.kind = STEP_FREE;
        h5_do(r, res, &step);
    }
    return rc;
}

/* "[#####.....] 12/64 datasets, 3.1 grids/s, ETA 17 s" on a terminal. */
static void progress(cuplas_runner *r)
{
    char bar[21], text[160];
    cuplas_lock_take(&r->queue_lock);
    int done = ++r->finished, n = r->jobs->n;
    cuplas_lock_give(&r->queue_lock);
    double el = cuplas_now_s() - r->t_start, rate = el > 0 ? done / el : 0;
    int fill = n ? 20 * done / n : 20;
    for (int k = 0; k < 20; k++)
        bar[k] = k < fill ? '#' : '.';
    bar[20] = 0;
    snprintf(text, sizeof text, "cuplas: [%s] %d/%d datasets, %.2f grids/s, ETA %.0f s", bar,
             done, n, rate, rate > 0 ? (n - done) / rate : 0.0);
    cuplas_log_progress(r->log, text);
}

static void run_job(cuplas_runner *r, int wi, struct cuplas_gpu_ctx *gpu, int i)
{
    const cuplas_job *job = &r->jobs->v[i];
    cuplas_job_result *res = &r->results[i];
    cuplas_worker *w = &r->workers[wi];
    cuplas_error e;
    double t0 = cuplas_now_s();

    cuplas_error_clear(&e);
    res->worker = wi;
    res->gpu = w->gpu;
    snprintf(res->backend, sizeof res->backend, "%s", w->gpu >= 0 ? "gpu" : "cpu");
    cuplas_log_event(r->log, CUPLAS_LOG_DEBUG, "job_start", NULL,
                     CUPLAS_LF_S("file", job->file), CUPLAS_LF_S("dataset", job->dataset),
                     CUPLAS_LF_I("gpu", w->gpu), NULL);
    if (job_body(r, w, gpu, job, res, &e) != 0) {
        res->err = e;
        res->state = e.code == CUPLAS_ERR_INTERRUPTED ? CUPLAS_JOB_CANCELLED : CUPLAS_JOB_FAILED;
    }
    res->total_s = cuplas_now_s() - t0;
    w->jobs++;
    w->busy_s += res->total_s;
    log_result(r, job, res);
    progress(r);
}

/* ------------------------------------------------------------- workers */

static void cpu_worker(cuplas_runner *r, int wi)
{
    int i;
    cuplas_h5_quiet();
    while ((i = take_job(r)) >= 0)
        run_job(r, wi, NULL, i);
    worker_buffers_free(&r->workers[wi]);
}

#ifdef HAVE_CUDA
static void gpu_worker(cuplas_runner *r, int wi, cuplas_gpu_order *order)
{
    cuplas_worker *w = &r->workers[wi];
    cuplas_gpu_ctx *ctx = NULL;
    int i;

    char tname[16];
    snprintf(tname, sizeof tname, "cuplas-g%d.%d", w->gpu, w->lane);
    pthread_setname_np(pthread_self(), tname);
    cuplas_h5_quiet();
    if (cuplas_gpu_ctx_init(&ctx, w->gpu, &w->err) != 0) {
        char buf[1100], text[1200];
        snprintf(text, sizeof text, "cuplas: error: %s (this GPU takes no jobs)",
                 cuplas_error_format(&w->err, buf, sizeof buf));
        cuplas_log_event(r->log, CUPLAS_LOG_ERROR, "worker_failed", text,
                         CUPLAS_LF_I("gpu", w->gpu), CUPLAS_LF_S("error", w->err.msg), NULL);
        return;
    }
    snprintf(w->name, sizeof w->name, "%s", cuplas_gpu_name(ctx));
    cuplas_gpu_ctx_set_order(ctx, order);
    while ((i = take_job(r)) >= 0)
        run_job(r, wi, ctx, i);
    worker_buffers_free(w);
    cuplas_gpu_ctx_free(ctx);
    cuplas_devgate_leave(&r->gates[w->dev], &w->held);
}

/* The thread that owns GPU number dev: sizes its memory budget, then runs
 * its lanes as nested threads. Large grids' host loops run on the
 * runner's pool, small grids' on their lane alone (one OpenMP thread: a
 * team of a few threads per microsecond loop costs more than it saves);
 * a sort that falls back to the CPU gets the lane's share of the cores. */
static void gpu_device(cuplas_runner *r, int dev)
{
    size_t fr = 0, tot = 0;
    int first = dev * r->lanes, gpu = r->workers[first].gpu;
    cuplas_gpu_ctx *probe = NULL;
    cuplas_gpu_order *order = NULL;   /* without one, sorts interleave */
    cuplas_error e;

    cuplas_error_clear(&e);
    if (cuplas_gpu_ctx_init(&probe, gpu, &e) == 0) {
        cuplas_gpu_mem_info(probe, &fr, &tot);
        cuplas_gpu_ctx_free(probe);
        cuplas_gpu_order_create(&order, gpu, &e);
    }
    /* leave room for the lanes' CUDA contexts and the runtime */
    r->gates[dev].budget = fr > ((size_t)1 << 30) ? (fr - ((size_t)1 << 29)) / 10 * 9 : fr / 2;
    if (r->cfg->backend.memory_limit_mb > 0 &&
        ((size_t)r->cfg->backend.memory_limit_mb << 20) < r->gates[dev].budget)
        r->gates[dev].budget = (size_t)r->cfg->backend.memory_limit_mb << 20;
#ifdef _OPENMP
    #pragma omp parallel num_threads(r->lanes)
    {
        omp_set_num_threads(1);
        gpu_worker(r, first + omp_get_thread_num(), order);
    }
#else
    for (int k = 0; k < r->lanes; k++) /* no OpenMP: lanes take turns */
        gpu_worker(r, first + k, order);
#endif
    cuplas_gpu_order_free(order);
}
#endif

/* ------------------------------------------------------------ public API */

int cuplas_runner_init(cuplas_runner *r, const cuplas_config *cfg, const cuplas_jobs *jobs,
                       cuplas_log *log, cuplas_error *err)
{
    const cuplas_backend_opts *b = &cfg->backend;
    int ngpu = 0, rc = 0;

    memset(r, 0, sizeof *r);
    r->cfg = cfg;
    r->jobs = jobs;
    r->log = log;
    cuplas_lock_init(&r->queue_lock);
    if (!(r->results = calloc((size_t)jobs->n + 1, sizeof *r->results)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < jobs->n; i++) {
        r->results[i].worker = -1;
        r->results[i].gpu = -1;
    }
    if (b->threads > 0)
        cuplas_set_threads(b->threads);
    cpu_model(r->cpu_name, sizeof r->cpu_name);
    cuplas_h5_tune();

#ifdef HAVE_CUDA
    ngpu = cuplas_gpu_count();
#endif
    r->use_gpu = b->device == CUPLAS_DEVICE_GPU || (b->device == CUPLAS_DEVICE_AUTO && ngpu > 0);
    if (r->use_gpu && ngpu == 0) {
#ifdef HAVE_CUDA
        CUPLAS_FAIL(err, CUPLAS_ERR_NODEVICE, "backend.device: gpu, but no usable GPU is "
                    "visible (check CUDA_VISIBLE_DEVICES and the driver), or set "
                    "backend.device: cpu");
#else
        CUPLAS_FAIL(err, CUPLAS_ERR_NODEVICE, "backend.device: gpu, but this cuplas was "
                    "built without CUDA; set backend.device: cpu");
#endif
    }
    r->ndev = r->use_gpu ? (b->ngpus ? b->ngpus : ngpu) : 0;
    r->lanes = r->use_gpu ? b->lanes : 1;
    r->nworkers = r->use_gpu ? r->ndev * r->lanes : 1;
    if (!(r->workers = calloc((size_t)r->nworkers, sizeof *r->workers)) ||
        !(r->gates = calloc((size_t)r->ndev + 1, sizeof *r->gates)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int d = 0; d < r->ndev; d++)
        cuplas_devgate_init(&r->gates[d], 0);
    for (int k = 0; k < r->nworkers; k++) {
        cuplas_worker *w = &r->workers[k];
        w->dev = r->use_gpu ? k / r->lanes : 0;
        w->lane = r->use_gpu ? k % r->lanes : 0;
        w->gpu = r->use_gpu ? (b->ngpus ? b->gpus[w->dev] : w->dev) : -1;
        if (w->gpu >= ngpu && r->use_gpu)
            CUPLAS_FAIL(err, CUPLAS_ERR_NODEVICE, "backend.gpus: GPU %d is not visible "
                        "(%d GPU%s visible)", w->gpu, ngpu, ngpu == 1 ? "" : "s");
        if (w->gpu >= 0)
            snprintf(w->name, sizeof w->name, "gpu %d", w->gpu);
        else
            snprintf(w->name, sizeof w->name, "%s (%d threads)", r->cpu_name, cuplas_max_threads());
    }
    return 0;
fail:
    cuplas_runner_free(r);
    return rc;
}

int cuplas_runner_run(cuplas_runner *r, cuplas_error *err)
{
    double t0 = cuplas_now_s();
    r->t_start = t0;
    int rc = 0, started = 0;
    char text[512];

    r->pin_id = -1;
    if (cuplas_h5exec_start(&r->h5, err) != 0)
        return (int)err->code;
    snprintf(text, sizeof text, "cuplas: %d job%s on %s%s", r->jobs->n,
             r->jobs->n == 1 ? "" : "s", r->use_gpu ? "" : "the CPU: ",
             r->use_gpu ? "GPUs" : r->workers[0].name);
    if (r->use_gpu) {
        size_t len = strlen(text);
        for (int k = 0; k < r->nworkers && len < sizeof text - 8; k++)
            len += (size_t)snprintf(text + len, sizeof text - len, "%s%d", k ? "," : " ",
                                    r->workers[k].gpu);
    }
    cuplas_log_event(r->log, CUPLAS_LOG_INFO, "run_start", text,
                     CUPLAS_LF_I("jobs", r->jobs->n),
                     CUPLAS_LF_S("backend", r->use_gpu ? "gpu" : "cpu"),
                     CUPLAS_LF_I("workers", r->nworkers), NULL);

    /* jobs that failed while planning are reported first, in list order */
    for (int i = 0; i < r->jobs->n; i++) {
        if (!r->jobs->v[i].err.code)
            continue;
        r->results[i].state = CUPLAS_JOB_FAILED;
        r->results[i].err = r->jobs->v[i].err;
        log_failure(r, &r->jobs->v[i], &r->results[i]);
    }

    if (!r->use_gpu) {
        cpu_worker(r, 0);
        started = 1;
    }
#ifdef HAVE_CUDA
    else if (cuplas_pool_create(host_threads(r->cfg), &r->pool, err) != 0) {
        rc = (int)err->code;
    } else {
#ifdef _OPENMP
        int share = omp_get_num_procs() / (r->ndev * r->lanes);
        r->fallback_threads = share > 1 ? share : 1;
        omp_set_max_active_levels(3);
        #pragma omp parallel num_threads(r->ndev)
        {
            /* fewer threads than asked (OMP_THREAD_LIMIT): serve the rest in turn */
            for (int d = omp_get_thread_num(); d < r->ndev; d += omp_get_num_threads())
                gpu_device(r, d);
        }
#else
        for (int d = 0; d < r->ndev; d++)
            gpu_device(r, d);
#endif
        for (int k = 0; k < r->nworkers; k++)
            started |= r->workers[k].err.code == CUPLAS_OK;
        cuplas_pool_free(r->pool);
        r->pool = NULL;
    }
#endif
    cuplas_h5exec_run(r->h5, unpin_task, r, NULL, NULL);
    cuplas_h5exec_stop(r->h5);
    r->h5 = NULL;
    r->wall_s = cuplas_now_s() - t0;
    if (!started && rc == 0) {
        *err = r->workers[0].err;
        rc = err->code ? (int)err->code : CUPLAS_ERR_NODEVICE;
    }
    return rc;
}

void cuplas_runner_summary(cuplas_runner *r)
{
    int n[5] = {0};
    char text[LINE_LEN + 64], line[LINE_LEN];

    for (int i = 0; i < r->jobs->n; i++)
        n[r->results[i].state]++;
    snprintf(text, sizeof text, "cuplas: summary: %d done, %d skipped, %d failed%s in %.2f s",
             n[CUPLAS_JOB_DONE], n[CUPLAS_JOB_SKIPPED], n[CUPLAS_JOB_FAILED],
             r->cancel ? ", interrupted" : "", r->wall_s);
    if (n[CUPLAS_JOB_CANCELLED] + n[CUPLAS_JOB_PENDING]) {
        size_t len = strlen(text);
        snprintf(text + len, sizeof text - len, "; %d not finished",
                 n[CUPLAS_JOB_CANCELLED] + n[CUPLAS_JOB_PENDING]);
    }
    cuplas_log_event(r->log, CUPLAS_LOG_ERROR, "summary", text,
                     CUPLAS_LF_I("done", n[CUPLAS_JOB_DONE]),
                     CUPLAS_LF_I("skipped", n[CUPLAS_JOB_SKIPPED]),
                     CUPLAS_LF_I("failed", n[CUPLAS_JOB_FAILED]),
                     CUPLAS_LF_I("not_finished", n[CUPLAS_JOB_CANCELLED] + n[CUPLAS_JOB_PENDING]),
                     CUPLAS_LF_I("interrupted", r->cancel != 0),
                     CUPLAS_LF_D("seconds", r->wall_s), NULL);
    /* one line per device: its lanes added up */
    for (int d = 0; d < (r->use_gpu ? r->ndev : 1); d++) {
        const cuplas_worker *w0 = &r->workers[d * r->lanes];
        int jobs = 0;
        double busy = 0, gpu_ms = 0, bytes = 0;
        for (int k = d * r->lanes; k < (d + 1) * r->lanes && k < r->nworkers; k++) {
            jobs += r->workers[k].jobs;
            busy += r->workers[k].busy_s;
            gpu_ms += r->workers[k].gpu_ms;
            bytes += r->workers[k].bytes;
        }
        double rate = r->wall_s > 0 ? jobs / r->wall_s : 0;
        if (w0->gpu >= 0)
            snprintf(text, sizeof text, "cuplas:   gpu %d %s: %d job%s, %.2f grids/s, GPU busy "
                     "%.2f s (%.0f%%) over %d lanes, %.2f GiB host<->device", w0->gpu, w0->name,
                     jobs, jobs == 1 ? "" : "s", rate, gpu_ms / 1e3,
                     r->wall_s > 0 ? gpu_ms / 10.0 / r->wall_s : 0.0, r->lanes, bytes / 1073741824.0);
        else
            snprintf(text, sizeof text, "cuplas:   cpu %s: %d job%s, %.2f grids/s, busy %.2f s (%.0f%%)",
                     w0->name, jobs, jobs == 1 ? "" : "s", rate, busy,
                     r->wall_s > 0 ? 100.0 * busy / r->wall_s : 0.0);
        cuplas_log_event(r->log, CUPLAS_LOG_ERROR, "device_summary", text,
                         CUPLAS_LF_S("backend", w0->gpu >= 0 ? "gpu" : "cpu"),
                         CUPLAS_LF_I("gpu", w0->gpu), CUPLAS_LF_S("device", w0->name),
                         CUPLAS_LF_I("jobs", jobs), CUPLAS_LF_I("lanes", r->lanes),
                         CUPLAS_LF_D("grids_per_s", rate), CUPLAS_LF_D("busy_s", busy),
                         CUPLAS_LF_D("gpu_busy_s", gpu_ms / 1e3),
                         CUPLAS_LF_D("bytes_moved", bytes), NULL);
    }
    for (int i = 0; i < r->jobs->n; i++) {
        const cuplas_job *job = &r->jobs->v[i];
        if (r->results[i].state != CUPLAS_JOB_FAILED)
            continue;
        cuplas_job_error_line(r->jobs, job, &r->results[i].err, line, sizeof line);
        snprintf(text, sizeof text, "cuplas:   failed: %s", line);
        cuplas_log_event(r->log, CUPLAS_LOG_ERROR, "failure", text,
                         CUPLAS_LF_S("file", job->file),
                         CUPLAS_LF_S("dataset", job->dataset ? job->dataset : ""),
                         CUPLAS_LF_S("error", line), NULL);
    }
}

int cuplas_runner_exit_code(const cuplas_runner *r)
{
    int failed = 0, unfinished = 0;
    for (int i = 0; i < r->jobs->n; i++) {
        failed |= r->results[i].state == CUPLAS_JOB_FAILED;
        unfinished |= r->results[i].state == CUPLAS_JOB_CANCELLED ||
                      r->results[i].state == CUPLAS_JOB_PENDING;
    }
    /* interrupted wins: a rerun resumes, and then reports the failures */
    if (r->cancel && unfinished)
        return CUPLAS_EXIT_INTERRUPTED;
    return failed ? CUPLAS_EXIT_JOBS_FAILED : CUPLAS_EXIT_OK;
}

void cuplas_runner_free(cuplas_runner *r)
{
    if (!r->jobs)
        return;
    free(r->results);
    free(r->workers);
    for (int d = 0; r->gates && d < r->ndev; d++)
        cuplas_devgate_free(&r->gates[d]);
    free(r->gates);
    r->gates = NULL;
    cuplas_lock_free(&r->queue_lock);
    r->results = NULL;
    r->workers = NULL;
    r->jobs = NULL;
}
