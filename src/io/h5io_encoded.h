/*
 * h5io_encoded.h - the inside of cuplas_h5_encoded (h5io.c). Not for
 * other modules.
 */
#ifndef CUPLAS_H5IO_ENCODED_H
#define CUPLAS_H5IO_ENCODED_H

#include <stddef.h>
#include <stdint.h>

/* One stored chunk of an output dataset, ready for H5Dwrite_chunk. */
typedef struct encoded_chunk {
    unsigned char *data;
    size_t size;
} encoded_chunk;

/* At most three pieces of an in-memory file image: before, between and
 * after the two raw data regions. */
#define CUPLAS_H5_IMAGE_SEGS 3

struct cuplas_h5_encoded {
    int64_t H, W, C;
    size_t elem_size;
    int64_t chunk_rows;
    size_t nchunks;          /* per dataset: ceil(H / chunk_rows)          */
    int wide;                /* index stored as int64 (N > INT32_MAX)      */
    int shuffle, deflate;    /* the datasets' filters; deflate 0 = none:
                                contiguous datasets, no filter at all      */
    encoded_chunk *sorted, *index;
    unsigned char *lent[2];  /* deflate 0 with lent memory: sorted's and
                                index's chunks, back to back (not owned) */
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
};

/* Bytes per cell of sorted (which 0) or index (which 1). */
static inline size_t cuplas_h5_cell_bytes(const struct cuplas_h5_encoded *e, int which)
{
    return which ? (e->wide ? 8 : 4) : e->elem_size * (size_t)e->C;
}

#endif
