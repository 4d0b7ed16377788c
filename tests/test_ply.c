/*
 * test_ply.c - the scene reader/writer (io/ply.h, io/splat.h) on files
 * the tests write: the same vertices as little-endian, big-endian and
 * ascii PLY give the same values; identity exports are byte-identical;
 * an export in a permuted order with holes has exactly the rows in index
 * order (also over several write blocks, on any thread count); other elements are skipped and dropped; every malformed header
 * or body gives its one-line error naming the file (and the line); .splat
 * decoding against hand-computed values; a .splat of several 64Ki-record
 * chunks decodes to the same bytes on one thread, an OpenMP team and a
 * pool, and a file cut short after its open fails with the first short
 * chunk's message on any of them; the real plant scene when the shared
 * data is there.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tmpdir.h"
#include "testutil.h"
#include "shared_data.h"
#include "io/ply.h"
#include "io/splat.h"
#include "util/pool.h"
#include "util/threads.h"

static int setup(void **state) { return tu_fixture_new(state, "/tmp/cuplas_ply_XXXXXX"); }
static int teardown(void **state) { tu_fixture_free(state); return 0; }

/* ---- test data: 5 vertices, one property of every type ---------------- */

enum { NV = 5, NP = 9 };
static const struct {
    const char *type, *name;
    cuplas_ply_type t;
} P[NP] = {
    {"float", "x", CUPLAS_PLY_FLOAT32},   {"float32", "y", CUPLAS_PLY_FLOAT32},
    {"double", "z", CUPLAS_PLY_FLOAT64},  {"uchar", "red", CUPLAS_PLY_UINT8},
    {"int", "id", CUPLAS_PLY_INT32},      {"short", "s", CUPLAS_PLY_INT16},
    {"ushort", "u", CUPLAS_PLY_UINT16},   {"char", "c", CUPLAS_PLY_INT8},
    {"uint32", "ui", CUPLAS_PLY_UINT32},
};

/* The value of property j of vertex i, as the file stores it. */
static double val(int i, int j)
{
    switch (j) {
    case 0: return i * 0.5 - 1.25;
    case 1: return (float)(i / 3.0);
    case 2: return 1e10 + i / 7.0;
    case 3: return 250 + i;
    case 4: return -100000.0 * i;
    case 5: return -300 + i;
    case 6: return 65535 - i;
    case 7: return -128 + i;
    default: return 4000000000.0 + i;
    }
}

static size_t put(unsigned char *dst, cuplas_ply_type t, double v, int be)
{
    unsigned char b[8];
    size_t n = cuplas_ply_type_size(t);
    switch (t) {
    case CUPLAS_PLY_INT8: { int8_t x = (int8_t)v; memcpy(b, &x, 1); break; }
    case CUPLAS_PLY_UINT8: { uint8_t x = (uint8_t)v; memcpy(b, &x, 1); break; }
    case CUPLAS_PLY_INT16: { int16_t x = (int16_t)v; memcpy(b, &x, 2); break; }
    case CUPLAS_PLY_UINT16: { uint16_t x = (uint16_t)v; memcpy(b, &x, 2); break; }
    case CUPLAS_PLY_INT32: { int32_t x = (int32_t)v; memcpy(b, &x, 4); break; }
    case CUPLAS_PLY_UINT32: { uint32_t x = (uint32_t)v; memcpy(b, &x, 4); break; }
    case CUPLAS_PLY_FLOAT32: { float x = (float)v; memcpy(b, &x, 4); break; }
    case CUPLAS_PLY_FLOAT64: memcpy(b, &v, 8); break;
    }
    const uint16_t one = 1;
    int host_be = *(const unsigned char *)&one == 0;
    for (size_t k = 0; k < n; k++)
        dst[k] = be != host_be ? b[n - 1 - k] : b[k];
    return n;
}

