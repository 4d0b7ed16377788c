/*
 * test_cli.c - end-to-end tests of the `cuplas` binary.
 *
 * Each test runs the real ./cuplas (system()) in a fresh mkdtemp folder:
 * `gen` makes small inputs, `run`/`sort`/`check` process them, and the
 * outputs are read back with the HDF5 C API, never through cuplas itself:
 * index is a permutation, sorted == input[index] byte for byte, the
 * attributes are there and the AND went down. Bad inputs must fail their
 * own job only, with one line naming file, dataset and config line, the
 * documented exit code, and no temporary file left behind.
 */
#define _GNU_SOURCE /* nftw, vasprintf */
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
#include <sys/wait.h>
#include <unistd.h>

#include "cuplas_build.h"
#include "testutil.h"
#include "h5util.h"
#include "util/json.h"
#include "tmpdir.h"
#include "clitest.h"
#ifdef HAVE_CUDA
#include "cuda/sort_gpu.h"
#endif

#ifndef CUPLAS_BUILDDIR
#error "CUPLAS_BUILDDIR must name the build folder (Makefile.am sets it)"
#endif
/* The binary under test, as the shell sees it: tu_sh() sets $B to
 * $CUPLAS_BIN if given (a bundle run on the GPU machine), else the build's. */
#define BIN "\"$B\""


/* --------------------------------------------------------------- helpers */

