/*
 * test_cmd_eval.c - `cuplas eval`, `cuplas preview`, run's eval step and
 * `report --html`, through the real binary (cli/cmd_eval.c,
 * cli/report_html.c, the eval stage of pipeline/stages.c).
 *
 * The binary's JSON is parsed and checked against the files it wrote:
 * bytes[ORDER][CODEC] is the sum of the DIR/ORDER/NAME.CODEC sizes, and each
 * sorted image decodes to the plain scheme's codes of the result's own
 * sorted grid (read here through io/h5_result, not through the binary).
 */
#define _GNU_SOURCE /* nftw, asprintf, vasprintf */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "eval/codec.h"
#include "eval/evaluate.h"
#include "eval/schemes.h"
#include "io/dtype.h"
#include "io/h5_result.h"
#include "tmpdir.h"
#include "clitest.h"
#include "h5util.h"
#include "util/json.h"

static int setup(void **state)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return tu_fixture_new(state, CUPLAS_BUILDDIR "/tests/test_cmd_eval.XXXXXX");
}

static int teardown(void **state)
{
    tu_fixture_free(state);
    return 0;
}




/* Sum of the sizes of dir's files NAME.ext. */
static int64_t dir_bytes(const char *dir, const char *ext, int *count)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int64_t sum = 0;
    *count = 0;
    assert_non_null(d);
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name), m = strlen(ext);
        if (n > m + 1 && de->d_name[n - m - 1] == '.' && !strcmp(de->d_name + n - m, ext)) {
            char path[PATH_MAX + 256];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            assert_int_equal(stat(path, &st), 0);
            sum += st.st_size;
            (*count)++;
        }
    }
    closedir(d);
    return sum;
}

static void test_eval_json_and_images(void **state)
{
    fixture *f = *state;
    char *js;
    cuplas_json *doc = NULL;
    cuplas_error e;

    cuplas_error_clear(&e);
    /* 7 channels: plain makes RGB, RGB, gray: every image kind */
    assert_int_equal(tu_sh(f, "\"$B\" gen --kind normal --channels 7 --size 16x12 in.h5 && "
                           "\"$B\" sort in.h5 out.h5 --backend cpu"), 0);
    assert_int_equal(tu_sh(f, "\"$B\" eval out.h5:/grid --json --images imgs "
                           "--codecs png,webp,jxl"), 0);
    assert_non_null(js = tu_slurp(f, "out.txt", NULL));
    assert_int_equal(cuplas_json_parse(js, strlen(js), &doc, &e), 0);
    assert_true(cuplas_json_get_num(doc, "and", NAN) > 0);
    assert_true(cuplas_json_get_num(doc, "vad", NAN) > 0);
    assert_true(cuplas_json_get_num(doc, "dpq16", NAN) > 0);   /* 192 items: exact */
    assert_int_equal((int)cuplas_json_get_num(doc, "N", 0), 192);
    assert_int_equal((int)cuplas_json_get_num(doc, "images", 0), 3);
    const cuplas_json *bytes = cuplas_json_get(doc, "bytes");
    assert_non_null(bytes);
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++)
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++) {
            const char *order = cuplas_order_name((cuplas_order_kind)k);
            const char *codec = cuplas_codec_name((cuplas_codec)c);
            char dir[PATH_MAX + 64];
            int count;
            snprintf(dir, sizeof dir, "%s/imgs/%s", f->dir, order);
            int64_t sum = dir_bytes(dir, codec, &count);
            assert_int_equal(count, 3);
            assert_int_equal((int64_t)cuplas_json_get_num(cuplas_json_get(bytes, order), codec, -1),
                             sum);
            /* image_bytes: each file's own size, in the scheme's image order */
            const cuplas_json *per = cuplas_json_get(
                cuplas_json_get(cuplas_json_get(doc, "image_bytes"), order), codec);
            assert_non_null(per);
            assert_int_equal(per->type, CUPLAS_JSON_OBJECT);
            assert_int_equal(per->n, 3);
            for (int i = 0; i < per->n; i++) {
                char file[PATH_MAX + 160];
                struct stat st;
                snprintf(file, sizeof file, "%s/%s.%s", dir, per->keys[i], codec);
                assert_int_equal(stat(file, &st), 0);
                assert_int_equal((int64_t)per->items[i].number, (int64_t)st.st_size);
            }
        }
    /* the images are named in the scheme's order: plain_000 .. plain_002 */
    const cuplas_json *ps = cuplas_json_get(cuplas_json_get(cuplas_json_get(doc, "image_bytes"),
                                                            "sorted"), "png");
    assert_string_equal(ps->keys[0], "plain_000");
    assert_string_equal(ps->keys[2], "plain_002");
    /* the sorted images are the plain codes of the result's sorted grid */
    char path[PATH_MAX + 128];
    cuplas_h5_result r;
    tu_path(f->dir, "out.h5", path);
    assert_int_equal(cuplas_h5_result_read(path, NULL, &r, &e), 0);
    assert_string_equal(r.group, "/grid");
    int64_t cells = r.sorted.H * r.sorted.W;
    int C = (int)r.sorted.C, use[7];
    double *grid = malloc((size_t)cells * C * sizeof *grid);
    for (int c = 0; c < C; c++)
        use[c] = c;
    assert_int_equal(cuplas_h5grid_to_double(&r.sorted, use, C, grid, NULL, &e), 0);
    cuplas_eval_images imgs = {0};
    assert_int_equal(cuplas_scheme_encode(CUPLAS_SCHEME_PLAIN, grid, r.sorted.H, r.sorted.W, C,
                                          NULL, NULL, NULL, &imgs, &e), 0);
    for (int i = 0; i < imgs.n; i++)
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++) {
            size_t n = 0;
            char *data;
            cuplas_eval_image dec;
            snprintf(path, sizeof path, "%s/imgs/sorted/%s.%s", f->dir, imgs.img[i].name,
                     cuplas_codec_name((cuplas_codec)c));
            assert_non_null(data = tu_slurp_path(path, &n));
            assert_int_equal(cuplas_image_decode((cuplas_codec)c, (uint8_t *)data, n,
                                                 imgs.img[i].channels, &dec, &e), 0);
            assert_memory_equal(dec.px, imgs.img[i].px,
                                (size_t)(cells * imgs.img[i].channels));
            free(dec.px);
            free(data);
        }
    cuplas_eval_images_free(&imgs);
    free(grid);
    cuplas_h5_result_free(&r);
    cuplas_json_free(doc);
    free(js);

    /* the text table, and the errors */
    assert_int_equal(tu_sh(f, "\"$B\" eval out.h5"), 0);
    assert_non_null(js = tu_slurp(f, "out.txt", NULL));
    assert_non_null(strstr(js, "morton"));
    assert_non_null(strstr(js, "plain_001"));   /* the per-image table */
    free(js);
    /* --webp-method: a lower effort is accepted and recorded, 0..6 only */
    assert_int_equal(tu_sh(f, "\"$B\" eval out.h5 --codecs webp --webp-method 2 --json"), 0);
    assert_non_null(js = tu_slurp(f, "out.txt", NULL));
    assert_non_null(strstr(js, "\"webp_method\": 2"));
    free(js);
    assert_int_equal(tu_sh(f, "\"$B\" eval out.h5 --webp-method 7"), 2);
    assert_int_equal(tu_sh(f, "\"$B\" eval out.h5 --images imgs"), 2);   /* not empty */
    assert_int_equal(tu_sh(f, "\"$B\" eval out.h5 --scheme sog"), 2);    /* no names */
    assert_int_equal(tu_sh(f, "\"$B\" eval out.h5 --codecs gif"), 2);
    assert_int_equal(tu_sh(f, "\"$B\" eval out.h5 --codecs png,png"), 2);
    assert_non_null(js = tu_slurp(f, "err.txt", NULL));
    assert_non_null(strstr(js, "cuplas eval: --codecs: 'png' is listed twice"));
    free(js);
    assert_int_equal(tu_sh(f, "\"$B\" eval in.h5"), 1);                  /* not a result */
    assert_non_null(js = tu_slurp(f, "err.txt", NULL));
    assert_non_null(strstr(js, "in.h5: not a cuplas result"));
    free(js);
    assert_int_equal(tu_sh(f, "\"$B\" eval nothere.h5 --images imgs2"), 1);
    struct stat st;
    tu_path(f->dir, "imgs2", path);
    assert_int_not_equal(stat(path, &st), 0);   /* nothing partial */
}

