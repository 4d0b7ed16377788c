/*
 * iotest.h - what the io layer's test programs share: a temp-folder
 * fixture that fails a test leaving HDF5 ids open, and inputs written with
 * the plain HDF5 API (never with the code under test). Include after
 * cmocka.h, with IOTEST_NAME set to the program's name.
 */
#ifndef CUPLAS_TESTS_IOTEST_H
#define CUPLAS_TESTS_IOTEST_H

#include <stdint.h>

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
#include "io/h5_result.h"
#include "io/h5_write.h"
#include "io/publish.h"
#include "h5util.h"
#include "tmpdir.h"
#include "util/threads.h"

/* ---------------------------------------------------------------- helpers */

static inline int setup(void **state)
{
    cuplas_h5_quiet();
    return tu_fixture_new(state, IOTEST_NAME ".XXXXXX");
}

/* Also fails the test if any HDF5 file, dataset, group or attribute id is
 * still open: the code under test must close everything, errors included. */
static inline int teardown(void **state)
{
    fixture *f = *state;
    ssize_t open_ids = H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL);
    chmod(f->dir, 0700);   /* a test may have made it read-only */
    tu_fixture_free(state);
    if (open_ids != 0)
        print_error("%zd HDF5 ids left open\n", open_ids);
    return open_ids == 0 ? 0 : -1;
}

static inline char *fpath(const fixture *f, const char *name, char buf[PATH_MAX])
{
    return tu_path(f->dir, name, buf);
}

/* IEEE half precision as HDF5 describes it (h5py/numpy float16 layout). */
static inline hid_t make_f16(void)
{
    hid_t t = H5Tcopy(H5T_IEEE_F32LE);
    assert_true(H5Tset_fields(t, 15, 10, 5, 0, 10) >= 0);
    assert_true(H5Tset_size(t, 2) >= 0);
    assert_true(H5Tset_ebias(t, 15) >= 0);
    return t;
}

/* Write one dataset (creating the file if `create`) with raw bytes in `type`;
 * hw != NULL adds integer height/width attributes. */
static inline void put_dataset(const char *file, int create, const char *name, hid_t type, int rank,
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

static inline void put_f32(const char *file, const char *name, int rank, const hsize_t *dims,
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

static inline void write_bytes(const char *file, const void *p, size_t n)
{
    FILE *fp = fopen(file, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(p, 1, n, fp), n);
    fclose(fp);
}

/* Entries of the fixture folder whose name starts with '.' (temp files). */
static inline int hidden_files(const fixture *f)
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
static inline void expect_error(const cuplas_error *err, int rc, cuplas_status code, const char *needle,
                         const char *file, const char *dataset)
{
    char where[2 * PATH_MAX + 2];   /* file:dataset, each up to PATH_MAX */
    assert_int_equal(rc, code);
    assert_int_equal(err->code, code);
    if (!strstr(err->msg, needle))
        fail_msg("message \"%s\" lacks \"%s\"", err->msg, needle);
    assert_null(strchr(err->msg, '\n'));
    snprintf(where, sizeof where, "%s:%s", file, dataset);
    assert_string_equal(err->where, where);
}

static inline int read_expect_error(const char *file, const char *dset, int64_t h, int64_t w,
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

static inline int64_t read_int_attr(hid_t obj, const char *name)
{
    int64_t v = -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Aread(a, H5T_NATIVE_INT64, &v) >= 0);
    H5Aclose(a);
    return v;
}

static inline void check_str_attr(hid_t obj, const char *name, const char *want)
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

static inline hid_t t_u8(void) { return H5Tcopy(H5T_STD_U8LE); }
static inline hid_t t_i8(void) { return H5Tcopy(H5T_STD_I8LE); }
static inline hid_t t_u16(void) { return H5Tcopy(H5T_STD_U16LE); }
static inline hid_t t_i16(void) { return H5Tcopy(H5T_STD_I16LE); }
static inline hid_t t_u32(void) { return H5Tcopy(H5T_STD_U32LE); }
static inline hid_t t_i32(void) { return H5Tcopy(H5T_STD_I32LE); }
static inline hid_t t_u64(void) { return H5Tcopy(H5T_STD_U64LE); }
static inline hid_t t_i64(void) { return H5Tcopy(H5T_STD_I64LE); }
static inline hid_t t_f32(void) { return H5Tcopy(H5T_IEEE_F32LE); }
static inline hid_t t_f64(void) { return H5Tcopy(H5T_IEEE_F64LE); }
static inline hid_t t_i32be(void) { return H5Tcopy(H5T_STD_I32BE); }
static inline hid_t t_f64be(void) { return H5Tcopy(H5T_IEEE_F64BE); }

/* Deterministic finite raw values of `type`: any bit pattern for integers,
 * converted numbers for floats (halves: exponent field kept below 31). */
static inline void fill_values(hid_t type, size_t n, unsigned char *raw)
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

static inline void round_trip(const fixture *f, const char *dtype_name, hid_t type)
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


/* ------------------------------------------------------------ (N, C) shapes */

static inline void probe_hw(const char *file, const char *dset, int64_t h, int64_t w, int64_t H,
                     int64_t W)
{
    cuplas_h5grid g;
    cuplas_error err;
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_probe_grid(file, dset, h, w, 0, &g, &err), 0);
    assert_int_equal(g.H, H);
    assert_int_equal(g.W, W);
    assert_int_equal(g.in_rank, 2);
    assert_null(g.raw);
    cuplas_h5grid_free(&g);
}


/* ---------------------------------------------------------------- bad input */





/* ------------------------------------------------------------ bad output */

static inline void read_small(const fixture *f, cuplas_h5grid *g)
{
    char file[PATH_MAX];
    const hsize_t dims[3] = {2, 2, 1};
    cuplas_error err;
    fpath(f, "small.h5", file);
    put_f32(file, "/g", 3, dims, NULL);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(file, "/g", 0, 0, g, &err), 0);
}



