/*
 * h5_write.h - a result's HDF5 file: group, `index` and `sorted` datasets
 * and attributes. HDF5 calls: on the pipeline's HDF5 thread (h5_thread.h)
 * or in a one-thread tool.
 *
 * The data is encoded beforehand (codec.h) and stored afterwards
 * (publish.h) on any thread; this is only the part that needs HDF5. Every
 * output is byte-for-byte reproducible: no modification times are stored
 * on the group or the datasets.
 */
#ifndef CUPLAS_H5_WRITE_H
#define CUPLAS_H5_WRITE_H

#include <stdint.h>

#include "config/config.h"
#include "io/codec.h"
#include "io/grid.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Attributes written on the output group (strings and numbers). */
typedef struct cuplas_result_meta {
    const char *params_yaml;   /* effective sort params + channels, as YAML */
    uint64_t seed;
    const char *version;       /* cuplas version                            */
    double and_before, and_after;   /* NaN: undefined, no two filled cells touch */
    double wall_seconds;
    const char *backend;       /* "cpu" or "gpu"                            */
    const char *device_name;   /* CPU model / GPU name                      */
    const char *identity;      /* input identity + config hash (resume key)  */
    const char *eval_json;     /* run's eval step: the `eval` attribute, or NULL */
    const char *sorted_ply;    /* the scene's sorted PLY published with it, as
                                  "size=S mtime=T" (cuplas_file_stamp); NULL or
                                  "": none */
    const char *sog;           /* run's sog step: the SOG folder published
                                  with it (keys, files, bytes; JSON), or NULL */
} cuplas_result_meta;

/* The HDF5 part of a result's file, for tmp (an empty file from
 * cuplas_tmp_create): group named after in's dataset, `index` and
 * `sorted` (in's type, rebuilt from its description), the attributes of
 * meta, `complete` last. Datasets are compressed and chunked
 * (H5Dwrite_chunk of enc's chunks) or, with deflate 0, contiguous: space
 * allocated here, data left to cuplas_h5_write_raw. A file with at most
 * CUPLAS_H5_IMAGE_MAX_BYTES of data is built in memory and left to
 * write_raw whole (this call then touches no file: -30 % HDF5 time for a
 * 256^2 x 3 result); a larger one is written to tmp and closed here. The
 * caller then calls cuplas_h5_write_raw and cuplas_tmp_publish
 * (publish.h), and unlinks tmp if anything fails. */
int cuplas_h5_write_encoded_to(const char *tmp, const cuplas_h5grid *in, cuplas_h5_encoded *enc,
                               const cuplas_result_meta *meta, cuplas_error *err);

/* A large compressed result written while its chunks are still being
 * encoded (cuplas_h5_encode_run with progress, codec.h): the same HDF5
 * calls in the same order as write_encoded_to's on-disk path, so the same
 * bytes, split over several visits of the HDF5 thread so that other
 * lanes' tasks run between them. open: create tmp, the group and
 * `index`; put: store items [stored, upto) (index's chunks, then
 * sorted's; `sorted` is created after index's last); close: attributes,
 * `complete`, close the file, free s; abort: free s on any failure (the
 * caller unlinks tmp). Only for files write_encoded_to would not build in
 * memory (more than CUPLAS_H5_IMAGE_MAX_BYTES of encoded data). */
typedef struct cuplas_h5_wstream cuplas_h5_wstream;
int cuplas_h5_wstream_open(const char *tmp, const cuplas_h5grid *in, cuplas_h5_encoded *enc,
                           cuplas_h5_wstream **s, cuplas_error *err);
int cuplas_h5_wstream_put(cuplas_h5_wstream *s, size_t upto, cuplas_error *err);
int cuplas_h5_wstream_close(cuplas_h5_wstream *s, const cuplas_result_meta *meta,
                            cuplas_error *err);
void cuplas_h5_wstream_abort(cuplas_h5_wstream *s);

/* One-thread tools: write_encoded_to + write_raw + publish (with fsync)
 * at out_path, after checking its folder. Does not free enc. */
int cuplas_h5_write_encoded(const char *out_path, const cuplas_h5grid *in, cuplas_h5_encoded *enc,
                            const cuplas_result_meta *meta, cuplas_error *err);

/* One-thread tools: encode (uncompressed unless opts say otherwise) and
 * write_encoded. index values are validated (a permutation) before
 * anything is written. */
int cuplas_h5_write_result(const char *out_path, const cuplas_h5grid *in, const int64_t *index,
                           const cuplas_output_opts *opts, const cuplas_result_meta *meta,
                           cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
