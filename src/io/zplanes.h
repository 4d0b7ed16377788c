/*
 * zplanes.h - one zlib stream (RFC 1950) of a shuffled chunk, with the byte
 * planes that deflate cannot shrink stored instead of searched.
 *
 * After HDF5's shuffle a float32 chunk is four planes: the exponents
 * compress well, the low mantissa bytes are noise. A deflate encoder at
 * any level still hunts for matches in the noise and then stores it, and
 * that hunt is most of the encode time. Here each leading plane is probed
 * (a few KiB through the same encoder); the run of noise planes at the
 * front goes out as stored blocks (a copy), and the rest is deflated as
 * one raw stream behind them. The result is a plain zlib stream: any
 * inflater (zlib, so HDF5's deflate filter, h5py, h5dump) reads it, and
 * its bytes depend only on the chunk, the element size and the level.
 */
#ifndef CUPLAS_IO_ZPLANES_H
#define CUPLAS_IO_ZPLANES_H

#include <stddef.h>

struct libdeflate_compressor;

/* Encode src[0..n) (shuffled: planes of n / es bytes, then any tail) with
 * z, made at `level`, into dst[0..cap). Returns the stream's size, or 0
 * when it does not fit; a cap of libdeflate_zlib_compress_bound(z, n)
 * always fits (when the stored form does not, the stream is libdeflate's
 * own). es <= 1 or a chunk too small to probe is libdeflate's own too. */
size_t cuplas_zplanes_compress(struct libdeflate_compressor *z, int level, const unsigned char *src,
                               size_t n, size_t es, unsigned char *dst, size_t cap);

/* Leading planes of src that the probe calls noise (0..es); exposed for
 * the tests. */
size_t cuplas_zplanes_noise(struct libdeflate_compressor *z, const unsigned char *src, size_t n,
                            size_t es);

#endif