static int setup(void **state)
{
    char pattern[1024];   /* leaves room for names under it in PATH_MAX */
    const char *tmp = getenv("TMPDIR");
    if (getenv("CUPLAS_BIN"))   /* away from the build tree: use the temp folder */
        snprintf(pattern, sizeof pattern, "%s/test_cli.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    else
        snprintf(pattern, sizeof pattern, "%s/tests/test_cli.XXXXXX", CUPLAS_BUILDDIR);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return tu_fixture_new(state, pattern);
}

static int teardown(void **state)
{
    tu_fixture_free(state);
    return 0;
}


static void fpath(const fixture *f, const char *name, char out[PATH_MAX])
{
    tu_path(f->dir, name, out);
}


static void write_text(const fixture *f, const char *name, const char *text)
{
    char path[PATH_MAX];
    fpath(f, name, path);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

/* 1 if one line of text holds every needle (NULL-terminated list). */
static int has_line(const char *text, ...)
{
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *copy = strndup(line, len);
        int all = 1;
        va_list ap;
        va_start(ap, text);
        for (const char *needle; (needle = va_arg(ap, const char *));)
            all &= strstr(copy, needle) != NULL;
        va_end(ap);
        free(copy);
        if (all)
            return 1;
        if (!end)
            break;
        line = end + 1;
    }
    return 0;
}

static int count_str(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Number of ".*.tmp.*" files left in a folder. */
static int temp_files(const fixture *f, const char *sub)
{
    char path[PATH_MAX];
    DIR *d;
    struct dirent *e;
    int n = 0;
    fpath(f, sub, path);
    if (!(d = opendir(path)))
        return 0;
    while ((e = readdir(d)))
        n += e->d_name[0] == '.' && strstr(e->d_name, ".tmp.") != NULL;
    closedir(d);
    return n;
}

static int exists(const fixture *f, const char *name)
{
    char path[PATH_MAX];
    struct stat st;
    fpath(f, name, path);
    return stat(path, &st) == 0;
}

/* A whole dataset in its file type; *n values of *elem bytes, dims out. */
static void *read_raw(hid_t loc, const char *name, size_t *n, size_t *elem, hsize_t dims[3],
                      int *rank)
{
    hid_t did = H5Dopen2(loc, name, H5P_DEFAULT);
    assert_true(did >= 0);
    hid_t sid = H5Dget_space(did), tid = H5Dget_type(did);
    *rank = H5Sget_simple_extent_ndims(sid);
    H5Sget_simple_extent_dims(sid, dims, NULL);
    *n = (size_t)H5Sget_simple_extent_npoints(sid);
    *elem = H5Tget_size(tid);
    void *buf = malloc(*n * *elem + 1);
    assert_non_null(buf);
    assert_true(H5Dread(did, tid, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    H5Tclose(tid);
    H5Sclose(sid);
    H5Dclose(did);
    return buf;
}

static int64_t *read_index(hid_t gid, int64_t *N)
{
    hid_t did = H5Dopen2(gid, "index", H5P_DEFAULT);
    assert_true(did >= 0);
    hid_t sid = H5Dget_space(did);
    *N = (int64_t)H5Sget_simple_extent_npoints(sid);
    int64_t *index = malloc((size_t)*N * sizeof *index);
    assert_non_null(index);
    assert_true(H5Dread(did, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, index) >= 0);
    H5Sclose(sid);
    H5Dclose(did);
    return index;
}

/* The output of in_file:in_ds is a correct, complete cuplas result. */
static void verify_output(const fixture *f, const char *in_file, const char *in_ds,
                          const char *out_file)
{
    static const char *const attrs[] = {"params", "seed", "cuplas_version", "input_file",
                                        "input_dataset", "and_before", "and_after",
                                        "wall_seconds", "backend", "device", "identity",
                                        "complete"};
    char ip[PATH_MAX], op[PATH_MAX];
    size_t n_in, e_in, n_out, e_out;
    hsize_t dims[3], odims[3];
    int rank, orank;
    int64_t N;

    fpath(f, in_file, ip);
    fpath(f, out_file, op);
    hid_t fin = H5Fopen(ip, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t fout = H5Fopen(op, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(fin >= 0);
    assert_true(fout >= 0);
    hid_t gid = H5Gopen2(fout, in_ds, H5P_DEFAULT);
    assert_true(gid >= 0);

    unsigned char *in = read_raw(fin, in_ds, &n_in, &e_in, dims, &rank);
    unsigned char *sorted = read_raw(gid, "sorted", &n_out, &e_out, odims, &orank);
    int64_t *index = read_index(gid, &N);
    size_t C = (size_t)dims[rank - 1], row = C * e_in;

    assert_int_equal(n_out, n_in);
    assert_int_equal(e_out, e_in);
    assert_int_equal((size_t)N * C, n_in);
    assert_true(tu_is_permutation(index, N));
    for (int64_t i = 0; i < N; i++)
        assert_memory_equal(sorted + (size_t)i * row, in + (size_t)index[i] * row, row);
    for (size_t k = 0; k < sizeof attrs / sizeof attrs[0]; k++)
        assert_true(H5Aexists(gid, attrs[k]) > 0);
    double before = tu_double_attr(gid, "and_before"), after = tu_double_attr(gid, "and_after");
    assert_true(after < before);
    assert_true(after > 0);

    free(in);
    free(sorted);
    free(index);
    H5Gclose(gid);
    H5Fclose(fout);
    H5Fclose(fin);
}

/* The index of out_file:ds (malloc'd). */
static int64_t *index_of(const fixture *f, const char *out_file, const char *ds, int64_t *N)
{
    char op[PATH_MAX];
    fpath(f, out_file, op);
    hid_t fout = H5Fopen(op, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(fout >= 0);
    hid_t gid = H5Gopen2(fout, ds, H5P_DEFAULT);
    assert_true(gid >= 0);
    int64_t *index = read_index(gid, N);
    H5Gclose(gid);
    H5Fclose(fout);
    return index;
}

/* The params attribute of out_file:ds (malloc'd). */
static char *params_of(const fixture *f, const char *out_file, const char *ds)
{
    char op[PATH_MAX], *s = NULL;
    fpath(f, out_file, op);
    hid_t fout = H5Fopen(op, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(fout >= 0);
    hid_t gid = H5Gopen2(fout, ds, H5P_DEFAULT);
    hid_t a = H5Aopen(gid, "params", H5P_DEFAULT), t = H5Tcopy(H5T_C_S1);
    assert_true(gid >= 0 && a >= 0);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    assert_true(H5Aread(a, t, &s) >= 0);
    char *copy = strdup(s);
    H5free_memory(s);
    H5Tclose(t);
    H5Aclose(a);
    H5Gclose(gid);
    H5Fclose(fout);
    return copy;
}

/* Three small inputs: (H, W, 3) uint8, (H, W, 4) float32, flat (N, 14). */
static void make_collection(const fixture *f)
{
    assert_int_equal(tu_sh(f, "mkdir -p data && "
                           BIN " gen --kind colors --size 32x32 --seed 1 data/colors.h5 && "
                           BIN " gen --kind normal --size 48x40 --channels 4 --seed 2 "
                           "--dataset /feat data/normal.h5 && "
                           BIN " gen --kind gaussians --size 64x48 --seed 3 --dataset /splats "
                           "data/gauss.h5"), 0);
    write_text(f, "cfg.yaml",
               "# three grids\n"
               "inputs:\n"
               "  - files: \"data/*.h5\"\n"
               "output:\n"
               "  dir: out\n"
               "sort:\n"
               "  seed: 7\n"
               "backend:\n"
               "  device: cpu\n");
}

static void verify_collection(const fixture *f, const char *out)
{
    char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX];
    snprintf(a, sizeof a, "%s/colors.grid.h5", out);
    snprintf(b, sizeof b, "%s/normal.feat.h5", out);
    snprintf(c, sizeof c, "%s/gauss.splats.h5", out);
    verify_output(f, "data/colors.h5", "/grid", a);
    verify_output(f, "data/normal.h5", "/feat", b);
    verify_output(f, "data/gauss.h5", "/splats", c);
}

/* ----------------------------------------------------------------- tests */

static void test_cli_help(void **state)
{
    const fixture *f = *state;
    static const char *const cmds[] = {"run", "check", "sort", "gen", "report", "eval",
                                       "preview", "export-ply"};
    char *out;

    assert_int_equal(tu_sh(f, BIN " --version"), 0);
    out = tu_slurp(f, "out.txt", NULL);
    assert_non_null(strstr(out, "cuplas " PACKAGE_VERSION));
    free(out);
    assert_int_equal(tu_sh(f, BIN " --help"), 0);
    out = tu_slurp(f, "out.txt", NULL);
    assert_non_null(strstr(out, "Exit codes"));
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        assert_non_null(strstr(out, cmds[i]));
    free(out);
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "Usage: cuplas %s", cmds[i]);
        assert_int_equal(tu_sh(f, BIN " help %s", cmds[i]), 0);
        out = tu_slurp(f, "out.txt", NULL);
        assert_non_null(strstr(out, want));
        assert_non_null(strstr(out, "xit codes"));
        free(out);
        assert_int_equal(tu_sh(f, BIN " %s --help", cmds[i]), 0);
        out = tu_slurp(f, "out.txt", NULL);
        assert_non_null(strstr(out, want));
        free(out);
    }
    /* README: "Every subcommand has --help"; help's own is the usage */
    assert_int_equal(tu_sh(f, BIN " help --help"), 0);
    out = tu_slurp(f, "out.txt", NULL);
    assert_non_null(strstr(out, "Usage: cuplas COMMAND"));
    free(out);
    assert_int_equal(tu_sh(f, BIN " help -h"), 0);
    assert_int_equal(tu_sh(f, BIN " help config"), 0);
    out = tu_slurp(f, "out.txt", NULL);
    assert_non_null(strstr(out, "| `sort.seed` |"));
    /* one Markdown table: its header opens the text, once (0.7.0 printed it twice) */
    static const char header[] = "| key | type | default | accepted | description |\n|---|";
    assert_ptr_equal(strstr(out, header), out);
    assert_null(strstr(out + 1, header));
    free(out);
    assert_int_equal(tu_sh(f, BIN " frobnicate"), 2);
    assert_int_equal(tu_sh(f, BIN), 2);
    assert_int_equal(tu_sh(f, BIN " run"), 2);
    assert_int_equal(tu_sh(f, BIN " sort --bogus a b"), 2);
}

/* Usage errors: "cuplas CMD: what" and the pointer to the help, nothing
 * else (getopt's own line was a third); options that would be lost are
 * refused; run's device line counts grids sorted, not jobs ended. */
static void test_cli_usage_lines(void **state)
{
    const fixture *f = *state;
    static const struct { const char *args; const char *says; } bad[] = {
        {" gen --bogus x.h5", "cuplas gen: unknown option '--bogus'\nTry 'cuplas help gen'.\n"},
        {" eval --json=1 r.h5", "cuplas eval: unknown option '--json'\n"},
        {" report -x d", "cuplas report: unknown option '-x'\n"},
        {" gen --size", "cuplas gen: option '--size' needs a value\n"},
        {" gen --demo d --seed 3", "cuplas gen: --demo DIR takes no other option (got --seed)\n"},
        {" sort c.h5 o.h5 --grid 8x32", "cuplas sort: --grid applies to (N, C) datasets and "
                                       "scenes; c.h5:/grid is 8x8x3\n"},
        {" sort c.h5 o.h5 --height 4", "--height applies to (N, C)"},
    };
    char *out;
    assert_int_equal(tu_sh(f, BIN " gen --size 8x8 c.h5"), 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(tu_sh(f, BIN "%s", bad[i].args), 2);
        out = tu_slurp(f, "err.txt", NULL);
        assert_non_null(strstr(out, bad[i].says));
        assert_int_equal(count_str(out, "\n"), 2);
        free(out);
    }
    assert_int_equal(tu_sh(f, "test ! -e o.h5 && test ! -e d"), 0);
    assert_int_equal(tu_sh(f, BIN " help help"), 0);
    out = tu_slurp(f, "out.txt", NULL);
    assert_non_null(strstr(out, "Usage: cuplas COMMAND"));
    free(out);
    assert_int_equal(tu_sh(f, BIN " gen --count 2 --size 4x4 m.h5"), 0);
    out = tu_slurp(f, "out.txt", NULL);
    assert_non_null(strstr(out, "2 datasets (/grid_000../grid_001)"));
    free(out);
    /* a job that fails to write: no grid sorted, so 0 grids/s */
    write_text(f, "file", "");
    write_text(f, "bad.yaml", "inputs:\n  - files: c.h5\noutput:\n  dir: file/out\n"
                              "backend:\n  device: cpu\n");
    assert_int_equal(tu_sh(f, BIN " run bad.yaml --log-format json"), 1);
    out = tu_slurp(f, "err.txt", NULL);
    assert_true(has_line(out, "\"event\":\"device_summary\"", "\"jobs\":1,", "\"sorted\":0,",
                         "\"grids_per_s\":0,", NULL));
    free(out);
    /* a config that does not load, with --log-format json: one JSON line
       (before: the text line only); without it, the text line */
    static const char *const unloadable[] = {
        " run bad.yaml --set sort.seed=abc --log-format json",
        " run bad.yaml --log-format json --set logging.file=nodir/x.log",
        " sort c.h5 s.h5 --log-format json --set sort.polish=-1",
    };
    for (size_t i = 0; i < sizeof unloadable / sizeof unloadable[0]; i++) {
        size_t n = 0;
        cuplas_json *j = NULL;
        cuplas_error e;
        assert_int_equal(tu_sh(f, BIN "%s", unloadable[i]), 2);
        out = tu_slurp(f, "err.txt", &n);
        assert_non_null(memchr(out, '\n', n));
        assert_ptr_equal(strchr(out, '\n'), out + n - 1);   /* one line */
        if (cuplas_json_parse(out, n, &j, &e) != 0)
            fail_msg("not JSON: %s", out);
        assert_string_equal(cuplas_json_get_str(j, "event", ""), "config_error");
        assert_string_equal(cuplas_json_get_str(j, "code", ""), "usage");
        assert_non_null(strstr(cuplas_json_get_str(j, "msg", ""), "cuplas: error: "));
        cuplas_json_free(j);
        free(out);
    }
    assert_int_equal(tu_sh(f, BIN " run bad.yaml --set sort.seed=abc"), 2);
    out = tu_slurp(f, "err.txt", NULL);
    assert_true(has_line(out, "cuplas: error: --set sort.seed=abc: sort.seed:", NULL));
    free(out);
    /* a dataset path without its '/' after the ':' (before: "n.h5:a/b/g:/:
       cannot open: no such file") */
    assert_int_equal(tu_sh(f, BIN " gen --size 4x4 --dataset /a/b/g n.h5 && "
                           BIN " sort n.h5:a/b/g s.h5"), 2);
    out = tu_slurp(f, "err.txt", NULL);
    assert_true(has_line(out, "cuplas: error: n.h5:a/b/g: no such file, but n.h5 is one",
                         "as n.h5:/a/b/g", NULL));
    free(out);
}

/* check (no writes) -> run -> run again (all skipped, files unchanged). */
static void test_cli_run_and_resume(void **state)
{
    const fixture *f = *state;
    static const char *const outs[] = {"out/colors.grid.h5", "out/normal.feat.h5",
                                       "out/gauss.splats.h5"};
    char *before[3], *after[3], *text;
    size_t nb[3], na[3];

    make_collection(f);
    assert_int_equal(tu_sh(f, BIN " check cfg.yaml"), 0);
    text = tu_slurp(f, "out.txt", NULL);
    assert_true(has_line(text, "sort", "data/gauss.h5:/splats", "64x48x14", "float32",
                         "out/gauss.splats.h5", NULL));
    assert_true(has_line(text, "sort", "data/colors.h5:/grid", "32x32x3", "uint8", NULL));
    assert_true(has_line(text, "sort", "data/normal.h5:/feat", "48x40x4", NULL));
    assert_true(has_line(text, "plan: 3 jobs", NULL));
    free(text);
    assert_false(exists(f, "out"));   /* check changes nothing */
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --dry-run"), 0);
    text = tu_slurp(f, "out.txt", NULL);
    assert_true(has_line(text, "plan: 3 jobs: 3 to sort, 0 to skip, 0 with errors", NULL));
    free(text);
    assert_false(exists(f, "out"));

    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format json"), 0);
    text = tu_slurp(f, "err.txt", NULL);
    assert_int_equal(count_str(text, "\"event\":\"job_done\""), 3);
    assert_true(has_line(text, "\"event\":\"job_done\"", "\"file\":\"data/gauss.h5\"",
                         "\"dataset\":\"/splats\"", "\"backend\":\"cpu\"", "\"seconds\":",
                         "\"and_before\":", "\"and_after\":", NULL));
    assert_true(has_line(text, "\"event\":\"summary\"", "\"done\":3", "\"failed\":0", NULL));
    /* largest grid first: gauss (64*48*14) before normal before colors */
    char *g = strstr(text, "data/gauss.h5"), *n = strstr(text, "data/normal.h5"),
         *c = strstr(text, "data/colors.h5");
    assert_true(g && n && c && g < n && n < c);
    free(text);
    verify_collection(f, "out");
    assert_int_equal(temp_files(f, "out"), 0);

    for (int i = 0; i < 3; i++)
        before[i] = tu_slurp(f, outs[i], &nb[i]);
    assert_int_equal(tu_sh(f, BIN " check cfg.yaml"), 0);
    text = tu_slurp(f, "out.txt", NULL);
    assert_int_equal(count_str(text, "skip "), 3);
    free(text);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format text"), 0);
    text = tu_slurp(f, "err.txt", NULL);
    assert_int_equal(count_str(text, "cuplas: skipped "), 3);
    assert_true(has_line(text, "summary: 0 done, 3 skipped, 0 failed", NULL));
    free(text);
    for (int i = 0; i < 3; i++) {
        after[i] = tu_slurp(f, outs[i], &na[i]);
        assert_int_equal(na[i], nb[i]);
        assert_memory_equal(after[i], before[i], nb[i]);
        free(before[i]);
        free(after[i]);
    }

    /* another seed is another identity: redone, not skipped */
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format text --set sort.seed=8"), 0);
    text = tu_slurp(f, "err.txt", NULL);
    assert_int_equal(count_str(text, "cuplas: done "), 3);
    free(text);
    verify_collection(f, "out");
}

/* The thread count never changes the result. */
static void test_cli_threads_deterministic(void **state)
{
    const fixture *f = *state;
    static const char *const outs[][2] = {{"colors.grid.h5", "/grid"},
                                          {"normal.feat.h5", "/feat"},
                                          {"gauss.splats.h5", "/splats"}};

    make_collection(f);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --set backend.threads=1 --set output.dir=o1 "
                           "--set logging.file=o1.log"), 0);
    /* a log file is not a terminal: format auto writes JSON lines there */
    char *log = tu_slurp(f, "o1.log", NULL);
    assert_int_equal(count_str(log, "{\"time\":"), count_str(log, "\n"));
    assert_int_equal(count_str(log, "\"event\":\"job_done\""), 3);
    assert_true(has_line(log, "\"event\":\"device_summary\"", "(1 threads)", NULL));
    free(log);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --set backend.threads=2 --set output.dir=o2"), 0);
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        char a[PATH_MAX], b[PATH_MAX];
        int64_t na, nb;
        snprintf(a, sizeof a, "o1/%s", outs[i][0]);
        snprintf(b, sizeof b, "o2/%s", outs[i][0]);
        int64_t *ia = index_of(f, a, outs[i][1], &na), *ib = index_of(f, b, outs[i][1], &nb);
        assert_int_equal(na, nb);
        assert_memory_equal(ia, ib, (size_t)na * sizeof *ia);
        free(ia);
        free(ib);
    }
}

/* A compressed result over 8 MiB is written while it encodes (its chunks
 * stream to the HDF5 thread): the same layout and data with 1 and 2
 * threads, and the job's stage times are reported. */
static void test_cli_streamed_write(void **state)
{
    const fixture *f = *state;
    const char *quick = " --backend cpu --set sort.start_radius=2 --set sort.radius_decay=0.1"
                        " --set sort.max_configs=1 --set sort.min_configs=1 --set sort.max_passes=1";
    char cmd[1024];
    int64_t na, nb;
    size_t sa, sb;

    assert_int_equal(tu_sh(f, BIN " gen --kind normal --size 1024x1024 --channels 4 big.h5"), 0);
    for (int t = 1; t <= 2; t++) {
        snprintf(cmd, sizeof cmd,
                 BIN " sort big.h5 s%d.h5 --threads %d --log-format json%s > s%d.log 2>&1", t, t,
                 quick, t);
        assert_int_equal(tu_sh(f, cmd), 0);
    }
    char *log = tu_slurp(f, "s2.log", NULL);
    assert_true(has_line(log, "\"event\":\"job_done\"", "\"encode_s\":", "\"h5_s\":", NULL));
    assert_null(strstr(log, "run_timing"));   /* a debug event */
    free(log);
    /* where the process's time went, with logging.level: debug */
    assert_int_equal(tu_sh(f, BIN " sort big.h5 s3.h5 --threads 1 --log-format json"
                           " --set logging.level=debug%s", quick), 0);
    log = tu_slurp(f, "err.txt", NULL);
    assert_true(has_line(log, "\"event\":\"run_timing\"", "\"startup_s\":", "\"plan_s\":",
                         "\"device_init_s\":-1", "\"first_sort_wait_s\":0", "\"teardown_s\":",
                         NULL));
    free(log);
    char *a = tu_slurp(f, "s1.h5", &sa), *b = tu_slurp(f, "s2.h5", &sb);
    assert_true(sa > ((size_t)8 << 20));
    assert_int_equal(sa, sb);   /* the same layout: only wall_seconds may differ */
    free(a);
    free(b);
    int64_t *ia = index_of(f, "s1.h5", "/grid", &na), *ib = index_of(f, "s2.h5", "/grid", &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(ia, ib, (size_t)na * sizeof *ia);
    free(ia);
    free(ib);
}

/* `cuplas run` with uncompressed outputs (contiguous datasets, small ones
 * built in memory) and with compressed ones: every output is correct, and
 * the job events carry the stage times. */
static void test_cli_uncompressed(void **state)
{
    const fixture *f = *state;

    make_collection(f);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --set output.deflate=0 "
                           "--set output.dir=oh --set logging.file=oh.log"), 0);
    verify_collection(f, "oh");
    char *log = tu_slurp(f, "oh.log", NULL);
    assert_int_equal(count_str(log, "\"event\":\"job_done\""), 3);
    assert_int_equal(count_str(log, "\"write_s\":"), 3);
    free(log);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --set output.deflate=1 "
                           "--set output.dir=oc --set logging.file=oc.log"), 0);
    verify_collection(f, "oc");
    log = tu_slurp(f, "oc.log", NULL);
    assert_int_equal(count_str(log, "\"event\":\"job_done\""), 3);
    free(log);
}

