/*
 * dtype.h - the input's file datatype as plain numbers, and its decoding
 * to double. No HDF5 calls: any thread.
 *
 * The HDF5 read (h5_read.c) describes the dataset's type with a
 * cuplas_dtype and keeps the values as raw bytes of that type; the
 * decoders here turn the chosen channels into doubles for the sorter,
 * off the HDF5 thread, and the write (h5_write.c) rebuilds the very same
 * HDF5 type from the description for `sorted`. Only types that a
 * description rebuilds exactly are accepted: the standard integers and
 * IEEE floats (half, single, double) in either byte order.
 */
#ifndef CUPLAS_DTYPE_H
#define CUPLAS_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "util/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CUPLAS_DTYPE_INT = 1,     /* two's complement or unsigned, all bits used */
    CUPLAS_DTYPE_FLOAT = 2    /* IEEE 754 binary16/32/64                    */
} cuplas_dtype_class;

typedef struct cuplas_dtype {
    cuplas_dtype_class cls;
    int size;                 /* bytes per value: 1, 2, 4 or 8             */
    int is_signed;            /* integers (floats are always signed)       */
    int big_endian;           /* byte order in the file (1 byte: 0)        */
} cuplas_dtype;

/* "uint8", ..., "int64", "float16", "float32", "float64"; NULL for a
 * description no file type of cuplas has. */
const char *cuplas_dtype_name(const cuplas_dtype *t);

struct cuplas_h5grid;

/* Convert channels `use[0..nuse)` of g (read with its data) to double,
 * row-major N x nuse, in parallel on pool (NULL: an OpenMP loop with the
 * calling thread's settings; results never depend on it). Rejects NaN
 * and Inf with the first offending cell and channel. */
int cuplas_h5grid_to_double(const struct cuplas_h5grid *g, const int *use, int nuse,
                            double *out, cuplas_pool *pool, cuplas_error *err);

/* The same, laid in another order: out's row i (of n) is g's row rows[i],
 * zeros where rows[i] < 0 (a grid's cells in cell order, without a copy
 * in row order first). An error names g's row. */
int cuplas_h5grid_to_double_rows(const struct cuplas_h5grid *g, const int *use, int nuse,
                                 const int64_t *rows, int64_t n, double *out, cuplas_pool *pool,
                                 cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
