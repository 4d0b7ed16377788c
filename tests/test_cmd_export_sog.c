/*
 * test_cmd_export_sog.c - `cuplas export-sog` (src/cli/cmd_export_sog.c):
 * a sorted scene written as PlayCanvas SOG v2 and read back the way the
 * format's spec decodes it (meta.json, the five WebP images), splat by
 * splat against the result's own values; and the results the format
 * cannot hold refused with one line.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tmpdir.h"
#include "clitest.h"
#include "h5util.h"
#include "eval/codec.h"
#include "io/h5_result.h"
#include "util/json.h"

static int setup(void **state)
{
    return tu_fixture_new(state, CUPLAS_BUILDDIR "/tests/test_cmd_export_sog.XXXXXX");
}

static int teardown(void **state)
{
    tu_fixture_free(state);
    return 0;
}

/* The value of f_rest_k of splat i in write_ply's files: distinct
 * splats, coefficients of several scales and signs. */
static float rest_value(int i, int k)
{
    return 0.02f * (float)(1 + k % 4) * sinf(0.7f * (float)i + 1.3f * (float)k);
}

/* A binary PLY of n splats with graphdeco names; `rest` adds
 * f_rest_0..rest-1 (rest_value) after the colours, as 3DGS writes them. */
static void write_ply(const fixture *f, const char *name, int n, int rest)
{
    char path[PATH_MAX];
    FILE *fp = fopen(tu_path(f->dir, name, path), "wb");
    assert_non_null(fp);
    fprintf(fp, "ply\nformat binary_little_endian 1.0\nelement vertex %d\n", n);
    const char *props[] = {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity", "scale_0",
                           "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"};
    for (int k = 0; k < 14; k++) {
        fprintf(fp, "property float %s\n", props[k]);
        for (int j = 0; k == 5 && j < rest; j++)
            fprintf(fp, "property float f_rest_%d\n", j);
    }
    fputs("end_header\n", fp);
    for (int i = 0; i < n; i++) {
        float v[14] = {
            (float)(i % 8) - 3.5f, 0.25f * (float)(i / 8), 2.0f * sinf((float)i),   /* xyz */
            0.1f * (float)(i % 5), -0.3f + 0.05f * (float)i, cosf((float)i),         /* dc */
            -2.0f + 0.1f * (float)i,                                                  /* opacity */
            -5.0f + 0.05f * (float)i, -4.0f, -3.0f - 0.02f * (float)i,                /* scale */
            cosf(0.3f * (float)i), sinf(0.3f * (float)i), -0.5f, 0.2f * (float)(i % 3) - 0.2f,
        };
        for (int k = 0; k < 14; k++) {
            assert_int_equal(fwrite(&v[k], 4, 1, fp), 1);
            for (int j = 0; k == 5 && j < rest; j++) {
                float r = rest_value(i, j);
                assert_int_equal(fwrite(&r, 4, 1, fp), 1);
            }
        }
    }
    fclose(fp);
}

/* write_ply's splats, then a trainer's nx ny nz: NaN, which nothing of
 * the format reads. */
static void write_ply_normals(const fixture *f, const char *name, int n)
{
    char path[PATH_MAX];
    write_ply(f, "plain.ply", n, 0);
    size_t size = 0;
    char *body = tu_slurp(f, "plain.ply", &size), *end = strstr(body, "end_header\n");
    FILE *fp = fopen(tu_path(f->dir, name, path), "wb");
    assert_true(end && fp);
    end += strlen("end_header\n");
    fwrite(body, 1, (size_t)(end - body) - strlen("end_header\n"), fp);
    fputs("property float nx\nproperty float ny\nproperty float nz\nend_header\n", fp);
    const float nan3[3] = {NAN, NAN, NAN};
    for (int i = 0; i < n; i++) {
        assert_int_equal(fwrite(end + (size_t)i * 56, 56, 1, fp), 1);
        assert_int_equal(fwrite(nan3, sizeof nan3, 1, fp), 1);
    }
    fclose(fp);
    free(body);
}

/* Sort `ply` on the CPU with the PlayCanvas preset into res/, without its
 * sog step (export-sog is what these tests run); grid: more --set options
 * ("" for the preset's own grid). */
static void sort_scene(const fixture *f, const char *ply, const char *grid)
{
    assert_int_equal(tu_sh(f, "rm -rf res && \"$B\" run '%s/configs/playcanvas.yaml' --set "
                              "'inputs=[{files: %s}]' --set output.dir=res --set output.ply=false "
                              "--set backend.device=cpu --set sog.enabled=false %s",
                           CUPLAS_SRCDIR, ply, grid),
                     0);
}

