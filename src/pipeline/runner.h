/*
 * runner.h - executes a job list: a shared queue drained by workers.
 *
 * One worker for the CPU backend (OpenMP inside each sort). For the GPU
 * backend, one OpenMP thread per GPU owns that device and runs
 * backend.lanes lanes (nested threads), each with its own stream, pinned
 * buffers and workspace: while one lane's grid sorts, another uploads or
 * reads, a third downloads or writes, and small grids share the GPU.
 * Workers take the next job in list order under a lock and run it
 * through its stages (stages.h); every HDF5 call runs on one HDF5 thread
 * (h5_thread.h). Each job ends in a result record (state, error,
 * metrics, timings, device) kept in an array parallel to the job list, so
 * that a manifest can be written from it later. Workers never exit the
 * process: failures are recorded and the other jobs go on.
 */
#ifndef CUPLAS_RUNNER_H
#define CUPLAS_RUNNER_H

#include <pthread.h>

#include "config/config.h"
#include "pipeline/gpu_admit.h"
#include "util/error.h"
#include "io/grid.h"
#include "pipeline/jobs.h"
#include "util/lock.h"
#include "util/log.h"
#include "util/pool.h"
#include "core/level.h"
#include "eval/evaluate.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CUPLAS_JOB_PENDING = 0, /* not started (or left when cancelled)      */
    CUPLAS_JOB_DONE,        /* sorted and written                        */
    CUPLAS_JOB_SKIPPED,     /* a complete output with this identity exists */
    CUPLAS_JOB_FAILED,      /* err says why                              */
    CUPLAS_JOB_CANCELLED    /* stopped by a signal while running          */
} cuplas_job_state;

typedef struct cuplas_job_result {
    cuplas_job_state state;
    cuplas_error err;          /* FAILED / CANCELLED                        */
    int worker;                /* index into runner.workers, -1 = none       */
    char backend[4];           /* "cpu" | "gpu" (after a fallback: "cpu")    */
    int gpu;                   /* device id, -1 = CPU                        */
    double and_before, and_after;   /* NaN: no two filled cells touch */
    double read_s, prep_s, sort_s, write_s, total_s;
    double encode_s;           /* part of write_s: gather + filters, no lock */
    double h5_wait_s;          /* queued for the HDF5 thread, all stages     */
    double h5_s;               /* in HDF5 calls on that thread               */
    double ply_s;              /* part of write_s: the sorted PLY, gathered
                                  and written (fsync and rename not in it)  */
    cuplas_sort_stats stats;   /* stats.levels counts up during a CPU sort */
    volatile int levels_total; /* the sort's levels, once it has started     */
    double eval_s;             /* eval step and preview (eval.enabled, output.preview) */
    double sog_s;              /* sog step: the SOG folder made (sog.enabled)   */
    int64_t sog_bytes;         /* its files' total size                         */
    cuplas_eval_result *eval;  /* malloc'd: the eval step's result, or NULL       */
    char *preview;             /* malloc'd: the published preview PNG, or NULL    */
} cuplas_job_result;

typedef struct cuplas_worker {
    int gpu;                   /* device id, -1 = the CPU worker             */
    int lane;                  /* lane of that device (GPU workers)          */
    int dev;                   /* index into runner.gates                    */
    size_t held;               /* device bytes reserved through the gate     */
    double gpu_ms;             /* upload + sort + download, by CUDA events,
                                  and the sog step's SH palette searches     */
    double bytes;              /* host<->device bytes moved                  */
    char name[192];            /* device name as written to outputs          */
    int jobs;                  /* jobs this worker finished (any state)      */
    int sorted;                /* of those, the ones done (the grids/s)      */
    double busy_s;             /* time spent inside jobs                     */
    /* grow-only host buffers of this worker's jobs: a fresh 100+ MiB block
       per grid costs page faults and, freed, TLB shootdowns on every core */
    double *x;                 /* features, N x channels                     */
    size_t x_cap;
    int64_t *index;
    size_t index_cap;
    cuplas_h5_buffers io;      /* the grid's stored chunks and data          */
    cuplas_error err;          /* the worker could not start (GPU init)      */
    volatile int sorting;      /* 1 + the job it is sorting now, or 0: read
                                  by the progress line's ticker              */
    /* a GPU lane's context, made while it reads its first grid (lane_init.h) */
    struct cuplas_gpu_ctx *ctx;  /* NULL until the lane has waited for it    */
    int init_done;             /* waited: 1 ready, -1 failed (takes no jobs) */
    int retired;               /* its context handed back (lane_init.h)     */
    double init_wait_s;        /* how long it waited, before its first sort  */
    double ready_at;           /* when its context was ready (cuplas_now_s)  */
} cuplas_worker;

