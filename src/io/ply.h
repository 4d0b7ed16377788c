/*
 * ply.h - 3D Gaussian Splatting scenes as a table of named vertex rows:
 * PLY (ascii, binary_little_endian, binary_big_endian), antimatter15
 * .splat (io/splat.h) and PlayCanvas SuperSplat compressed PLY
 * (io/ply_compressed.h) behind one struct. No HDF5: any thread may call it.
 *
 * A scene is N rows of row_size bytes, one per vertex, each holding the
 * scalar properties of the PLY `vertex` element at fixed byte offsets
 * (the PLY binary row layout). The three steps are separate so that the
 * caller owns the one big buffer:
 *
 *   cuplas_ply p;
 *   cuplas_ply_open(path, &p, &err);          // header only: N, properties
 *   void *rows = malloc(cuplas_ply_body_bytes(&p));
 *   cuplas_ply_read(&p, rows, NULL, &err);    // the body, straight in
 *   cuplas_ply_extract(&p, rows, cols, k, out);  // chosen columns, doubles
 *   cuplas_ply_write(&p, rows, order, m, "out.ply", &err);
 *   cuplas_ply_close(&p);
 *
 * What the row bytes are:
 * - binary PLY: the body bytes exactly as in the file (file endianness),
 *   so that an export can copy them byte for byte. cuplas_ply_extract
 *   swaps when the file's endianness is not the host's.
 * - ascii PLY: each row parsed into the packed binary layout in HOST
 *   endianness (rows_native = 1). An export re-reads the file and writes
 *   each row's original text (its line ending included), so an identity
 *   export is byte-identical; a last row without a final newline gets
 *   "\n". Blank lines in the body are skipped (and so not exported).
 * - .splat: decoded into 14 float32 columns in host endianness
 *   (io/splat.h says how); the header is a synthetic graphdeco-style
 *   binary_little_endian one, and an export writes that PLY.
 * - compressed PLY (a `chunk` element beside packed_* vertex properties,
 *   whatever the file's name): decoded like a .splat, into 14 float32
 *   columns plus one for each property of its `sh` element
 *   (io/ply_compressed.h).
 *
 * Peak memory (the 6M-splat, 1.5 GB case): binary PLY = the caller's
 * buffer of N * row_size bytes (pread straight into it, no staging copy)
 * plus the header; ascii = that buffer plus a read-only mmap of the file
 * (page cache, not heap); .splat = the buffer plus a 2 MiB decode chunk
 * a thread at work; compressed PLY = the buffer, the chunk bounds (72
 * bytes a 256 splats) and a decode block of 64Ki splats a thread at work
 * (1 MiB, + 2.9 MiB with 45 SH bytes).
 * cuplas_ply_write adds a 4 MiB block a thread (binary) or a 1 MiB output
 * buffer (ascii); with rows == NULL it maps the input instead; for ascii
 * it also keeps N line offsets (8 bytes each), for binary N row numbers.
 *
 * Other elements (faces, edges, ...): an element before `vertex` is
 * skipped (ascii: its lines; binary: its rows, which must then have
 * scalar properties only, or the file is refused); elements after it are
 * ignored. An export drops them, with their element and property lines;
 * every other header line (comments, obj_info) is kept verbatim and only
 * the count token of `element vertex N` is rewritten.
 *
 * Strictness: the vertex count is checked against the file size before
 * anything is allocated; a binary body shorter than declared is
 * "truncated", and, when `vertex` is the last element, bytes after it are
 * a count mismatch, as are extra ascii rows. N = 0, a list property in
 * `vertex`, duplicate property names and unknown types are errors.
 *
 * Errors are CUPLAS_ERR_INPUT (CUPLAS_ERR_NOMEM, CUPLAS_ERR_OUTPUT for
 * the writer) with err->where = "FILE:LINE" for header problems and bad
 * ascii rows (1-based line of the file) and "FILE" otherwise, so that
 * cuplas_error_format gives "plant.ply:4: unknown property type 'flaot'".
 * A truncated body or a count mismatch names the header line whose count
 * the body does not match: `element vertex N` ("trunc.ply:3: truncated
 * body: ..."), or for a binary element before it, that element's line.
 */
#ifndef CUPLAS_IO_PLY_H
#define CUPLAS_IO_PLY_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "util/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CUPLAS_PLY_ASCII,
    CUPLAS_PLY_BINARY_LE,
    CUPLAS_PLY_BINARY_BE,
    CUPLAS_PLY_SPLAT,     /* an antimatter15 .splat, decoded (io/splat.h) */
    CUPLAS_PLY_COMPRESSED /* a SuperSplat compressed PLY, decoded
                             (io/ply_compressed.h)                   */
} cuplas_ply_format;

/* Scalar types; the PLY names (both spellings) in cuplas_ply_type_name. */
typedef enum {
    CUPLAS_PLY_INT8,      /* char    int8    */
    CUPLAS_PLY_UINT8,     /* uchar   uint8   */
    CUPLAS_PLY_INT16,     /* short   int16   */
    CUPLAS_PLY_UINT16,    /* ushort  uint16  */
    CUPLAS_PLY_INT32,     /* int     int32   */
    CUPLAS_PLY_UINT32,    /* uint    uint32  */
    CUPLAS_PLY_FLOAT32,   /* float   float32 */
    CUPLAS_PLY_FLOAT64    /* double  float64 */
} cuplas_ply_type;

