/*
 * runner.c - the work queue and the thread topology: workers take jobs in
 * list order and run each through its stages (stages.c: read -> prep ->
 * sort -> write).
 *
 * Design facts: the HDF5 library is not thread-safe, so the run starts one
 * HDF5 thread (h5_thread.c) that makes every HDF5 call of the jobs, while
 * the lanes do everything else (one sorts while another reads). A job's
 * result record is written only by the worker that took the job; the
 * queue head is the only shared counter. Nothing here calls exit(): a
 * failure ends its job, a signal ends the queue.
 *
 *   queue:  [ job0 | job1 | job2 | ... ]   next ->   (largest grid first)
 *              ^gpu0/lane1  ^gpu1/lane0 ...  one host thread per worker
 *   workers: the CPU worker, or per GPU (one OpenMP thread) its lanes
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include "cuplas_build.h"
#include "pipeline/runner.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "io/h5_lib.h"
#include "io/h5_thread.h"
#include "io/publish.h"
#include "pipeline/gpu_warm.h"
#include "pipeline/lane_init.h"
#include "pipeline/progress.h"
#include "pipeline/stages.h"
#include "util/clock.h"
#include "util/threads.h"
#ifdef HAVE_CUDA
#include "cuda/sort_gpu.h"
#endif


/* ---------------------------------------------------------------- helpers */

#ifdef HAVE_CUDA
/* Threads of the GPU lanes' host pool: backend.threads, else the OpenMP
 * default (OMP_NUM_THREADS, else every core this process may run on). */
static int host_threads(const cuplas_config *cfg)
{
    return cfg->backend.threads > 0 ? cfg->backend.threads : cuplas_max_threads();
}
#endif

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

/* ------------------------------------------------------------------ queue */

/* A job a lane gave back (its GPU failed to start), or -1; under lane_mu. */
static int given_back(cuplas_runner *r)
{
    return r->ngiven_back > 0 && !r->cancel ? r->given_back[--r->ngiven_back] : -1;
}

/* Take the next pending job; -1 when the queue is empty or cancelled. A
 * lane whose GPU start-up failed takes none; a lane that finds the queue
 * empty waits while another lane's start-up is pending, since that lane
 * may yet give its job back. */
static int take_job(cuplas_runner *r, cuplas_worker *w)
{
    int i = -1;

    if (w->init_done < 0)
        return -1;
    pthread_mutex_lock(&r->lane_mu);
    i = given_back(r);
    pthread_mutex_unlock(&r->lane_mu);
    if (i >= 0)
        return i;
    cuplas_lock_take(&r->queue_lock);
    while (!r->cancel && r->next < r->jobs->n) {
        int k = r->next++;
        if (r->results[k].state == CUPLAS_JOB_PENDING) {
            i = k;
            break;
        }
    }
    cuplas_lock_give(&r->queue_lock);
    if (i >= 0 || w->gpu < 0)
        return i;
    /* nothing left: this lane's own start-up first (it may have failed),
       then the others' */
    if (!w->init_done && cuplas_lane_ready(r, w) != 0)
        return -1;
    pthread_mutex_lock(&r->lane_mu);
    while ((i = given_back(r)) < 0 && r->inits_pending > 0 && !r->cancel)
        pthread_cond_wait(&r->lane_cv, &r->lane_mu);
    pthread_mutex_unlock(&r->lane_mu);
    return i;
}

#ifdef HAVE_CUDA
/* Job i goes back to the queue, for another lane (a GPU lane whose
   context did not start). */
static void give_back(cuplas_runner *r, int i)
{
    pthread_mutex_lock(&r->lane_mu);
    r->given_back[r->ngiven_back++] = i;
    pthread_cond_broadcast(&r->lane_cv);
    pthread_mutex_unlock(&r->lane_mu);
}
#endif

/* ------------------------------------------------------------- workers */

/* The end of a job: the run's first start and last end, for run_timing. */
static void job_ended(cuplas_runner *r, double t0)
{
    double t = cuplas_now_s();
    cuplas_lock_take(&r->queue_lock);
    if (!r->t_first_job || t0 < r->t_first_job)
        r->t_first_job = t0;
    if (t > r->t_last_job)
        r->t_last_job = t;
    cuplas_lock_give(&r->queue_lock);
    cuplas_progress_job_done(r);
}

static void cpu_worker(cuplas_runner *r, int wi)
{
    int i;
    while ((i = take_job(r, &r->workers[wi])) >= 0) {
        double t0 = cuplas_now_s();
        cuplas_job_run(r, wi, NULL, i);
        job_ended(r, t0);
    }
    cuplas_worker_buffers_free(&r->workers[wi]);
}

