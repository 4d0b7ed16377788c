/*
 * test_channel_names.c - channel selectors against the graphdeco 3DGS
 * property list: names, family ranges, globs in natural order, indices,
 * and every error (unknown, duplicate, empty glob, descending, range).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/channel_names.h"

static char names_buf[62][16];
static const char *names[62];
enum { NN = 62 };

/* x y z nx ny nz f_dc_0..2 f_rest_0..44 opacity scale_0..2 rot_0..3 */
static void graphdeco(void)
{
    int n = 0;
    const char *head[] = {"x", "y", "z", "nx", "ny", "nz"};
    for (int i = 0; i < 6; i++)
        snprintf(names_buf[n++], 16, "%s", head[i]);
    for (int i = 0; i < 3; i++)
        snprintf(names_buf[n++], 16, "f_dc_%d", i);
    for (int i = 0; i < 45; i++)
        snprintf(names_buf[n++], 16, "f_rest_%d", i);
    snprintf(names_buf[n++], 16, "opacity");
    for (int i = 0; i < 3; i++)
        snprintf(names_buf[n++], 16, "scale_%d", i);
    for (int i = 0; i < 4; i++)
        snprintf(names_buf[n++], 16, "rot_%d", i);
    for (int i = 0; i < n; i++)
        names[i] = names_buf[i];
}

static int resolve(int nsel, const char *const *sel, int *cols, int *k, cuplas_error *e)
{
    cuplas_error_clear(e);
    return cuplas_channels_resolve(sel, nsel, names, NN, cols, k, e);
}

static void test_names_and_ranges(void **state)
{
    (void)state;
    int cols[NN], k;
    cuplas_error e;
    const char *sog[] = {"x", "y", "z", "f_dc_0-2", "scale_0-2"};
    assert_int_equal(resolve(5, sog, cols, &k, &e), 0);
    int want[] = {0, 1, 2, 6, 7, 8, 55, 56, 57};
    assert_int_equal(k, 9);
    assert_memory_equal(cols, want, sizeof want);

    /* order as written */
    const char *rev[] = {"rot_3", "opacity", "x"};
    assert_int_equal(resolve(3, rev, cols, &k, &e), 0);
    assert_int_equal(k, 3);
    assert_int_equal(cols[0], 61);
    assert_int_equal(cols[1], 54);
    assert_int_equal(cols[2], 0);
}

static void test_glob_natural_order(void **state)
{
    (void)state;
    int cols[NN], k;
    cuplas_error e;
    const char *g[] = {"f_rest_*"};
    /* names given in a lexical order: the glob must still give 0, 1, ..., 44 */
    const char *lex[NN];
    int n = 0;
    for (int i = 0; i < NN; i++)
        lex[n++] = names[i];
    /* shuffle f_rest into lexical order: f_rest_0, f_rest_1, f_rest_10, ... */
    for (int i = 9; i < 54; i++)
        for (int j = i + 1; j < 54; j++)
            if (strcmp(lex[j], lex[i]) < 0) {
                const char *t = lex[i];
                lex[i] = lex[j];
                lex[j] = t;
            }
    assert_string_equal(lex[11], "f_rest_10");
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_channels_resolve(g, 1, lex, NN, cols, &k, &e), 0);
    assert_int_equal(k, 45);
    for (int i = 0; i < 45; i++) {
        char want[16];
        snprintf(want, sizeof want, "f_rest_%d", i);
        assert_string_equal(lex[cols[i]], want);
    }
    const char *dc[] = {"f_dc_*", "scale_?"};
    assert_int_equal(resolve(2, dc, cols, &k, &e), 0);
    assert_int_equal(k, 6);
    assert_int_equal(cols[0], 6);
    assert_int_equal(cols[5], 57);
    assert_true(cuplas_natural_cmp("f_rest_2", "f_rest_10") < 0);
    assert_int_equal(cuplas_natural_cmp("a10", "a010"), 0);
    assert_true(cuplas_natural_cmp("b", "a10") > 0);
}

