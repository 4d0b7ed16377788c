/*
 * test_ply_compressed.c - SuperSplat compressed PLY (io/ply_compressed.h):
 * hand-computed packed words decode to the exact values; an encoder
 * written here from the format's description (ply_compressed.h and the
 * references named in ply_compressed.c) turns known graphdeco values
 * into a compressed PLY that decodes back within the format's steps, in
 * either byte order, with and without colour bounds and SH; the real
 * plant scene, encoded so, sorts through the CLI into rows that are the
 * decoded rows in index order, and its --ply and export-ply read back to
 * the same values; every malformed file gives its one line naming the
 * file and the header line, exit 1 and no output; a file of several
 * 64Ki-splat blocks decodes to the same bytes on one thread, an OpenMP
 * team and a pool, and one cut short after its open fails with the first
 * short block's message on each. The plant scene is by Marcel Padilla,
 * CC-BY-4.0 (shared/data/README.md).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tmpdir.h"
#include "clitest.h"
#include "shared_data.h"
#include "io/ply.h"
#include "io/ply_compressed.h"
#include "util/pool.h"
#include "util/threads.h"

#define SH_C0 0.28209479177387814

static int setup(void **state) { return tu_fixture_new(state, "/tmp/cuplas_plyc_XXXXXX"); }
static int teardown(void **state) { tu_fixture_free(state); return 0; }

/* ---- the test's encoder ----------------------------------------------- */

static const char *const bound_names[18] = {
    "min_x", "min_y", "min_z", "max_x", "max_y", "max_z",
    "min_scale_x", "min_scale_y", "min_scale_z", "max_scale_x", "max_scale_y", "max_scale_z",
    "min_r", "min_g", "min_b", "max_r", "max_g", "max_b",
};

static void put32(FILE *f, uint32_t u, int be)
{
    unsigned char b[4];
    for (int k = 0; k < 4; k++)
        b[k] = (unsigned char)(u >> (be ? 24 - 8 * k : 8 * k));
    assert_int_equal(fwrite(b, 1, 4, f), 4);
}

static void putf(FILE *f, float v, int be)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    put32(f, u, be);
}

/* v in [0, 1] to the nearest of the 2^bits - 1 steps */
static uint32_t unorm(double v, int bits)
{
    double t = (1u << bits) - 1, q = floor(v * t + 0.5);
    return (uint32_t)(q < 0 ? 0 : q > t ? t : q);
}

/* where x lies between lo and hi, in [0, 1] (0 for an empty range) */
static double frac(double x, double lo, double hi)
{
    return x <= lo ? 0 : x >= hi ? 1 : hi - lo < 1e-5 ? 0 : (x - lo) / (hi - lo);
}

/* The largest |component| is left out (made positive); the other three,
 * in [-sqrt(2)/2, sqrt(2)/2], take 10 bits each after the 2-bit index. */
static uint32_t pack_rot(const float *r)
{
    double q[4], len = 0;
    int big = 0;
    for (int k = 0; k < 4; k++)
        len += (double)r[k] * r[k];
    len = sqrt(len);
    for (int k = 0; k < 4; k++) {
        q[k] = r[k] / len;
        if (fabs(q[k]) > fabs(q[big]))
            big = k;
    }
    uint32_t w = (uint32_t)big;
    for (int k = 0; k < 4; k++)
        if (k != big)
            w = w << 10 | unorm((q[big] < 0 ? -q[k] : q[k]) * sqrt(0.5) + 0.5, 10);
    return w;
}

/* A compressed PLY of n graphdeco rows in the decoded layout (x y z
 * f_dc_0..2 f_rest_0..nsh-1 opacity scale_0..2 rot_0..3), big endian or
 * not, with colour bounds or (an older file) without. */
