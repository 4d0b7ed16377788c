/*
 * grid.h - an input grid as the pipeline holds it: shape, a plain type
 * description and the raw bytes in the file's own type. No HDF5 calls:
 * any thread may hold, convert (dtype.h) or free a grid.
 *
 * `sorted` is written back in exactly the input's dtype (float16 and
 * big-endian types included) by gathering whole rows of the raw bytes,
 * so no value is converted on the way from input to output.
 */
#ifndef CUPLAS_GRID_H
#define CUPLAS_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "io/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Channels a dataset may have. */
#define CUPLAS_MAX_CHANNELS 4096

typedef struct cuplas_h5grid {
    char *file;          /* input path                                     */
    char *dataset;       /* dataset path inside the file, "/a/b"           */
    int64_t H, W, C;     /* grid shape; N = H*W                            */
    int in_rank;         /* 2 (N, C) or 3 (H, W, C)                        */
    int64_t in_dims[3];  /* the dataset's own dimensions                   */
    char dtype[16];      /* cuplas_dtype_name(&type): "uint8", "float16"... */
    size_t elem_size;    /* bytes per value in the file type (type.size)   */
    cuplas_dtype type;   /* the file type                                  */
    void *raw;           /* N*C*elem_size bytes, row-major, file type       */
    int raw_lent;        /* raw belongs to a cuplas_h5_buffers, not to g    */
    char **names;        /* C column names (PLY properties, an HDF5 `columns`
                            attribute), owned; NULL = unnamed               */
    /* A grid fitted to H x W from nrows items (core/fit.h): raw holds the
       nrows input rows as read, and the sort's item k is raw row label[k],
       or an empty cell when label[k] = -1. label and dropped are borrowed
       (the job's); nrows 0 = not fitted (raw is the H x W grid itself). */
    int64_t nrows;
    const int64_t *label;     /* H*W entries                               */
    const int64_t *dropped;   /* crop: the rows left out, ascending        */
    int64_t ndropped;
} cuplas_h5grid;

/* Rows held in g->raw: nrows when fitted, else H*W. */
static inline int64_t cuplas_h5grid_rows(const cuplas_h5grid *g)
{
    return g->nrows ? g->nrows : g->H * g->W;
}

/* Free g->names (C of them) and set it NULL. */
void cuplas_h5grid_free_names(cuplas_h5grid *g);

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
    CUPLAS_H5_SORTED,   /* results' chunks: encode to encoded_free          */
    CUPLAS_H5_INDEX,
    CUPLAS_H5_NBUF
};
typedef struct cuplas_h5_buffers {
    unsigned char *p[CUPLAS_H5_NBUF];
    size_t cap[CUPLAS_H5_NBUF];
} cuplas_h5_buffers;
void cuplas_h5_buffers_free(cuplas_h5_buffers *b);

/* n bytes of b's buffer `which` (CUPLAS_H5_*), grown if needed; or
 * malloc'd (the caller's to free) when b is NULL. NULL: out of memory. */
unsigned char *cuplas_h5_buffers_lend(cuplas_h5_buffers *b, int which, size_t n);

/* g->raw for `bytes` of data, lent by bufs when there are any. 0 or -1. */
int cuplas_h5grid_alloc_raw(cuplas_h5grid *g, cuplas_h5_buffers *bufs, size_t bytes);

/* Free what g holds (raw unless lent) and zero it. */
void cuplas_h5grid_free(cuplas_h5grid *g);

#ifdef __cplusplus
}
#endif
#endif
