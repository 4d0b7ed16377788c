/*
 * h5_read.h - input grids from HDF5 files: open, check, locate the data;
 * probe shapes (a file's grids are listed by h5_list.h). HDF5 calls: on
 * the pipeline's HDF5 thread (h5_thread.h) or in a one-thread tool.
 *
 * What a read returns holds no HDF5 identifier: a grid (grid.h) with a
 * plain type description, and for chunked data a cuplas_h5_fetch that
 * cuplas_h5_read_finish (codec.h) completes on any thread.
 */
#ifndef CUPLAS_H5_READ_H
#define CUPLAS_H5_READ_H

#include <stddef.h>
#include <stdint.h>

#include "io/codec.h"
#include "io/grid.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flags of read_begin and probe_grid. ALLOW_EXTERNAL: follow external
 * links and read external storage and virtual datasets whose data is in
 * other files (refused by default: a hostile input could name any local
 * file, inputs[].allow_external). */
#define CUPLAS_H5_ALLOW_EXTERNAL 1u

/* Open `file`:`dataset`, check rank/shape/type and locate its data: on
 * success *fetch holds where every stored chunk is (pass it to
 * cuplas_h5_read_finish, which fetches and decodes them without HDF5).
 * Data that the hand decoder does not cover (contiguous/compact layout,
 * filters other than shuffle and deflate) is read whole here instead
 * (fetch->whole). height/width: for rank-2 (N, C) data, 0 = from the
 * dataset's "height" and "width" attributes, else a square N; one of
 * them alone fixes the other. Rank-3 data keeps its own (H, W) and
 * ignores them. bufs (or NULL: memory of its own) lends the stored bytes
 * and g->raw. Errors name file:dataset; on failure *fetch is NULL and g
 * is freed. */
int cuplas_h5_read_begin(const char *file, const char *dataset, int64_t height, int64_t width,
                         unsigned flags, cuplas_h5grid *g, cuplas_h5_fetch **fetch,
                         cuplas_h5_buffers *bufs, cuplas_error *err);

/* read_begin (flags 0) + read_finish in one call (one-thread tools and tests). g is
 * always initialised (free it even after a failure). */
int cuplas_h5_read_grid(const char *file, const char *dataset, int64_t height, int64_t width,
                        cuplas_h5grid *g, cuplas_error *err);

/* Shape/type only, no data (for `cuplas check` and scheduling). */
int cuplas_h5_probe_grid(const char *file, const char *dataset, int64_t height, int64_t width,
                         unsigned flags, cuplas_h5grid *g, cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
