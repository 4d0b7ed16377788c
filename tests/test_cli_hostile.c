/*
 * test_cli_hostile.c - end-to-end tests of the `cuplas` binary against
 * careless and hostile inputs (issue 18): each finding of that review is
 * a test here, run through the real ./cuplas in a fresh mkdtemp folder.
 *
 * Why a file of its own: test_cli.c covers the ordinary paths; these are
 * the inputs a hostile user would write (files that point elsewhere,
 * impossible sizes, extreme values, huge configs), and they share little
 * with it but the way a command is run (sh) and its output read (slurp).
 */
#define _GNU_SOURCE /* nftw, vasprintf */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <hdf5.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include "testutil.h"
#include "tmpdir.h"
#include "clitest.h"

#ifndef CUPLAS_BUILDDIR
#error "CUPLAS_BUILDDIR must name the build folder (Makefile.am sets it)"
#endif
#define BIN "\"$B\""


/* --------------------------------------------------------------- helpers */

static int setup(void **state)
{
    char pattern[1024];
    const char *tmp = getenv("TMPDIR");
    if (getenv("CUPLAS_BIN"))
        snprintf(pattern, sizeof pattern, "%s/test_cli_hostile.XXXXXX",
                 tmp && tmp[0] ? tmp : "/tmp");
    else
        snprintf(pattern, sizeof pattern, "%s/tests/test_cli_hostile.XXXXXX", CUPLAS_BUILDDIR);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return tu_fixture_new(state, pattern);
}

static int teardown(void **state)
{
    tu_fixture_free(state);
    return 0;
}


static char *fpath(const fixture *f, const char *name, char out[PATH_MAX])
{
    return tu_path(f->dir, name, out);
}