static uint8_t *read_webp(const fixture *f, const char *name, int *channels, int64_t *W,
                          int64_t *H)
{
    cuplas_eval_image im = {0};
    cuplas_error e;
    size_t n = 0;
    char rel[64];
    snprintf(rel, sizeof rel, "sog/%s.webp", name);
    char *data = tu_slurp(f, rel, &n);
    assert_non_null(data);
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_image_decode(CUPLAS_CODEC_WEBP, (const uint8_t *)data, n, 0, &im, &e),
                     0);
    free(data);
    *channels = im.channels, *W = im.W, *H = im.H;
    return im.px;
}

static double num_at(const cuplas_json *arr, int i)
{
    assert_true(arr && arr->type == CUPLAS_JSON_ARRAY && i < (int)arr->n);
    return arr->items[i].number;
}

static double unlog(double n) { return n > 0 ? exp(n) - 1 : -(exp(-n) - 1); }

/* The spec's decode of every splat against the result's values. */
static void test_round_trip(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX];
    cuplas_error e;
    cuplas_h5_result r = {0};
    cuplas_json *meta = NULL;

    write_ply(f, "s.ply", 50, 0);
    sort_scene(f, "s.ply", "");
    assert_int_equal(tu_sh(f, "\"$B\" export-sog res/s.vertex.h5 sog"), 0);
    char *text = tu_slurp(f, "out.txt", NULL);
    assert_non_null(strstr(text, "50 splats on a 10x5 texture -> sog (6 files, "));   /* 5 x 10 */
    long long said = 0;
    assert_int_equal(sscanf(strstr(text, "(6 files, ") + 10, "%lld", &said), 1);
    free(text);
    assert_int_equal(tu_sh(f, "cat sog/* | wc -c"), 0);   /* the files' sizes, summed */
    text = tu_slurp(f, "out.txt", NULL);
    assert_int_equal(atoll(text), said);
    free(text);

    cuplas_error_clear(&e);
    assert_int_equal(cuplas_h5_result_read(tu_path(f->dir, "res/s.vertex.h5", path), NULL, &r,
                                           &e), 0);
    const int C = (int)r.sorted.C;
    const int64_t cells = r.sorted.H * r.sorted.W;
    double *g = malloc(sizeof(double) * (size_t)(cells * C));
    int use[14];
    assert_int_equal(C, 14);
    for (int c = 0; c < C; c++)
        use[c] = c;
    assert_int_equal(cuplas_h5grid_to_double(&r.sorted, use, C, g, NULL, &e), 0);
    int at[14];   /* where each property is */
    static const char *const want[14] = {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity",
                                         "scale_0", "scale_1", "scale_2", "rot_0", "rot_1",
                                         "rot_2", "rot_3"};
    for (int k = 0; k < 14; k++) {
        at[k] = -1;
        for (int c = 0; c < C; c++)
            if (!strcmp(r.names[c], want[k]))
                at[k] = c;
        assert_true(at[k] >= 0);
    }

    char *js = tu_slurp(f, "sog/meta.json", NULL);
    assert_int_equal(cuplas_json_parse(js, strlen(js), &meta, &e), 0);
    free(js);
    assert_int_equal((int)cuplas_json_get_num(meta, "version", 0), 2);
    assert_int_equal((int)cuplas_json_get_num(meta, "count", 0), 50);
    const cuplas_json *means = cuplas_json_get(meta, "means");
    const cuplas_json *mins = cuplas_json_get(means, "mins");
    const cuplas_json *maxs = cuplas_json_get(means, "maxs");
    const cuplas_json *scb = cuplas_json_get(cuplas_json_get(meta, "scales"), "codebook");
    const cuplas_json *ccb = cuplas_json_get(cuplas_json_get(meta, "sh0"), "codebook");
    assert_int_equal((int)scb->n, 256);
    assert_int_equal((int)ccb->n, 256);
    assert_string_equal(cuplas_json_get(means, "files")->items[1].string, "means_u.webp");

    int ch[5];
    int64_t W, H;
    uint8_t *ml = read_webp(f, "means_l", &ch[0], &W, &H);
    uint8_t *mu = read_webp(f, "means_u", &ch[1], &W, &H);
    uint8_t *sc = read_webp(f, "scales", &ch[2], &W, &H);
    uint8_t *qu = read_webp(f, "quats", &ch[3], &W, &H);
    uint8_t *s0 = read_webp(f, "sh0", &ch[4], &W, &H);
    assert_true(W == r.sorted.W && H == r.sorted.H);
    assert_int_equal(ch[3], 4);
    assert_int_equal(ch[4], 4);
    for (int64_t i = 0; i < 50; i++) {   /* texel i = grid cell i, row-major */
        const double *v = g + i * C;
        /* positions: 16 bits in the log domain, truncated: within a step */
        for (int a = 0; a < 3; a++) {
            double lo = num_at(mins, a), hi = num_at(maxs, a), step = (hi - lo) / 65535;
            int q = ml[i * ch[0] + a] | mu[i * ch[1] + a] << 8;
            double n = lo + (hi - lo) * q / 65535.0, x = v[at[a]];
            double nx = x > 0 ? log1p(x) : -log1p(-x);
            assert_true(nx - n >= -1e-9 && nx - n <= step + 1e-9);
            assert_true(fabs(unlog(n) - x) <= step * exp(fabs(nx) + step) + 1e-9);
        }
        /* scales and colours: the label is the nearest codebook entry */
        for (int a = 0; a < 6; a++) {
            const cuplas_json *cb = a < 3 ? scb : ccb;
            double x = v[at[a < 3 ? 7 + a : 3 + (a - 3)]];
            int l = a < 3 ? sc[i * ch[2] + a] : s0[i * 4 + (a - 3)];
            for (int k = 0; k < 256; k++)
                assert_true(fabs(num_at(cb, l) - x) <= fabs(num_at(cb, k) - x) + 1e-12);
        }
        /* opacity: 255 sigmoid, truncated */
        double p = 1 / (1 + exp(-v[at[6]]));
        assert_true(s0[i * 4 + 3] / 255.0 <= p + 1e-12 && p - s0[i * 4 + 3] / 255.0 < 1 / 255.0);
        /* the quaternion, rebuilt as the spec does, is the stored one up to sign */
        const uint8_t *o = qu + i * 4;
        assert_true(o[3] >= 252);
        double t3[3], s = 0, dot = 0, len = 0, q[4];
        for (int k = 0; k < 3; k++) {
            t3[k] = (o[k] / 255.0 - 0.5) * 2.0 / sqrt(2.0);
            s += t3[k] * t3[k];
        }
        const int mode = o[3] - 252;
        for (int k = 0, j = 0; k < 4; k++)
            q[k] = k == mode ? sqrt(fmax(0, 1 - s)) : t3[j++];
        for (int k = 0; k < 4; k++) {
            dot += q[k] * v[at[10 + k]];
            len += v[at[10 + k]] * v[at[10 + k]];
        }
        assert_true(fabs(dot) / sqrt(len) > 0.999);
    }
    free(ml), free(mu), free(sc), free(qu), free(s0);
    free(g);
    cuplas_json_free(meta);
    cuplas_h5_result_free(&r);
}

