/*
 * test_zplanes.c - cmocka tests of the stored-noise zlib streams
 * (io/zplanes.c): which planes the probe calls noise, and that zlib's own
 * inflater (the one HDF5's deflate filter calls) gives back every byte.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <libdeflate.h>
#include <zlib.h>

#include "io/zplanes.h"

enum { M = 1 << 17 };   /* bytes in a plane: two stored blocks' worth */

static uint64_t next(uint64_t *s)   /* splitmix64 */
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* es planes of M bytes: plane k is noise when noise[k], else a slow ramp. */
static unsigned char *planes(size_t es, const int *noise)
{
    unsigned char *p = malloc(es * M);
    uint64_t s = 42;

    assert_non_null(p);
    for (size_t k = 0; k < es; k++)
        for (size_t i = 0; i < M; i++)
            p[k * M + i] = noise[k] ? (unsigned char)next(&s) : (unsigned char)(i / 1000);
    return p;
}

/* Encode at `level` into a bound-sized buffer, check zlib inflates it to
 * the input and the stream is at most libdeflate's own plus the stored
 * blocks' headers; returns the stream's size. */
static size_t round_trip(const unsigned char *src, size_t n, size_t es, int level)
{
    struct libdeflate_compressor *z = libdeflate_alloc_compressor(level);
    size_t cap = libdeflate_zlib_compress_bound(z, n);
    unsigned char *dst = malloc(cap), *back = malloc(n), *own = malloc(cap);
    uLongf got = n;
    size_t size, plain;

    assert_non_null(dst);
    assert_non_null(back);
    assert_non_null(own);
    size = cuplas_zplanes_compress(z, level, src, n, es, dst, cap);
    plain = libdeflate_zlib_compress(z, src, n, own, cap);
    assert_true(size > 0 && size <= cap);
    assert_int_equal(uncompress(back, &got, dst, size), Z_OK);
    assert_int_equal(got, n);
    assert_memory_equal(back, src, n);
    assert_true(size <= plain + 5 * (n / 65535 + 2));
    libdeflate_free_compressor(z);
    free(own);
    free(back);
    free(dst);
    return size;
}

/* float32-like: two noise planes in front, two that compress. */
static void test_noise_prefix_stored(void **state)
{
    const int noise[4] = {1, 1, 0, 0};
    unsigned char *p = planes(4, noise);
    struct libdeflate_compressor *z = libdeflate_alloc_compressor(1);

    (void)state;
    assert_int_equal(cuplas_zplanes_noise(z, p, 4 * M, 4), 2);
    for (int level = 1; level <= 9; level += 4)
        round_trip(p, 4 * M, 4, level);
    libdeflate_free_compressor(z);
    free(p);
}

/* All noise: every byte stored, the stream ends in an empty final block. */
static void test_all_noise(void **state)
{
    const int noise[2] = {1, 1};
    unsigned char *p = planes(2, noise);
    struct libdeflate_compressor *z = libdeflate_alloc_compressor(1);

    (void)state;
    assert_int_equal(cuplas_zplanes_noise(z, p, 2 * M, 2), 2);
    /* header, the stored blocks with their 5-byte heads, the empty final
       block, the Adler-32 */
    assert_int_equal(round_trip(p, 2 * M, 2, 1), 2 + 2 * M + 5 * ((2 * M + 65534) / 65535) + 5 + 4);
    libdeflate_free_compressor(z);
    free(p);
}

/* Only a leading run is stored: a noise plane behind a ramp is deflated,
 * and so is a plane whose bytes are evenly spread but repeat. */
static void test_prefix_only(void **state)
{
    const int noise[3] = {0, 1, 1};
    unsigned char *p = planes(3, noise), *q = malloc(2 * M);
    struct libdeflate_compressor *z = libdeflate_alloc_compressor(1);

    (void)state;
    assert_int_equal(cuplas_zplanes_noise(z, p, 3 * M, 3), 0);
    round_trip(p, 3 * M, 3, 1);
    for (size_t i = 0; i < 2 * (size_t)M; i++)   /* a flat byte histogram that repeats */
        q[i] = (unsigned char)i;
    assert_int_equal(cuplas_zplanes_noise(z, q, 2 * M, 2), 0);
    libdeflate_free_compressor(z);
    free(q);
    free(p);
}

/* Planes too small to probe, single-byte elements and a cap too tight for
 * the stored form: libdeflate's own stream, byte for byte. */
static void test_plain_fallbacks(void **state)
{
    const int noise[4] = {1, 1, 1, 1};
    unsigned char *p = planes(4, noise);
    struct libdeflate_compressor *z = libdeflate_alloc_compressor(1);
    size_t cap = libdeflate_zlib_compress_bound(z, 4 * M);
    unsigned char *a = malloc(cap), *b = malloc(cap);
    size_t small = 4 * 4 * 8192 - 4, na, nb;

    (void)state;
    assert_int_equal(cuplas_zplanes_noise(z, p, small, 4), 0);
    assert_int_equal(cuplas_zplanes_noise(z, p, 4 * M, 1), 0);
    na = cuplas_zplanes_compress(z, 1, p, small, 4, a, cap);
    nb = libdeflate_zlib_compress(z, p, small, b, cap);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    /* 4*M stored needs more than 4*M bytes: a cap of exactly 4*M fits
       neither form, and the stored one must not write past it */
    unsigned char *tight = malloc(4 * M);
    assert_int_equal(cuplas_zplanes_compress(z, 1, p, 4 * M, 4, tight, 4 * M), 0);
    free(tight);
    libdeflate_free_compressor(z);
    free(b);
    free(a);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_noise_prefix_stored),
        cmocka_unit_test(test_all_noise),
        cmocka_unit_test(test_prefix_only),
        cmocka_unit_test(test_plain_fallbacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