static void test_preview_cli(void **state)
{
    fixture *f = *state;
    size_t n = 0;
    char *data;
    cuplas_eval_image dec;
    cuplas_error e;

    cuplas_error_clear(&e);
    assert_int_equal(tu_sh(f, "\"$B\" gen --size 40x30 in.h5 && \"$B\" sort in.h5 out.h5 "
                           "--backend cpu && \"$B\" preview out.h5 p.png --max-side 100"), 0);
    assert_non_null(data = tu_slurp(f, "p.png", &n));
    assert_int_equal(cuplas_image_decode(CUPLAS_CODEC_PNG, (uint8_t *)data, n, 0, &dec, &e), 0);
    /* 30 columns a panel: factor 1 fits 2*30 + 8 <= 100, 40 rows <= 100 */
    assert_int_equal(dec.W, 68);
    assert_int_equal(dec.H, 40);
    free(dec.px);
    free(data);
    assert_int_equal(tu_sh(f, "\"$B\" preview out.h5 q.png --channels 5"), 2);
    assert_int_equal(tu_sh(f, "\"$B\" preview in.h5 q.png"), 1);
    /* a scene given where a result goes: said so, with what to do instead;
       any other file that is no HDF5 keeps the plain reason */
    assert_int_equal(tu_sh(f, "printf 'ply\\nformat ascii 1.0\\nelement vertex 1\\n"
                           "property float x\\nend_header\\n1\\n' > s.ply && "
                           "printf 'no hdf5\\n' > s.h5"), 0);
    const char *const scene_cmds[] = { "eval s.ply", "preview s.ply q.png" };
    for (int k = 0; k < 2; k++) {
        assert_int_equal(tu_sh(f, "\"$B\" %s", scene_cmds[k]), 1);
        assert_non_null(data = tu_slurp(f, "err.txt", NULL));
        assert_non_null(strstr(data, "cuplas: error: s.ply: a 3DGS scene, not a cuplas result"));
        assert_non_null(strstr(data, "cuplas sort SCENE OUT.h5 first"));
        free(data);
    }
    assert_int_equal(tu_sh(f, "\"$B\" eval s.h5"), 1);
    assert_non_null(data = tu_slurp(f, "err.txt", NULL));
    assert_non_null(strstr(data, "s.h5: not an HDF5 file or corrupt"));
    free(data);
    assert_int_equal(tu_sh(f, "ls -a | grep -c tmp || true"), 0);
    assert_non_null(data = tu_slurp(f, "out.txt", NULL));
    assert_int_equal(atoi(data), 0);   /* no temporary file left */
    free(data);
}

