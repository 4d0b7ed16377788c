/*
 * test_h5helper.c - results built by HDF5 helper processes (h5wire.c,
 * h5helper.c) against the same results built in this process: the files
 * must be byte-identical. Also: a helper that is killed or sent garbage
 * is retired and the others go on; errors travel back whole.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <hdf5.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/h5_gen.h"
#include "io/h5helper.h"
#include "io/h5io.h"
#include "io/h5wire.h"
#include "tmpdir.h"

#ifndef CUPLAS_BUILDDIR
#error "CUPLAS_BUILDDIR must name the build folder (Makefile.am sets it)"
#endif

/* The binary whose `__h5-helper` is tested: $CUPLAS_BIN (a bundle run on
 * the GPU machine), else the build's. */
static const char *cuplas_bin(void)
{
    const char *b = getenv("CUPLAS_BIN");
    return b && b[0] ? b : CUPLAS_BUILDDIR "/cuplas";
}

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");
    char pattern[1024];
    snprintf(pattern, sizeof pattern, "%s/test_h5helper.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return tu_fixture_new(state, pattern);
}

static int teardown(void **state)
{
    tu_fixture_free(state);
    return 0;
}

/* ------------------------------------------------------------- helpers */

static const cuplas_result_meta META = {
    .params_yaml = "sort:\n  seed: 3\n", .seed = 3, .version = "test",
    .and_before = 0.25, .and_after = 0.125, .wall_seconds = 1.5,
    .backend = "cpu", .device_name = "test device", .identity = "id-0123",
};

/* A generated input in dir: kind, H x W, `count` datasets "/g_000"... */
static void make_input(const char *path, cuplas_gen_kind kind, int64_t H, int64_t W, int count)
{
    cuplas_gen_opts o;
    cuplas_error e = {0};
    cuplas_gen_defaults(&o);
    o.kind = kind;
    o.H = H;
    o.W = W;
    o.C = 5;
    o.seed = 11;
    o.path = path;
    o.dataset = "/g";
    o.count = count;
    o.deflate = 1;
    assert_int_equal(cuplas_gen_write(&o, &e), 0);
}

/* Read file:dataset (type kept for a helper) and encode it uncompressed
 * with a fixed permutation (a rotation by 7 cells). */
static void read_encode(const char *file, const char *dataset, cuplas_h5grid *g,
                        cuplas_h5_encoded **enc)
{
    cuplas_output_opts opts = {.deflate = 0, .fsync = 0};
    cuplas_error e = {0};
    assert_int_equal(cuplas_h5_read_grid(file, dataset, 0, 0, g, &e), 0);
    assert_int_equal(cuplas_h5grid_keep_type(g, &e), 0);
    int64_t N = g->H * g->W, *index = malloc((size_t)N * sizeof *index);
    assert_non_null(index);
    for (int64_t i = 0; i < N; i++)
        index[i] = (i + 7) % N;
    assert_int_equal(cuplas_h5_encode_result(g, index, &opts, NULL, NULL, enc, &e), 0);
    assert_true(cuplas_h5wire_fits(g, *enc));
    free(index);
}

