/*
 * lane_init.h - one GPU's lanes made ready on a thread of their own, while
 * the lanes already read and prepare their first grids. Private to
 * src/pipeline/ (runner.c, stages.c).
 *
 * What a lane needs before its first sort, and what this thread makes:
 * the device's memory budget (the admission gate), the device's sort
 * order, and per lane a context (stream, events) with its pinned buffers
 * sized from the plan. A lane waits for its own context
 * only when it is about to sort (cuplas_lanes_init_wait).
 */
#ifndef CUPLAS_LANE_INIT_H
#define CUPLAS_LANE_INIT_H

#include "pipeline/runner.h"

struct cuplas_gpu_ctx;
typedef struct cuplas_lanes_init cuplas_lanes_init;

/* Start making device dev's lanes (r->lanes of them, workers dev*lanes
 * ...), each with pinned buffers sized from the plan for the grid it will
 * likely take first (the list is largest grid first). Without a thread
 * they are made here; NULL only when out of memory. */
cuplas_lanes_init *cuplas_lanes_init_start(cuplas_runner *r, int dev);

/* Wait for lane's context: 0 with *ctx (the lane's to free), or the error
 * in *err (the lane takes no jobs). Each lane calls it once; *waited_s
 * gets the time spent waiting. */
int cuplas_lanes_init_wait(cuplas_lanes_init *li, int lane, struct cuplas_gpu_ctx **ctx,
                           double *waited_s, cuplas_error *err);

/* Join the threads and free li with the device's sort order and the
 * contexts of its retired lanes; every lane has waited and retired. */
void cuplas_lanes_init_free(cuplas_lanes_init *li);

/* Lane w's GPU context before its first sort (waits for it once): 0
 * (w->ctx set), or -1 when it could not be made (logged; the lane takes
 * no more jobs and its job goes to another lane). */
int cuplas_lane_ready(cuplas_runner *r, cuplas_worker *w);

/* Lane w will sort nothing more: its reservation leaves the device's gate
 * and its context goes back (w->ctx = NULL); the last lane of a device
 * starts freeing them all and releasing the device. Once per lane; again
 * is a no-op. Call it after the lane's last sort, not its last write. */
void cuplas_lane_retire(cuplas_runner *r, cuplas_worker *w);

/* Retire lane w if no job is left for any lane to take, now or later
 * (the queue is past its end, nothing was given back, every lane's
 * start-up is over); 1 if it retired. */
int cuplas_lane_retire_if_drained(cuplas_runner *r, cuplas_worker *w);

#endif
