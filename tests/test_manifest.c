/*
 * test_manifest.c - JSON reader and writer, manifest write/read round
 * trip, the merge rules of `cuplas report` (superseded manifests, skipped
 * vs done, missing shards) and stale temp file cleanup.
 */
#define _GNU_SOURCE /* mkdtemp, asprintf */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>
#include <math.h>

#include <cmocka.h>

#include "util/json.h"
#include "pipeline/manifest.h"
#include "io/stale.h"

static cuplas_json *parse(const char *s, int *rc)
{
    cuplas_json *v = NULL;
    cuplas_error e;
    cuplas_error_clear(&e);
    *rc = cuplas_json_parse(s, strlen(s), &v, &e);
    return v;
}

static void test_json_read(void **state)
{
    (void)state;
    int rc;
    cuplas_json *v = parse(" {\"a\": [1, -2.5e3, true, false, null, {}], \"b\": \"x\\\"y\\\\z\\n"
                           "\\u00e9\\ud83d\\ude00\", \"c\": {\"d\": 0.125}} ", &rc);
    assert_int_equal(rc, 0);
    const cuplas_json *a = cuplas_json_get(v, "a");
    assert_non_null(a);
    assert_int_equal(a->type, CUPLAS_JSON_ARRAY);
    assert_int_equal(a->n, 6);
    assert_true(a->items[1].number == -2500.0);
    assert_int_equal(a->items[2].boolean, 1);
    assert_int_equal(a->items[4].type, CUPLAS_JSON_NULL);
    assert_int_equal(a->items[5].type, CUPLAS_JSON_OBJECT);
    assert_string_equal(cuplas_json_get_str(v, "b", NULL), "x\"y\\z\n\xc3\xa9\xf0\x9f\x98\x80");
    assert_true(cuplas_json_get_num(cuplas_json_get(v, "c"), "d", 0) == 0.125);
    assert_true(cuplas_json_get_num(v, "missing", 7) == 7);
    assert_null(cuplas_json_get_str(v, "a", NULL));   /* wrong type */
    cuplas_json_free(v);

    static const char *const bad[] = {"", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "01", "1.",
                                      "-", ".5", "\"abc", "\"a\x01\"", "\"\\x\"", "\"\\ud800\"",
                                      "tru", "nul", "[1] 2", "{1: 2}", "\"\\u12G4\""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = parse(bad[i], &rc);
        assert_int_not_equal(rc, 0);
        assert_null(v);
    }
    /* deep nesting is refused, not a stack overflow */
    char deep[401];
    memset(deep, '[', 200);
    memset(deep + 200, ']', 200);
    deep[400] = '\0';
    v = parse(deep, &rc);
    assert_int_not_equal(rc, 0);
}