static void encode(const char *path, const float *rows, int64_t n, int nsh, int be, int color)
{
    const int nc = 14 + nsh, nb = color ? 18 : 12;
    int64_t chunks = (n + 255) / 256;
    float *bounds = malloc((size_t)chunks * 18 * sizeof *bounds);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_non_null(bounds);
    fprintf(f, "ply\nformat binary_%s_endian 1.0\ncomment made by test_ply_compressed\n"
               "element chunk %lld\n", be ? "big" : "little", (long long)chunks);
    for (int k = 0; k < nb; k++)
        fprintf(f, "property float %s\n", bound_names[k]);
    fprintf(f, "element vertex %lld\nproperty uint packed_position\nproperty uint "
               "packed_rotation\nproperty uint packed_scale\nproperty uint packed_color\n",
            (long long)n);
    if (nsh) {
        fprintf(f, "element sh %lld\n", (long long)n);
        for (int k = 0; k < nsh; k++)
            fprintf(f, "property uchar f_rest_%d\n", k);
    }
    fprintf(f, "end_header\n");
    /* bounds: positions, scales (clamped to [-20, 20]), colours c = f_dc * SH_C0 + 0.5 */
    const int col[9] = {0, 1, 2, 7 + nsh, 8 + nsh, 9 + nsh, 3, 4, 5};
    for (int64_t c = 0; c < chunks; c++) {
        float *b = bounds + c * 18;
        for (int a = 0; a < 9; a++) {
            double lo = INFINITY, hi = -INFINITY;
            for (int64_t i = c * 256; i < n && i < (c + 1) * 256; i++) {
                double v = rows[i * nc + col[a]];
                if (a >= 6)
                    v = v * SH_C0 + 0.5;
                lo = fmin(lo, v), hi = fmax(hi, v);
            }
            if (a >= 3 && a < 6)
                lo = fmin(fmax(lo, -20), 20), hi = fmin(fmax(hi, -20), 20);
            b[a / 3 * 6 + a % 3] = (float)lo;
            b[a / 3 * 6 + a % 3 + 3] = (float)hi;
        }
        if (!color)
            for (int k = 0; k < 3; k++)
                b[12 + k] = 0, b[15 + k] = 1;
        for (int k = 0; k < nb; k++)
            putf(f, b[k], be);
    }
    for (int64_t i = 0; i < n; i++) {
        const float *r = rows + i * nc, *b = bounds + i / 256 * 18;
        uint32_t t[3], c[3];
        for (int k = 0; k < 3; k++) {
            t[k] = unorm(frac(r[k], b[k], b[3 + k]), k == 1 ? 10 : 11);
            c[k] = unorm(frac(r[3 + k] * SH_C0 + 0.5, b[12 + k], b[15 + k]), 8);
        }
        put32(f, t[0] << 21 | t[1] << 11 | t[2], be);
        put32(f, pack_rot(r + 10 + nsh), be);
        for (int k = 0; k < 3; k++)
            t[k] = unorm(frac(r[7 + nsh + k], b[6 + k], b[9 + k]), k == 1 ? 10 : 11);
        put32(f, t[0] << 21 | t[1] << 11 | t[2], be);
        put32(f, c[0] << 24 | c[1] << 16 | c[2] << 8 | unorm(1 / (1 + exp(-r[6 + nsh])), 8), be);
    }
    for (int64_t i = 0; i < n; i++)
        for (int k = 0; k < nsh; k++) {
            double q = trunc((rows[i * nc + 6 + k] / 8 + 0.5) * 256);
            fputc(q < 0 ? 0 : q > 255 ? 255 : (int)q, f);
        }
    assert_int_equal(fclose(f), 0);
    free(bounds);
}

/* Open and read path; fails the test on any error. */
static float *decode_file(const char *path, cuplas_ply *p)
{
    cuplas_error e;
    char msg[1200];
    void *rows = NULL;
    cuplas_error_clear(&e);
    if (cuplas_ply_open(path, p, &e) || !(rows = malloc(cuplas_ply_body_bytes(p))) ||
        cuplas_ply_read(p, rows, NULL, &e))
        fail_msg("%s", cuplas_error_format(&e, msg, sizeof msg));
    return rows;
}

/* ---- (a) exact decodes ------------------------------------------------ */

