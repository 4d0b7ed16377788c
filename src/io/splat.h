/*
 * splat.h - antimatter15 .splat scenes, decoded into the graphdeco PLY
 * attributes so that the pipeline sees a .splat exactly as a PLY table
 * (io/ply.h, format CUPLAS_PLY_SPLAT). No HDF5.
 *
 * The file: records of 32 bytes, little-endian, no header:
 *   0  float32 x, y, z        position
 *   12 float32 sx, sy, sz     linear scale (exp of the trained log scale)
 *   24 uint8   r, g, b, a     colour; a = sigmoid(opacity) * 255
 *   28 uint8   q0, q1, q2, q3 rotation q/|q| * 128 + 128, real part (w)
 *                             first, as graphdeco's rot_0..3
 * A size that is not a positive multiple of 32 is an error.
 *
 * The decoded row: 14 float32 columns, host endianness, in graphdeco
 * order (normals and f_rest are not stored: SH degree 0):
 *   x y z             as stored
 *   f_dc_0..2         (c / 255 - 0.5) / SH_C0, SH_C0 = 0.28209479177387814
 *   opacity           logit(a / 255) = log(p / (1 - p)), with p clamped
 *                     to [0.5/255, 254.5/255] so that a = 0 and a = 255
 *                     give -/+6.2324 instead of infinities (a = 1..254
 *                     are unaffected)
 *   scale_0..2        log(s); s <= 0 or NaN gives log(FLT_MIN) = -87.34
 *   rot_0..3          (q - 128) / 128 (w x y z; not renormalised)
 * Each value is computed in double and rounded once to float32. The
 * table's header is a binary_little_endian PLY header declaring these 14
 * float properties, so cuplas_ply_write turns a .splat into a graphdeco
 * (degree-0) point_cloud.ply.
 */
#ifndef CUPLAS_IO_SPLAT_H
#define CUPLAS_IO_SPLAT_H

#include <stdint.h>

#include "io/ply.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUPLAS_SPLAT_RECORD 32   /* bytes a splat in the file        */
#define CUPLAS_SPLAT_NPROPS 14   /* float32 columns a decoded row    */
#define CUPLAS_SH_C0 0.28209479177387814

/* The header of a .splat file as a table (cuplas_ply_open calls it for
 * *.splat names). */
int cuplas_splat_open(const char *path, cuplas_ply *p, cuplas_error *err);

/* Decode n 32-byte records into n * 14 floats (the row layout above). */
void cuplas_splat_decode(const unsigned char *rec, int64_t n, float *out);

/* The body of a .splat table, decoded into rows (n * 14 * 4 bytes) in
 * chunks of 64Ki splats on pool's threads (NULL: an OpenMP loop); the
 * same bytes on any thread count. A chunk that cannot be read fails the
 * read as the first such chunk in file order. cuplas_ply_read calls it. */
int cuplas_splat_read(const cuplas_ply *p, void *rows, cuplas_pool *pool, cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
