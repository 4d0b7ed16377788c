/*
 * test_gen.c - cmocka tests of the synthetic input generator.
 *
 * Determinism is checked at both levels: the pure fill function (same seed,
 * same bytes; any thread count) and the written file, read back through
 * h5_read so the generator's output is known to be a valid cuplas input.
 */
#define _GNU_SOURCE  /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "io/h5_gen.h"
#include "io/dtype.h"
#include "io/h5_lib.h"
#include "io/h5_list.h"
#include "io/h5_read.h"
#include "tmpdir.h"

static int setup(void **state)
{
    cuplas_h5_quiet();
    return tu_fixture_new(state, "test_gen.XXXXXX");
}

static int teardown(void **state)
{
    tu_fixture_free(state);
    return 0;
}

static char *fpath(const fixture *f, const char *name, char buf[PATH_MAX])
{
    return tu_path(f->dir, name, buf);
}

static void *fill(const cuplas_gen_opts *o, int item, size_t *bytes)
{
    int64_t n = o->H * o->W;
    *bytes = (size_t)n * (size_t)cuplas_gen_channels(o) * cuplas_gen_elem_size(o);
    void *buf = malloc(*bytes);
    assert_non_null(buf);
    cuplas_gen_fill(o, item, 0, n, buf);
    return buf;
}

static void opts_for(cuplas_gen_opts *o, cuplas_gen_kind kind, uint64_t seed)
{
    cuplas_gen_defaults(o);
    o->kind = kind;
    o->H = 24;
    o->W = 40;
    o->C = 5;
    o->seed = seed;
}

/* ------------------------------------------------------------------ tests */

static void test_gen_same_seed_same_bytes(void **state)
{
    (void)state;
    for (int k = CUPLAS_GEN_COLORS; k <= CUPLAS_GEN_GAUSSIANS; k++) {
        cuplas_gen_opts o;
        size_t n1, n2, n3;
        opts_for(&o, (cuplas_gen_kind)k, 1337);
        unsigned char *a = fill(&o, 0, &n1), *b = fill(&o, 0, &n2);
        assert_int_equal(n1, n2);
        assert_memory_equal(a, b, n1);

        /* a slab starting mid-grid equals the same cells of the whole fill */
        size_t cell = n1 / (size_t)(o.H * o.W);
        cuplas_gen_fill(&o, 0, 77, 100, b);
        assert_memory_equal(a + 77 * cell, b, 100 * cell);

        o.seed = 1338;
        unsigned char *c = fill(&o, 0, &n3);
        assert_memory_not_equal(a, c, n1);
        free(c);
        o.seed = 1337;
        c = fill(&o, 1, &n3);   /* another dataset item of the same file */
        assert_memory_not_equal(a, c, n1);
        free(a);
        free(b);
        free(c);
    }
}

static void test_gen_thread_count_independent(void **state)
{
    (void)state;
#ifdef _OPENMP
    cuplas_gen_opts o;
    size_t n1, n2;
    int saved = omp_get_max_threads();
    opts_for(&o, CUPLAS_GEN_GAUSSIANS, 5);
    omp_set_num_threads(1);
    void *a = fill(&o, 0, &n1);
    omp_set_num_threads(4);
    void *b = fill(&o, 0, &n2);
    omp_set_num_threads(saved);
    assert_memory_equal(a, b, n1);
    free(a);
    free(b);
#else
    skip();
#endif
}

static void test_gen_normal_moments(void **state)
{
    (void)state;
    cuplas_gen_opts o;
    size_t bytes;
    opts_for(&o, CUPLAS_GEN_NORMAL, 99);
    o.H = o.W = 128;
    o.C = 8;
    float *v = fill(&o, 0, &bytes);
    size_t n = bytes / sizeof *v;
    double s = 0, s2 = 0;
    for (size_t i = 0; i < n; i++) {
        s += v[i];
        s2 += (double)v[i] * v[i];
    }
    double mean = s / (double)n, sd = sqrt(s2 / (double)n - mean * mean);
    print_message("normal: mean %.4f sd %.4f over %zu values\n", mean, sd, n);
    assert_true(fabs(mean) < 0.02);
    assert_true(fabs(sd - 1.0) < 0.02);
    free(v);
}

static void test_gen_colors_and_gaussians_ranges(void **state)
{
    (void)state;
    cuplas_gen_opts o;
    size_t bytes;
    int lo = 255, hi = 0;

    opts_for(&o, CUPLAS_GEN_COLORS, 3);
    unsigned char *c = fill(&o, 0, &bytes);
    for (size_t i = 0; i < bytes; i++) {
        lo = c[i] < lo ? c[i] : lo;
        hi = c[i] > hi ? c[i] : hi;
    }
    assert_true(lo < 5 && hi > 250);
    free(c);

    opts_for(&o, CUPLAS_GEN_GAUSSIANS, 3);
    float *g = fill(&o, 0, &bytes);
    size_t n = bytes / (sizeof *g * CUPLAS_GEN_GAUSSIAN_CHANNELS), negative = 0;
    for (size_t i = 0; i < n; i++) {
        const float *v = g + i * CUPLAS_GEN_GAUSSIAN_CHANNELS;
        double q = 0;
        for (int k = 9; k < 13; k++)
            q += (double)v[k] * v[k];
        assert_true(fabs(q - 1.0) < 1e-5);
        for (int k = 6; k < 9; k++)
            negative += v[k] < 0;
        for (int k = 0; k < CUPLAS_GEN_GAUSSIAN_CHANNELS; k++)
            assert_true(isfinite(v[k]));
    }
    assert_true(negative > 3 * n * 99 / 100);
    free(g);
}

