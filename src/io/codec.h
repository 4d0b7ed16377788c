/*
 * codec.h - stored HDF5 chunks to a grid and a result to stored chunks,
 * by hand. No HDF5 calls: any thread, in parallel (cuplas_par_for).
 *
 * Chunked data with only shuffle/deflate filters never goes through
 * HDF5's filter pipeline: HDF5 holds one global lock, and inflating 64 MB
 * inside it serialises every I/O thread. The HDF5 thread only locates
 * chunks (h5_read.c) and stores them as they are (h5_write.c); the deflate
 * and byte-shuffle work is here, one item per chunk. The codec reproduces
 * HDF5's filters exactly, so either side can read the other's chunks.
 *
 * The parallel loops run on `pool`'s threads, or with pool NULL an OpenMP
 * loop with the calling thread's settings. Results never depend on the
 * thread count, and the lowest failing chunk is the one reported.
 */
#ifndef CUPLAS_CODEC_H
#define CUPLAS_CODEC_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/config.h"
#include "io/grid.h"
#include "util/error.h"
#include "util/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- reading */

#define CUPLAS_H5_MAX_FILTERS 8   /* longer pipelines: HDF5 decodes        */
enum { CUPLAS_FILTER_DEFLATE = 1, CUPLAS_FILTER_SHUFFLE = 2 };   /* HDF5's ids */

/* One stored chunk of an input dataset. Offsets are 3-D: rank-2 (N, C)
 * data is viewed as (1, N, C). */
typedef struct cuplas_h5_stored {
    uint64_t offset[3];
    size_t pos, size;    /* at fetch->bytes + pos; size 0: never written   */
    unsigned mask;       /* bit k set: filter k was skipped for this chunk */
    off_t at;            /* byte offset of the stored chunk in the file     */
} cuplas_h5_stored;

/* What the HDF5 read located (h5_read.c: cuplas_h5_read_begin) for
 * read_finish to fetch and decode. */
typedef struct cuplas_h5_fetch {
    int whole;                          /* begin filled g->raw: no chunks  */
    const char *whole_why;              /* why H5Dread read it (static), or NULL */
    int nfilters;
    int filter[CUPLAS_H5_MAX_FILTERS];  /* CUPLAS_FILTER_*, write order      */
    size_t shuffle_size[CUPLAS_H5_MAX_FILTERS];   /* a shuffle's element size */
    uint64_t dims[3], chunk[3];         /* 3-D view of dataset and chunk    */
    size_t chunk_bytes;                 /* a whole (unfiltered) chunk       */
    unsigned char fill[16];             /* fill value, one file-type element */
    int fill_zero;
    size_t nchunks;
    cuplas_h5_stored *c;
    unsigned char *bytes;               /* every stored chunk, back to back */
    char *path;                         /* the file, for pread              */
    cuplas_h5_buffers *bufs;            /* lends bytes and the grid, or NULL */
} cuplas_h5_fetch;

void cuplas_h5_fetch_free(cuplas_h5_fetch *f);

/* Does one stored chunk (len bytes, filter mask) undo f's pipeline into
 * exactly f->chunk_bytes? 0 yes; -1 no, the reason in msg (128 bytes);
 * -2 out of memory. Used before H5Dread decodes chunks it was handed on
 * doubt: HDF5 1.10 reads past a filter's output that is too short. */
int cuplas_h5_chunk_check(const cuplas_h5_fetch *f, unsigned mask, const unsigned char *src,
                          size_t len, char *msg);

/* "(y, x, c)" or "(n, c)": a chunk's offset in g's own rank, in buf. */
const char *cuplas_h5_chunk_where(const cuplas_h5grid *g, const uint64_t off[3], char buf[80]);

/* pread every stored chunk (in parallel), inflate, unshuffle and place it
 * into g->raw. Never-written chunks become the dataset's fill value.
 * Always frees fetch. On failure (a corrupt or truncated chunk:
 * CUPLAS_ERR_INPUT naming the chunk) g->raw is NULL. */
int cuplas_h5_read_finish(cuplas_h5grid *g, cuplas_h5_fetch *fetch, cuplas_pool *pool,
                          cuplas_error *err);

/* ---------------------------------------------------------------- writing */

/* One stored chunk of an output dataset, ready for H5Dwrite_chunk. */
typedef struct cuplas_h5_chunk {
    unsigned char *data;
    size_t size;
} cuplas_h5_chunk;

/* Output files holding at most this much data are built in memory
 * (h5_write.c) and stored by cuplas_h5_write_raw (publish.h). */
#define CUPLAS_H5_IMAGE_MAX_BYTES ((size_t)8 << 20)
/* At most three pieces of an in-memory file image: before, between and
 * after the two raw data regions. */
#define CUPLAS_H5_IMAGE_SEGS 3

