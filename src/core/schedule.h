/*
 * schedule.h - the blur-radius schedule and block geometry of every level.
 *
 * Computed once on the host and handed unchanged to either backend, so the
 * floating-point decay of the radius can never differ between CPU and GPU.
 */
#ifndef CUPLAS_SCHEDULE_H
#define CUPLAS_SCHEDULE_H

#include <stdint.h>

#include "util/error.h"
#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuplas_level {
    int radius;      /* nominal blur radius r (box of width 2r+1)        */
    int rx, ry;      /* per-pass box radius along x and y after clamping */
    int64_t bh, bw;  /* block height and width; bh*bw % 4 == 0           */
} cuplas_level;

typedef struct cuplas_schedule {
    cuplas_level *levels;
    int nlevels;
} cuplas_schedule;

/* Build the schedule for an H x W grid (H*W >= 4). */
int cuplas_schedule_build(int64_t H, int64_t W, const cuplas_sort_params *p,
                          cuplas_schedule *s, cuplas_error *err);
void cuplas_schedule_free(cuplas_schedule *s);

#ifdef __cplusplus
}
#endif
#endif
