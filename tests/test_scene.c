/*
 * test_scene.c - 3DGS scenes end to end through the cuplas binary
 * (io/scene.c, pipeline/fit_plan.c, the pad/crop path of stages.c):
 * PLY formats agree, pad keeps every vertex once, --ply rows follow the
 * index, export-ply refuses another scene's result, a rerun writes a
 * missing sorted PLY, crop keeps the highest crop_by, any N, names, and
 * every malformed input fails alone with a one-line error and no output.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <hdf5.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tmpdir.h"
#include "clitest.h"
#include "h5util.h"
#include "shared_data.h"



static int setup(void **state)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return tu_fixture_new(state, CUPLAS_BUILDDIR "/tests/test_scene.XXXXXX");
}

static int teardown(void **state)
{
    tu_fixture_free(state);
    return 0;
}



static int exists(const fixture *f, const char *name)
{
    char path[PATH_MAX];
    struct stat st;
    return stat(tu_path(f->dir, name, path), &st) == 0;
}

static void put_file(const fixture *f, const char *name, const void *data, size_t n)
{
    char path[PATH_MAX];
    FILE *fp = fopen(tu_path(f->dir, name, path), "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, n, fp), n);
    fclose(fp);
}

/* Vertex i of the test scene: x y z opacity (float) and red (uchar). */
static void vertex(int i, float v[4], unsigned char *red)
{
    v[0] = (float)sin(i * 1.3);
    v[1] = (float)cos(i * 0.7);
    v[2] = (float)(i % 5) * 0.25f;
    v[3] = (float)((i * 37) % 101) / 10.0f - 5.0f;   /* distinct opacities */
    *red = (unsigned char)(i * 7);
}

/* The scene of n vertices as "le", "be" or "ascii" PLY. */
static void write_scene(const fixture *f, const char *name, int n, const char *fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    fprintf(m, "ply\nformat %s 1.0\ncomment test scene\nelement vertex %d\n"
               "property float x\nproperty float y\nproperty float z\n"
               "property float opacity\nproperty uchar red\nend_header\n",
            !strcmp(fmt, "le") ? "binary_little_endian" : !strcmp(fmt, "be") ?
            "binary_big_endian" : "ascii", n);
    for (int i = 0; i < n; i++) {
        float v[4];
        unsigned char r;
        vertex(i, v, &r);
        if (!strcmp(fmt, "ascii")) {
            fprintf(m, "%.9g %.9g %.9g %.9g %u\n", v[0], v[1], v[2], v[3], r);
            continue;
        }
        for (int k = 0; k < 4; k++) {
            unsigned char b[4];
            memcpy(b, &v[k], 4);
            if (!strcmp(fmt, "be"))
                for (int t = 0; t < 2; t++) {
                    unsigned char c = b[t];
                    b[t] = b[3 - t];
                    b[3 - t] = c;
                }
            fwrite(b, 1, 4, m);
        }
        fwrite(&r, 1, 1, m);
    }
    fclose(m);
    put_file(f, name, buf, len);
    free(buf);
}

