/*
 * test_h5_read.c - cmocka tests of opening, checking and probing inputs, listing datasets and reading back outputs (h5_read.c).
 *
 * Inputs are written with the plain HDF5 API (iotest.h) into a fresh
 * mkdtemp folder per test, removed afterwards; outputs are read back with
 * the plain HDF5 API as well.
 */
#define _GNU_SOURCE  /* nftw */
#include <zlib.h>
#include <fcntl.h>
#include <sys/file.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#define IOTEST_NAME "test_h5_read"
#include "iotest.h"
#include "io/h5_list.h"
#include "pipeline/probe_cache.h"
#include "shared_data.h"

static void test_nc_shapes(void **state)
{
    char file[PATH_MAX];
    const hsize_t d12[2] = {12, 2}, d16[2] = {16, 2};
    const int64_t hw[2] = {2, 6};
    fpath(*state, "nc.h5", file);
    put_f32(file, "/nc", 2, d12, NULL);
    put_dataset(file, 0, "/sq", H5T_STD_U8LE, 2, d16, NULL, NULL);
    put_dataset(file, 0, "/attr", H5T_STD_U8LE, 2, d12, NULL, hw);

    probe_hw(file, "/nc", 3, 4, 3, 4);
    probe_hw(file, "/nc", 3, 0, 3, 4);
    probe_hw(file, "/nc", 0, 6, 2, 6);
    probe_hw(file, "/attr", 0, 0, 2, 6);
    probe_hw(file, "/attr", 4, 3, 4, 3);   /* arguments win over attributes */
    probe_hw(file, "/sq", 0, 0, 4, 4);
    probe_hw(file, "sq", 0, 0, 4, 4);

    cuplas_h5grid g;
    cuplas_error err;
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(file, "/nc", 3, 0, &g, &err), 0);
    assert_int_equal(g.C, 2);
    assert_true(((float *)g.raw)[23] == 23 * 0.5f - 3.0f);
    cuplas_h5grid_free(&g);

    read_expect_error(file, "/nc", 0, 0, CUPLAS_ERR_INPUT, "not a square");
    /* the reason fit_plan.c acts on (fit instead of fail), and only there */
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(file, "/nc", 0, 0, &g, &err), CUPLAS_ERR_INPUT);
    assert_int_equal(err.reason, CUPLAS_REASON_NOT_SQUARE);
    cuplas_h5grid_free(&g);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(file, "/nc", 5, 0, &g, &err), CUPLAS_ERR_INPUT);
    assert_int_equal(err.reason, CUPLAS_REASON_NONE);
    cuplas_h5grid_free(&g);
    read_expect_error(file, "/nc", 5, 5, CUPLAS_ERR_INPUT, "does not fill a 5 x 5 grid");
    read_expect_error(file, "/nc", 5, 0, CUPLAS_ERR_INPUT, "not a multiple of height 5");
}

static void test_bad_files(void **state)
{
    const fixture *f = *state;
    char missing[PATH_MAX], junk[PATH_MAX], trunc[PATH_MAX];
    unsigned char bytes[4096];
    struct stat st;
    const hsize_t dims[3] = {64, 64, 3};

    fpath(f, "missing.h5", missing);
    fpath(f, "junk.h5", junk);
    fpath(f, "trunc.h5", trunc);
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)(i * 131 + 7);
    write_bytes(junk, bytes, sizeof bytes);
    put_f32(trunc, "/grid", 3, dims, NULL);
    assert_int_equal(stat(trunc, &st), 0);
    assert_int_equal(truncate(trunc, st.st_size / 2), 0);

    read_expect_error(missing, "/grid", 0, 0, CUPLAS_ERR_INPUT, "cannot open: no such file");
    read_expect_error(junk, "/grid", 0, 0, CUPLAS_ERR_INPUT, "not an HDF5 file or corrupt");
    read_expect_error(trunc, "/grid", 0, 0, CUPLAS_ERR_INPUT, "not an HDF5 file or corrupt");

    /* a FIFO (a careless glob over a folder holding one): HDF5's open
       would wait for a writer forever; the alarm turns that into a
       failure instead of a hung test */
    char fifo[PATH_MAX];
    char **names = NULL;
    int count = 0;
    cuplas_error err;
    fpath(f, "fifo.h5", fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    alarm(20);
    read_expect_error(fifo, "/grid", 0, 0, CUPLAS_ERR_INPUT, "cannot open: is a FIFO");
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_list_datasets(fifo, &names, &count, &err), CUPLAS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "is a FIFO, not a regular file"));
    assert_int_equal(cuplas_h5_pin(fifo), -1);
    read_expect_error("/dev/null", "/grid", 0, 0, CUPLAS_ERR_INPUT,
                      "is a character device, not a regular file");
    alarm(0);

    /* a good file another program has open for writing (HDF5's exclusive
       flock; here this process's own, on another open file): locked, not
       "not an HDF5 file or corrupt" as before */
    char held[PATH_MAX];
    fpath(f, "held.h5", held);
    put_f32(held, "/grid", 3, dims, NULL);
    int fd = open(held, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
    read_expect_error(held, "/grid", 0, 0, CUPLAS_ERR_INPUT,
                      "cannot open: another program has it open for writing");
    flock(fd, LOCK_UN);
    close(fd);
    cuplas_h5grid g;
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(held, "/grid", 0, 0, &g, &err), 0);
    cuplas_h5grid_free(&g);
}

/* A deflated chunk overwritten with garbage: the file opens, H5Dread fails. */
static void test_corrupt_chunk(void **state)
{
    char file[PATH_MAX];
    const hsize_t dims[3] = {64, 64, 3}, chunk[3] = {16, 64, 3};
    float *v = malloc(64 * 64 * 3 * sizeof *v);
    hsize_t offset[3] = {16, 0, 0}, size = 0;
    haddr_t addr = 0;
    unsigned mask = 0;

    for (int i = 0; i < 64 * 64 * 3; i++)
        v[i] = (float)(i % 97) * 0.25f;
    fpath(*state, "chunk.h5", file);
    hid_t fid = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), sid = H5Screate_simple(3, dims, NULL);
    H5Pset_chunk(dcpl, 3, chunk);
    H5Pset_deflate(dcpl, 6);
    hid_t did = H5Dcreate2(fid, "g", H5T_IEEE_F32LE, sid, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    assert_true(H5Dwrite(did, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Dclose(did);
    H5Fclose(fid);
    fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    did = H5Dopen2(fid, "g", H5P_DEFAULT);
    assert_true(H5Dget_chunk_info_by_coord(did, offset, &mask, &addr, &size) >= 0);
    H5Dclose(did);
    H5Fclose(fid);
    H5Sclose(sid);
    H5Pclose(dcpl);
    free(v);

    FILE *fp = fopen(file, "r+b");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, (long)addr, SEEK_SET), 0);
    for (hsize_t i = 0; i < size; i++)
        fputc((int)(i * 37 % 251), fp);
    fclose(fp);
    read_expect_error(file, "/g", 0, 0, CUPLAS_ERR_INPUT, "read failed at row");
}