static void test_decode_exact(void **state)
{
    (void)state;
    /* chunk bounds: position x in [-1, 2046], y in [0, 1023], z in [0, 2047]
       (one unit a step), log scales x in [-4, 2043], y in [-7.5, 0],
       z in [-2047/1024, 0], colours r in [0.25, 0.75], g in [0.5, 0.9],
       b in [0, 1] */
    const float b[18] = {-1, 0, 0, 2046, 1023, 2047, -4, -7.5f, -2047 / 1024.0f, 2043, 0, 0,
                         0.25f, 0.5f, 0, 0.75f, 0.9f, 1};
    const unsigned char sh[5] = {0, 255, 127, 128, 1};
    uint32_t w[4] = {
        /* position x 1234 | y 567 | z 89: 1234 << 21 | 567 << 11 | 89 = 0x9a51b859;
           x = -1 * (1 - 1234/2047) + 2046 * 1234/2047 = 1233, y = 567, z = 89 */
        0x9a51b859u,
        /* rotation: index 2 | a 1023 | b 0 | c 511 = 0xbff001ff:
           a = (1023/1023 - 0.5) * sqrt(2) = sqrt(2)/2, b = -sqrt(2)/2,
           c = (511/1023 - 0.5) * sqrt(2) = -0.000691208974766908;
           a^2 + b^2 + c^2 > 1, so rot_2 = sqrt(max(0, ...)) = 0, not NaN */
        0xbff001ffu,
        /* scale x 2047 | y 0 | z 1024 = 0xffe00400: scale_0 = 2043 (the max),
           scale_1 = -7.5 (the min), scale_2 = -2047/1024 * (1 - 1024/2047)
           = -1023/1024 = -0.9990234375 */
        0xffe00400u,
        /* color r 255 | g 0 | b 51 | alpha 51 = 0xff003333:
           r: 0.75 -> f_dc_0 = 0.25 / SH_C0 = 0.886226925452758 (sqrt(pi)/2);
           g: 0.5 -> f_dc_1 = 0; b: 51/255 = 0.2 -> f_dc_2 = -0.3 / SH_C0 =
           -1.0634723105433095; alpha 0.2 -> opacity = log(0.2 / 0.8) =
           -1.3862943611198906 */
        0xff003333u,
    };
    float out[19];
    cuplas_plyc_decode(b, w, sh, 5, out);
    const float want[19] = {
        1233, 567, 89, (float)0.886226925452758, 0, (float)-1.0634723105433095,
        /* SH bytes 0, 255 -> -4, 4 exactly; 127 -> (127.5/256 - 0.5) * 8 =
           -0.015625; 128 -> 0.015625; 1 -> (1.5/256 - 0.5) * 8 = -3.953125 */
        -4, 4, -0.015625f, 0.015625f, -3.953125f,
        (float)-1.3862943611198906, 2043, -7.5f, -0.9990234375f,
        (float)0.70710678118654752, (float)-0.70710678118654752, 0,
        (float)-0.000691208974766908,
    };
    for (int k = 0; k < 19; k++)
        if (out[k] != want[k])
            fail_msg("column %d: %.9g, want %.9g", k, (double)out[k], (double)want[k]);

    /* rotation index 3 | a 767 | b 256 | c 511 = 0xeff401ff: a = (767/1023 -
       0.5) * sqrt(2) = 0.3532077861058903, b = -a, c = -0.000691208974766908,
       rot_3 = sqrt(1 - a^2 - b^2 - c^2) = 0.8663071290821197 */
    w[1] = 0xeff401ffu;
    cuplas_plyc_decode(b, w, NULL, 0, out);
    const float rot[4] = {(float)0.3532077861058903, (float)-0.3532077861058903,
                          (float)-0.000691208974766908, (float)0.8663071290821197};
    for (int k = 0; k < 4; k++)
        if (out[10 + k] != rot[k])
            fail_msg("rot_%d: %.9g, want %.9g", k, (double)out[10 + k], (double)rot[k]);
    /* and no SH: opacity follows f_dc_2 directly */
    assert_true(out[6] == (float)-1.3862943611198906);
}

/* The same words in a file of 257 splats without colour bounds (an older
 * file: the colour is the 8-bit fraction itself), both byte orders: splat
 * 256 is the first of chunk 1 and takes its bounds. */
