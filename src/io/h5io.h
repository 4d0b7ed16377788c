/*
 * h5io.h - HDF5 input grids and atomic output files.
 *
 * Reading keeps the data in its file type (raw bytes), so `sorted` is
 * written back in exactly the input's dtype (float16 and odd integer types
 * included) by gathering whole rows; a separate call converts the chosen
 * channels to double for the sorter. Output files are written under a
 * temporary name in the destination directory, closed, fsync'd and
 * renamed into place: a reader never sees a file that looks complete
 * but is not. All HDF5 calls must come from one thread at a time: the
 * caller serialises them (the pipeline's HDF5 thread, src/h5exec.c);
 * "serialised" below means such a call.
 *
 * Chunked + filtered data is moved through HDF5 as stored (compressed)
 * chunk bytes only; the zlib and byte-shuffle work happens in the
 * *_finish / *_encode_* phases, which make no HDF5 call and so run
 * in parallel outside the HDF5 thread, chunk by chunk (cuplas_par_for).
 */
#ifndef CUPLAS_H5IO_H
#define CUPLAS_H5IO_H

#include <stdint.h>
#include <stddef.h>

#include "config/config.h"
#include "util/error.h"
#include "util/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuplas_h5grid {
    char *file;          /* input path                                     */
    char *dataset;       /* dataset path inside the file, "/a/b"           */
    int64_t H, W, C;     /* grid shape; N = H*W                            */
    int in_rank;         /* 2 (N, C) or 3 (H, W, C)                        */
    int64_t in_dims[3];  /* the dataset's own dimensions                   */
    char dtype[16];      /* "uint8", "int16", "float32", "float16", ...    */
    size_t elem_size;    /* bytes per value in the file type                */
    int64_t file_type;   /* hid_t of the (copied) file datatype, or -1      */
    void *raw;           /* N*C*elem_size bytes, row-major, file type       */
    int native;          /* little-endian standard layout: to_double decodes
                            raw itself, without HDF5 calls                  */
    int raw_lent;        /* raw belongs to a cuplas_h5_buffers, not to g    */
} cuplas_h5grid;

/* Grid-sized memory that a caller (a pipeline lane) lends to its reads one
 * job after another. It grows and is never handed back between jobs: a
 * 64 MiB grid allocated per job is mapped, faulted in page by page and
 * unmapped each time, and with dozens of lanes those faults and unmaps
 * queue on the kernel's per-process memory lock. One grid at a time may
 * use a given cuplas_h5_buffers. Zero-initialise; free with
 * cuplas_h5_buffers_free. */
enum {
    CUPLAS_H5_STORED,   /* stored chunk bytes: read_begin to read_finish    */
    CUPLAS_H5_RAW,      /* the grid's data: until cuplas_h5grid_free        */
    CUPLAS_H5_SORTED,   /* uncompressed results: encode to encoded_free     */
    CUPLAS_H5_INDEX,
    CUPLAS_H5_NBUF
};
typedef struct cuplas_h5_buffers {
    unsigned char *p[CUPLAS_H5_NBUF];
    size_t cap[CUPLAS_H5_NBUF];
} cuplas_h5_buffers;
void cuplas_h5_buffers_free(cuplas_h5_buffers *b);

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
} cuplas_result_meta;

/* Names of every numeric dataset of rank 2 or 3 in `file`, sorted
 * (malloc'd array of malloc'd strings, "/a/b" form). */
int cuplas_h5_list_datasets(const char *file, char ***names, int *count,
                            cuplas_error *err);
void cuplas_h5_free_names(char **names, int count);

/* Open `file`:`dataset`, check rank/shape/type, read it whole
 * (read_begin + read_finish).
 * height/width: for rank-2 (N, C) data, 0 = from the dataset's "height"
 * and "width" attributes, else a square N; one of them alone fixes the
 * other. Rank-3 data keeps its own (H, W) and ignores them. Errors name
 * file:dataset; g is always initialised (free it even after a failure). */