/* output.name's placeholders, every one in one name: {parent} the input's
 * folder, {file} its name, {stem} without the extension, {relpath} its
 * path below the entry's common folder with '/' -> '_', {dataset} with
 * '/' -> '_'. */
static void test_cli_output_names(void **state)
{
    const fixture *f = *state;

    assert_int_equal(tu_sh(f, BIN " gen --kind colors --size 16x16 --seed 1 data/a/colors.h5 && "
                           BIN " gen --kind normal --size 8x8 --channels 4 --dataset /g/feat "
                           "data/b/colors.h5"), 0);
    write_text(f, "names.yaml",
               "inputs:\n"
               "  - files: \"data/*/colors.h5\"\n"
               "output:\n"
               "  dir: on\n"
               "  name: \"{parent}-{file}-{stem}-{relpath}.{dataset}.h5\"\n"
               "backend:\n"
               "  device: cpu\n");
    assert_int_equal(tu_sh(f, BIN " run names.yaml --log-format json 2> names.log"), 0);
    verify_output(f, "data/a/colors.h5", "/grid", "on/a-colors.h5-colors-a_colors.grid.h5");
    verify_output(f, "data/b/colors.h5", "/g/feat", "on/b-colors.h5-colors-b_colors.g_feat.h5");
}

/* One-off sort: exact output path, refuses to replace without --force, and
 * gives the same index as a batch run with the same seed. */