/* run with eval.enabled + output.preview: attribute, manifest, report. */
static void test_run_eval_report(void **state)
{
    fixture *f = *state;
    FILE *fp;
    char path[PATH_MAX], *text;
    cuplas_error e;

    cuplas_error_clear(&e);
    assert_int_equal(tu_sh(f, "\"$B\" gen --size 16x16 --count 2 in.h5"), 0);
    tu_path(f->dir, "c.yaml", path);
    assert_non_null(fp = fopen(path, "w"));
    fputs("inputs: [{files: in.h5}]\noutput: {dir: out, preview: true}\n"
          "eval: {enabled: true, codecs: [png], images: true}\nbackend: {device: cpu}\n", fp);
    fclose(fp);
    assert_int_equal(tu_sh(f, "\"$B\" run c.yaml --log-format json"), 0);
    assert_non_null(text = tu_slurp(f, "err.txt", NULL));
    assert_non_null(strstr(text, "\"eval\":{\"format\": \"cuplas-eval\""));
    free(text);
    /* the attribute is the JSON `cuplas eval` would print (webp aside) */
    tu_path(f->dir, "out/in.grid_000.h5", path);
    char *attr = cuplas_h5_output_str(path, "/grid_000", "eval");
    cuplas_json *doc = NULL;
    cuplas_eval_result er;
    assert_non_null(attr);
    assert_int_equal(cuplas_json_parse(attr, strlen(attr), &doc, &e), 0);
    assert_int_equal(cuplas_eval_result_from_json(doc, &er), 0);
    assert_int_equal(er.N, 256);
    assert_true(er.order[CUPLAS_ORDER_SORTED].bytes[CUPLAS_CODEC_PNG] > 0);
    assert_int_equal(er.order[CUPLAS_ORDER_SORTED].bytes[CUPLAS_CODEC_WEBP], -1);
    /* the sort lowered AND on the very grid `eval` measures */
    assert_true(er.order[CUPLAS_ORDER_SORTED].and_ < er.order[CUPLAS_ORDER_INPUT].and_);
    cuplas_json_free(doc);
    free(attr);
    /* preview and images beside the result */
    struct stat st;
    tu_path(f->dir, "out/in.grid_000.png", path);
    assert_int_equal(stat(path, &st), 0);
    tu_path(f->dir, "out/in.grid_001.eval/morton/plain_000.png", path);
    assert_int_equal(stat(path, &st), 0);
    /* the manifest has both, report --html embeds the preview */
    assert_non_null(text = tu_slurp(f, "out/cuplas-manifest.json", NULL));
    assert_non_null(strstr(text, "\"preview\": "));
    assert_non_null(strstr(text, "\"eval\": {\"format\": \"cuplas-eval\""));
    free(text);
    assert_int_equal(tu_sh(f, "\"$B\" report out --html r.html --json r.json"), 0);
    assert_non_null(text = tu_slurp(f, "r.html", NULL));
    assert_non_null(strstr(text, "<img class=\"preview\" alt=\"/grid_000\" src=\"data:image/png;base64,iVBORw0KGgo"));
    assert_null(strstr(text, "http://"));   /* nothing to fetch */
    assert_null(strstr(text, "https://"));
    free(text);
    /* --json carries what the CSV and the page do: eval, preview, shape,
       dtype and the stage times */
    assert_non_null(text = tu_slurp(f, "r.json", NULL));
    cuplas_json *rep = NULL;
    assert_int_equal(cuplas_json_parse(text, strlen(text), &rep, &e), 0);
    const cuplas_json *ds = cuplas_json_get(rep, "datasets");
    assert_true(ds && ds->type == CUPLAS_JSON_ARRAY && ds->n == 2);
    const cuplas_json *d0 = &ds->items[0], *sh = cuplas_json_get(d0, "shape");
    assert_string_equal(cuplas_json_get_str(d0, "dataset", ""), "/grid_000");
    assert_string_equal(cuplas_json_get_str(d0, "preview", ""), "out/in.grid_000.png");
    assert_string_equal(cuplas_json_get_str(d0, "dtype", ""), "uint8");
    assert_true(sh && sh->type == CUPLAS_JSON_ARRAY && sh->n == 3 &&
                cuplas_json_int(&sh->items[0], 0, 1 << 20, -1) == 16);
    assert_true(cuplas_json_get_num(d0, "read_s", -1) >= 0);
    assert_true(cuplas_json_get_num(d0, "prep_s", -1) >= 0);
    assert_true(cuplas_json_get_num(d0, "write_s", -1) > 0);
    cuplas_eval_result rer;
    assert_int_equal(cuplas_eval_result_from_json(cuplas_json_get(d0, "eval"), &rer), 0);
    assert_int_equal(rer.N, 256);
    cuplas_json_free(rep);
    free(text);
    /* a rerun skips, and report keeps the done record's figures */
    assert_int_equal(tu_sh(f, "\"$B\" run c.yaml && \"$B\" report out --html r2.html"), 0);
    assert_non_null(text = tu_slurp(f, "r2.html", NULL));
    assert_non_null(strstr(text, "data:image/png;base64,"));
    free(text);

    /* previews are recorded relative to the manifest's folder, so a report
       from another working folder still finds them (an audit: every preview
       was "not readable" there) */
    assert_non_null(text = tu_slurp(f, "out/cuplas-manifest.json", NULL));
    assert_non_null(strstr(text, "\"preview_base\": \"manifest\""));
    assert_non_null(strstr(text, "\"preview\": \"in.grid_000.png\""));
    free(text);
    assert_int_equal(tu_sh(f, "mkdir elsewhere && cd elsewhere && \"$B\" report ../out "
                              "--html r3.html"), 0);
    assert_non_null(text = tu_slurp(f, "elsewhere/r3.html", NULL));
    assert_null(strstr(text, "not readable"));
    assert_non_null(strstr(text, "../out/in.grid_001.png"));
    assert_non_null(strstr(text, "<img class=\"preview\" alt=\"/grid_001\" src=\"data:image/png"));
    free(text);

    /* a manifest of 0.7.1 (no preview_base: paths from the run's folder,
       unknown to report) still finds a preview lying in its folder */
    assert_int_equal(tu_sh(f, "mkdir old && cp out/in.grid_000.png old/ && "
                              "sed -e '/preview_base/d' -e 's#\"preview\": \"#\"preview\": "
                              "\"run/out/#' out/cuplas-manifest.json >old/cuplas-manifest.json && "
                              "cd elsewhere && \"$B\" report ../old --html r4.html"), 0);
    assert_non_null(text = tu_slurp(f, "elsewhere/r4.html", NULL));
    assert_non_null(strstr(text, "<img class=\"preview\" alt=\"/grid_000\""));
    assert_non_null(strstr(text, "preview not readable: run/out/in.grid_001.png"));
    free(text);
}