static void write_bytes(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* A file this suite wrote: it must be there. */
static char *slurp(const char *path, size_t *len)
{
    char *b = tu_slurp_path(path, len);
    assert_non_null(b);
    return b;
}

/* The header of the test file (format fmt), with extra lines around the
 * vertex element. */
static size_t header(char *buf, const char *fmt, const char *before, const char *after)
{
    size_t n = (size_t)sprintf(buf, "ply\nformat %s 1.0\ncomment made by test_ply\n%s"
                               "element vertex %d\n", fmt, before, NV);
    for (int j = 0; j < NP; j++)
        n += (size_t)sprintf(buf + n, "property %s %s\n", P[j].type, P[j].name);
    n += (size_t)sprintf(buf + n, "%send_header\n", after);
    return n;
}

/* One vertex row in the body of fmt. */
static size_t row(char *buf, const char *fmt, int i)
{
    size_t n = 0;
    if (!strcmp(fmt, "ascii")) {
        for (int j = 0; j < NP; j++) {
            if (j)
                buf[n++] = ' ';
            if (P[j].t == CUPLAS_PLY_FLOAT32 || P[j].t == CUPLAS_PLY_FLOAT64)
                n += (size_t)sprintf(buf + n, "%.*g", P[j].t == CUPLAS_PLY_FLOAT64 ? 17 : 9,
                                     val(i, j));
            else
                n += (size_t)sprintf(buf + n, "%.0f", val(i, j));
        }
        buf[n++] = '\n';
        return n;
    }
    for (int j = 0; j < NP; j++)
        n += put((unsigned char *)buf + n, P[j].t, val(i, j), !strcmp(fmt, "binary_big_endian"));
    return n;
}

static void make_ply(const char *path, const char *fmt)
{
    char buf[8192];
    size_t n = header(buf, fmt, "", "");
    for (int i = 0; i < NV; i++)
        n += row(buf + n, fmt, i);
    write_bytes(path, buf, n);
}

static const char *fmts[3] = {"binary_little_endian", "binary_big_endian", "ascii"};

static void open_ok(const char *path, cuplas_ply *p, void **rows)
{
    cuplas_error e;
    char msg[1200];
    cuplas_error_clear(&e);
    if (cuplas_ply_open(path, p, &e) || !(*rows = malloc(cuplas_ply_body_bytes(p))) ||
        cuplas_ply_read(p, *rows, NULL, &e))
        fail_msg("%s", cuplas_error_format(&e, msg, sizeof msg));
}

/* ---- reading --------------------------------------------------------- */

static void test_same_values(void **state)
{
    fixture *f = *state;
    double got[3][NV * NP];
    int cols[NP];
    for (int j = 0; j < NP; j++)
        cols[j] = NP - 1 - j;   /* any order: reversed */

    for (int k = 0; k < 3; k++) {
        char path[PATH_MAX], name[64];
        cuplas_ply p;
        void *rows;
        snprintf(name, sizeof name, "%s.ply", fmts[k]);
        make_ply(tu_path(f->dir, name, path), fmts[k]);
        open_ok(path, &p, &rows);
        assert_int_equal(p.n, NV);
        assert_int_equal(p.nprops, NP);
        assert_int_equal(p.row_size, 4 + 4 + 8 + 1 + 4 + 2 + 2 + 1 + 4);
        assert_int_equal(p.format, k == 0 ? CUPLAS_PLY_BINARY_LE
                                   : k == 1 ? CUPLAS_PLY_BINARY_BE : CUPLAS_PLY_ASCII);
        assert_int_equal(p.props[2].offset, 8);
        assert_int_equal(p.props[2].type, CUPLAS_PLY_FLOAT64);
        assert_int_equal(cuplas_ply_find(&p, "ui"), 8);
        assert_int_equal(cuplas_ply_find(&p, "nope"), -1);
        const char *nm[NP];
        cuplas_ply_names(&p, nm);
        for (int j = 0; j < NP; j++)
            assert_string_equal(nm[j], P[j].name);
        assert_int_equal(p.header_len, (size_t)p.body_offset);
        assert_memory_equal(p.header + p.header_len - 11, "end_header\n", 11);
        cuplas_ply_extract(&p, rows, cols, NP, got[k]);
        for (int i = 0; i < NV; i++)
            for (int j = 0; j < NP; j++)
                assert_true(got[k][i * NP + j] == val(i, NP - 1 - j));
        assert_true(cuplas_ply_value(&p, rows, 3, 4) == -300000.0);
        free(rows);
        cuplas_ply_close(&p);
    }
    assert_memory_equal(got[0], got[1], sizeof got[0]);
    assert_memory_equal(got[0], got[2], sizeof got[0]);
}

/* An ascii float is rounded once, to the nearest float (strtof), as the
 * binary file of the same text stores it: through a double, text just
 * above the midpoint of two floats lands on the midpoint and then rounds
 * to even, the wrong float. Doubles keep strtod's value. */
static void test_ascii_float_rounds_once(void **state)
{
    fixture *f = *state;
    /* each a little past the midpoint of two floats, away from zero */
    static const char *const text[] = {"1.0000000596046447755", "0.5000000298023223877",
                                       "-1.0000000596046447755"};
    const float want[] = {nextafterf(1.0f, 2.0f), nextafterf(0.5f, 1.0f),
                          -nextafterf(1.0f, 2.0f)};
    enum { NT = sizeof text / sizeof text[0] };
    char path[2][PATH_MAX], buf[1024];
    size_t n[2];

    for (int b = 0; b < 2; b++) {
        n[b] = (size_t)sprintf(buf, "ply\nformat %s 1.0\nelement vertex %d\nproperty float x\n"
                               "property double z\nend_header\n",
                               b ? "binary_little_endian" : "ascii", NT);
        for (int i = 0; i < NT; i++) {
            /* the double rounding this test is about happens on this text */
            assert_true((float)strtod(text[i], NULL) != want[i]);
            if (!b) {
                n[b] += (size_t)sprintf(buf + n[b], "%s %s\n", text[i], text[i]);
                continue;
            }
            n[b] += put((unsigned char *)buf + n[b], CUPLAS_PLY_FLOAT32, want[i], 0);
            n[b] += put((unsigned char *)buf + n[b], CUPLAS_PLY_FLOAT64, strtod(text[i], NULL), 0);
        }
        write_bytes(tu_path(f->dir, b ? "le.ply" : "ascii.ply", path[b]), buf, n[b]);
    }
    double got[2][NT * 2];
    const int cols[2] = {0, 1};
    for (int b = 0; b < 2; b++) {
        cuplas_ply p;
        void *rows;
        open_ok(path[b], &p, &rows);
        cuplas_ply_extract(&p, rows, cols, 2, got[b]);
        free(rows);
        cuplas_ply_close(&p);
    }
    for (int i = 0; i < NT; i++) {
        if (got[0][2 * i] != (double)want[i])
            fail_msg("'%s' read as %.9g, not %.9g", text[i], got[0][2 * i], (double)want[i]);
        assert_true(got[0][2 * i + 1] == strtod(text[i], NULL));
    }
    assert_memory_equal(got[0], got[1], sizeof got[0]);
}

/* ---- writing --------------------------------------------------------- */

static void test_identity_export(void **state)
{
    fixture *f = *state;
    int64_t order[NV] = {0, 1, 2, 3, 4};
    for (int k = 0; k < 3; k++) {
        char in[PATH_MAX], out[PATH_MAX], out2[PATH_MAX], name[64];
        cuplas_ply p;
        cuplas_error e;
        void *rows;
        size_t la, lb, lc;
        snprintf(name, sizeof name, "%s.ply", fmts[k]);
        make_ply(tu_path(f->dir, name, in), fmts[k]);
        open_ok(in, &p, &rows);
        cuplas_error_clear(&e);
        assert_int_equal(cuplas_ply_write(&p, rows, order, NV, tu_path(f->dir, "o.ply", out),
                                          NULL, &e), 0);
        /* and from the file again (rows == NULL) */
        assert_int_equal(cuplas_ply_write(&p, NULL, order, NV, tu_path(f->dir, "o2.ply", out2),
                                          NULL, &e), 0);
        char *a = slurp(in, &la), *b = slurp(out, &lb), *c = slurp(out2, &lc);
        assert_int_equal(la, lb);
        assert_memory_equal(a, b, la);
        assert_int_equal(la, lc);
        assert_memory_equal(a, c, la);
        free(a), free(b), free(c), free(rows);
        cuplas_ply_close(&p);
    }
}

static void test_permuted_export(void **state)
{
    fixture *f = *state;
    int64_t order[] = {3, -1, 0, 4, -1, -1, 1};
    const int64_t want[] = {3, 0, 4, 1};
    for (int k = 0; k < 3; k++) {
        char in[PATH_MAX], out[PATH_MAX], name[64], hdr[4096], exp[8192];
        cuplas_ply p, q;
        cuplas_error e;
        void *rows, *rows2;
        size_t lo;
        snprintf(name, sizeof name, "%s.ply", fmts[k]);
        make_ply(tu_path(f->dir, name, in), fmts[k]);
        open_ok(in, &p, &rows);
        cuplas_error_clear(&e);
        assert_int_equal(cuplas_ply_write(&p, rows, order, 7, tu_path(f->dir, "o.ply", out),
                                          NULL, &e), 0);
        /* expected: the header with count 4, then rows 3 0 4 1 as generated */
        size_t n = header(hdr, fmts[k], "", "");
        char *c = strstr(hdr, "element vertex 5");
        c[15] = '4';
        memcpy(exp, hdr, n);
        for (int i = 0; i < 4; i++)
            n += row(exp + n, fmts[k], (int)want[i]);
        char *o = slurp(out, &lo);
        assert_int_equal(lo, n);
        assert_memory_equal(o, exp, n);
        free(o);
        /* and it reads back as those rows */
        open_ok(out, &q, &rows2);
        assert_int_equal(q.n, 4);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < NP; j++)
                assert_true(cuplas_ply_value(&q, rows2, i, j) == val((int)want[i], j));
        free(rows2), free(rows);
        cuplas_ply_close(&q);
        cuplas_ply_close(&p);
    }
}

