/*
 * lane_init.c - a GPU's lanes made ready while they read their first
 * grids (lane_init.h).
 *
 * Why: a one-file `cuplas sort` took 0.49 s as a process for a 32 ms sort
 * of a 1024^2 x 3 grid (r23). The lane made its context, and the device
 * its budget and order, before it read anything, and a grid's pinned
 * buffers were allocated at its first sort. Here one thread per device
 * does all of that, lane 0 first, while the lanes read and prepare; a lane
 * waits only when it is about to sort.
 *
 *   device thread:  ctx lane 0 -> budget, order -> pinned 0 | ctx 1 ...
 *   lane 0:         read -> prep -> wait(0) -> sort -> write ...
 *
 * cuplas_lane_ready is that wait as the lane (stages.c) and the runner's
 * queue (runner.c) see it: once per lane, its failure logged once.
 *
 * The way out mirrors it. A lane retires once it will sort nothing more
 * (its last sort done and the queue drained, or at its end): its context
 * goes back here, and the device's last lane to retire starts a thread
 * that frees them all and releases the device (cuplas_gpu_device_release)
 * while the lanes still write. A one-file run spent 0.11-0.135 s after
 * its last write tearing the context down at exit (h100-startup2).
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include "cuplas_build.h"
#include "pipeline/lane_init.h"

#ifdef HAVE_CUDA
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/quantize.h"
#include "cuda/sort_gpu.h"
#include "pipeline/gpu_warm.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/side.h"

struct cuplas_lanes_init {
    cuplas_runner *r;
    int dev, lanes;
    cuplas_side init;           /* the thread that makes the contexts */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct cuplas_gpu_ctx **ctx;
    int *state;                 /* per lane: 0 pending, 1 ready, -1 failed */
    cuplas_error *err;
    cuplas_gpu_order *order;
    /* retiring (under mu): the lanes' contexts handed back, how many lanes
       still hold theirs, and the thread that frees them */
    struct cuplas_gpu_ctx **gone;
    int left, release;
    cuplas_side retire;
};

static void publish(cuplas_lanes_init *li, int k, int state)
{
    if (state > 0)   /* when the lane could start sorting (run_timing) */
        li->r->workers[li->dev * li->r->lanes + k].ready_at = cuplas_now_s();
    pthread_mutex_lock(&li->mu);
    li->state[k] = state;
    pthread_cond_broadcast(&li->cv);
    pthread_mutex_unlock(&li->mu);
}

/* The device's budget from free memory: room is left for the lanes'
 * contexts and the runtime; backend.memory_limit_mb caps it. */
static void set_budget(cuplas_lanes_init *li, struct cuplas_gpu_ctx *ctx)
{
    size_t fr = 0, tot = 0;
    cuplas_gpu_admit *gate = &li->r->gates[li->dev];
    int limit = li->r->cfg->backend.memory_limit_mb;

    cuplas_gpu_mem_info(ctx, &fr, &tot);
    size_t budget = fr > ((size_t)1 << 30) ? (fr - ((size_t)1 << 29)) / 10 * 9 : fr / 2;
    if (limit > 0 && ((size_t)limit << 20) < budget)
        budget = (size_t)limit << 20;
    gate->budget = budget;   /* before any lane is ready: no lane admits yet */
}

/* The pinned buffers lane k of device dev will first need: the grid of
 * the job it will most likely take first, the (k * ndev + dev)-th of the
 * list (largest grid first, so also the largest it will see). 0 when the
 * lane will likely get no job. *cp: that grid's padded channels. */
static void first_grid(const cuplas_runner *r, int dev, int k, int64_t *n_q, int64_t *n_idx,
                       int *cp)
{
    int want = k * r->ndev + dev, seen = 0;
    *n_q = *n_idx = 0;
    *cp = 0;
    for (int i = 0; i < r->jobs->n; i++) {
        const cuplas_job *job = &r->jobs->v[i];
        if (job->err.code || seen++ < want)
            continue;
        int nuse = job->use ? job->nuse
                 : r->cfg->channels.use ? r->cfg->channels.nuse : (int)job->C;
        *cp = cuplas_padded_channels(nuse);
        *n_idx = job->H * job->W;
        *n_q = *n_idx * *cp;
        return;
    }
}