/* -------------------------------------------------------- output_complete */


/* ------------------------------------------------------------ listing */


/* ------------------------------------------------ two-phase (chunk) I/O */

typedef struct filter_case {
    const char *name;
    int shuffle, deflate;
} filter_case;

static const __attribute__((unused)) filter_case FILTER_CASES[] = {
    {"none", 0, 0}, {"shuffle", 1, 0}, {"deflate", 0, 6}, {"shuffle+deflate", 1, 4},
};

/* A chunked dataset written by HDF5 itself (H5Dwrite through its filters);
 * fill: a user fill value or NULL; data NULL leaves every chunk unwritten. */
static inline void put_chunked(const char *file, int create, const char *name, hid_t type, int rank,
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
static inline unsigned char *plain_read(const char *file, const char *dset, size_t *nbytes)
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
static inline void expect_read_lent(const char *file, const char *dset, int threads,
                             cuplas_h5_buffers *bufs)
{
    cuplas_h5grid g;
    cuplas_h5_fetch *fetch = NULL;
    cuplas_error err;
    size_t n;
    unsigned char *want = plain_read(file, dset, &n);

    cuplas_error_clear(&err);
    if (cuplas_h5_read_begin(file, dset, 0, 0, 0, &g, &fetch, bufs, &err) != 0)
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

static inline void expect_same_as_h5dread(const char *file, const char *dset, int threads)
{
    expect_read_lent(file, dset, threads, NULL);
}

/* stored bytes are never converted, so big-endian data takes the same path */
static const __attribute__((unused)) dtype_case CHUNK_DTYPES[] = {
    {"uint8", t_u8}, {"float16", make_f16}, {"float32", t_f32}, {"float64", t_f64},
    {"int64", t_i64}, {"int32", t_i32be},
};



/* A chunk stored with the deflate bit of its filter mask set (HDF5 skipped
 * that optional filter) is read without inflating, as HDF5 does. */


/* Chunk-by-chunk equality of two datasets' stored bytes and filter masks. */
static inline void expect_same_chunks(const char *fa, const char *fb, const char *dset)
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
static inline void reference_output(const char *file, const char *group, hid_t type, const hsize_t *dims,
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
static inline void expect_filters(hid_t gid, const char *name, const filter_case *fc, hsize_t chunk0)
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







#endif