static void test_indices(void **state)
{
    (void)state;
    int cols[NN], k;
    cuplas_error e;
    const char *old[] = {"0-8"};
    assert_int_equal(resolve(1, old, cols, &k, &e), 0);
    assert_int_equal(k, 9);
    for (int i = 0; i < 9; i++)
        assert_int_equal(cols[i], i);
    const char *mix[] = {"54", "x", "55-57"};
    assert_int_equal(resolve(3, mix, cols, &k, &e), 0);
    assert_int_equal(k, 5);
    assert_int_equal(cols[0], 54);
    assert_int_equal(cols[4], 57);
}

static void expect_error(int nsel, const char *const *sel, const char *needle)
{
    int cols[NN], k;
    cuplas_error e;
    assert_int_equal(resolve(nsel, sel, cols, &k, &e), CUPLAS_ERR_USAGE);
    if (!strstr(e.msg, needle))
        fail_msg("'%s' not in '%s'", needle, e.msg);
}

static void test_errors(void **state)
{
    (void)state;
    const char *a[] = {"opacty"};
    expect_error(1, a, "unknown channel 'opacty'");
    expect_error(1, a, "available: x, y, z");
    const char *b[] = {"f_dc_0-3"};
    expect_error(1, b, "unknown channel 'f_dc_3' (from 'f_dc_0-3')");
    const char *c[] = {"x", "y", "x"};
    expect_error(3, c, "channel 'x' is selected twice");
    const char *d[] = {"f_dc_*", "f_dc_1"};
    expect_error(2, d, "channel 'f_dc_1' is selected twice");
    const char *f[] = {"normal_*"};
    expect_error(1, f, "no channel matches 'normal_*'");
    const char *g[] = {"scale_2-0"};
    expect_error(1, g, "descending");
    const char *h[] = {"62"};
    expect_error(1, h, "out of range");
    const char *i[] = {"60-63"};
    expect_error(1, i, "out of range");
    const char *j[] = {""};
    expect_error(1, j, "empty channel name");
    const char *l[] = {"x-y"};
    expect_error(1, l, "unknown channel 'x-y'");
    const char *m[] = {"f_dc_99999999999999-0"};
    expect_error(1, m, "unknown channel");
}

/* The unknown-name error lists up to 8 names in a 200-byte buffer: long
 * names fill it after a few, and the list must stop there (it wrote past
 * the buffer: clang --analyze's dead store of the clamp after the loop). */
static void test_unknown_long_names(void **state)
{
    (void)state;
    char buf[9][64];
    const char *longn[9];
    for (int i = 0; i < 9; i++) {
        memset(buf[i], 'a' + i, 60);
        buf[i][60] = 0;
        longn[i] = buf[i];
    }
    const char *sel[] = {"nope"};
    int cols[9], k;
    cuplas_error e;
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_channels_resolve(sel, 1, longn, 9, cols, &k, &e), CUPLAS_ERR_USAGE);
    if (!strstr(e.msg, "unknown channel 'nope'") || !strstr(e.msg, "available: aaaa"))
        fail_msg("unexpected message '%s'", e.msg);
}

/* cuplas_channel_index: exact names only, the first of two, NULLs skipped. */
static void test_channel_index(void **state)
{
    const char *cols[] = {"x", NULL, "f_rest_1", "x", "f_rest_10"};
    assert_int_equal(cuplas_channel_index(cols, 5, "x"), 0);
    assert_int_equal(cuplas_channel_index(cols, 5, "f_rest_10"), 4);
    assert_int_equal(cuplas_channel_index(cols, 5, "f_rest_*"), -1);
    assert_int_equal(cuplas_channel_index(cols, 5, "f_rest"), -1);
    assert_int_equal(cuplas_channel_index(cols, 2, "f_rest_1"), -1);
    assert_int_equal(cuplas_channel_index(NULL, 5, "x"), -1);
}

int main(void)
{
    graphdeco();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_ranges),
        cmocka_unit_test(test_glob_natural_order),
        cmocka_unit_test(test_indices),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_unknown_long_names),
        cmocka_unit_test(test_channel_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