static void test_cli_sort(void **state)
{
    const fixture *f = *state;
    char *text;
    int64_t na, nb;

    make_collection(f);
    assert_int_equal(tu_sh(f, BIN " sort data/gauss.h5:/splats res/one.h5 --seed 7"), 0);
    verify_output(f, "data/gauss.h5", "/splats", "res/one.h5");
    assert_int_equal(tu_sh(f, BIN " sort data/gauss.h5:/splats res/one.h5 --seed 7 "
                           "--log-format text"), 1);
    text = tu_slurp(f, "err.txt", NULL);
    assert_true(has_line(text, "cuplas: error: data/gauss.h5:/splats", "output exists", NULL));
    free(text);
    assert_int_equal(tu_sh(f, BIN " sort data/gauss.h5 res/one.h5 --seed 7 --force"), 0);
    verify_output(f, "data/gauss.h5", "/splats", "res/one.h5");

    assert_int_equal(tu_sh(f, BIN " run cfg.yaml"), 0);
    int64_t *ia = index_of(f, "res/one.h5", "/splats", &na);
    int64_t *ib = index_of(f, "out/gauss.splats.h5", "/splats", &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(ia, ib, (size_t)na * sizeof *ia);
    free(ia);
    free(ib);

    /* 14 channels: the default preset's wide values, written in params;
       naming them gives the same index, naming one keeps the 4-cell row */
    text = params_of(f, "res/one.h5", "/splats");
    assert_non_null(strstr(text, "improvement_break: 0.01\n"));
    assert_non_null(strstr(text, "max_passes: 1\n"));
    assert_non_null(strstr(text, "group_size: 16\n"));
    assert_non_null(strstr(text, "max_configs: 4\n"));
    free(text);
    assert_int_equal(tu_sh(f, BIN " sort data/gauss.h5 res/wide.h5 --seed 7 --set "
                           "sort.group_size=16 --set sort.max_passes=1 --set "
                           "sort.improvement_break=0.01 --set sort.max_configs=4"), 0);
    assert_int_equal(tu_sh(f, BIN " sort data/gauss.h5 res/four.h5 --seed 7 --set "
                           "sort.max_passes=15"), 0);
    ia = index_of(f, "res/one.h5", "/splats", &na);
    ib = index_of(f, "res/wide.h5", "/splats", &nb);
    assert_memory_equal(ia, ib, (size_t)na * sizeof *ia);
    free(ib);
    ib = index_of(f, "res/four.h5", "/splats", &nb);
    assert_memory_not_equal(ia, ib, (size_t)na * sizeof *ia);
    free(ia);
    free(ib);
    text = params_of(f, "res/four.h5", "/splats");
    assert_null(strstr(text, "  group_size:"));   /* 4, the preset's: left out */
    assert_non_null(strstr(text, "max_passes: 15\n"));
    assert_non_null(strstr(text, "local_group_size: 0\n"));   /* a small grid: the small row */
    free(text);

    /* channels, weights and normalisation through the options */
    assert_int_equal(tu_sh(f, BIN " sort data/normal.h5:/feat res/two.h5 --channels 0-2 "
                           "--weights 1,2,0.5 --normalize standardize --threads 1"), 0);
    verify_output(f, "data/normal.h5", "/feat", "res/two.h5");
    assert_int_equal(tu_sh(f, BIN " sort data/normal.h5:/feat res/three.h5 --channels 0,9"), 1);
    assert_int_equal(tu_sh(f, BIN " sort data/normal.h5:/feat res/three.h5 --normalize bogus"), 2);
    assert_int_equal(temp_files(f, "res"), 0);
}

/* A small float32 dataset written directly (values given, or generated). */
static void put_dataset(hid_t fid, const char *name, int rank, const hsize_t *dims,
                        const float *values)
{
    hid_t sid = H5Screate_simple(rank, dims, NULL);
    hid_t did = H5Dcreate2(fid, name, H5T_IEEE_F32LE, sid, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(did >= 0);
    if (values)
        assert_true(H5Dwrite(did, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0);
    H5Dclose(did);
    H5Sclose(sid);
}

static void make_bad_file(const fixture *f)
{
    char path[PATH_MAX];
    float v[8 * 8 * 2];
    fpath(f, "data/bad.h5", path);
    hid_t fid = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(fid >= 0);
    for (int i = 0; i < 8 * 8 * 2; i++)
        v[i] = (float)((i * 37) % 101) / 10.0f;
    const hsize_t good[3] = {8, 8, 2}, r1[1] = {16}, r4[4] = {2, 2, 2, 2}, ns[2] = {10, 2},
                  empty[2] = {0, 3};
    put_dataset(fid, "/good", 3, good, v);
    put_dataset(fid, "/rank1", 1, r1, v);
    put_dataset(fid, "/rank4", 4, r4, v);
    put_dataset(fid, "/notsquare", 2, ns, v);
    put_dataset(fid, "/empty", 2, empty, NULL);
    v[2 * (3 * 8 + 5) + 1] = NAN;
    put_dataset(fid, "/nan", 3, good, v);
    v[2 * (3 * 8 + 5) + 1] = 1.0f;
    v[2 * (6 * 8 + 2)] = -INFINITY;
    put_dataset(fid, "/inf", 3, good, v);
    H5Fclose(fid);
}

/* Every bad input fails its own job, on one line naming file, dataset and
 * config line; the good ones still complete; nothing temporary is left. */
static void test_cli_bad_inputs(void **state)
{
    const fixture *f = *state;
    static const char *const cases[][3] = {
        /* dataset, message, config line */
        {"data/bad.h5:/rank1", "rank 1", "[cfg.yaml:5]"},
        {"data/bad.h5:/rank4", "rank 4", "[cfg.yaml:5]"},
        {"data/bad.h5:/nan", "NaN at cell (y=3, x=5), channel 1", "[cfg.yaml:5]"},
        {"data/bad.h5:/inf", "-Inf at cell (y=6, x=2), channel 0", "[cfg.yaml:5]"},
        {"data/bad.h5:/empty", "empty dataset", "[cfg.yaml:5]"},
        {"data/bad.h5:/missing", "no dataset /missing", "[cfg.yaml:5]"},
        {"data/missing.h5:/", "no such file", "[cfg.yaml:3]"},
        {"data/corrupt.h5:/", "not an HDF5 file or corrupt", "[cfg.yaml:8]"},
        {"data/text.h5:/", "not an HDF5 file or corrupt", "[cfg.yaml:9]"},
    };
    char *text;

    assert_int_equal(tu_sh(f, "mkdir -p data && "
                           BIN " gen --size 32x32 --seed 4 data/colors.h5 && "
                           BIN " gen --size 32x32 --seed 5 --corrupt data/corrupt.h5 && "
                           "echo 'not hdf5 at all' > data/text.h5"), 0);
    make_bad_file(f);
    /* line numbers: the entry's "- files" line */
    write_text(f, "cfg.yaml",
               "inputs:\n"
               "  # a missing file next to a good one\n"
               "  - files: [data/missing.h5, data/colors.h5]\n"
               "  # every kind of bad dataset next to a good one\n"
               "  - files: data/bad.h5\n"
               "    datasets: [/good, /rank1, /rank4, /notsquare, /nan, /inf, /empty, /missing]\n"
               "  - files: \"nothing/*.h5\"\n"
               "  - files: data/corrupt.h5\n"
               "  - files: data/text.h5\n"
               "output:\n"
               "  dir: out\n");
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format text"), 1);
    text = tu_slurp(f, "err.txt", NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char head[128];
        snprintf(head, sizeof head, "cuplas: error: %s:", cases[i][0]);
        if (!has_line(text, head, cases[i][1], cases[i][2], NULL))
            fail_msg("no error line for %s (%s %s) in:\n%s", cases[i][0], cases[i][1],
                     cases[i][2], text);
    }
    assert_true(has_line(text, "cuplas: error: cfg.yaml:7: inputs[2].files: \"nothing/*.h5\" "
                         "matches no file", NULL));
    /* N = 10 is no square: padded onto an auto grid (3 x 4), no longer an error */
    assert_true(has_line(text, "summary: 3 done, 0 skipped, 10 failed", NULL));
    assert_true(exists(f, "out/bad.notsquare.h5"));
    free(text);
    verify_output(f, "data/colors.h5", "/grid", "out/colors.grid.h5");
    verify_output(f, "data/bad.h5", "/good", "out/bad.good.h5");
    assert_int_equal(temp_files(f, "out"), 0);
    assert_false(exists(f, "out/bad.nan.h5"));
    assert_false(exists(f, "out/bad.inf.h5"));

    /* check sees the same problems without running anything */
    assert_int_equal(tu_sh(f, BIN " check cfg.yaml"), 1);
    text = tu_slurp(f, "out.txt", NULL);
    assert_true(has_line(text, "error", "data/bad.h5:/rank1", "[cfg.yaml:5]", NULL));
    assert_true(has_line(text, "skip", "data/colors.h5:/grid", NULL));
    /* NaN and Inf are only seen when the data is read: check probes shapes */
    assert_true(has_line(text, "plan: 13 jobs: 2 to sort, 3 to skip, 8 with errors", NULL));
    free(text);

    /* channel options that do not fit the data fail the job, naming the line */
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format text --set output.dir=o2 "
                           "--set 'channels.use=[0, 5]'"), 1);
    text = tu_slurp(f, "err.txt", NULL);
    assert_true(has_line(text, "cuplas: error: data/colors.h5:/grid:", "channel 5",
                         "[cfg.yaml:3]", NULL));
    free(text);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format text --set output.dir=o3 "
                           "--set 'channels.weights=[1, 2]'"), 1);
    text = tu_slurp(f, "err.txt", NULL);
    assert_true(has_line(text, "cuplas: error: data/colors.h5:/grid:", "channels.weights",
                         "[cfg.yaml:3]", NULL));
    free(text);
}

