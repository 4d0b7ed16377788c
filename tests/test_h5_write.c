/*
 * test_h5_write.c - cmocka tests of writing result files: folders, permutation checks, large,
 * streamed and misused outputs (h5_write.c, publish.c).
 *
 * Inputs are written with the plain HDF5 API (iotest.h) into a fresh
 * mkdtemp folder per test, removed afterwards; outputs are read back with
 * the plain HDF5 API as well.
 */
#define _GNU_SOURCE  /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#define IOTEST_NAME "test_h5_write"
#include "iotest.h"

static void test_bad_output_folder(void **state)
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

static void test_not_a_permutation(void **state)
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

/* Outputs over the 4 MiB in-memory limit: uncompressed data goes to its
 * contiguous offsets outside HDF5 (write_raw), compressed data through
 * H5Dwrite_chunk; both read back exactly, for several chunk heights. */
static void test_large_outputs(void **state)
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

static void slurp_file(const char *path, unsigned char **buf, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    assert_non_null(*buf = malloc(*n + 1));
    assert_int_equal(fread(*buf, 1, *n, f), *n);
    fclose(f);
}

/* A streamed write (chunks stored in batches while the encoding runs,
 * cuplas_h5_wstream) gives the bytes of the one-visit write, whatever the
 * batches; the encoding's progress reaches every chunk in file order. */
static void test_streamed_same_bytes(void **state)
{
    enum { H = 1100, W = 1000, C = 4, N = H * W };
    const hsize_t dims[3] = {H, W, C};
    char in[PATH_MAX], ref[PATH_MAX], out[PATH_MAX];
    float *v = malloc((size_t)N * C * sizeof *v);
    int64_t *index = malloc((size_t)N * sizeof *index);
    cuplas_output_opts opts = {.deflate = 1, .shuffle = true};
    cuplas_h5_encoded *e1 = NULL, *e2 = NULL;
    cuplas_h5_encode_progress prog;
    cuplas_h5_wstream *ws = NULL;
    cuplas_h5grid g;
    cuplas_error err;
    uint64_t x = 88172645463325252ull;

    assert_non_null(v);
    assert_non_null(index);
    for (int i = 0; i < N * C; i++) {   /* xorshift: data deflate cannot shrink much */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v[i] = (float)(x >> 40) * 0.5f;
    }
    for (int i = 0; i < N; i++)
        index[i] = ((int64_t)i * 104729 + 17) % N;
    fpath(*state, "in.h5", in);
    fpath(*state, "ref.h5", ref);
    fpath(*state, "out.h5", out);
    put_dataset(in, 1, "/g", H5T_IEEE_F32LE, 3, dims, v, NULL);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(in, "/g", 0, 0, &g, &err), 0);

    /* the reference: encode, then one write */
    assert_int_equal(cuplas_h5_encode_result(&g, index, &opts, NULL, NULL, &e1, &err), 0);
    assert_false(cuplas_h5_encoded_in_memory(e1));
    assert_int_equal(cuplas_h5_write_encoded(ref, &g, e1, NULL, &err), 0);

    /* plan + run with progress: the same chunks, every one reported */
    assert_int_equal(cuplas_h5_encode_plan(&g, index, &opts, NULL, &e2, &err), 0);
    assert_int_equal(cuplas_h5_encode_progress_init(&prog, e2), 0);
    assert_int_equal(cuplas_h5_encode_run(&g, index, e2, NULL, &prog, &err), 0);
    size_t bytes = 0;
    int fin = 0;
    size_t n = e2->nchunks;
    assert_int_equal(cuplas_h5_encode_wait(&prog, 2 * n, SIZE_MAX, &bytes, &fin), 2 * n);
    assert_int_equal(fin, 1);
    assert_int_equal(bytes, cuplas_h5_encoded_bytes(e1));
    for (size_t k = 0; k < n; k++) {
        assert_int_equal(e2->sorted[k].size, e1->sorted[k].size);
        assert_memory_equal(e2->sorted[k].data, e1->sorted[k].data, e1->sorted[k].size);
        assert_int_equal(e2->index[k].size, e1->index[k].size);
    }
    cuplas_h5_encode_progress_free(&prog);

    /* stored in uneven batches, one of them across index -> sorted */
    const size_t upto[] = {1, 3, n - 1, n + 2, 2 * n - 1, 2 * n};
    char *tmp = cuplas_tmp_create(out, &err);
    assert_non_null(tmp);
    assert_int_equal(cuplas_h5_wstream_open(tmp, &g, e2, &ws, &err), 0);
    for (size_t k = 0; k < sizeof upto / sizeof upto[0]; k++)
        assert_int_equal(cuplas_h5_wstream_put(ws, upto[k], &err), 0);
    assert_int_equal(cuplas_h5_wstream_close(ws, NULL, &err), 0);
    assert_int_equal(cuplas_h5_write_raw(tmp, e2, NULL, &err), 0);
    assert_int_equal(cuplas_tmp_publish(tmp, out, 0, &err), 0);
    free(tmp);

    unsigned char *a, *b;
    size_t na, nb;
    slurp_file(ref, &a, &na);
    slurp_file(out, &b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    free(a);
    free(b);

    /* closed before every chunk is stored: an internal error, nothing leaks */
    assert_non_null(tmp = cuplas_tmp_create(out, &err));
    assert_int_equal(cuplas_h5_wstream_open(tmp, &g, e2, &ws, &err), 0);
    assert_int_equal(cuplas_h5_wstream_put(ws, n, &err), 0);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_wstream_close(ws, NULL, &err), CUPLAS_ERR_INTERNAL);
    assert_non_null(strstr(err.msg, "closed with"));
    unlink(tmp);
    free(tmp);

    cuplas_h5_encoded_free(e1);
    cuplas_h5_encoded_free(e2);
    cuplas_h5grid_free(&g);
    free(index);
    free(v);
}

/* Misuse is a clean internal error, not a crash. */
static void test_chunk_misuse(void **state)
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_bad_output_folder, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_a_permutation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large_outputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chunk_misuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_streamed_same_bytes, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
