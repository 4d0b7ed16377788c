/*
 * test_h5io.c - cmocka tests of HDF5 grid reading, conversion and output.
 *
 * Inputs are written here with the plain HDF5 API (never with the code under
 * test) into a fresh mkdtemp folder per test, which is removed afterwards;
 * outputs are read back with the plain HDF5 API as well.
 */
#define _GNU_SOURCE  /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <ftw.h>
#include <hdf5.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "io/codec.h"
#include "io/dtype.h"
#include "io/h5_lib.h"
#include "io/h5_read.h"
#include "io/h5_write.h"
#include "io/publish.h"
#include "h5util.h"
#include "tmpdir.h"
#include "util/threads.h"

/* ---------------------------------------------------------------- helpers */

static int setup(void **state)
{
    cuplas_h5_quiet();
    return tu_fixture_new(state, "test_h5io.XXXXXX");
}

/* Also fails the test if any HDF5 file, dataset, group or attribute id is
 * still open: the code under test must close everything, errors included. */
static int teardown(void **state)
{
    fixture *f = *state;
    ssize_t open_ids = H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL);
    chmod(f->dir, 0700);   /* a test may have made it read-only */
    tu_fixture_free(state);
    if (open_ids != 0)
        print_error("%zd HDF5 ids left open\n", open_ids);
    return open_ids == 0 ? 0 : -1;
}

static char *fpath(const fixture *f, const char *name, char buf[PATH_MAX])
{
    return tu_path(f->dir, name, buf);
}

/* IEEE half precision as HDF5 describes it (h5py/numpy float16 layout). */
static hid_t make_f16(void)
{
    hid_t t = H5Tcopy(H5T_IEEE_F32LE);
    assert_true(H5Tset_fields(t, 15, 10, 5, 0, 10) >= 0);
    assert_true(H5Tset_size(t, 2) >= 0);
    assert_true(H5Tset_ebias(t, 15) >= 0);
    return t;
}

/* Write one dataset (creating the file if `create`) with raw bytes in `type`;
 * hw != NULL adds integer height/width attributes. */
static void put_dataset(const char *file, int create, const char *name, hid_t type, int rank,
                        const hsize_t *dims, const void *data, const int64_t *hw)
{
    hid_t fid = create ? H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)
                       : H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    assert_true(fid >= 0);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t sid = H5Screate_simple(rank, dims, NULL);
    hid_t did = H5Dcreate2(fid, name, type, sid, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(did >= 0);
    if (data)
        assert_true(H5Dwrite(did, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    if (hw) {
        hid_t as = H5Screate(H5S_SCALAR);
        const char *names[2] = {"height", "width"};
        for (int k = 0; k < 2; k++) {
            hid_t aid = H5Acreate2(did, names[k], H5T_STD_I32LE, as, H5P_DEFAULT, H5P_DEFAULT);
            int v = (int)hw[k];
            assert_true(H5Awrite(aid, H5T_NATIVE_INT, &v) >= 0);
            H5Aclose(aid);
        }
        H5Sclose(as);
    }
    H5Dclose(did);
    H5Sclose(sid);
    H5Pclose(lcpl);
    assert_true(H5Fclose(fid) >= 0);
}

static void put_f32(const char *file, const char *name, int rank, const hsize_t *dims,
                    const int64_t *hw)
{
    hsize_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= dims[i];
    float *v = malloc((n ? n : 1) * sizeof *v);
    for (hsize_t i = 0; i < n; i++)
        v[i] = (float)i * 0.5f - 3.0f;
    put_dataset(file, 1, name, H5T_IEEE_F32LE, rank, dims, v, hw);
    free(v);
}

static void write_bytes(const char *file, const void *p, size_t n)
{
    FILE *fp = fopen(file, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(p, 1, n, fp), n);
    fclose(fp);
}

/* Entries of the fixture folder whose name starts with '.' (temp files). */
static int hidden_files(const fixture *f)
{
    DIR *d = opendir(f->dir);
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d)))
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

/* Expect a failure of class `code` whose message contains `needle` and whose
 * where is "file:dataset" (one line). */
static void expect_error(const cuplas_error *err, int rc, cuplas_status code, const char *needle,
                         const char *file, const char *dataset)
{
    char where[1024];
    assert_int_equal(rc, code);
    assert_int_equal(err->code, code);
    if (!strstr(err->msg, needle))
        fail_msg("message \"%s\" lacks \"%s\"", err->msg, needle);
    assert_null(strchr(err->msg, '\n'));
    snprintf(where, sizeof where, "%s:%s", file, dataset);
    assert_string_equal(err->where, where);
}

static int read_expect_error(const char *file, const char *dset, int64_t h, int64_t w,
                             cuplas_status code, const char *needle)
{
    cuplas_h5grid g;
    cuplas_error err;
    cuplas_error_clear(&err);
    int rc = cuplas_h5_read_grid(file, dset, h, w, &g, &err);
    expect_error(&err, rc, code, needle, file, dset);
    assert_null(g.raw);
    cuplas_h5grid_free(&g);
    return rc;
}

static int64_t read_int_attr(hid_t obj, const char *name)
{
    int64_t v = -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Aread(a, H5T_NATIVE_INT64, &v) >= 0);
    H5Aclose(a);
    return v;
}

static void check_str_attr(hid_t obj, const char *name, const char *want)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t t = H5Tcopy(H5T_C_S1);
    char *s = NULL;
    assert_true(a >= 0);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    assert_true(H5Aread(a, t, &s) >= 0);
    assert_string_equal(s, want);
    H5free_memory(s);
    H5Tclose(t);
    H5Aclose(a);
}

/* ------------------------------------------------------ round trip per type */

typedef struct dtype_case {
    const char *name;
    hid_t (*type)(void);
} dtype_case;

static hid_t t_u8(void) { return H5Tcopy(H5T_STD_U8LE); }
static hid_t t_i8(void) { return H5Tcopy(H5T_STD_I8LE); }
static hid_t t_u16(void) { return H5Tcopy(H5T_STD_U16LE); }
static hid_t t_i16(void) { return H5Tcopy(H5T_STD_I16LE); }
static hid_t t_u32(void) { return H5Tcopy(H5T_STD_U32LE); }
static hid_t t_i32(void) { return H5Tcopy(H5T_STD_I32LE); }
static hid_t t_u64(void) { return H5Tcopy(H5T_STD_U64LE); }
static hid_t t_i64(void) { return H5Tcopy(H5T_STD_I64LE); }
static hid_t t_f32(void) { return H5Tcopy(H5T_IEEE_F32LE); }
static hid_t t_f64(void) { return H5Tcopy(H5T_IEEE_F64LE); }
static hid_t t_i32be(void) { return H5Tcopy(H5T_STD_I32BE); }
static hid_t t_f64be(void) { return H5Tcopy(H5T_IEEE_F64BE); }