static void test_bad_datasets(void **state)
{
    char file[PATH_MAX];
    const hsize_t d1[1] = {16}, d4[4] = {2, 2, 2, 2}, d0[2] = {0, 3}, dc0[2] = {4, 0};
    const hsize_t dbig[2] = {1, 5000}, dstr[2] = {4, 2};
    hid_t str = H5Tcopy(H5T_C_S1);
    char sdata[8][4] = {"a", "b", "c", "d", "e", "f", "g", "h"};

    H5Tset_size(str, 4);
    fpath(*state, "bad.h5", file);
    put_f32(file, "/r1", 1, d1, NULL);
    put_dataset(file, 0, "/r4", H5T_IEEE_F32LE, 4, d4, NULL, NULL);
    put_dataset(file, 0, "/empty", H5T_IEEE_F32LE, 2, d0, NULL, NULL);
    put_dataset(file, 0, "/noch", H5T_IEEE_F32LE, 2, dc0, NULL, NULL);
    put_dataset(file, 0, "/wide", H5T_STD_U8LE, 2, dbig, NULL, NULL);
    put_dataset(file, 0, "/grp/str", str, 2, dstr, sdata, NULL);
    H5Tclose(str);

    read_expect_error(file, "/nope", 0, 0, CUPLAS_ERR_INPUT, "no dataset /nope");
    read_expect_error(file, "/a/b/c", 0, 0, CUPLAS_ERR_INPUT, "no dataset /a/b/c");
    read_expect_error(file, "/grp", 0, 0, CUPLAS_ERR_INPUT, "not a dataset");
    read_expect_error(file, "/r1", 0, 0, CUPLAS_ERR_INPUT, "rank 1");
    read_expect_error(file, "/r4", 0, 0, CUPLAS_ERR_INPUT, "rank 4");
    read_expect_error(file, "/empty", 0, 0, CUPLAS_ERR_INPUT, "empty dataset");
    read_expect_error(file, "/noch", 0, 0, CUPLAS_ERR_INPUT, "no channels");
    read_expect_error(file, "/wide", 0, 0, CUPLAS_ERR_INPUT, "exceeds the limit of 4096");
    read_expect_error(file, "/grp/str", 0, 0, CUPLAS_ERR_INPUT, "string data is not numeric");
}

static void test_output_complete(void **state)
{
    const fixture *f = *state;
    char out[PATH_MAX], junk[PATH_MAX], partial[PATH_MAX];
    const int64_t index[4] = {2, 3, 0, 1};
    cuplas_result_meta meta = {.identity = "abc"};
    cuplas_output_opts opts = {.chunk_rows = 0, .deflate = 0, .shuffle = false};
    cuplas_h5grid g;
    cuplas_error err;

    read_small(f, &g);
    fpath(f, "out.h5", out);
    fpath(f, "junk.h5", junk);
    fpath(f, "partial.h5", partial);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_write_result(out, &g, index, &opts, &meta, &err), 0);
    assert_int_equal(cuplas_h5_output_complete(out, "/g", "abc"), 1);
    assert_int_equal(cuplas_h5_output_complete(out, "/g", NULL), 1);
    assert_int_equal(cuplas_h5_output_complete(out, "/g", "abd"), 0);
    assert_int_equal(cuplas_h5_output_complete(out, "/g", ""), 0);
    assert_int_equal(cuplas_h5_output_complete(out, "/other", NULL), 0);
    assert_int_equal(cuplas_h5_output_complete(junk, "/g", NULL), 0);
    write_bytes(junk, "not hdf5", 8);
    assert_int_equal(cuplas_h5_output_complete(junk, "/g", NULL), 0);

    /* the group with identity but without `complete` (a crashed writer) */
    hid_t fid = H5Fcreate(partial, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t gid = H5Gcreate2(fid, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t sid = H5Screate(H5S_SCALAR), t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, 4);
    hid_t aid = H5Acreate2(gid, "identity", t, sid, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(aid, t, "abc");
    H5Aclose(aid);
    assert_int_equal(cuplas_h5_output_complete(partial, "/g", "abc"), 0);
    /* fixed-length identities are accepted as well */
    int zero = 0;
    aid = H5Acreate2(gid, "complete", H5T_STD_I32LE, sid, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(aid, H5T_NATIVE_INT, &zero);
    H5Aclose(aid);
    H5Tclose(t);
    H5Sclose(sid);
    H5Gclose(gid);
    H5Fclose(fid);
    assert_int_equal(cuplas_h5_output_complete(partial, "/g", "abc"), 0);
    fid = H5Fopen(partial, H5F_ACC_RDWR, H5P_DEFAULT);
    gid = H5Gopen2(fid, "g", H5P_DEFAULT);
    aid = H5Aopen(gid, "complete", H5P_DEFAULT);
    int one = 1;
    H5Awrite(aid, H5T_NATIVE_INT, &one);
    H5Aclose(aid);
    H5Gclose(gid);
    H5Fclose(fid);
    assert_int_equal(cuplas_h5_output_complete(partial, "/g", "abc"), 1);
    assert_int_equal(cuplas_h5_output_complete(partial, "/g", "ab"), 0);
    cuplas_h5grid_free(&g);
}

static void test_list_datasets(void **state)
{
    char file[PATH_MAX];
    const hsize_t d1[1] = {4}, d2[2] = {4, 2}, d3[3] = {2, 2, 3}, d4[4] = {1, 1, 1, 1};
    hid_t str = H5Tcopy(H5T_C_S1);
    char **names = NULL;
    int count = -1;
    cuplas_error err;

    H5Tset_size(str, 3);
    fpath(*state, "list.h5", file);
    put_dataset(file, 1, "/z", H5T_STD_I16LE, 3, d3, NULL, NULL);
    put_dataset(file, 0, "/b/c", H5T_STD_U8LE, 3, d3, NULL, NULL);
    put_dataset(file, 0, "/a", H5T_IEEE_F64LE, 2, d2, NULL, NULL);
    put_dataset(file, 0, "/b/r1", H5T_IEEE_F64LE, 1, d1, NULL, NULL);
    put_dataset(file, 0, "/b/r4", H5T_IEEE_F64LE, 4, d4, NULL, NULL);
    put_dataset(file, 0, "/s", str, 2, d2, NULL, NULL);
    H5Tclose(str);

    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_list_datasets(file, &names, &count, &err), 0);
    assert_int_equal(count, 3);
    assert_string_equal(names[0], "/a");
    assert_string_equal(names[1], "/b/c");
    assert_string_equal(names[2], "/z");
    cuplas_h5_free_names(names, count);

    fpath(*state, "missing.h5", file);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_list_datasets(file, &names, &count, &err), CUPLAS_ERR_INPUT);
    assert_null(names);
    assert_int_equal(count, 0);
}

