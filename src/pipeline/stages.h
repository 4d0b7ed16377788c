/*
 * stages.h - one job from start to end: read -> prep -> sort -> write.
 *
 * Each stage is one function and one stage-time field of the job's
 * result and `job_done` event (read_s, prep_s, sort_s, write_s). A job
 * visits the HDF5 thread at most twice: to read (the grid comes back with
 * a plain type description, nothing left to free there) and to write the
 * output's HDF5 part. Everything else (chunk decoding, conversion to
 * double, normalisation, the sort, encoding, pwrite, fsync, rename) runs
 * on the worker's own thread and, for large grids, the runner's pool.
 */
#ifndef CUPLAS_STAGES_H
#define CUPLAS_STAGES_H

#include "pipeline/jobs.h"
#include "pipeline/runner.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cuplas_gpu_ctx;

/* Run job i on worker wi (gpu: that lane's device context, NULL for the
 * CPU worker, or for a GPU lane whose context is still being made: the
 * job waits for it before its sort): fills r->results[i] (state, error,
 * metrics, timings) and logs its event. Never exits; a failure ends only
 * this job. Returns 0, or -1 when the lane's GPU could not start: the job
 * is untouched, for the caller to give to another lane. */
int cuplas_job_run(cuplas_runner *r, int wi, struct cuplas_gpu_ctx *gpu, int i);

/* The `job_failed` event of a failed job (also for jobs that failed while
 * planning). */
void cuplas_job_log_failure(cuplas_runner *r, const cuplas_job *job,
                            const cuplas_job_result *res);

/* Free a worker's grow-only job buffers (when it takes no more jobs). */
void cuplas_worker_buffers_free(cuplas_worker *w);

/* On the HDF5 thread: close the input file the reads kept open. */
void cuplas_jobs_unpin(cuplas_runner *r);

#ifdef __cplusplus
}
#endif
#endif