/* Deterministic finite raw values of `type`: any bit pattern for integers,
 * converted numbers for floats (halves: exponent field kept below 31). */
static void fill_values(hid_t type, size_t n, unsigned char *raw)
{
    size_t es = H5Tget_size(type);
    uint64_t x = 88172645463325252u;
    if (H5Tget_class(type) == H5T_INTEGER) {
        for (size_t i = 0; i < n * es; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            raw[i] = (unsigned char)x;
        }
        return;
    }
    if (es == 2) {
        for (size_t i = 0; i < n; i++) {
            uint16_t h = (uint16_t)((i * 7919u + 13u) & 0xfbffu);
            raw[2 * i] = (unsigned char)h, raw[2 * i + 1] = (unsigned char)(h >> 8);
        }
        return;
    }
    double *d = malloc(n * sizeof *d > es * n ? n * sizeof *d : es * n);
    for (size_t i = 0; i < n; i++)
        d[i] = (double)i * 0.731 - 11.5;
    assert_true(H5Tconvert(H5T_NATIVE_DOUBLE, type, n, d, NULL, H5P_DEFAULT) >= 0);
    memcpy(raw, d, n * es);
    free(d);
}

static void round_trip(const fixture *f, const char *dtype_name, hid_t type)
{
    enum { H = 5, W = 7, C = 3, N = H * W };
    char in[PATH_MAX], out[PATH_MAX];
    const char *dset = "/scene/attrs";
    hsize_t dims[3] = {H, W, C};
    size_t es = H5Tget_size(type);
    unsigned char *raw = malloc(N * C * es), *got = malloc(N * C * es);
    double *want = malloc(N * C * sizeof *want), dbl[N * 2];
    int64_t index[N], idx_back[N];
    int use[2] = {2, 0};
    cuplas_h5grid g;
    cuplas_error err;
    cuplas_output_opts opts = {.chunk_rows = 2, .deflate = 4, .shuffle = true};
    cuplas_result_meta meta = {.params_yaml = "seed: 42\n", .seed = 42, .version = "0.1.0",
                               .and_before = 9.5, .and_after = 2.25, .wall_seconds = 0.5,
                               .backend = "cpu", .device_name = "test cpu",
                               .identity = "id-xyz"};

    fpath(f, "in.h5", in);
    fpath(f, "out.h5", out);
    fill_values(type, N * C, raw);
    put_dataset(in, 1, dset, type, 3, dims, raw, NULL);

    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(in, dset, 0, 0, &g, &err), 0);
    assert_string_equal(g.dtype, dtype_name);
    assert_int_equal(g.elem_size, es);
    assert_int_equal(g.H, H);
    assert_int_equal(g.W, W);
    assert_int_equal(g.C, C);
    assert_int_equal(g.in_rank, 3);
    assert_memory_equal(g.raw, raw, N * C * es);

    /* to_double against HDF5's own conversion of the same bytes */
    memcpy(want, raw, N * C * es);
    assert_true(H5Tconvert(type, H5T_NATIVE_DOUBLE, N * C, want, NULL, H5P_DEFAULT) >= 0);
    assert_int_equal(cuplas_h5grid_to_double(&g, use, 2, dbl, NULL, &err), 0);
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 2; k++)
            assert_true(dbl[i * 2 + k] == want[i * C + use[k]]);

    for (int i = 0; i < N; i++)
        index[i] = (i * 17 + 5) % N;
    assert_int_equal(cuplas_h5_write_result(out, &g, index, &opts, &meta, &err), 0);
    assert_int_equal(hidden_files(f), 0);

    hid_t fid = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t gid = H5Gopen2(fid, dset, H5P_DEFAULT);
    hid_t ix = H5Dopen2(gid, "index", H5P_DEFAULT), so = H5Dopen2(gid, "sorted", H5P_DEFAULT);
    hid_t ixt = H5Dget_type(ix), sot = H5Dget_type(so), sos = H5Dget_space(so);
    hsize_t odims[3];
    assert_true(gid >= 0 && ix >= 0 && so >= 0);
    assert_true(H5Tequal(ixt, H5T_STD_I32LE) > 0);
    assert_true(H5Tequal(sot, type) > 0);
    assert_int_equal(H5Sget_simple_extent_dims(sos, odims, NULL), 3);
    assert_true(odims[0] == H && odims[1] == W && odims[2] == C);
    assert_true(H5Dread(ix, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, idx_back) >= 0);
    assert_memory_equal(idx_back, index, sizeof index);
    assert_true(H5Dread(so, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) >= 0);
    for (int i = 0; i < N; i++)
        assert_memory_equal(got + (size_t)i * C * es, raw + (size_t)index[i] * C * es, C * es);

    assert_int_equal(read_int_attr(gid, "complete"), 1);
    assert_int_equal(read_int_attr(gid, "seed"), 42);
    assert_true(tu_double_attr(gid, "and_after") == 2.25);
    assert_true(tu_double_attr(gid, "and_before") == 9.5);
    assert_true(tu_double_attr(gid, "wall_seconds") == 0.5);
    check_str_attr(gid, "input_dtype", dtype_name);
    check_str_attr(gid, "input_dataset", dset);
    check_str_attr(gid, "input_file", in);
    check_str_attr(gid, "identity", "id-xyz");
    check_str_attr(gid, "backend", "cpu");
    check_str_attr(gid, "device", "test cpu");
    check_str_attr(gid, "params", "seed: 42\n");
    check_str_attr(gid, "cuplas_version", "0.1.0");
    int64_t shape[3];
    hid_t sa = H5Aopen(gid, "input_shape", H5P_DEFAULT);
    assert_true(H5Aread(sa, H5T_NATIVE_INT64, shape) >= 0);
    assert_true(shape[0] == H && shape[1] == W && shape[2] == C);
    H5Aclose(sa);
    H5Sclose(sos);
    H5Tclose(sot);
    H5Tclose(ixt);
    H5Dclose(so);
    H5Dclose(ix);
    H5Gclose(gid);
    H5Fclose(fid);

    assert_int_equal(cuplas_h5_output_complete(out, dset, "id-xyz"), 1);
    assert_int_equal(cuplas_h5_output_complete(out, "scene/attrs", NULL), 1);
    assert_int_equal(cuplas_h5_output_complete(out, dset, "id-other"), 0);
    assert_int_equal(cuplas_h5_output_complete(out, dset, "id-xy"), 0);
    assert_int_equal(cuplas_h5_output_complete(out, "/grid", NULL), 0);

    cuplas_h5grid_free(&g);
    free(raw);
    free(got);
    free(want);
}