/* The palette's entries, decoded as the spec does: K x 3 coeffs values,
 * colour-major like f_rest (entry e, coefficient j of colour c at
 * e * D + c * coeffs + j). */
static double *decode_palette(const uint8_t *cen, int ch, int K, int coeffs,
                              const cuplas_json *cb)
{
    const int D = 3 * coeffs;
    double *e = malloc(sizeof(double) * (size_t)K * D);
    assert_non_null(e);
    for (int i = 0; i < K; i++)
        for (int j = 0; j < coeffs; j++)
            for (int c = 0; c < 3; c++)
                e[i * D + c * coeffs + j] = num_at(cb, cen[((size_t)i * coeffs + j) * ch + c]);
    return e;
}

/* Higher SH bands as SOG's palette: every splat's label, the centroid
 * texture's layout and the codebook, checked by the spec's decode, for N
 * splats with D coefficients on an H x W grid. With the default size
 * (K = N) each splat is its own entry, so its coefficients come back to
 * the codebook's nearest entry; with 8 entries each splat's entry is its
 * nearest one, to within the codebook's rounding. */
static void sh_case(const fixture *f, int N, int D, int H, int W)
{
    char path[PATH_MAX], ply[32], grid[64], res[64];
    cuplas_error e;
    cuplas_h5_result r = {0};
    const int COEFFS = D / 3;

    snprintf(ply, sizeof ply, "h%d.ply", D);
    snprintf(grid, sizeof grid, "--set 'grid.shape=[%d, %d]'", H, W);
    snprintf(res, sizeof res, "res/h%d.vertex.h5", D);
    write_ply(f, ply, N, D);
    sort_scene(f, ply, grid);
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_h5_result_read(tu_path(f->dir, res, path), NULL, &r, &e), 0);
    const int C = (int)r.sorted.C;
    assert_int_equal(C, 14 + D);
    int at[45], use[14 + 45];
    for (int c = 0; c < C; c++)
        use[c] = c;
    for (int k = 0; k < D; k++) {
        char want[16];
        snprintf(want, sizeof want, "f_rest_%d", k);
        at[k] = -1;
        for (int c = 0; c < C; c++)
            if (!strcmp(r.names[c], want))
                at[k] = c;
        assert_true(at[k] >= 0);
    }
    double *g = malloc(sizeof(double) * N * C);
    assert_int_equal(cuplas_h5grid_to_double(&r.sorted, use, C, g, NULL, &e), 0);

    for (int run = 0; run < 2; run++) {
        const int K = run ? 8 : N;
        cuplas_json *meta = NULL;
        assert_int_equal(tu_sh(f, "rm -rf sog && \"$B\" export-sog %s sog %s", res,
                               run ? "--sh-palette 8 --backend cpu --sh-iterations 20" : ""), 0);
        char *text = tu_slurp(f, "out.txt", NULL);
        char want[64];
        const int bands = D == 9 ? 1 : D == 24 ? 2 : 3;
        snprintf(want, sizeof want, "SH bands %d: a palette of %d entries", bands, K);
        assert_non_null(strstr(text, want));
        free(text);
        char *js = tu_slurp(f, "sog/meta.json", NULL);
        assert_int_equal(cuplas_json_parse(js, strlen(js), &meta, &e), 0);
        free(js);
        const cuplas_json *shn = cuplas_json_get(meta, "shN");
        assert_non_null(shn);
        assert_int_equal((int)cuplas_json_get_num(shn, "count", 0), K);
        assert_int_equal((int)cuplas_json_get_num(shn, "bands", 0), bands);
        const cuplas_json *cb = cuplas_json_get(shn, "codebook");
        assert_int_equal((int)cb->n, 256);
        assert_string_equal(cuplas_json_get(shn, "files")->items[1].string, "shN_labels.webp");
        double gap = 0;   /* the codebook's widest step */
        for (int k = 1; k < 256; k++)
            gap = fmax(gap, num_at(cb, k) - num_at(cb, k - 1));

        int chc, chl;
        int64_t WC, HC, WL, HL;
        uint8_t *cen = read_webp(f, "shN_centroids", &chc, &WC, &HC);
        uint8_t *lab = read_webp(f, "shN_labels", &chl, &WL, &HL);
        assert_true(WC == 64 * COEFFS && HC == (K + 63) / 64 && WL == W && HL == H);
        double *pal = decode_palette(cen, chc, K, COEFFS, cb);
        int *seen = calloc((size_t)K, sizeof *seen);
        assert_non_null(seen);
        for (int64_t i = 0; i < N; i++) {
            const int l = lab[i * chl] | lab[i * chl + 1] << 8;
            assert_true(l >= 0 && l < K);
            seen[l]++;
            double v[45], dl = 0;
            for (int k = 0; k < D; k++)
                v[k] = g[i * C + at[k]];
            for (int k = 0; k < D; k++)
                dl += (v[k] - pal[l * D + k]) * (v[k] - pal[l * D + k]);
            if (!run) {   /* its own entry: each value at its nearest codebook entry */
                for (int k = 0; k < D; k++)
                    for (int m = 0; m < 256; m++)
                        assert_true(fabs(pal[l * D + k] - v[k]) <=
                                    fabs(num_at(cb, m) - v[k]) + 1e-12);
                continue;
            }
            for (int o = 0; o < K; o++) {
                double d = 0;
                for (int k = 0; k < D; k++)
                    d += (v[k] - pal[o * D + k]) * (v[k] - pal[o * D + k]);
                assert_true(sqrt(dl) <= sqrt(d) + sqrt((double)D) * gap + 1e-9);
            }
        }
        for (int l = 0; !run && l < K; l++)
            assert_int_equal(seen[l], 1);   /* K = N: a splat an entry */
        free(pal), free(cen), free(lab), free(seen);
        cuplas_json_free(meta);
    }
    free(g);
    cuplas_h5_result_free(&r);
}

