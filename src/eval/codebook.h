/*
 * codebook.h - a 256-entry codebook for a pool of values, as PlayCanvas
 * SOG codes its scales and colours (the playcanvas scheme, schemes.h).
 *
 * The method (splat-transform's 1-D quantiser, reimplemented from its
 * description): the finite values are binned into 1024 equal bins over
 * their min..max; a bin stands for the mean of its values with weight
 * sqrt(count) (sparse tails still get entries); the bins are split into
 * at most 256 runs minimising the weighted squared error, exactly (a
 * dynamic programme); each entry is its run's weighted mean, ascending,
 * the last repeated when there are fewer runs than entries. A value's
 * label is its nearest entry (ties to the higher). The same values give
 * the same codebook in any order, so every order of a grid gets the same
 * labels.
 */
#ifndef CUPLAS_EVAL_CODEBOOK_H
#define CUPLAS_EVAL_CODEBOOK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUPLAS_CODEBOOK_SIZE 256
#define CUPLAS_CODEBOOK_BINS 1024

/* The codebook of the values x[i * C + ch[j]] pooled over the cells i <
 * cells (empty NULL or nonzero for a cell to leave out) and j < nch,
 * non-finite ones left out, into entry[CUPLAS_CODEBOOK_SIZE]. No finite
 * value: every entry 0. */
void cuplas_codebook_build(const double *x, int64_t cells, int C, const int *ch, int nch,
                           const uint8_t *empty, double *entry);

/* v's label: the nearest entry (0 for a non-finite v). */
uint8_t cuplas_codebook_label(const double *entry, double v);

/* The optimal split of H weighted points (x ascending, w >= 0) into at most
 * k runs: the weighted means of the runs into mean[], ascending; returns the
 * number of runs (at most k, at most the points of positive weight; 0
 * when none, or out of memory). Exposed for its test against the
 * textbook programme. */
int cuplas_codebook_split(const double *x, const double *w, int H, int k, double *mean);

#ifdef __cplusplus
}
#endif
#endif