static void test_h5io_round_trip_every_dtype(void **state)
{
    static const dtype_case cases[] = {
        {"uint8", t_u8},   {"int8", t_i8},     {"uint16", t_u16},  {"int16", t_i16},
        {"uint32", t_u32}, {"int32", t_i32},   {"uint64", t_u64},  {"int64", t_i64},
        {"float16", make_f16}, {"float32", t_f32}, {"float64", t_f64},
        /* big-endian files go through the H5Tconvert path */
        {"int32", t_i32be}, {"float64", t_f64be},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hid_t t = cases[i].type();
        print_message("round trip %s%s\n", cases[i].name,
                      H5Tget_order(t) == H5T_ORDER_BE ? " (big-endian)" : "");
        round_trip(*state, cases[i].name, t);
        H5Tclose(t);
    }
}

/* ------------------------------------------------------------ (N, C) shapes */

static void probe_hw(const char *file, const char *dset, int64_t h, int64_t w, int64_t H,
                     int64_t W)
{
    cuplas_h5grid g;
    cuplas_error err;
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_probe_grid(file, dset, h, w, &g, &err), 0);
    assert_int_equal(g.H, H);
    assert_int_equal(g.W, W);
    assert_int_equal(g.in_rank, 2);
    assert_null(g.raw);
    cuplas_h5grid_free(&g);
}

static void test_h5io_nc_shapes(void **state)
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
    read_expect_error(file, "/nc", 5, 5, CUPLAS_ERR_INPUT, "does not fill a 5 x 5 grid");
    read_expect_error(file, "/nc", 5, 0, CUPLAS_ERR_INPUT, "not a multiple of height 5");
}

/* ---------------------------------------------------------------- bad input */

static void test_h5io_bad_files(void **state)
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
}

/* A deflated chunk overwritten with garbage: the file opens, H5Dread fails. */
static void test_h5io_corrupt_chunk(void **state)
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

static void test_h5io_bad_datasets(void **state)
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

static void test_h5io_nonfinite(void **state)
{
    char file[PATH_MAX];
    float v[2 * 3 * 2];
    uint16_t h[4] = {0x3c00, 0x3c00, 0x3c00, 0xfc00};   /* 1, 1, 1, -Inf */
    const hsize_t d32[3] = {2, 3, 2}, d16[2] = {4, 1};
    int use01[2] = {0, 1}, use0[1] = {0}, use_bad[1] = {2};
    double out[12];
    cuplas_h5grid g;
    cuplas_error err;

    for (int i = 0; i < 12; i++)
        v[i] = (float)i;
    v[(1 * 3 + 2) * 2 + 1] = NAN;   /* y=1 x=2 channel 1 */
    v[(1 * 3 + 2) * 2 + 0] = 1.0f;
    fpath(*state, "nan.h5", file);
    put_dataset(file, 1, "/g", H5T_IEEE_F32LE, 3, d32, v, NULL);
    hid_t f16 = make_f16();
    put_dataset(file, 0, "/h", f16, 2, d16, h, NULL);
    H5Tclose(f16);

    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(file, "/g", 0, 0, &g, &err), 0);
    assert_int_equal(cuplas_h5grid_to_double(&g, use0, 1, out, NULL, &err), 0);
    int rc = cuplas_h5grid_to_double(&g, use01, 2, out, NULL, &err);
    expect_error(&err, rc, CUPLAS_ERR_INPUT, "NaN at cell (y=1, x=2), channel 1", file, "/g");
    cuplas_error_clear(&err);
    rc = cuplas_h5grid_to_double(&g, use_bad, 1, out, NULL, &err);
    expect_error(&err, rc, CUPLAS_ERR_USAGE, "channel 2 out of range", file, "/g");
    cuplas_h5grid_free(&g);

    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(file, "/h", 0, 0, &g, &err), 0);
    assert_string_equal(g.dtype, "float16");
    rc = cuplas_h5grid_to_double(&g, use0, 1, out, NULL, &err);
    expect_error(&err, rc, CUPLAS_ERR_INPUT, "-Inf at cell (y=1, x=1), channel 0", file, "/h");
    cuplas_h5grid_free(&g);
}

/* ------------------------------------------------------------ bad output */

static void read_small(const fixture *f, cuplas_h5grid *g)
{
    char file[PATH_MAX];
    const hsize_t dims[3] = {2, 2, 1};
    cuplas_error err;
    fpath(f, "small.h5", file);
    put_f32(file, "/g", 3, dims, NULL);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(file, "/g", 0, 0, g, &err), 0);
}

static void test_h5io_bad_output_folder(void **state)
{
    const fixture *f = *state;
    char out[PATH_MAX], sub[PATH_MAX];
    const int64_t index[4] = {3, 2, 1, 0};
    cuplas_h5grid g;
    cuplas_error err;

    read_small(f, &g);
    fpath(f, "no/such/dir/out.h5", out);
    cuplas_error_clear(&err);
    int rc = cuplas_h5_write_result(out, &g, index, NULL, NULL, &err);
    expect_error(&err, rc, CUPLAS_ERR_OUTPUT, "does not exist", out, "/g");

    if (geteuid() != 0) {   /* root writes anywhere */
        fpath(f, "ro", sub);
        assert_int_equal(mkdir(sub, 0500), 0);
        fpath(f, "ro/out.h5", out);
        cuplas_error_clear(&err);
        rc = cuplas_h5_write_result(out, &g, index, NULL, NULL, &err);
        expect_error(&err, rc, CUPLAS_ERR_OUTPUT, "is not writable", out, "/g");
        assert_int_equal(access(out, F_OK), -1);
    }
    assert_int_equal(hidden_files(f), 0);
    cuplas_h5grid_free(&g);
}