/* `run` with eval on (seed 2, PNG): a rerun redoes the result when the
 * stored eval does not answer its eval keys, and skips it when it does. */
static void eval_rerun(fixture *f, const char *run, const char *keys, const char *expect)
{
    assert_int_equal(tu_sh(f, "%s --set sort.seed=2 --set eval.enabled=true %s 2>&1 | "
                              "grep -q '%s'", run, keys, expect), 0);
}

static void resume_eval_keys(fixture *f, const char *run)
{
    static const char *const redo = "1 done, 0 skipped", *const skip = "0 done, 1 skipped";
    const char *webp = "--set 'eval.codecs=[png, webp]'";
    char keys[256], path[PATH_MAX], *attr;

    /* a codec the attribute lacks; a method with WebP asked for, not without */
    eval_rerun(f, run, webp, redo);
    eval_rerun(f, run, webp, skip);
    eval_rerun(f, run, "--set eval.webp_method=6", skip);
    snprintf(keys, sizeof keys, "%s --set eval.webp_method=6", webp);
    assert_int_equal(tu_sh(f, "\"$B\" check c.yaml --set sort.seed=2 --set eval.enabled=true "
                              "%s", keys), 0);
    assert_non_null(attr = tu_slurp(f, "out.txt", NULL));
    assert_non_null(strstr(attr, "its eval is missing or from another run"));
    free(attr);
    eval_rerun(f, run, keys, redo);
    eval_rerun(f, run, keys, skip);
    /* fewer orders than measured answer; an order not measured does not */
    eval_rerun(f, run, "--set 'eval.orders=[sorted, morton]'", skip);
    eval_rerun(f, run, "--force --set 'eval.orders=[morton]'", redo);
    eval_rerun(f, run, "--set 'eval.orders=[random]'", redo);
    eval_rerun(f, run, "--set 'eval.orders=[sorted]'", skip);
    eval_rerun(f, run, "--set 'eval.orders=[morton]'", redo);
    /* sog on channels without x, y, z: measured with plain, and that
       answers sog from then on (the attribute says what was asked) */
    eval_rerun(f, run, "--set eval.scheme=sog", redo);
    eval_rerun(f, run, "--set eval.scheme=sog", skip);
    tu_path(f->dir, "out/in.grid.h5", path);
    assert_non_null(attr = cuplas_h5_output_str(path, "/grid", "eval"));
    assert_non_null(strstr(attr, "\"scheme\": \"plain\", \"scheme_asked\": \"sog\""));
    free(attr);
    eval_rerun(f, run, "", redo);   /* plain asked: sog's fallback is not it */
    /* eval.images: the folder, made with the result */
    eval_rerun(f, run, "--set eval.images=true", redo);
    eval_rerun(f, run, "--set eval.images=true", skip);
    assert_int_equal(tu_sh(f, "rm -r out/in.grid.eval"), 0);
    eval_rerun(f, run, "--set eval.images=true", redo);
    /* a killed run's temporary images folder (a dead writer) goes at the
       next run's start */
    assert_int_equal(tu_sh(f, "mkdir -p out/.in.grid.eval.tmp.999999999.Zz0000/sorted && %s "
                              "--set sort.seed=2 --set eval.enabled=true --set eval.images=true "
                              "2>&1 | grep -q 'removed stale temp file "
                              "out/.in.grid.eval.tmp.999999999.Zz0000' && test ! -e "
                              "out/.in.grid.eval.tmp.999999999.Zz0000", run), 0);
}

/* output.preview and eval.enabled on a rerun: a complete result without
 * them (asked for since, deleted, or a preview older than the result, an
 * earlier run's) is made again with them; with them it is skipped. */
static void test_run_resume_extras(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX], *text;
    const char *run = "\"$B\" run c.yaml --log-format text";

    assert_int_equal(tu_sh(f, "\"$B\" gen --size 16x16 in.h5"), 0);
    tu_path(f->dir, "c.yaml", path);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("inputs: [{files: in.h5}]\noutput: {dir: out}\nbackend: {device: cpu}\n"
          "eval: {codecs: [png]}\n", fp);
    fclose(fp);
    assert_int_equal(tu_sh(f, "%s --set sort.seed=1 --set output.preview=true", run), 0);
    assert_int_equal(tu_sh(f, "%s --set sort.seed=2", run), 0);
    /* seed 1's preview is older than seed 2's result */
    assert_int_equal(tu_sh(f, "\"$B\" check c.yaml --set sort.seed=2 "
                              "--set output.preview=true"), 0);
    assert_non_null(text = tu_slurp(f, "out.txt", NULL));
    assert_non_null(strstr(text, "its preview is missing or from another run"));
    free(text);
    assert_int_equal(tu_sh(f, "%s --set sort.seed=2 --set output.preview=true 2>&1 | "
                              "grep -q '1 done, 0 skipped'", run), 0);
    assert_int_equal(tu_sh(f, "%s --set sort.seed=2 --set output.preview=true 2>&1 | "
                              "grep -q '0 done, 1 skipped'", run), 0);
    assert_int_equal(tu_sh(f, "rm out/in.grid.png && %s --set sort.seed=2 "
                              "--set output.preview=true 2>&1 | grep -q '1 done, 0 skipped'",
                           run), 0);
    /* eval turned on: the result gets its attribute, then is skipped */
    assert_int_equal(tu_sh(f, "%s --set sort.seed=2 --set eval.enabled=true 2>&1 | "
                              "grep -q '1 done, 0 skipped'", run), 0);
    tu_path(f->dir, "out/in.grid.h5", path);
    char *attr = cuplas_h5_output_str(path, "/grid", "eval");
    assert_non_null(attr);
    free(attr);
    assert_int_equal(tu_sh(f, "%s --set sort.seed=2 --set eval.enabled=true 2>&1 | "
                              "grep -q '0 done, 1 skipped'", run), 0);
    resume_eval_keys(f, run);
}

