/*
 * ply_compressed.h - PlayCanvas SuperSplat "compressed PLY" scenes
 * (*.compressed.ply, written by SuperSplat and splat-transform), decoded
 * into the graphdeco PLY attributes so that the pipeline sees one exactly
 * as a PLY table (io/ply.h, format CUPLAS_PLY_COMPRESSED), as a .splat
 * (io/splat.h). No HDF5.
 *
 * The file is a binary PLY (either endianness) with
 *   element chunk ceil(N / 256)   float min_x min_y min_z max_x max_y max_z
 *                                 min_scale_{x,y,z} max_scale_{x,y,z}
 *                                 [min_r min_g min_b max_r max_g max_b]
 *   element vertex N              uint packed_position packed_rotation
 *                                 packed_scale packed_color
 *   [element sh N                 uchar f_rest_0 ... (9, 24 or 45 of them)]
 * Splat i belongs to chunk i / 256, whose bounds its packed values are
 * fractions of. It is recognised from its header whatever the file's
 * name: a `chunk` element beside any of the four packed_* vertex
 * properties claims the file, and then every rule here must hold or the
 * file is refused (bad input is an error, never a table of nonsense).
 * Other properties of chunk and vertex, and other elements, are skipped.
 *
 * Bit fields (most significant first) and their meaning, with
 * u(v, b) = v / (2^b - 1) and lerp(lo, hi, t) = lo * (1 - t) + hi * t:
 *   packed_position  x 11 | y 10 | z 11     x = lerp(min_x, max_x, u(x, 11))
 *   packed_scale     x 11 | y 10 | z 11     scale_0 = lerp(min_scale_x, ..)
 *                                           (log scales, as graphdeco's)
 *   packed_color     r 8 | g 8 | b 8 | a 8  c = lerp(min_r, max_r, u(r, 8))
 *                                           (bounds 0 and 1 when the chunk
 *                                           has none: older files)
 *   packed_rotation  i 2 | a 10 | b 10 | c 10
 *                    the quaternion rot_0..3 (graphdeco's order, w
 *                    first) with its largest-magnitude component rot_i
 *                    left out and made positive; a, b, c are the other
 *                    three in order, each (u(v, 10) - 0.5) * sqrt(2)
 *                    (so in [-sqrt(2)/2, sqrt(2)/2]), and rot_i =
 *                    sqrt(max(0, 1 - a^2 - b^2 - c^2))
 *   sh bytes         v = 0: -4, v = 255: 4, else ((v + 0.5) / 256 - 0.5) * 8
 *
 * The decoded row: 14 + S float32 columns (S = the sh element's
 * properties, 0 without one), host endianness, in graphdeco order
 * (normals are not stored):
 *   x y z             lerp of the position bounds
 *   f_dc_0..2         (c - 0.5) / SH_C0
 *   f_rest_*          the sh element's properties, in its order and with
 *                     its names, decoded as above
 *   opacity           logit(a / 255) clamped as a .splat's alpha (a = 0
 *                     and 255 give -/+log(509) = 6.2324, not infinities)
 *   scale_0..2        lerp of the scale bounds
 *   rot_0..3          as above (unit length but for the 10-bit steps)
 * Each value is computed in double and rounded once to float32. The
 * format is lossy: these are the values a SuperSplat viewer renders, not
 * the ones the scene was trained to (a position is one of 2048 (y: 1024)
 * steps between its chunk's bounds, a colour and the alpha one of 256,
 * a rotation component one of 1024, an SH value one of 256 in [-4, 4]).
 * An export (--ply, export-ply) writes these rows as a graphdeco
 * binary_little_endian PLY, not a compressed PLY again.
 */
#ifndef CUPLAS_IO_PLY_COMPRESSED_H
#define CUPLAS_IO_PLY_COMPRESSED_H

#include <stdint.h>

#include "io/ply.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUPLAS_PLYC_CHUNK 256   /* splats a chunk                          */
#define CUPLAS_PLYC_BOUNDS 18   /* floats of a chunk's bounds (colour too) */
#define CUPLAS_PLYC_NPROPS 14   /* float32 columns of a row without SH     */

/* Where a compressed PLY's bytes are: cuplas_ply.plyc, made from the
 * header (ply.c calls cuplas_plyc__adopt, ply_priv.h), freed with it. */
typedef struct cuplas_plyc {
    int big_endian;                     /* binary_big_endian            */
    int64_t chunks;                     /* rows of `chunk`              */
    int64_t chunk_at, vertex_at, sh_at; /* file offsets of their rows   */
    size_t chunk_row, vertex_row;       /* bytes a row                  */
    int chunk_line, vertex_line, sh_line;   /* header lines, for errors */
    size_t bound[CUPLAS_PLYC_BOUNDS];   /* offsets in a chunk row, in
                                           the order of the bounds above */
    int has_color;                      /* the last 6 bounds are there  */
    size_t packed[4];                   /* offsets in a vertex row:
                                           position, rotation, scale, color */
    int nsh;                            /* sh bytes a splat (S)         */
} cuplas_plyc;

/* One splat: its chunk's 18 bounds (colour 0 0 0 1 1 1 for a chunk
 * without), its packed position, rotation, scale and color words and its
 * nsh SH bytes, into 14 + nsh floats (the row layout above). */
void cuplas_plyc_decode(const float *bounds, const uint32_t packed[4],
                        const unsigned char *sh, int nsh, float *out);

/* The body of a compressed PLY table, decoded into rows (n * (14 + nsh)
 * * 4 bytes) in blocks of 64Ki splats on pool's threads (NULL: an OpenMP
 * loop); the same bytes on any thread count. A block that cannot be read
 * fails the read as the first such block in file order. cuplas_ply_read
 * calls it. */
int cuplas_plyc_read(const cuplas_ply *p, void *rows, cuplas_pool *pool, cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