static void test_decode_file_exact(void **state)
{
    fixture *f = *state;
    for (int be = 0; be < 2; be++) {
        char path[PATH_MAX];
        FILE *g = fopen(tu_path(f->dir, "old.compressed.ply", path), "wb");
        assert_non_null(g);
        fprintf(g, "ply\nformat binary_%s_endian 1.0\nelement chunk 2\n", be ? "big" : "little");
        for (int k = 0; k < 12; k++)
            fprintf(g, "property float %s\n", bound_names[k]);
        fprintf(g, "element vertex 257\nproperty uint packed_position\nproperty uint "
                   "packed_rotation\nproperty uint packed_scale\nproperty uint packed_color\n"
                   "end_header\n");
        const float b0[12] = {0, 0, 0, 2047, 1023, 2047, -1, -1, -1, 1, 1, 1};
        const float b1[12] = {100, 100, 100, 100 + 2047, 100 + 1023, 100 + 2047, -1, -1, -1,
                              1, 1, 1};
        for (int k = 0; k < 12; k++)
            putf(g, b0[k], be);
        for (int k = 0; k < 12; k++)
            putf(g, b1[k], be);
        for (int i = 0; i < 257; i++) {
            /* x = i, y = 0, z = 2047 - i (chunk 1: plus 100); scale all the
               max (1); rotation identity: index 0, a = b = c = 511.5 is no
               step, so 511 -> rot_1..3 = -0.000691208974766908; colour r 255
               -> f_dc_0 = 0.5 / SH_C0 = sqrt(pi) = 1.7724538509055159,
               g 0 -> -sqrt(pi), b 51 -> (0.2 - 0.5) / SH_C0; alpha 255 ->
               logit(254.5/255) = 6.2304814... (the clamp, as .splat) */
            put32(g, (uint32_t)i % 256 << 21 | (uint32_t)(2047 - i % 256), be);
            put32(g, 511u << 20 | 511u << 10 | 511u, be);
            put32(g, 0xffffffffu, be);
            put32(g, 0xff0033ffu, be);
        }
        assert_int_equal(fclose(g), 0);
        cuplas_ply p;
        float *r = decode_file(path, &p);
        assert_int_equal(p.format, CUPLAS_PLY_COMPRESSED);
        assert_int_equal(p.n, 257);
        assert_int_equal(p.nprops, 14);
        for (int i = 0; i < 257; i++) {
            const float *v = r + i * 14;
            float off = i < 256 ? 0 : 100;
            assert_true(v[0] == off + (float)(i % 256) && v[1] == off &&
                        v[2] == off + (float)(2047 - i % 256));
            assert_true(v[3] == (float)1.7724538509055159 && v[4] == (float)-1.7724538509055159);
            assert_true(v[5] == (float)(-0.3 / SH_C0));
            assert_true(v[6] == (float)log(254.5 / 0.5));
            assert_true(v[7] == 1 && v[8] == 1 && v[9] == 1);
            for (int k = 1; k < 4; k++)
                assert_true(v[10 + k] == (float)-0.000691208974766908);
            assert_true(fabs(v[10] - 1) < 1e-6);
        }
        free(r);
        cuplas_ply_close(&p);
    }
}

/* ---- (b) round trip ---------------------------------------------------- */

static double rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8 & 0xffff) / 65535.0;
}