typedef struct cuplas_runner {
    const cuplas_config *cfg;
    const cuplas_jobs *jobs;
    cuplas_log *log;
    cuplas_job_result *results;  /* jobs->n records                          */
    cuplas_worker *workers;
    int nworkers;
    int use_gpu;                 /* resolved backend.device                  */
    int ndev, lanes;             /* GPUs used, lanes (workers) per GPU       */
    cuplas_gpu_admit *gates;       /* one memory gate per GPU used             */
    int finished;                /* jobs finished, for the progress line      */
    double t_start;
    volatile int cancel;         /* set by signal handlers; polled by workers */
    int next;                    /* queue head, under queue_lock             */
    cuplas_lock queue_lock;
    struct cuplas_h5exec *h5;    /* the HDF5 thread, while the run runs       */
    cuplas_pool *pool;           /* the GPU lanes' host loops, while running  */
    int fallback_threads;        /* OpenMP threads of a lane's CPU fallback    */
    struct cuplas_dirsync *dirsync; /* output.fsync: folders to sync in batches */
    int *sync_bad, nsync_bad;    /* jobs whose folder fsync failed (queue_lock) */
    struct cuplas_ticker *ticker; /* redraws the progress line mid-sort      */
    char *pin_path;              /* input file the HDF5 thread keeps open     */
    int64_t pin_id;              /* (cuplas_h5_pin), or -1                    */
    char cpu_name[128];
    double wall_s;
    /* GPU lanes start-up (lane_init.h): per device, and the jobs a lane
       whose GPU failed gave back; lanes wait on lane_mu for them while
       another lane's start-up is pending */
    struct cuplas_lanes_init **inits;
    int *given_back, ngiven_back, inits_pending;
    pthread_mutex_t lane_mu;
    pthread_cond_t lane_cv;
    /* where a process's time goes (the run_timing log event): the caller
       sets t_main (when the command started, cuplas_now_s), plan_s (jobs
       planned) and warm (the GPU contexts made ahead, gpu_warm.h, or NULL) */
    double t_main, plan_s;
    struct cuplas_gpu_warm *warm;
    double t_first_job, t_last_job;   /* first job started, last ended   */
    double teardown_s;                /* last job ended -> run returned   */
} cuplas_runner;

/*
 * Resolve the backend and its workers. Returns CUPLAS_ERR_NODEVICE when
 * backend.device is gpu (or backend.gpus names a device) and no usable GPU
 * is there: a fatal environment error, exit CUPLAS_EXIT_FATAL.
 */
int cuplas_runner_init(cuplas_runner *r, const cuplas_config *cfg, const cuplas_jobs *jobs,
                       cuplas_log *log, cuplas_error *err);


/* Run every job. Returns 0, or CUPLAS_ERR_NODEVICE if no worker could
 * start (fatal); job failures are in results, not in the return value. */
int cuplas_runner_run(cuplas_runner *r, cuplas_error *err);

/* Counts, wall time, per-device load and every failure, to the log. */
void cuplas_runner_summary(cuplas_runner *r);

/* 0 all done or skipped, 1 some failed, 75 cancelled (CUPLAS_EXIT_*). */
int cuplas_runner_exit_code(const cuplas_runner *r);

void cuplas_runner_free(cuplas_runner *r);

const char *cuplas_job_state_name(cuplas_job_state s);

#ifdef __cplusplus
}
#endif
#endif
