/*
 * stage_eval.c - run's optional eval step and preview: the result measured
 * (AND, VAD, DPQ, bytes against the baselines: src/eval/) and drawn on the
 * lane, from the grid the job already holds, before the write, so that the
 * `eval` attribute is part of the published file. Apart from stages.c
 * because it is optional and self-contained; it makes no HDF5 call.
 */
#define _GNU_SOURCE /* asprintf */
#include "cuplas_build.h"
#include "pipeline/job_ctx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eval/evaluate.h"
#include "eval/preview.h"
#include "eval/schemes.h"
#include "io/dtype.h"
#include "io/publish.h"
#include "pipeline/output_name.h"
#include "pipeline/stages.h"
#include "util/clock.h"
#include "util/fsutil.h"
#include "util/log.h"

static void eval_warn(job_ctx *j, const char *what, const cuplas_error *e)
{
    char text[CUPLAS_JOB_LINE_LEN];
    snprintf(text, sizeof text, "cuplas: warning: %s:%s: %s: %s%s%s", j->job->file,
             j->job->dataset, what, e->where[0] ? e->where : "", e->where[0] ? ": " : "",
             e->msg);
    cuplas_log_event(j->r->log, CUPLAS_LOG_WARN, "eval_failed", text,
                     CUPLAS_LF_S("file", j->job->file), CUPLAS_LF_S("dataset", j->job->dataset),
                     CUPLAS_LF_S("error", e->msg), NULL);
}

/* The eval step's options from the config; the scheme falls back to
 * plain (with a warning) where the channels have no 3DGS names. */
static void eval_options(job_ctx *j, const char *const *names, int C, cuplas_eval_opts *o)
{
    const cuplas_config *cfg = j->r->cfg;
    cuplas_error e;

    cuplas_job_eval_opts(cfg, o);
    /* the encodes on the runner's pool whatever the grid's size (a GPU
       lane has one OpenMP thread; NULL on the CPU backend: its team) */
    o->pool = j->r->pool;
    /* the SH palette (playcanvas) on the GPU the job was sorted on; the
       sorted order's kept for the sog step when it would fit the same */
    o->sh_device = !strcmp(j->res->backend, "gpu") ? j->w->gpu : -1;
    if (j->job->sog_out && cfg->sog.sh && cfg->eval.sh_palette == cfg->sog.sh_palette &&
        cfg->eval.sh_iterations == cfg->sog.sh_iterations)
        o->keep_sh = &j->eval_sh;
    if (!cuplas_scheme_applies(o->scheme, names, C)) {
        cuplas_error_clear(&e);
        cuplas_error_set(&e, CUPLAS_ERR_USAGE, "scheme %s needs channels named x, y, z; "
                         "measured with plain", cuplas_scheme_name(o->scheme));
        eval_warn(j, "eval.scheme", &e);
        o->scheme = CUPLAS_SCHEME_PLAIN;
    }
}

/* The measurement; an SH palette the GPU could not take (its memory is
 * the lanes', not admitted for it) is fitted on the CPU instead, which
 * gives the same bytes. */
static int evaluate(job_ctx *j, const double *items, int64_t N, int C, const char *const *names,
                    const int64_t *map, cuplas_eval_opts *o, cuplas_eval_result *er,
                    cuplas_error *e)
{
    int rc = cuplas_evaluate(items, N, C, names, map, j->g.H, j->g.W, o, er, e);
    if (rc == CUPLAS_ERR_CUDA && o->sh_device >= 0) {
        eval_warn(j, "eval: the SH palette moves to the CPU", e);
        o->sh_device = -1;
        cuplas_error_clear(e);
        rc = cuplas_evaluate(items, N, C, names, map, j->g.H, j->g.W, o, er, e);
    }
    return rc;
}

/* eval (eval.enabled, output.preview): the result measured and drawn on
 * the lane, before the write, so that the `eval` attribute is part of the
 * published file. A failure here is a warning, never the job's: the
 * result is written without it. */