/* Output folder problems and output.overwrite: error. */
static void test_cli_output_errors(void **state)
{
    const fixture *f = *state;
    char *text;

    make_collection(f);
    /* tests may run as root: a regular file, not chmod, makes it unwritable */
    write_text(f, "blocker", "a file where the output folder should be\n");
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format text --set output.dir=blocker"), 1);
    text = tu_slurp(f, "err.txt", NULL);
    /* one per job, and one for the run manifest that cannot go there either */
    assert_int_equal(count_str(text, "cuplas: error: "), 4);
    /* the folder's errors cite output.dir (here its --set), not the
       inputs entry (cfg.yaml:3) */
    assert_true(has_line(text, "cuplas: error: data/gauss.h5:/splats", "blocker",
                         "not a directory", "[--set output.dir=blocker]", NULL));
    assert_int_equal(count_str(text, "[cfg.yaml:3]"), 0);
    assert_true(has_line(text, "cuplas: error: blocker/cuplas-manifest.json", NULL));
    free(text);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format text --set output.dir=blocker/sub"),
                     1);
    text = tu_slurp(f, "err.txt", NULL);
    assert_true(has_line(text, "cuplas: error: data/colors.h5:/grid", "blocker",
                         "[--set output.dir=blocker/sub]", NULL));
    assert_int_equal(count_str(text, "[cfg.yaml:3]"), 0);
    free(text);
    /* output.dir written in the config: its file:line:column, in run's
       messages, its manifest and check's plan alike */
    write_text(f, "blocked.yaml", "inputs:\n  - files: \"data/*.h5\"\nbackend:\n  device: cpu\n"
                                  "output:\n  overwrite: skip\n  dir: blocker/sub\n");
    assert_int_equal(tu_sh(f, BIN " run blocked.yaml --log-format text"), 1);
    text = tu_slurp(f, "err.txt", NULL);
    assert_int_equal(count_str(text, "cannot create folder blocker/sub: Not a directory "
                                     "[blocked.yaml:7:8]"), 7);   /* + list + manifest */
    assert_int_equal(count_str(text, "[blocked.yaml:2]"), 0);
    free(text);
    /* and JSON's config_line is output.dir's line, as the text says */
    assert_int_equal(tu_sh(f, BIN " run blocked.yaml --log-format json"), 1);
    text = tu_slurp(f, "err.txt", NULL);
    assert_int_equal(count_str(text, "\"config_line\":7"), 3);
    assert_int_equal(count_str(text, "\"config_line\":2"), 0);
    free(text);
    assert_int_equal(tu_sh(f, BIN " check blocked.yaml"), 1);
    text = tu_slurp(f, "out.txt", NULL);
    assert_int_equal(count_str(text, "output folder blocker is not a directory "
                                     "[blocked.yaml:7:8]"), 3);
    free(text);
    assert_int_equal(tu_sh(f, "mv blocker cuplas-out && " BIN " check cfg.yaml "
                           "--set output.dir=cuplas-out/x"), 1);
    text = tu_slurp(f, "out.txt", NULL);
    assert_true(has_line(text, "error", "data/colors.h5:/grid", "output folder cuplas-out is "
                         "not a directory", "[--set output.dir=cuplas-out/x]", NULL));
    free(text);
    write_text(f, "nodir.yaml", "inputs:\n  - files: \"data/*.h5\"\n");
    assert_int_equal(tu_sh(f, BIN " check nodir.yaml"), 1);
    text = tu_slurp(f, "out.txt", NULL);
    assert_true(has_line(text, "error", "data/colors.h5:/grid", "output folder cuplas-out is "
                         "not a directory", "[nodir.yaml: output.dir's default]", NULL));
    free(text);
    assert_int_equal(tu_sh(f, "mv cuplas-out blocker"), 0);

    /* a file name that fits but whose temp name (20 bytes longer) does not:
       refused while planning, by check and run alike, before any sort */
    char name[300];
    snprintf(name, sizeof name, "{stem}.{dataset}.%0230d.h5", 0);
    assert_int_equal(tu_sh(f, BIN " check cfg.yaml --set 'output.name=\"%s\"'", name), 1);
    text = tu_slurp(f, "out.txt", NULL);
    assert_true(has_line(text, "error", "data/gauss.h5:/splats", "file name is",
                         "over the 255", "[cfg.yaml:3]", NULL));
    free(text);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format text --set 'output.name=\"%s\"'",
                           name), 1);
    text = tu_slurp(f, "err.txt", NULL);
    assert_true(has_line(text, "cuplas: error: data/colors.h5:/grid", "file name is",
                         "over the 255", "[cfg.yaml:3]", NULL));
    assert_int_equal(count_str(text, "cuplas: done"), 0);
    free(text);
    assert_int_equal(temp_files(f, "out"), 0);
    /* an output.dir no file can be in holds no earlier manifest either: each
       job fails (exit 1), the run is not stopped as if one were there (3) */
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format text --set output.dir=out/%0300d",
                           0), 1);
    text = tu_slurp(f, "err.txt", NULL);
    assert_true(has_line(text, "cuplas: error: data/normal.h5:/feat", "folder name",
                         "[cfg.yaml:3]", NULL));
    assert_int_equal(count_str(text, "outlive"), 0);
    free(text);

    assert_int_equal(tu_sh(f, BIN " run cfg.yaml"), 0);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format text "
                           "--set output.overwrite=error"), 1);
    text = tu_slurp(f, "err.txt", NULL);
    assert_int_equal(count_str(text, "output exists (overwrite: error)"), 6); /* + summary */
    assert_true(has_line(text, "cuplas: error: data/normal.h5:/feat", "out/normal.feat.h5",
                         "output exists (overwrite: error)", "[cfg.yaml:3]", NULL));
    free(text);
    verify_collection(f, "out");   /* untouched */
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --set output.overwrite=overwrite"), 0);
    verify_collection(f, "out");
}