static void test_h5io_not_a_permutation(void **state)
{
    const fixture *f = *state;
    char out[PATH_MAX];
    const int64_t dup[4] = {0, 1, 1, 3}, range[4] = {0, 1, 2, 4}, neg[4] = {0, -1, 2, 3};
    const char old[] = "previous output";
    char back[sizeof old];
    cuplas_h5grid g;
    cuplas_error err;

    read_small(f, &g);
    fpath(f, "out.h5", out);
    cuplas_error_clear(&err);
    int rc = cuplas_h5_write_result(out, &g, dup, NULL, NULL, &err);
    expect_error(&err, rc, CUPLAS_ERR_INTERNAL, "1 appears twice", out, "/g");
    assert_int_equal(access(out, F_OK), -1);
    cuplas_error_clear(&err);
    rc = cuplas_h5_write_result(out, &g, range, NULL, NULL, &err);
    expect_error(&err, rc, CUPLAS_ERR_INTERNAL, "cell 3 holds 4", out, "/g");
    cuplas_error_clear(&err);
    rc = cuplas_h5_write_result(out, &g, neg, NULL, NULL, &err);
    expect_error(&err, rc, CUPLAS_ERR_INTERNAL, "not a permutation", out, "/g");
    assert_int_equal(access(out, F_OK), -1);

    /* a pre-existing output survives a failed write, even one that got as
     * far as the temp file (the group "/" cannot be created) */
    write_bytes(out, old, sizeof old);
    cuplas_error_clear(&err);
    assert_int_not_equal(cuplas_h5_write_result(out, &g, dup, NULL, NULL, &err), 0);
    free(g.dataset);
    g.dataset = strdup("/");
    const int64_t ok[4] = {1, 0, 3, 2};
    cuplas_error_clear(&err);
    rc = cuplas_h5_write_result(out, &g, ok, NULL, NULL, &err);
    expect_error(&err, rc, CUPLAS_ERR_OUTPUT, "cannot create group /", out, "/");
    FILE *fp = fopen(out, "rb");
    assert_non_null(fp);
    assert_int_equal(fread(back, 1, sizeof back, fp), sizeof old);
    fclose(fp);
    assert_memory_equal(back, old, sizeof old);
    assert_int_equal(hidden_files(f), 0);
    cuplas_h5grid_free(&g);
}

/* -------------------------------------------------------- output_complete */

static void test_h5io_output_complete(void **state)
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

/* ------------------------------------------------------------ listing */

static void test_h5io_list_datasets(void **state)
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

/* ------------------------------------------------ two-phase (chunk) I/O */

typedef struct filter_case {
    const char *name;
    int shuffle, deflate;
} filter_case;

static const filter_case FILTER_CASES[] = {
    {"none", 0, 0}, {"shuffle", 1, 0}, {"deflate", 0, 6}, {"shuffle+deflate", 1, 4},
};

/* A chunked dataset written by HDF5 itself (H5Dwrite through its filters);
 * fill: a user fill value or NULL; data NULL leaves every chunk unwritten. */