static void run(void *p)
{
    cuplas_lanes_init *li = p;
    cuplas_runner *r = li->r;
    int gpu = r->workers[li->dev * r->lanes].gpu;
    char name[16];

    snprintf(name, sizeof name, "cuplas-init%d", gpu);
    pthread_setname_np(pthread_self(), name);
    for (int k = 0; k < li->lanes; k++) {
        if (cuplas_gpu_ctx_init(&li->ctx[k], gpu, &li->err[k]) != 0) {
            if (k == 0) {   /* the device is unusable: every lane says why */
                for (int m = 1; m < li->lanes; m++)
                    li->err[m] = li->err[0];
                for (int m = li->lanes - 1; m >= 0; m--)
                    publish(li, m, -1);
                break;
            }
            publish(li, k, -1);
            continue;
        }
        if (k == 0) {
            cuplas_error e;
            cuplas_error_clear(&e);
            set_budget(li, li->ctx[0]);
            if (cuplas_gpu_order_create(&li->order, gpu, &e) != 0)
                li->order = NULL;   /* without one, sorts interleave */
        }
        cuplas_gpu_ctx_set_order(li->ctx[k], li->order);
        /* pinned buffers for the lane's first (largest) grid and its level
           kernel; a failure is retried by the sort, a larger grid grows them */
        int64_t n_q, n_idx;
        int cp;
        first_grid(r, li->dev, k, &n_q, &n_idx, &cp);
        if (n_idx > 0)
            cuplas_gpu_prepare(li->ctx[k], n_q, n_idx, cp);
        publish(li, k, 1);
    }
}

cuplas_lanes_init *cuplas_lanes_init_start(cuplas_runner *r, int dev)
{
    cuplas_lanes_init *li = calloc(1, sizeof *li);

    if (!li)
        return NULL;
    li->r = r;
    li->dev = dev;
    li->lanes = r->lanes;
    li->ctx = calloc((size_t)li->lanes, sizeof *li->ctx);
    li->state = calloc((size_t)li->lanes, sizeof *li->state);
    li->err = calloc((size_t)li->lanes, sizeof *li->err);
    li->gone = calloc((size_t)li->lanes, sizeof *li->gone);
    li->left = li->lanes;
    if (!li->ctx || !li->state || !li->err || !li->gone) {
        free(li->ctx);
        free(li->state);
        free(li->err);
        free(li->gone);
        free(li);
        return NULL;
    }
    for (int k = 0; k < li->lanes; k++)
        cuplas_error_clear(&li->err[k]);
    pthread_mutex_init(&li->mu, NULL);
    pthread_cond_init(&li->cv, NULL);
    cuplas_side_start(&li->init, run, li, 1);   /* no thread: made here and now */
    return li;
}

int cuplas_lanes_init_wait(cuplas_lanes_init *li, int lane, struct cuplas_gpu_ctx **ctx,
                           double *waited_s, cuplas_error *err)
{
    double t = cuplas_now_s();
    int state;

    pthread_mutex_lock(&li->mu);
    while (!(state = li->state[lane]))
        pthread_cond_wait(&li->cv, &li->mu);
    pthread_mutex_unlock(&li->mu);
    if (waited_s)
        *waited_s = cuplas_now_s() - t;
    *ctx = state > 0 ? li->ctx[lane] : NULL;
    if (state < 0) {
        *err = li->err[lane];
        return err->code ? (int)err->code : CUPLAS_ERR_CUDA;
    }
    return 0;
}

/* What the device's lanes still hold: the contexts handed back, the
 * start-up thread and the sort order. Once; again is a no-op. */
static void free_lanes(cuplas_lanes_init *li)
{
    for (int k = 0; k < li->lanes; k++) {
        cuplas_gpu_ctx_free(li->gone[k]);
        li->gone[k] = NULL;
    }
    cuplas_side_join(&li->init);
    cuplas_gpu_order_free(li->order);
    li->order = NULL;
}