/* check predicts run in a folder that cannot be written: a complete output
 * there is skipped (the runner never looks at the folder for it), a job
 * that would write fails. Root writes anywhere: as root, check runs as
 * nobody (setpriv); without setpriv that part is skipped. */
static void test_cli_check_unwritable(void **state)
{
    const fixture *f = *state;
    const char *as = "";
    char *text;

    make_collection(f);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml"), 0);
    if (geteuid() == 0) {
        if (tu_sh(f, "command -v setpriv") != 0)
            return;
        as = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
        assert_int_equal(tu_sh(f, "chmod 755 . && chmod a+r data/* out/*"), 0);
    } else {
        assert_int_equal(tu_sh(f, "chmod 555 out"), 0);
    }
    /* exit 1 all the same: run could not replace its manifest there
       (test_cli_check_manifest) */
    assert_int_equal(tu_sh(f, "%s" BIN " check cfg.yaml", as), 1);
    text = tu_slurp(f, "out.txt", NULL);
    assert_int_equal(count_str(text, "skip "), 3);
    assert_int_equal(count_str(text, "error "), 0);
    assert_true(has_line(text, "manifest: out/cuplas-manifest.json", "not writable", NULL));
    free(text);
    /* another seed: every job would write there */
    assert_int_equal(tu_sh(f, "%s" BIN " check cfg.yaml --set sort.seed=8", as), 1);
    text = tu_slurp(f, "out.txt", NULL);
    assert_true(has_line(text, "error", "data/colors.h5:/grid", "output folder out is not "
                         "writable", "[cfg.yaml:5:8]", NULL));
    free(text);
    assert_int_equal(tu_sh(f, "chmod 755 out"), 0);
}

/* check predicts run's exit 3 for a manifest run cannot write, with a
 * manifest: line and exit 1: a folder where the manifest should be stops
 * run before its first job; a complete output folder that cannot be
 * written lets every job skip, then fails the manifest at the end. */