static void test_round_trip(void **state)
{
    fixture *f = *state;
    enum { N = 600, NSH = 9, NC = 14 + NSH };   /* 3 chunks, the last of 88 */
    float *in = malloc(N * NC * sizeof *in), *dec[4];
    unsigned s = 7;
    assert_non_null(in);
    for (int i = 0; i < N; i++) {
        float *r = in + i * NC;
        for (int k = 0; k < 3; k++)
            r[k] = (float)(rnd(&s) * 10 - 5 + (i / 256) * 30);
        for (int k = 0; k < 3; k++)
            r[3 + k] = (float)(rnd(&s) * 3 - 1.5);
        for (int k = 0; k < NSH; k++)
            r[6 + k] = (float)(rnd(&s) * 8 - 4);
        r[6 + NSH] = (float)(rnd(&s) * 8 - 4);
        for (int k = 0; k < 3; k++)
            r[7 + NSH + k] = (float)(rnd(&s) * 6 - 8);
        for (int k = 0; k < 4; k++)
            r[10 + NSH + k] = (float)(rnd(&s) * 2 - 1);
    }
    in[5 * NC + 10 + NSH] = 1, in[5 * NC + 11 + NSH] = in[5 * NC + 12 + NSH] = 0;   /* identity */
    in[5 * NC + 13 + NSH] = 0;
    for (int v = 0; v < 4; v++) {
        char path[PATH_MAX];
        cuplas_ply p;
        int be = v & 1, color = v < 2;
        encode(tu_path(f->dir, "rt.compressed.ply", path), in, N, NSH, be, color);
        dec[v] = decode_file(path, &p);
        assert_int_equal(p.nprops, NC);
        assert_string_equal(p.props[6].name, "f_rest_0");
        assert_string_equal(p.props[6 + NSH].name, "opacity");
        assert_string_equal(p.props[NC - 1].name, "rot_3");
        cuplas_ply_close(&p);
        if (v % 2)   /* the byte order changes nothing */
            assert_memory_equal(dec[v], dec[v - 1], N * NC * sizeof *in);
    }
    for (int v = 0; v < 4; v += 2)
        for (int i = 0; i < N; i++) {
            const float *a = in + i * NC, *d = dec[v] + i * NC;
            /* a chunk's ranges, for the steps */
            double lo[NC], hi[NC];
            for (int k = 0; k < NC; k++) {
                lo[k] = INFINITY, hi[k] = -INFINITY;
                for (int j = i / 256 * 256; j < N && j < (i / 256 + 1) * 256; j++)
                    lo[k] = fmin(lo[k], in[j * NC + k]), hi[k] = fmax(hi[k], in[j * NC + k]);
            }
            for (int k = 0; k < 3; k++) {   /* half a step of 2047 (y: 1023) */
                double step = (hi[k] - lo[k]) / (k == 1 ? 1023 : 2047);
                double sstep = (hi[7 + NSH + k] - lo[7 + NSH + k]) / (k == 1 ? 1023 : 2047);
                double cstep = v < 2 ? (hi[3 + k] - lo[3 + k]) / 255 : 1 / (255 * SH_C0);
                if (fabs(d[k] - a[k]) > step / 2 + 1e-5)
                    fail_msg("splat %d x%d: %g for %g", i, k, (double)d[k], (double)a[k]);
                if (fabs(d[7 + NSH + k] - a[7 + NSH + k]) > sstep / 2 + 1e-5)
                    fail_msg("splat %d scale_%d: %g for %g", i, k, (double)d[7 + NSH + k],
                             (double)a[7 + NSH + k]);
                if (fabs(d[3 + k] - a[3 + k]) > cstep / 2 + 1e-5)
                    fail_msg("splat %d f_dc_%d: %g for %g", i, k, (double)d[3 + k],
                             (double)a[3 + k]);
            }
            for (int k = 0; k < NSH; k++)   /* 256 bins over [-4, 4] */
                if (fabs(d[6 + k] - a[6 + k]) > 1 / 32.0 + 1e-6)
                    fail_msg("splat %d f_rest_%d: %g for %g", i, k, (double)d[6 + k],
                             (double)a[6 + k]);
            double sd = 1 / (1 + exp(-d[6 + NSH])), sa = 1 / (1 + exp(-a[6 + NSH]));
            if (fabs(sd - sa) > 0.5 / 255 + 1e-6)
                fail_msg("splat %d opacity: %g for %g", i, (double)d[6 + NSH], (double)a[6 + NSH]);
            /* the unit quaternion, up to its sign: three 10-bit steps and the
               fourth recomputed from them */
            double len = 0, dot = 0;
            for (int k = 0; k < 4; k++)
                len += (double)a[10 + NSH + k] * a[10 + NSH + k];
            for (int k = 0; k < 4; k++)
                dot += d[10 + NSH + k] * a[10 + NSH + k] / sqrt(len);
            for (int k = 0; k < 4; k++) {
                double want = a[10 + NSH + k] / sqrt(len) * (dot < 0 ? -1 : 1);
                if (fabs(d[10 + NSH + k] - want) > 4e-3)
                    fail_msg("splat %d rot_%d: %g for %g", i, k, (double)d[10 + NSH + k], want);
            }
        }
    for (int v = 0; v < 4; v++)
        free(dec[v]);
    free(in);
}

/* ---- (c) blocks on many threads --------------------------------------- */

/* Open path, cut it to `cut` bytes when cut > 0 (it changed since), and
 * read it on one thread (w = 0), an OpenMP team of 4 (1) or pool (2):
 * the status, the rows in *rows, the error's text in msg. */
static int read_way(const char *path, off_t cut, int w, cuplas_pool *pool, float **rows,
                    char *msg, size_t size)
{
    cuplas_ply p;
    cuplas_error e;
    int rc;
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_ply_open(path, &p, &e), 0);
    assert_true(cut <= 0 || truncate(path, cut) == 0);
    assert_non_null(*rows = malloc(cuplas_ply_body_bytes(&p)));
    cuplas_set_threads(w == 1 ? 4 : 1);
    rc = cuplas_ply_read(&p, *rows, w == 2 ? pool : NULL, &e);
    cuplas_error_format(&e, msg, size);
    cuplas_ply_close(&p);
    return rc;
}

/* 3 blocks of 64Ki splats and a short fourth, with 3 SH bytes and
 * without: the same bytes on any thread count. Cut short after its open
 * (it changed) inside block 2's packed words, the file has lost every
 * block's SH bytes too: the sequential reader failed at block 0's, and
 * so must every thread count, though blocks 2 and 3 fail on their packed
 * words, maybe first. Without SH the cut fails on the packed words. */