/* 3, 2 and 1 bands; 512 splats take labels past one byte. A GPU named
 * that is not there: exit 3 and one line naming the file, nothing
 * written, with or without a palette to fit. */
static void test_sh_palette(void **state)
{
    fixture *f = *state;
    sh_case(f, 512, 45, 16, 32);
    sh_case(f, 64, 24, 8, 8);
    sh_case(f, 64, 9, 4, 16);
    assert_int_equal(tu_sh(f, "rm -rf sog && \"$B\" export-sog res/h9.vertex.h5 sog --gpu 1023"),
                     3);
    char *text = tu_slurp(f, "err.txt", NULL);
    assert_non_null(strstr(text, "res/h9.vertex.h5: GPU 1023 asked for (--backend gpu or "
                                 "--gpu), but "));
    free(text);
    assert_int_equal(tu_sh(f, "test ! -e sog && ls -a | grep -c 'sog.tmp'"), 1);

    /* eval --scheme playcanvas measures what export-sog writes: the sorted
     * order's seven images are the export's files, byte for byte; the
     * Morton order gets a palette of its own, numbered along its grid */
    assert_int_equal(tu_sh(f, "\"$B\" export-sog res/h9.vertex.h5 sog --sh-palette 8 "
                              "--sh-iterations 3 --backend cpu --webp-method 2 && \"$B\" eval "
                              "res/h9.vertex.h5 --scheme playcanvas --codecs webp --webp-method 2 "
                              "--orders sorted,morton --sh-palette 8 --sh-iterations 3 --backend "
                              "cpu --images ev --json"), 0);
    text = tu_slurp(f, "out.txt", NULL);
    assert_non_null(strstr(text, "\"sh_palette\": {\"count\": 8, \"asked\": 8, "
                                 "\"iterations\": 3}"));
    free(text);
    static const char *const imgs[] = {"means_l", "means_u", "scales", "quats", "sh0",
                                       "shN_centroids", "shN_labels"};
    for (int i = 0; i < 7; i++)
        assert_int_equal(tu_sh(f, "cmp sog/%s.webp ev/sorted/%s.webp", imgs[i], imgs[i]), 0);
    assert_int_equal(tu_sh(f, "ls ev/sorted | wc -l | grep -qx 7"), 0);
    assert_int_equal(tu_sh(f, "cmp -s ev/sorted/shN_labels.webp ev/morton/shN_labels.webp"), 1);
    /* the same GPU refusal as export-sog's */
    assert_int_equal(tu_sh(f, "\"$B\" eval res/h9.vertex.h5 --scheme playcanvas --gpu 1023"), 3);

    write_ply(f, "g.ply", 48, 0);   /* no bands: no palette, the GPU still checked */
    sort_scene(f, "g.ply", "--set 'grid.shape=[6, 8]'");
    assert_int_equal(tu_sh(f, "rm -rf sog && \"$B\" export-sog res/g.vertex.h5 sog --gpu 1023"),
                     3);
    assert_int_equal(tu_sh(f, "test ! -e sog && ls -a | grep -c 'sog.tmp'"), 1);
    assert_int_equal(tu_sh(f, "\"$B\" eval res/g.vertex.h5 --codecs png --gpu 1023"), 3);
    text = tu_slurp(f, "err.txt", NULL);
    assert_non_null(strstr(text, "res/g.vertex.h5: GPU 1023 asked for"));
    free(text);
}