#ifdef HAVE_CUDA
static void gpu_worker(cuplas_runner *r, int wi)
{
    cuplas_worker *w = &r->workers[wi];
    int i;

    char tname[16];
    snprintf(tname, sizeof tname, "cuplas-g%d.%d", w->gpu, w->lane);
    pthread_setname_np(pthread_self(), tname);
    /* the lane reads its first grid while its context is made; the job
       waits for it before its sort (stages.c) */
    while ((i = take_job(r, w)) >= 0) {
        double t0 = cuplas_now_s();
        if (cuplas_job_run(r, wi, w->ctx, i) == 0)
            job_ended(r, t0);
        else
            give_back(r, i);   /* this lane's GPU did not start */
    }
    if (!w->init_done)
        cuplas_lane_ready(r, w);   /* the context is made: the lane hands it back */
    cuplas_lane_retire(r, w);      /* unless its last sort did already */
    cuplas_worker_buffers_free(w);
}

/* The thread that owns GPU number dev: its lanes start reading at once,
 * while lane_init makes their contexts, the memory budget and the order.
 * Large grids' host loops run on the runner's pool, small grids' on their
 * lane alone (one OpenMP thread: a team of a few threads per microsecond
 * loop costs more than it saves); a sort that falls back to the CPU gets
 * the lane's share of the cores. */
static void gpu_device(cuplas_runner *r, int dev)
{
    int first = dev * r->lanes;
#ifdef _OPENMP
    #pragma omp parallel num_threads(r->lanes)
    {
        omp_set_num_threads(1);
        gpu_worker(r, first + omp_get_thread_num());
    }
#else
    for (int k = 0; k < r->lanes; k++) /* no OpenMP: lanes take turns */
        gpu_worker(r, first + k);
#endif
}
#endif

/* The run's last folder fsyncs (output.fsync): every result reported done
 * is durable when the run returns. A result whose folder could not be
 * synced is failed (its rename may not survive a crash); the workers have
 * all returned, so the records are the runner's to change. */
static void sync_outputs(cuplas_runner *r)
{
    cuplas_error e;
    int *bad = NULL, nbad = 0;

    if (!r->dirsync)
        return;
    cuplas_error_clear(&e);
    cuplas_dirsync_flush(r->dirsync, 0, &bad, &nbad, &e);
    for (int k = 0; k < nbad + r->nsync_bad; k++) {
        int i = k < nbad ? bad[k] : r->sync_bad[k - nbad];
        cuplas_job_result *res = &r->results[i];
        if (res->state != CUPLAS_JOB_DONE)
            continue;
        res->state = CUPLAS_JOB_FAILED;
        cuplas_error_set(&res->err, CUPLAS_ERR_OUTPUT, "%s (the result may not survive a "
                         "crash)", e.code ? e.msg : "fsync of its folder failed");
        cuplas_error_where(&res->err, "%s", r->jobs->v[i].output);
        cuplas_job_log_failure(r, &r->jobs->v[i], res);
    }
    free(bad);
    free(r->sync_bad);
    r->sync_bad = NULL;
    r->nsync_bad = 0;
    cuplas_dirsync_free(r->dirsync);
    r->dirsync = NULL;
}

/* ------------------------------------------------------------ public API */

/* backend.lanes: 0. Small grids need many lanes to keep a GPU busy (each
 * spends most of its time on host work: 256^2 x 3 reached 33 % of pure-sort
 * throughput with 4 lanes and 60 % with 16, r23); 1024^2 x 16 grids peak
 * near 12 (r22); big grids need few, and each lane holds grid-sized pinned
 * buffers (an 8192^2 x 16 grid is 4 GiB). More lanes than a GPU's share of
 * the jobs only allocate. */