static void test_cli_check_manifest(void **state)
{
    const fixture *f = *state;
    const char *as = "";
    char *text;

    make_collection(f);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml"), 0);
    assert_int_equal(tu_sh(f, "rm out/cuplas-manifest.json && mkdir out/cuplas-manifest.json"), 0);
    assert_int_equal(tu_sh(f, BIN " check cfg.yaml"), 1);
    text = tu_slurp(f, "out.txt", NULL);
    assert_int_equal(count_str(text, "skip "), 3);
    assert_true(has_line(text, "manifest: out/cuplas-manifest.json cannot be written: it is a "
                         "directory (`cuplas run` would exit 3 before its first job) "
                         "[cfg.yaml:5:8]", NULL));
    free(text);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --dry-run"), 1);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format text"), 3);   /* as predicted */
    text = tu_slurp(f, "err.txt", NULL);   /* citing output.dir, as check did */
    assert_true(has_line(text, "cuplas: error:", "out/cuplas-manifest.json", "nothing was run",
                         "[cfg.yaml:5:8]", NULL));
    free(text);
    /* another shard's manifest has another name */
    assert_int_equal(tu_sh(f, BIN " check cfg.yaml --shard 1/2"), 0);
    text = tu_slurp(f, "out.txt", NULL);
    assert_int_equal(count_str(text, "manifest:"), 0);
    free(text);
    assert_int_equal(tu_sh(f, "rmdir out/cuplas-manifest.json"), 0);
    assert_int_equal(tu_sh(f, BIN " check cfg.yaml"), 0);

    /* root writes anywhere: as root, check and run run as nobody */
    if (geteuid() == 0) {
        if (tu_sh(f, "command -v setpriv") != 0)
            return;
        as = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
        assert_int_equal(tu_sh(f, "chmod 755 . && chmod a+r data/* out/*"), 0);
    }
    assert_int_equal(tu_sh(f, "chmod 555 out"), 0);
    assert_int_equal(tu_sh(f, "%s" BIN " check cfg.yaml --set output.dir=out/", as), 1);
    text = tu_slurp(f, "out.txt", NULL);
    assert_int_equal(count_str(text, "skip "), 3);
    assert_true(has_line(text, "manifest: out/cuplas-manifest.json cannot be written: output "
                         "folder out/ is not writable (`cuplas run` would exit 3 after its "
                         "jobs) [--set output.dir=out/]", NULL));
    free(text);
    assert_int_equal(tu_sh(f, "%s" BIN " run cfg.yaml --set output.dir=out/ --log-format text",
                           as), 3);
    text = tu_slurp(f, "err.txt", NULL);
    assert_true(has_line(text, "cuplas: error:", "out/cuplas-manifest.json",
                         "[--set output.dir=out/]", NULL));
    free(text);
    assert_int_equal(tu_sh(f, "chmod 755 out"), 0);
}

/* Config errors: exit 2 with file:line:col, nothing run. */
static void test_cli_bad_config(void **state)
{
    const fixture *f = *state;
    char *text;

    make_collection(f);
    write_text(f, "bad.yaml",
               "inputs:\n"
               "  - files: data/*.h5\n"
               "output:\n"
               "  deflate: 12\n");
    assert_int_equal(tu_sh(f, BIN " run bad.yaml"), 2);
    text = tu_slurp(f, "err.txt", NULL);
    assert_true(has_line(text, "cuplas: error: bad.yaml:4:12:", "output.deflate", NULL));
    free(text);
    assert_int_equal(tu_sh(f, BIN " check bad.yaml"), 2);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --set sort.sed=3"), 2);
    assert_int_equal(tu_sh(f, BIN " run nonexistent.yaml"), 2);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format yaml"), 2);

    /* two inputs whose results would overwrite each other */
    assert_int_equal(tu_sh(f, "mkdir -p data2 && cp data/colors.h5 data2/colors.h5"), 0);
    write_text(f, "clash.yaml",
               "inputs:\n"
               "  - files: data/colors.h5\n"
               "  - files: data2/colors.h5\n"
               "output:\n"
               "  dir: out\n");
    assert_int_equal(tu_sh(f, BIN " run clash.yaml"), 2);
    text = tu_slurp(f, "err.txt", NULL);
    assert_true(has_line(text, "cuplas: error:", "data/colors.h5:/grid",
                         "data2/colors.h5:/grid", "out/colors.grid.h5", NULL));
    free(text);
    assert_false(exists(f, "out"));
    /* the same file twice is one job */
    write_text(f, "twice.yaml",
               "inputs:\n"
               "  - files: data/colors.h5\n"
               "  - files: [\"data/col*.h5\", ./data/colors.h5]\n"
               "output:\n"
               "  dir: out\n");
    assert_int_equal(tu_sh(f, BIN " run twice.yaml --log-format text"), 0);
    text = tu_slurp(f, "err.txt", NULL);
    assert_int_equal(count_str(text, "cuplas: done "), 1);
    free(text);
}

/* backend.device: gpu without a GPU is fatal (exit 3), before any job. */
static void test_cli_no_gpu(void **state)
{
    const fixture *f = *state;
    char *text;

#ifdef HAVE_CUDA
    if (cuplas_gpu_count() > 0)
        skip();
#endif
    make_collection(f);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format text --set backend.device=gpu"), 3);
    text = tu_slurp(f, "err.txt", NULL);
    assert_true(has_line(text, "cuplas: error:", "backend.device: gpu", NULL));
    free(text);
    assert_false(exists(f, "out"));
    assert_int_equal(tu_sh(f, BIN " sort data/colors.h5:/grid x.h5 --gpu 0"), 3);
    assert_false(exists(f, "x.h5"));
    /* auto falls back to the CPU */
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --set backend.device=auto"), 0);
    verify_collection(f, "out");
}

/* With a GPU: the GPU backend writes the same index as the CPU. */
static void test_cli_gpu_parity(void **state)
{
    const fixture *f = *state;
    static const char *const outs[][2] = {{"colors.grid.h5", "/grid"},
                                          {"normal.feat.h5", "/feat"},
                                          {"gauss.splats.h5", "/splats"}};
    char *text;

#ifdef HAVE_CUDA
    if (cuplas_gpu_count() == 0)
        skip();
#else
    skip();
#endif
    make_collection(f);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format json --set backend.device=gpu "
                           "--set output.dir=og"), 0);
    text = tu_slurp(f, "err.txt", NULL);
    assert_int_equal(count_str(text, "\"event\":\"job_done\""), 3);
    assert_true(has_line(text, "\"event\":\"job_done\"", "\"backend\":\"gpu\"", NULL));
    assert_int_equal(count_str(text, "\"backend\":\"cpu\""), 0);
    free(text);
    verify_collection(f, "og");
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --set output.dir=oc"), 0);
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        char a[PATH_MAX], b[PATH_MAX];
        int64_t na, nb;
        snprintf(a, sizeof a, "og/%s", outs[i][0]);
        snprintf(b, sizeof b, "oc/%s", outs[i][0]);
        int64_t *ia = index_of(f, a, outs[i][1], &na), *ib = index_of(f, b, outs[i][1], &nb);
        assert_int_equal(na, nb);
        assert_memory_equal(ia, ib, (size_t)na * sizeof *ia);
        free(ia);
        free(ib);
    }
    /* a GPU id that is not there is fatal, before any job */
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --set backend.device=gpu --set output.dir=ox "
                           "--set 'backend.gpus=[1023]'"), 3);
    assert_false(exists(f, "ox"));
}

/* SIGTERM: the running CPU sort stops at a level boundary, nothing is
 * written, the summary is printed and the exit code is 75. */