/* A body of 74 MB (62 float properties, a 3DGS row): two 64 MiB read
 * blocks and 18 write blocks of 4 MiB. Read on a pool or an OpenMP loop,
 * a permuted export with holes has the rows in index order, byte for byte,
 * whichever gathers and writes them, with or without each block's
 * writeback. */
static void test_export_many_blocks(void **state)
{
    enum { PROPS = 62, ROWS = 300000, M = 360000 };
    fixture *f = *state;
    char in[PATH_MAX], out[PATH_MAX], hdr[4096];
    size_t hn = 0, rs = PROPS * sizeof(float);
    float *body = malloc((size_t)ROWS * rs);
    int64_t *order = malloc(M * sizeof *order);
    cuplas_pool *pool = NULL;
    cuplas_error e;
    assert_true(body && order);
    hn += (size_t)snprintf(hdr, sizeof hdr, "ply\nformat binary_little_endian 1.0\n"
                           "element vertex %d\n", ROWS);
    for (int j = 0; j < PROPS; j++)
        hn += (size_t)snprintf(hdr + hn, sizeof hdr - hn, "property float p%d\n", j);
    hn += (size_t)snprintf(hdr + hn, sizeof hdr - hn, "end_header\n");
    for (size_t i = 0; i < (size_t)ROWS * PROPS; i++)
        body[i] = (float)i * 0.25f;   /* exact in float32 and unique a row */
    FILE *w = fopen(tu_path(f->dir, "big.ply", in), "wb");
    assert_non_null(w);
    assert_int_equal(fwrite(hdr, 1, hn, w), hn);
    assert_int_equal(fwrite(body, rs, ROWS, w), ROWS);
    assert_int_equal(fclose(w), 0);
    /* every row once, backwards, with a hole after every fifth */
    int64_t kept = 0;
    for (int64_t i = 0; i < M; i++)
        order[i] = i % 6 == 5 || kept >= ROWS ? -1 : ROWS - 1 - kept++;
    assert_int_equal(kept, ROWS);
    assert_int_equal(cuplas_pool_create(3, &pool, &e), 0);
    /* an OpenMP loop, the pool, the pool with each block's writeback */
    for (int k = 0; k < 3; k++) {
        cuplas_ply p;
        void *rows;
        size_t lo;
        cuplas_ply_write_opts wo = {.pool = k ? pool : NULL, .writeback = k == 2};
        cuplas_error_clear(&e);
        assert_int_equal(cuplas_ply_open(in, &p, &e), 0);
        assert_non_null(rows = malloc(cuplas_ply_body_bytes(&p)));
        assert_int_equal(cuplas_ply_read(&p, rows, k ? pool : NULL, &e), 0);
        assert_memory_equal(rows, body, (size_t)ROWS * rs);
        assert_int_equal(cuplas_ply_write(&p, rows, order, M, tu_path(f->dir, "o.ply", out), &wo,
                                          &e), 0);
        unsigned char *o = (unsigned char *)slurp(out, &lo);
        assert_int_equal(lo, hn + (size_t)ROWS * rs);
        assert_memory_equal(o, hdr, hn);
        for (int64_t r = 0; r < ROWS; r++)
            assert_memory_equal(o + hn + (size_t)r * rs, body + (size_t)(ROWS - 1 - r) * PROPS,
                                rs);
        free(o);
        free(rows);
        cuplas_ply_close(&p);
    }
    cuplas_pool_free(pool);
    free(body);
    free(order);
}

