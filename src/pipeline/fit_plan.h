/*
 * fit_plan.h - the planning steps a job needs for scenes, any N and
 * channels by name: the grid a job's N items fill (core/fit.h) and its
 * channel selectors resolved against the input's column names
 * (core/channel_names.h). Called by jobs.c once per job, after the probe.
 *
 * Design fact: a selector is resolved while planning, before any job
 * runs, so a channel name that an input lacks stops the whole run as a
 * config error (exit 2, nothing written) with the config line that named
 * it, instead of failing job after job at run time.
 */
#ifndef CUPLAS_FIT_PLAN_H
#define CUPLAS_FIT_PLAN_H

#include "config/config.h"
#include "io/grid.h"
#include "pipeline/jobs.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Probe job j's input (a scene's header, or an HDF5 dataset: first as
 * before, then, where grid.* or the entry's height x width ask for a fit,
 * as N x 1). On a bad input, j->err is set and 1 is returned (the job
 * fails, the plan goes on); 0 on success with g filled. */
int cuplas_job_probe(cuplas_job *j, const cuplas_config *cfg, struct cuplas_probe_cache *pc,
                     cuplas_h5grid *g);

/* Decide j's grid (H, W, nrows, crop, read_height/read_width) from the
 * probed g, and resolve channels.use, the transforms and grid.crop_by
 * against g->names. A grid that does not suit the input sets j->err (the
 * job fails); a selector that names nothing in the input returns
 * CUPLAS_ERR_USAGE (the run stops). */
int cuplas_job_plan_grid(cuplas_job *j, const cuplas_config *cfg, const cuplas_h5grid *g,
                         cuplas_error *err);

/* " grid=HxW fit=pad" (and the crop column) for a fitted job's identity,
 * "" otherwise, into buf. */
const char *cuplas_job_fit_identity(const cuplas_job *j, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
