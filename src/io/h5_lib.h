/*
 * h5_lib.h - the HDF5 library itself: silence, tuning, pinned inputs,
 * version, and what the other h5_ files share. HDF5 calls: on the
 * pipeline's HDF5 thread (h5_thread.h) or in a one-thread tool.
 *
 * This header does not include hdf5.h, so main.c and the commands reach
 * the library through it; HDF5 identifiers travel as int64_t (hid_t).
 */
#ifndef CUPLAS_H5_LIB_H
#define CUPLAS_H5_LIB_H

#include <stddef.h>
#include <stdint.h>

#include "io/dtype.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Silence HDF5's automatic error printing for the calling thread. */
void cuplas_h5_quiet(void);

/* Process-wide memory settings for reading and writing many grids (HDF5
 * free-list limits, glibc malloc thresholds). Call once, before the
 * threads that read and write start; results never depend on it. */
void cuplas_h5_tune(void);

/* The HDF5 library's version, for `cuplas --version`. */
void cuplas_h5_version(unsigned *major, unsigned *minor, unsigned *release);

/* Hold `file` open (read-only) while several grids are read from it:
 * HDF5 then shares the open file with each read's own open. Returns an id
 * for cuplas_h5_unpin, or -1 (nothing held; reads report any error). */
int64_t cuplas_h5_pin(const char *file);
void cuplas_h5_unpin(int64_t id);   /* -1: no-op */

/* ------------------------------------------- for the io layer's h5_ files */

#define CUPLAS_H5_CAUSE_LEN 200   /* HDF5 cause quoted in messages */

/* The innermost HDF5 error description of this thread (the most specific
 * one), on one line, or "". */
const char *cuplas_h5_cause(char buf[CUPLAS_H5_CAUSE_LEN]);

/* "/name" for a dataset or group named "name" or "/name" (malloc'd; NULL
 * when out of memory). */
char *cuplas_h5_dataset_path(const char *dataset);

/* A new HDF5 datatype (hid_t; the caller closes it) for t, or -1: the
 * standard integer or IEEE type of that size, sign and byte order. */
int64_t cuplas_h5_type_create(const cuplas_dtype *t);

/* The inverse: describe the file datatype `tid` in *t and return 0, or -1
 * when cuplas does not take it (not an integer or float, an odd size, or
 * a layout that cuplas_h5_type_create would not rebuild exactly: the
 * write recreates `sorted`'s type from *t, and dtype.c decodes only
 * standard layouts). */
int cuplas_h5_type_classify(int64_t tid, cuplas_dtype *t);

/* Open `file` read-only into *fid (hid_t; the caller closes it), telling
 * "missing", "not a regular file" (a folder, FIFO, socket or device: never
 * handed to HDF5, whose open of a FIFO would block) and "not HDF5 or
 * corrupt" apart in err (CUPLAS_ERR_INPUT; the caller adds the file's
 * name). */
int cuplas_h5_open_input(const char *file, int64_t *fid, cuplas_error *err);

/* The strings of obj's attribute `name` (any shape: a scalar holds one;
 * fixed or variable length; ASCII or UTF-8) as *n malloc'd strings in
 * *out (free each, then *out). No such attribute: 0 with *out NULL, *n 0.
 * Not strings, more than max of them, or unreadable: CUPLAS_ERR_INPUT
 * naming the attribute; CUPLAS_ERR_NOMEM. */
int cuplas_h5_str_attr(int64_t obj, const char *name, int max, char ***out, int *n,
                       cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
