/*
 * progress.h - "[#####.....] 12/64 datasets, 3.1 grids/s, ETA 17 s;
 * level 40/122" on a terminal, for `cuplas run` and `cuplas sort`.
 *
 * Drawn only with a text log on a terminal (cuplas_log_progress decides
 * for each line; the ticker is not even started otherwise).
 */
#ifndef CUPLAS_PIPELINE_PROGRESS_H
#define CUPLAS_PIPELINE_PROGRESS_H

#include "pipeline/runner.h"

/* A job has ended: count it and redraw. Any worker thread. */
void cuplas_progress_job_done(cuplas_runner *r);

/* The ticker redraws the line every half second until stopped; start
 * once the workers start, stop once they have all returned. A failed
 * start leaves the per-job redraws. */
void cuplas_ticker_start(cuplas_runner *r);
void cuplas_ticker_stop(cuplas_runner *r);

#endif