static void test_bad_index(void **state)
{
    fixture *f = *state;
    char in[PATH_MAX], out[PATH_MAX], msg[1200];
    cuplas_ply p;
    cuplas_error e;
    void *rows;
    int64_t order[] = {0, 5};
    make_ply(tu_path(f->dir, "in.ply", in), "binary_little_endian");
    open_ok(in, &p, &rows);
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_ply_write(&p, rows, order, 2, tu_path(f->dir, "o.ply", out), NULL, &e),
                     CUPLAS_ERR_INPUT);
    assert_non_null(strstr(cuplas_error_format(&e, msg, sizeof msg), "index 5 at position 1"));
    FILE *g = fopen(out, "rb");
    assert_null(g);   /* no output */
    free(rows);
    cuplas_ply_close(&p);
}

/* A cancel flag that is set (a signal came: export-ply's SIGTERM) stops the
 * write with CUPLAS_ERR_INTERRUPTED and leaves no file, in every format; a
 * flag that stays 0 changes nothing. */
static void test_export_cancelled(void **state)
{
    fixture *f = *state;
    int64_t order[NV] = {4, 3, 2, 1, 0};
    for (int k = 0; k < 3; k++) {
        char in[PATH_MAX], out[PATH_MAX], name[64];
        cuplas_ply p;
        cuplas_error e;
        void *rows;
        volatile int stop = 1;
        snprintf(name, sizeof name, "%s.ply", fmts[k]);
        make_ply(tu_path(f->dir, name, in), fmts[k]);
        open_ok(in, &p, &rows);
        cuplas_error_clear(&e);
        cuplas_ply_write_opts wo = {.cancel = &stop};
        assert_int_equal(cuplas_ply_write(&p, rows, order, NV, tu_path(f->dir, "o.ply", out), &wo,
                                          &e), CUPLAS_ERR_INTERRUPTED);
        FILE *g = fopen(out, "rb");
        assert_null(g);   /* no output */
        stop = 0;
        assert_int_equal(cuplas_ply_write(&p, NULL, order, NV, out, &wo, &e), 0);
        assert_non_null(g = fopen(out, "rb"));
        fclose(g);
        remove(out);
        free(rows);
        cuplas_ply_close(&p);
    }
}

/* Other elements: one before vertex (skipped) and faces after it (ignored);
 * an export drops both with their header lines. */
static void test_other_elements(void **state)
{
    fixture *f = *state;
    for (int k = 0; k < 3; k++) {
        int asc = k == 2, be = k == 1;
        char in[PATH_MAX], out[PATH_MAX], buf[8192], exp[8192];
        const char *before = "element camera 2\nproperty float fx\ncomment about fy\n"
                             "property short fy\n";
        const char *after = "element face 2\nproperty list uchar int vertex_indices\n";
        size_t n = header(buf, fmts[k], before, after);
        /* camera rows */
        for (int i = 0; i < 2; i++) {
            if (asc) {
                n += (size_t)sprintf(buf + n, "%d.5 %d\n", i, -i);
            } else {
                n += put((unsigned char *)buf + n, CUPLAS_PLY_FLOAT32, i + 0.5, be);
                n += put((unsigned char *)buf + n, CUPLAS_PLY_INT16, -i, be);
            }
        }
        for (int i = 0; i < NV; i++)
            n += row(buf + n, fmts[k], i);
        for (int i = 0; i < 2; i++) {   /* two triangles */
            if (asc) {
                n += (size_t)sprintf(buf + n, "3 0 1 %d\n", 2 + i);
            } else {
                n += put((unsigned char *)buf + n, CUPLAS_PLY_UINT8, 3, be);
                for (int v = 0; v < 3; v++)
                    n += put((unsigned char *)buf + n, CUPLAS_PLY_INT32, v + i, be);
            }
        }
        write_bytes(tu_path(f->dir, "in.ply", in), buf, n);
        cuplas_ply p;
        void *rows;
        cuplas_error e;
        open_ok(in, &p, &rows);
        assert_int_equal(p.n, NV);
        for (int i = 0; i < NV; i++)
            for (int j = 0; j < NP; j++)
                assert_true(cuplas_ply_value(&p, rows, i, j) == val(i, j));
        int64_t order[NV] = {0, 1, 2, 3, 4};
        cuplas_error_clear(&e);
        assert_int_equal(cuplas_ply_write(&p, rows, order, NV, tu_path(f->dir, "o.ply", out),
                                          NULL, &e), 0);
        size_t lo;
        char *o = slurp(out, &lo);
        /* header: the comment line inside the camera element goes too */
        size_t eh = header(exp, fmts[k], "", "");
        for (int i = 0; i < NV; i++)
            eh += row(exp + eh, fmts[k], i);
        assert_int_equal(lo, eh);
        assert_memory_equal(o, exp, eh);
        free(o), free(rows);
        cuplas_ply_close(&p);
    }
}