/* What the format cannot hold, refused with one line naming the file. */
static void test_refusals(void **state)
{
    fixture *f = *state;
    char *text;

    /* 3 f_rest channels are no whole SH band: refused, then left out with
       --no-sh */
    write_ply(f, "r.ply", 48, 3);
    sort_scene(f, "r.ply", "--set 'grid.shape=[6, 8]'");
    assert_int_equal(tu_sh(f, "\"$B\" export-sog res/r.vertex.h5 sog"), 1);
    assert_non_null(text = tu_slurp(f, "err.txt", NULL));
    assert_non_null(strstr(text, "res/r.vertex.h5:/vertex: 3 f_rest_* channels (f_rest_0 to "
                                 "f_rest_2 in a row) are not 1, 2 or 3 SH bands"));
    assert_non_null(strstr(text, "--no-sh"));
    free(text);
    /* nothing left behind: no DIR, no temporary folder */
    assert_int_equal(tu_sh(f, "test ! -e sog && ls -a | grep -c 'sog.tmp'"), 1);
    assert_int_equal(tu_sh(f, "\"$B\" export-sog res/r.vertex.h5 sog --no-sh && "
                              "ls sog | tr '\\n' ' '"), 0);
    assert_non_null(text = tu_slurp(f, "out.txt", NULL));
    assert_non_null(strstr(text, "means_l.webp means_u.webp meta.json quats.webp scales.webp "
                                 "sh0.webp"));
    free(text);
    /* DIR not empty: usage */
    assert_int_equal(tu_sh(f, "\"$B\" export-sog res/r.vertex.h5 sog --no-sh"), 2);
    assert_int_equal(tu_sh(f, "\"$B\" export-sog res/r.vertex.h5 sog9 --sh-palette 0"), 2);
    assert_int_equal(tu_sh(f, "\"$B\" export-sog res/r.vertex.h5 sog9 --backend tpu"), 2);

    /* a padded grid with holes (50 splats on 7 x 8, empties where they
       disturb least): refused, naming the first hole */
    write_ply(f, "p.ply", 50, 0);
    sort_scene(f, "p.ply", "--set 'grid.shape=[7, 8]' --set grid.fit=pad");
    assert_int_equal(tu_sh(f, "\"$B\" export-sog res/p.vertex.h5 sog2"), 1);
    assert_non_null(text = tu_slurp(f, "err.txt", NULL));
    assert_non_null(strstr(text, "PlayCanvas SOG has no holes"));
    free(text);

    /* an SH coefficient whose square overflows a float: refused, naming the
       property (a NaN stops the result's reader already) */
    write_ply(f, "n.ply", 48, 9);
    {
        char path[PATH_MAX];
        FILE *fp = fopen(tu_path(f->dir, "n.ply", path), "r+b");
        char line[128];
        float huge = 1e20f;
        assert_non_null(fp);
        while (fgets(line, sizeof line, fp) && strcmp(line, "end_header\n"))
            ;
        /* splat 5's f_rest_4: 23 floats a splat, f_rest_0 the 7th */
        assert_int_equal(fseek(fp, (5 * 23 + 6 + 4) * 4, SEEK_CUR), 0);
        assert_int_equal(fwrite(&huge, 4, 1, fp), 1);
        fclose(fp);
    }
    sort_scene(f, "n.ply", "--set 'grid.shape=[6, 8]'");
    assert_int_equal(tu_sh(f, "\"$B\" export-sog res/n.vertex.h5 sogn"), 1);
    assert_non_null(text = tu_slurp(f, "err.txt", NULL));
    assert_non_null(strstr(text, "res/n.vertex.h5:/vertex: f_rest_4 of the splat in cell "));
    assert_non_null(strstr(text, "the SH palette takes coefficients within +-1e18"));
    free(text);

    /* a grid without 3DGS names */
    assert_int_equal(tu_sh(f, "\"$B\" gen --size 8x8 g.h5 >/dev/null && \"$B\" sort g.h5 gs.h5 "
                              ">/dev/null 2>&1 && \"$B\" export-sog gs.h5 sog3"), 1);
    assert_non_null(text = tu_slurp(f, "err.txt", NULL));
    assert_true(strstr(text, "no channel_names") || strstr(text, "missing: x, y, z"));
    free(text);
}