/* 50 splats of 32 bytes: 3 float positions, 3 float scales, RGBA, a
 * quaternion. */
static void write_splat(fixture *f, const char *name)
{
    char path[PATH_MAX];
    tu_path(f->dir, name, path);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    for (int i = 0; i < 50; i++) {
        float v[6] = {(float)(i % 7), (float)(i / 7), (float)((i * 13) % 11) / 3.0f,
                      0.01f * (1 + i % 5), 0.02f, 0.03f};
        unsigned char c[8] = {(unsigned char)(i * 5), (unsigned char)(200 - i * 3),
                              (unsigned char)(i * 11 % 256), (unsigned char)(100 + i),
                              (unsigned char)(128 + i), 128, (unsigned char)(120 - i), 255};
        assert_int_equal(fwrite(v, sizeof v, 1, fp), 1);
        assert_int_equal(fwrite(c, sizeof c, 1, fp), 1);
    }
    fclose(fp);
}

/* A channel_names that is there but does not fit the data (3 names for
 * 14 channels, or integers) is named as such, exit 1 (not a readable
 * result), where eval --scheme playcanvas said "this result has no
 * channel_names attribute" (exit 2); an index with a row twice or -5 is
 * named by its cell. */
static void test_eval_damaged_result(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX], *text;
    static const struct {
        tu_damage d;
        const char *want;
    } cases[] = {
        {TU_DMG_3_NAMES, "d.h5:/vertex: channel_names has 3 names for the 14 channels of sorted"},
        {TU_DMG_INT_NAMES, "d.h5:/vertex: channel_names is not strings that name the 14 "
                           "channels of sorted"},
        {TU_DMG_NEG5, "d.h5:/vertex: index is not a permutation: cell 0 holds -5"},
        {TU_DMG_NEG_SHAPE, "d.h5:/vertex: input_shape is not 2 or 3 positive integers"},
    };
    write_splat(f, "s.splat");
    assert_int_equal(tu_sh(f, "\"$B\" sort s.splat s.h5 --backend cpu"), 0);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        assert_int_equal(tu_sh(f, "cp s.h5 d.h5"), 0);
        tu_h5_damage(tu_path(f->dir, "d.h5", path), "/vertex", cases[k].d);
        assert_int_equal(tu_sh(f, "\"$B\" eval d.h5 --codecs png --scheme playcanvas"), 1);
        assert_non_null(text = tu_slurp(f, "err.txt", NULL));
        if (!strstr(text, cases[k].want) || strstr(text, "no channel_names"))
            fail_msg("case %zu: \"%s\" lacks \"%s\"", k, text, cases[k].want);
        free(text);
    }
}

/* Each shipped 3DGS preset runs on a scene with its eval block on, and
 * measures with its own scheme. */
static void test_presets_run(void **state)
{
    fixture *f = *state;
    static const char *const presets[][2] = {
        {"sog", "sog"}, {"gsplat", "gsplat"}, {"playcanvas", "playcanvas"}};
    char path[PATH_MAX];

    write_splat(f, "p.splat");
    for (int k = 0; k < 3; k++) {
        assert_int_equal(tu_sh(f, "\"$B\" run '%s/configs/%s.yaml' --set 'inputs=[{files: "
                                  "p.splat}]' --set output.dir=pre%d --set output.ply=false "
                                  "--set backend.device=cpu --set eval.enabled=true "
                                  "--set 'eval.codecs=[png]'", CUPLAS_SRCDIR, presets[k][0], k),
                         0);
        char rel[32];
        snprintf(rel, sizeof rel, "pre%d/p.vertex.h5", k);
        tu_path(f->dir, rel, path);
        char *attr = cuplas_h5_output_str(path, "/vertex", "eval");
        assert_non_null(attr);
        char want[64];
        snprintf(want, sizeof want, "\"scheme\": \"%s\"", presets[k][1]);
        assert_non_null(strstr(attr, want));
        free(attr);
    }
}

/* A scene with N not a grid: run's eval step (on the lane, before the
 * write) measures what `cuplas eval` measures on the written result, for a
 * crop (sog scheme) and for a pad (playcanvas). */