static int auto_lanes(const cuplas_jobs *jobs, int ndev)
{
    int64_t cells = 0;
    int n = 0, lanes;
    for (int i = 0; i < jobs->n; i++) {
        if (jobs->v[i].err.code)
            continue;
        n++;
        if (jobs->v[i].H * jobs->v[i].W > cells)
            cells = jobs->v[i].H * jobs->v[i].W;
    }
    lanes = cells < ((int64_t)1 << 20) ? 16 : cells <= ((int64_t)1 << 22) ? 12
          : cells <= ((int64_t)1 << 24) ? 4 : 2;
    int per = ndev > 0 ? (n + ndev - 1) / ndev : n;
    return per < 1 ? 1 : per < lanes ? per : lanes;
}

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
    pthread_mutex_init(&r->lane_mu, NULL);
    pthread_cond_init(&r->lane_cv, NULL);
    if (!(r->results = calloc((size_t)jobs->n + 1, sizeof *r->results)) ||
        !(r->given_back = calloc((size_t)jobs->n + 1, sizeof *r->given_back)))
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
    if (b->device != CUPLAS_DEVICE_CPU)   /* a CPU run never starts the driver */
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
    r->lanes = r->use_gpu ? (b->lanes > 0 ? b->lanes : auto_lanes(jobs, r->ndev)) : 1;
    r->nworkers = r->use_gpu ? r->ndev * r->lanes : 1;
    if (!(r->workers = calloc((size_t)r->nworkers, sizeof *r->workers)) ||
        !(r->gates = calloc((size_t)r->ndev + 1, sizeof *r->gates)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int d = 0; d < r->ndev; d++)
        cuplas_gpu_admit_init(&r->gates[d], 0);
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

/* Where the process's time went, as a debug event (logging.level: debug):
 * start-up (command start -> first job), planning, the GPU contexts made
 * ahead, the longest a lane waited for its GPU before its first sort, and
 * teardown (last job ended -> the run returned). */
static void log_timing(cuplas_runner *r)
{
    double wait = 0, startup = r->t_main > 0 && r->t_first_job > 0 ? r->t_first_job - r->t_main
                                                                    : 0;
    double driver, warm = cuplas_gpu_warm_seconds(r->warm, &driver);   /* -1: none */
    double first = -1, last = -1;   /* lanes ready, from the run's start */
    char text[400];
    for (int k = 0; k < r->nworkers; k++) {
        const cuplas_worker *w = &r->workers[k];
        wait = w->init_wait_s > wait ? w->init_wait_s : wait;
        if (w->ready_at > 0) {
            double at = w->ready_at - r->t_start;
            first = first < 0 || at < first ? at : first;
            last = at > last ? at : last;
        }
    }
    char lanes[64] = "";
    if (first >= 0)
        snprintf(lanes, sizeof lanes, ", lanes ready %.3f-%.3f s into the run", first, last);
    snprintf(text, sizeof text, "cuplas: timing: start-up %.3f s (plan %.3f s; made ahead: "
             "driver %.3f s, GPU contexts %.3f s)%s, first sort waited %.3f s for its GPU, "
             "teardown %.3f s", startup, r->plan_s, driver, warm, lanes, wait, r->teardown_s);
    cuplas_log_event(r->log, CUPLAS_LOG_DEBUG, "run_timing", text,
                     CUPLAS_LF_D("startup_s", startup), CUPLAS_LF_D("plan_s", r->plan_s),
                     CUPLAS_LF_D("driver_init_s", driver),
                     CUPLAS_LF_D("device_init_s", warm),
                     CUPLAS_LF_D("lane_first_ready_s", first),
                     CUPLAS_LF_D("lanes_ready_s", last),
                     CUPLAS_LF_D("first_sort_wait_s", wait),
                     CUPLAS_LF_D("teardown_s", r->teardown_s),
                     CUPLAS_LF_D("run_s", r->wall_s), NULL);
}

int cuplas_runner_run(cuplas_runner *r, cuplas_error *err)
{
    double t0 = cuplas_now_s();
    r->t_start = t0;
    int rc = 0, started = 0;
    char text[512];

    r->pin_id = -1;
    if (r->cfg->output.fsync && cuplas_dirsync_create(&r->dirsync, err) != 0)
        return (int)err->code;
    if (cuplas_h5exec_start(&r->h5, err) != 0) {
        cuplas_dirsync_free(r->dirsync);
        r->dirsync = NULL;
        return (int)err->code;
    }
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
                     CUPLAS_LF_I("workers", r->nworkers),
                     CUPLAS_LF_S("omp_wait_policy",
                                 getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "unset"),
                     NULL);
    cuplas_ticker_start(r);

    /* jobs that failed while planning are reported first, in list order */
    for (int i = 0; i < r->jobs->n; i++) {
        if (!r->jobs->v[i].err.code)
            continue;
        r->results[i].state = CUPLAS_JOB_FAILED;
        r->results[i].err = r->jobs->v[i].err;
        cuplas_job_log_failure(r, &r->jobs->v[i], &r->results[i]);
    }

    if (!r->use_gpu) {
        cpu_worker(r, 0);
        started = 1;
    }
#ifdef HAVE_CUDA
    else if (cuplas_pool_create(host_threads(r->cfg), &r->pool, err) != 0) {
        rc = (int)err->code;
    } else if (!(r->inits = calloc((size_t)r->ndev, sizeof *r->inits))) {
        rc = cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    } else {
        r->inits_pending = r->nworkers;
        for (int d = 0; d < r->ndev; d++)   /* contexts made while the lanes read */
            r->inits[d] = cuplas_lanes_init_start(r, d);
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
        for (int d = 0; d < r->ndev; d++)
            cuplas_lanes_init_free(r->inits[d]);
        free(r->inits);
        r->inits = NULL;
        cuplas_pool_free(r->pool);
        r->pool = NULL;
    }
#endif
    cuplas_ticker_stop(r);
    cuplas_jobs_unpin(r);
    cuplas_h5exec_stop(r->h5);
    r->h5 = NULL;
    sync_outputs(r);
    r->wall_s = cuplas_now_s() - t0;
    r->teardown_s = r->t_last_job > 0 ? cuplas_now_s() - r->t_last_job : 0;
    log_timing(r);
    if (!started && rc == 0) {
        *err = r->workers[0].err;
        rc = err->code ? (int)err->code : CUPLAS_ERR_NODEVICE;
    }
    return rc;
}