typedef struct cuplas_ply_prop {
    char *name;
    cuplas_ply_type type;
    size_t offset;        /* byte offset in a row */
    int line;             /* its header line; 0 for a decoded format */
} cuplas_ply_prop;

typedef struct cuplas_ply {
    char *path;
    cuplas_ply_format format;
    int64_t n;                 /* vertices (rows); > 0                    */
    int nprops;
    cuplas_ply_prop *props;    /* the vertex properties, in file order    */
    size_t row_size;           /* bytes a row (sum of the type sizes)     */
    int rows_native;           /* rows are host-endian (ascii, decoded)   */
    char *header;              /* verbatim, through "end_header\n"        */
    size_t header_len;
    int64_t body_offset;       /* file offset of the first vertex row     */
    int64_t file_size;
    /* private to ply.c: where the writer edits the header */
    size_t count_at, count_len;   /* the N token of "element vertex N"   */
    size_t *drop;                 /* [start, end) pairs of header lines   */
    int ndrop;                    /* of other elements, dropped on export */
    int64_t body_line;            /* ascii: 1-based line after the header */
    int64_t pre_lines;            /* ascii: rows of elements before vertex */
    int vertex_last;              /* no element follows vertex            */
    int vertex_line;              /* header line of "element vertex N"; 0
                                     for .splat (no header in the file)   */
    struct cuplas_plyc *plyc;     /* compressed PLY: where its packed bytes
                                     are (ply_compressed.c); else NULL    */
} cuplas_ply;

/* 1 when path names a scene file this module reads (*.ply, *.splat,
 * case-insensitive), else 0: how a caller tells scenes from HDF5. */
int cuplas_ply_is_scene_path(const char *path);

/* Parse the header of path into *p (zeroed first; cuplas_ply_close frees
 * it, also after a failure). A file whose name ends in .splat is read as
 * antimatter15 .splat (cuplas_splat_open), anything else as a PLY; a PLY
 * whose header is a compressed PLY's becomes its decoded table. */
int cuplas_ply_open(const char *path, cuplas_ply *p, cuplas_error *err);

void cuplas_ply_close(cuplas_ply *p);

/* n * row_size: the size of the buffer cuplas_ply_read fills. */
size_t cuplas_ply_body_bytes(const cuplas_ply *p);

/* Read all n rows into rows (cuplas_ply_body_bytes bytes, caller-owned),
 * in file order; a binary body in 64 MiB blocks, a .splat or compressed
 * PLY in blocks of 64Ki splats read and decoded, on pool's threads (NULL:
 * an OpenMP loop). The same bytes, and the same error, on any thread
 * count. */
int cuplas_ply_read(const cuplas_ply *p, void *rows, cuplas_pool *pool, cuplas_error *err);

/* Index of the property called name, or -1. */
int cuplas_ply_find(const cuplas_ply *p, const char *name);

/* names[i] = props[i].name for the nprops properties (borrowed pointers,
 * valid until cuplas_ply_close): the list core/channel_names resolves. */
void cuplas_ply_names(const cuplas_ply *p, const char **names);

/* out[i * k + j] = property cols[j] of row i, as a double, for all n rows
 * (converting the file's endianness). cols must be valid indices. */
void cuplas_ply_extract(const cuplas_ply *p, const void *rows, const int *cols, int k,
                        double *out);

/* One value: property col of row i. */
double cuplas_ply_value(const cuplas_ply *p, const void *rows, int64_t i, int col);

/* How cuplas_ply_write works (NULL: all defaults). */
typedef struct cuplas_ply_write_opts {
    cuplas_pool *pool;   /* binary rows gathered on it; NULL: an OpenMP loop      */
    int writeback;       /* start each block's writeback as it is written: for a
                            file that is fsync'd next (output.fsync), the fsync
                            then waits for the last blocks, not the whole file  */
    const volatile int *cancel; /* set (by a signal handler) = stop at the next
                            4 MiB block (ascii: 64Ki rows): CUPLAS_ERR_INTERRUPTED
                            and no file; NULL = never                          */
} cuplas_ply_write_opts;

/* Write a PLY of the rows order[0..m) (entries -1 are skipped: empty grid
 * cells) to out_path (created or truncated; the caller publishes it, e.g.
 * by writing a temp name and renaming). The header is p's, verbatim but
 * for the vertex count and the lines of dropped elements; each row is the
 * input's, byte for byte (ascii: its text). rows is what cuplas_ply_read
 * filled, or NULL to take the rows from the input file again. The bytes
 * are the same for any options and thread count. An index outside
 * [-1, n) is CUPLAS_ERR_INPUT. */
int cuplas_ply_write(const cuplas_ply *p, const void *rows, const int64_t *order, int64_t m,
                     const char *out_path, const cuplas_ply_write_opts *opts,
                     cuplas_error *err);

/* "float", "uchar", ... (the classic PLY names). */
const char *cuplas_ply_type_name(cuplas_ply_type t);
size_t cuplas_ply_type_size(cuplas_ply_type t);

#ifdef __cplusplus
}
#endif
#endif