/* A result read back (h5_result.c) from what is not one: each case's class,
 * message and where; teardown checks that no HDF5 id stays open. */
static void test_result_bad_files(void **state)
{
    const fixture *f = *state;
    char missing[PATH_MAX], junk[PATH_MAX], plain[PATH_MAX], two[PATH_MAX], fifo[PATH_MAX];
    const hsize_t d2[2] = {4, 4}, d3[3] = {4, 4, 3};
    const unsigned char bytes[64] = {'n', 'o', 't', ' ', 'h', 'd', 'f', '5'};
    int64_t perm[16];
    for (int i = 0; i < 16; i++)
        perm[i] = 15 - i;

    fpath(f, "missing.h5", missing);
    fpath(f, "junk.h5", junk);
    fpath(f, "plain.h5", plain);
    fpath(f, "two.h5", two);
    fpath(f, "fifo.h5", fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    alarm(20);   /* eval and preview of a FIFO must not wait for a writer */
    write_bytes(junk, bytes, sizeof bytes);
    put_f32(plain, "/grid", 3, d3, NULL);
    put_dataset(two, 1, "/a/index", H5T_STD_I64LE, 2, d2, perm, NULL);
    put_dataset(two, 0, "/a/sorted", H5T_IEEE_F32LE, 3, d3, NULL, NULL);
    put_dataset(two, 0, "/b/index", H5T_STD_I64LE, 2, d2, perm, NULL);
    put_dataset(two, 0, "/b/sorted", H5T_IEEE_F32LE, 3, d3, NULL, NULL);
    /* /c records an input of 4 x 4 rows but places row 16, which it has
       not; /d records a (20, 3) input and keeps 16 of its rows (a crop) */
    int64_t past[16];
    memcpy(past, perm, sizeof past);
    past[3] = 16;
    put_dataset(two, 0, "/c/index", H5T_STD_I64LE, 2, d2, past, NULL);
    put_dataset(two, 0, "/c/sorted", H5T_IEEE_F32LE, 3, d3, NULL, NULL);
    put_dataset(two, 0, "/d/index", H5T_STD_I64LE, 2, d2, past, NULL);
    put_dataset(two, 0, "/d/sorted", H5T_IEEE_F32LE, 3, d3, NULL, NULL);
    for (int k = 0; k < 2; k++) {
        const int64_t shape[2][3] = {{4, 4, 3}, {20, 3, 0}};
        hsize_t n = k ? 2 : 3;
        hid_t fid = H5Fopen(two, H5F_ACC_RDWR, H5P_DEFAULT);
        hid_t gid = H5Gopen2(fid, k ? "/d" : "/c", H5P_DEFAULT);
        hid_t sid = H5Screate_simple(1, &n, NULL);
        hid_t aid = H5Acreate2(gid, "input_shape", H5T_STD_I64LE, sid, H5P_DEFAULT, H5P_DEFAULT);
        assert_true(aid >= 0 && H5Awrite(aid, H5T_NATIVE_INT64, shape[k]) >= 0);
        H5Aclose(aid);
        H5Sclose(sid);
        H5Gclose(gid);
        H5Fclose(fid);
    }
    const struct {
        const char *file, *group;
        cuplas_status code;
        const char *needle;
    } cases[] = {
        {missing, NULL, CUPLAS_ERR_INPUT, "cannot open: no such file"},
        {f->dir, NULL, CUPLAS_ERR_INPUT, "cannot open: is a directory"},
        {fifo, NULL, CUPLAS_ERR_INPUT, "cannot open: is a FIFO"},
        {junk, NULL, CUPLAS_ERR_INPUT, "not an HDF5 file or corrupt"},
        {plain, NULL, CUPLAS_ERR_INPUT, "not a cuplas result"},
        {plain, "/nope", CUPLAS_ERR_INPUT, "no such group"},
        {plain, "/grid", CUPLAS_ERR_INPUT, "a dataset, not a cuplas result"},
        {two, NULL, CUPLAS_ERR_USAGE, "holds several results"},
        {two, "/c", CUPLAS_ERR_INPUT, "index is not a permutation: cell 3 holds 16, past the 16 "
                                      "input rows of input_shape"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cuplas_h5_result r;
        cuplas_error err;
        char where[PATH_MAX + 16];
        cuplas_error_clear(&err);
        int rc = cuplas_h5_result_read(cases[i].file, cases[i].group, &r, &err);
        assert_int_equal(rc, cases[i].code);
        if (!strstr(err.msg, cases[i].needle))
            fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.msg, cases[i].needle);
        snprintf(where, sizeof where, cases[i].group ? "%s:%s" : "%s", cases[i].file,
                 cases[i].group);
        assert_string_equal(err.where, where);
        assert_null(r.group);
        assert_null(r.index);
    }
    alarm(0);
    /* the same file, one of its results named: it reads */
    cuplas_h5_result r;
    cuplas_error err;
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_result_read(two, "/b", &r, &err), 0);
    assert_string_equal(r.group, "/b");
    assert_int_equal(r.sorted.H, 4);
    assert_int_equal(r.sorted.C, 3);
    assert_int_equal(r.index[0], 15);
    cuplas_h5_result_free(&r);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_result_read(two, "/d", &r, &err), 0);   /* a crop reads */
    assert_int_equal(r.index[3], 16);
    cuplas_h5_result_free(&r);
}

/* Chunk bytes are read with pread at address + user block: a file with a
 * 1 KiB user block must read exactly like H5Dread. */
