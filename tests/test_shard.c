/*
 * test_shard.c - the array split: greedy balance by cost, independence
 * from list order, the SLURM environment (ID/COUNT and MIN/MAX) and
 * --shard parsing errors, and the job-list selection built on them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline/shard.h"

static void test_assign_greedy(void **state)
{
    (void)state;
    /* largest first, each to the lightest shard, ties to the lowest index */
    cuplas_shard_item it[] = {{5, "e", ""}, {9, "a", ""}, {7, "b", ""}, {3, "c", ""},
                              {3, "d", ""}, {1, "f", ""}};
    int s[6];
    cuplas_error e;
    assert_int_equal(cuplas_shard_assign(it, 6, 2, s, &e), 0);
    /* 9->0, 7->1, 5->1 (7 < 9), 3c->0 (9 < 12), 3d->0 (12 = 12), 1->1 (15 > 12) */
    assert_int_equal(s[1], 0);
    assert_int_equal(s[2], 1);
    assert_int_equal(s[0], 1);
    assert_int_equal(s[3], 0);
    assert_int_equal(s[4], 0);
    assert_int_equal(s[5], 1);
}

static void test_assign_balance(void **state)
{
    (void)state;
    enum { N = 200, K = 7 };
    cuplas_shard_item it[N];
    char names[N][16];
    int s[N];
    long long load[K] = {0}, maxc = 0;
    cuplas_error e;

    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "f%03d", i);
        it[i].cost = 1 + (i * 7919) % 4096 * 16;   /* uneven sizes */
        it[i].key = names[i];
        it[i].key2 = "/grid";
        if (it[i].cost > maxc)
            maxc = it[i].cost;
    }
    assert_int_equal(cuplas_shard_assign(it, N, K, s, &e), 0);
    for (int i = 0; i < N; i++) {
        assert_true(s[i] >= 0 && s[i] < K);
        load[s[i]] += it[i].cost;
    }
    long long lo = load[0], hi = load[0];
    for (int k = 1; k < K; k++) {
        lo = load[k] < lo ? load[k] : lo;
        hi = load[k] > hi ? load[k] : hi;
    }
    /* greedy by decreasing cost: shards differ by at most one job */
    assert_true(hi - lo <= maxc);
}

static void test_assign_order_independent(void **state)
{
    (void)state;
    /* equal costs everywhere: only the names can decide, never the position */
    cuplas_shard_item a[] = {{4, "x.h5", "/b"}, {4, "x.h5", "/a"}, {4, "w.h5", "/a"},
                             {0, "bad.h5", "/"}, {4, "y.h5", "/a"}, {0, "bad2.h5", "/"}};
    cuplas_shard_item b[6];
    int sa[6], sb[6], perm[6] = {5, 3, 0, 4, 2, 1};
    cuplas_error e;

    for (int i = 0; i < 6; i++)
        b[i] = a[perm[i]];
    assert_int_equal(cuplas_shard_assign(a, 6, 3, sa, &e), 0);
    assert_int_equal(cuplas_shard_assign(b, 6, 3, sb, &e), 0);
    for (int i = 0; i < 6; i++)
        assert_int_equal(sb[i], sa[perm[i]]);
    /* the failed inputs (cost 0 -> 1) do not all pile onto one shard */
    assert_int_not_equal(sa[3], sa[5]);
    /* and the call is a pure function: again, same answer */
    assert_int_equal(cuplas_shard_assign(a, 6, 3, sb, &e), 0);
    assert_memory_equal(sa, sb, sizeof sa);
}

static void test_assign_edge(void **state)
{
    (void)state;
    cuplas_shard_item it[] = {{1, "a", NULL}, {1, "b", NULL}};
    int s[2];
    cuplas_error e;
    assert_int_equal(cuplas_shard_assign(it, 2, 1, s, &e), 0);
    assert_int_equal(s[0] + s[1], 0);
    assert_int_equal(cuplas_shard_assign(it, 2, 4, s, &e), 0);   /* more shards than jobs */
    assert_int_equal(s[0], 0);
    assert_int_equal(s[1], 1);
    assert_int_equal(cuplas_shard_assign(it, 0, 3, s, &e), 0);
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_shard_assign(it, 2, 0, s, &e), CUPLAS_ERR_USAGE);
}

static void test_parse(void **state)
{
    (void)state;
    static const char *const bad[] = {"", "3", "3/3", "4/3", "-1/2", "1/0", "1/", "/2",
                                      "a/b", "1/2x", " 1/2", "1/ 2", "1/-2", "+1/2", "1//2"};
    cuplas_shard s;
    cuplas_error e;

    assert_int_equal(cuplas_shard_parse("0/1", &s, &e), 0);
    assert_int_equal(s.index, 0);
    assert_int_equal(s.count, 1);
    assert_int_equal(cuplas_shard_parse("3/4", &s, &e), 0);
    assert_int_equal(s.index, 3);
    assert_int_equal(s.count, 4);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cuplas_error_clear(&e);
        assert_int_equal(cuplas_shard_parse(bad[i], &s, &e), CUPLAS_ERR_USAGE);
        assert_non_null(strstr(e.msg, "--shard"));
    }
}