static void test_threads(void **state)
{
    fixture *f = *state;
    enum { BLOCK = 65536, N = 3 * BLOCK + 300, NSH = 3 };
    float *in = malloc((size_t)N * (14 + NSH) * sizeof *in), *want = NULL, *got;
    char path[PATH_MAX], msg[PATH_MAX + 200], expect[PATH_MAX + 200];
    unsigned s = 11;
    int threads = cuplas_max_threads();
    cuplas_pool *pool = NULL;
    cuplas_error e;
    assert_non_null(in);
    assert_int_equal(cuplas_pool_create(3, &pool, &e), 0);
    tu_path(f->dir, "big.compressed.ply", path);
    for (int nsh = NSH; nsh >= 0; nsh -= NSH) {
        const size_t bytes = (size_t)N * (14 + nsh) * sizeof *in;
        struct stat st;
        for (size_t i = 0; i < (size_t)N * (14 + nsh); i++)
            in[i] = (float)(rnd(&s) * 8 - 4);
        encode(path, in, N, nsh, 0, 1);
        for (int w = 0; w < 3; w++) {
            assert_int_equal(read_way(path, 0, w, pool, &got, msg, sizeof msg), 0);
            if (w == 0)
                want = got;
            else
                assert_memory_equal(got, want, bytes);
            if (w)
                free(got);
        }
        free(want);
        /* the body ends with N packed rows of 16 bytes and N of nsh; the
           header's lines: 23 element vertex, 28 element sh */
        assert_int_equal(stat(path, &st), 0);
        off_t cut = st.st_size - (off_t)N * (16 + nsh) + (off_t)(2 * BLOCK + 7) * 16 + 3;
        snprintf(expect, sizeof expect, "%s:%d: truncated body: the file ended inside element "
                 "'%s' (did it change?)", path, nsh ? 28 : 23, nsh ? "sh" : "vertex");
        for (int w = 0; w < 3; w++) {
            encode(path, in, N, nsh, 0, 1);
            assert_int_equal(read_way(path, cut, w, pool, &got, msg, sizeof msg),
                             CUPLAS_ERR_INPUT);
            assert_string_equal(msg, expect);
            free(got);
        }
    }
    cuplas_set_threads(threads);
    cuplas_pool_free(pool);
    free(in);
}

/* ---- (d) the real plant scene through the CLI ------------------------- */

