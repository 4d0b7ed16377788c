/*
 * h5_result.h - read a finished result back: its `index` and `sorted`
 * datasets, the channel names and what it records of its input, for
 * `cuplas eval`, `preview`, `export-sog` and `export-ply`; and an output's
 * attributes (complete, identity, metrics, eval), for resume, `cuplas
 * check` and the manifest. HDF5 calls: a one-thread tool, or the
 * pipeline's HDF5 thread (the eval step works on the grid it holds and
 * never reads a result back).
 *
 * What is returned holds no HDF5 identifier: `sorted` as a grid in its
 * file type (convert with cuplas_h5grid_to_double, any thread), `index`
 * as int64, the names as C strings.
 *
 * Design fact: an attribute a reader uses is either absent or right. One
 * that is there but does not fit the data (input_shape [-1, 14] or a
 * string, channel_names of 3 names for 14 channels, or integers) makes the
 * file not a readable result: ignored, it let export-ply skip its check
 * of IN, and eval blame a missing attribute.
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
    cuplas_h5grid sorted; /* (H, W, C) in the file's type (read_index: empty) */
    int64_t *index;     /* H*W: sorted[cell] = input item index[cell], -1 = empty */
    int64_t cells;      /* H*W                                              */
    char **names;       /* C channel names, or NULL when the file has none   */
    int nnames;         /* entries of names                                 */
    int64_t rows;       /* input_shape's rows (all but its last dimension:
                           N of an (N, C) table or a scene, H*W of a grid);
                           0: no input_shape (not written by cuplas)       */
    int64_t placed;     /* the cells that hold a row                        */
    int64_t dropped;    /* the rows a crop left out (its `dropped` dataset);
                           -1: no such dataset                             */
} cuplas_h5_result;

/* Read the result in `file`'s group `group` ("/a/b"; NULL or "": the only
 * group of the file that holds both `index` and `sorted`). Channel names
 * come from a `channel_names` attribute of the group or of `sorted`: an
 * array of C strings, or one string of names separated by commas or
 * white space. The index passes cuplas_fit_check_index against
 * input_shape's rows. Errors (CUPLAS_ERR_INPUT, CUPLAS_ERR_NOMEM) name
 * file:group: also an input_shape that is not 2 or 3 positive integers,
 * a channel_names that is not strings or not C of them. r is always
 * initialised: free it with cuplas_h5_result_free. */
int cuplas_h5_result_read(const char *file, const char *group, cuplas_h5_result *r,
                          cuplas_error *err);

/* The same but `sorted`'s values (left empty): what export-ply needs. */
int cuplas_h5_result_read_index(const char *file, const char *group, cuplas_h5_result *r,
                                cuplas_error *err);

/* For an export, which writes each placed row once: r records its input
 * (input_shape) and places every row of it but those a crop left out
 * (`dropped`). A full grid with one cell emptied otherwise exports one
 * item short. 0, or CUPLAS_ERR_INPUT naming file:group. */
int cuplas_h5_result_check_whole(const char *file, const cuplas_h5_result *r,
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

/* The string attribute `name` of out_path's group for dataset (`eval`:
 * run's eval step, JSON; `sorted_ply`: the stamp of the PLY written with
 * it), malloc'd; NULL when there is none or it cannot be read. */
char *cuplas_h5_output_str(const char *out_path, const char *dataset, const char *name);

#ifdef __cplusplus
}
#endif
#endif