static void test_env(void **state)
{
    (void)state;
    cuplas_shard s;
    cuplas_error e;
    char name[32];

    /* not an array task */
    assert_int_equal(cuplas_shard_from_env(NULL, "4", "0", "3", NULL, &s, &e), 0);
    assert_int_equal(s.count, 0);
    /* --array=0-3 */
    assert_int_equal(cuplas_shard_from_env("2", "4", "0", "3", NULL, &s, &e), 0);
    assert_int_equal(s.index, 2);
    assert_int_equal(s.count, 4);
    assert_string_equal(cuplas_shard_name(&s, name, sizeof name), "2-of-4");
    /* --array=1-4: MIN shifts the index */
    assert_int_equal(cuplas_shard_from_env("1", "4", "1", "4", NULL, &s, &e), 0);
    assert_int_equal(s.index, 0);
    assert_int_equal(s.count, 4);
    /* an old SLURM without COUNT */
    assert_int_equal(cuplas_shard_from_env("7", NULL, "5", "8", NULL, &s, &e), 0);
    assert_int_equal(s.index, 2);
    assert_int_equal(s.count, 4);
    /* COUNT only */
    assert_int_equal(cuplas_shard_from_env("3", "5", NULL, NULL, NULL, &s, &e), 0);
    assert_int_equal(s.index, 3);
    assert_int_equal(s.count, 5);
    /* stepped (0-12:4) and sparse arrays cannot be mapped */
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_shard_from_env("4", "4", "0", "12", NULL, &s, &e), CUPLAS_ERR_USAGE);
    assert_non_null(strstr(e.msg, "--shard"));
    /* garbage and inconsistencies */
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_shard_from_env("x", "4", "0", "3", NULL, &s, &e), CUPLAS_ERR_USAGE);
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_shard_from_env("9", "4", "0", "3", NULL, &s, &e), CUPLAS_ERR_USAGE);
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_shard_from_env("1", NULL, NULL, NULL, NULL, &s, &e), CUPLAS_ERR_USAGE);
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_shard_from_env("4", "4", NULL, NULL, NULL, &s, &e), CUPLAS_ERR_USAGE);
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_shard_from_env("1", "0", NULL, NULL, NULL, &s, &e), CUPLAS_ERR_USAGE);
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_shard_from_env("1", "4", "3", "0", NULL, &s, &e), CUPLAS_ERR_USAGE);
    /* a stepped array (--array=0-15:4) without COUNT used to run with the
       wrong shards; any step but 1 is refused */
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_shard_from_env("4", NULL, "0", "12", "4", &s, &e), CUPLAS_ERR_USAGE);
    assert_non_null(strstr(e.msg, "SLURM_ARRAY_TASK_STEP=4"));
    assert_int_equal(cuplas_shard_from_env("4", "4", NULL, NULL, "4", &s, &e), CUPLAS_ERR_USAGE);
    assert_int_equal(cuplas_shard_from_env("1", NULL, "0", "3", "x", &s, &e), CUPLAS_ERR_USAGE);
    /* step 1 is the plain array */
    assert_int_equal(cuplas_shard_from_env("2", NULL, "0", "3", "1", &s, &e), 0);
    assert_int_equal(s.index, 2);
    assert_int_equal(s.count, 4);
    s.count = 0;
    assert_string_equal(cuplas_shard_name(&s, name, sizeof name), "");
}

static void test_select(void **state)
{
    (void)state;
    cuplas_job v[5];
    cuplas_jobs all = {.v = v, .n = 5, .cap = 5, .config_path = ""}, mine[3];
    cuplas_shard s;
    cuplas_error e;
    int seen[5] = {0};
    char files[5][8];

    memset(v, 0, sizeof v);
    for (int i = 0; i < 5; i++) {
        snprintf(files[i], sizeof files[i], "f%d", i);
        v[i].file = files[i];
        v[i].dataset = "/g";
        v[i].H = v[i].W = 8 * (5 - i);
        v[i].C = 3;
    }
    v[4].err.code = CUPLAS_ERR_INPUT;   /* failed while planning: still in one shard */
    for (int k = 0; k < 3; k++) {
        s.index = k;
        s.count = 3;
        assert_int_equal(cuplas_shard_select(&all, &s, &mine[k], &e), 0);
        for (int i = 0; i < mine[k].n; i++)
            seen[mine[k].v[i].file[1] - '0']++;
        cuplas_shard_release(&mine[k]);
    }
    for (int i = 0; i < 5; i++)
        assert_int_equal(seen[i], 1);
    s.count = 0;
    assert_int_equal(cuplas_shard_select(&all, &s, &mine[0], &e), 0);
    assert_int_equal(mine[0].n, 5);
    cuplas_shard_release(&mine[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_assign_greedy),
        cmocka_unit_test(test_assign_balance),
        cmocka_unit_test(test_assign_order_independent),
        cmocka_unit_test(test_assign_edge),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_select),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