static void test_run_eval_fitted_scene(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX];
    cuplas_error e;
    static const char *const fits[] = { "[6, 8], fit: crop", "[7, 8], fit: pad" };
    static const char *const schemes[] = { "sog", "playcanvas" };
    FILE *fp;

    write_splat(f, "s.splat");
    for (int k = 0; k < 2; k++) {
        cuplas_error_clear(&e);
        tu_path(f->dir, "c.yaml", path);
        assert_non_null(fp = fopen(path, "w"));
        fprintf(fp, "inputs: [{files: s.splat}]\noutput: {dir: out%d}\n"
                "grid: {shape: %s}\neval: {enabled: true, codecs: [png], scheme: %s}\n"
                "backend: {device: cpu}\n", k, fits[k], schemes[k]);
        fclose(fp);
        assert_int_equal(tu_sh(f, "\"$B\" run c.yaml --log-format json"), 0);
        assert_int_equal(tu_sh(f, "\"$B\" eval out%d/s.vertex.h5 --codecs png --scheme %s --json",
                               k, schemes[k]), 0);
        char *cli = tu_slurp(f, "out.txt", NULL), *attr;
        tu_path(f->dir, k ? "out1/s.vertex.h5" : "out0/s.vertex.h5", path);
        assert_non_null(attr = cuplas_h5_output_str(path, "/vertex", "eval"));
        cuplas_json *a = NULL, *b = NULL;
        assert_int_equal(cuplas_json_parse(attr, strlen(attr), &a, &e), 0);
        assert_int_equal(cuplas_json_parse(cli, strlen(cli), &b, &e), 0);
        /* the same items (48 kept, or all 50 with empty cells) and figures */
        assert_true(cuplas_json_get_num(a, "N", -1) == (k ? 50 : 48));
        assert_string_equal(cuplas_json_get_str(a, "scheme", ""), schemes[k]);
        assert_string_equal(cuplas_json_get_str(b, "scheme", ""), schemes[k]);
        assert_true(cuplas_json_get_num(a, "N", -1) == cuplas_json_get_num(b, "N", -2));
        assert_true(cuplas_json_get_num(a, "and", -1) == cuplas_json_get_num(b, "and", -2));
        const cuplas_json *ba = cuplas_json_get(a, "bytes"), *bb = cuplas_json_get(b, "bytes");
        assert_non_null(ba);
        assert_non_null(bb);
        static const char *const orders[] = { "sorted", "input", "random", "morton" };
        for (int o = 0; o < 4; o++)
            assert_true(cuplas_json_get_num(cuplas_json_get(ba, orders[o]), "png", -1) ==
                        cuplas_json_get_num(cuplas_json_get(bb, orders[o]), "png", -2));
        cuplas_json_free(a);
        cuplas_json_free(b);
        free(attr);
        free(cli);
    }
}

/* Parse FILE of the fixture (one JSON object) into *doc. */
static void json_file(const fixture *f, const char *name, cuplas_json **doc)
{
    cuplas_error e;
    char *js = tu_slurp(f, name, NULL);
    cuplas_error_clear(&e);
    *doc = NULL;
    assert_int_equal(cuplas_json_parse(js, strlen(js), doc, &e), 0);
    free(js);
}

/* doc.KEY.ORDER.CODEC as a number, -1 when absent. */
static double json_at(const cuplas_json *doc, const char *key, const char *order,
                      const char *codec)
{
    return cuplas_json_get_num(cuplas_json_get(cuplas_json_get(doc, key), order), codec, -1);
}

/* --orders: sorted,morton measures exactly the full run's sorted and
 * Morton bytes, each image's too, and leaves input and random out of the
 * JSON (bytes, ratios, metrics, images) and of --images; a list it cannot
 * take is a usage error (exit 2) of one line naming the option. */