static void test_gen_write_and_read_back(void **state)
{
    const fixture *f = *state;
    char p1[PATH_MAX], p2[PATH_MAX];
    cuplas_gen_opts o;
    cuplas_error err;
    cuplas_h5grid g;
    char **names = NULL;
    int count = 0;
    size_t bytes;

    for (int k = CUPLAS_GEN_COLORS; k <= CUPLAS_GEN_GAUSSIANS; k++) {
        opts_for(&o, (cuplas_gen_kind)k, 11);
        o.path = fpath(f, "g1.h5", p1);
        o.dataset = "/set/grid";
        o.count = 3;
        o.chunk_rows = 5;
        cuplas_error_clear(&err);
        assert_int_equal(cuplas_gen_write(&o, &err), 0);

        assert_int_equal(cuplas_h5_list_datasets(p1, &names, &count, &err), 0);
        assert_int_equal(count, 3);
        assert_string_equal(names[0], "/set/grid_000");
        assert_string_equal(names[2], "/set/grid_002");
        /* flat gaussians carry height/width attributes; read_grid uses them */
        assert_int_equal(cuplas_h5_read_grid(p1, names[1], 0, 0, &g, &err), 0);
        assert_int_equal(g.H, o.H);
        assert_int_equal(g.W, o.W);
        assert_int_equal(g.C, cuplas_gen_channels(&o));
        assert_int_equal(g.in_rank, k == CUPLAS_GEN_GAUSSIANS ? 2 : 3);
        assert_string_equal(g.dtype, k == CUPLAS_GEN_COLORS ? "uint8" : "float32");
        void *want = fill(&o, 1, &bytes);
        assert_memory_equal(g.raw, want, bytes);
        free(want);
        cuplas_h5grid_free(&g);
        cuplas_h5_free_names(names, count);

        /* no timestamps in the file: equal options, equal files */
        o.path = fpath(f, "g2.h5", p2);
        assert_int_equal(cuplas_gen_write(&o, &err), 0);
        FILE *a = fopen(p1, "rb"), *b = fopen(p2, "rb");
        int ca, cb;
        assert_true(a && b);
        do {
            ca = fgetc(a);
            cb = fgetc(b);
            assert_int_equal(ca, cb);
        } while (ca != EOF);
        fclose(a);
        fclose(b);
    }
}

static void test_gen_corrupt_file(void **state)
{
    const fixture *f = *state;
    char path[PATH_MAX];
    cuplas_gen_opts o;
    cuplas_error err;
    cuplas_h5grid g;

    opts_for(&o, CUPLAS_GEN_NORMAL, 1);
    o.path = fpath(f, "bad.h5", path);
    o.corrupt = true;
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_gen_write(&o, &err), 0);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_h5_read_grid(path, "/grid", 0, 0, &g, &err), CUPLAS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "not an HDF5 file or corrupt"));
    cuplas_h5grid_free(&g);
}

static void test_gen_bad_options(void **state)
{
    const fixture *f = *state;
    char path[PATH_MAX];
    cuplas_gen_opts o;
    cuplas_error err;
    cuplas_gen_kind kind;

    opts_for(&o, CUPLAS_GEN_NORMAL, 1);
    o.path = fpath(f, "x.h5", path);
    o.C = 0;
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_gen_write(&o, &err), CUPLAS_ERR_USAGE);
    o.C = 3;
    o.H = 0;
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_gen_write(&o, &err), CUPLAS_ERR_USAGE);
    o.H = 4;
    o.path = fpath(f, "missing/x.h5", path);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_gen_write(&o, &err), CUPLAS_ERR_OUTPUT);

    assert_int_equal(cuplas_gen_kind_parse("gaussians", &kind), 0);
    assert_int_equal(kind, CUPLAS_GEN_GAUSSIANS);
    assert_int_equal(cuplas_gen_kind_parse("colours", &kind), -1);
    assert_string_equal(cuplas_gen_kind_name(CUPLAS_GEN_NORMAL), "normal");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gen_same_seed_same_bytes),
        cmocka_unit_test(test_gen_thread_count_independent),
        cmocka_unit_test(test_gen_normal_moments),
        cmocka_unit_test(test_gen_colors_and_gaussians_ranges),
        cmocka_unit_test_setup_teardown(test_gen_write_and_read_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gen_corrupt_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gen_bad_options, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