void cuplas_stage_eval(job_ctx *j)
{
    const cuplas_config *cfg = j->r->cfg;
    const cuplas_h5grid *g = &j->g;
    cuplas_job_result *res = j->res;
    const int64_t cells = g->H * g->W, rows = cuplas_h5grid_rows(g);
    int64_t N = cells;   /* the items the result keeps */
    int C = (int)g->C, *use = NULL;
    double *items = NULL, *all = NULL, t = cuplas_now_s();
    int64_t *map = j->index;   /* cell -> item of `items`, -1 = empty */
    /* channel names: a scene's properties, an HDF5 `columns` attribute */
    const char *const *names = (const char *const *)g->names;
    cuplas_error e;

    if (!cfg->eval.enabled && !cfg->output.preview)
        return;
    cuplas_error_clear(&e);
    if (!(use = malloc((size_t)C * sizeof *use)) ||
        !(all = malloc((size_t)rows * (size_t)C * sizeof *all))) {
        cuplas_error_set(&e, CUPLAS_ERR_NOMEM, "out of memory");
        eval_warn(j, "eval", &e);
        goto done;
    }
    for (int c = 0; c < C; c++)
        use[c] = c;
    if (cuplas_h5grid_to_double(g, use, C, all, j->pool, &e) != 0) {
        eval_warn(j, "eval", &e);
        goto done;
    }
    items = all;
    if (j->label) {
        /* a fitted grid: sort item k is input row label[k] (-1: an empty
         * cell; a crop keeps rows in ascending order), so the kept rows in
         * item order are the input order `cuplas eval` rebuilds from the file */
        for (N = 0; N < cells && j->label[N] >= 0; N++)
            ;
        if (!(items = malloc((size_t)(N ? N : 1) * (size_t)C * sizeof *items)) ||
            !(map = malloc((size_t)cells * sizeof *map))) {
            cuplas_error_set(&e, CUPLAS_ERR_NOMEM, "out of memory");
            eval_warn(j, "eval", &e);
            goto done;
        }
        for (int64_t k = 0; k < N; k++)
            memcpy(items + k * C, all + j->label[k] * C, (size_t)C * sizeof *items);
        for (int64_t c = 0; c < cells; c++)
            map[c] = j->label[j->index[c]] < 0 ? -1 : j->index[c];
    }
    if (cfg->eval.enabled) {
        cuplas_eval_opts o;
        cuplas_eval_result *er = malloc(sizeof *er);
        eval_options(j, names, C, &o);
        cuplas_error_clear(&e);
        if (cfg->eval.images && er) {
            /* hidden and unique: a killed run's goes at the next run's
               start (io/stale.h) */
            char *dir = cuplas_output_beside(j->job->output, ".eval");
            j->images_tmp = dir ? cuplas_tmp_dir_create(dir, &e) : NULL;
            free(dir);
            o.images_dir = j->images_tmp;
        }
        if (!er || (cfg->eval.images && !j->images_tmp)) {
            if (!e.code)
                cuplas_error_set(&e, CUPLAS_ERR_NOMEM, "out of memory");
            eval_warn(j, "eval.images", &e);
            free(er);
        } else if (evaluate(j, items, N, C, names, map, &o, er, &e) != 0) {
            eval_warn(j, "eval", &e);
            free(er);
        } else {
            er->scheme_asked = (cuplas_scheme)cfg->eval.scheme;   /* where it fell back */
            res->eval = er;
            j->eval_json = cuplas_eval_result_json_str(er);
        }
        if (!res->eval && j->images_tmp) {
            cuplas_rm_tree(j->images_tmp);
            free(j->images_tmp);
            j->images_tmp = NULL;
        }
    }
    if (cfg->output.preview) {
        cuplas_preview_opts po;
        cuplas_eval_image img = {0};
        cuplas_preview_opts_default(&po);
        if (cuplas_preview_build(items, N, C, map, g->H, g->W, &po, &img, &e) != 0 ||
            cuplas_image_encode(CUPLAS_CODEC_PNG, &img, NULL, &j->png, &e) != 0) {
            eval_warn(j, "preview", &e);
            j->png.size = 0;
        }
        free(img.px);
    }
done:
    free(use);
    if (items != all)
        free(items);
    free(all);
    if (map != j->index)
        free(map);
    res->eval_s = cuplas_now_s() - t;
}

/* After the result is published: its preview (by rename, like the
 * result) and the eval images folder (a folder renamed onto its name). */
void cuplas_stage_publish_extras(job_ctx *j)
{
    const cuplas_config *cfg = j->r->cfg;
    cuplas_error e;
    cuplas_error_clear(&e);

    if (j->png.size && j->job->preview_out) {
        char *path = strdup(j->job->preview_out);
        if (!path)
            cuplas_error_set(&e, CUPLAS_ERR_NOMEM, "out of memory");
        if (path && cuplas_publish_bytes(path, j->png.data, j->png.size, cfg->output.fsync,
                                         &e) == 0)
            j->res->preview = path, path = NULL;
        else
            eval_warn(j, "preview", &e);
        free(path);
    }
    if (j->images_tmp) {
        char *dir = cuplas_output_beside(j->job->output, ".eval");
        if (dir)
            cuplas_rm_tree(dir);   /* the previous run's images of this output */
        if (!dir)
            cuplas_error_set(&e, CUPLAS_ERR_NOMEM, "out of memory");
        if (!dir || cuplas_dir_publish(j->images_tmp, dir, &e) != 0) {
            eval_warn(j, "eval.images", &e);
            cuplas_rm_tree(j->images_tmp);
        }
        free(dir);
        free(j->images_tmp);
        j->images_tmp = NULL;
    }
}