/* ---- errors ---------------------------------------------------------- */

/* Open (and read) a file with these bytes; expect code and a message with
 * the file name, needle and, when line > 0, ":line: ". */
static void expect_bad(const char *dir, const char *content, size_t len, const char *needle,
                       int line)
{
    char path[PATH_MAX], msg[1200], where[PATH_MAX + 32];
    cuplas_ply p;
    cuplas_error e;
    void *rows = NULL;
    int rc;
    write_bytes(tu_path(dir, "bad.ply", path), content, len);
    cuplas_error_clear(&e);
    rc = cuplas_ply_open(path, &p, &e);
    if (!rc) {
        rows = malloc(cuplas_ply_body_bytes(&p));
        assert_non_null(rows);
        rc = cuplas_ply_read(&p, rows, NULL, &e);
    }
    cuplas_error_format(&e, msg, sizeof msg);
    if (rc != CUPLAS_ERR_INPUT)
        fail_msg("expected an input error with '%s', got %d: %s", needle, rc, msg);
    if (!strstr(msg, needle))
        fail_msg("'%s' not in '%s'", needle, msg);
    if (line)
        snprintf(where, sizeof where, "%s:%d: ", path, line);
    else
        snprintf(where, sizeof where, "%s", path);
    if (!strstr(msg, where))
        fail_msg("'%s' not in '%s'", where, msg);
    assert_null(strchr(msg, '\n'));
    free(rows);
    cuplas_ply_close(&p);
}

#define BAD(text, needle, line) expect_bad(f->dir, text, sizeof(text) - 1, needle, line)

static void test_malformed(void **state)
{
    fixture *f = *state;
    BAD("plx\nformat ascii 1.0\n", "bad magic", 1);
    /* a NUL is the binary body when no end_header line follows it, and
     * a damaged header line when one does */
    BAD("ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty float x\n"
        "property float y\n\0\0\x80\x3f\n\0\0\0\0\0\0\0\0\0\x80\x3f",
        "no 'end_header' line before the binary data", 6);
    BAD("ply\nformat ascii 1.0\ncomment a\0b\nelement vertex 1\nproperty float x\n"
        " end_header\t\n1\n", "NUL byte in the header", 3);
    BAD("\x89PNG\r\n\x1a\n", "bad magic", 1);
    BAD("", "bad magic", 1);
    BAD("ply\nformat binary_middle_endian 1.0\nelement vertex 1\nproperty float x\nend_header\n",
        "unknown format 'binary_middle_endian'", 2);
    BAD("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n",
        "no 'end_header'", 5);
    BAD("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header",
        "no 'end_header'", 5);
    BAD("ply\nformat ascii 1.0\nelement vertex 1\nproperty flaot x\nend_header\n1\n",
        "unknown property type 'flaot'", 4);
    BAD("ply\nformat ascii 1.0\nelement vertex 1\nproperty list uchar int idx\nend_header\n1 1\n",
        "list property 'idx' in element 'vertex'", 4);
    BAD("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty double x\n"
        "end_header\n1 1\n", "duplicate vertex property 'x'", 5);
    BAD("ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nend_header\n", "0 vertices",
        5);
    BAD("ply\nformat ascii 1.0\nelement face 1\nproperty float x\nend_header\n1\n",
        "no 'vertex' element", 5);
    BAD("ply\nformat ascii 1.0\nelement vertex -3\nproperty float x\nend_header\n",
        "count '-3' is not a non-negative integer", 3);
    BAD("ply\nformat ascii 1.0\nelement vertex 99999999999999999999999\nproperty float x\n"
        "end_header\n", "is not a non-negative integer", 3);
    BAD("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nfoo bar\nend_header\n1\n",
        "unknown header keyword 'foo'", 5);
    /* blank lines: no token, so the reader must not look at tok[0] */
    BAD("ply\nformat ascii 1.0\n\nelement vertex 1\nproperty float x\nend_header\n1\n",
        "empty header line", 3);
    BAD("ply\nformat ascii 1.0\n \t\nelement vertex 1\nproperty float x\nend_header\n1\n",
        "empty header line", 3);
    BAD("ply\nelement vertex 1\nproperty float x\nend_header\n1\n", "before the 'format'", 2);
    BAD("ply\nformat ascii 1.0\nproperty float x\nelement vertex 1\nend_header\n1\n",
        "'property' before any 'element'", 3);
    /* bodies: hostile counts fail before any allocation. A truncated body
     * or a count mismatch names the header line of the count (README,
     * 3DGS scenes, Errors): `element vertex N`, or an element before it */
    BAD("ply\nformat binary_little_endian 1.0\nelement vertex 9223372036854775807\n"
        "property double x\nend_header\n12345678", "truncated body", 3);
    BAD("ply\nformat binary_big_endian 1.0\nelement vertex 3\nproperty float x\nend_header\n"
        "12345678", "truncated body: 3 vertices of 4 bytes need 12 bytes, the file has 8", 3);
    BAD("ply\nformat binary_little_endian 1.0\ncomment c\nelement vertex 1\nproperty float x\n"
        "end_header\n12345678", "count mismatch", 4);
    BAD("ply\nformat binary_little_endian 1.0\nelement face 5\nproperty float a\n"
        "element vertex 1\nproperty float x\nend_header\n12345678",
        "truncated body: element 'face' needs more bytes than the file has", 3);
    BAD("ply\nformat ascii 1.0\nelement vertex 1000000000\nproperty float x\nend_header\n1\n",
        "count mismatch", 3);
    BAD("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nend_header\n1\n2\n",
        "count mismatch: the header declares 3 vertices, the body has only 4 bytes", 3);
    BAD("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nend_header\n1.5\n2.5\n",
        "count mismatch: the header declares 3 vertices, the body has 2 rows", 3);
    BAD("ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nend_header\n1\n2\n3\n",
        "count mismatch: the header declares 2 vertices, the body has more rows (from line 8)",
        3);
    BAD("ply\nformat ascii 1.0\nelement face 3\nproperty float a\nelement vertex 1\n"
        "property float x\nend_header\n1\n2\n",
        "count mismatch: the body ends inside the elements before 'vertex'", 5);
    BAD("ply\nformat ascii 1.0\nelement a 3\nproperty float a\nelement b 3\nproperty float b\n"
        "element vertex 1\nproperty float x\nend_header\n1\n2\n3\n4\n",
        "count mismatch: the body ends inside the elements before 'vertex'", 7);
    /* the rows before vertex are counted against the body one element at
     * a time: summed unchecked, these wrapped past INT64_MAX to a negative
     * count, nothing was skipped and the file was read as if they were not
     * declared */
    BAD("ply\nformat ascii 1.0\nelement a 9223372036854775807\nproperty float a\n"
        "element b 9223372036854775807\nproperty float b\nelement vertex 4\nproperty float x\n"
        "property float y\nproperty float z\nend_header\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n",
        "truncated body: element 'a' needs more bytes than the file has", 3);
    BAD("ply\nformat ascii 1.0\nelement a 10\nproperty float a\n"
        "element b 9223372036854775800\nproperty float b\nelement vertex 4\nproperty float x\n"
        "property float y\nproperty float z\nend_header\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n",
        "truncated body: element 'b' needs more bytes than the file has", 5);
    BAD("ply\nformat binary_little_endian 1.0\nelement a 9223372036854775807\nproperty float a\n"
        "element b 9223372036854775807\nproperty float b\nelement vertex 1\nproperty float x\n"
        "end_header\n1234",
        "truncated body: element 'a' needs more bytes than the file has", 3);
    BAD("ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty uchar r\n"
        "end_header\n1 2\n3.25\n", "vertex row 1 has fewer values", 8);
    BAD("ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty uchar r\n"
        "end_header\n1 2\n3 256\n", "'256' is not a valid uchar for property 'r'", 8);
    BAD("ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty uchar r\n"
        "end_header\n1 2 3 4 5 6\n3 4\n", "vertex row 0 has more values", 7);
    BAD("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\nabc\n",
        "'abc' is not a valid float", 6);
    BAD("ply\nformat binary_little_endian 1.0\nelement e 1\nproperty list uchar int i\n"
        "element vertex 1\nproperty float x\nend_header\n\0\0\0\0\0", "has a list property", 3);
}