static void put_chunked(const char *file, int create, const char *name, hid_t type, int rank,
                        const hsize_t *dims, const hsize_t *chunk, int shuffle, int deflate,
                        int fletcher, const void *fill, const void *data)
{
    hid_t fid = create ? H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)
                       : H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), sid = H5Screate_simple(rank, dims, NULL);
    assert_true(fid >= 0);
    assert_true(H5Pset_chunk(dcpl, rank, chunk) >= 0);
    if (fletcher)
        assert_true(H5Pset_fletcher32(dcpl) >= 0);
    if (shuffle)
        assert_true(H5Pset_shuffle(dcpl) >= 0);
    if (deflate)
        assert_true(H5Pset_deflate(dcpl, (unsigned)deflate) >= 0);
    if (fill)
        assert_true(H5Pset_fill_value(dcpl, type, fill) >= 0);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t did = H5Dcreate2(fid, name, type, sid, lcpl, dcpl, H5P_DEFAULT);
    assert_true(did >= 0);
    if (data)
        assert_true(H5Dwrite(did, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    H5Dclose(did);
    H5Sclose(sid);
    H5Pclose(lcpl);
    H5Pclose(dcpl);
    assert_true(H5Fclose(fid) >= 0);
}

/* The dataset's bytes in its file type, by plain H5Dread (malloc'd). */
static unsigned char *plain_read(const char *file, const char *dset, size_t *nbytes)
{
    hid_t fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t did = H5Dopen2(fid, dset, H5P_DEFAULT);
    hid_t tid = H5Dget_type(did), sid = H5Dget_space(did);
    assert_true(fid >= 0 && did >= 0);
    size_t n = (size_t)H5Sget_simple_extent_npoints(sid) * H5Tget_size(tid);
    unsigned char *buf = malloc(n);
    assert_non_null(buf);
    assert_true(H5Dread(did, tid, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    H5Sclose(sid);
    H5Tclose(tid);
    H5Dclose(did);
    H5Fclose(fid);
    *nbytes = n;
    return buf;
}

/* read_begin + read_finish (with `threads` threads, memory lent by bufs or
 * NULL) gives H5Dread's bytes. */
static void expect_read_lent(const char *file, const char *dset, int threads,
                             cuplas_h5_buffers *bufs)
{
    cuplas_h5grid g;
    cuplas_h5_fetch *fetch = NULL;
    cuplas_error err;
    size_t n;
    unsigned char *want = plain_read(file, dset, &n);

    cuplas_error_clear(&err);
    if (cuplas_h5_read_begin(file, dset, 0, 0, &g, &fetch, bufs, &err) != 0)
        fail_msg("read_begin %s:%s: %s", file, dset, err.msg);
    assert_non_null(fetch);
    cuplas_set_threads(threads);
    if (cuplas_h5_read_finish(&g, fetch, NULL, &err) != 0)
        fail_msg("read_finish %s:%s: %s", file, dset, err.msg);
    cuplas_set_threads(2);
    assert_non_null(g.raw);
    assert_int_equal((size_t)(g.H * g.W * g.C) * g.elem_size, n);
    assert_memory_equal(g.raw, want, n);
    if (bufs)
        assert_ptr_equal(g.raw, bufs->p[CUPLAS_H5_RAW]);
    cuplas_h5grid_free(&g);
    free(want);
}

static void expect_same_as_h5dread(const char *file, const char *dset, int threads)
{
    expect_read_lent(file, dset, threads, NULL);
}

/* stored bytes are never converted, so big-endian data takes the same path */
static const dtype_case CHUNK_DTYPES[] = {
    {"uint8", t_u8}, {"float16", make_f16}, {"float32", t_f32}, {"float64", t_f64},
    {"int64", t_i64}, {"int32", t_i32be},
};

/* Every filter combination x dtype x chunk shape (edge chunks in every
 * dimension, chunks split along channels, rank 2): same bytes as H5Dread. */
static void test_h5io_chunk_read_filters(void **state)
{
    enum { H = 13, W = 11, C = 3, N2 = 36, C2 = 3 };
    static const hsize_t chunks3[][3] = {{4, 5, 2}, {13, 11, 3}, {1, 11, 3}, {5, 3, 1}, {2, 1, 1}};
    static const hsize_t chunks2[][2] = {{7, 2}, {36, 3}, {5, 3}};
    const hsize_t dims3[3] = {H, W, C}, dims2[2] = {N2, C2};
    char file[PATH_MAX];
    unsigned char raw[H * W * C * 8];

    fpath(*state, "chunks.h5", file);
    for (size_t t = 0; t < sizeof CHUNK_DTYPES / sizeof CHUNK_DTYPES[0]; t++) {
        hid_t type = CHUNK_DTYPES[t].type();
        fill_values(type, H * W * C, raw);
        for (size_t fc = 0; fc < sizeof FILTER_CASES / sizeof FILTER_CASES[0]; fc++) {
            const filter_case *c = &FILTER_CASES[fc];
            for (size_t k = 0; k < sizeof chunks3 / sizeof chunks3[0]; k++) {
                put_chunked(file, 1, "/g", type, 3, dims3, chunks3[k], c->shuffle, c->deflate,
                            0, NULL, raw);
                expect_same_as_h5dread(file, "/g", 2);
            }
            for (size_t k = 0; k < sizeof chunks2 / sizeof chunks2[0]; k++) {
                put_chunked(file, 1, "/nc", type, 2, dims2, chunks2[k], c->shuffle, c->deflate,
                            0, NULL, raw);
                expect_same_as_h5dread(file, "/nc", 2);
            }
        }
        H5Tclose(type);
    }
}

/* Never-written chunks read as the fill value (default 0, or the file's),
 * and layouts/filters the decoder leaves to HDF5 still read correctly. */
static void test_h5io_chunk_read_fill_and_fallback(void **state)
{
    enum { H = 10, W = 9, C = 2 };
    const hsize_t dims[3] = {H, W, C}, chunk[3] = {3, 4, 2};
    const float fill = -7.5f;
    char file[PATH_MAX];
    float v[H * W * C];

    for (int i = 0; i < H * W * C; i++)
        v[i] = (float)i * 0.25f;
    fpath(*state, "fill.h5", file);
    put_chunked(file, 1, "/empty", H5T_IEEE_F32LE, 3, dims, chunk, 1, 5, 0, NULL, NULL);
    put_chunked(file, 0, "/emptyfill", H5T_IEEE_F32LE, 3, dims, chunk, 1, 5, 0, &fill, NULL);
    put_chunked(file, 0, "/partial", H5T_IEEE_F32LE, 3, dims, chunk, 0, 5, 0, &fill, NULL);
    put_chunked(file, 0, "/fletcher", H5T_IEEE_F32LE, 3, dims, chunk, 1, 5, 1, NULL, v);
    put_dataset(file, 0, "/contiguous", H5T_IEEE_F32LE, 3, dims, v, NULL);

    /* write rows 3..5, columns 4..7 only: some chunks stay unallocated */
    hid_t fid = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t did = H5Dopen2(fid, "/partial", H5P_DEFAULT), fsp = H5Dget_space(did);
    hsize_t start[3] = {3, 4, 0}, count[3] = {3, 4, 2};
    hid_t msp = H5Screate_simple(3, count, NULL);
    H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, count, NULL);
    assert_true(H5Dwrite(did, H5T_NATIVE_FLOAT, msp, fsp, H5P_DEFAULT, v) >= 0);
    H5Sclose(msp);
    H5Sclose(fsp);
    H5Dclose(did);
    H5Fclose(fid);

    const char *names[] = {"/empty", "/emptyfill", "/partial", "/fletcher", "/contiguous"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        expect_same_as_h5dread(file, names[i], 2);

    /* one lane's lent memory, reused and grown across grids of both read
       paths (chunks, whole); every grid_free leaves it to the lender */
    const hsize_t big[3] = {2 * H, W, C}, bigchunk[3] = {7, 9, 1};
    float vv[2 * H * W * C];
    for (int i = 0; i < 2 * H * W * C; i++)
        vv[i] = (float)i - 3.0f;
    put_chunked(file, 0, "/big", H5T_IEEE_F32LE, 3, big, bigchunk, 1, 5, 0, NULL, vv);
    cuplas_h5_buffers bufs = {0};
    const char *lent[] = {"/partial", "/big", "/contiguous", "/fletcher", "/big"};
    for (size_t i = 0; i < sizeof lent / sizeof lent[0]; i++)
        expect_read_lent(file, lent[i], 2, &bufs);
    assert_true(bufs.cap[CUPLAS_H5_RAW] >= sizeof vv && bufs.cap[CUPLAS_H5_STORED] > 0);
    cuplas_h5_buffers_free(&bufs);

    cuplas_h5grid g;
    cuplas_error err;
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(file, "/emptyfill", 0, 0, &g, &err), 0);
    assert_true(((float *)g.raw)[0] == fill && ((float *)g.raw)[H * W * C - 1] == fill);
    cuplas_h5grid_free(&g);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(file, "/partial", 0, 0, &g, &err), 0);
    assert_true(((float *)g.raw)[(3 * W + 4) * C] == v[0]);
    assert_true(((float *)g.raw)[0] == fill);
    cuplas_h5grid_free(&g);
}

/* A chunk stored with the deflate bit of its filter mask set (HDF5 skipped
 * that optional filter) is read without inflating, as HDF5 does. */
/* Chunk bytes are read with pread at address + user block: a file with a
 * 1 KiB user block must read exactly like H5Dread. */
static void test_h5io_chunk_userblock(void **state)
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

static void test_h5io_chunk_filter_mask(void **state)
{
    enum { H = 8, W = 4, C = 1, CH = 4 };
    const hsize_t dims[3] = {H, W, C}, chunk[3] = {CH, W, C};
    char file[PATH_MAX];
    float v[H * W * C];
    unsigned char shuffled[CH * W * C * 4];

    for (int i = 0; i < H * W * C; i++)
        v[i] = (float)i - 2.5f;
    fpath(*state, "mask.h5", file);
    put_chunked(file, 1, "/g", H5T_IEEE_F32LE, 3, dims, chunk, 1, 6, 0, NULL, v);
    /* rewrite chunk 1 as shuffled but not deflated: mask bit 1 (deflate) */
    const unsigned char *src = (const unsigned char *)(v + CH * W * C);
    size_t m = CH * W * C;
    for (size_t i = 0; i < m; i++)
        for (size_t k = 0; k < 4; k++)
            shuffled[k * m + i] = src[i * 4 + k];
    hid_t fid = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t did = H5Dopen2(fid, "/g", H5P_DEFAULT);
    hsize_t off[3] = {CH, 0, 0};
    assert_true(H5Dwrite_chunk(did, H5P_DEFAULT, 0x2, off, sizeof shuffled, shuffled) >= 0);
    H5Dclose(did);
    H5Fclose(fid);
    expect_same_as_h5dread(file, "/g", 2);

    cuplas_h5grid g;
    cuplas_error err;
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(file, "/g", 0, 0, &g, &err), 0);
    assert_memory_equal(g.raw, v, sizeof v);
    cuplas_h5grid_free(&g);
}

