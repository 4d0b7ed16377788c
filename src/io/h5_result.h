/*
 * h5_result.h - read a finished result back: its `index` and `sorted`
 * datasets and the channel names, for `cuplas eval` and `cuplas preview`;
 * and an output's attributes (complete, identity, metrics, eval), for
 * resume, `cuplas check` and the manifest. HDF5 calls: a one-thread tool,
 * or the pipeline's HDF5 thread (the eval step works on the grid it holds
 * and never reads a result back).
 *
 * What is returned holds no HDF5 identifier: `sorted` as a grid in its
 * file type (convert with cuplas_h5grid_to_double, any thread), `index`
 * as int64, the names as C strings.
 */
#ifndef CUPLAS_H5_RESULT_H
#define CUPLAS_H5_RESULT_H

#include <stdint.h>

#include "io/grid.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuplas_h5_result {
    char *group;        /* "/grid": the group that holds index and sorted   */
    cuplas_h5grid sorted; /* (H, W, C) in the file's type                   */
    int64_t *index;     /* H*W: sorted[cell] = input item index[cell], -1 = empty */
    char **names;       /* C channel names, or NULL when the file has none   */
} cuplas_h5_result;

/* Read the result in `file`'s group `group` ("/a/b"; NULL or "": the only
 * group of the file that holds both `index` and `sorted`). Channel names
 * come from a `channel_names` attribute of the group or of `sorted`: an
 * array of C strings, or one string of names separated by commas or
 * white space; ignored unless there are exactly C of them. Errors
 * (CUPLAS_ERR_INPUT, CUPLAS_ERR_NOMEM) name file:group. r is always
 * initialised: free it with cuplas_h5_result_free. */
int cuplas_h5_result_read(const char *file, const char *group, cuplas_h5_result *r,
                          cuplas_error *err);

void cuplas_h5_result_free(cuplas_h5_result *r);

/* Is `out_path` a complete cuplas output for this identity (NULL: any)?
 * 1 yes, 0 no. */
int cuplas_h5_output_complete(const char *out_path, const char *dataset, const char *identity);

/* The metrics attributes of a result (and_before, and_after, backend,
 * device), e.g. to describe an output a rerun skipped. 0 on success. */
int cuplas_h5_output_metrics(const char *out_path, const char *dataset, double *and_before,
                             double *and_after, char *backend, size_t bsize, char *device,
                             size_t dsize);

/* What a result records of its input, in out_path's group for dataset:
 * *rows, the items it was sorted from (input_shape without its last,
 * channel, dimension: N of an (N, C) table or a scene, H*W of a grid),
 * and the channel names (*names malloc'd, *nnames of them; NULL when the
 * result has none: free with cuplas_h5_free_names). 0, or -1 when there is
 * no usable input_shape (not a cuplas result); -2 out of memory. */
int cuplas_h5_output_input(const char *out_path, const char *dataset, int64_t *rows,
                           char ***names, int *nnames);

/* The string attribute `name` of out_path's group for dataset (`eval`:
 * run's eval step, JSON; `sorted_ply`: the stamp of the PLY written with
 * it), malloc'd; NULL when there is none or it cannot be read. */
char *cuplas_h5_output_str(const char *out_path, const char *dataset, const char *name);

#ifdef __cplusplus
}
#endif
#endif