/* Damaged files (bytes changed, cut short, counts edited) must give 0 or
 * an input error, never a crash; a reader that succeeds must also export. */
static void test_mutations(void **state)
{
    fixture *f = *state;
    unsigned seed = 12345;
    for (int k = 0; k < 3; k++) {
        char in[PATH_MAX], bad[PATH_MAX], out[PATH_MAX];
        size_t len;
        make_ply(tu_path(f->dir, "in.ply", in), fmts[k]);
        char *orig = slurp(in, &len);
        char *buf = malloc(len + 16);
        assert_non_null(buf);
        for (int it = 0; it < 400; it++) {
            size_t n = len;
            memcpy(buf, orig, len);
            seed = seed * 1103515245u + 12345u;
            int kind = (int)(seed >> 16) % 3;
            if (kind == 0) {            /* cut short */
                n = (seed >> 8) % len;
            } else {                    /* 1..3 bytes changed, mostly in the header */
                for (int m = 0; m <= (int)(seed >> 20) % 3; m++) {
                    seed = seed * 1103515245u + 12345u;
                    size_t at = (seed >> 8) % (kind == 1 ? 300 : len);
                    seed = seed * 1103515245u + 12345u;
                    buf[at] = (char)(kind == 1 ? "0123456789 \n-ex"[(seed >> 16) % 16]
                                               : (int)(seed >> 16));
                }
            }
            write_bytes(tu_path(f->dir, "bad.ply", bad), buf, n);
            cuplas_ply p;
            cuplas_error e;
            cuplas_error_clear(&e);
            int rc = cuplas_ply_open(bad, &p, &e);
            if (!rc) {
                void *rows = malloc(cuplas_ply_body_bytes(&p) + 1);
                assert_non_null(rows);
                rc = cuplas_ply_read(&p, rows, NULL, &e);
                if (!rc) {
                    int64_t order[2] = {p.n - 1, 0};
                    rc = cuplas_ply_write(&p, rows, order, 2, tu_path(f->dir, "o.ply", out),
                                          NULL, &e);
                }
                free(rows);
            }
            if (rc != 0 && rc != CUPLAS_ERR_INPUT)
                fail_msg("iteration %d: status %d: %s", it, rc, e.msg);
            cuplas_ply_close(&p);
        }
        free(buf);
        free(orig);
    }
}