static void test_chunk_userblock(void **state)
{
    enum { H = 33, W = 17, C = 3 };
    const hsize_t dims[3] = {H, W, C}, chunk[3] = {8, 17, 3};
    char file[PATH_MAX];
    uint16_t v[H * W * C], back[H * W * C];
    for (int i = 0; i < H * W * C; i++)
        v[i] = (uint16_t)(i * 2654435761u >> 7);
    fpath(*state, "userblock.h5", file);
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    assert_true(H5Pset_userblock(fcpl, 1024) >= 0);
    hid_t fid = H5Fcreate(file, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), sp = H5Screate_simple(3, dims, NULL);
    assert_true(H5Pset_chunk(dcpl, 3, chunk) >= 0 && H5Pset_shuffle(dcpl) >= 0 &&
                H5Pset_deflate(dcpl, 3) >= 0);
    hid_t did = H5Dcreate2(fid, "/u", H5T_STD_U16LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    assert_true(H5Dwrite(did, H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Dclose(did);
    H5Sclose(sp);
    H5Pclose(dcpl);
    H5Pclose(fcpl);
    H5Fclose(fid);

    cuplas_h5grid g;
    cuplas_error err = {0};
    assert_int_equal(cuplas_h5_read_grid(file, "/u", 0, 0, &g, &err), 0);
    memcpy(back, g.raw, sizeof back);
    assert_memory_equal(back, v, sizeof v);
    cuplas_h5grid_free(&g);
}

/* ------------------------------------------- the hand decoder and HDF5 */

/* H5Dread of the whole dataset in its file type, or NULL where HDF5 fails. */
static unsigned char *h5dread_or_null(const char *file, const char *dset, size_t *nbytes)
{
    unsigned char *buf = NULL;
    hid_t fid, did = H5I_INVALID_HID, tid = H5I_INVALID_HID, sid = H5I_INVALID_HID;
    H5E_BEGIN_TRY {
        if ((fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT)) >= 0 &&
            (did = H5Dopen2(fid, dset, H5P_DEFAULT)) >= 0) {
            tid = H5Dget_type(did);
            sid = H5Dget_space(did);
            *nbytes = (size_t)H5Sget_simple_extent_npoints(sid) * H5Tget_size(tid);
            buf = malloc(*nbytes);
            if (H5Dread(did, tid, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
                free(buf);
                buf = NULL;
            }
            H5Sclose(sid);
            H5Tclose(tid);
            H5Dclose(did);
        }
        if (fid >= 0)
            H5Fclose(fid);
    } H5E_END_TRY;
    return buf;
}

/* cuplas reads what H5Dread reads, or fails where it fails. why: NULL
 * when the chunks must be decoded by hand, else a part of the reason the
 * dataset went to H5Dread instead. Returns cuplas's status. */
static int expect_like_hdf5(const char *file, const char *dset, const char *why)
{
    size_t n = 0;
    unsigned char *want = h5dread_or_null(file, dset, &n);
    cuplas_h5_fetch *fetch = NULL;
    cuplas_h5grid g;
    cuplas_error err;
    int rc;

    cuplas_error_clear(&err);
    rc = cuplas_h5_read_begin(file, dset, 0, 0, 0, &g, &fetch, NULL, &err);
    if (rc == 0) {
        if (!why)
            assert_false(fetch->whole);
        else if (!fetch->whole_why || !strstr(fetch->whole_why, why))
            fail_msg("%s: read whole because \"%s\", expected \"%s\"", file,
                     fetch->whole_why ? fetch->whole_why : "(not whole)", why);
        rc = cuplas_h5_read_finish(&g, fetch, NULL, &err);
    }
    if (want && rc)
        fail_msg("%s: HDF5 reads it, cuplas fails: %s", file, err.msg);
    if (!want && !rc)
        fail_msg("%s: HDF5 fails, cuplas reads it", file);
    if (want) {
        assert_int_equal((size_t)(g.H * g.W * g.C) * g.elem_size, n);
        assert_memory_equal(g.raw, want, n);
    } else {
        assert_null(strchr(err.msg, '\n'));
    }
    if (rc == 0)
        cuplas_h5grid_free(&g);
    free(want);
    return rc;
}

enum { BT_H = 16, BT_W = 16, BT_C = 4, BT_KEY = 8 + 8 * 4 };   /* rank 3: 4 key offsets */

/* A 16 x 16 x 4 int16 /grid in two 8-row chunks, shuffle + deflate (a v1
 * B-tree chunk index, HDF5's default); same: both chunks hold the same
 * values (so they store the same bytes). Returns the B-tree node's offset. */
static long put_two_chunks(const char *file, int same)
{
    const hsize_t dims[3] = {BT_H, BT_W, BT_C}, chunk[3] = {8, BT_W, BT_C};
    int16_t v[BT_H * BT_W * BT_C];
    unsigned char buf[8192];
    size_t n;
    for (int i = 0; i < BT_H * BT_W * BT_C; i++)
        v[i] = (int16_t)(((same ? i % (8 * BT_W * BT_C) : i) * 2654435761u) >> 13);
    put_chunked(file, 1, "/grid", H5T_STD_I16LE, 3, dims, chunk, 1, 4, 0, NULL, v);
    FILE *fp = fopen(file, "rb");
    assert_non_null(fp);
    n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    for (size_t i = 0; i + 8 < n; i++)   /* the raw-data node: type 1 */
        if (!memcmp(buf + i, "TREE", 4) && buf[i + 4] == 1) {
            assert_int_equal(buf[i + 6] | buf[i + 7] << 8, 2);   /* two entries */
            return (long)i;
        }
    fail_msg("no chunk B-tree node in %s", file);
    return -1;
}

/* Overwrite `len` little-endian bytes at `at` of the file. */
static void patch_le(const char *file, long at, uint64_t value, int len)
{
    FILE *fp = fopen(file, "r+b");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, at, SEEK_SET), 0);
    for (int i = 0; i < len; i++)
        fputc((int)(value >> (8 * i) & 0xff), fp);
    fclose(fp);
}

/* Byte offsets inside a B-tree node: key k (size, mask, 4 offsets), child k. */
static long bt_key(long node, int k) { return node + 24 + k * (BT_KEY + 8); }
static long bt_child(long node, int k) { return bt_key(node, k) + BT_KEY; }

static uint64_t get_le(const char *file, long at, int len)
{
    unsigned char b[8];
    uint64_t v = 0;
    FILE *fp = fopen(file, "rb");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, at, SEEK_SET), 0);
    assert_int_equal(fread(b, 1, (size_t)len, fp), (size_t)len);
    fclose(fp);
    for (int i = len - 1; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

/* Damaged chunk indexes: cuplas never reads other values than HDF5. */
static void test_chunk_index_damage(void **state)
{
    char file[PATH_MAX];
    long node;
    struct stat st;

    fpath(*state, "bt.h5", file);
    node = put_two_chunks(file, 0);
    expect_like_hdf5(file, "/grid", NULL);   /* intact: decoded by hand */

    /* chunk 1's key names the element dimension 8 (the shared
       bad-inputs file): the iteration finds it, H5Dread's lookup does not
       and reads the fill value */
    patch_le(file, bt_key(node, 1) + 8 + 3 * 8, 8, 8);
    expect_like_hdf5(file, "/grid", "lookup and iteration disagree");

    /* chunk 1's key a chunk further: a record outside the grid, chunk 1
       never written for either path */
    node = put_two_chunks(file, 0);
    patch_le(file, bt_key(node, 1) + 8, 16, 8);
    patch_le(file, bt_key(node, 2) + 8, 24, 8);
    expect_like_hdf5(file, "/grid", "records outside the grid");

    /* both records point at chunk 0's bytes */
    node = put_two_chunks(file, 1);
    patch_le(file, bt_child(node, 1), get_le(file, bt_child(node, 0), 8), 8);
    expect_like_hdf5(file, "/grid", "overlap");

    /* a filter mask bit beyond the pipeline (HDF5 ignores it) */
    node = put_two_chunks(file, 0);
    patch_le(file, bt_key(node, 0) + 4, 0x10, 4);
    expect_like_hdf5(file, "/grid", "filter mask");

    /* shuffle skipped by the mask: both read the chunk un-unshuffled */
    node = put_two_chunks(file, 0);
    patch_le(file, bt_key(node, 1) + 4, 0x1, 4);
    expect_like_hdf5(file, "/grid", NULL);

    /* a stored size beyond zlib's bound (and past the end of the file) */
    node = put_two_chunks(file, 0);
    patch_le(file, bt_key(node, 1), 1u << 20, 4);
    expect_like_hdf5(file, "/grid", "stored size");
    /* 4 GiB claimed: the located chunk lies outside the file */
    node = put_two_chunks(file, 0);
    patch_le(file, bt_key(node, 1), 0xffffffffu, 4);
    assert_int_not_equal(expect_like_hdf5(file, "/grid", "stored size"), 0);
    read_expect_error(file, "/grid", 0, 0, CUPLAS_ERR_INPUT, "chunk (8, 0, 0) lies outside the file");

    /* 5000 one-row chunks: locating each walks the whole index (n^2):
       H5Dread reads them instead */
    {
        const hsize_t d[2] = {5000, 4}, c[2] = {1, 4};
        uint8_t v[5000 * 4];
        for (size_t i = 0; i < sizeof v; i++)
            v[i] = (uint8_t)(i * 13);
        put_chunked(file, 1, "/many", H5T_STD_U8LE, 2, d, c, 0, 1, 0, NULL, v);
        size_t n;
        unsigned char *want = plain_read(file, "/many", &n);
        cuplas_h5grid g;
        cuplas_h5_fetch *fetch = NULL;
        cuplas_error err = {0};
        assert_int_equal(cuplas_h5_read_begin(file, "/many", 50, 0, 0, &g, &fetch, NULL, &err), 0);
        assert_string_equal(fetch->whole_why, "too many chunks to locate one by one");
        assert_int_equal(cuplas_h5_read_finish(&g, fetch, NULL, &err), 0);
        assert_memory_equal(g.raw, want, n);
        cuplas_h5grid_free(&g);
        free(want);
    }

    /* chunk 1 beyond the end of the file: HDF5 fails, cuplas too */
    node = put_two_chunks(file, 0);
    assert_int_equal(stat(file, &st), 0);
    patch_le(file, bt_child(node, 1), (uint64_t)st.st_size + 4096, 8);
    assert_int_not_equal(expect_like_hdf5(file, "/grid", NULL), 0);
    read_expect_error(file, "/grid", 0, 0, CUPLAS_ERR_INPUT, "outside the file");
}

/* The reproducer of issue 18 (shared/data/bad-inputs): 128 of its 256
 * cells differed from h5dump's values. */
static void test_divergent_chunk_index(void **state)
{
    char file[PATH_MAX];
    size_t n;
    char *buf = tu_shared_data("bad-inputs/divergent-chunk-index.h5", &n);
    if (!buf)
        return;
    fpath(*state, "divergent.h5", file);
    write_bytes(file, buf, n);
    free(buf);
    expect_like_hdf5(file, "/grid", "lookup and iteration disagree");
}

/* A copy of the fuzz seed fuzz/corpus/h5_input/NAME in the test's
 * folder; its path into file. */
static void corpus_copy(const void *state, const char *name, char file[PATH_MAX])
{
    char src[PATH_MAX];
    size_t n = 0;
    snprintf(src, sizeof src, "%s/fuzz/corpus/h5_input/%s", CUPLAS_SRCDIR, name);
    char *buf = tu_slurp_path(src, &n);
    assert_non_null(buf);
    fpath(state, name, file);
    write_bytes(file, buf, n);
    free(buf);
}

/* Found by fuzzing (fuzz/corpus/h5_input/index-claims-4gib.h5): an index
 * whose lookup claims a chunk of 4 GiB, where iteration and lookup
 * disagree (so HDF5 reads it): H5Dread allocated the 4 GiB before failing
 * (seconds under ASan); cuplas refuses it first and says why. */
static void test_index_claims_gigabytes(void **state)
{
    char file[PATH_MAX];
    corpus_copy(*state, "index-claims-4gib.h5", file);
    read_expect_error(file, "/grid", 0, 0, CUPLAS_ERR_INPUT,
                      "lies outside the file (its index claims 4294967295 bytes; the file has");
}

/* Found by fuzzing (fuzz/corpus/h5_input/compact-size-0.h5): a compact
 * dataset whose header says 0 bytes for a 16 x 8 x 2 int16 shape. HDF5
 * 1.10.8's H5Dread copied from NULL (SIGSEGV); cuplas refuses it first. */
static void test_compact_too_small(void **state)
{
    char file[PATH_MAX];
    corpus_copy(*state, "compact-size-0.h5", file);
    read_expect_error(file, "/fl", 0, 0, CUPLAS_ERR_INPUT,
                      "its compact data holds 0 bytes, fewer than its shape needs (256 values of "
                      "2 bytes): the file is damaged");
}

/* Filters as HDF5 applies them: a deflate level HDF5 refuses, and
 * fletcher32 checksums (H5Dread verifies them). */
static void test_filter_params(void **state)
{
    const hsize_t dims[3] = {8, 8, 3}, chunk[3] = {4, 8, 3};
    char file[PATH_MAX];
    uint8_t v[8 * 8 * 3];
    unsigned char z[1024];
    for (size_t i = 0; i < sizeof v; i++)
        v[i] = (uint8_t)(i * 7);

    /* level 12, written with H5Dwrite_chunk (HDF5's filter would refuse) */
    fpath(*state, "level.h5", file);
    for (unsigned level = 9; level <= 12; level += 3) {
        hid_t fid = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), sid = H5Screate_simple(3, dims, NULL);
        assert_true(H5Pset_chunk(dcpl, 3, chunk) >= 0);
        assert_true(H5Pset_filter(dcpl, H5Z_FILTER_DEFLATE, H5Z_FLAG_MANDATORY, 1, &level) >= 0);
        hid_t did = H5Dcreate2(fid, "/grid", H5T_STD_U8LE, sid, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        for (hsize_t r = 0; r < 8; r += 4) {
            hsize_t off[3] = {r, 0, 0};
            uLongf zn = sizeof z;
            assert_int_equal(compress2(z, &zn, v + r * 24, 4 * 24, 9), Z_OK);
            assert_true(H5Dwrite_chunk(did, H5P_DEFAULT, 0, off, zn, z) >= 0);
        }
        H5Dclose(did);
        H5Sclose(sid);
        H5Pclose(dcpl);
        H5Fclose(fid);
        if (level == 9)
            expect_like_hdf5(file, "/grid", NULL);
        else
            assert_int_not_equal(expect_like_hdf5(file, "/grid", "filters"), 0);
    }

    /* fletcher32: read whole by HDF5, which verifies every chunk; alone
       (a damaged byte trips the checksum) and under deflate (zlib's) */
    for (int deflate = 0; deflate <= 6; deflate += 6) {
        fpath(*state, "fletcher.h5", file);
        put_chunked(file, 1, "/grid", H5T_STD_U8LE, 3, dims, chunk, 0, deflate, 1, NULL, v);
        expect_like_hdf5(file, "/grid", "filters");
        hid_t fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
        hid_t did = H5Dopen2(fid, "/grid", H5P_DEFAULT);
        hsize_t off[3] = {4, 0, 0}, size = 0;
        haddr_t addr = 0;
        unsigned mask = 0;
        assert_true(H5Dget_chunk_info_by_coord(did, off, &mask, &addr, &size) >= 0);
        H5Dclose(did);
        H5Fclose(fid);
        patch_le(file, (long)addr + 5, get_le(file, (long)addr + 5, 1) ^ 0x5a, 1);
        assert_int_not_equal(expect_like_hdf5(file, "/grid", "filters"), 0);
        read_expect_error(file, "/grid", 0, 0, CUPLAS_ERR_INPUT,
                          deflate ? "inflate" : "Fletcher32 checksum");
    }

    /* a fletcher32 chunk whose index says it is 12 bytes short: HDF5 1.10
       would read past its buffer (found by fuzzing); refused first */
    put_chunked(file, 1, "/grid", H5T_STD_U8LE, 3, dims, chunk, 0, 0, 1, NULL, v);
    unsigned char buf[8192];
    FILE *fp = fopen(file, "rb");
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    long node = -1;
    for (size_t i = 0; i + 8 < n && node < 0; i++)
        if (!memcmp(buf + i, "TREE", 4) && buf[i + 4] == 1)
            node = (long)i;
    assert_true(node > 0);
    patch_le(file, bt_key(node, 1), 4 * 24 + 4 - 12, 4);
    read_expect_error(file, "/grid", 0, 0, CUPLAS_ERR_INPUT,
                      "chunk (4, 0, 0) is corrupt (stores 88 bytes; with its fletcher32 "
                      "checksum it has 100)");
}

/* A filter that does nothing: 32001 (blosc's id) while registered. */
static size_t identity_filter(unsigned flags, size_t ncd, const unsigned cd[], size_t nbytes,
                              size_t *buf_size, void **buf)
{
    (void)flags, (void)ncd, (void)cd, (void)buf_size, (void)buf;
    return nbytes;
}

/* Data written with a filter plugin that the reader lacks (a blosc file
 * on a machine without hdf5-blosc): the probe (`check`) refuses a
 * mandatory one, naming it; an optional one that was applied fails the
 * read, naming it; an optional one HDF5 skipped at write time reads.
 * Before, `check` passed the first and the read said "can't open
 * directory: /usr/lib/.../plugins". */
static void test_missing_filter(void **state)
{
    const H5Z_class2_t cls = {H5Z_CLASS_T_VERS, 32001, 1, 1, "blosc", NULL, NULL,
                              identity_filter};
    const hsize_t dims[3] = {8, 8, 3}, chunk[3] = {4, 8, 3};
    const struct {
        unsigned flags;
        int registered;      /* at write time */
        int probe_rc, read_rc;
        const char *needle;  /* in the first failure's message */
    } cases[] = {
        {H5Z_FLAG_MANDATORY, 1, CUPLAS_ERR_INPUT, CUPLAS_ERR_INPUT,
         "the data needs HDF5 filter 32001 (blosc), which this HDF5 does not have"},
        {H5Z_FLAG_OPTIONAL, 1, 0, CUPLAS_ERR_INPUT,
         "read failed at row 0: the data needs HDF5 filter 32001 (blosc)"},
        {H5Z_FLAG_OPTIONAL, 0, 0, 0, NULL},
    };
    uint8_t v[8 * 8 * 3];
    char file[PATH_MAX];
    for (size_t i = 0; i < sizeof v; i++)
        v[i] = (uint8_t)(i * 5);
    fpath(*state, "blosc.h5", file);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].registered)
            assert_true(H5Zregister(&cls) >= 0);
        hid_t fid = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), sid = H5Screate_simple(3, dims, NULL);
        assert_true(H5Pset_chunk(dcpl, 3, chunk) >= 0);
        assert_true(H5Pset_filter(dcpl, 32001, cases[i].flags, 0, NULL) >= 0);
        assert_true(H5Pset_deflate(dcpl, 4) >= 0);
        hid_t did = H5Dcreate2(fid, "/grid", H5T_STD_U8LE, sid, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        assert_true(did >= 0);
        assert_true(H5Dwrite(did, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
        H5Dclose(did);
        H5Sclose(sid);
        H5Pclose(dcpl);
        assert_true(H5Fclose(fid) >= 0);
        if (cases[i].registered)
            assert_true(H5Zunregister(32001) >= 0);

        cuplas_h5grid g;
        cuplas_error err;
        cuplas_error_clear(&err);
        int rc = cuplas_h5_probe_grid(file, "/grid", 0, 0, 0, &g, &err);
        cuplas_h5grid_free(&g);
        if (rc != cases[i].probe_rc || (rc && !strstr(err.msg, cases[i].needle)))
            fail_msg("case %zu: probe %d \"%s\"", i, rc, err.msg);
        if (cases[i].read_rc)
            read_expect_error(file, "/grid", 0, 0, CUPLAS_ERR_INPUT, cases[i].needle);
        else
            expect_like_hdf5(file, "/grid", "filters");
    }
}

/* ------------------------------------------------ data in other files */

/* read_begin with flags: 0 and the bytes, or the error code. */
static int read_flags(const char *file, const char *dset, unsigned flags, unsigned char *out,
                      size_t n, const char **why, cuplas_error *err)
{
    cuplas_h5grid g;
    cuplas_h5_fetch *fetch = NULL;
    int rc;
    cuplas_error_clear(err);
    if ((rc = cuplas_h5_read_begin(file, dset, 0, 0, flags, &g, &fetch, NULL, err)) != 0)
        return rc;
    *why = fetch->whole_why;
    if ((rc = cuplas_h5_read_finish(&g, fetch, NULL, err)) != 0)
        return rc;
    assert_int_equal((size_t)(g.H * g.W * g.C) * g.elem_size, n);
    memcpy(out, g.raw, n);
    cuplas_h5grid_free(&g);
    return 0;
}

/* Refused without CUPLAS_H5_ALLOW_EXTERNAL (the message contains needle),
 * read as HDF5 reads it with it. */
static void expect_external(const char *file, const char *dset, const char *needle,
                            const unsigned char *want, size_t n)
{
    unsigned char *got = malloc(n);
    const char *why = NULL;
    cuplas_error err;
    cuplas_h5grid g;
    char where[PATH_MAX + 64];

    assert_int_equal(read_flags(file, dset, 0, got, n, &why, &err), CUPLAS_ERR_INPUT);
    if (!strstr(err.msg, needle) || !strstr(err.msg, "allow_external"))
        fail_msg("message \"%s\" lacks \"%s\"", err.msg, needle);
    snprintf(where, sizeof where, "%s:%s", file, dset);
    assert_string_equal(err.where, where);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_probe_grid(file, dset, 0, 0, 0, &g, &err), CUPLAS_ERR_INPUT);
    cuplas_h5grid_free(&g);
    if (read_flags(file, dset, CUPLAS_H5_ALLOW_EXTERNAL, got, n, &why, &err) != 0)
        fail_msg("allowed: %s", err.msg);
    assert_non_null(why);   /* HDF5 reads it: the bytes are not in `file` */
    assert_memory_equal(got, want, n);
    free(got);
}

