/*
 * channel_names.h - which columns a list of channel selectors means, given
 * the column names of the input (PLY/.splat properties, an HDF5 `columns`
 * attribute). Pure: no I/O, no allocation.
 *
 * A selector is, in this order of precedence:
 *   - an exact name:          "x", "opacity"
 *   - a glob (* ? [...]):     "f_dc_*", "scale_?": every matching name in
 *                             natural order (numbers compare as numbers:
 *                             f_rest_2 before f_rest_10), not file order
 *   - an index:               "3" (0-based column number; kept so that
 *                             configs written for unnamed inputs still work)
 *   - an index range:         "0-8" (inclusive)
 *   - a family range:         "f_dc_0-2" = f_dc_0, f_dc_1, f_dc_2 (a name
 *                             prefix ending in a non-digit, then A-B)
 * The result is in the order written. A column selected twice, a name or
 * index that does not exist, a glob that matches nothing and a descending
 * range are errors (CUPLAS_ERR_USAGE: they are config mistakes); an
 * unknown name's message lists the first available names. The caller
 * adds the config location with cuplas_error_where.
 */
#ifndef CUPLAS_CORE_CHANNEL_NAMES_H
#define CUPLAS_CORE_CHANNEL_NAMES_H

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Resolve sel[0..nsel) against names[0..nnames) into cols (capacity
 * nnames: duplicates are errors, so no more can result) and *k. */
int cuplas_channels_resolve(const char *const *sel, int nsel, const char *const *names,
                            int nnames, int *cols, int *k, cuplas_error *err);

/* The column called exactly `want` (the first one), or -1; names and
 * its entries may be NULL (no name). */
int cuplas_channel_index(const char *const *names, int nnames, const char *want);

/* strcmp, but runs of digits compare by value ("a2" < "a10"). */
int cuplas_natural_cmp(const char *a, const char *b);

#ifdef __cplusplus
}
#endif
#endif