/* group/name of an output as int64 (index, dropped) or its size. */
static int64_t *read_i64(const fixture *f, const char *file, const char *ds, int64_t *n)
{
    char path[PATH_MAX];
    hid_t fid = H5Fopen(tu_path(f->dir, file, path), H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(fid >= 0);
    hid_t did = H5Dopen2(fid, ds, H5P_DEFAULT);
    assert_true(did >= 0);
    hid_t sid = H5Dget_space(did);
    *n = (int64_t)H5Sget_simple_extent_npoints(sid);
    int64_t *v = malloc((size_t)*n * sizeof *v + 1);
    assert_non_null(v);
    assert_true(H5Dread(did, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Sclose(sid);
    H5Dclose(did);
    H5Fclose(fid);
    return v;
}

/* Every row 0..n-1 exactly once among the cells, the rest -1; returns
 * the number of empty cells. */
static int64_t check_pad(const int64_t *index, int64_t cells, int64_t n)
{
    char *seen = calloc((size_t)n, 1);
    int64_t empty = 0;
    assert_non_null(seen);
    for (int64_t c = 0; c < cells; c++) {
        if (index[c] < 0) {
            assert_int_equal(index[c], -1);
            empty++;
            continue;
        }
        assert_true(index[c] < n);
        assert_false(seen[index[c]]);
        seen[index[c]] = 1;
    }
    for (int64_t i = 0; i < n; i++)
        assert_true(seen[i]);
    free(seen);
    return empty;
}

static void test_scene_formats_same_index(void **state)
{
    fixture *f = *state;
    int64_t n[3], *idx[3];
    const char *fmt[3] = {"le", "be", "ascii"};
    for (int k = 0; k < 3; k++) {
        char in[32], out[32];
        snprintf(in, sizeof in, "s_%s.ply", fmt[k]);
        snprintf(out, sizeof out, "s_%s.h5", fmt[k]);
        write_scene(f, in, 37, fmt[k]);   /* a prime: 5 x 8 with 3 empty */
        assert_int_equal(tu_sh(f, "\"$B\" sort %s %s --channels x,y,z", in, out), 0);
        idx[k] = read_i64(f, out, "/vertex/index", &n[k]);
    }
    assert_int_equal(n[0], 40);
    assert_int_equal(check_pad(idx[0], n[0], 37), 3);
    for (int k = 1; k < 3; k++) {
        assert_int_equal(n[k], n[0]);
        assert_memory_equal(idx[k], idx[0], (size_t)n[0] * sizeof *idx[0]);
    }
    for (int k = 0; k < 3; k++)
        free(idx[k]);
    /* the names went with it */
    size_t len;
    assert_int_equal(tu_sh(f, "h5dump -a /vertex/channel_names s_le.h5"), 0);
    char *dump = tu_slurp(f, "out.txt", &len);
    assert_non_null(strstr(dump, "\"opacity\""));
    assert_non_null(strstr(dump, "\"red\""));
    free(dump);
}

static void test_scene_ply_rows_follow_index(void **state)
{
    fixture *f = *state;
    size_t in_len, out_len;
    int64_t cells;
    write_scene(f, "s.ply", 37, "le");
    assert_int_equal(tu_sh(f, "\"$B\" sort s.ply s.h5 --ply sorted.ply --channels 0-2"), 0);
    int64_t *index = read_i64(f, "s.h5", "/vertex/index", &cells);
    char *in = tu_slurp(f, "s.ply", &in_len), *out = tu_slurp(f, "sorted.ply", &out_len);
    char *ib = strstr(in, "end_header\n") + 11, *ob = strstr(out, "end_header\n") + 11;
    const size_t row = 17;
    /* the header is the input's but for the count */
    assert_non_null(strstr(out, "comment test scene\nelement vertex 37\n"));
    assert_int_equal(out_len - (size_t)(ob - out), 37 * row);
    size_t k = 0;
    for (int64_t c = 0; c < cells; c++)
        if (index[c] >= 0)
            assert_memory_equal(ob + row * k++, ib + row * (size_t)index[c], row);
    assert_int_equal(k, 37);
    /* export-ply from the result does the same */
    assert_int_equal(tu_sh(f, "\"$B\" export-ply s.h5 s.ply again.ply && cmp again.ply sorted.ply"),
                     0);
    free(index);
    free(in);
    free(out);
}

/* The text of err.txt is one line holding every needle. */
static void expect_error_line(const fixture *f, const char *const *needles, int n)
{
    size_t len;
    char *err = tu_slurp(f, "err.txt", &len);
    for (int k = 0; k < n; k++)
        if (!strstr(err, needles[k]))
            fail_msg("err.txt lacks \"%s\":\n%s", needles[k], err);
    assert_true(len > 0 && strchr(err, '\n') == err + len - 1);
    free(err);
}

/* A result's index fits any scene of enough vertices: export-ply holds IN
 * against the result's input_shape and channel_names, and refuses another
 * scene (exit 1, one line naming both files and counts, no SORTED.ply). */
static void test_scene_export_other_scene(void **state)
{
    fixture *f = *state;
    size_t len;
    write_scene(f, "s.ply", 37, "le");
    write_scene(f, "big.ply", 100, "le");
    assert_int_equal(tu_sh(f, "\"$B\" sort s.ply s.h5 --channels 0-2"), 0);
    assert_int_equal(tu_sh(f, "\"$B\" export-ply s.h5 big.ply x.ply"), 1);
    expect_error_line(f, (const char *const[]){"big.ply", "s.h5", "100", "37"}, 4);
    assert_false(exists(f, "x.ply"));
    /* the same count, another property: refused by name */
    write_scene(f, "t.ply", 37, "ascii");
    char *text = tu_slurp(f, "t.ply", &len), *at = strstr(text, "opacity");
    assert_non_null(at);
    memcpy(at, "opaque!", 7);
    put_file(f, "t.ply", text, len);
    free(text);
    assert_int_equal(tu_sh(f, "\"$B\" export-ply s.h5 t.ply x.ply"), 1);
    expect_error_line(f, (const char *const[]){"t.ply", "s.h5", "opaque!", "opacity"}, 4);
    assert_false(exists(f, "x.ply"));
    /* its own scene, in another format, still exports */
    write_scene(f, "s_ascii.ply", 37, "ascii");
    assert_int_equal(tu_sh(f, "\"$B\" export-ply s.h5 s_ascii.ply x.ply"), 0);
}

/* A result damaged by hand is not exported: an index that places a row
 * twice, holds -5, or loses a row of a full grid (a duplicated and a lost
 * vertex, exit 0, before), and an input_shape or channel_names that is
 * missing or does not fit (IN went unchecked, before): exit 1, one line
 * naming file, group and what is wrong, no SORTED.ply. A crop's rows left
 * out (its dropped dataset) still export. */
static void test_scene_export_damaged_result(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX];
    static const struct {
        tu_damage d;
        const char *want;
    } cases[] = {
        {TU_DMG_DUP, "index is not a permutation: row "},
        {TU_DMG_NEG5, "index is not a permutation: cell 0 holds -5"},
        {TU_DMG_HOLE, "index is not a permutation: it places 35 of the 36 input rows of "
                      "input_shape, and no dropped dataset says a crop left the others out"},
        {TU_DMG_NO_SHAPE, "no input_shape attribute: not a result of cuplas sort or run"},
        {TU_DMG_NEG_SHAPE, "input_shape is not 2 or 3 positive integers"},
        {TU_DMG_STR_SHAPE, "input_shape is not 2 or 3 positive integers"},
        {TU_DMG_3_NAMES, "channel_names has 3 names for the 5 channels of sorted"},
        {TU_DMG_INT_NAMES, "channel_names is not strings that name the 5 channels of sorted"},
    };
    write_scene(f, "s.ply", 36, "le");   /* a full 6 x 6 grid */
    assert_int_equal(tu_sh(f, "\"$B\" sort s.ply s.h5 --channels x,y,z --backend cpu"), 0);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        assert_int_equal(tu_sh(f, "cp s.h5 d.h5"), 0);
        tu_h5_damage(tu_path(f->dir, "d.h5", path), "/vertex", cases[k].d);
        assert_int_equal(tu_sh(f, "\"$B\" export-ply d.h5 s.ply x.ply"), 1);
        expect_error_line(f, (const char *const[]){"d.h5:/vertex: ", cases[k].want}, 2);
        assert_false(exists(f, "x.ply"));
    }
    /* the intact result, and a crop of 25 of 37 rows, export */
    assert_int_equal(tu_sh(f, "\"$B\" export-ply s.h5 s.ply x.ply"), 0);
    write_scene(f, "t.ply", 37, "le");
    assert_int_equal(tu_sh(f, "\"$B\" sort t.ply c.h5 --grid 5x5 --fit crop --backend cpu && "
                              "\"$B\" export-ply c.h5 t.ply y.ply && grep -ac 'element vertex 25' "
                              "y.ply"), 0);
}

/* output.ply on a rerun (overwrite: skip): a complete result whose sorted
 * PLY was deleted, or never asked for, is made again with it; a result
 * with its PLY is skipped. */
static void test_scene_resume_writes_missing_ply(void **state)
{
    fixture *f = *state;
    size_t a_len, b_len;
    write_scene(f, "s.ply", 37, "le");
    const char *cfg = "inputs:\n  - files: s.ply\noutput:\n  dir: out\n  ply: true\n";
    put_file(f, "cfg.yaml", cfg, strlen(cfg));
    assert_int_equal(tu_sh(f, "\"$B\" run cfg.yaml --log-format text"), 0);
    char *first = tu_slurp(f, "out/s.vertex.ply", &a_len);
    assert_int_equal(tu_sh(f, "rm out/s.vertex.ply && \"$B\" check cfg.yaml"), 0);
    char *out = tu_slurp(f, "out.txt", NULL);
    assert_non_null(strstr(out, "sort   s.ply:/vertex"));
    assert_non_null(strstr(out, "sorted PLY is missing"));
    free(out);
    assert_int_equal(tu_sh(f, "\"$B\" run cfg.yaml --log-format text"), 0);
    char *again = tu_slurp(f, "out/s.vertex.ply", &b_len);
    assert_int_equal(a_len, b_len);
    assert_memory_equal(first, again, a_len);
    assert_int_equal(tu_sh(f, "\"$B\" run cfg.yaml --log-format text 2>&1 | "
                              "grep -q '0 done, 1 skipped'"), 0);
    /* output.ply turned on after a run without it */
    assert_int_equal(tu_sh(f, "\"$B\" run cfg.yaml --set output.dir=o2 --set output.ply=false"),
                     0);
    assert_false(exists(f, "o2/s.vertex.ply"));
    assert_int_equal(tu_sh(f, "\"$B\" run cfg.yaml --set output.dir=o2"), 0);
    assert_true(exists(f, "o2/s.vertex.ply"));
    free(first);
    free(again);
}

/* The PLY beside a complete result must be the one written with it (the
 * result's sorted_ply: size and mtime): one an earlier run left, or one
 * touched since, makes the job run again; the rerun's PLY then follows
 * the result's index. */
static void test_scene_resume_stale_ply(void **state)
{
    fixture *f = *state;
    size_t a_len, b_len;
    write_scene(f, "s.ply", 37, "le");
    const char *cfg = "inputs:\n  - files: s.ply\noutput:\n  dir: out\n  ply: true\n"
                      "backend: {device: cpu}\n";
    put_file(f, "cfg.yaml", cfg, strlen(cfg));
    /* seed 1 with its PLY; seed 2 without: seed 1's PLY stays beside seed 2's result */
    assert_int_equal(tu_sh(f, "\"$B\" run cfg.yaml --set sort.seed=1"), 0);
    assert_int_equal(tu_sh(f, "cp out/s.vertex.ply seed1.ply"), 0);
    assert_int_equal(tu_sh(f, "\"$B\" run cfg.yaml --set sort.seed=2 --set output.ply=false"),
                     0);
    assert_int_equal(tu_sh(f, "cmp -s out/s.vertex.ply seed1.ply"), 0);
    assert_int_equal(tu_sh(f, "\"$B\" check cfg.yaml --set sort.seed=2"), 0);
    char *out = tu_slurp(f, "out.txt", NULL);
    assert_non_null(strstr(out, "its sorted PLY is missing or from another run"));
    free(out);
    assert_int_equal(tu_sh(f, "\"$B\" run cfg.yaml --set sort.seed=2 2>&1 | "
                              "grep -q '1 done, 0 skipped'"), 0);
    /* the PLY is now seed 2's: export-ply of the result writes the same bytes */
    assert_int_equal(tu_sh(f, "\"$B\" export-ply out/s.vertex.h5 s.ply x.ply"), 0);
    char *a = tu_slurp(f, "out/s.vertex.ply", &a_len), *b = tu_slurp(f, "x.ply", &b_len);
    assert_int_equal(a_len, b_len);
    assert_memory_equal(a, b, a_len);
    assert_int_equal(tu_sh(f, "cmp -s out/s.vertex.ply seed1.ply"), 1);
    free(a);
    free(b);
    assert_int_equal(tu_sh(f, "\"$B\" run cfg.yaml --set sort.seed=2 2>&1 | "
                              "grep -q '0 done, 1 skipped'"), 0);
    /* a PLY written since (here: its mtime changed) is not the result's */
    assert_int_equal(tu_sh(f, "touch -d '2001-01-01' out/s.vertex.ply && "
                              "\"$B\" run cfg.yaml --set sort.seed=2 2>&1 | "
                              "grep -q '1 done, 0 skipped'"), 0);
}

static void test_scene_crop_keeps_highest(void **state)
{
    fixture *f = *state;
    int64_t cells, nd;
    write_scene(f, "s.ply", 37, "le");
    assert_int_equal(tu_sh(f, "\"$B\" sort s.ply c.h5 --grid 5x5 --fit crop --crop-by opacity"), 0);
    int64_t *index = read_i64(f, "c.h5", "/vertex/index", &cells);
    int64_t *dropped = read_i64(f, "c.h5", "/vertex/dropped", &nd);
    assert_int_equal(cells, 25);
    assert_int_equal(nd, 12);
    float lowest_kept = INFINITY, highest_dropped = -INFINITY;
    char seen[37] = {0};
    for (int64_t c = 0; c < cells; c++) {
        float v[4];
        unsigned char r;
        assert_true(index[c] >= 0 && index[c] < 37 && !seen[index[c]]);
        seen[index[c]] = 1;
        vertex((int)index[c], v, &r);
        lowest_kept = v[3] < lowest_kept ? v[3] : lowest_kept;
    }
    for (int64_t k = 0; k < nd; k++) {
        float v[4];
        unsigned char r;
        assert_false(seen[dropped[k]]);
        if (k)
            assert_true(dropped[k] > dropped[k - 1]);   /* ascending */
        vertex((int)dropped[k], v, &r);
        highest_dropped = v[3] > highest_dropped ? v[3] : highest_dropped;
    }
    assert_true(lowest_kept > highest_dropped);
    free(index);
    free(dropped);
}

static void test_scene_any_n(void **state)
{
    fixture *f = *state;
    const int ns[4] = {1, 2, 97, 99};
    for (int k = 0; k < 4; k++) {
        int64_t cells;
        write_scene(f, "n.ply", ns[k], "le");
        assert_int_equal(tu_sh(f, "\"$B\" sort n.ply n.h5 --force %s", ns[k] == 99 ? "--grid 10x10"
                                                                               : ""), 0);
        int64_t *index = read_i64(f, "n.h5", "/vertex/index", &cells);
        int64_t empty = check_pad(index, cells, ns[k]);
        assert_int_equal(cells - empty, ns[k]);
        if (ns[k] == 99)
            assert_int_equal(empty, 1);
        free(index);
    }
    char plant[PATH_MAX];
    if (!tu_shared_path("scenes/plant.splat", plant, sizeof plant)) {
        skip();
        return;
    }
    /* the plant scene: planned 308 x 369 by pad (checked without sorting
       113,648 splats here), and a real crop to 32 x 32 */
    assert_int_equal(tu_sh(f, "\"$B\" sort '%s' p.h5 --grid 32x32 --fit crop", plant), 0);
    int64_t cells, nd;
    int64_t *index = read_i64(f, "p.h5", "/vertex/index", &cells);
    int64_t *dropped = read_i64(f, "p.h5", "/vertex/dropped", &nd);
    assert_int_equal(cells, 1024);
    assert_int_equal(nd, 113648 - 1024);
    free(index);
    free(dropped);
}

/* name: an (N, 3) float32 dataset /emb of sin(step * i) values with a
 * variable-length string attribute `columns` in character set cset:
 * ncols strings (a list), or with ncols 0 the one string cols[0] (a
 * scalar). h5py writes a str or a list of str as UTF-8 (attrs['columns']
 * = 'a,b,c'), numpy bytes as fixed-length ASCII. */
static void put_emb(const fixture *f, const char *name, hsize_t N, double step,
                    const char *const *cols, hsize_t ncols, H5T_cset_t cset)
{
    char path[PATH_MAX];
    float *v = malloc(N * 3 * sizeof *v);
    assert_non_null(v);
    for (hsize_t i = 0; i < N * 3; i++)
        v[i] = (float)sin((double)i * step);
    hid_t fid = H5Fcreate(tu_path(f->dir, name, path), H5F_ACC_TRUNC, H5P_DEFAULT,
                          H5P_DEFAULT);
    hsize_t dims[2] = {N, 3};
    hid_t sid = H5Screate_simple(2, dims, NULL);
    hid_t did = H5Dcreate2(fid, "emb", H5T_IEEE_F32LE, sid, H5P_DEFAULT, H5P_DEFAULT,
                           H5P_DEFAULT);
    assert_true(H5Dwrite(did, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, H5T_VARIABLE);
    H5Tset_cset(st, cset);
    hid_t asid = ncols ? H5Screate_simple(1, &ncols, NULL) : H5Screate(H5S_SCALAR);
    hid_t aid = H5Acreate2(did, "columns", st, asid, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(H5Awrite(aid, st, cols) >= 0);
    H5Aclose(aid);
    H5Sclose(asid);
    H5Tclose(st);
    H5Dclose(did);
    H5Sclose(sid);
    H5Fclose(fid);
    free(v);
}

static void test_scene_hdf5_columns_and_pad(void **state)
{
    fixture *f = *state;
    const char *names[3] = {"a", "b", "c"};
    put_emb(f, "e.h5", 99, 0.37, names, 3, H5T_CSET_ASCII);
    /* 99 is no square: padded onto an auto grid by default, as with --grid auto */
    assert_int_equal(tu_sh(f, "\"$B\" sort e.h5:/emb o0.h5"), 0);
    assert_int_equal(tu_sh(f, "\"$B\" sort e.h5:/emb o.h5 --grid auto --channels a,c"), 0);
    int64_t cells0;
    int64_t *index0 = read_i64(f, "o0.h5", "/emb/index", &cells0);
    assert_int_equal(cells0, 99);
    free(index0);
    int64_t cells;
    int64_t *index = read_i64(f, "o.h5", "/emb/index", &cells);
    assert_int_equal(cells, 99);   /* 9 x 11: auto finds an exact fit */
    free(index);
    assert_int_equal(tu_sh(f, "\"$B\" sort e.h5:/emb o.h5 --force --grid 10x10 --channels b"), 0);
    index = read_i64(f, "o.h5", "/emb/index", &cells);
    assert_int_equal(check_pad(index, cells, 99), 1);
    free(index);
}

/* A columns attribute written as one string "a, b,c" (h5py's
 * attrs["columns"] = "a,b,c") names the channels as a list of three does;
 * one of the wrong count is refused with its count. Before, any single
 * string failed with "has 1 names for C = 3 channels". */
static void test_scene_hdf5_columns_one_string(void **state)
{
    fixture *f = *state;
    const char *three[] = {"a, b,c"}, *two[] = {"a,b"};
    put_emb(f, "s0.h5", 64, 0.61, three, 0, H5T_CSET_ASCII);
    put_emb(f, "s1.h5", 64, 0.61, two, 0, H5T_CSET_ASCII);
    assert_int_equal(tu_sh(f, "\"$B\" sort s0.h5:/emb o.h5 --channels a,c"), 0);
    assert_int_equal(tu_sh(f, "\"$B\" sort s0.h5:/emb o2.h5 --channels b"), 0);
    assert_int_equal(tu_sh(f, "\"$B\" sort s1.h5:/emb o3.h5"), 1);
    size_t len;
    char *err = tu_slurp(f, "err.txt", &len);
    assert_non_null(strstr(err, "the columns attribute is one string of 2 comma-separated names "
                                "for C = 3 channels"));
    free(err);
}

/* The columns attribute as h5py writes a str or a list of str (UTF-8)
 * names the channels as ASCII does (before: "cannot read the columns
 * attribute", exit 1). A repeated or empty name fails the input, as a
 * repeated PLY property does (before: accepted, and --channels x took one
 * of the two x). */
static void test_scene_hdf5_columns_utf8_and_repeats(void **state)
{
    fixture *f = *state;
    static const struct {
        const char *cols[3];
        hsize_t n;
        H5T_cset_t cset;
        const char *want;   /* NULL: sorts */
    } cases[] = {
        {{"a, b,c"}, 0, H5T_CSET_UTF8, NULL},
        {{"a", "b", "c"}, 3, H5T_CSET_UTF8, NULL},
        {{"x,x,y"}, 0, H5T_CSET_ASCII,
         "u.h5:/emb: the columns attribute repeats the name 'x' (channels 0 and 1)"},
        {{"x", "y", "y"}, 3, H5T_CSET_UTF8,
         "u.h5:/emb: the columns attribute repeats the name 'y' (channels 1 and 2)"},
        {{",,"}, 0, H5T_CSET_ASCII,
         "u.h5:/emb: the columns attribute has an empty name '' for channel 0"},
        {{"a", "", "c"}, 3, H5T_CSET_UTF8,
         "u.h5:/emb: the columns attribute has an empty name '' for channel 1"},
    };
    char out[PATH_MAX];
    size_t len;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        put_emb(f, "u.h5", 64, 0.61, cases[k].cols, cases[k].n, cases[k].cset);
        int rc = tu_sh(f, "\"$B\" sort u.h5:/emb o.h5 --channels %s --log-format text",
                       cases[k].want ? "x" : "a,c");
        char *err = tu_slurp(f, "err.txt", &len);
        if (cases[k].want ? !strstr(err, cases[k].want) : rc != 0)
            fail_msg("case %zu: rc %d: %s", k, rc, err);
        assert_int_equal(rc, cases[k].want ? 1 : 0);
        free(err);
        assert_int_equal(exists(f, "o.h5"), !cases[k].want);
        unlink(tu_path(f->dir, "o.h5", out));
    }
}

static void test_scene_name_errors(void **state)
{
    fixture *f = *state;
    size_t len;
    write_scene(f, "s.ply", 37, "le");
    const char *cfg = "inputs:\n  - files: s.ply\noutput:\n  dir: out\nchannels:\n"
                      "  use: [x, nope]\n";
    put_file(f, "cfg.yaml", cfg, strlen(cfg));
    assert_int_equal(tu_sh(f, "\"$B\" run cfg.yaml --log-format text"), 2);
    char *err = tu_slurp(f, "err.txt", &len);
    assert_non_null(strstr(err, "cfg.yaml:6:"));
    assert_non_null(strstr(err, "nope"));
    assert_non_null(strstr(err, "s.ply"));
    free(err);
    assert_false(exists(f, "out/s.vertex.h5"));
    /* crop_by naming a missing property */
    assert_int_equal(tu_sh(f, "\"$B\" sort s.ply c.h5 --fit crop --grid 5x5 --crop-by nothing"), 2);
    err = tu_slurp(f, "err.txt", &len);
    assert_non_null(strstr(err, "grid.crop_by"));
    free(err);
    assert_false(exists(f, "c.h5"));
    /* in a config: the error names the line of the key */
    cfg = "inputs:\n  - files: s.ply\noutput:\n  dir: out\ngrid:\n  fit: crop\n"
          "  crop_by: nothing\n";
    put_file(f, "crop.yaml", cfg, strlen(cfg));
    assert_int_equal(tu_sh(f, "\"$B\" check crop.yaml"), 2);
    err = tu_slurp(f, "err.txt", &len);
    assert_non_null(strstr(err, "crop.yaml:7:12: grid.crop_by: unknown channel 'nothing'"));
    free(err);
}

static void test_scene_malformed(void **state)
{
    fixture *f = *state;
    static const struct {
        const char *name, *text, *want;
    } bad[] = {
        {"magic.ply", "plx\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\n1\n",
         "magic.ply"},
        {"format.ply", "ply\nformat binary_middle_endian 1.0\nelement vertex 1\n"
                       "property float x\nend_header\n", "format.ply:2"},
        {"noend.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n", "noend.ply"},
        {"trunc.ply", "ply\nformat binary_little_endian 1.0\nelement vertex 4\n"
                      "property float x\nend_header\nabcdefgh", "trunc.ply:3: truncated body"},
        {"count.ply", "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nend_header\n"
                      "1\n2\n3\n", "count.ply:3: count mismatch"},
        {"few.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nend_header\n"
                    "1\n2\n", "few.ply:3: count mismatch"},
        {"type.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty flaot x\nend_header\n1\n",
         "type.ply:4"},
        {"list.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty list uchar int i\n"
                     "end_header\n1 1\n", "list.ply:4"},
        {"odd.splat", "0123456789012345678901234567890123", "odd.splat"},
    };
    size_t len;
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        put_file(f, bad[k].name, bad[k].text, strlen(bad[k].text));
        assert_int_equal(tu_sh(f, "\"$B\" sort %s bad.h5 --log-format text", bad[k].name), 1);
        char *err = tu_slurp(f, "err.txt", &len);
        if (!strstr(err, bad[k].want))
            fprintf(stderr, "%s: %s\n", bad[k].name, err);
        assert_non_null(strstr(err, bad[k].want));
        assert_int_equal(strstr(err, "error") == NULL, 0);
        free(err);
        assert_false(exists(f, "bad.h5"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_scene_formats_same_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_ply_rows_follow_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_export_other_scene, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_export_damaged_result, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_resume_writes_missing_ply, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_resume_stale_ply, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_crop_keeps_highest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_any_n, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_hdf5_columns_and_pad, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_hdf5_columns_one_string, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_hdf5_columns_utf8_and_repeats, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_name_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_malformed, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