static void test_external_data(void **state)
{
    enum { H = 6, W = 5, C = 3, N = H * W * C };
    const hsize_t dims[3] = {H, W, C}, chunk[3] = {2, W, C};
    char file[PATH_MAX], other[PATH_MAX], raw[PATH_MAX];
    uint8_t v[N];
    for (int i = 0; i < N; i++)
        v[i] = (uint8_t)(i * 11 + 3);
    fpath(*state, "in.h5", file);
    fpath(*state, "other.h5", other);
    fpath(*state, "raw.bin", raw);

    /* the data: chunked + deflated in other.h5, raw bytes in raw.bin */
    put_chunked(other, 1, "/grp/data", H5T_STD_U8LE, 3, dims, chunk, 1, 4, 0, NULL, v);
    write_bytes(raw, v, N);

    hid_t fid = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(H5Lcreate_external(other, "/grp/data", fid, "/link", H5P_DEFAULT,
                                   H5P_DEFAULT) >= 0);
    assert_true(H5Lcreate_external(other, "/grp", fid, "/viagroup", H5P_DEFAULT,
                                   H5P_DEFAULT) >= 0);
    /* a soft link to the external one */
    assert_true(H5Lcreate_soft("/link", fid, "/soft", H5P_DEFAULT, H5P_DEFAULT) >= 0);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), sid = H5Screate_simple(3, dims, NULL);
    assert_true(H5Pset_external(dcpl, raw, 0, N) >= 0);
    hid_t did = H5Dcreate2(fid, "/efile", H5T_STD_U8LE, sid, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    assert_true(did >= 0);
    H5Dclose(did);
    H5Pclose(dcpl);
    /* a virtual dataset whose source is other.h5 */
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t ssp = H5Screate_simple(3, dims, NULL);
    assert_true(H5Pset_virtual(dcpl, sid, other, "/grp/data", ssp) >= 0);
    did = H5Dcreate2(fid, "/virtual", H5T_STD_U8LE, sid, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    assert_true(did >= 0);
    H5Dclose(did);
    H5Sclose(ssp);
    H5Pclose(dcpl);
    H5Sclose(sid);
    H5Fclose(fid);

    expect_external(file, "/link", "external link to", v, N);
    expect_external(file, "/viagroup/data", "external link to", v, N);
    expect_external(file, "/soft", "external link to", v, N);
    expect_external(file, "/efile", "external file", v, N);
    expect_external(file, "/virtual", "virtual dataset", v, N);

    /* the file that exposed it: external storage naming a system file */
    fid = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t d2[2] = {1, 4};
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    sid = H5Screate_simple(2, d2, NULL);
    assert_true(H5Pset_external(dcpl, "/etc/hostname", 0, 4) >= 0);
    did = H5Dcreate2(fid, "/grid", H5T_STD_U8LE, sid, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Dclose(did);
    H5Pclose(dcpl);
    H5Sclose(sid);
    H5Fclose(fid);
    read_expect_error(file, "/grid", 0, 0, CUPLAS_ERR_INPUT, "\"/etc/hostname\"");
}

/* Add attribute `name` to file:dset: n values of `type` from data. */
static void put_attr(const char *file, const char *dset, const char *name, hid_t type,
                     hsize_t n, const void *data)
{
    hid_t fid = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t did = H5Dopen2(fid, dset, H5P_DEFAULT);
    hid_t sid = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    hid_t aid = H5Acreate2(did, name, type, sid, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(aid >= 0);
    assert_true(H5Awrite(aid, type, data) >= 0);
    H5Aclose(aid);
    H5Sclose(sid);
    H5Dclose(did);
    H5Fclose(fid);
}

/* height/width attributes: whole numbers of any numeric type are taken
 * (one alone fixes the other); strings, fractions and arrays are errors,
 * never silently ignored. */
static void test_shape_attributes(void **state)
{
    char file[PATH_MAX];
    const hsize_t d[2] = {12, 2};
    const double three = 3.0, half = 2.5;
    const float two = 2.0f;
    const int64_t pair[2] = {3, 4};
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, 4);

    fpath(*state, "attrs.h5", file);
    put_f32(file, "/f", 2, d, NULL);
    put_dataset(file, 0, "/h", H5T_IEEE_F32LE, 2, d, NULL, NULL);
    put_dataset(file, 0, "/s", H5T_IEEE_F32LE, 2, d, NULL, NULL);
    put_dataset(file, 0, "/x", H5T_IEEE_F32LE, 2, d, NULL, NULL);
    put_dataset(file, 0, "/a", H5T_IEEE_F32LE, 2, d, NULL, NULL);
    put_dataset(file, 0, "/u", H5T_IEEE_F32LE, 2, d, NULL, NULL);
    put_dataset(file, 0, "/u4", H5T_IEEE_F32LE, 2, d, NULL, NULL);
    put_attr(file, "/u", "height", H5T_STD_U64LE, 1, &(uint64_t){UINT64_MAX});
    put_attr(file, "/u4", "width", H5T_STD_U32LE, 1, &(uint32_t){4});
    put_attr(file, "/f", "height", H5T_IEEE_F64LE, 1, &three);
    put_attr(file, "/f", "width", H5T_IEEE_F64LE, 1, &(double){4.0});
    put_attr(file, "/h", "height", H5T_IEEE_F32LE, 1, &two);
    put_attr(file, "/s", "height", str, 1, "3\0\0");
    put_attr(file, "/s", "width", str, 1, "4\0\0");
    put_attr(file, "/x", "height", H5T_IEEE_F64LE, 1, &half);
    put_attr(file, "/a", "width", H5T_STD_I64LE, 2, pair);
    H5Tclose(str);

    probe_hw(file, "/f", 0, 0, 3, 4);
    probe_hw(file, "/h", 0, 0, 2, 6);
    probe_hw(file, "/s", 3, 0, 3, 4);   /* arguments never read the attributes */
    read_expect_error(file, "/s", 0, 0, CUPLAS_ERR_INPUT,
                      "the height attribute is a string; store a whole number");
    read_expect_error(file, "/x", 0, 0, CUPLAS_ERR_INPUT,
                      "the height attribute is 2.5, not a whole number");
    read_expect_error(file, "/a", 0, 0, CUPLAS_ERR_INPUT,
                      "the width attribute holds 2 values; store one");
    /* unsigned: quoted as stored (before: clipped to 9223372036854775807) */
    read_expect_error(file, "/u", 0, 0, CUPLAS_ERR_INPUT,
                      "the height attribute is 18446744073709551615, larger than any grid");
    probe_hw(file, "/u4", 0, 0, 3, 4);
}

/* One `columns` case: the attribute as stored (`len` 0: variable-length
 * strings, else fixed of that size; `n` 1: a scalar) and what the read
 * gives: the names a, b, or an error containing `want`. */
typedef struct columns_case {
    const char *dset;
    H5T_cset_t cset;
    size_t len;
    hsize_t n;
    const char *v[2];
    const char *want;
} columns_case;

/* The columns attribute in every form h5py and the C API write it: vlen
 * or fixed, scalar "a,b" or a list, ASCII or UTF-8 (h5py's default for
 * str: before, UTF-8 vlen ones failed with "cannot read the columns
 * attribute"). Repeated or empty names are refused as the PLY reader
 * refuses them (before: accepted, and --channels took one of the two). */
static void test_columns_attribute(void **state)
{
    static const columns_case cases[] = {
        {"/ascii_list", H5T_CSET_ASCII, 0, 2, {"a", "b"}, NULL},
        {"/ascii_fixed", H5T_CSET_ASCII, 4, 1, {"a, b"}, NULL},
        {"/utf8_scalar", H5T_CSET_UTF8, 0, 1, {"a,b"}, NULL},
        {"/utf8_list", H5T_CSET_UTF8, 0, 2, {"a", "b"}, NULL},
        {"/utf8_fixed", H5T_CSET_UTF8, 3, 1, {"a,b"}, NULL},
        {"/utf8_fixed_list", H5T_CSET_UTF8, 2, 2, {"a", "b"}, NULL},
        {"/dup_fixed", H5T_CSET_ASCII, 3, 1, {"x,x"},
         "the columns attribute repeats the name 'x' (channels 0 and 1)"},
        {"/dup_utf8", H5T_CSET_UTF8, 0, 2, {"\xc3\xa9", "\xc3\xa9"},
         "the columns attribute repeats the name '\xc3\xa9' (channels 0 and 1)"},
        {"/empty_scalar", H5T_CSET_ASCII, 0, 1, {","},
         "the columns attribute has an empty name '' for channel 0"},
        {"/empty_blank", H5T_CSET_UTF8, 0, 1, {"a,  "},
         "the columns attribute has an empty name '' for channel 1"},
        {"/empty_list", H5T_CSET_UTF8, 0, 2, {"a", ""},
         "the columns attribute has an empty name '' for channel 1"},
    };
    char file[PATH_MAX];
    const hsize_t d[2] = {16, 2};

    fpath(*state, "columns.h5", file);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const columns_case *c = &cases[k];
        char fixed[16] = "";   /* fixed length: n strings of len bytes, null-padded */
        hid_t t = H5Tcopy(H5T_C_S1);
        assert_true(H5Tset_size(t, c->len ? c->len : H5T_VARIABLE) >= 0);
        assert_true(H5Tset_cset(t, c->cset) >= 0);
        for (hsize_t i = 0; c->len && i < c->n; i++)
            memcpy(fixed + i * c->len, c->v[i], strlen(c->v[i]));
        put_dataset(file, k == 0, c->dset, H5T_IEEE_F32LE, 2, d, NULL, NULL);
        put_attr(file, c->dset, "columns", t, c->n, c->len ? (const void *)fixed : c->v);
        H5Tclose(t);
    }
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const columns_case *c = &cases[k];
        /* Once a process has converted an ASCII vlen string, HDF5 1.10
           reuses that path for UTF-8 ones too: each read starts from a
           fresh library, as a process reading one file does. */
        H5close();
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        if (c->want) {
            read_expect_error(file, c->dset, 0, 0, CUPLAS_ERR_INPUT, c->want);
            continue;
        }
        cuplas_h5grid g;
        cuplas_error err;
        cuplas_error_clear(&err);
        if (cuplas_h5_read_grid(file, c->dset, 0, 0, &g, &err) != 0)
            fail_msg("%s: %s", c->dset, err.msg);
        assert_non_null(g.names);
        assert_string_equal(g.names[0], "a");
        assert_string_equal(g.names[1], "b");
        cuplas_h5grid_free(&g);
    }
}

