/*
 * job_ctx.h - one job on its way through the stages, as stages.c,
 * stage_sort.c, stage_eval.c, stage_sog.c, stage_write.c and
 * stage_write_stream.c share it. Private to src/pipeline/: stages.h is the
 * API.
 */
#ifndef CUPLAS_JOB_CTX_H
#define CUPLAS_JOB_CTX_H

#include <stdint.h>

#include "eval/codec.h"
#include "eval/sog_sh.h"
#include "io/codec.h"
#include "io/grid.h"
#include "io/h5_thread.h"
#include "io/h5_write.h"
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
    cuplas_sort_params sort;      /* prep: cfg->sort for nuse channels      */
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
    cuplas_sog_sh eval_sh;        /* eval -> sog: the sorted order's SH
                                     palette (bands 0: none kept)         */
    char *sog_tmp;                /* sog: the SOG folder, not yet published */
    char *sog_attr;               /* sog: the result's `sog` attribute      */
    int give_back;                /* the lane's GPU failed to start: requeue */
} job_ctx;

/* sort (stage_sort.c): the permutation into j->index, on the lane's GPU
 * or the CPU; a GPU failure retries on the CPU when backend.cpu_fallback
 * allows. After the lane's last sort (the queue drained) the lane retires
 * and j->gpu becomes NULL. */
int cuplas_stage_sort(job_ctx *j, cuplas_error *e);
/* A grid that no lane of this GPU could ever hold fails before it is read
 * (the host part was checked when the job was planned, jobs.c), unless
 * backend.cpu_fallback hands it to the CPU after the read. */
int cuplas_stage_fits_device(job_ctx *j, cuplas_error *e);

/* eval (eval.enabled, output.preview): the result measured and drawn on
 * the lane before the write (stage_eval.c); a failure is a warning. */
void cuplas_stage_eval(job_ctx *j);
/* After the result is published: its preview and eval images. */
void cuplas_stage_publish_extras(job_ctx *j);

/* sog (sog.enabled; stage_sog.c): the sorted grid as PlayCanvas SOG into
 * a temporary folder beside the result, on the lane before the write
 * (stage_write publishes it just before the result). A grid the format
 * cannot hold fails the job. */
int cuplas_stage_sog(job_ctx *j, cuplas_error *e);

/* write (stage_write.c): the AND after, the result encoded, written and
 * published under its name (with a scene's sorted PLY just before it). */
int cuplas_stage_write(job_ctx *j, cuplas_error *e);

/* Run fn(arg) on the HDF5 thread; the job's time queued and in HDF5
 * add up. */
static inline void cuplas_job_h5_visit(job_ctx *j, cuplas_h5task_fn fn, void *arg)
{
    double wait = 0, run = 0;
    cuplas_h5exec_run(j->r->h5, fn, arg, &wait, &run);
    j->res->h5_wait_s += wait;
    j->res->h5_s += run;
}

/* write, for a compressed result of more than CUPLAS_H5_IMAGE_MAX_BYTES
 * raw (stage_write_stream.c): encode the result while the HDF5 thread
 * stores its chunks. 0 with *enc (every chunk encoded) and either *tmp,
 * the temp file written and closed (left: write_raw, publish), or *tmp
 * NULL when the encoded data fits an in-memory file (left: the one-visit
 * write, as before). encode_s is set from t0. before_attrs(arg) is called
 * before meta is written (the sorted PLY's stamp is in it). On failure
 * nothing is left behind. */
int cuplas_stage_write_streamed(job_ctx *j, const cuplas_result_meta *meta,
                                void (*before_attrs)(void *), void *arg,
                                cuplas_h5_encoded **enc, char **tmp, double t0,
                                cuplas_error *e);

#endif
