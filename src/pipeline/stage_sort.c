/*
 * stage_sort.c - the sort stage: a grid's device memory reserved through
 * its GPU's gate (pipeline/gpu_admit.h), the sort on the lane's GPU or the
 * CPU, the CPU retry after a GPU failure (backend.cpu_fallback), and the
 * lane's retirement once nothing is left to sort (lane_init.h). Apart from
 * stages.c because it is the one stage that talks to the GPU.
 */
#include "cuplas_build.h"
#include "pipeline/job_ctx.h"

#include <stdio.h>

#include "core/quantize.h"
#include "pipeline/lane_init.h"
#include "sort/sort.h"
#include "util/clock.h"
#include "util/threads.h"
#ifdef HAVE_CUDA
#include "cuda/sort_gpu.h"
#endif


#ifdef HAVE_CUDA
static void release_workspace(void *ctx) { cuplas_gpu_release((cuplas_gpu_ctx *)ctx); }

/* The one error of a grid too large for every lane of lane w's GPU
 * (CUPLAS_ERR_CUDA, so backend.cpu_fallback applies). */
static int no_fit(const cuplas_runner *r, const cuplas_worker *w, size_t need, cuplas_error *e)
{
    return cuplas_error_set(e, CUPLAS_ERR_CUDA, "does not fit GPU %d: needs %.2f GiB, %.2f GiB "
                            "usable", w->gpu, need / 1073741824.0,
                            r->gates[w->dev].budget / 1073741824.0);
}
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
    if (cuplas_gpu_admit_acquire(&r->gates[w->dev], &w->held, need, release_workspace, gpu) != 0)
        return no_fit(r, w, need, e);
#else
    (void)r, (void)w, (void)gpu, (void)H, (void)W, (void)C, (void)e;
#endif
    return 0;
}

static void after_sort(cuplas_runner *r, cuplas_worker *w, struct cuplas_gpu_ctx *gpu)
{
#ifdef HAVE_CUDA
    if (gpu)
        cuplas_gpu_admit_after(&r->gates[w->dev], &w->held, release_workspace, gpu);
#else
    (void)r, (void)w, (void)gpu;
#endif
}

int cuplas_stage_sort(job_ctx *j, cuplas_error *e)
{
    cuplas_runner *r = j->r;
    const cuplas_config *cfg = r->cfg;
    const cuplas_h5grid *g = &j->g;
    cuplas_worker *w = j->w;
    cuplas_job_result *res = j->res;
    double t = cuplas_now_s();
    cuplas_sort_target target = {.gpu = j->gpu, .cancel = &r->cancel, .pool = j->pool,
                                 .levels_total = &res->levels_total};
    int rc = admit(r, w, j->gpu, g->H, g->W, j->nuse, e);

    w->sorting = 1 + (int)(j->job - r->jobs->v);   /* the progress line's */
    if (rc == 0) {
        rc = cuplas_sort_features(j->x, g->H, g->W, j->nuse, &j->sort, &target, j->index,
                                  &res->stats, e);
        after_sort(r, w, j->gpu);
    }
    if (rc == CUPLAS_ERR_CUDA && j->gpu && cfg->backend.cpu_fallback) {
        char line[CUPLAS_JOB_LINE_LEN], text[CUPLAS_JOB_LINE_LEN + 64];
        cuplas_job_error_line(r->jobs, j->job, e, line, sizeof line);
        snprintf(text, sizeof text, "cuplas: warning: %s; retrying on the CPU", line);
        cuplas_log_event(r->log, CUPLAS_LOG_WARN, "gpu_fallback", text,
                         CUPLAS_LF_S("file", j->job->file),
                         CUPLAS_LF_S("dataset", j->job->dataset),
                         CUPLAS_LF_S("error", e->msg), NULL);
        cuplas_error_clear(e);
        j->gpu = NULL;
        target.gpu = NULL;
        rc = admit(r, w, NULL, g->H, g->W, j->nuse, e);
        cuplas_set_threads(r->fallback_threads);   /* the lane's share of the cores */
        if (rc == 0)
            rc = cuplas_sort_features(j->x, g->H, g->W, j->nuse, &j->sort, &target, j->index,
                                      &res->stats, e);
        cuplas_set_threads(1);
    }
    w->sorting = 0;
    if (rc)
        return rc;
    snprintf(res->backend, sizeof res->backend, "%s", j->gpu ? "gpu" : "cpu");
    if (j->gpu) {
        w->gpu_ms += res->stats.h2d_ms + res->stats.device_ms + res->stats.d2h_ms;
        w->bytes += (double)(g->H * g->W) * (cuplas_padded_channels(j->nuse) * 2 + 4);
    }
    res->sort_s = cuplas_now_s() - t;
    if (w->gpu >= 0 && cuplas_lane_retire_if_drained(r, w))
        j->gpu = NULL;   /* the device goes while this job writes */
    return 0;
}

int cuplas_stage_fits_device(job_ctx *j, cuplas_error *e)
{
#ifdef HAVE_CUDA
    const cuplas_config *cfg = j->r->cfg;
    const cuplas_job *job = j->job;
    int nuse = cfg->channels.use ? cfg->channels.nuse : (int)job->C;
    size_t need;

    if (!j->gpu || cfg->backend.cpu_fallback)
        return 0;
    need = cuplas_sort_gpu_bytes(job->H, job->W, cuplas_padded_channels(nuse));
    if (need > j->r->gates[j->w->dev].budget)
        return no_fit(j->r, j->w, need, e);
#else
    (void)j, (void)e;
#endif
    return 0;
}