/* dataset ds of file (in the fixture folder) read whole as type t. */
static void *read_ds(const fixture *f, const char *file, const char *ds, hid_t t, size_t size,
                     int64_t *n)
{
    char path[PATH_MAX];
    hid_t fid = H5Fopen(tu_path(f->dir, file, path), H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(fid >= 0);
    hid_t did = H5Dopen2(fid, ds, H5P_DEFAULT);
    assert_true(did >= 0);
    hid_t sid = H5Dget_space(did);
    *n = (int64_t)H5Sget_simple_extent_npoints(sid);
    void *v = malloc((size_t)*n * size + 1);
    assert_non_null(v);
    assert_true(H5Dread(did, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Sclose(sid);
    H5Dclose(did);
    H5Fclose(fid);
    return v;
}

static void test_cli_plant(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX];
    cuplas_ply sp, cp, op;
    int64_t cells, nv, k = 0;

    char plant[PATH_MAX];
    if (!tu_shared_path("scenes/plant.splat", plant, sizeof plant)) {
        skip();
        return;
    }
    /* the capture as cuplas's .splat reader decodes it (graphdeco order,
       no SH: the decoded compressed layout with S = 0), encoded here */
    float *s = decode_file(plant, &sp);
    encode(tu_path(f->dir, "plant.compressed.ply", path), s, sp.n, 0, 0, 1);
    float *d = decode_file(path, &cp);
    assert_int_equal(cp.n, sp.n);
    assert_int_equal(cp.nprops, 14);
    for (int j = 0; j < 14; j++)
        assert_string_equal(cp.props[j].name, sp.props[j].name);
    /* an alpha byte survives the trip (the ends excepted: .splat's clamp) */
    for (int64_t i = 0; i < sp.n; i++)
        if (fabs(s[i * 14 + 6]) < 6.2 && d[i * 14 + 6] != s[i * 14 + 6])
            fail_msg("splat %lld: opacity %g, was %g", (long long)i, (double)d[i * 14 + 6],
                     (double)s[i * 14 + 6]);

    assert_int_equal(tu_sh(f, "\"$B\" sort plant.compressed.ply p.h5 --ply p.ply "
                              "--log-format text"), 0);
    int64_t *index = read_ds(f, "p.h5", "/vertex/index", H5T_NATIVE_INT64, 8, &cells);
    float *sorted = read_ds(f, "p.h5", "/vertex/sorted", H5T_NATIVE_FLOAT, 4, &nv);
    assert_int_equal(nv, cells * 14);
    float *o = decode_file(tu_path(f->dir, "p.ply", path), &op);
    assert_int_equal(op.format, CUPLAS_PLY_BINARY_LE);   /* a graphdeco PLY now */
    assert_int_equal(op.n, sp.n);
    assert_int_equal(op.nprops, 14);
    for (int j = 0; j < 14; j++)
        assert_string_equal(op.props[j].name, cp.props[j].name);
    for (int64_t c = 0; c < cells; c++) {
        if (index[c] < 0) {   /* an empty cell: zeros */
            for (int j = 0; j < 14; j++)
                assert_true(sorted[c * 14 + j] == 0);
            continue;
        }
        assert_memory_equal(sorted + c * 14, d + index[c] * 14, 14 * sizeof *d);
        assert_memory_equal(o + k++ * 14, d + index[c] * 14, 14 * sizeof *d);
    }
    assert_int_equal(k, sp.n);
    /* export-ply from the result writes the same PLY */
    assert_int_equal(tu_sh(f, "\"$B\" export-ply p.h5 plant.compressed.ply again.ply && "
                              "cmp again.ply p.ply"), 0);
    free(index), free(sorted), free(o), free(d), free(s);
    cuplas_ply_close(&op);
    cuplas_ply_close(&cp);
    cuplas_ply_close(&sp);
}

/* ---- (e) bad input ----------------------------------------------------- */

/* A compressed PLY header of 300 splats (2 chunks, 3 SH bytes) with its
 * first line `from` replaced by `to` (NULL: none). Its lines: 3 element
 * chunk, 4..21 the bounds, 22 element vertex, 23..26 the packed words,
 * 27 element sh, 28..30 f_rest_0..2. */
static size_t bad_header(char *buf, const char *from, const char *to)
{
    char h[4096];
    size_t n = (size_t)sprintf(h, "ply\nformat binary_little_endian 1.0\nelement chunk 2\n");
    for (int k = 0; k < 18; k++)
        n += (size_t)sprintf(h + n, "property float %s\n", bound_names[k]);
    n += (size_t)sprintf(h + n, "element vertex 300\nproperty uint packed_position\n"
                                "property uint packed_rotation\nproperty uint packed_scale\n"
                                "property uint packed_color\nelement sh 300\n"
                                "property uchar f_rest_0\nproperty uchar f_rest_1\n"
                                "property uchar f_rest_2\nend_header\n");
    char *at = from ? strstr(h, from) : NULL;
    if (from && !at)
        fail_msg("'%s' is not in the header", from);
    if (!at)
        return (size_t)sprintf(buf, "%s", h);
    return (size_t)sprintf(buf, "%.*s%s%s", (int)(at - h), h, to, at + strlen(from));
}

static void test_bad_input(void **state)
{
    fixture *f = *state;
    /* body bytes: chunks x 72 (or the edited row) + 300 x 16 + 300 x 3 */
    const struct {
        const char *from, *to;
        size_t body;
        const char *want;   /* after "bad.ply:" */
    } cases[] = {
        {"element chunk 2\n", "element chunk 1\n", 72 + 4800 + 900,
         "3: compressed PLY: element 'chunk' has 1 rows; 300 vertices need ceil(300 / 256) = 2"},
        {"element chunk 2\n", "element chunk 3\n", 216 + 4800 + 900,
         "3: compressed PLY: element 'chunk' has 3 rows"},
        {"property uint packed_color\n", "", 144 + 3600 + 900,
         "22: compressed PLY: element 'vertex' has no property 'packed_color'"},
        {"property uint packed_scale\n", "property float packed_scale\n", 5844,
         "25: compressed PLY: property 'packed_scale' of element 'vertex' is float, not uint"},
        {"property uint packed_position\n", "property int packed_position\n", 5844,
         "23: compressed PLY: property 'packed_position' of element 'vertex' is int, not uint"},
        {"property float max_z\n", "", 136 + 4800 + 900,
         "3: compressed PLY: element 'chunk' has no property 'max_z'"},
        {"property float min_x\n", "property double min_x\n", 152 + 4800 + 900,
         "4: compressed PLY: property 'min_x' of element 'chunk' is double, not float"},
        {"property float min_g\n", "", 136 + 4800 + 900,   /* colour bounds: all or none */
         "3: compressed PLY: element 'chunk' has no property 'min_g'"},
        {"element sh 300\n", "element sh 299\n", 144 + 4800 + 897,
         "27: compressed PLY: element 'sh' has 299 rows, element 'vertex' 300"},
        {"property uchar f_rest_1\n", "property float f_rest_1\n", 144 + 4800 + 1800,
         "29: compressed PLY: property 'f_rest_1' of element 'sh' is float, not uchar"},
        {"property uchar f_rest_1\n", "property uchar opacity\n", 5844,
         "29: compressed PLY: duplicate property 'opacity'"},
        {NULL, NULL, 5843, "27: truncated body: element 'sh' needs 300 rows of 3 bytes"},
        {NULL, NULL, 144 + 4799, "22: truncated body: element 'vertex' needs 300 rows of 16"},
        {NULL, NULL, 100, "3: truncated body: element 'chunk' needs 2 rows of 72"},
        {NULL, NULL, 5845, "27: count mismatch: 1 bytes follow the rows of the last element"},
        {"binary_little_endian", "ascii", 5844, "3: compressed PLY (element 'chunk' beside "
                                                "packed_* vertex properties): it must be binary"},
        {"property float min_y\n", "property float min_y\nproperty list uchar int e\n", 5844,
         "3: compressed PLY: element 'chunk' has a list property"},
        {"element vertex 300\n", "element face 1\nproperty list uchar int i\nelement vertex 300\n",
         5844 + 5, "22: compressed PLY: element 'face' has a list property"},
        /* a bound that is not finite (min_x of chunk 0 = NaN): found reading */
        {NULL, "nan", 5844, "3: compressed PLY: chunk 0 has min_x = nan"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *buf = calloc(1, 8192 + cases[c].body), path[PATH_MAX];
        assert_non_null(buf);
        size_t n = bad_header(buf, cases[c].from, cases[c].from ? cases[c].to : NULL);
        if (cases[c].to && !cases[c].from)   /* NaN, little endian */
            memcpy(buf + n, "\0\0\xc0\x7f", 4);
        FILE *g = fopen(tu_path(f->dir, "bad.ply", path), "wb");
        assert_non_null(g);
        assert_int_equal(fwrite(buf, 1, n + cases[c].body, g), n + cases[c].body);
        assert_int_equal(fclose(g), 0);
        free(buf);
        assert_int_equal(tu_sh(f, "\"$B\" sort bad.ply out.h5 --ply out.ply --log-format text"),
                         1);
        size_t len;
        char *err = tu_slurp(f, "err.txt", &len), *line = strstr(err, "error: "), want[400];
        snprintf(want, sizeof want, "error: bad.ply:%s", cases[c].want);
        if (!line || strncmp(line, want, strlen(want)))
            fail_msg("case %zu: err.txt lacks \"%s\":\n%s", c, want, err);
        assert_true(strchr(line, '\n') == NULL || strchr(line, '\n')[1] == '\0');   /* one line */
        free(err);
        assert_int_equal(access(tu_path(f->dir, "out.h5", path), F_OK), -1);
        assert_int_equal(access(tu_path(f->dir, "out.ply", path), F_OK), -1);
    }
}

/* A chunk element without packed_* words, or packed_* words without a
 * chunk element, is an ordinary PLY (read as it is, as before). */
static void test_not_claimed(void **state)
{
    fixture *f = *state;
    const char *hdr[2] = {
        "ply\nformat binary_little_endian 1.0\nelement chunk 1\nproperty float min_x\n"
        "element vertex 2\nproperty float x\nend_header\n",
        "ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty uint packed_color\n"
        "end_header\n",
    };
    for (int k = 0; k < 2; k++) {
        char path[PATH_MAX], buf[512] = {0};
        size_t n = strlen(hdr[k]) + (k ? 8 : 12);
        memcpy(buf, hdr[k], strlen(hdr[k]));
        FILE *g = fopen(tu_path(f->dir, "plain.ply", path), "wb");
        assert_non_null(g);
        assert_int_equal(fwrite(buf, 1, n, g), n);
        assert_int_equal(fclose(g), 0);
        cuplas_ply p;
        float *r = decode_file(path, &p);
        assert_int_equal(p.format, CUPLAS_PLY_BINARY_LE);
        assert_int_equal(p.nprops, 1);
        free(r);
        cuplas_ply_close(&p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_exact),
        cmocka_unit_test_setup_teardown(test_decode_file_exact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_plant, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_claimed, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