/* Chunk-by-chunk equality of two datasets' stored bytes and filter masks. */
static void expect_same_chunks(const char *fa, const char *fb, const char *dset)
{
    hid_t a = H5Fopen(fa, H5F_ACC_RDONLY, H5P_DEFAULT), b = H5Fopen(fb, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t da = H5Dopen2(a, dset, H5P_DEFAULT), db = H5Dopen2(b, dset, H5P_DEFAULT);
    hid_t sa = H5Dget_space(da), sb = H5Dget_space(db);
    hsize_t na = 0, nb = 0;
    assert_true(da >= 0 && db >= 0);
    assert_true(H5Dget_num_chunks(da, sa, &na) >= 0 && H5Dget_num_chunks(db, sb, &nb) >= 0);
    assert_true(na == nb && na > 0);
    for (hsize_t i = 0; i < na; i++) {
        hsize_t off[3], size_a = 0, size_b = 0;
        haddr_t addr;
        unsigned mask_a = 9;
        uint32_t rm_a = 9, rm_b = 9;
        assert_true(H5Dget_chunk_info(da, sa, i, off, &mask_a, &addr, &size_a) >= 0);
        assert_true(H5Dget_chunk_storage_size(db, off, &size_b) >= 0);
        if (size_a != size_b)
            fail_msg("%s chunk %llu: %llu bytes vs %llu", dset, (unsigned long long)i,
                     (unsigned long long)size_a, (unsigned long long)size_b);
        unsigned char *ba = malloc(size_a), *bb = malloc(size_b);
        assert_true(H5Dread_chunk(da, H5P_DEFAULT, off, &rm_a, ba) >= 0);
        assert_true(H5Dread_chunk(db, H5P_DEFAULT, off, &rm_b, bb) >= 0);
        assert_int_equal(rm_a, rm_b);
        assert_memory_equal(ba, bb, size_a);
        free(ba);
        free(bb);
    }
    H5Sclose(sa);
    H5Sclose(sb);
    H5Dclose(da);
    H5Dclose(db);
    H5Fclose(a);
    H5Fclose(b);
}

/* The reference writer: what H5Dwrite through HDF5's own filters stores. */
static void reference_output(const char *file, const char *group, hid_t type, const hsize_t *dims,
                             int64_t chunk_rows, const filter_case *fc, const int32_t *index,
                             const void *sorted)
{
    hid_t fid = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t gid = H5Gcreate2(fid, group, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Pclose(lcpl);
    for (int k = 0; k < 2; k++) {
        int rank = k ? 3 : 2;
        hsize_t chunk[3] = {(hsize_t)chunk_rows, dims[1], dims[2]};
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), sid = H5Screate_simple(rank, dims, NULL);
        H5Pset_chunk(dcpl, rank, chunk);
        if (fc->shuffle)
            H5Pset_shuffle(dcpl);
        if (fc->deflate)
            H5Pset_deflate(dcpl, (unsigned)fc->deflate);
        hid_t t = k ? type : H5T_STD_I32LE;
        hid_t did = H5Dcreate2(gid, k ? "sorted" : "index", t, sid, H5P_DEFAULT, dcpl,
                               H5P_DEFAULT);
        assert_true(did >= 0);
        assert_true(H5Dwrite(did, k ? type : H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                             k ? sorted : (const void *)index) >= 0);
        H5Dclose(did);
        H5Sclose(sid);
        H5Pclose(dcpl);
    }
    H5Gclose(gid);
    H5Fclose(fid);
}

/* Filters of `name` in pipeline order must be exactly `want` (n of them). */
static void expect_filters(hid_t gid, const char *name, const filter_case *fc, hsize_t chunk0)
{
    hid_t did = H5Dopen2(gid, name, H5P_DEFAULT), dcpl = H5Dget_create_plist(did);
    hsize_t chunk[3] = {0, 0, 0};
    int n = 0;
    if (!fc->deflate) {   /* uncompressed results are contiguous, unfiltered */
        assert_int_equal(H5Pget_layout(dcpl), H5D_CONTIGUOUS);
        assert_int_equal(H5Pget_nfilters(dcpl), 0);
        H5Pclose(dcpl);
        H5Dclose(did);
        return;
    }
    assert_int_equal(H5Pget_layout(dcpl), H5D_CHUNKED);
    assert_true(H5Pget_chunk(dcpl, 3, chunk) >= 2);
    assert_true(chunk[0] == chunk0);
    assert_int_equal(H5Pget_nfilters(dcpl), fc->shuffle + (fc->deflate > 0));
    if (fc->shuffle) {
        unsigned flags, cd[4];
        size_t ncd = 4;
        assert_int_equal(H5Pget_filter2(dcpl, (unsigned)n++, &flags, &ncd, cd, 0, NULL, NULL),
                         H5Z_FILTER_SHUFFLE);
    }
    if (fc->deflate) {
        unsigned flags, cd[4];
        size_t ncd = 4;
        assert_int_equal(H5Pget_filter2(dcpl, (unsigned)n++, &flags, &ncd, cd, 0, NULL, NULL),
                         H5Z_FILTER_DEFLATE);
        assert_int_equal(ncd, 1);
        assert_int_equal(cd[0], fc->deflate);
    }
    H5Pclose(dcpl);
    H5Dclose(did);
}

/* encode + write_encoded, read back with plain H5Dread: right data, right
 * filters, and the very chunk bytes HDF5's own H5Dwrite stores. */
static void test_h5io_chunk_write_round_trip(void **state)
{
    enum { H = 13, W = 7, C = 3, N = H * W, CR = 4 };
    const hsize_t dims[3] = {H, W, C};
    char in[PATH_MAX], out[PATH_MAX], ref[PATH_MAX];
    unsigned char raw[N * C * 8], got[N * C * 8], want[N * C * 8];
    int64_t index[N], back[N];
    int32_t index32[N];

    fpath(*state, "in.h5", in);
    fpath(*state, "out.h5", out);
    fpath(*state, "ref.h5", ref);
    for (int i = 0; i < N; i++)
        index32[i] = (int32_t)(index[i] = (i * 31 + 7) % N);
    cuplas_h5_buffers io = {0};
    cuplas_pool *pool = NULL;
    cuplas_error perr;
    assert_int_equal(cuplas_pool_create(3, &pool, &perr), 0);
    for (size_t t = 0; t < sizeof CHUNK_DTYPES / sizeof CHUNK_DTYPES[0]; t++) {
        hid_t type = CHUNK_DTYPES[t].type();
        size_t es = H5Tget_size(type);
        fill_values(type, N * C, raw);
        for (int i = 0; i < N; i++)
            memcpy(want + (size_t)i * C * es, raw + (size_t)index[i] * C * es, C * es);
        put_chunked(in, 1, "/s/g", type, 3, dims, dims, 1, 3, 0, NULL, raw);
        for (size_t fc = 0; fc < sizeof FILTER_CASES / sizeof FILTER_CASES[0]; fc++) {
            const filter_case *c = &FILTER_CASES[fc];
            cuplas_output_opts opts = {.chunk_rows = CR, .deflate = c->deflate,
                                       .shuffle = c->shuffle};
            cuplas_h5grid g;
            cuplas_h5_encoded *enc = NULL;
            cuplas_error err;
            print_message("write %s %s\n", CHUNK_DTYPES[t].name, c->name);
            cuplas_error_clear(&err);
            assert_int_equal(cuplas_h5_read_grid(in, "/s/g", 0, 0, &g, &err), 0);
            /* every other dtype: memory lent by one lane's buffers, reused,
               and the chunks encoded on a pool as a GPU lane does */
            assert_int_equal(cuplas_h5_encode_result(&g, index, &opts, t % 2 ? &io : NULL,
                                                     t % 2 ? pool : NULL, &enc, &err), 0);
            assert_int_equal(cuplas_h5_write_encoded(out, &g, enc, NULL, &err), 0);
            cuplas_h5_encoded_free(enc);
            cuplas_h5grid_free(&g);

            hid_t fid = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
            hid_t gid = H5Gopen2(fid, "/s/g", H5P_DEFAULT);
            hid_t ix = H5Dopen2(gid, "index", H5P_DEFAULT), so = H5Dopen2(gid, "sorted", H5P_DEFAULT);
            assert_true(H5Dread(ix, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0);
            assert_memory_equal(back, index, sizeof index);
            assert_true(H5Dread(so, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) >= 0);
            assert_memory_equal(got, want, N * C * es);
            expect_filters(gid, "index", c, CR);
            expect_filters(gid, "sorted", c, CR);
            assert_int_equal(read_int_attr(gid, "complete"), 1);
            H5Dclose(so);
            H5Dclose(ix);
            H5Gclose(gid);
            H5Fclose(fid);

            if (c->deflate) {   /* chunked: the very bytes HDF5 would store */
                reference_output(ref, "/s/g", type, dims, CR, c, index32, want);
                expect_same_chunks(out, ref, "/s/g/index");
                expect_same_chunks(out, ref, "/s/g/sorted");
            }
            /* and the two-phase reader reads HDF5's own chunks back */
            expect_same_as_h5dread(out, "/s/g/sorted", 2);
        }
        H5Tclose(type);
    }
    assert_non_null(io.p[CUPLAS_H5_SORTED]);
    cuplas_h5_buffers_free(&io);
    cuplas_pool_free(pool);
}

/* Outputs over the 4 MiB in-memory limit: uncompressed data goes to its
 * contiguous offsets outside HDF5 (write_raw), compressed data through
 * H5Dwrite_chunk; both read back exactly, for several chunk heights. */
static void test_h5io_large_outputs(void **state)
{
    enum { H = 1100, W = 1000, C = 2, N = H * W };
    const hsize_t dims[3] = {H, W, C};
    char in[PATH_MAX], out[PATH_MAX];
    float *v = malloc((size_t)N * C * sizeof *v), *got = malloc((size_t)N * C * sizeof *got);
    int64_t *index = malloc((size_t)N * sizeof *index), *back = malloc((size_t)N * sizeof *back);
    const struct { int deflate; int64_t rows; } cases[] = {{0, 0}, {0, 300}, {0, 1100}, {1, 0}};
    cuplas_h5grid g;
    cuplas_error err;

    assert_non_null(v);
    assert_non_null(got);
    assert_non_null(index);
    assert_non_null(back);
    for (int i = 0; i < N * C; i++)
        v[i] = (float)(((int64_t)i * 7919) % 10007) * 0.25f;
    for (int i = 0; i < N; i++)
        index[i] = ((int64_t)i * 104729 + 17) % N;
    fpath(*state, "in.h5", in);
    fpath(*state, "out.h5", out);
    put_dataset(in, 1, "/g", H5T_IEEE_F32LE, 3, dims, v, NULL);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(in, "/g", 0, 0, &g, &err), 0);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cuplas_output_opts opts = {.chunk_rows = cases[k].rows, .deflate = cases[k].deflate,
                                   .shuffle = true};
        print_message("deflate %d, chunk_rows %lld\n", cases[k].deflate,
                      (long long)cases[k].rows);
        assert_int_equal(cuplas_h5_write_result(out, &g, index, &opts, NULL, &err), 0);
        hid_t fid = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
        hid_t ix = H5Dopen2(fid, "/g/index", H5P_DEFAULT), so = H5Dopen2(fid, "/g/sorted", H5P_DEFAULT);
        hid_t dcpl = H5Dget_create_plist(so);
        assert_int_equal(H5Pget_layout(dcpl), cases[k].deflate ? H5D_CHUNKED : H5D_CONTIGUOUS);
        assert_true(H5Dread(ix, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0);
        assert_true(H5Dread(so, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) >= 0);
        assert_memory_equal(back, index, (size_t)N * sizeof *index);
        for (int i = 0; i < N; i++)
            if (memcmp(got + (size_t)i * C, v + (size_t)index[i] * C, C * sizeof *v))
                fail_msg("cell %d differs", i);
        H5Pclose(dcpl);
        H5Dclose(so);
        H5Dclose(ix);
        H5Fclose(fid);
        /* and the pipeline's reader takes the contiguous layout too */
        expect_same_as_h5dread(out, "/g/sorted", 2);
    }
    cuplas_h5grid_free(&g);
    free(back);
    free(index);
    free(got);
    free(v);
}

/* The stored bytes do not depend on the thread count (encode and decode). */
static void test_h5io_chunk_threads(void **state)
{
    enum { H = 64, W = 48, C = 4, N = H * W };
    const hsize_t dims[3] = {H, W, C};
    char in[PATH_MAX], out1[PATH_MAX], out4[PATH_MAX];
    float *v = malloc(N * C * sizeof *v);
    int64_t *index = malloc(N * sizeof *index);
    cuplas_output_opts opts = {.chunk_rows = 5, .deflate = 6, .shuffle = true};
    cuplas_h5grid g;
    cuplas_error err;

    for (int i = 0; i < N * C; i++)
        v[i] = sinf((float)i * 0.01f) * 100.0f;
    for (int i = 0; i < N; i++)
        index[i] = ((int64_t)i * 1237 + 11) % N;
    fpath(*state, "in.h5", in);
    fpath(*state, "out1.h5", out1);
    fpath(*state, "out4.h5", out4);
    put_chunked(in, 1, "/g", H5T_IEEE_F32LE, 3, dims, (const hsize_t[3]){7, 16, 4}, 1, 6, 0,
                NULL, v);
    expect_same_as_h5dread(in, "/g", 1);
    expect_same_as_h5dread(in, "/g", 4);

    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(in, "/g", 0, 0, &g, &err), 0);
    const char *outs[2] = {out1, out4};
    const int threads[2] = {1, 4};
    for (int k = 0; k < 2; k++) {
        cuplas_h5_encoded *enc = NULL;
        cuplas_set_threads(threads[k]);
        assert_int_equal(cuplas_h5_encode_result(&g, index, &opts, NULL, NULL, &enc, &err), 0);
        cuplas_set_threads(2);
        assert_int_equal(cuplas_h5_write_encoded(outs[k], &g, enc, NULL, &err), 0);
        cuplas_h5_encoded_free(enc);
    }
    expect_same_chunks(out1, out4, "/g/sorted");
    expect_same_chunks(out1, out4, "/g/index");
    cuplas_h5grid_free(&g);
    free(index);
    free(v);
}