static void test_json_write_roundtrip(void **state)
{
    (void)state;
    const char *nasty = "quote\" back\\ nl\n tab\t cr\r ctl\x01\x1f utf8 \xc3\xa9 / end";
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    int rc;

    fputs("{\"s\": ", f);
    cuplas_json_write_str(f, nasty);
    fputs(", \"n\": ", f);
    cuplas_json_write_str(f, NULL);
    fputs(", \"x\": ", f);
    cuplas_json_write_num(f, 0.1);
    fputs(", \"nan\": ", f);
    cuplas_json_write_num(f, NAN);
    fputs("}", f);
    fclose(f);
    cuplas_json *v = parse(buf, &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(cuplas_json_get_str(v, "s", ""), nasty);
    assert_int_equal(cuplas_json_get(v, "n")->type, CUPLAS_JSON_NULL);
    assert_true(cuplas_json_get_num(v, "x", 0) == 0.1);   /* %.17g round-trips */
    assert_int_equal(cuplas_json_get(v, "nan")->type, CUPLAS_JSON_NULL);
    cuplas_json_free(v);
    free(buf);
}

/* cuplas_json_int: only integers in range; anything else is the default */
static void test_json_int(void **state)
{
    (void)state;
    static const struct { const char *text; long long want; } cases[] = {
        {"7", 7},          {"-3", -3},         {"1e2", 100},      {"0", 0},
        {"100", 100},      {"101", -99},       {"-101", -99},     {"2.5", -99},
        {"1e300", -99},    {"-1e300", -99},    {"\"7\"", -99},  {"null", -99},
        {"true", -99},     {"[7]", -99},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char doc[64];
        int rc;
        snprintf(doc, sizeof doc, "{\"k\": %s}", cases[i].text);
        cuplas_json *v = parse(doc, &rc);
        assert_int_equal(rc, 0);
        if (cuplas_json_get_int(v, "k", -100, 100, -99) != cases[i].want)
            fail_msg("%s: got %lld, want %lld", cases[i].text,
                     cuplas_json_get_int(v, "k", -100, 100, -99), cases[i].want);
        cuplas_json_free(v);
    }
    /* the widest bound is exact: 2^53 reads back, 2^53 + 2 does not */
    int rc;
    cuplas_json *v = parse("[9007199254740992, 9007199254740994]", &rc);
    assert_true(cuplas_json_int(&v->items[0], 0, CUPLAS_JSON_INT_MAX, -1) == (1LL << 53));
    assert_true(cuplas_json_int(&v->items[1], 0, CUPLAS_JSON_INT_MAX, -1) == -1);
    assert_true(cuplas_json_get_int(v, "k", 0, 1, 5) == 5);   /* not an object */
    cuplas_json_free(v);
}

/* ------------------------------------------------------------ manifests */

static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cuplas-test-manifest.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void add(cuplas_manifest *m, const char *input, const char *status, double and_after,
                const char *error)
{
    cuplas_manifest_entry *e;
    m->v = realloc(m->v, (size_t)(m->n + 1) * sizeof *m->v);
    e = &m->v[m->n++];
    memset(e, 0, sizeof *e);
    e->input = strdup(input);
    e->dataset = strdup("/grid");
    asprintf(&e->output, "out/%s", input);
    snprintf(e->status, sizeof e->status, "%s", status);
    e->error = error ? strdup(error) : NULL;
    e->and_before = isnan(and_after) ? NAN : 100.0;
    e->and_after = and_after;
    e->sort_s = 1.5;
    e->total_s = 2.0;
    snprintf(e->backend, sizeof e->backend, "cpu");
    e->device = strdup("cpu \"x\" (2 threads)");
    e->shape[0] = 32, e->shape[1] = 32, e->shape[2] = 3;
    snprintf(e->dtype, sizeof e->dtype, "uint8");
}

static void make(cuplas_manifest *m, int index, int count, double end)
{
    cuplas_shard s = {index, count};
    cuplas_error e;
    assert_int_equal(cuplas_manifest_begin(m, "cfg.yaml", &s, &e), 0);
    cuplas_manifest_finish(m, 0, 0);
    m->start_unix = end - 10;
    m->end_unix = end;
}

static void test_manifest_roundtrip(void **state)
{
    (void)state;
    cuplas_manifest m, r;
    cuplas_shard s = {2, 4};
    cuplas_error e;
    char *path = cuplas_manifest_path(tmpdir, &s), name[128];

    snprintf(name, sizeof name, "%s/cuplas-manifest.2-of-4.json", tmpdir);
    assert_string_equal(path, name);
    make(&m, 2, 4, 1000.5);
    add(&m, "a.h5", "done", 12.5, NULL);
    add(&m, "b,\"odd\".h5", "failed", NAN, "b.h5:/grid: not an HDF5 file\n(truncated)");
    add(&m, "c.h5", "pending", NAN, NULL);
    m.exit_code = 75;
    m.interrupted = 1;
    assert_int_equal(cuplas_manifest_write(&m, path, &e), 0);
    assert_int_equal(cuplas_manifest_read(path, &r, &e), 0);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.shard.index, 2);
    assert_int_equal(r.shard.count, 4);
    assert_int_equal(r.exit_code, 75);
    assert_int_equal(r.interrupted, 1);
    assert_true(r.end_unix == 1000.5);
    assert_string_equal(r.config, "cfg.yaml");
    assert_string_equal(r.v[1].input, "b,\"odd\".h5");
    assert_string_equal(r.v[1].error, m.v[1].error);
    assert_string_equal(r.v[0].status, "done");
    assert_true(r.v[0].and_after == 12.5);
    assert_true(isnan(r.v[1].and_after));
    assert_string_equal(r.v[0].device, "cpu \"x\" (2 threads)");
    assert_int_equal((int)r.v[0].shape[2], 3);
    assert_null(r.v[2].error);
    cuplas_manifest_free(&r);

    /* no temp file is left next to it, and a damaged copy is refused */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c tmp", tmpdir);
    FILE *p = popen(cmd, "r");
    int ntmp = -1;
    assert_int_equal(fscanf(p, "%d", &ntmp), 1);
    pclose(p);
    assert_int_equal(ntmp, 0);
    snprintf(cmd, sizeof cmd, "truncate -s 300 '%s'", path);
    assert_int_equal(system(cmd), 0);
    cuplas_error_clear(&e);
    assert_int_not_equal(cuplas_manifest_read(path, &r, &e), 0);
    assert_non_null(strstr(e.where, "cuplas-manifest.2-of-4.json"));
    cuplas_manifest_free(&m);
    free(path);
}