static void test_cli_interrupt(void **state)
{
    const fixture *f = *state;
    char *text;

    assert_int_equal(tu_sh(f, "mkdir -p data && " BIN " gen --size 512x512 data/big.h5"), 0);
    write_text(f, "big.yaml", "inputs:\n  - files: data/big.h5\noutput:\n  dir: out\n");
    assert_int_equal(tu_sh(f, BIN " run big.yaml --log-format text --set backend.device=cpu & "
                           "pid=$!; sleep 0.7; "
                           "kill -TERM $pid; wait $pid"), 75);
    text = tu_slurp(f, "err.txt", NULL);
    assert_true(has_line(text, "interrupted data/big.h5:/grid", NULL));
    assert_true(has_line(text, "summary: 0 done", "interrupted", NULL));
    free(text);
    assert_false(exists(f, "out/big.grid.h5"));
    assert_int_equal(temp_files(f, "out"), 0);
}

/* SIGTERM during `gen`: the write stops at the next 32 MiB slab, the temp
 * file is removed and the exit code is 75. Before, the default action
 * killed gen and left its hidden temp file (200 MB here) behind. The
 * signal comes once the temp file exists; a 1.2 GB grid takes far longer
 * to write than that. */
static void test_cli_gen_interrupt(void **state)
{
    const fixture *f = *state;
    char *text;

    assert_int_equal(tu_sh(f, "mkdir -p g && { " BIN " gen --size 20000x20000 g/o.h5 & pid=$!; i=0; "
                           "while [ $i -lt 200 ] && [ -z \"$(ls -A g)\" ]; do sleep 0.05; "
                           "i=$((i+1)); done; sleep 0.2; kill -TERM $pid; wait $pid; }"), 75);
    text = tu_slurp(f, "err.txt", NULL);
    assert_true(has_line(text, "g/o.h5: interrupted by a signal: no file written", NULL));
    free(text);
    assert_false(exists(f, "g/o.h5"));
    assert_int_equal(temp_files(f, "g"), 0);
}

/* A rerun killed with -9 cannot write its manifest's end: the marker it
 * wrote at its start must stand in the folder instead of the previous
 * run's manifest (which would read "all done" for outputs the rerun has
 * begun to replace), and report must say the run did not finish, exit 1.
 * The rerun is killed once its marker is there (5 s at most: without a
 * marker the kill comes then, and report still has to exit 1). */
static void test_cli_report_killed_rerun(void **state)
{
    const fixture *f = *state;
    char *text;

    assert_int_equal(tu_sh(f, "mkdir -p data && " BIN " gen --size 256x256 data/big.h5 && "
                           BIN " gen --size 16x16 --count 3 data/small.h5"), 0);
    write_text(f, "k.yaml", "inputs:\n  - files: data/*.h5\noutput:\n  dir: kx\n"
                            "backend:\n  device: cpu\n");
    assert_int_equal(tu_sh(f, BIN " run k.yaml"), 0);
    assert_int_equal(tu_sh(f, BIN " report kx"), 0);
    assert_int_equal(tu_sh(f, BIN " run k.yaml --set sort.seed=9 & pid=$!; i=0; "
                           "while [ $i -lt 100 ] && ! grep -q '\"finished\": false' "
                           "kx/cuplas-manifest.json 2>/dev/null; do sleep 0.05; i=$((i+1)); "
                           "done; kill -9 $pid; wait $pid"), 128 + 9);
    assert_int_equal(tu_sh(f, BIN " report kx --json r.json"), 1);
    text = tu_slurp(f, "out.txt", NULL);
    assert_true(has_line(text, "run did not finish", "killed, or still running", NULL));
    assert_true(has_line(text, "datasets: 0 done, 0 skipped, 0 failed, 0 cancelled, 4 pending",
                         NULL));
    free(text);
    text = tu_slurp(f, "r.json", NULL);
    assert_non_null(strstr(text, "\"unfinished_runs\": 1"));
    assert_non_null(strstr(text, "\"finished\": false, \"exit_code\": null"));
    free(text);
    /* the rerun that ends puts the account right */
    assert_int_equal(tu_sh(f, BIN " run k.yaml --set sort.seed=9 && " BIN " report kx"), 0);
}

/* The queue keeps going: a corrupt file and a grid over the memory limit
 * fail alone, in the summary and the exit code; everything else is done. */
static void test_cli_fault_isolation(void **state)
{
    const fixture *f = *state;
    char *text;
    assert_int_equal(tu_sh(f, "mkdir -p data && "
                           BIN " gen --size 32x32 --seed 11 --count 3 data/small.h5 && "
                           BIN " gen --size 40x24 --seed 12 data/wide.h5 && "
                           BIN " gen --size 256x256 --seed 13 data/huge.h5 && "
                           BIN " gen --size 32x32 --seed 14 --corrupt data/corrupt.h5"), 0);
    write_text(f, "cfg.yaml",
               "inputs:\n"
               "  - files: \"data/*.h5\"\n"
               "output:\n"
               "  dir: out\n"
               "backend:\n"
               "  device: cpu\n"
               "  threads: 2\n"
               "  memory_limit_mb: 2\n");
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format text"), 1);
    text = tu_slurp(f, "err.txt", NULL);
    assert_true(has_line(text, "cuplas: error: data/huge.h5:/grid:", "over backend.memory_limit_mb",
                         "[cfg.yaml:2]", NULL));
    assert_true(has_line(text, "cuplas: error: data/corrupt.h5:/:", "not an HDF5 file or corrupt",
                         NULL));
    assert_true(has_line(text, "summary: 4 done, 0 skipped, 2 failed", NULL));
    free(text);
    verify_output(f, "data/small.h5", "/grid_000", "out/small.grid_000.h5");
    verify_output(f, "data/small.h5", "/grid_002", "out/small.grid_002.h5");
    verify_output(f, "data/wide.h5", "/grid", "out/wide.grid.h5");
    assert_false(exists(f, "out/huge.grid.h5"));
    assert_int_equal(temp_files(f, "out"), 0);
}

static void test_cli_gen(void **state)
{
    const fixture *f = *state;
    static const char *const demo[] = {"demo/colors-256.h5", "demo/colors-512.h5",
                                       "demo/normal-256x256x16.h5", "demo/gaussians-128.h5"};

    assert_int_equal(tu_sh(f, BIN " gen --demo demo"), 0);
    for (size_t i = 0; i < sizeof demo / sizeof demo[0]; i++)
        assert_true(exists(f, demo[i]));
    assert_int_equal(tu_sh(f, BIN " gen --kind nope x.h5"), 2);
    assert_int_equal(tu_sh(f, BIN " gen --size 0x3 x.h5"), 2);
    /* the file's folder is created; a path through a regular file fails */
    assert_int_equal(tu_sh(f, BIN " gen --size 8x8 new/sub/x.h5"), 0);
    assert_true(exists(f, "new/sub/x.h5"));
    assert_int_equal(tu_sh(f, BIN " gen --size 8x8 new/sub/x.h5/y.h5"), 1);
    assert_false(exists(f, "x.h5"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cli_help, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_usage_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_run_and_resume, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_threads_deterministic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_streamed_write, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_sort, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_uncompressed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_output_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_bad_inputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_output_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_check_unwritable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_check_manifest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_bad_config, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_no_gpu, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_gpu_parity, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_interrupt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_gen_interrupt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_report_killed_rerun, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_fault_isolation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_gen, setup, teardown),
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
