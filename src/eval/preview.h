/*
 * preview.h - a picture of a result: the input order and the sorted grid
 * side by side in one RGB image (`cuplas preview`, output.preview).
 *
 * Three channels (the first three, or chosen ones; one channel is gray,
 * two are red and green) are each mapped to 0..255 over a robust range,
 * their 1st to 99th percentile over the items, the same range for both
 * panels so that equal colours mean equal values. A grid larger than
 * max_side is shrunk by a whole factor with a box filter (the mean of the
 * items under each output pixel); a grid under 256 pixels high is
 * enlarged by a whole factor (each cell a square block). Empty cells and the 8-pixel gap between
 * the panels are dark gray (32). The left panel is the input order laid
 * row-major (for an (H, W, C) input: the input as it was stored).
 */
#ifndef CUPLAS_EVAL_PREVIEW_H
#define CUPLAS_EVAL_PREVIEW_H

#include <stdint.h>

#include "util/error.h"
#include "eval/schemes.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUPLAS_PREVIEW_GAP 8

typedef struct cuplas_preview_opts {
    int channels[3];   /* channel indices                                */
    int nchannels;     /* 1..3; 0 = the first min(3, C)                   */
    int max_side;      /* largest side of the whole image (1024)         */
    double lo_pct, hi_pct;   /* the robust range, percent (1, 99)        */
} cuplas_preview_opts;

void cuplas_preview_opts_default(cuplas_preview_opts *o);

/* "0,1,2" (one to three distinct indices) into o. 0 or CUPLAS_ERR_USAGE. */
int cuplas_preview_parse_channels(const char *list, cuplas_preview_opts *o, cuplas_error *err);

/* The preview of items (N x C, input order) and sorted (H*W cells, -1
 * empty) into out (RGB, px malloc'd, name "preview"). Errors:
 * CUPLAS_ERR_USAGE (a channel >= C, max_side too small for the grid),
 * CUPLAS_ERR_NOMEM. */
int cuplas_preview_build(const double *items, int64_t N, int C, const int64_t *sorted, int64_t H,
                         int64_t W, const cuplas_preview_opts *o, cuplas_eval_image *out,
                         cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