static void test_eval_orders(void **state)
{
    fixture *f = *state;
    cuplas_json *full = NULL, *sub = NULL;
    static const char *const codecs[] = {"png", "webp"};
    static const char *const keyed[] = {"bytes", "bytes_per_item", "ratios", "orders",
                                        "image_bytes"};
    char path[PATH_MAX], *text;
    struct stat st;

    assert_int_equal(tu_sh(f, "\"$B\" gen --kind normal --channels 7 --size 16x12 in.h5 && "
                              "\"$B\" sort in.h5 out.h5 --backend cpu"), 0);
    assert_int_equal(tu_sh(f, "\"$B\" eval out.h5 --json > full.json"), 0);
    assert_int_equal(tu_sh(f, "\"$B\" eval out.h5 --json --orders sorted,morton --images imgs "
                              "> sub.json"), 0);
    json_file(f, "full.json", &full);
    json_file(f, "sub.json", &sub);
    for (int c = 0; c < 2; c++) {
        const char *const both[] = {"sorted", "morton"};
        for (int k = 0; k < 2; k++) {
            assert_true(json_at(sub, "bytes", both[k], codecs[c]) > 0);
            assert_true(json_at(sub, "bytes", both[k], codecs[c]) ==
                        json_at(full, "bytes", both[k], codecs[c]));
            const cuplas_json *a = cuplas_json_get(cuplas_json_get(cuplas_json_get(
                                       sub, "image_bytes"), both[k]), codecs[c]);
            const cuplas_json *b = cuplas_json_get(cuplas_json_get(cuplas_json_get(
                                       full, "image_bytes"), both[k]), codecs[c]);
            assert_true(a && b && a->n == 3 && b->n == 3);
            for (int i = 0; i < 3; i++)
                assert_true(a->items[i].number == b->items[i].number);
        }
        assert_true(json_at(sub, "ratios", "morton", codecs[c]) ==
                    json_at(full, "ratios", "morton", codecs[c]));
    }
    assert_true(cuplas_json_get_num(sub, "and", -1) == cuplas_json_get_num(full, "and", -2));
    for (size_t i = 0; i < sizeof keyed / sizeof keyed[0]; i++) {
        const cuplas_json *obj = cuplas_json_get(sub, keyed[i]);
        assert_non_null(obj);
        assert_null(cuplas_json_get(obj, "input"));
        assert_null(cuplas_json_get(obj, "random"));
        assert_non_null(cuplas_json_get(obj, "morton"));
        assert_non_null(cuplas_json_get(cuplas_json_get(full, keyed[i]), "input"));
    }
    assert_int_equal(stat(tu_path(f->dir, "imgs/input", path), &st), -1);
    assert_int_equal(stat(tu_path(f->dir, "imgs/random", path), &st), -1);
    assert_int_equal(stat(tu_path(f->dir, "imgs/morton/plain_002.webp", path), &st), 0);
    cuplas_json_free(full);
    cuplas_json_free(sub);
    /* the table: no row of input or random, and it says why */
    assert_int_equal(tu_sh(f, "\"$B\" eval out.h5 --orders morton --codecs png"), 0);
    assert_non_null(text = tu_slurp(f, "out.txt", NULL));
    assert_null(strstr(text, "\ninput "));
    assert_non_null(strstr(text, "\nmorton "));
    assert_non_null(strstr(text, "Not measured (--orders): input, random."));
    free(text);

    static const struct { const char *arg, *why; } bad[] = {
        {"foo", "unknown order 'foo'"},
        {"''", "an empty list"},
        {"morton,morton", "'morton' is listed twice"},
        {"sorted,", "an empty entry in 'sorted,'"},
        {"sorted,,input", "an empty entry in 'sorted,,input'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[160];
        assert_int_equal(tu_sh(f, "\"$B\" eval out.h5 --orders %s", bad[i].arg), 2);
        assert_non_null(text = tu_slurp(f, "err.txt", NULL));
        snprintf(want, sizeof want, "cuplas eval: --orders: %s (accepted: sorted, input, random, "
                 "morton", bad[i].why);
        if (strncmp(text, want, strlen(want)) != 0 ||
            strcmp(strchr(text, '\n'), "\nTry 'cuplas help eval'.\n") != 0)
            fail_msg("--orders %s: %s", bad[i].arg, text);
        free(text);
    }
}

/* eval.orders in run: the step measures the orders listed (sorted always),
 * the attribute leaves the others out, the job line prints only measured
 * ratios, and report (--html, --json) says "not measured" for them. */
static void test_run_eval_orders(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX], *text, *attr;
    cuplas_json *doc = NULL, *cli = NULL;
    cuplas_error e;
    FILE *fp;

    cuplas_error_clear(&e);
    assert_int_equal(tu_sh(f, "\"$B\" gen --size 16x16 in.h5"), 0);
    assert_non_null(fp = fopen(tu_path(f->dir, "c.yaml", path), "w"));
    fputs("inputs: [{files: in.h5}]\noutput: {dir: out}\n"
          "eval: {enabled: true, codecs: [png], orders: [morton]}\nbackend: {device: cpu}\n", fp);
    fclose(fp);
    assert_int_equal(tu_sh(f, "\"$B\" run c.yaml --log-format text"), 0);
    assert_non_null(text = tu_slurp(f, "err.txt", NULL));
    if (!strstr(text, "; eval: png bytes (plain) sorted/morton ") || strstr(text, "sorted/input") ||
        strstr(text, "nan"))
        fail_msg("%s", text);
    free(text);
    assert_non_null(attr = cuplas_h5_output_str(tu_path(f->dir, "out/in.grid.h5", path), "/grid",
                                                "eval"));
    assert_int_equal(cuplas_json_parse(attr, strlen(attr), &doc, &e), 0);
    free(attr);
    assert_null(cuplas_json_get(cuplas_json_get(doc, "bytes"), "input"));
    assert_null(cuplas_json_get(cuplas_json_get(doc, "orders"), "random"));
    /* the bytes `cuplas eval` measures on the written file */
    assert_int_equal(tu_sh(f, "\"$B\" eval out/in.grid.h5 --codecs png --orders morton --json "
                              "> cli.json"), 0);
    json_file(f, "cli.json", &cli);
    assert_true(json_at(doc, "bytes", "morton", "png") > 0);
    assert_true(json_at(doc, "bytes", "morton", "png") == json_at(cli, "bytes", "morton", "png"));
    assert_true(json_at(doc, "bytes", "sorted", "png") == json_at(cli, "bytes", "sorted", "png"));
    cuplas_json_free(doc);
    cuplas_json_free(cli);
    /* report: the page says so where the input ratio would be, and keeps
       Morton's; --json carries the eval as stored */
    assert_int_equal(tu_sh(f, "\"$B\" report out --html r.html --json r.json"), 0);
    assert_non_null(text = tu_slurp(f, "r.html", NULL));
    assert_non_null(strstr(text, "<td class=\"note\">not measured</td>"));
    assert_non_null(strstr(text, "Not measured (eval.orders): input, random."));
    assert_null(strstr(text, "<td class=\"l\">input</td>"));
    assert_non_null(strstr(text, "<td class=\"l\">morton</td>"));
    assert_null(strstr(text, "nan"));
    free(text);
    json_file(f, "r.json", &doc);
    const cuplas_json *ds = cuplas_json_get(doc, "datasets");
    cuplas_eval_result er;
    assert_true(ds && ds->n == 1);
    assert_int_equal(cuplas_eval_result_from_json(cuplas_json_get(&ds->items[0], "eval"), &er), 0);
    assert_int_equal(er.orders, 1u << CUPLAS_ORDER_SORTED | 1u << CUPLAS_ORDER_MORTON);
    cuplas_json_free(doc);
    /* a bad list is the config's error, at its line */
    assert_int_equal(tu_sh(f, "\"$B\" run c.yaml --set 'eval.orders=[morton, bogus]'"), 2);
    assert_non_null(text = tu_slurp(f, "err.txt", NULL));
    assert_non_null(strstr(text, "eval.orders: unknown order 'bogus'"));
    free(text);
}

/* The output's and_before and and_after (cuplas_h5_output_metrics). */
static void and_attrs(const fixture *f, const char *name, double *before, double *after)
{
    char path[PATH_MAX], backend[8], device[256];
    assert_int_equal(cuplas_h5_output_metrics(tu_path(f->dir, name, path), "/vertex", before,
                                              after, backend, sizeof backend, device,
                                              sizeof device), 0);
}

