/*
 * zplanes.c - zlib streams whose leading noise planes are stored blocks
 * (zplanes.h).
 *
 * The stream: the 2-byte zlib header libdeflate writes at this level, then
 * non-final stored blocks (RFC 1951 3.2.4: a header byte, LEN, NLEN, the
 * bytes) holding the noise planes, then libdeflate's raw deflate of the
 * rest, whose last block is the final one, then the Adler-32 of all n
 * bytes. Stored blocks end on a byte boundary and a raw deflate stream
 * starts on one, so the parts join with no bit shifting.
 *
 * Why a probe and not a byte histogram: a plane can have flat byte counts
 * and still repeat (a ramp in the low byte of a smooth uint16 field), and
 * only the encoder itself sees that. Two slices of each plane go through
 * it; a plane counts as noise when neither shrinks by 1/128.
 */
#include "io/zplanes.h"

#include <stdint.h>
#include <string.h>

#include <libdeflate.h>

#define PROBE 8192                      /* bytes in each of a plane's two slices */
#define STORED_MAX 65535                /* bytes in one stored block */

/* Whether slice p[0..PROBE) shrinks by at least 1/128 through z: libdeflate
 * returns 0 when its output does not fit the smaller buffer. */
static int slice_shrinks(struct libdeflate_compressor *z, const unsigned char *p)
{
    unsigned char out[PROBE];

    return libdeflate_deflate_compress(z, p, PROBE, out, PROBE - PROBE / 128) != 0;
}

size_t cuplas_zplanes_noise(struct libdeflate_compressor *z, const unsigned char *src, size_t n,
                            size_t es)
{
    size_t m = es ? n / es : 0, k;

    if (es <= 1 || m < 4 * (size_t)PROBE)
        return 0;
    for (k = 0; k < es; k++) {
        const unsigned char *plane = src + k * m;
        if (slice_shrinks(z, plane) || slice_shrinks(z, plane + m / 2))
            break;
    }
    return k;
}

/* libdeflate's zlib header for a level (FLEVEL as in its zlib_compress). */
static void zlib_header(int level, unsigned char h[2])
{
    unsigned flevel = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3;
    unsigned v = (0x78u << 8) | (flevel << 6);

    v |= 31 - v % 31;
    h[0] = (unsigned char)(v >> 8);
    h[1] = (unsigned char)v;
}

size_t cuplas_zplanes_compress(struct libdeflate_compressor *z, int level, const unsigned char *src,
                               size_t n, size_t es, unsigned char *dst, size_t cap)
{
    size_t stored = cuplas_zplanes_noise(z, src, n, es) * (es ? n / es : 0);
    size_t blocks = (stored + STORED_MAX - 1) / STORED_MAX;
    size_t at = 2, rest, d;
    uint32_t adler;

    if (stored == 0)
        goto plain;
    if (2 + stored + 5 * blocks + 4 > cap)
        goto plain;
    zlib_header(level, dst);
    for (size_t off = 0; off < stored; off += STORED_MAX) {
        size_t len = stored - off < STORED_MAX ? stored - off : STORED_MAX;
        dst[at] = 0;   /* BFINAL 0, BTYPE 00 (stored), padding to the byte */
        dst[at + 1] = (unsigned char)len;
        dst[at + 2] = (unsigned char)(len >> 8);
        dst[at + 3] = (unsigned char)~len;
        dst[at + 4] = (unsigned char)(~len >> 8);
        memcpy(dst + at + 5, src + off, len);
        at += 5 + len;
    }
    rest = n - stored;
    if (rest > 0) {
        d = libdeflate_deflate_compress(z, src + stored, rest, dst + at, cap - at - 4);
        if (d == 0)
            goto plain;
        at += d;
    } else {   /* every byte was noise: an empty final stored block */
        if (at + 5 + 4 > cap)
            goto plain;
        memcpy(dst + at, "\x01\x00\x00\xff\xff", 5);
        at += 5;
    }
    adler = libdeflate_adler32(1, src, n);
    dst[at] = (unsigned char)(adler >> 24);
    dst[at + 1] = (unsigned char)(adler >> 16);
    dst[at + 2] = (unsigned char)(adler >> 8);
    dst[at + 3] = (unsigned char)adler;
    return at + 4;
plain:   /* a cap too tight for stored noise: libdeflate's own stream */
    return libdeflate_zlib_compress(z, src, n, dst, cap);
}
