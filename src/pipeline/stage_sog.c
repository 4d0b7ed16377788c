/*
 * stage_sog.c - run's `sog` step (sog.enabled): the sorted grid the job
 * holds, written as PlayCanvas SOG version 2 (io/sog_write.h, what
 * `cuplas export-sog` writes from the result file) into a temporary folder
 * beside the result, on the lane before the write. stage_write publishes
 * the folder just before the result, so a result on disk means its SOG
 * folder was published; the result's `sog` attribute (the sog keys, the
 * files' bytes) is what a rerun holds the folder against.
 *
 * Design facts: only the channels the format stores are read (a trainer's
 * normals, NaN or not, are not), straight into cell order: 14 doubles a
 * splat for the five images and the SH coefficients as the palette's
 * floats (io/sog_write.h: cuplas_sog_read), freed before the write. The SH
 * palette's k-means runs on the GPU the job was sorted on, and on the CPU
 * (the same files) where that GPU cannot take it: its memory is the
 * lanes', not admitted for it. An eval step that fitted the sorted
 * order's palette with the same settings hands it over (job_ctx.eval_sh),
 * so it is not fitted twice.
 */
#define _GNU_SOURCE /* asprintf */
#include "cuplas_build.h"
#include "pipeline/job_ctx.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/dtype.h"
#include "io/publish.h"
#include "io/sog_write.h"
#include "util/clock.h"
#include "util/fsutil.h"
#include "util/log.h"
#include "util/threads.h"

static int sync_one(const char *path, const struct stat *st, void *err)
{
    int fd = open(path, O_RDONLY), rc = 0;
    (void)st;
    if (fd < 0 || fdatasync(fd) != 0)
        rc = cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "fsync %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    return rc;
}

/* output.fsync: every file of dir on disk before the folder is renamed
 * (the rename's own durability is the publish's, as for a result). */
static int sync_files(const char *dir, cuplas_error *e)
{
    int rc = cuplas_dir_files(dir, sync_one, e);
    if (rc < 0)
        return cuplas_error_set(e, CUPLAS_ERR_OUTPUT, "cannot read %s: %s", dir,
                                strerror(errno));
    return rc;
}

/* Into dir (empty): the SOG files; a CUDA failure of the palette moves it
 * to the CPU, with a warning. */
static int write_dir(job_ctx *j, const double *grid, int n, const char *const *sub,
                     cuplas_sog_opts *o, const char *dir, cuplas_sog_plan *p, cuplas_error *e)
{
    int rc = cuplas_sog_write(grid, j->g.H, j->g.W, n, sub, o, dir, p, e);
    if (rc == CUPLAS_ERR_CUDA && o->device >= 0) {
        char text[CUPLAS_JOB_LINE_LEN];
        snprintf(text, sizeof text, "cuplas: warning: %s:%s: sog: the SH palette moves to the "
                 "CPU: %s", j->job->file, j->job->dataset, e->msg);
        cuplas_log_event(j->r->log, CUPLAS_LOG_WARN, "sog_cpu", text,
                         CUPLAS_LF_S("file", j->job->file), CUPLAS_LF_S("error", e->msg), NULL);
        cuplas_sog_plan_free(p);
        cuplas_rm_tree(dir);
        cuplas_error_clear(e);
        o->device = -1;
        if ((rc = cuplas_mkdir_p(dir, e)) == 0)
            rc = cuplas_sog_write(grid, j->g.H, j->g.W, n, sub, o, dir, p, e);
    }
    return rc;
}

/* Where the step's seconds went (debug: `sog_timing`). */
static void log_timing(job_ctx *j, const cuplas_sog_plan *p, double grid_s, double fsync_s)
{
    char text[CUPLAS_JOB_LINE_LEN];
    snprintf(text, sizeof text, "cuplas: %s:%s: sog: %.2f s the grid, %.2f s quantising, %.2f s "
             "the SH palette%s, %.2f s more WebP, %.2f s fsync", j->job->file, j->job->dataset,
             grid_s, p->quantise_s, p->palette_s, p->reused ? " (the eval step's)" : "",
             p->webp_s, fsync_s);
    cuplas_log_event(j->r->log, CUPLAS_LOG_DEBUG, "sog_timing", text,
                     CUPLAS_LF_S("file", j->job->file), CUPLAS_LF_D("grid_s", grid_s),
                     CUPLAS_LF_D("quantise_s", p->quantise_s),
                     CUPLAS_LF_D("palette_s", p->palette_s),
                     CUPLAS_LF_I("palette_from_eval", p->reused),
                     CUPLAS_LF_D("webp_s", p->webp_s), CUPLAS_LF_D("fsync_s", fsync_s), NULL);
}