static void test_splat_errors(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX], msg[1200];
    unsigned char b[33] = {0};
    cuplas_ply p;
    cuplas_error e;
    size_t sizes[] = {33, 31, 0};
    for (int i = 0; i < 3; i++) {
        write_bytes(tu_path(f->dir, "bad.splat", path), b, sizes[i]);
        cuplas_error_clear(&e);
        assert_int_equal(cuplas_ply_open(path, &p, &e), CUPLAS_ERR_INPUT);
        cuplas_error_format(&e, msg, sizeof msg);
        assert_non_null(strstr(msg, path));
        assert_non_null(strstr(msg, "is not a positive multiple of 32"));
        cuplas_ply_close(&p);
    }
}

/* A scene path that is a FIFO (a careless glob) or a folder: refused at
 * once. open() of a FIFO waits for a writer; the alarm makes that a
 * failure instead of a hung test. */
static void test_not_regular(void **state)
{
    fixture *f = *state;
    const struct {
        const char *name;
        int fifo;
        const char *needle;
    } cases[] = {
        {"fifo.ply", 1, "cannot open: is a FIFO, not a regular file"},
        {"fifo.splat", 1, "cannot open: is a FIFO, not a regular file"},
        {"dir.ply", 0, "cannot open: is a directory"},
    };
    alarm(20);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[PATH_MAX], msg[1200];
        cuplas_ply p;
        cuplas_error e;
        tu_path(f->dir, cases[i].name, path);
        assert_int_equal(cases[i].fifo ? mkfifo(path, 0600) : mkdir(path, 0700), 0);
        cuplas_error_clear(&e);
        assert_int_equal(cuplas_ply_open(path, &p, &e), CUPLAS_ERR_INPUT);
        cuplas_error_format(&e, msg, sizeof msg);
        if (!strstr(msg, path) || !strstr(msg, cases[i].needle))
            fail_msg("case %zu: \"%s\" lacks the path or \"%s\"", i, msg, cases[i].needle);
        cuplas_ply_close(&p);
    }
    alarm(0);
}

/* ---- .splat ---------------------------------------------------------- */

static void splat_record(unsigned char *r, const float pos[3], const float sc[3],
                         const unsigned char rgba[4], const unsigned char rot[4])
{
    for (int k = 0; k < 3; k++) {
        put(r + 4 * k, CUPLAS_PLY_FLOAT32, pos[k], 0);
        put(r + 12 + 4 * k, CUPLAS_PLY_FLOAT32, sc[k], 0);
    }
    memcpy(r + 24, rgba, 4);
    memcpy(r + 28, rot, 4);
}

static void test_splat_decode(void **state)
{
    fixture *f = *state;
    unsigned char rec[2 * 32];
    const float pos[3] = {1, -2, 3.5f}, sc[3] = {1.0f, 2.718281828f, 0.5f}, sc2[3] = {0, -1, 4};
    const unsigned char rgba[4] = {255, 0, 128, 51}, rot[4] = {255, 128, 0, 192};
    const unsigned char rgba2[4] = {0, 0, 0, 255}, rot2[4] = {128, 128, 128, 128};
    splat_record(rec, pos, sc, rgba, rot);
    splat_record(rec + 32, pos, sc2, rgba2, rot2);

    /* hand-computed: (c/255 - 0.5)/0.28209479177387814, logit(51/255) =
     * log(0.25), log(e) = 1, log(0.5), (q - 128)/128 */
    const double want[14] = {1, -2, 3.5, 1.7724538509055159, -1.7724538509055159,
                             0.0069507993, -1.3862943611198906, 0, 1, -0.6931471805599453,
                             0.9921875, 0, -1, 0.5};
    float out[2 * 14];
    cuplas_splat_decode(rec, 2, out);
    for (int k = 0; k < 14; k++)
        if (fabs(out[k] - want[k]) > 1e-6 * (1 + fabs(want[k])))
            fail_msg("column %d: %.9g, want %.9g", k, out[k], want[k]);
    /* the clamps: a = 255 gives logit(254.5/255) = log(509); scale 0 and
     * -1 give log(FLT_MIN) */
    assert_true(fabs(out[14 + 6] - 6.2324480483) < 1e-5);
    assert_true(fabs(out[14 + 7] - -87.336544751) < 1e-4);
    assert_true(fabs(out[14 + 8] - -87.336544751) < 1e-4);
    assert_true(fabs(out[14 + 9] - 1.3862943611) < 1e-6);
    assert_true(out[14 + 10] == 0 && out[14 + 13] == 0);

    /* through the table API, and out to a graphdeco PLY and back */
    char path[PATH_MAX], out_path[PATH_MAX];
    cuplas_ply p, q;
    void *rows, *rows2;
    cuplas_error e;
    write_bytes(tu_path(f->dir, "two.splat", path), rec, sizeof rec);
    open_ok(path, &p, &rows);
    assert_int_equal(p.format, CUPLAS_PLY_SPLAT);
    assert_int_equal(p.n, 2);
    assert_int_equal(p.nprops, 14);
    assert_string_equal(p.props[6].name, "opacity");
    assert_string_equal(p.props[10].name, "rot_0");
    assert_memory_equal(rows, out, sizeof out);
    int64_t order[] = {1, -1, 0};
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_ply_write(&p, rows, order, 3, tu_path(f->dir, "two.ply", out_path),
                                      NULL, &e), 0);
    open_ok(out_path, &q, &rows2);
    assert_int_equal(q.format, CUPLAS_PLY_BINARY_LE);
    assert_int_equal(q.n, 2);
    assert_int_equal(q.nprops, 14);
    assert_non_null(strstr(q.header, "element vertex 2\nproperty float x\n"));
    for (int j = 0; j < 14; j++) {
        assert_string_equal(q.props[j].name, p.props[j].name);
        assert_true(cuplas_ply_value(&q, rows2, 0, j) == out[14 + j]);
        assert_true(cuplas_ply_value(&q, rows2, 1, j) == out[j]);
    }
    /* rows == NULL decodes again */
    assert_int_equal(cuplas_ply_write(&p, NULL, order, 3, out_path, NULL, &e), 0);
    free(rows), free(rows2);
    cuplas_ply_close(&q);
    cuplas_ply_close(&p);
    assert_true(cuplas_ply_is_scene_path("a/b/point_cloud.PLY"));
    assert_true(cuplas_ply_is_scene_path("plant.splat"));
    assert_false(cuplas_ply_is_scene_path("plant.h5"));
}