/* A damaged manifest's huge numbers: read as absent, or refused with a
 * one-line error; never cast (undefined behaviour; seen when writing fuzz_manifest). */
static void test_manifest_huge_numbers(void **state)
{
    (void)state;
    static const char head[] =
        "{\"format\": \"cuplas-manifest\", \"format_version\": 1, \"pid\": 1e300, "
        "\"exit_code\": -1e300, ";
    static const char tail[] =
        "\"datasets\": [{\"input\": \"a.h5\", \"status\": \"done\", "
        "\"shape\": [1e300, -5, 3.5], \"eval\": {\"format\": \"cuplas-eval\", "
        "\"N\": 1e300, \"C\": -1e300, \"seed\": 1e300, \"codec_opts\": {\"png_level\": 1e300}, "
        "\"bytes\": {\"sorted\": {\"png\": 1e300, \"webp\": 1234}}}}]}";
    /* ok, or the error's text: the values as the file has them */
    static const struct { const char *shard; int ok; const char *says; } cases[] = {
        {"\"shard\": null, ", 1, NULL},
        {"\"shard\": {\"index\": 1, \"count\": 2}, ", 1, NULL},
        {"\"shard\": {\"index\": 1e300, \"count\": 2}, ", 0,
         "(index 1.0000000000000001e+300, count 2)"},
        {"\"shard\": {\"index\": 0, \"count\": 1e300}, ", 0,
         "(index 0, count 1.0000000000000001e+300)"},
        {"\"shard\": {\"index\": 0.5, \"count\": 2}, ", 0, "(index 0.5, count 2)"},
        {"\"shard\": {\"count\": \"2\"}, ", 0, "(index missing, count not a number)"},
    };
    char path[128];
    snprintf(path, sizeof path, "%s/cuplas-manifest.json", tmpdir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "%s%s%s", head, cases[i].shard, tail);
        fclose(f);
        cuplas_manifest m;
        cuplas_error e;
        cuplas_error_clear(&e);
        int rc = cuplas_manifest_read(path, &m, &e);
        if (!cases[i].ok) {
            assert_int_not_equal(rc, 0);
            assert_non_null(strstr(e.msg, "bad \"shard\""));
            assert_non_null(strstr(e.msg, cases[i].says));
            assert_null(strchr(e.msg, '\n'));
            continue;
        }
        assert_int_equal(rc, 0);
        assert_int_equal(m.finished, 1);   /* no "finished": written at its end */
        assert_int_equal(m.pid, 0);
        assert_int_equal(m.exit_code, -1);
        assert_int_equal(m.n, 1);
        assert_true(m.v[0].shape[0] == 0 && m.v[0].shape[1] == 0 && m.v[0].shape[2] == 0);
        const cuplas_eval_result *ev = m.v[0].eval;
        assert_non_null(ev);
        assert_true(ev->N == 0 && ev->C == 0 && ev->seed == 0);
        assert_int_equal(ev->codec.png_level, 9);   /* the default */
        assert_true(ev->order[CUPLAS_ORDER_SORTED].bytes[CUPLAS_CODEC_PNG] == -1);
        assert_true(ev->order[CUPLAS_ORDER_SORTED].bytes[CUPLAS_CODEC_WEBP] == 1234);
        cuplas_manifest_free(&m);
    }
}