int cuplas_stage_sog(job_ctx *j, cuplas_error *e)
{
    const cuplas_config *cfg = j->r->cfg;
    const cuplas_h5grid *g = &j->g;
    const int64_t cells = g->H * g->W;
    const int C = (int)g->C;
    int64_t *row = NULL;
    int *use = NULL, n = 0, nhead = 0, rc = 0;
    const char **sub = NULL;
    double *grid = NULL, t = cuplas_now_s(), t_grid = 0, t_write = 0, t_sync = 0;
    float *sh = NULL;
    cuplas_sog_plan p = {0};
    cuplas_sog_opts o = {0};
    char keys[160];

    if (!j->job->sog_out)
        return 0;
    if (!(row = malloc((size_t)cells * sizeof *row)) || !(use = malloc((size_t)C * sizeof *use)) ||
        !(sub = malloc((size_t)C * sizeof *sub)))
        CUPLAS_FAIL(e, CUPLAS_ERR_NOMEM, "out of memory");
    /* cell -> input row (-1 empty): a fitted grid's sort items are rows
       of label (-1: an empty cell's item) */
    for (int64_t c = 0; c < cells; c++)
        row[c] = j->label ? j->label[j->index[c]] : j->index[c];
    CUPLAS_TRY(cuplas_sog_prepare((const char *const *)g->names, C, row, cells, cfg->sog.sh, use,
                                  sub, &n, &p, e));
    /* the eval step fitted this very palette (stage_eval.c keeps it only
       with the same sog.sh_* settings): no coefficients to read then */
    o.reuse = j->eval_sh.bands == p.sh.bands && p.sh.bands ? &j->eval_sh : NULL;
    CUPLAS_TRY(cuplas_sog_read(g, row, cells, use, n, &p, !o.reuse, &grid, &nhead, &sh, j->pool,
                               e));
    o.sh_x = sh;
    t_grid = cuplas_now_s();

    o.sh = cfg->sog.sh;
    o.palette = cfg->sog.sh_palette;
    o.iterations = cfg->sog.sh_iterations;
    o.device = !strcmp(j->res->backend, "gpu") ? j->w->gpu : -1;
    cuplas_codec_opts_default(&o.co);
    o.co.webp_method = cfg->sog.webp_method;
    o.pool = j->r->pool;   /* NULL on the CPU backend: its OpenMP team */
    /* more than one thread: each WebP encode takes libwebp's second too */
    o.co.threads = o.pool ? cuplas_pool_threads(o.pool) + 1 : cuplas_max_threads();
    /* hidden and unique: a killed run's is found by the next (io/stale.h) */
    if (!(j->sog_tmp = cuplas_tmp_dir_create(j->job->sog_out, e))) {
        rc = (int)e->code;
        goto fail;
    }
    CUPLAS_TRY(write_dir(j, grid, nhead, sub, &o, j->sog_tmp, &p, e));
    t_write = cuplas_now_s();
    if (p.sh.bands && o.device >= 0 && !p.reused)   /* the lane's GPU time: its searches too */
        j->w->gpu_ms += p.sh.st.assign_s * 1e3;
    if (cfg->output.fsync)
        CUPLAS_TRY(sync_files(j->sog_tmp, e));
    t_sync = cuplas_now_s();
    cuplas_job_sog_keys(cfg, keys, sizeof keys);
    if (asprintf(&j->sog_attr, "%s, \"files\": %d, \"bytes\": %lld}", keys, p.files,
                 (long long)p.bytes) < 0) {
        j->sog_attr = NULL;
        CUPLAS_FAIL(e, CUPLAS_ERR_NOMEM, "out of memory");
    }
    j->res->sog_bytes = p.bytes;
    log_timing(j, &p, t_grid - t, t_sync - t_write);
fail:
    if (rc) {
        cuplas_error_where(e, "%s:%s: sog", j->job->file, j->job->dataset);
        if (j->sog_tmp)
            cuplas_rm_tree(j->sog_tmp);
        free(j->sog_tmp);
        j->sog_tmp = NULL;
    }
    j->res->sog_s = cuplas_now_s() - t;
    cuplas_sog_plan_free(&p);
    free(sh);
    free(grid);
    free(sub);
    free(use);
    free(row);
    return rc;
}