/* Whole file into a malloc'd buffer. */
static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc((size_t)len + 1);
    assert_non_null(p);
    assert_int_equal(fread(p, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return p;
}

static void assert_same_bytes(const char *a, const char *b)
{
    size_t na, nb;
    unsigned char *pa = slurp(a, &na), *pb = slurp(b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(pa, pb, na);
    free(pa);
    free(pb);
}

/* Build the output of (g, enc) at out through a reply, as the runner does:
 * the reply into enc, then write_raw and publish. Returns the status. */
static int publish_reply(const unsigned char *reply, size_t len, const cuplas_h5grid *g,
                         cuplas_h5_encoded *enc, const char *out, cuplas_error *e)
{
    char *tmp = cuplas_tmp_create(out, e);
    (void)g;
    assert_non_null(tmp);
    int rc = cuplas_h5wire_apply(reply, len, enc, e);
    if (rc == 0)
        rc = cuplas_h5_write_raw(tmp, enc, NULL, e);
    if (rc == 0)
        rc = cuplas_tmp_publish(tmp, out, 0, e);
    if (rc)
        unlink(tmp);
    free(tmp);
    return rc;
}

/* The request for (g, enc) to be published at out. */
static void request(const cuplas_h5grid *g, const cuplas_h5_encoded *enc, const char *out,
                    unsigned char **req, size_t *len)
{
    cuplas_error e = {0};
    assert_int_equal(cuplas_h5wire_request(out, g, enc, &META, req, len, &e), 0);
}

/* Grid `ds` of `in` written here (a<k>.h5) and through a reply (b<k>.h5):
 * by helper processes h, or with h NULL by serve in this process. The two
 * files must hold the same bytes. */
static void same_bytes_both_ways(const fixture *f, const char *in, const char *ds, int k,
                                 cuplas_h5helpers *h)
{
    char a[PATH_MAX], b[PATH_MAX], name[64];
    cuplas_h5grid g = {.file_type = -1};
    cuplas_h5_encoded *enc = NULL;
    unsigned char *req = NULL, *reply = NULL;
    size_t req_len, reply_len;
    cuplas_error e = {0};

    read_encode(in, ds, &g, &enc);
    snprintf(name, sizeof name, "a%d.h5", k);
    assert_int_equal(cuplas_h5_write_encoded(tu_path(f->dir, name, a), &g, enc, &META, &e), 0);
    snprintf(name, sizeof name, "b%d.h5", k);
    request(&g, enc, tu_path(f->dir, name, b), &req, &req_len);
    if (h)
        assert_int_equal(cuplas_h5helpers_call(h, req, req_len, &reply, &reply_len, &e), 0);
    else
        assert_int_equal(cuplas_h5wire_serve(req, req_len, &reply, &reply_len, &e), 0);
    assert_int_equal(publish_reply(reply, reply_len, &g, enc, b, &e), 0);
    assert_same_bytes(a, b);
    free(req);
    free(reply);
    cuplas_h5_encoded_free(enc);
    cuplas_h5grid_free(&g);
}

/* --------------------------------------------------------------- tests */

/* In this process, without helpers: request -> serve -> apply gives the
 * bytes of write_encoded, for rank-3 uint8, rank-3 float32 and rank-2
 * (N, 14) float32 inputs. */
static void test_wire_matches_in_process(void **state)
{
    const fixture *f = *state;
    const cuplas_gen_kind kinds[] = {CUPLAS_GEN_COLORS, CUPLAS_GEN_NORMAL, CUPLAS_GEN_GAUSSIANS};
    char in[PATH_MAX], name[64];

    for (int k = 0; k < 3; k++) {
        snprintf(name, sizeof name, "in%d.h5", k);
        make_input(tu_path(f->dir, name, in), kinds[k], 24, 40, 1);
        same_bytes_both_ways(f, in, "/g", k, NULL);
    }
}

/* Compressed results and grids without a kept type stay on the HDF5 thread. */
static void test_fits(void **state)
{
    const fixture *f = *state;
    char in[PATH_MAX];
    cuplas_h5grid g = {.file_type = -1};
    cuplas_h5_encoded *enc = NULL;
    cuplas_output_opts deflate = {.deflate = 1, .shuffle = 1};
    cuplas_error e = {0};
    int64_t index[24 * 40];

    make_input(tu_path(f->dir, "in.h5", in), CUPLAS_GEN_COLORS, 24, 40, 1);
    assert_int_equal(cuplas_h5_read_grid(in, "/g", 0, 0, &g, &e), 0);
    for (int i = 0; i < 24 * 40; i++)
        index[i] = i;
    assert_int_equal(cuplas_h5_encode_result(&g, index, NULL, NULL, NULL, &enc, &e), 0);
    assert_false(cuplas_h5wire_fits(&g, enc));   /* no kept type */
    assert_int_equal(cuplas_h5grid_keep_type(&g, &e), 0);
    assert_true(cuplas_h5wire_fits(&g, enc));
    cuplas_h5_encoded_free(enc);
    assert_int_equal(cuplas_h5_encode_result(&g, index, &deflate, NULL, NULL, &enc, &e), 0);
    assert_false(cuplas_h5wire_fits(&g, enc));
    cuplas_h5_encoded_free(enc);
    cuplas_h5grid_free(&g);
}

/* Several grids through two helper processes: the same bytes as here. */
static void test_helpers_match_in_process(void **state)
{
    const fixture *f = *state;
    char in[PATH_MAX], ds[16];
    cuplas_h5helpers *h = NULL;
    cuplas_error e = {0};

    make_input(tu_path(f->dir, "in.h5", in), CUPLAS_GEN_NORMAL, 16, 12, 6);
    assert_int_equal(cuplas_h5helpers_start(cuplas_bin(), 2, &h, &e), 0);
    assert_int_equal(cuplas_h5helpers_count(h), 2);
    assert_int_equal(cuplas_h5helpers_alive(h), 2);
    for (int k = 0; k < 6; k++) {
        snprintf(ds, sizeof ds, "/g_%03d", k);
        same_bytes_both_ways(f, in, ds, k, h);
    }
    cuplas_h5helpers_stop(h);
}

/* A failure inside the helper (the group "/" exists) comes back as the
 * same error that building the file here gives. */
static void test_helper_error_travels(void **state)
{
    const fixture *f = *state;
    char in[PATH_MAX], out[PATH_MAX];
    cuplas_h5grid g = {.file_type = -1};
    cuplas_h5_encoded *enc = NULL;
    cuplas_h5helpers *h = NULL;
    unsigned char *req = NULL, *reply = NULL;
    size_t req_len, reply_len;
    cuplas_error here = {0}, there = {0};

    make_input(tu_path(f->dir, "in.h5", in), CUPLAS_GEN_COLORS, 8, 8, 1);
    read_encode(in, "/g", &g, &enc);
    free(g.dataset);
    g.dataset = strdup("/");
    assert_int_equal(cuplas_h5_write_encoded(tu_path(f->dir, "a.h5", out), &g, enc, &META, &here),
                     CUPLAS_ERR_OUTPUT);
    assert_int_equal(cuplas_h5helpers_start(cuplas_bin(), 1, &h, &there), 0);
    request(&g, enc, tu_path(f->dir, "b.h5", out), &req, &req_len);
    assert_int_equal(cuplas_h5helpers_call(h, req, req_len, &reply, &reply_len, &there), 0);
    assert_int_equal(cuplas_h5wire_apply(reply, reply_len, enc, &there), CUPLAS_ERR_OUTPUT);
    assert_string_equal(here.msg, there.msg);
    assert_int_equal(cuplas_h5helpers_alive(h), 1);   /* a job's error, not the helper's */
    free(req);
    free(reply);
    cuplas_h5helpers_stop(h);
    cuplas_h5_encoded_free(enc);
    cuplas_h5grid_free(&g);
}

/* A killed helper is retired with its cause; the other serves on. Garbage
 * makes a helper quit (exit 1), which is reported the same way. */
static void test_helper_death(void **state)
{
    const fixture *f = *state;
    char in[PATH_MAX], out[PATH_MAX];
    cuplas_h5grid g = {.file_type = -1};
    cuplas_h5_encoded *enc = NULL;
    cuplas_h5helpers *h = NULL;
    unsigned char *req = NULL, *reply = NULL;
    size_t req_len, reply_len;
    const unsigned char junk[] = "not a request";
    cuplas_error e = {0};

    make_input(tu_path(f->dir, "in.h5", in), CUPLAS_GEN_COLORS, 8, 8, 1);
    read_encode(in, "/g", &g, &enc);
    request(&g, enc, tu_path(f->dir, "b.h5", out), &req, &req_len);
    assert_int_equal(cuplas_h5helpers_start(cuplas_bin(), 2, &h, &e), 0);

    /* idle helpers are taken lowest first: helper 0 gets the next call */
    assert_int_equal(kill(cuplas_h5helpers_pid(h, 0), SIGKILL), 0);
    cuplas_error_clear(&e);
    assert_int_not_equal(cuplas_h5helpers_call(h, req, req_len, &reply, &reply_len, &e), 0);
    assert_non_null(strstr(e.msg, "HDF5 helper 0"));
    assert_non_null(strstr(e.msg, "killed by signal 9"));
    assert_int_equal(cuplas_h5helpers_alive(h), 1);
    assert_int_equal(cuplas_h5helpers_pid(h, 0), -1);

    assert_int_equal(cuplas_h5helpers_call(h, req, req_len, &reply, &reply_len, &e), 0);
    free(reply);
    reply = NULL;
    cuplas_error_clear(&e);
    assert_int_not_equal(cuplas_h5helpers_call(h, junk, sizeof junk, &reply, &reply_len, &e), 0);
    assert_non_null(strstr(e.msg, "exited with status 1"));
    assert_int_equal(cuplas_h5helpers_alive(h), 0);
    cuplas_error_clear(&e);
    assert_int_not_equal(cuplas_h5helpers_call(h, req, req_len, &reply, &reply_len, &e), 0);
    assert_non_null(strstr(e.msg, "no HDF5 helper left"));
    cuplas_h5helpers_stop(h);
    free(req);
    cuplas_h5_encoded_free(enc);
    cuplas_h5grid_free(&g);
}

/* A program that is not a helper fails the start, with its name. */
static void test_wrong_executable(void **state)
{
    cuplas_h5helpers *h = NULL;
    cuplas_error e = {0};
    (void)state;
    assert_int_not_equal(cuplas_h5helpers_start("/bin/true", 2, &h, &e), 0);
    assert_null(h);
    assert_non_null(strstr(e.msg, "did not start"));
    cuplas_error_clear(&e);
    assert_int_not_equal(cuplas_h5helpers_start("/nonexistent/cuplas", 1, &h, &e), 0);
    assert_non_null(strstr(e.msg, "/nonexistent/cuplas"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_wire_matches_in_process, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_helpers_match_in_process, setup, teardown),
        cmocka_unit_test_setup_teardown(test_helper_error_travels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_helper_death, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_executable, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