/* A split with a missing shard, then another split into the same folder
 * (an audit: one manifest of a 3-way split deleted, then a complete 2-way
 * split kept report at exit 1 forever). Only a later, complete split of
 * another count supersedes it. */
static void test_merge_later_split(void **state)
{
    (void)state;
    cuplas_manifest ms[4];
    cuplas_merged mg;
    cuplas_error e;

    make(&ms[0], 0, 3, 100);   /* 3-way: 0/3 and 1/3 only */
    add(&ms[0], "a.h5", "done", 10, NULL);
    make(&ms[1], 1, 3, 110);
    add(&ms[1], "b.h5", "done", 10, NULL);
    make(&ms[2], 0, 2, 200);   /* 2-way, started at 190 */
    add(&ms[2], "a.h5", "done", 11, NULL);
    add(&ms[2], "c.h5", "done", 11, NULL);
    make(&ms[3], 1, 2, 210);
    add(&ms[3], "b.h5", "done", 12, NULL);

    /* the 2-way split alone is incomplete: nothing superseded */
    assert_int_equal(cuplas_manifest_merge(ms, 3, &mg, &e), 0);
    assert_int_equal(mg.nold_splits, 0);
    assert_int_equal(mg.nmissing, 2);   /* 2/3 and 1/2 */
    cuplas_merged_free(&mg);

    /* complete and later: the 3-way split's missing shard is not counted */
    assert_int_equal(cuplas_manifest_merge(ms, 4, &mg, &e), 0);
    assert_int_equal(mg.nmissing, 0);
    assert_int_equal(mg.nold_splits, 1);
    assert_int_equal(mg.old_splits[0], 3);
    assert_int_equal(mg.done, 3);
    assert_int_equal(mg.pending + mg.failed + mg.cancelled, 0);
    assert_true(mg.v[0].from == &ms[2]);   /* a.h5: the 2-way run's record */
    cuplas_merged_free(&mg);

    /* a 3-way manifest that ended after the 2-way split began (a shard
       requeued late): the 3-way split is not older, its gap stands */
    ms[1].end_unix = 195;
    assert_int_equal(cuplas_manifest_merge(ms, 4, &mg, &e), 0);
    assert_int_equal(mg.nold_splits, 0);
    assert_int_equal(mg.nmissing, 1);
    cuplas_merged_free(&mg);

    /* a 2-way start marker is not complete: it supersedes nothing */
    ms[1].end_unix = 110;
    ms[3].finished = 0;
    assert_int_equal(cuplas_manifest_merge(ms, 4, &mg, &e), 0);
    assert_int_equal(mg.nold_splits, 0);
    assert_int_equal(mg.nmissing, 1);
    assert_int_equal(mg.nunfinished, 1);
    cuplas_merged_free(&mg);
    for (int i = 0; i < 4; i++)
        cuplas_manifest_free(&ms[i]);
}

/* The start marker: run info, "finished": false, every job pending, no
 * end; it reads back as unfinished, counts from its start in the merge
 * (so its pending records hide what an earlier run of another split did)
 * and is counted in nunfinished. */