/* A written output with bytes overwritten inside a compressed chunk: begin
 * succeeds (it moves stored bytes only), finish reports the chunk cleanly. */
static void test_h5io_chunk_corrupt(void **state)
{
    enum { H = 32, W = 32, C = 2, N = H * W };
    const hsize_t dims[3] = {H, W, C};
    char in[PATH_MAX], out[PATH_MAX];
    float v[N * C];
    int64_t index[N];
    cuplas_output_opts opts = {.chunk_rows = 8, .deflate = 6, .shuffle = true};
    cuplas_h5grid g;
    cuplas_h5_fetch *fetch = NULL;
    cuplas_error err;

    for (int i = 0; i < N * C; i++)
        v[i] = (float)(i % 101) * 0.5f;
    for (int i = 0; i < N; i++)
        index[i] = N - 1 - i;
    fpath(*state, "in.h5", in);
    fpath(*state, "out.h5", out);
    put_dataset(in, 1, "/g", H5T_IEEE_F32LE, 3, dims, v, NULL);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(in, "/g", 0, 0, &g, &err), 0);
    assert_int_equal(cuplas_h5_write_result(out, &g, index, &opts, NULL, &err), 0);
    cuplas_h5grid_free(&g);

    /* the middle of the stored chunk holding rows 16..23 */
    hid_t fid = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t did = H5Dopen2(fid, "/g/sorted", H5P_DEFAULT);
    hsize_t off[3] = {16, 0, 0}, size = 0;
    haddr_t addr = 0;
    unsigned mask = 0;
    assert_true(H5Dget_chunk_info_by_coord(did, off, &mask, &addr, &size) >= 0);
    H5Dclose(did);
    H5Fclose(fid);
    assert_true(size > 64);
    FILE *fp = fopen(out, "r+b");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, (long)(addr + size / 2), SEEK_SET), 0);
    for (int i = 0; i < 16; i++)
        fputc(0x5a ^ i, fp);
    fclose(fp);

    cuplas_pool *pool = NULL;
    assert_int_equal(cuplas_pool_create(4, &pool, &err), 0);
    for (int run = 0; run < 3; run++) {   /* 1 and 4 OpenMP threads, then a pool */
        cuplas_error_clear(&err);
        assert_int_equal(cuplas_h5_read_begin(out, "/g/sorted", 0, 0, &g, &fetch, NULL, &err), 0);
        cuplas_set_threads(run == 1 ? 4 : 1);
        int rc = cuplas_h5_read_finish(&g, fetch, run == 2 ? pool : NULL, &err);
        cuplas_set_threads(2);
        expect_error(&err, rc, CUPLAS_ERR_INPUT, "read failed at row 16: chunk (16, 0, 0) is corrupt",
                     out, "/g/sorted");
        assert_null(g.raw);
        cuplas_h5grid_free(&g);
    }
    cuplas_pool_free(pool);
    read_expect_error(out, "/g/sorted", 0, 0, CUPLAS_ERR_INPUT, "chunk (16, 0, 0) is corrupt");
    /* the other chunks are intact */
    hid_t f2 = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d2 = H5Dopen2(f2, "/g/sorted", H5P_DEFAULT), fs = H5Dget_space(d2);
    hsize_t start[3] = {0, 0, 0}, count[3] = {16, W, C};
    hid_t ms = H5Screate_simple(3, count, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    assert_true(H5Dread(d2, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, v) >= 0);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d2);
    H5Fclose(f2);
}

