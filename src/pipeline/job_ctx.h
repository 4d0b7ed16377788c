/*
 * job_ctx.h - one job on its way through the stages, as stages.c and
 * stage_eval.c share it. Private to src/pipeline/: stages.h is the API.
 */
#ifndef CUPLAS_JOB_CTX_H
#define CUPLAS_JOB_CTX_H

#include <stdint.h>

#include "eval/codec.h"
#include "io/grid.h"
#include "io/ply.h"
#include "pipeline/runner.h"
#include "util/pool.h"

struct cuplas_gpu_ctx;

/* One job on its way through the stages. */
typedef struct job_ctx {
    cuplas_runner *r;
    cuplas_worker *w;
    struct cuplas_gpu_ctx *gpu;   /* NULL: the CPU (also after a fallback) */
    const cuplas_job *job;
    cuplas_job_result *res;
    cuplas_h5grid g;              /* read: the input, in its file type     */
    cuplas_pool *pool;            /* this grid's host loops                */
    int *use, nuse;               /* prep: the channels that drive the sort */
    double *x;                    /* prep: features (the worker's memory)  */
    int64_t *index;               /* sort: the permutation (the worker's)  */
    /* scenes and fitted grids (pipeline/fit_plan.h) */
    cuplas_ply ply;               /* a scene's header, for --ply           */
    int rows_in_raw;              /* g.raw holds the scene's rows          */
    int64_t *label, *dropped;     /* fitted: item -> input row; crop's rest */
    uint8_t *empty;               /* pad: empty-cell flags, H*W            */
    char *eval_json;              /* eval: the `eval` attribute, or NULL    */
    cuplas_buf png;               /* eval: the preview PNG, size 0 = none   */
    char *images_tmp;             /* eval: eval.images' folder, not yet published */
} job_ctx;

/* eval (eval.enabled, output.preview): the result measured and drawn on
 * the lane before the write (stage_eval.c); a failure is a warning. */
void cuplas_stage_eval(job_ctx *j);
/* After the result is published: its preview and eval images. */
void cuplas_stage_publish_extras(job_ctx *j);

#endif