/* The planner's probe cache hands every caller column names of its own:
 * each probe's grid is freed by its caller, and the entry's names must
 * outlive them all (it once freed them on the first probe, so a `run` of
 * an input with a columns attribute read freed memory and freed it again). */
static void test_probe_cache_names(void **state)
{
    char file[PATH_MAX];
    const hsize_t d[2] = {16, 2};
    const char *v[2] = {"a", "b"};
    hid_t t = H5Tcopy(H5T_C_S1);

    fpath(*state, "probe.h5", file);
    assert_true(H5Tset_size(t, H5T_VARIABLE) >= 0);
    put_dataset(file, 1, "/emb", H5T_IEEE_F32LE, 2, d, NULL, NULL);
    put_attr(file, "/emb", "columns", t, 2, v);
    H5Tclose(t);
    cuplas_probe_cache *pc = cuplas_probe_cache_new();
    assert_non_null(pc);
    for (int k = 0; k < 3; k++) {   /* a miss, then two hits */
        cuplas_h5grid g;
        cuplas_error err;
        cuplas_error_clear(&err);
        if (cuplas_probe_cached(pc, file, "/emb", 0, 0, 0, &g, &err) != 0)
            fail_msg("probe %d: %s", k, err.msg);
        assert_int_equal(g.C, 2);
        assert_non_null(g.names);
        assert_string_equal(g.names[0], "a");
        assert_string_equal(g.names[1], "b");
        cuplas_h5grid_free(&g);
    }
    cuplas_probe_cache_free(pc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_nc_shapes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_chunk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_datasets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_output_complete, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_datasets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_result_bad_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chunk_userblock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chunk_index_damage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_divergent_chunk_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_index_claims_gigabytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_filter_params, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_external_data, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shape_attributes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_columns_attribute, setup, teardown),
        cmocka_unit_test_setup_teardown(test_probe_cache_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compact_too_small, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
