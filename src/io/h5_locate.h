/*
 * h5_locate.h - locating an input's chunks for the hand decoder, and the
 * checks that decide whether it may read them (h5_locate.c states the
 * rule). For h5_read.c only: HDF5 calls, on the HDF5 thread.
 */
#ifndef CUPLAS_H5_LOCATE_H
#define CUPLAS_H5_LOCATE_H

#include <hdf5.h>

#include "io/codec.h"
#include "io/grid.h"
#include "util/error.h"

/* f's geometry, pipeline and fill value, or f->whole (and whole_why) when
 * HDF5 must decode: not chunked, other filters. A damaged chunk layout is
 * an error. */
int cuplas_h5_plan_fetch(hid_t did, hid_t tid, const cuplas_h5grid *g, cuplas_h5_fetch *f,
                         cuplas_error *err);

/* Where every chunk is, checked against the index's lookup, the file and
 * each other; on doubt f->whole and nothing kept. */
int cuplas_h5_fetch_chunks(hid_t fid, hid_t did, const cuplas_h5grid *g, cuplas_h5_fetch *f,
                           cuplas_error *err);

/* On doubt, before H5Dread: every chunk HDF5's lookup finds decodes to
 * exactly the chunk's bytes. */
int cuplas_h5_check_by_lookup(hid_t did, const cuplas_h5grid *g, const cuplas_h5_fetch *f,
                              cuplas_error *err);

/* Before H5Dread of a fletcher32-only dataset: every stored chunk is the
 * chunk plus its checksum. */
int cuplas_h5_check_fletcher_sizes(hid_t did, const cuplas_h5grid *g, cuplas_error *err);

#endif