/* The ways a scene body is read: one thread, an OpenMP team of 4, a pool
 * of 3 threads (and its caller). */
enum { WAYS = 3 };

static cuplas_pool *way(int w, cuplas_pool *pool)
{
    cuplas_set_threads(w == 1 ? 4 : 1);
    return w == 2 ? pool : NULL;
}

/* 5 chunks of 64Ki records (the last one short) of random bytes: every
 * byte value, and as floats NaNs, infinities, zeros and negative scales
 * (the log clamp). The same decoded bytes on every thread count; the file
 * cut inside chunk 2 after its open (it changed) fails with chunk 2's
 * message, though chunks 3 and 4 fail too, maybe first. */
static void test_splat_threads(void **state)
{
    fixture *f = *state;
    enum { CHUNK = 65536, N = 4 * CHUNK + 1000 };
    unsigned char *rec = malloc((size_t)N * 32);
    float *want = malloc((size_t)N * 14 * sizeof *want);
    char path[PATH_MAX], msg[PATH_MAX + 200], expect[PATH_MAX + 200];
    uint64_t seed = 7;
    cuplas_pool *pool = NULL;
    cuplas_error e;
    int threads = cuplas_max_threads();
    assert_true(rec && want);
    for (size_t i = 0; i < (size_t)N * 32; i += 8) {
        uint64_t v = tu_next_u64(&seed);
        memcpy(rec + i, &v, 8);
    }
    cuplas_splat_decode(rec, N, want);
    write_bytes(tu_path(f->dir, "big.splat", path), rec, (size_t)N * 32);
    assert_int_equal(cuplas_pool_create(3, &pool, &e), 0);
    for (int w = 0; w < WAYS; w++) {
        cuplas_ply p;
        void *rows;
        cuplas_error_clear(&e);
        assert_int_equal(cuplas_ply_open(path, &p, &e), 0);
        assert_non_null(rows = malloc(cuplas_ply_body_bytes(&p)));
        assert_int_equal(cuplas_ply_read(&p, rows, way(w, pool), &e), 0);
        assert_memory_equal(rows, want, (size_t)N * 14 * sizeof *want);
        free(rows);
        cuplas_ply_close(&p);
    }
    snprintf(expect, sizeof expect, "%s: truncated: the file ended after %d of %d splats (did "
             "it change?)", path, 2 * CHUNK, N);
    for (int w = 0; w < WAYS; w++) {
        cuplas_ply p;
        void *rows;
        write_bytes(path, rec, (size_t)N * 32);
        cuplas_error_clear(&e);
        assert_int_equal(cuplas_ply_open(path, &p, &e), 0);
        assert_int_equal(truncate(path, (off_t)(2 * CHUNK + 100) * 32 + 5), 0);
        assert_non_null(rows = malloc(cuplas_ply_body_bytes(&p)));
        assert_int_equal(cuplas_ply_read(&p, rows, way(w, pool), &e), CUPLAS_ERR_INPUT);
        assert_string_equal(cuplas_error_format(&e, msg, sizeof msg), expect);
        free(rows);
        cuplas_ply_close(&p);
    }
    cuplas_set_threads(threads);
    cuplas_pool_free(pool);
    free(want);
    free(rec);
}

static void test_plant(void **state)
{
    (void)state;
    char buf[PATH_MAX];
    const char *path = tu_shared_path("scenes/plant.splat", buf, sizeof buf);
    if (!path)
        skip();
    cuplas_ply p;
    void *rows;
    open_ok(path, &p, &rows);
    assert_int_equal(p.n, 113648);
    int cols[14];
    for (int j = 0; j < 14; j++)
        cols[j] = j;
    double *v = malloc((size_t)p.n * 14 * sizeof *v);
    assert_non_null(v);
    cuplas_ply_extract(&p, rows, cols, 14, v);
    for (int64_t i = 0; i < p.n; i++)
        for (int j = 0; j < 14; j++) {
            double x = v[i * 14 + j];
            assert_true(isfinite(x));
            if (j >= 10)
                assert_true(x >= -1 && x < 1);
            if (j == 6)
                assert_true(fabs(x) < 6.24);
        }
    free(v), free(rows);
    cuplas_ply_close(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_same_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ascii_float_rounds_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_identity_export, setup, teardown),
        cmocka_unit_test_setup_teardown(test_permuted_export, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_many_blocks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_cancelled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_elements, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mutations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_splat_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_regular, setup, teardown),
        cmocka_unit_test_setup_teardown(test_splat_decode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_splat_threads, setup, teardown),
        cmocka_unit_test(test_plant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
