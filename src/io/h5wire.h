/*
 * h5wire.h - an uncompressed result's metadata, built in another process.
 *
 * An uncompressed result file is metadata (superblock, group, dataset
 * headers, 14 attributes) plus two contiguous data regions. HDF5 needs
 * none of the data to lay out the metadata, so a helper process
 * (h5helper.c), with its own HDF5 library, can build it from a short
 * request: shapes, the file type, the attributes. Its reply is the
 * in-memory file's bytes but for the data regions, and their offsets:
 * what write_encoded_to leaves in enc for write_raw. The pipeline's one
 * HDF5 thread then only reads, and many small results are built at once.
 *
 * Messages are byte strings in host order (both ends are the same binary
 * on the same machine), starting with a magic that names the version.
 */
#ifndef CUPLAS_H5WIRE_H
#define CUPLAS_H5WIRE_H

#include <stddef.h>

#include "util/error.h"
#include "io/h5io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Can a helper build enc's file? Uncompressed, built in memory (at most
 * 8 MiB of data), and in's type kept (cuplas_h5grid_keep_type). */
int cuplas_h5wire_fits(const cuplas_h5grid *in, const cuplas_h5_encoded *enc);

/* No HDF5 calls: the request for write_encoded_to(tmp, in, enc, meta) as
 * a malloc'd message. */
int cuplas_h5wire_request(const char *tmp, const cuplas_h5grid *in,
                          const cuplas_h5_encoded *enc, const cuplas_result_meta *meta,
                          unsigned char **msg, size_t *len, cuplas_error *err);

/* Serialised (in the helper): build the file a request describes and
 * return the reply as a malloc'd message. A failure to build it (the
 * same errors as write_encoded_to) travels in the reply; the return is
 * nonzero only when no reply could be made (a malformed request, out of
 * memory). */
int cuplas_h5wire_serve(const unsigned char *req, size_t req_len,
                        unsigned char **msg, size_t *len, cuplas_error *err);

/* No HDF5 calls: put a reply into enc (as write_encoded_to would have
 * left it), or return the error it carries. */
int cuplas_h5wire_apply(const unsigned char *reply, size_t len, cuplas_h5_encoded *enc,
                        cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