void cuplas_runner_summary(cuplas_runner *r)
{
    int n[5] = {0};
    char text[CUPLAS_JOB_LINE_LEN + 64], line[CUPLAS_JOB_LINE_LEN];

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
    /* "error" only when something failed or stopped: a clean run's summary
       is information (a quiet logging.level: error then prints nothing) */
    cuplas_log_level lvl = n[CUPLAS_JOB_FAILED] || r->cancel ||
                                   n[CUPLAS_JOB_CANCELLED] + n[CUPLAS_JOB_PENDING]
                               ? CUPLAS_LOG_ERROR : CUPLAS_LOG_INFO;
    cuplas_log_event(r->log, lvl, "summary", text,
                     CUPLAS_LF_I("done", n[CUPLAS_JOB_DONE]),
                     CUPLAS_LF_I("skipped", n[CUPLAS_JOB_SKIPPED]),
                     CUPLAS_LF_I("failed", n[CUPLAS_JOB_FAILED]),
                     CUPLAS_LF_I("not_finished", n[CUPLAS_JOB_CANCELLED] + n[CUPLAS_JOB_PENDING]),
                     CUPLAS_LF_I("interrupted", r->cancel != 0),
                     CUPLAS_LF_D("seconds", r->wall_s), NULL);
    /* one line per device: its lanes added up */
    for (int d = 0; d < (r->use_gpu ? r->ndev : 1); d++) {
        const cuplas_worker *w0 = &r->workers[d * r->lanes];
        int jobs = 0, sorted = 0;
        double busy = 0, gpu_ms = 0, bytes = 0;
        for (int k = d * r->lanes; k < (d + 1) * r->lanes && k < r->nworkers; k++) {
            jobs += r->workers[k].jobs;
            sorted += r->workers[k].sorted;
            busy += r->workers[k].busy_s;
            gpu_ms += r->workers[k].gpu_ms;
            bytes += r->workers[k].bytes;
        }
        /* grids sorted, as `report` counts them: a skipped, failed or
           cancelled job is no grid */
        double rate = r->wall_s > 0 ? sorted / r->wall_s : 0;
        if (w0->gpu >= 0)
            snprintf(text, sizeof text, "cuplas:   gpu %d %s: %d job%s (%d sorted), %.2f grids/s, GPU "
                     "busy %.2f s (%.0f%%) over %d lanes, %.2f GiB host<->device", w0->gpu,
                     w0->name, jobs, jobs == 1 ? "" : "s", sorted, rate, gpu_ms / 1e3,
                     r->wall_s > 0 ? gpu_ms / 10.0 / r->wall_s : 0.0, r->lanes, bytes / 1073741824.0);
        else
            snprintf(text, sizeof text, "cuplas:   cpu %s: %d job%s (%d sorted), %.2f grids/s, busy %.2f s "
                     "(%.0f%%)", w0->name, jobs, jobs == 1 ? "" : "s", sorted, rate, busy,
                     r->wall_s > 0 ? 100.0 * busy / r->wall_s : 0.0);
        cuplas_log_event(r->log, lvl, "device_summary", text,
                         CUPLAS_LF_S("backend", w0->gpu >= 0 ? "gpu" : "cpu"),
                         CUPLAS_LF_I("gpu", w0->gpu), CUPLAS_LF_S("device", w0->name),
                         CUPLAS_LF_I("jobs", jobs), CUPLAS_LF_I("sorted", sorted),
                         CUPLAS_LF_I("lanes", r->lanes),
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
    for (int i = 0; r->results && i < r->jobs->n; i++) {
        free(r->results[i].eval);
        free(r->results[i].preview);
    }
    free(r->results);
    free(r->given_back);
    r->given_back = NULL;
    pthread_cond_destroy(&r->lane_cv);
    pthread_mutex_destroy(&r->lane_mu);
    free(r->workers);
    for (int d = 0; r->gates && d < r->ndev; d++)
        cuplas_gpu_admit_free(&r->gates[d]);
    free(r->gates);
    r->gates = NULL;
    cuplas_lock_free(&r->queue_lock);
    r->results = NULL;
    r->workers = NULL;
    r->jobs = NULL;
}