static void test_manifest_start_marker(void **state)
{
    (void)state;
    cuplas_manifest m, r, old;
    cuplas_manifest ms[2];
    cuplas_merged mg;
    cuplas_shard s = {0, 0};
    cuplas_error e;
    cuplas_job v[2];
    cuplas_jobs jobs;
    char *path = cuplas_manifest_path(tmpdir, &s);

    memset(v, 0, sizeof v);
    memset(&jobs, 0, sizeof jobs);
    v[0].file = "a.h5", v[0].dataset = "/grid", v[0].output = "out/a.h5";
    v[0].H = 32, v[0].W = 32, v[0].C = 3;
    snprintf(v[0].dtype, sizeof v[0].dtype, "uint8");
    v[1].file = "bad.h5", v[1].dataset = "/", v[1].err.code = CUPLAS_ERR_INPUT;
    jobs.v = v, jobs.n = 2;
    assert_int_equal(cuplas_manifest_begin(&m, "cfg.yaml", &s, &e), 0);
    assert_int_equal(m.finished, 0);
    assert_int_equal(cuplas_manifest_start(&m, &jobs, path, &e), 0);
    assert_int_equal(m.n, 0);   /* the entries were only the marker's */
    char *text = NULL;
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    text = calloc(1, 8192);
    assert_true(fread(text, 1, 8191, fp) > 0);
    fclose(fp);
    assert_non_null(strstr(text, "\"end_time\": null"));
    assert_non_null(strstr(text, "\"finished\": false, \"exit_code\": null"));
    free(text);
    assert_int_equal(cuplas_manifest_read(path, &r, &e), 0);
    assert_int_equal(r.finished, 0);
    assert_int_equal(r.n, 2);
    assert_string_equal(r.v[0].status, "pending");
    assert_string_equal(r.v[1].status, "pending");
    assert_int_equal((int)r.v[0].shape[1], 32);
    assert_int_equal((int)r.v[1].shape[0], 0);

    /* an earlier 2-way split that did a.h5: the marker's record wins */
    make(&old, 0, 2, r.start_unix - 5);
    add(&old, "a.h5", "done", 10, NULL);
    ms[0] = old;
    ms[1] = r;
    assert_int_equal(cuplas_manifest_merge(ms, 2, &mg, &e), 0);
    assert_int_equal(mg.nunfinished, 1);
    assert_int_equal(mg.done, 0);
    assert_int_equal(mg.pending, 2);
    cuplas_merged_free(&mg);

    /* the run's end replaces it: finished, counted as usual */
    cuplas_manifest_finish(&m, 0, 0);
    add(&m, "a.h5", "done", 12, NULL);
    assert_int_equal(cuplas_manifest_write(&m, path, &e), 0);
    cuplas_manifest_free(&r);
    assert_int_equal(cuplas_manifest_read(path, &r, &e), 0);
    assert_int_equal(r.finished, 1);
    ms[1] = r;
    assert_int_equal(cuplas_manifest_merge(ms, 2, &mg, &e), 0);
    assert_int_equal(mg.nunfinished, 0);
    assert_int_equal(mg.done, 1);
    cuplas_merged_free(&mg);
    cuplas_manifest_free(&r);
    cuplas_manifest_free(&old);
    cuplas_manifest_free(&m);
    free(path);
}

static void test_merge(void **state)
{
    (void)state;
    cuplas_manifest ms[4];
    cuplas_merged mg;
    cuplas_error e;

    /* shard 0/3: first run interrupted, then the requeued run (newer) */
    make(&ms[0], 0, 3, 100);
    add(&ms[0], "a.h5", "done", 10, NULL);
    add(&ms[0], "b.h5", "cancelled", NAN, "interrupted");
    make(&ms[1], 0, 3, 200);
    add(&ms[1], "a.h5", "skipped", NAN, NULL);   /* skip keeps the done record */
    add(&ms[1], "b.h5", "done", 20, NULL);
    /* shard 1/3 with a failure; shard 2/3 never wrote a manifest */
    make(&ms[2], 1, 3, 150);
    add(&ms[2], "c.h5", "failed", NAN, "c.h5:/: corrupt");
    add(&ms[2], "d.h5", "done", 30, NULL);
    assert_int_equal(cuplas_manifest_merge(ms, 3, &mg, &e), 0);
    assert_int_equal(mg.nused, 2);
    assert_int_equal(mg.nsuperseded, 1);
    /* the superseded run's records are gone: a.h5 is the rerun's skip */
    assert_int_equal(mg.n, 4);
    assert_int_equal(mg.done, 2);
    assert_int_equal(mg.skipped, 1);
    assert_int_equal(mg.failed, 1);
    assert_int_equal(mg.cancelled + mg.pending, 0);
    assert_int_equal(mg.nmissing, 1);
    assert_int_equal(mg.missing[0].index, 2);
    assert_int_equal(mg.missing[0].count, 3);
    assert_true(mg.and_after_mean == 25);
    assert_true(mg.sort_s == 3.0);
    assert_string_equal(mg.v[0].e->input, "a.h5");
    assert_string_equal(mg.v[1].e->status, "done");
    cuplas_merged_free(&mg);

    /* the same datasets under two shardings: per dataset, the newest wins,
       but a skip does not hide the run that produced the output */
    make(&ms[3], 0, 1, 300);
    add(&ms[3], "b.h5", "skipped", NAN, NULL);
    add(&ms[3], "c.h5", "done", 40, NULL);
    add(&ms[3], "d.h5", "skipped", 30, NULL);
    assert_int_equal(cuplas_manifest_merge(ms + 1, 3, &mg, &e), 0);
    assert_int_equal(mg.nused, 3);
    assert_int_equal(mg.n, 4);
    assert_int_equal(mg.failed, 0);
    assert_int_equal(mg.done, 3);      /* b, d: done kept under the skip; c: newest */
    assert_int_equal(mg.skipped, 1);
    /* 2/3 still has none, but the complete 1-way split began (290) after
       the 3-way split's last end (200): it supersedes that split */
    assert_int_equal(mg.nmissing, 0);
    assert_int_equal(mg.nold_splits, 1);
    assert_int_equal(mg.old_splits[0], 3);
    assert_true(mg.span_s == 300 - 140);
    cuplas_merged_free(&mg);
    for (int i = 0; i < 4; i++)
        cuplas_manifest_free(&ms[i]);

    assert_int_equal(cuplas_manifest_merge(ms, 0, &mg, &e), 0);
    assert_int_equal(mg.n, 0);
    cuplas_merged_free(&mg);
}