int cuplas_h5_read_grid(const char *file, const char *dataset,
                        int64_t height, int64_t width,
                        cuplas_h5grid *g, cuplas_error *err);

/* Shape/type only, no data (for `cuplas check` and scheduling). */
int cuplas_h5_probe_grid(const char *file, const char *dataset,
                         int64_t height, int64_t width,
                         cuplas_h5grid *g, cuplas_error *err);

void cuplas_h5grid_free(cuplas_h5grid *g);

/* Convert channels `use[0..nuse)` of g to double, row-major N x nuse
 * (little-endian standard types in parallel on pool; others through HDF5,
 * a serialised call). Rejects NaN and Inf with the first offending cell
 * and channel. */
int cuplas_h5grid_to_double(const cuplas_h5grid *g, const int *use, int nuse,
                            double *out, cuplas_pool *pool, cuplas_error *err);

/* Write `out_path` atomically: group named after the input dataset with
 * `index` (H x W, int32 or int64 when N > 2^31-1), `sorted` (H x W x C,
 * input dtype, sorted[c] = input[index[c]]) and the attributes of `meta`.
 * index values are validated (a permutation) before anything is written.
 * (encode_result + write_encoded.) */
int cuplas_h5_write_result(const char *out_path, const cuplas_h5grid *in,
                           const int64_t *index,
                           const cuplas_output_opts *opts,
                           const cuplas_result_meta *meta,
                           cuplas_error *err);

/*
 * Two-phase I/O: only the *_begin / *_write_* phases call HDF5 (serialised);
 * they move stored chunk bytes, and the other phases make no HDF5 call.
 *
 * The parallel phases loop over chunks with cuplas_par_for: on `pool`'s
 * threads, or with pool NULL an OpenMP loop with the calling thread's
 * settings. Results never depend on the thread count.
 */

/* Serialised: open, validate (same checks and messages as
 * read_grid) and fetch every chunk's stored bytes and filter mask. Data
 * that the hand decoder does not cover (contiguous/compact layout, filters
 * other than shuffle and deflate) is read whole here instead. On success
 * *fetch owns the fetched bytes (pass it to read_finish); on failure
 * *fetch is NULL and g is freed, as with read_grid. bufs (or NULL: memory
 * of its own) lends the stored bytes and g->raw. */
typedef struct cuplas_h5_fetch cuplas_h5_fetch;
int cuplas_h5_read_begin(const char *file, const char *dataset,
                         int64_t height, int64_t width,
                         cuplas_h5grid *g, cuplas_h5_fetch **fetch,
                         cuplas_h5_buffers *bufs, cuplas_error *err);

/* No HDF5 calls: inflate, unshuffle and place every chunk into g->raw (in
 * parallel). Never-written chunks become the dataset's fill value. Always
 * frees fetch. On failure (a corrupt chunk: CUPLAS_ERR_INPUT naming the
 * chunk) g->raw is NULL; free g with cuplas_h5grid_free (an HDF5 call). */
int cuplas_h5_read_finish(cuplas_h5grid *g, cuplas_h5_fetch *fetch, cuplas_pool *pool,
                          cuplas_error *err);

/* No HDF5 calls: check that index is a permutation, then build the stored
 * chunks of `index` and `sorted` (chunk_rows x W [x C], the layout of
 * write_result) with the filters of opts (shuffle, then deflate at its
 * level), in parallel. The bytes are what HDF5's own filters store.
 * Uncompressed results go into memory lent by bufs (or NULL: their own).
 * Errors carry "in-file:dataset" as their where. */
typedef struct cuplas_h5_encoded cuplas_h5_encoded;
int cuplas_h5_encode_result(const cuplas_h5grid *in, const int64_t *index,
                            const cuplas_output_opts *opts, cuplas_h5_buffers *bufs,
                            cuplas_pool *pool, cuplas_h5_encoded **enc, cuplas_error *err);