/* The device's lanes have all retired: free what they held, then
 * (li->release) the device itself. */
static void retire_run(void *p)
{
    cuplas_lanes_init *li = p;

    pthread_setname_np(pthread_self(), "cuplas-retire");
    free_lanes(li);
    if (li->release)
        cuplas_gpu_device_release(li->r->workers[li->dev * li->r->lanes].gpu);
}

void cuplas_lane_retire(cuplas_runner *r, cuplas_worker *w)
{
    cuplas_lanes_init *li = r->inits ? r->inits[w->dev] : NULL;
    int last;

    if (w->retired)
        return;
    w->retired = 1;
    cuplas_gpu_admit_leave(&r->gates[w->dev], &w->held);
    if (!li) {   /* no start-up state (out of memory): free it here */
        cuplas_gpu_ctx_free(w->ctx);
        w->ctx = NULL;
        return;
    }
    pthread_mutex_lock(&li->mu);
    li->gone[w->lane] = w->ctx;
    w->ctx = NULL;
    last = --li->left == 0;
    pthread_mutex_unlock(&li->mu);
    if (!last)
        return;
    /* the GPU-warming thread may still be about to touch this device:
       then leave its context to the exit */
    li->release = !r->warm || cuplas_gpu_warm_seconds(r->warm, NULL) >= 0;
    cuplas_side_start(&li->retire, retire_run, li, 1);
}

int cuplas_lane_retire_if_drained(cuplas_runner *r, cuplas_worker *w)
{
    int drained;

    cuplas_lock_take(&r->queue_lock);
    drained = r->next >= r->jobs->n;
    cuplas_lock_give(&r->queue_lock);
    pthread_mutex_lock(&r->lane_mu);
    drained = drained && r->ngiven_back == 0 && r->inits_pending == 0;
    pthread_mutex_unlock(&r->lane_mu);
    if (drained)
        cuplas_lane_retire(r, w);
    return drained;
}

void cuplas_lanes_init_free(cuplas_lanes_init *li)
{
    if (!li)
        return;
    cuplas_side_join(&li->retire);
    free_lanes(li);   /* when the lanes did not all retire */
    pthread_cond_destroy(&li->cv);
    pthread_mutex_destroy(&li->mu);
    free(li->ctx);
    free(li->state);
    free(li->err);
    free(li->gone);
    free(li);
}

int cuplas_lane_ready(cuplas_runner *r, cuplas_worker *w)
{
    int rc = -1;

    if (w->init_done)
        return w->init_done > 0 ? 0 : -1;
    if (r->inits && r->inits[w->dev])
        rc = cuplas_lanes_init_wait(r->inits[w->dev], w->lane, &w->ctx, &w->init_wait_s,
                                    &w->err);
    else
        cuplas_error_set(&w->err, CUPLAS_ERR_NOMEM, "out of memory starting the GPU lanes");
    pthread_mutex_lock(&r->lane_mu);
    w->init_done = rc == 0 ? 1 : -1;
    r->inits_pending--;
    pthread_cond_broadcast(&r->lane_cv);
    pthread_mutex_unlock(&r->lane_mu);
    if (rc == 0) {
        snprintf(w->name, sizeof w->name, "%s", cuplas_gpu_name(w->ctx));
        return 0;
    }
    char buf[1100], text[1200];
    snprintf(text, sizeof text, "cuplas: error: %s (this GPU takes no jobs)",
             cuplas_error_format(&w->err, buf, sizeof buf));
    cuplas_log_event(r->log, CUPLAS_LOG_ERROR, "worker_failed", text,
                     CUPLAS_LF_I("gpu", w->gpu), CUPLAS_LF_S("error", w->err.msg), NULL);
    return -1;
}
#else
int cuplas_lane_ready(cuplas_runner *r, cuplas_worker *w)
{
    (void)r, (void)w;
    return -1;
}

void cuplas_lane_retire(cuplas_runner *r, cuplas_worker *w) { (void)r, (void)w; }

int cuplas_lane_retire_if_drained(cuplas_runner *r, cuplas_worker *w)
{
    (void)r, (void)w;
    return 0;
}
#endif