/* ------------------------------------------------------------ stale temps */

static void touch(const char *name, time_t mtime)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    struct utimbuf t = {mtime, mtime};
    assert_int_equal(utime(path, &t), 0);
}

static int present(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return access(path, F_OK) == 0;
}

static void test_stale(void **state)
{
    (void)state;
    long pid;
    char dead[64], mine_new[64], mine_old[64], other[64], out[128], out2[128];
    pid_t child = fork();
    time_t now = time(NULL);

    assert_int_equal(cuplas_stale_match(".a.h5.tmp.123.AbC9xZ", "a.h5", &pid), 1);
    assert_int_equal(pid, 123);
    assert_int_equal(cuplas_stale_match(".a.h5.tmp.123.AbC9x", "a.h5", &pid), 0);
    assert_int_equal(cuplas_stale_match(".a.h5.tmp.x.AbC9xZ", "a.h5", &pid), 0);
    assert_int_equal(cuplas_stale_match("a.h5.tmp.1.AbC9xZ", "a.h5", &pid), 0);
    assert_int_equal(cuplas_stale_match(".b.h5.tmp.1.AbC9xZ", "a.h5", &pid), 0);

    /* a pid that surely is gone: a child that exited and was reaped */
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0);
    snprintf(dead, sizeof dead, ".a.h5.tmp.%ld.AAAAAA", (long)child);
    snprintf(mine_new, sizeof mine_new, ".a.h5.tmp.%ld.BBBBBB", (long)getpid());
    snprintf(mine_old, sizeof mine_old, ".b.h5.tmp.%ld.CCCCCC", (long)getppid());
    snprintf(other, sizeof other, ".z.h5.tmp.%ld.DDDDDD", (long)child);
    touch(dead, now);
    touch(mine_new, now + 5);         /* a live writer, newer than the run */
    touch(mine_old, now - 3600);      /* live pid, but from before the run */
    touch(other, now);                /* not an output of this shard */
    touch("a.h5", now);
    snprintf(out, sizeof out, "%s/a.h5", tmpdir);
    snprintf(out2, sizeof out2, "%s/b.h5", tmpdir);
    const char *paths[] = {out, NULL, out2, "/nonexistent/dir/x.h5"};
    assert_int_equal(cuplas_stale_clean(paths, 4, now, NULL), 2);
    assert_false(present(dead));
    assert_false(present(mine_old));
    assert_true(present(mine_new));
    assert_true(present(other));
    assert_true(present("a.h5"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_read),
        cmocka_unit_test(test_json_write_roundtrip),
        cmocka_unit_test(test_json_int),
        cmocka_unit_test(test_manifest_roundtrip),
        cmocka_unit_test(test_manifest_huge_numbers),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_manifest_start_marker),
        cmocka_unit_test(test_merge_later_split),
        cmocka_unit_test(test_stale),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