/* A result's datasets, encoded; then (h5_write.c) where its bytes go. */
typedef struct cuplas_h5_encoded {
    int64_t H, W, C;
    size_t elem_size;
    int64_t chunk_rows;
    size_t nchunks;          /* per dataset: ceil(H / chunk_rows)          */
    int wide;                /* index stored as int64 (N > INT32_MAX)      */
    int shuffle, deflate;    /* the datasets' filters; deflate 0 = none:
                                contiguous datasets, no filter at all      */
    cuplas_h5_chunk *sorted, *index;
    unsigned char *lent[2];  /* sorted's and index's chunks, one slot each,
                                back to back: a lane's (cuplas_h5_buffers)
                                or, when owned, malloc'd                   */
    size_t slot[2];          /* bytes of a slot: the chunk's, or deflate's
                                bound for it                               */
    int owned;               /* lent[] freed with the encoded result       */
    /* set by write_encoded_to when write_raw must store the contiguous
       data: file offsets of sorted's and index's first byte */
    int raw_pending;
    uint64_t raw_at[2];
    /* set by write_encoded_to for a small file, built in memory: the
       file's bytes but for the raw data regions (write_raw stores those),
       as nseg pieces back to back in `image`; seg[k] = {file offset,
       length}. image_size is the whole file's. */
    unsigned char *image;
    size_t image_size;
    int nseg;
    uint64_t seg[CUPLAS_H5_IMAGE_SEGS][2];
    size_t scratch;          /* bytes of the larger chunk (encoding)       */
} cuplas_h5_encoded;

/* Bytes per cell of sorted (which 0) or index (which 1). */
static inline size_t cuplas_h5_cell_bytes(const cuplas_h5_encoded *e, int which)
{
    return which ? (e->wide ? 8 : 4) : e->elem_size * (size_t)e->C;
}

/* Check that index is a permutation, then build the stored chunks of
 * `index` (H x W, int32, or int64 when N > 2^31-1) and `sorted`
 * (H x W x C, input type, sorted[c] = input[index[c]]; for a fitted grid
 * (grid.h) index[c] is an item k of the sort: sorted[c] = input row
 * label[k] and index[c] stores label[k], an empty cell (-1) gets all-zero
 * bytes in sorted), chunk_rows x W
 * [x C] each, with the filters of opts (shuffle, then deflate at its
 * level; opts NULL: uncompressed). The bytes are what HDF5's own filters
 * store. Uncompressed results go into memory lent by bufs (or NULL: their
 * own). Errors carry "in-file:dataset" as their where. */
int cuplas_h5_encode_result(const cuplas_h5grid *in, const int64_t *index,
                            const cuplas_output_opts *opts, cuplas_h5_buffers *bufs,
                            cuplas_pool *pool, cuplas_h5_encoded **enc, cuplas_error *err);
void cuplas_h5_encoded_free(cuplas_h5_encoded *enc);

/* encode_result in two steps, for a write that stores chunks while later
 * ones are still being encoded (h5_write.h, cuplas_h5_wstream): plan
 * checks the index and lays out *enc (no chunk yet); run encodes every
 * chunk (in parallel) and, with prog, reports each one done. The items
 * run in the order the file stores them: index's chunks, then sorted's.
 * On failure run leaves enc to the caller to free. */
int cuplas_h5_encode_plan(const cuplas_h5grid *in, const int64_t *index,
                          const cuplas_output_opts *opts, cuplas_h5_buffers *bufs,
                          cuplas_h5_encoded **enc, cuplas_error *err);

/* What a streamed write waits on: item k (k < nchunks: index's chunk k,
 * else sorted's chunk k - nchunks) is ready once prefix > k; nothing of
 * an item is read before that. */
typedef struct cuplas_h5_encode_progress {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned char *state;   /* per item: 0 pending, 1 done, 2 failed        */
    size_t prefix;          /* items done in order from the first           */
    size_t prefix_bytes;    /* their encoded bytes                          */
    int finished, failed;   /* run returned; an item failed                 */
} cuplas_h5_encode_progress;

int cuplas_h5_encode_run(const cuplas_h5grid *in, const int64_t *index, cuplas_h5_encoded *enc,
                         cuplas_pool *pool, cuplas_h5_encode_progress *prog, cuplas_error *err);
/* For enc's items (after plan); 0 or -1 out of memory. */
int cuplas_h5_encode_progress_init(cuplas_h5_encode_progress *prog, const cuplas_h5_encoded *enc);
void cuplas_h5_encode_progress_free(cuplas_h5_encode_progress *prog);
/* Sleep until at least `items` items are done in order, or their bytes
 * exceed `bytes`, or run finished or an item failed; returns the items
 * done in order, with their bytes in *prefix_bytes and in *finished 1
 * (run finished), -1 (something failed) or 0. */
size_t cuplas_h5_encode_wait(cuplas_h5_encode_progress *prog, size_t items, size_t bytes,
                             size_t *prefix_bytes, int *finished);

/* Is enc's file built in memory (at most CUPLAS_H5_IMAGE_MAX_BYTES of
 * data)? And how many bytes of data does it hold? */
int cuplas_h5_encoded_in_memory(const cuplas_h5_encoded *enc);
size_t cuplas_h5_encoded_bytes(const cuplas_h5_encoded *enc);

/* Rows per output chunk: chunk_rows clamped to [1, H], or for 0 about
 * 1 MiB of row_bytes-sized rows (shared by result writing and `gen`). */
int64_t cuplas_h5_chunk_rows(int64_t H, size_t row_bytes, int64_t chunk_rows);

#ifdef __cplusplus
}
#endif
#endif