/* AND and VAD where no two filled cells touch: undefined, so NaN in the
 * attributes, null in eval's JSON, "-" in its table and "undefined" in the
 * log line, never 0 (they read as a perfect sort). One splat alone (a 1x1
 * grid: core/metrics.c; padded onto 3x3: the filled-cells AND of
 * eval/quality.c), and 5 splats that the sort spreads over a 10x10 grid. */
static void test_and_undefined(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX], *text;
    double before, after;
    FILE *fp;

    tu_path(f->dir, "one.ply", path);
    assert_non_null(fp = fopen(path, "w"));
    fputs("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
          "property float z\nend_header\n1 2 3\n", fp);
    fclose(fp);
    static const char *const grids[] = { "", "--grid 3x3" };
    for (int k = 0; k < 2; k++) {
        assert_int_equal(tu_sh(f, "rm -f one.h5 && \"$B\" sort one.ply one.h5 --backend cpu "
                               "--log-format text %s", grids[k]), 0);
        assert_non_null(text = tu_slurp(f, "err.txt", NULL));
        if (!strstr(text, "AND undefined -> undefined: no two filled cells touch)"))
            fail_msg("%s: %s", grids[k], text);
        free(text);
        and_attrs(f, "one.h5", &before, &after);
        assert_true(isnan(before) && isnan(after));
    }
    assert_int_equal(tu_sh(f, "\"$B\" eval one.h5 --codecs png --json"), 0);
    assert_non_null(text = tu_slurp(f, "out.txt", NULL));
    assert_non_null(strstr(text, "\"and\": null, \"vad\": null"));
    free(text);

    /* 5 splats on 100 cells: the empty cells (the splats' mean) settle
     * between them. Before the sort they fill a row's first 5 cells; after
     * it (this seed) no two touch, which the index shows. */
    tu_path(f->dir, "p5.ply", path);
    assert_non_null(fp = fopen(path, "w"));
    fputs("ply\nformat ascii 1.0\nelement vertex 5\nproperty float x\nproperty float y\n"
          "property float z\nend_header\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 1 1\n", fp);
    fclose(fp);
    assert_int_equal(tu_sh(f, "\"$B\" sort p5.ply p5.h5 --backend cpu --grid 10x10 "
                              "--set sort.seed=1 --log-format text"), 0);
    cuplas_h5_result res;
    cuplas_error e;
    cuplas_error_clear(&e);
    tu_path(f->dir, "p5.h5", path);
    assert_int_equal(cuplas_h5_result_read(path, "/vertex", &res, &e), 0);
    int touch = 0;
    for (int64_t c = 0; c < 100; c++)
        touch |= res.index[c] >= 0 && ((c % 10 < 9 && res.index[c + 1] >= 0) ||
                                       (c < 90 && res.index[c + 10] >= 0));
    cuplas_h5_result_free(&res);
    assert_false(touch);
    and_attrs(f, "p5.h5", &before, &after);
    assert_true(isfinite(before) && before > 0);
    assert_true(isnan(after));
    assert_non_null(text = tu_slurp(f, "err.txt", NULL));
    assert_non_null(strstr(text, " -> undefined: no two filled cells touch)"));
    free(text);
    assert_int_equal(tu_sh(f, "\"$B\" eval p5.h5 --codecs png"), 0);
    assert_non_null(text = tu_slurp(f, "out.txt", NULL));
    /* the sorted row: AND and VAD "-" in their columns, DPQ a number */
    assert_non_null(strstr(text, "\nsorted              -            -     "));
    free(text);
}

/* report --html embeds a manifest's preview only when it is a PNG: a
 * manifest is a plain JSON file, and one that names any readable file
 * (here a text file, as "/etc/hostname" was in an audit) must not get it
 * into the page as image/png. The page says so, and stderr warns. */
static void test_report_preview_not_png(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX], *text;
    FILE *fp;

    tu_path(f->dir, "hostname", path);
    assert_non_null(fp = fopen(path, "w"));
    fputs("node17\n", fp);
    fclose(fp);
    assert_int_equal(tu_sh(f, "mkdir m"), 0);
    tu_path(f->dir, "m/cuplas-manifest.json", path);
    assert_non_null(fp = fopen(path, "w"));
    fprintf(fp, "{\"format\": \"cuplas-manifest\", \"format_version\": 1, \"datasets\": "
            "[{\"input\": \"a.h5\", \"dataset\": \"/g\", \"status\": \"done\", "
            "\"preview\": \"%s/hostname\"}]}\n", f->dir);
    fclose(fp);
    assert_int_equal(tu_sh(f, "\"$B\" report m --html r.html"), 0);
    assert_non_null(text = tu_slurp(f, "r.html", NULL));
    assert_null(strstr(text, "data:image/png"));
    assert_non_null(strstr(text, "preview is not a PNG file: "));
    free(text);
    assert_non_null(text = tu_slurp(f, "err.txt", NULL));
    assert_non_null(strstr(text, "cuplas report: warning: "));
    assert_non_null(strstr(text, "/hostname: not a PNG file, not embedded\n"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_eval_json_and_images, setup, teardown),
        cmocka_unit_test_setup_teardown(test_eval_orders, setup, teardown),
        cmocka_unit_test_setup_teardown(test_preview_cli, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_resume_extras, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_eval_report, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_eval_fitted_scene, setup, teardown),
        cmocka_unit_test_setup_teardown(test_eval_damaged_result, setup, teardown),
        cmocka_unit_test_setup_teardown(test_presets_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_eval_orders, setup, teardown),
        cmocka_unit_test_setup_teardown(test_and_undefined, setup, teardown),
        cmocka_unit_test_setup_teardown(test_report_preview_not_png, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
