/*
 * test_dtype.c - cmocka tests of conversion of every file type to double, and the round trip of its raw bytes to `sorted` (dtype.c, with h5_read and h5_write around it).
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

#define IOTEST_NAME "test_dtype"
#include "iotest.h"

static void test_round_trip_every_dtype(void **state)
{
    static const dtype_case cases[] = {
        {"uint8", t_u8},   {"int8", t_i8},     {"uint16", t_u16},  {"int16", t_i16},
        {"uint32", t_u32}, {"int32", t_i32},   {"uint64", t_u64},  {"int64", t_i64},
        {"float16", make_f16}, {"float32", t_f32}, {"float64", t_f64},
        /* big-endian files: byte-swapping decoders (dtype.c) */
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

static void test_nonfinite(void **state)
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

/* In another order: each output row is the input row named, zeros for a
 * negative one, and a non-finite value named by its input cell. */
static void test_rows(void **state)
{
    char file[PATH_MAX];
    float v[2 * 3 * 2];
    const hsize_t d32[3] = {2, 3, 2};
    const int64_t rows[7] = {5, -1, 0, 3, 3, 1, -1};
    int use10[2] = {1, 0};
    double out[7 * 2];
    cuplas_h5grid g;
    cuplas_error err;

    for (int i = 0; i < 12; i++)
        v[i] = (float)i;
    fpath(*state, "rows.h5", file);
    put_dataset(file, 1, "/g", H5T_IEEE_F32LE, 3, d32, v, NULL);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(file, "/g", 0, 0, &g, &err), 0);
    assert_int_equal(cuplas_h5grid_to_double_rows(&g, use10, 2, rows, 7, out, NULL, &err), 0);
    for (int i = 0; i < 7; i++)
        for (int k = 0; k < 2; k++)
            assert_true(out[i * 2 + k] == (rows[i] < 0 ? 0.0 : v[rows[i] * 2 + use10[k]]));
    cuplas_h5grid_free(&g);

    v[3 * 2 + 0] = NAN;   /* cell 3: y=1 x=0, channel 0 */
    put_dataset(file, 1, "/g", H5T_IEEE_F32LE, 3, d32, v, NULL);
    assert_int_equal(cuplas_h5_read_grid(file, "/g", 0, 0, &g, &err), 0);
    int rc = cuplas_h5grid_to_double_rows(&g, use10, 2, rows, 7, out, NULL, &err);
    expect_error(&err, rc, CUPLAS_ERR_INPUT, "NaN at cell (y=1, x=0), channel 0", file, "/g");
    cuplas_h5grid_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip_every_dtype, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nonfinite, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rows, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