/* A result damaged by hand is refused as eval and export-ply refuse it:
 * an index that places a row twice (written as splats, exit 0, before),
 * holds -5 (reported as "empty cell 0 lies before the splat in cell 1")
 * or loses a row of a full grid; an input_shape that is missing or not
 * one; channel_names of 3 names for 14 channels or integers (reported as
 * "no channel_names"). Exit 1, one line naming file, group and what is
 * wrong, nothing left behind. */
static void test_damaged_result(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX], *text;
    static const struct {
        tu_damage d;
        const char *want;
    } cases[] = {
        {TU_DMG_DUP, "index is not a permutation: row "},
        {TU_DMG_NEG5, "index is not a permutation: cell 0 holds -5"},
        {TU_DMG_HOLE, "index is not a permutation: it places 47 of the 48 input rows of "
                      "input_shape, and no dropped dataset says a crop left the others out"},
        {TU_DMG_NO_SHAPE, "no input_shape attribute: not a result of cuplas sort or run"},
        {TU_DMG_NEG_SHAPE, "input_shape is not 2 or 3 positive integers"},
        {TU_DMG_STR_SHAPE, "input_shape is not 2 or 3 positive integers"},
        {TU_DMG_3_NAMES, "channel_names has 3 names for the 14 channels of sorted"},
        {TU_DMG_INT_NAMES, "channel_names is not strings that name the 14 channels of sorted"},
    };
    write_ply(f, "h.ply", 48, 0);
    sort_scene(f, "h.ply", "--set 'grid.shape=[6, 8]'");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        assert_int_equal(tu_sh(f, "cp res/h.vertex.h5 d.h5"), 0);
        tu_h5_damage(tu_path(f->dir, "d.h5", path), "/vertex", cases[k].d);
        assert_int_equal(tu_sh(f, "\"$B\" export-sog d.h5 sog --backend cpu"), 1);
        assert_non_null(text = tu_slurp(f, "err.txt", NULL));
        if (!strstr(text, "d.h5:/vertex: ") || !strstr(text, cases[k].want))
            fail_msg("case %zu: \"%s\" lacks \"%s\"", k, text, cases[k].want);
        assert_true(strchr(text, '\n') == text + strlen(text) - 1);
        free(text);
        assert_int_equal(tu_sh(f, "test ! -e sog && ls -a | grep -c 'sog.tmp'"), 1);
    }
    assert_int_equal(tu_sh(f, "\"$B\" export-sog res/h.vertex.h5 sog --backend cpu"), 0);
}

