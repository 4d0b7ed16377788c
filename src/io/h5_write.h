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
    double and_before, and_after;
    double wall_seconds;
    const char *backend;       /* "cpu" or "gpu"                            */
    const char *device_name;   /* CPU model / GPU name                      */
    const char *identity;      /* input identity + config hash (resume key)  */
    const char *eval_json;     /* run's eval step: the `eval` attribute, or NULL */
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