/* Misuse is a clean internal error, not a crash. */
static void test_h5io_chunk_misuse(void **state)
{
    const fixture *f = *state;
    char out[PATH_MAX];
    const int64_t index[4] = {3, 2, 1, 0}, dup[4] = {0, 0, 1, 2};
    cuplas_h5grid g, other;
    cuplas_h5_encoded *enc = NULL;
    cuplas_error err;

    read_small(f, &g);
    fpath(f, "out.h5", out);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_finish(&g, NULL, NULL, &err), CUPLAS_ERR_INTERNAL);
    cuplas_error_clear(&err);
    int rc = cuplas_h5_encode_result(&g, dup, NULL, NULL, NULL, &enc, &err);
    expect_error(&err, rc, CUPLAS_ERR_INTERNAL, "0 appears twice", g.file, "/g");
    assert_null(enc);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_encode_result(&g, index, NULL, NULL, NULL, &enc, &err), 0);
    other = g;
    other.W = 1;
    other.H = 4;
    cuplas_error_clear(&err);
    rc = cuplas_h5_write_encoded(out, &other, enc, NULL, &err);
    expect_error(&err, rc, CUPLAS_ERR_INTERNAL, "write_encoded needs the grid", out, "/g");
    assert_int_equal(access(out, F_OK), -1);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_write_encoded(out, &g, enc, NULL, &err), 0);
    assert_int_equal(hidden_files(f), 0);
    cuplas_h5_encoded_free(enc);
    cuplas_h5_encoded_free(NULL);
    cuplas_h5grid_free(&g);
}

static void test_h5io_chunk_rows(void **state)
{
    (void)state;
    assert_int_equal(cuplas_h5_chunk_rows(1000, 1024, 0), 1000);
    assert_int_equal(cuplas_h5_chunk_rows(5000, 1024, 0), 1024);
    assert_int_equal(cuplas_h5_chunk_rows(10, (size_t)4 << 20, 0), 1);
    assert_int_equal(cuplas_h5_chunk_rows(10, 16, 64), 10);
    assert_int_equal(cuplas_h5_chunk_rows(10, 16, 3), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_h5io_round_trip_every_dtype, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5io_nc_shapes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5io_bad_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5io_corrupt_chunk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5io_bad_datasets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5io_nonfinite, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5io_bad_output_folder, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5io_not_a_permutation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5io_output_complete, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5io_list_datasets, setup, teardown),
        cmocka_unit_test(test_h5io_chunk_rows),
        cmocka_unit_test_setup_teardown(test_h5io_chunk_read_filters, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5io_chunk_read_fill_and_fallback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5io_chunk_filter_mask, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5io_chunk_userblock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5io_chunk_write_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5io_large_outputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5io_chunk_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5io_chunk_corrupt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5io_chunk_misuse, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