/* Serialised: write_result's file (temp name, same datasets,
 * creation properties and attributes, `complete` last, fsync, rename)
 * from encoded chunks (write_encoded_to + write_raw + publish). Does not
 * free enc. */
int cuplas_h5_write_encoded(const char *out_path, const cuplas_h5grid *in,
                            cuplas_h5_encoded *enc,
                            const cuplas_result_meta *meta, cuplas_error *err);
void cuplas_h5_encoded_free(cuplas_h5_encoded *enc);

/* Is `out_path` a complete cuplas output for this identity?  1 yes, 0 no. */
int cuplas_h5_output_complete(const char *out_path, const char *dataset,
                              const char *identity);

/* The metrics attributes of a result (and_before, and_after, backend,
 * device), e.g. to describe an output a rerun skipped. 0 on success. */
int cuplas_h5_output_metrics(const char *out_path, const char *dataset, double *and_before,
                             double *and_after, char *backend, size_t bsize, char *device,
                             size_t dsize);

/* Rows per output chunk: chunk_rows clamped to [1, H], or for 0 about
 * 1 MiB of row_bytes-sized rows (shared by result writing and `gen`). */
int64_t cuplas_h5_chunk_rows(int64_t H, size_t row_bytes, int64_t chunk_rows);

/* Atomic publication, shared with `gen`: create a unique empty temp file
 * ".<name>.tmp.<pid>.XXXXXX" next to out_path (malloc'd path, NULL on
 * error); after the writer closed it, rename it onto out_path, with sync
 * (output.fsync) fsyncing the file before and the folder after. The caller
 * unlinks the temp file on failure. */
char *cuplas_tmp_create(const char *out_path, cuplas_error *err);
int cuplas_tmp_publish(const char *tmp, const char *out_path, int sync, cuplas_error *err);

/* Serialised: write_encoded's file for tmp (an empty file from
 * cuplas_tmp_create). The caller then calls write_raw and
 * cuplas_tmp_publish, which make no HDF5 call, in parallel, and
 * unlinks tmp if anything fails. Datasets are compressed and chunked
 * (H5Dwrite_chunk) or, with deflate 0, contiguous: space allocated here,
 * data left to write_raw. A file with at most 8 MiB of data is built in
 * memory and left to write_raw whole (this call then touches no file:
 * -30 % HDF5 time for a 256^2 x 3 result); a larger one is written to tmp
 * and closed here. */
int cuplas_h5_write_encoded_to(const char *tmp, const cuplas_h5grid *in,
                               cuplas_h5_encoded *enc, const cuplas_result_meta *meta,
                               cuplas_error *err);

/* Does write_encoded_to build enc's file in memory (at most 8 MiB of data)? */
int cuplas_h5_encoded_in_memory(const cuplas_h5_encoded *enc);

/* No HDF5 calls: store what write_encoded_to left: the in-memory file,
 * then the contiguous data (pwrite at the datasets' offsets, in
 * parallel); a no-op when it left nothing. */
int cuplas_h5_write_raw(const char *tmp, const cuplas_h5_encoded *enc, cuplas_pool *pool,
                        cuplas_error *err);

/* Hold `file` open (read-only) while several grids are read from it:
 * HDF5 then shares the open file with each read's own open. Returns an id
 * for cuplas_h5_unpin, or -1 (nothing held; reads report any error). */
int64_t cuplas_h5_pin(const char *file);
void cuplas_h5_unpin(int64_t id);   /* -1: no-op */

/* Silence HDF5's automatic error printing for the calling thread. */
void cuplas_h5_quiet(void);

/* Process-wide memory settings for reading and writing many grids (HDF5
 * free-list limits, glibc malloc thresholds). Call once, before the
 * threads that read and write start; results never depend on it. */
void cuplas_h5_tune(void);

#ifdef __cplusplus
}
#endif
#endif