static void write_text(const fixture *f, const char *name, const char *text)
{
    char path[PATH_MAX];
    FILE *fp = fopen(fpath(f, name, path), "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

/* The file `name` of the fixture contains needle, or the test fails
 * showing it. */
static void expect_in(const fixture *f, const char *name, const char *needle)
{
    char *text = tu_slurp(f, name, NULL);
    if (!strstr(text, needle))
        fail_msg("%s lacks \"%s\":\n%s", name, needle, text);
    free(text);
}

static int exists(const fixture *f, const char *name)
{
    char path[PATH_MAX];
    struct stat st;
    return stat(fpath(f, name, path), &st) == 0;
}

/* ----------------------------------------------------------------- tests */

/* External links and external storage are refused unless allowed. */
static void test_external_inputs(void **state)
{
    const fixture *f = *state;
    char file[PATH_MAX], other[PATH_MAX];

    assert_int_equal(tu_sh(f, "mkdir -p data && " BIN " gen --size 16x16 --seed 3 data/other.h5"),
                     0);
    fpath(f, "data/other.h5", other);
    fpath(f, "data/link.h5", file);
    hid_t fid = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(fid >= 0);
    assert_true(H5Lcreate_external("other.h5", "/grid", fid, "/grid", H5P_DEFAULT,
                                   H5P_DEFAULT) >= 0);
    H5Fclose(fid);

    /* run from data/: HDF5 resolves the link's relative name against the
       cwd; the listing of a file's datasets never follows links, so the
       dataset is named */
    write_text(f, "data/cfg.yaml", "inputs:\n  - files: link.h5\n    datasets: /grid\n"
                                   "output:\n  dir: out\n");
    assert_int_equal(tu_sh(f, "cd data && " BIN " run cfg.yaml --log-format text"), 1);
    expect_in(f, "err.txt", "cuplas: error: link.h5:/grid: external link to other.h5:/grid: "
                            "refused (inputs[].allow_external: true, or --allow-external, follows "
                            "it) [cfg.yaml:2]");
    assert_false(exists(f, "data/out/link.grid.h5"));
    assert_int_equal(tu_sh(f, "cd data && " BIN " check cfg.yaml"), 1);
    expect_in(f, "out.txt", "external link to other.h5:/grid");

    write_text(f, "data/cfg.yaml", "inputs:\n  - files: link.h5\n    datasets: /grid\n"
                                   "    allow_external: true\noutput:\n  dir: out\n");
    assert_int_equal(tu_sh(f, "cd data && " BIN " run cfg.yaml --log-format text"), 0);
    assert_true(exists(f, "data/out/link.grid.h5"));

    assert_int_equal(tu_sh(f, "cd data && " BIN " sort link.h5:/grid s.h5"), 1);
    expect_in(f, "err.txt", "external link to other.h5:/grid");
    assert_int_equal(tu_sh(f, "cd data && " BIN " sort --allow-external link.h5:/grid s.h5"), 0);
    assert_true(exists(f, "data/s.h5"));
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A tiny file declaring a huge grid is refused at once, before anything
 * is allocated, naming the figure and the limit. */
static void test_impossible_sizes(void **state)
{
    const fixture *f = *state;
    const hsize_t dims[3] = {131072, 131072, 4}, chunk[3] = {512, 512, 4};
    char file[PATH_MAX];
    struct stat st;

    fpath(f, "huge.h5", file);
    hid_t fid = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), sid = H5Screate_simple(3, dims, NULL);
    assert_true(H5Pset_chunk(dcpl, 3, chunk) >= 0 && H5Pset_deflate(dcpl, 4) >= 0);
    hid_t did = H5Dcreate2(fid, "/grid", H5T_IEEE_F64LE, sid, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    assert_true(did >= 0);   /* no chunk written: every cell is the fill value */
    H5Dclose(did);
    H5Sclose(sid);
    H5Pclose(dcpl);
    H5Fclose(fid);
    assert_int_equal(stat(file, &st), 0);
    assert_true(st.st_size < 20000);

    double t = now_s();
    assert_int_equal(tu_sh(f, BIN " sort huge.h5:/grid out.h5 --log-format text"), 1);
    t = now_s() - t;
    expect_in(f, "err.txt", "cuplas: error: huge.h5:/grid: a 131072 x 131072 x 4 float64 grid "
                            "needs ");
    expect_in(f, "err.txt", "GiB of host memory, more than the ");
    assert_false(exists(f, "out.h5"));
    if (t > 1.0)
        fail_msg("refusing took %.2f s", t);
    write_text(f, "cfg.yaml", "inputs:\n  - files: huge.h5\noutput:\n  dir: out\n");
    assert_int_equal(tu_sh(f, BIN " check cfg.yaml"), 1);
    expect_in(f, "out.txt", "GiB of host memory");

    /* backend.memory_limit_mb bounds a CPU job the same way, at once */
    assert_int_equal(tu_sh(f, BIN " gen --size 512x512 --seed 1 small.h5"), 0);
    assert_int_equal(tu_sh(f, BIN " sort small.h5:/grid s.h5 --backend cpu --log-format text "
                           "--set backend.memory_limit_mb=1"), 1);
    expect_in(f, "err.txt", "small.h5:/grid: needs 16 MiB on the CPU, over "
                            "backend.memory_limit_mb = 1");
    assert_int_equal(tu_sh(f, BIN " sort small.h5:/grid s.h5 --backend cpu "
                           "--set backend.memory_limit_mb=64"), 0);
}

/* OpenMP threads do not spin by default: cuplas starts itself again with
 * OMP_WAIT_POLICY=passive unless the user chose a policy. */
static void test_passive_openmp(void **state)
{
    const fixture *f = *state;
    if (tu_sh(f, BIN " --version | grep -q 'OpenMP: yes'") != 0) {
        print_message("skipped: built without OpenMP\n");
        return;
    }
    assert_int_equal(tu_sh(f, "unset OMP_WAIT_POLICY CUPLAS_REEXEC; " BIN " --version"), 0);
    expect_in(f, "out.txt", "OMP_WAIT_POLICY=passive");
    assert_int_equal(tu_sh(f, "unset CUPLAS_REEXEC; OMP_WAIT_POLICY=active " BIN " -V"), 0);
    expect_in(f, "out.txt", "OMP_WAIT_POLICY=active");
    /* the marker of the second start: never a third */
    assert_int_equal(tu_sh(f, "unset OMP_WAIT_POLICY; CUPLAS_REEXEC=1 " BIN " -V"), 0);
    expect_in(f, "out.txt", "OMP_WAIT_POLICY=(unset)");
    /* a CPU sort starts again passive once it knows it sorts on the CPU
       (a GPU sort does not: cli.h), and its arguments survive the exec */
    assert_int_equal(tu_sh(f, "unset OMP_WAIT_POLICY CUPLAS_REEXEC; "
                           BIN " gen --size 16x16 --seed 2 'a b.h5' && "
                           BIN " sort 'a b.h5:/grid' 'o u t.h5' --backend cpu --threads 2 "
                           "--log-format json"), 0);
    assert_true(exists(f, "o u t.h5"));
    expect_in(f, "err.txt", "\"omp_wait_policy\":\"passive\"");
    assert_int_equal(tu_sh(f, "unset CUPLAS_REEXEC; OMP_WAIT_POLICY=active "
                           BIN " sort 'a b.h5:/grid' 'o u t.h5' --force --backend cpu "
                           "--log-format json"), 0);
    expect_in(f, "err.txt", "\"omp_wait_policy\":\"active\"");
    /* and so does a CPU `cuplas run`, once it has planned */
    assert_int_equal(tu_sh(f, "unset OMP_WAIT_POLICY CUPLAS_REEXEC; printf 'inputs:\\n"
                           "  - files: [\"a b.h5\"]\\noutput:\\n  dir: runout\\nbackend:\\n"
                           "  device: cpu\\n' > r.yaml && " BIN " run r.yaml --log-format json"), 0);
    expect_in(f, "err.txt", "\"omp_wait_policy\":\"passive\"");
}

/* A double attribute of out.h5's group `grp`. */
static double out_attr(const fixture *f, const char *file, const char *grp, const char *name)
{
    char path[PATH_MAX];
    double v = NAN;
    hid_t fid = H5Fopen(fpath(f, file, path), H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(fid >= 0);
    hid_t gid = H5Gopen2(fid, grp, H5P_DEFAULT);
    hid_t aid = H5Aopen(gid, name, H5P_DEFAULT);
    assert_true(aid >= 0);
    assert_true(H5Aread(aid, H5T_NATIVE_DOUBLE, &v) >= 0);
    H5Aclose(aid);
    H5Gclose(gid);
    H5Fclose(fid);
    return v;
}

/* Extreme finite values sort, with a finite AND; weights that overflow
 * double fail their job with a clear line. */
static void test_extreme_values(void **state)
{
    const fixture *f = *state;
    enum { S = 24, C = 3 };
    const hsize_t dims[3] = {S, S, C};
    static double v[S * S * C];
    static float v32[S * S * C];
    char file[PATH_MAX];
    const char *norms[] = {"none", "standardize", "minmax"};

    for (int i = 0; i < S * S * C; i++) {
        double r = (double)((i * 2654435761u) % 1000) / 999.0;
        v[i] = (2 * r - 1) * 1e308;
        v32[i] = (float)((2 * r - 1) * 3.4e38);
    }
    hid_t fid = H5Fcreate(fpath(f, "ext.h5", file), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t sid = H5Screate_simple(3, dims, NULL);
    hid_t did = H5Dcreate2(fid, "/f64", H5T_IEEE_F64LE, sid, H5P_DEFAULT, H5P_DEFAULT,
                           H5P_DEFAULT);
    assert_true(H5Dwrite(did, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Dclose(did);
    did = H5Dcreate2(fid, "/f32", H5T_IEEE_F32LE, sid, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(H5Dwrite(did, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v32) >= 0);
    H5Dclose(did);
    H5Sclose(sid);
    H5Fclose(fid);

    for (int ds = 0; ds < 2; ds++)
        for (int n = 0; n < 3; n++) {
            const char *name = ds ? "f32" : "f64";
            assert_int_equal(tu_sh(f, "rm -f o.h5 && " BIN " sort ext.h5:/%s o.h5 --backend cpu "
                                   "--normalize %s", name, norms[n]), 0);
            char grp[8];
            snprintf(grp, sizeof grp, "/%s", name);
            double before = out_attr(f, "o.h5", grp, "and_before");
            double after = out_attr(f, "o.h5", grp, "and_after");
            if (!isfinite(before) || !isfinite(after) || !(after < before))
                fail_msg("%s %s: AND %g -> %g", name, norms[n], before, after);
        }

    assert_int_equal(tu_sh(f, BIN " gen --size 16x16 --seed 1 c.h5"), 0);
    assert_int_equal(tu_sh(f, "rm -f o.h5 && " BIN " sort c.h5:/grid o.h5 --backend cpu "
                           "--weights 1,1e308,1 --log-format text"), 1);
    expect_in(f, "err.txt", "cuplas: error: c.h5:/grid: channel 1 times its weight 1e+308 "
                            "exceeds the range of double (none normalisation); lower "
                            "channels.weights");
    assert_false(exists(f, "o.h5"));
    /* weights of 1e308 on values below 1 still fit: sorted, finite AND */
    assert_int_equal(tu_sh(f, "rm -f o.h5 && " BIN " sort c.h5:/grid o.h5 --backend cpu "
                           "--normalize minmax --weights 1e308,1e308,1e308"), 0);
    assert_true(isfinite(out_attr(f, "o.h5", "/grid", "and_after")));
}

/* An output that names the input, the other output, or an existing file
 * that is not a regular one (publishing renames onto it) is a usage
 * error (exit 2) before anything is written, in sort, export-ply and run;
 * the files stay as they were. FIFOs stand for devices: the test must not
 * need root, and before the fix a device named here would be replaced. */
static void test_outputs_replace_inputs(void **state)
{
    const fixture *f = *state;

    assert_int_equal(tu_sh(f, BIN " gen --size 16x16 --seed 1 d.h5 && cp d.h5 keep.h5"), 0);
    write_text(f, "s.ply", "ply\nformat ascii 1.0\nelement vertex 5\nproperty float x\n"
                           "property float y\nend_header\n0 1\n2 3\n4 5\n6 7\n8 9\n");
    assert_int_equal(tu_sh(f, "cp s.ply keep.ply && mkfifo p.ply && mkdir dd"), 0);

    assert_int_equal(tu_sh(f, BIN " sort d.h5:/grid d.h5 --force"), 2);
    expect_in(f, "err.txt", "the output d.h5 would replace the input d.h5");
    assert_int_equal(tu_sh(f, BIN " sort s.ply o.h5 --ply ./s.ply"), 2);
    expect_in(f, "err.txt", "the sorted PLY ./s.ply would replace the input s.ply");
    assert_int_equal(tu_sh(f, BIN " sort s.ply o.h5 --ply o.h5"), 2);
    expect_in(f, "err.txt", "the sorted PLY o.h5 would replace the output o.h5");
    assert_int_equal(tu_sh(f, BIN " sort s.ply o.h5 --ply p.ply"), 2);
    expect_in(f, "err.txt", "the sorted PLY p.ply exists and is not a regular file");
    assert_int_equal(tu_sh(f, BIN " sort d.h5:/grid dd --force"), 2);
    expect_in(f, "err.txt", "the output dd exists and is not a regular file");
    assert_false(exists(f, "o.h5"));

    assert_int_equal(tu_sh(f, BIN " sort s.ply o.h5 && cp o.h5 keep_o.h5"), 0);
    assert_int_equal(tu_sh(f, BIN " export-ply o.h5 s.ply o.h5"), 2);
    expect_in(f, "err.txt", "the SORTED.ply o.h5 would replace the result o.h5");
    assert_int_equal(tu_sh(f, BIN " export-ply o.h5 s.ply s.ply"), 2);
    expect_in(f, "err.txt", "the SORTED.ply s.ply would replace the input s.ply");
    assert_int_equal(tu_sh(f, BIN " export-ply o.h5 s.ply p.ply"), 2);
    expect_in(f, "err.txt", "the SORTED.ply p.ply exists and is not a regular file");

    /* run: output.name can map a job's outputs onto its input */
    write_text(f, "a.yaml", "inputs:\n  - files: \"t/vertex/*.ply\"\noutput:\n  dir: t\n"
                            "  name: \"{dataset}/{stem}.h5\"\n  ply: true\n");
    assert_int_equal(tu_sh(f, "mkdir -p t/vertex && cp s.ply t/vertex/a.ply && "
                              BIN " run a.yaml --log-format text"), 2);
    expect_in(f, "err.txt", "cuplas: error: a.yaml:2: the sorted PLY t/vertex/a.ply would "
                            "replace the input t/vertex/a.ply");
    assert_int_equal(tu_sh(f, BIN " check a.yaml"), 2);
    write_text(f, "b.yaml", "inputs:\n  - files: g/grid.h5\noutput:\n  dir: .\n"
                            "  name: \"{parent}/{dataset}.h5\"\n");
    assert_int_equal(tu_sh(f, "mkdir g && cp d.h5 g/grid.h5 && " BIN " run b.yaml --force "
                              "--log-format text"), 2);
    expect_in(f, "err.txt", "the output ./g/grid.h5 would replace the input g/grid.h5");
    /* another job's input: a result, and output.preview's PNG, are outputs */
    write_text(f, "c.yaml", "inputs:\n  - files: \"h/*.h5\"\noutput:\n  dir: h\n");
    assert_int_equal(tu_sh(f, "mkdir h && cp d.h5 h/a.h5 && cp d.h5 h/a.grid.h5 && "
                              BIN " run c.yaml --log-format text"), 2);
    expect_in(f, "err.txt", "cuplas: error: c.yaml:2: the output h/a.grid.h5 would replace "
                            "the input h/a.grid.h5");
    assert_int_equal(tu_sh(f, BIN " check c.yaml"), 2);
    write_text(f, "p.yaml", "inputs:\n  - files: h/a.h5\n  - files: h/a.grid.png\n"
                            "output:\n  dir: h\n  preview: true\n");
    assert_int_equal(tu_sh(f, "cp d.h5 h/a.grid.png && " BIN " run p.yaml --log-format text"),
                     2);
    expect_in(f, "err.txt", "the preview h/a.grid.png would replace the input h/a.grid.png");
    assert_int_equal(tu_sh(f, "cmp h/a.grid.h5 keep.h5 && cmp h/a.grid.png keep.h5"), 0);

    /* logging.file is appended to: not the config, nor an input, nor an output */
    write_text(f, "l.yaml", "inputs:\n  - files: g/grid.h5\noutput:\n  dir: lo\n");
    assert_int_equal(tu_sh(f, "cp l.yaml keep.yaml && " BIN " run l.yaml --set "
                              "logging.file=l.yaml"), 2);
    expect_in(f, "err.txt", "the log file (logging.file) l.yaml would append to the config "
                            "file l.yaml");
    assert_int_equal(tu_sh(f, BIN " run l.yaml --set logging.file=g/grid.h5"), 2);
    expect_in(f, "err.txt", "l.yaml:2: the log file (logging.file) g/grid.h5 would append to "
                            "the input g/grid.h5");
    assert_int_equal(tu_sh(f, "cmp l.yaml keep.yaml && ! test -e lo"), 0);

    /* publishing itself, in every command: a name that became a FIFO */
    assert_int_equal(tu_sh(f, "mkfifo p.h5 && " BIN " gen --size 4x4 p.h5"), 1);
    expect_in(f, "err.txt", "p.h5: exists and is not a regular file: not replaced");

    /* nothing was touched */
    assert_int_equal(tu_sh(f, "cmp d.h5 keep.h5 && cmp g/grid.h5 keep.h5 && cmp s.ply keep.ply "
                              "&& cmp t/vertex/a.ply keep.ply && cmp o.h5 keep_o.h5 && "
                              "test -p p.ply && test -p p.h5 && test -d dd && ! test -e t/vertex/a.h5"), 0);
}

/* The smaller findings: the summary's level, a 20,000-entry config, two
 * runs on one output folder. */
static void test_small_findings(void **state)
{
    const fixture *f = *state;
    char path[PATH_MAX];

    assert_int_equal(tu_sh(f, BIN " gen --size 16x16 --seed 1 d.h5"), 0);
    write_text(f, "cfg.yaml", "inputs:\n  - files: d.h5\noutput:\n  dir: out\n");
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format json"), 0);
    expect_in(f, "err.txt", "\"level\":\"info\",\"event\":\"summary\"");
    expect_in(f, "err.txt", "\"level\":\"info\",\"event\":\"device_summary\"");
    write_text(f, "bad.yaml", "inputs:\n  - files: [d.h5, nope.h5]\noutput:\n  dir: o2\n");
    assert_int_equal(tu_sh(f, BIN " run bad.yaml --log-format json"), 1);
    expect_in(f, "err.txt", "\"level\":\"error\",\"event\":\"summary\"");
    /* a dataset pattern without the leading '/' matches like a literal name */
    write_text(f, "glob.yaml", "inputs:\n  - files: m.h5\n    datasets: [\"grid_00*\"]\n"
                               "output:\n  dir: o3\n");
    assert_int_equal(tu_sh(f, BIN " gen --size 8x8 --count 3 m.h5 && " BIN " check glob.yaml"),
                     0);
    expect_in(f, "out.txt", "plan: 3 jobs: 3 to sort, 0 to skip");

    /* 20,000 entries naming one file: each probe is done once */
    FILE *fp = fopen(fpath(f, "big.yaml", path), "w");
    assert_non_null(fp);
    fputs("inputs:\n", fp);
    for (int i = 0; i < 20000; i++)
        fputs("  - files: d.h5\n    datasets: /grid\n", fp);
    fputs("output:\n  dir: out\n", fp);
    fclose(fp);
    double t = now_s();
    assert_int_equal(tu_sh(f, BIN " check big.yaml"), 0);
    t = now_s() - t;
    expect_in(f, "out.txt", "plan: 1 job: 0 to sort, 1 to skip");
    if (t > 2.0)
        fail_msg("checking 20,000 entries took %.2f s", t);

    /* a second run on a folder in use exits 2 and writes nothing */
    int fd = open(fpath(f, "out/.cuplas-manifest.json.lock", path), O_RDWR | O_CREAT, 0644);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    assert_true(fd >= 0);
    assert_int_equal(fcntl(fd, F_SETLK, &fl), 0);
    assert_int_equal(tu_sh(f, "rm out/cuplas-manifest.json && " BIN " run cfg.yaml --force "
                           "--log-format text"), 2);
    expect_in(f, "err.txt", "cuplas: error: output folder out is in use by another cuplas run "
                            "(pid ");
    assert_false(exists(f, "out/cuplas-manifest.json"));
    close(fd);   /* released */
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --force --log-format text"), 0);
    assert_true(exists(f, "out/cuplas-manifest.json"));
    /* a run of another split (here: shards of 2 hold byte 3) exits 2; its own split runs */
    fd = open(fpath(f, "out/.cuplas-split.lock", path), O_RDWR | O_CREAT, 0644);
    struct flock split = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 3, .l_len = 1};
    assert_true(fd >= 0);
    assert_int_equal(fcntl(fd, F_SETLK, &split), 0);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --force --log-format text"), 2);
    expect_in(f, "err.txt", "cuplas: error: output folder out is in use by a run of another "
                            "split (--shard I/2) (pid ");
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --shard 1/3 --log-format text"), 2);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --shard 1/2 --log-format text"), 0);
    close(fd);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --shard 1/3 --log-format text"), 0);
    /* shards have a lock each: another shard's run is not blocked */
    fd = open(fpath(f, "out/.cuplas-manifest.0-of-2.json.lock", path), O_RDWR | O_CREAT, 0644);
    assert_int_equal(fcntl(fd, F_SETLK, &fl), 0);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --shard 1/2"), 0);
    close(fd);
}

/* A dangling symbolic link among the inputs (named, or matched by a glob:
 * glob lists the link) fails its job naming the link's target, as one
 * line and with the exit of any unreadable input (1), for HDF5, PLY and
 * .splat inputs alike; it read as "no such file", which `ls` contradicts.
 * A chain of links names every hop (it named the first only). */
static void test_dangling_links(void **state)
{
    const fixture *f = *state;
    char *text;

    assert_int_equal(tu_sh(f, "mkdir -p d && " BIN " gen --size 8x8 d/ok.h5 && "
                           "ln -s gone.h5 d/h.h5 && ln -s ../nowhere/s.ply d/s.ply && "
                           "ln -s gone.splat d/t.splat"), 0);
    write_text(f, "cfg.yaml", "inputs:\n  - files: \"d/*.h5\"\n  - files: d/s.ply\n"
                              "  - files: d/t.splat\noutput:\n  dir: out\n"
                              "backend:\n  device: cpu\n");
    assert_int_equal(tu_sh(f, BIN " check cfg.yaml"), 1);
    text = tu_slurp(f, "out.txt", NULL);
    if (!strstr(text, "error  d/h.h5:/: cannot open: a dangling symbolic link to gone.h5 "
                      "(no such file there) [cfg.yaml:2]") ||
        !strstr(text, "d/s.ply:/vertex: cannot open: a dangling symbolic link to "
                      "../nowhere/s.ply (no such file there) [cfg.yaml:3]") ||
        !strstr(text, "d/t.splat:/vertex: cannot open: a dangling symbolic link to gone.splat "
                      "(no such file there) [cfg.yaml:4]") ||
        !strstr(text, "plan: 4 jobs: 1 to sort, 0 to skip, 3 with errors"))
        fail_msg("check:\n%s", text);
    free(text);
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format text"), 1);
    text = tu_slurp(f, "err.txt", NULL);
    if (!strstr(text, "cuplas: error: d/h.h5:/: cannot open: a dangling symbolic link to "
                      "gone.h5 (no such file there) [cfg.yaml:2]\n") ||
        !strstr(text, "cannot open: a dangling symbolic link to ../nowhere/s.ply") ||
        !strstr(text, "cannot open: a dangling symbolic link to gone.splat"))
        fail_msg("run:\n%s", text);
    free(text);
    assert_true(exists(f, "out/ok.grid.h5"));
    /* the one-off commands read inputs the same way */
    assert_int_equal(tu_sh(f, BIN " sort d/h.h5 x.h5"), 1);
    expect_in(f, "err.txt", "cuplas: error: d/h.h5:/: cannot open: a dangling symbolic link "
                            "to gone.h5");
    assert_int_equal(tu_sh(f, BIN " sort d/t.splat x.h5 --log-format text"), 1);
    expect_in(f, "err.txt", "a dangling symbolic link to gone.splat");
    assert_int_equal(tu_sh(f, BIN " eval d/h.h5"), 1);
    expect_in(f, "err.txt", "cuplas: error: d/h.h5: cannot open: a dangling symbolic link to "
                            "gone.h5");
    /* a chain of links names every hop: the missing file is behind the last */
    assert_int_equal(tu_sh(f, "mkdir -p d/in && ln -s in/mid.splat d/c.splat && "
                           "ln -s ../gone2.splat d/in/mid.splat"), 0);
    assert_int_equal(tu_sh(f, BIN " sort d/c.splat x.h5 --log-format text"), 1);
    expect_in(f, "err.txt", "d/c.splat:/vertex: cannot open: a dangling symbolic link to "
                            "in/mid.splat -> ../gone2.splat (no such file there)");
    /* a plain missing file still says so */
    assert_int_equal(tu_sh(f, BIN " sort d/none.h5 x.h5"), 1);
    expect_in(f, "err.txt", "cannot open: no such file");
}


/* A stop asked for while a CPU run plans is kept. Such a run restarts
 * itself (OMP_WAIT_POLICY=passive) by exec, which leaves a signal sent
 * meanwhile blocked and pending; the new image must take it. Started here
 * in that very state (SIGTERM blocked and pending), `run` exits 75 with an
 * interrupted manifest and no result; it used to lose the request and
 * sort everything (exit 0; found by a run/resume audit). */
static void test_stop_pending_at_start(void **state)
{
    const fixture *f = *state;
    int st = 0;

    assert_int_equal(tu_sh(f, "mkdir -p d && " BIN " gen --size 16x16 d/a.h5"), 0);
    write_text(f, "cfg.yaml", "inputs:\n  - files: d/a.h5\noutput:\n  dir: out\n"
                              "backend:\n  device: cpu\n");
    const char *bin = tu_cuplas_bin();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        sigset_t term;
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        int fd = open("/dev/null", O_WRONLY);
        if (chdir(f->dir) != 0 || fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 ||
            sigprocmask(SIG_BLOCK, &term, NULL) != 0 || raise(SIGTERM) != 0)
            _exit(126);
        unsetenv("OMP_WAIT_POLICY");
        execl(bin, "cuplas", "run", "cfg.yaml", (char *)NULL);
        _exit(127);
    }
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 75);
    expect_in(f, "out/cuplas-manifest.json", "\"interrupted\": true");
    assert_false(exists(f, "out/a.grid.h5"));
}

/* A .splat that is no whole number of records fails as the input it is:
 * the line names the file and its /vertex, not the file again as if it
 * were the output (`sort` and `run` alike). */
static void test_short_splat(void **state)
{
    const fixture *f = *state;
    assert_int_equal(tu_sh(f, "head -c 1000 /dev/zero > b.splat"), 0);
    assert_int_equal(tu_sh(f, BIN " sort b.splat b.h5 --log-format text"), 1);
    expect_in(f, "err.txt", "cuplas: error: b.splat:/vertex: not a .splat file: its size, 1000 "
                            "bytes, is not a positive multiple of 32\n");
    write_text(f, "cfg.yaml", "inputs:\n  - files: b.splat\noutput:\n  dir: out\n"
                              "backend:\n  device: cpu\n");
    assert_int_equal(tu_sh(f, BIN " run cfg.yaml --log-format text"), 1);
    expect_in(f, "err.txt", "cuplas: error: b.splat:/vertex: not a .splat file: its size, 1000 "
                            "bytes, is not a positive multiple of 32 [cfg.yaml:2]\n");
    assert_false(exists(f, "b.h5"));
}
/* Messages about a path near PATH_MAX (19 nested folders of 200 bytes)
 * keep their end, where the reason is: the error record's 512 bytes keep
 * the start and the end of a longer text around "[...]". */
static void test_long_paths(void **state)
{
    const fixture *f = *state;
    char deep[4096] = "deep", *text;
    size_t n = strlen(deep);

    for (int i = 0; i < 19; i++)
        n += (size_t)snprintf(deep + n, sizeof deep - n, "/%0200d", i);
    assert_int_equal(tu_sh(f, "mkdir -p %s && echo x > %s/blocker && ln -s nothere.h5 %s/dl.h5 "
                           "&& " BIN " gen --size 8x8 a.h5", deep, deep, deep), 0);
    char *cfg = NULL;
    assert_true(asprintf(&cfg, "inputs:\n  - files: a.h5\noutput:\n  dir: %s/blocker/sub\n"
                               "backend:\n  device: cpu\n", deep) > 0);
    write_text(f, "deep.yaml", cfg);
    free(cfg);

    assert_int_equal(tu_sh(f, BIN " run deep.yaml --log-format text"), 1);
    text = tu_slurp(f, "err.txt", NULL);
    if (!strstr(text, "cuplas: error: a.h5:/grid: cannot create folder deep/00") ||
        !strstr(text, "[...]") || !strstr(text, "/blocker/sub: Not a directory [deep.yaml:4:8]\n"))
        fail_msg("run:\n%s", text);
    free(text);
    assert_int_equal(tu_sh(f, BIN " check deep.yaml"), 1);
    text = tu_slurp(f, "out.txt", NULL);
    if (!strstr(text, "error  a.h5:/grid: output folder deep/00") ||
        !strstr(text, "/blocker is not a directory [deep.yaml:4:8]\n"))
        fail_msg("check:\n%s", text);
    free(text);
    /* the input's side: its path (the where) and the reason both keep their ends */
    assert_int_equal(tu_sh(f, BIN " sort %s/dl.h5 o.h5", deep), 1);
    text = tu_slurp(f, "err.txt", NULL);
    if (!strstr(text, "cuplas: error: deep/00") ||
        !strstr(text, "/dl.h5:/: cannot open: a dangling symbolic link to nothere.h5 (no such "
                      "file there)\n"))
        fail_msg("sort:\n%s", text);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_external_inputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_impossible_sizes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_passive_openmp, setup, teardown),
        cmocka_unit_test_setup_teardown(test_extreme_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_small_findings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dangling_links, setup, teardown),
        cmocka_unit_test_setup_teardown(test_short_splat, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_pending_at_start, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outputs_replace_inputs, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