/* run's sog step (sog.enabled): the folder beside the result is what
 * export-sog writes from it, byte for byte; a rerun keeps it, redoes it
 * when a file is gone or a sog key changed; sog.sh false leaves the bands
 * out; a grid with holes fails the job and leaves nothing. */
static void test_run_step(void **state)
{
    fixture *f = *state;
#define RUN "\"$B\" run '%s/configs/playcanvas.yaml' --set 'inputs=[{files: q.ply}]' " \
            "--set output.dir=rq --set output.ply=false --set backend.device=cpu --set " \
            "sog.enabled=true --set sog.sh_palette=8 --set sog.webp_method=2 %s"
    char *text;

    write_ply(f, "q.ply", 200, 9);
    assert_int_equal(tu_sh(f, RUN, CUPLAS_SRCDIR, "--set sog.sh_iterations=3"), 0);
    assert_int_equal(tu_sh(f, "ls rq/q.vertex.sog | wc -l | grep -qx 8 && ! ls -a rq | grep -q "
                              "tmp"), 0);
    assert_int_equal(tu_sh(f, "grep -q \"\\\"sog_bytes\\\": $(cat rq/q.vertex.sog/* | wc -c)\" "
                              "rq/cuplas-manifest.json"), 0);   /* a done job's */
    assert_int_equal(tu_sh(f, "\"$B\" export-sog rq/q.vertex.h5 ex --sh-palette 8 "
                              "--sh-iterations 3 --webp-method 2 --backend cpu && diff -r ex "
                              "rq/q.vertex.sog"), 0);
    assert_int_equal(tu_sh(f, "h5dump -a /vertex/sog rq/q.vertex.h5 | grep -q '\"sh_iterations\": "
                              "3, \"webp_method\": 2, \"files\": 8, \"bytes\": '$(cat "
                              "rq/q.vertex.sog/* | wc -c)'}'"), 0);
    /* the same keys: skipped; a file gone, or another key: made again */
    assert_int_equal(tu_sh(f, RUN, CUPLAS_SRCDIR, "--set sog.sh_iterations=3"), 0);
    assert_non_null(text = tu_slurp(f, "err.txt", NULL));
    assert_non_null(strstr(text, "0 done, 1 skipped"));
    free(text);
    /* the folder's bytes in the manifest (a skipped job's read back from
       the result), and in report's JSON and HTML */
    assert_int_equal(tu_sh(f, "n=$(cat rq/q.vertex.sog/* | wc -c) && grep -q \"\\\"sog_bytes\\\": "
                              "$n\" rq/cuplas-manifest.json && \"$B\" report rq --json r.json --html r.html --csv "
                              "r.csv && grep -q \"\\\"sog_bytes\\\": $n\" r.json && grep -q "
                              "\"<td>$n</td>\" r.html && head -1 r.csv | grep -q ',dtype,sog_bytes,' "
                              "&& grep -q \",$n,\" r.csv"), 0);
    assert_int_equal(tu_sh(f, "rm rq/q.vertex.sog/quats.webp && " RUN, CUPLAS_SRCDIR,
                           "--set sog.sh_iterations=3"), 0);
    assert_non_null(text = tu_slurp(f, "err.txt", NULL));
    assert_non_null(strstr(text, "1 done, 0 skipped"));
    free(text);
    assert_int_equal(tu_sh(f, "diff -r ex rq/q.vertex.sog"), 0);
    assert_int_equal(tu_sh(f, RUN, CUPLAS_SRCDIR, "--set sog.sh_iterations=4"), 0);
    assert_non_null(text = tu_slurp(f, "err.txt", NULL));
    assert_non_null(strstr(text, "1 done, 0 skipped"));
    free(text);
    /* with the eval step on and the same palette settings, the step takes
       the eval's sorted palette instead of fitting it again; with others it
       fits its own: the same files either way */
    for (int it = 3; it >= 2; it--) {
        char set[256];
        snprintf(set, sizeof set, "--set sog.sh_iterations=3 --set eval.enabled=true --set "
                 "eval.sh_palette=8 --set eval.sh_iterations=%d --set 'eval.codecs=[webp]' --set "
                 "eval.webp_method=0 --set logging.level=debug --log-format text", it);
        assert_int_equal(tu_sh(f, RUN " --force", CUPLAS_SRCDIR, set), 0);
        assert_non_null(text = tu_slurp(f, "err.txt", NULL));
        assert_non_null(strstr(text, "sog: "));
        assert_true((strstr(text, "the SH palette (the eval step's)") != NULL) == (it == 3));
        free(text);
        assert_int_equal(tu_sh(f, "diff -r ex rq/q.vertex.sog"), 0);
    }
    /* a killed run's temporary SOG folder (a dead writer) goes at the next run's start */
    assert_int_equal(tu_sh(f, "mkdir rq/.q.vertex.sog.tmp.999999999.AbC123 && touch "
                              "rq/.q.vertex.sog.tmp.999999999.AbC123/means_l.webp"), 0);
    assert_int_equal(tu_sh(f, RUN, CUPLAS_SRCDIR, "--set sog.sh=false --log-format text"), 0);
    assert_non_null(text = tu_slurp(f, "err.txt", NULL));
    assert_non_null(strstr(text, "removed stale temp file rq/.q.vertex.sog.tmp.999999999.AbC123"));
    free(text);
    assert_int_equal(tu_sh(f, "test ! -e rq/.q.vertex.sog.tmp.999999999.AbC123"), 0);
    assert_int_equal(tu_sh(f, "ls rq/q.vertex.sog | wc -l | grep -qx 6 && ! grep -q shN "
                              "rq/q.vertex.sog/meta.json"), 0);

    /* a trainer's normals, NaN here, are not the format's: neither the
       step nor export-sog reads them */
    write_ply_normals(f, "nrm.ply", 60);
    assert_int_equal(tu_sh(f, "rm -rf rn && \"$B\" run '%s/configs/playcanvas.yaml' --set "
                              "'inputs=[{files: nrm.ply}]' --set output.dir=rn --set "
                              "output.ply=false --set backend.device=cpu --set "
                              "sog.webp_method=0 && \"$B\" export-sog rn/nrm.vertex.h5 exn "
                              "--webp-method 0 && diff -r exn rn/nrm.vertex.sog",
                           CUPLAS_SRCDIR), 0);

    /* no names to find the 3DGS properties by: the job fails while
       planning, before its read and sort */
    assert_int_equal(tu_sh(f, "\"$B\" gen --size 8x8 g.h5 >/dev/null && \"$B\" sort g.h5 "
                              "gs.h5 --set sog.enabled=true --log-format text"), 1);
    assert_non_null(text = tu_slurp(f, "err.txt", NULL));
    assert_non_null(strstr(text, "g.h5:/grid: sog: no channel_names"));
    assert_null(strstr(text, "levels"));   /* never sorted */
    free(text);
    assert_int_equal(tu_sh(f, "test ! -e gs.h5 && test ! -e gs.sog"), 0);

    /* holes: a padded grid fails while planning, with the format's reason,
       and nothing is left */
    assert_int_equal(tu_sh(f, "rm -rf rq && " RUN, CUPLAS_SRCDIR,
                           "--set grid.fit=pad --set 'grid.shape=[15, 15]'"), 1);
    assert_non_null(text = tu_slurp(f, "err.txt", NULL));
    assert_non_null(strstr(text, "q.ply:/vertex: sog: a 15 x 15 grid for 200 splats "
                                 "(grid.fit: pad) has empty cells among them"));
    free(text);
    assert_int_equal(tu_sh(f, "ls rq | grep -c 'q.vertex'"), 1);   /* none: grep finds 0 */
#undef RUN
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged_result, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sh_palette, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_step, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
