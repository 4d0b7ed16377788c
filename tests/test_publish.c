/*
 * test_publish.c - publish.c: atomic publishing with the folder's fsync
 * batched (cuplas_dirsync): the name appears at once, the folder sync is
 * owed until a flush, and a folder that cannot be synced names its jobs.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/publish.h"
#include "tmpdir.h"

static int setup(void **state) { return tu_fixture_new(state, "/tmp/cuplas-test-publish.XXXXXX"); }
static int teardown(void **state)
{
    tu_fixture_free(state);
    return 0;
}

/* A temp file next to `out` holding `text`; returns its malloc'd path. */
static char *filled_tmp(const char *out, const char *text)
{
    cuplas_error err;
    cuplas_error_clear(&err);
    char *tmp = cuplas_tmp_create(out, &err);
    assert_non_null(tmp);
    FILE *f = fopen(tmp, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    return tmp;
}

static void test_deferred_publish_and_flush(void **state)
{
    fixture *fx = *state;
    char out[2][PATH_MAX], sub[PATH_MAX], got[16] = "";
    cuplas_dirsync *ds = NULL;
    cuplas_error err;
    int *bad = (int *)1, nbad = -1;

    cuplas_error_clear(&err);
    tu_path(fx->dir, "sub", sub);
    assert_int_equal(mkdir(sub, 0755), 0);
    tu_path(fx->dir, "a.h5", out[0]);
    tu_path(sub, "b.h5", out[1]);
    assert_int_equal(cuplas_dirsync_create(&ds, &err), 0);
    for (int k = 0; k < 2; k++) {
        char *tmp = filled_tmp(out[k], k ? "second" : "first");
        assert_int_equal(cuplas_tmp_publish_deferred(tmp, out[k], ds, 7 + k, &err), 0);
        assert_int_equal(access(tmp, F_OK), -1);   /* renamed, not copied */
        free(tmp);
    }
    FILE *f = fopen(out[1], "r");
    assert_non_null(f);
    assert_non_null(fgets(got, sizeof got, f));
    fclose(f);
    assert_string_equal(got, "second");
    /* nothing is 1000 s old: an aged flush syncs nothing and fails nothing */
    assert_int_equal(cuplas_dirsync_flush(ds, 1000, &bad, &nbad, &err), 0);
    assert_null(bad);
    assert_int_equal(nbad, 0);
    /* the folder of job 8 is gone: its sync fails and names job 8 only;
       the other folder is still synced */
    tu_rmtree(sub);
    assert_int_equal(cuplas_dirsync_flush(ds, 0, &bad, &nbad, &err), CUPLAS_ERR_OUTPUT);
    assert_int_equal(nbad, 1);
    assert_int_equal(bad[0], 8);
    assert_non_null(strstr(err.msg, "fsync folder"));
    free(bad);
    /* everything owed was taken: a second flush has nothing to do */
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_dirsync_flush(ds, 0, &bad, &nbad, &err), 0);
    assert_int_equal(nbad, 0);
    cuplas_dirsync_free(ds);
}

/* A failed data sync or rename leaves nothing owed and no name. */
static void test_deferred_rename_failure(void **state)
{
    fixture *fx = *state;
    char out[PATH_MAX], bogus[PATH_MAX];
    cuplas_dirsync *ds = NULL;
    cuplas_error err;
    int *bad = NULL, nbad = -1;

    cuplas_error_clear(&err);
    tu_path(fx->dir, "c.h5", out);
    tu_path(fx->dir, "no/such/dir/c.h5", bogus);
    assert_int_equal(cuplas_dirsync_create(&ds, &err), 0);
    char *tmp = filled_tmp(out, "x");
    assert_int_equal(cuplas_tmp_publish_deferred(tmp, bogus, ds, 3, &err), CUPLAS_ERR_OUTPUT);
    assert_non_null(strstr(err.msg, "cannot rename"));
    assert_int_equal(access(tmp, F_OK), 0);   /* the caller unlinks it */
    unlink(tmp);
    free(tmp);
    cuplas_error_clear(&err);
    /* the note made before the rename costs one spare fsync of a folder
       that does not exist: reported, with the job that owned it */
    int rc = cuplas_dirsync_flush(ds, 0, &bad, &nbad, &err);
    assert_true(rc == 0 || (rc == CUPLAS_ERR_OUTPUT && nbad == 1 && bad[0] == 3));
    free(bad);
    cuplas_dirsync_free(ds);
}

/* cuplas_tmp_name_check's bound is the temp name cuplas_tmp_create makes:
 * a file name just short enough for the longest pid (7 digits) is
 * accepted and its temp file can be made; one byte more is refused. */
static void test_tmp_name_bound(void **state)
{
    fixture *fx = *state;
    char name[NAME_MAX + 2], out[PATH_MAX];
    cuplas_error err;
    /* ".NAME.tmp." + 7 digits + ".XXXXXX" adds 20 bytes to NAME */
    const size_t fits = NAME_MAX - 20;

    memset(name, 'n', fits);
    name[fits] = '\0';
    tu_path(fx->dir, name, out);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_tmp_name_check(out, &err), 0);
    char *tmp = cuplas_tmp_create(out, &err);
    assert_non_null(tmp);
    unlink(tmp);
    free(tmp);

    name[fits] = 'n';
    name[fits + 1] = '\0';
    tu_path(fx->dir, name, out);
    assert_int_equal(cuplas_tmp_name_check(out, &err), CUPLAS_ERR_OUTPUT);
    assert_non_null(strstr(err.msg, "its temp name's 20 more"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_deferred_publish_and_flush, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deferred_rename_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tmp_name_bound, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
