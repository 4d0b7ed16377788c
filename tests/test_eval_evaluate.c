/*
 * test_eval_evaluate.c - the eval wiring (eval/evaluate.c) and previews
 * (eval/preview.c) on small hand cases: the metrics land in the right
 * order's slot, the bytes are the encoded images' (and, written, the
 * files' sizes), padding, the JSON round trip, bad maps.
 */
#define _GNU_SOURCE /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "eval/evaluate.h"
#include "eval/preview.h"
#include "eval/quality.h"
#include "eval/sog_sh.h"
#include "tmpdir.h"
#include "shared_data.h"   /* tu_slurp_path */
#include "util/threads.h"

/* 2x2, one channel: items 0, 1, 2, 3; identity map. Right edges |0-1|,
 * |2-3| = 1, down edges |0-2|, |1-3| = 2: AND 1.5 (hand computed). */
static void test_metrics_hand(void **state)
{
    (void)state;
    const double items[4] = {0, 1, 2, 3};
    const int64_t ident[4] = {0, 1, 2, 3}, swapped[4] = {0, 2, 1, 3};
    cuplas_eval_opts o;
    cuplas_eval_result r;
    cuplas_error e;

    cuplas_error_clear(&e);
    cuplas_eval_opts_default(&o);
    o.codecs = 1u << CUPLAS_CODEC_PNG;
    assert_int_equal(cuplas_evaluate(items, 4, 1, NULL, ident, 2, 2, &o, &r, &e), 0);
    assert_true(fabs(r.order[CUPLAS_ORDER_SORTED].and_ - 1.5) < 1e-12);
    assert_true(fabs(r.order[CUPLAS_ORDER_INPUT].and_ - 1.5) < 1e-12);
    /* VAD: horizontal diffs {1, 1} variance 0; vertical {2, 2} variance 0 */
    assert_true(fabs(r.order[CUPLAS_ORDER_SORTED].vad) < 1e-12);
    assert_int_equal(r.N, 4);
    assert_int_equal(r.nimages, 1);
    assert_true(r.order[CUPLAS_ORDER_SORTED].bytes[CUPLAS_CODEC_PNG] > 0);
    assert_int_equal(r.order[CUPLAS_ORDER_SORTED].bytes[CUPLAS_CODEC_WEBP], -1);
    /* the transposed order: right |0-2|, |1-3| = 2, down |0-1|, |2-3| = 1 */
    assert_int_equal(cuplas_evaluate(items, 4, 1, NULL, swapped, 2, 2, &o, &r, &e), 0);
    assert_true(fabs(r.order[CUPLAS_ORDER_SORTED].and_ - 1.5) < 1e-12);
    assert_true(isfinite(r.order[CUPLAS_ORDER_SORTED].dpq));
    /* not computed above max_n */
    o.dpq_max_n = 3;
    assert_int_equal(cuplas_evaluate(items, 4, 1, NULL, ident, 2, 2, &o, &r, &e), 0);
    assert_true(isnan(r.order[CUPLAS_ORDER_SORTED].dpq));
}

/* The printed reason for a missing DPQ: the item limit only when it was
 * passed; one item, or items all alike, have no DPQ (before, every case
 * printed "not computed (over 4096 items)", for 256 equal items too). */
static void test_dpq_reason(void **state)
{
    (void)state;
    const double same[4] = {2, 2, 2, 2}, ramp[4] = {0, 1, 2, 3};
    const int64_t ident[4] = {0, 1, 2, 3}, one[1] = {0};
    const struct {
        const double *items;
        int64_t N, H, W, max_n;
        const char *want;
    } cases[] = {
        {same, 4, 2, 2, 0, "DPQ_16: undefined (no two items differ)."},
        {ramp, 1, 1, 1, 0, "DPQ_16: undefined (fewer than 2 items)."},
        {ramp, 4, 2, 2, 3, "DPQ_16: not computed (over 3 items)."},
        {ramp, 4, 2, 2, 0, "DPQ_16: exact."},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cuplas_eval_opts o;
        cuplas_eval_result r;
        cuplas_error e;
        char *text = NULL;
        size_t len = 0;
        cuplas_error_clear(&e);
        cuplas_eval_opts_default(&o);
        o.codecs = 1u << CUPLAS_CODEC_PNG;
        o.dpq_max_n = cases[i].max_n;
        assert_int_equal(cuplas_evaluate(cases[i].items, cases[i].N, 1, NULL,
                                         cases[i].N == 1 ? one : ident, cases[i].H, cases[i].W,
                                         &o, &r, &e), 0);
        FILE *f = open_memstream(&text, &len);
        assert_non_null(f);
        cuplas_eval_result_print(f, &r);
        fclose(f);
        if (!strstr(text, cases[i].want))
            fail_msg("case %zu: no \"%s\" in:\n%s", i, cases[i].want, text);
        free(text);
    }
}

/* Results sorted from extreme finite values: the metrics are the true
 * ones, not inf or 0 from squares that over- or underflow (before: AND
 * and VAD printed "-", DPQ "undefined"). 2x2 of k * s: right edges s,
 * down edges 2s, AND 1.5 s, VAD 0, DPQ as for 0, 1, 2, 3. */
static void test_extreme_values(void **state)
{
    (void)state;
    const double scale[] = {1, 1e307, 3e-311, 1e-200};
    const int64_t ident[4] = {0, 1, 2, 3};
    double dpq1 = NAN;
    for (size_t i = 0; i < sizeof scale / sizeof scale[0]; i++) {
        const double s = scale[i];
        const double items[4] = {10 * s, 11 * s, 12 * s, 13 * s};
        cuplas_eval_opts o;
        cuplas_eval_result r;
        cuplas_error e;
        cuplas_error_clear(&e);
        cuplas_eval_opts_default(&o);
        o.codecs = 1u << CUPLAS_CODEC_PNG;
        assert_int_equal(cuplas_evaluate(items, 4, 1, NULL, ident, 2, 2, &o, &r, &e), 0);
        const cuplas_eval_order_stats *st = &r.order[CUPLAS_ORDER_SORTED];
        if (!(fabs(st->and_ / (1.5 * s) - 1) < 1e-9) || !(st->vad >= 0 && st->vad <= 1e-9 * s))
            fail_msg("scale %g: AND %g (want %g), VAD %g", s, st->and_, 1.5 * s, st->vad);
        if (i == 0)
            dpq1 = st->dpq;
        if (!(fabs(st->dpq - dpq1) < 1e-12))
            fail_msg("scale %g: DPQ %g, at scale 1 %g", s, st->dpq, dpq1);
    }
}

/* Padding: 3 items on 2x2, the empty cell is left out of AND. */
static void test_padded(void **state)
{
    (void)state;
    const double items[3] = {10, 20, 40};
    const int64_t map[4] = {2, -1, 0, 1};   /* 40 _ / 10 20 */
    cuplas_eval_opts o;
    cuplas_eval_result r;
    cuplas_error e;

    cuplas_error_clear(&e);
    cuplas_eval_opts_default(&o);
    o.codecs = 1u << CUPLAS_CODEC_PNG;
    assert_int_equal(cuplas_evaluate(items, 3, 1, NULL, map, 2, 2, &o, &r, &e), 0);
    /* edges with both cells full: right 10-20 (10), down 40-10 (30): mean 20 */
    assert_true(fabs(r.order[CUPLAS_ORDER_SORTED].and_ - 20.0) < 1e-12);
    assert_int_equal(r.N, 3);
}

static void test_bad_maps(void **state)
{
    (void)state;
    const double items[4] = {0, 1, 2, 3};
    const int64_t twice[4] = {0, 1, 1, 3}, missing[4] = {0, 1, 2, -1}, out[4] = {0, 1, 2, 7};
    cuplas_eval_opts o;
    cuplas_eval_result r;
    cuplas_error e;

    cuplas_error_clear(&e);
    cuplas_eval_opts_default(&o);
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_evaluate(items, 4, 1, NULL, twice, 2, 2, &o, &r, &e), CUPLAS_ERR_INPUT);
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_evaluate(items, 4, 1, NULL, missing, 2, 2, &o, &r, &e), CUPLAS_ERR_INPUT);
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_evaluate(items, 4, 1, NULL, out, 2, 2, &o, &r, &e), CUPLAS_ERR_INPUT);
    /* sog needs x, y, z */
    o.scheme = CUPLAS_SCHEME_SOG;
    const int64_t ident[4] = {0, 1, 2, 3};
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_evaluate(items, 4, 1, NULL, ident, 2, 2, &o, &r, &e), CUPLAS_ERR_USAGE);
}

static void test_unsort(void **state)
{
    (void)state;
    /* grid cells hold items 2, 0, (empty), 1; two channels */
    const double grid[8] = {20, 21, 0, 1, -5, -5, 10, 11};
    int64_t index[4] = {2, 0, -1, 1}, bad[4] = {2, 2, -1, 1};
    double items[8];
    int64_t N = 0;
    cuplas_error e;

    cuplas_error_clear(&e);
    assert_int_equal(cuplas_eval_unsort(grid, index, 4, 2, items, &N, &e), 0);
    assert_int_equal(N, 3);
    const double want[6] = {0, 1, 10, 11, 20, 21};
    for (int i = 0; i < 6; i++)
        assert_true(items[i] == want[i]);
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_eval_unsort(grid, bad, 4, 2, items, &N, &e), CUPLAS_ERR_INPUT);
    /* a crop keeps rows 7, 3 and 40 of an input: renumbered in row order */
    int64_t crop[4] = {40, 7, -1, 3};
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_eval_unsort(grid, crop, 4, 2, items, &N, &e), 0);
    assert_int_equal(N, 3);
    const int64_t ranks[4] = {2, 1, -1, 0};
    const double want_crop[6] = {10, 11, 0, 1, 20, 21};
    for (int k = 0; k < 4; k++)
        assert_int_equal(crop[k], ranks[k]);
    for (int i = 0; i < 6; i++)
        assert_true(items[i] == want_crop[i]);
}

/* Bytes are the scheme's images encoded, and written they are the files. */
static void test_bytes_are_files(void **state)
{
    (void)state;
    enum { H = 8, W = 8, C = 5, N = 60 };
    double items[N * C];
    int64_t map[H * W];
    char pattern[] = "/tmp/test_eval_evaluate.XXXXXX", path[PATH_MAX];
    cuplas_eval_opts o;
    cuplas_eval_result r;
    cuplas_error e;

    cuplas_error_clear(&e);
    for (int i = 0; i < N * C; i++)
        items[i] = (double)((i * 37) % 101);
    for (int k = 0; k < H * W; k++)
        map[k] = k < N ? (int64_t)((k * 7) % N) : -1;   /* 7 is prime to 60 */
    assert_non_null(mkdtemp(pattern));
    cuplas_eval_opts_default(&o);
    o.codecs = 1u << CUPLAS_CODEC_PNG | 1u << CUPLAS_CODEC_WEBP | 1u << CUPLAS_CODEC_JXL;
    o.images_dir = pattern;
    assert_int_equal(cuplas_evaluate(items, N, C, NULL, map, H, W, &o, &r, &e), 0);
    assert_int_equal(r.nimages, 2);   /* 5 channels: RGB + RG0 */
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++)
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++) {
            int64_t sum = 0;
            for (int i = 0; i < r.nimages; i++) {
                struct stat st;
                snprintf(path, sizeof path, "%s/%s/plain_%03d.%s", pattern,
                         cuplas_order_name((cuplas_order_kind)k), i,
                         cuplas_codec_name((cuplas_codec)c));
                assert_int_equal(stat(path, &st), 0);
                sum += st.st_size;
            }
            assert_int_equal(sum, r.order[k].bytes[c]);
        }
    /* the sorted images are the scheme's codes of the gathered grid */
    double grid[H * W * C];
    uint8_t empty[H * W];
    cuplas_eval_images imgs = {0};
    cuplas_eval_gather(items, C, map, H * W, grid, empty, NULL);
    assert_int_equal(cuplas_scheme_encode(CUPLAS_SCHEME_PLAIN, grid, H, W, C, NULL, empty, NULL,
                                          &imgs,
                                          &e), 0);
    for (int i = 0; i < imgs.n; i++) {
        snprintf(path, sizeof path, "%s/sorted/%s.webp", pattern, imgs.img[i].name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        uint8_t buf[65536];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        cuplas_eval_image dec;
        assert_int_equal(cuplas_image_decode(CUPLAS_CODEC_WEBP, buf, n, imgs.img[i].channels,
                                             &dec, &e), 0);
        assert_memory_equal(dec.px, imgs.img[i].px, (size_t)(H * W * imgs.img[i].channels));
        free(dec.px);
    }
    cuplas_eval_images_free(&imgs);

    /* JSON round trip */
    char *js = cuplas_eval_result_json_str(&r);
    cuplas_json *doc = NULL;
    cuplas_eval_result back;
    assert_non_null(js);
    assert_int_equal(cuplas_json_parse(js, strlen(js), &doc, &e), 0);
    assert_int_equal(cuplas_eval_result_from_json(doc, &back), 0);
    assert_int_equal(back.N, N);
    assert_int_equal(back.codecs, o.codecs);
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++)
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++)
            assert_int_equal(back.order[k].bytes[c], r.order[k].bytes[c]);
    assert_true(cuplas_json_get(doc, "dpq16") != NULL);
    assert_true(fabs(cuplas_json_get_num(cuplas_json_get(cuplas_json_get(doc, "ratios"), "input"),
                                         "png", 0) -
                     (double)r.order[0].bytes[0] / (double)r.order[1].bytes[0]) < 1e-12);
    cuplas_json_free(doc);
    free(js);
    tu_rmtree(pattern);
}

/* Which stored results answer a run's eval keys (a rerun skips those):
 * a table of what the run asks against one stored result. */
static void test_result_answers(void **state)
{
    (void)state;
    cuplas_eval_result r;
    cuplas_eval_opts o;
    const unsigned png = 1u << CUPLAS_CODEC_PNG, webp = 1u << CUPLAS_CODEC_WEBP,
                   sorted = 1u << CUPLAS_ORDER_SORTED,
                   morton = 1u << CUPLAS_ORDER_MORTON, random = 1u << CUPLAS_ORDER_RANDOM;
    static const struct {
        unsigned codecs, orders;
        int scheme, webp_method, png_level, seed;
        int answers;
    } cases[] = {
        /* stored: sog asked, plain measured; png + webp at method 6; sorted + morton */
        {1 << 0 | 1 << 1, 1 << 0 | 1 << 3, 1, 6, -1, 0, 1},   /* the same keys     */
        {1 << 0,          1 << 3,          1, 6, -1, 0, 1},   /* fewer codecs, orders */
        {1 << 0,          1 << 3,          1, 4, -1, 0, 1},   /* method of no codec asked */
        {1 << 1,          1 << 3,          1, 4, -1, 0, 0},   /* webp at another method */
        {1 << 0,          1 << 3,          1, 6,  6, 0, 0},   /* png at another level */
        {1 << 2,          1 << 3,          1, 6, -1, 0, 0},   /* a codec not measured */
        {1 << 0,          1 << 2,          1, 6, -1, 0, 0},   /* an order not measured */
        {1 << 0,          1 << 3,          0, 6, -1, 0, 0},   /* plain asked */
        {1 << 0,          1 << 3,          2, 6, -1, 0, 0},   /* gsplat asked */
    };

    memset(&r, 0, sizeof r);
    r.scheme = CUPLAS_SCHEME_PLAIN;
    r.scheme_asked = CUPLAS_SCHEME_SOG;
    r.codecs = png | webp;
    r.orders = sorted | morton;
    r.dpq_p = CUPLAS_DPQ_P;
    cuplas_codec_opts_default(&r.codec);
    r.codec.webp_method = 6;
    assert_int_equal(CUPLAS_CODEC_PNG, 0);
    assert_int_equal(CUPLAS_CODEC_WEBP, 1);
    assert_int_equal(CUPLAS_CODEC_JXL, 2);
    assert_int_equal(CUPLAS_ORDER_SORTED, 0);
    assert_int_equal(CUPLAS_ORDER_RANDOM, 2);
    assert_int_equal(CUPLAS_ORDER_MORTON, 3);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cuplas_eval_opts_default(&o);
        o.codecs = cases[i].codecs;
        o.orders = cases[i].orders;
        o.scheme = (cuplas_scheme)cases[i].scheme;
        o.codec.webp_method = cases[i].webp_method;
        if (cases[i].png_level >= 0)
            o.codec.png_level = cases[i].png_level;
        print_message("case %zu\n", i);
        assert_int_equal(cuplas_eval_result_answers(&r, &o), cases[i].answers);
    }
    /* the random order's seed counts only where that order is asked for */
    r.orders |= random;
    r.seed = 7;
    cuplas_eval_opts_default(&o);
    o.codecs = png, o.orders = morton, o.scheme = CUPLAS_SCHEME_SOG;
    assert_int_equal(cuplas_eval_result_answers(&r, &o), 1);
    o.orders = random;
    assert_int_equal(cuplas_eval_result_answers(&r, &o), 0);
    o.seed = 7;
    assert_int_equal(cuplas_eval_result_answers(&r, &o), 1);
    o.dpq_p = 2;
    assert_int_equal(cuplas_eval_result_answers(&r, &o), 0);

    /* what was asked survives the JSON (the output's attribute) */
    {
        cuplas_error e;
        cuplas_json *doc = NULL;
        cuplas_eval_result back;
        char *js;
        cuplas_error_clear(&e);
        for (int k = 0; k < CUPLAS_ORDER_COUNT; k++) {
            r.order[k].and_ = r.order[k].vad = r.order[k].dpq = NAN;
            for (int c = 0; c < CUPLAS_CODEC_COUNT; c++)
                r.order[k].bytes[c] = (r.orders >> k & 1) && (r.codecs >> c & 1) ? 100 + k : -1;
        }
        assert_non_null(js = cuplas_eval_result_json_str(&r));
        assert_int_equal(cuplas_json_parse(js, strlen(js), &doc, &e), 0);
        assert_int_equal(cuplas_eval_result_from_json(doc, &back), 0);
        assert_int_equal(back.scheme, CUPLAS_SCHEME_PLAIN);
        assert_int_equal(back.scheme_asked, CUPLAS_SCHEME_SOG);
        assert_int_equal(back.codecs, r.codecs);
        assert_int_equal(back.orders, r.orders);
        assert_int_equal(back.codec.webp_method, 6);
        cuplas_json_free(doc);
        free(js);
        /* no fallback: no such key, and it reads as the scheme */
        r.scheme_asked = r.scheme;
        assert_non_null(js = cuplas_eval_result_json_str(&r));
        assert_null(strstr(js, "scheme_asked"));
        assert_int_equal(cuplas_json_parse(js, strlen(js), &doc, &e), 0);
        assert_int_equal(cuplas_eval_result_from_json(doc, &back), 0);
        assert_int_equal(back.scheme_asked, CUPLAS_SCHEME_PLAIN);
        cuplas_json_free(doc);
        free(js);
    }
}

/* Items of a small padded grid for the encode tests: noise-like values
 * in [0, 100], 7 channels (plain: RGB, RGB, gray), and a sorted map. */
enum { EH = 40, EW = 36, EC = 7, EN = 1400 };

static void encode_case(double *items, int64_t *map)
{
    for (int i = 0; i < EN * EC; i++)
        items[i] = (double)((i * 7919u + (unsigned)i * i) % 101u);
    for (int k = 0; k < EH * EW; k++)
        map[k] = k < EN ? (int64_t)((k * 13) % EN) : -1;   /* 13 is prime to 1400 */
}

/* Each image's bytes as the serial path measures them (cuplas_images_bytes,
 * one order and codec at a time, as before the per-image tasks): the
 * orders built here, gathered and coded by the plain scheme. */
static void serial_bytes(const double *items, const int64_t *sorted,
                         int64_t want[CUPLAS_ORDER_COUNT][CUPLAS_CODEC_COUNT][8], int *nimg)
{
    const int64_t cells = EH * EW;
    int64_t *map = malloc(cells * sizeof *map);
    double *grid = malloc(cells * EC * sizeof *grid);
    uint8_t empty[EH * EW];
    cuplas_codec_opts co;
    cuplas_error e;
    cuplas_error_clear(&e);
    cuplas_codec_opts_default(&co);
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++) {
        cuplas_eval_images imgs = {0};
        if (k == CUPLAS_ORDER_SORTED)
            memcpy(map, sorted, cells * sizeof *map);
        else if (k == CUPLAS_ORDER_INPUT)
            cuplas_order_input(EN, cells, map);
        else if (k == CUPLAS_ORDER_RANDOM)
            cuplas_order_random(EN, cells, 0, map);
        else
            assert_int_equal(cuplas_order_morton(items, EN, EC, NULL, cells, map, NULL, &e), 0);
        cuplas_eval_gather(items, EC, map, cells, grid, empty, NULL);
        assert_int_equal(cuplas_scheme_encode(CUPLAS_SCHEME_PLAIN, grid, EH, EW, EC, NULL, empty,
                                              NULL,
                                              &imgs, &e), 0);
        assert_true(imgs.n <= 8);
        *nimg = imgs.n;
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++) {
            int64_t total;
            assert_int_equal(cuplas_images_bytes(&imgs, (cuplas_codec)c, &co, NULL, &total,
                                                 want[k][c], &e), 0);
        }
        cuplas_eval_images_free(&imgs);
    }
    free(map);
    free(grid);
}

/* The encodes run one task per (order, codec, image): on 1, 2, 3 and 4
 * threads each image's bytes are the serial path's, the totals their sums,
 * and the files written under images_dir the same bytes. */
static void test_encode_threads(void **state)
{
    (void)state;
    /* < 0: a pool of that many threads, the caller on one OpenMP thread (as
       run's GPU lanes) */
    static const int threads[] = {1, 2, 3, 4, -3};
    double *items = malloc(EN * EC * sizeof *items);
    int64_t map[EH * EW], want[CUPLAS_ORDER_COUNT][CUPLAS_CODEC_COUNT][8];
    char dirs[5][PATH_MAX];
    int nimg = 0;
    const int nt = cuplas_max_threads();

    encode_case(items, map);
    serial_bytes(items, map, want, &nimg);
    assert_int_equal(nimg, 3);
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        cuplas_eval_opts o;
        cuplas_eval_result r;
        cuplas_error e;
        cuplas_error_clear(&e);
        cuplas_eval_opts_default(&o);
        o.codecs = 1u << CUPLAS_CODEC_PNG | 1u << CUPLAS_CODEC_WEBP | 1u << CUPLAS_CODEC_JXL;
        o.per_image = 1;
        snprintf(dirs[t], sizeof dirs[t], "/tmp/test_eval_threads.XXXXXX");
        assert_non_null(mkdtemp(dirs[t]));
        o.images_dir = dirs[t];
        if (threads[t] < 0)
            assert_int_equal(cuplas_pool_create(-threads[t], &o.pool, &e), 0);
        cuplas_set_threads(threads[t] < 0 ? 1 : threads[t]);
        assert_int_equal(cuplas_evaluate(items, EN, EC, NULL, map, EH, EW, &o, &r, &e), 0);
        cuplas_set_threads(nt);
        cuplas_pool_free(o.pool);
        assert_int_equal(r.nimages, nimg);
        for (int k = 0; k < CUPLAS_ORDER_COUNT; k++)
            for (int c = 0; c < CUPLAS_CODEC_COUNT; c++) {
                int64_t sum = 0;
                for (int i = 0; i < nimg; i++) {
                    if (r.image_bytes[k][c][i] != want[k][c][i])
                        fail_msg("%d threads: %s %s image %d: %lld bytes, serially %lld",
                                 threads[t], cuplas_order_name((cuplas_order_kind)k),
                                 cuplas_codec_name((cuplas_codec)c), i,
                                 (long long)r.image_bytes[k][c][i], (long long)want[k][c][i]);
                    sum += want[k][c][i];
                    if (t == 0)
                        continue;
                    /* the file is the one-thread run's, byte for byte */
                    char a[PATH_MAX + 64], b[PATH_MAX + 64];
                    size_t na = 0, nb = 0;
                    snprintf(a, sizeof a, "%s/%s/plain_%03d.%s", dirs[0],
                             cuplas_order_name((cuplas_order_kind)k), i,
                             cuplas_codec_name((cuplas_codec)c));
                    snprintf(b, sizeof b, "%s/%s/plain_%03d.%s", dirs[t],
                             cuplas_order_name((cuplas_order_kind)k), i,
                             cuplas_codec_name((cuplas_codec)c));
                    char *da = tu_slurp_path(a, &na), *db = tu_slurp_path(b, &nb);
                    assert_non_null(da);
                    assert_non_null(db);
                    assert_int_equal(na, nb);
                    assert_int_equal((int64_t)na, want[k][c][i]);
                    assert_memory_equal(da, db, na);
                    free(da);
                    free(db);
                }
                assert_int_equal(r.order[k].bytes[c], sum);
            }
    }
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++)
        tu_rmtree(dirs[t]);
    free(items);
}

/* Two encodes fail (a folder where the file goes): the one first in
 * (order, codec, image) order is reported on any thread count, even when
 * the other fails first in time. sorted/plain_000.webp is a slow WebP
 * (noise at method 6) that fails at its write; input/plain_000.png is a
 * fast PNG that a second thread finishes and fails long before. */
static void test_encode_error_order(void **state)
{
    (void)state;
    enum { S = 256, SN = S * S };
    static const int threads[] = {1, 4, -3};   /* < 0: a pool, as above */
    double *items = malloc(SN * 3 * sizeof *items);
    int64_t *map = malloc(SN * sizeof *map);
    uint32_t x = 12345;
    const int nt = cuplas_max_threads();

    for (int i = 0; i < SN * 3; i++) {
        x = x * 1664525u + 1013904223u;
        items[i] = (double)(x >> 24);
    }
    for (int k = 0; k < SN; k++)
        map[k] = k;
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        char dir[] = "/tmp/test_eval_fail.XXXXXX", blk[PATH_MAX];
        cuplas_eval_opts o;
        cuplas_eval_result r;
        cuplas_error e;
        assert_non_null(mkdtemp(dir));
        static const char *const blocked[] = {"sorted", "sorted/plain_000.webp", "input",
                                              "input/plain_000.png"};
        for (int b = 0; b < 4; b++) {
            snprintf(blk, sizeof blk, "%s/%s", dir, blocked[b]);
            assert_int_equal(mkdir(blk, 0755), 0);
        }
        cuplas_error_clear(&e);
        cuplas_eval_opts_default(&o);
        o.codecs = 1u << CUPLAS_CODEC_PNG | 1u << CUPLAS_CODEC_WEBP;
        o.dpq_max_n = -1;
        o.images_dir = dir;
        if (threads[t] < 0)
            assert_int_equal(cuplas_pool_create(-threads[t], &o.pool, &e), 0);
        cuplas_set_threads(threads[t] < 0 ? 1 : threads[t]);
        int rc = cuplas_evaluate(items, SN, 3, NULL, map, S, S, &o, &r, &e);
        cuplas_set_threads(nt);
        cuplas_pool_free(o.pool);
        assert_int_equal(rc, CUPLAS_ERR_OUTPUT);
        if (!strstr(e.msg, "/sorted/plain_000.webp: Is a directory"))
            fail_msg("%d threads: %s", threads[t], e.msg);
        tu_rmtree(dir);
    }
    free(items);
    free(map);
}

/* --orders / eval.orders lists: sorted is added, anything else exact. */
static void test_parse_orders(void **state)
{
    (void)state;
    const unsigned S = 1u << CUPLAS_ORDER_SORTED, I = 1u << CUPLAS_ORDER_INPUT,
                   R = 1u << CUPLAS_ORDER_RANDOM, M = 1u << CUPLAS_ORDER_MORTON;
    const struct {
        const char *list;
        unsigned mask;    /* 0: refused */
        const char *why;  /* in the message */
    } cases[] = {
        {"sorted,morton", S | M, NULL},
        {"morton", S | M, NULL},
        {"sorted", S, NULL},
        {"input,random", S | I | R, NULL},
        {"morton,random,input,sorted", S | I | R | M, NULL},
        {"", 0, "an empty list"},
        {"foo", 0, "unknown order 'foo'"},
        {"sorted,Morton", 0, "unknown order 'Morton'"},
        {"sorted,morton_and_a_long_tail", 0, "unknown order 'morton_and_a_long_tail'"},
        {"morton,morton", 0, "'morton' is listed twice"},
        {"sorted,sorted", 0, "'sorted' is listed twice"},
        {"sorted,", 0, "an empty entry in 'sorted,'"},
        {",morton", 0, "an empty entry in ',morton'"},
        {"sorted,,morton", 0, "an empty entry"},
        {"sorted morton", 0, "unknown order 'sorted morton'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned mask = 99;
        cuplas_error e;
        cuplas_error_clear(&e);
        int rc = cuplas_eval_parse_orders(cases[i].list, &mask, &e);
        if (cases[i].mask ? rc != 0 || mask != cases[i].mask
                          : rc != CUPLAS_ERR_USAGE || !strstr(e.msg, cases[i].why) ||
                                !strstr(e.msg, "(accepted: sorted, input, random, morton"))
            fail_msg("'%s': rc %d, mask %u, message '%s'", cases[i].list, rc, mask, e.msg);
    }
}

/* --codecs reads its list as --orders does: each name once, no empty
 * entry (a repeat and a trailing comma were taken), and no implicit one. */
static void test_parse_codecs(void **state)
{
    (void)state;
    const unsigned P = 1u << CUPLAS_CODEC_PNG, W = 1u << CUPLAS_CODEC_WEBP,
                   J = 1u << CUPLAS_CODEC_JXL;
    const struct {
        const char *list;
        unsigned mask;    /* 0: refused */
        const char *why;  /* in the message */
    } cases[] = {
        {"png", P, NULL},
        {"webp,png", P | W, NULL},
        {"png,webp,jxl", P | W | J, NULL},
        {"", 0, "an empty list"},
        {"gif", 0, "unknown codec 'gif'"},
        {"png,PNG", 0, "unknown codec 'PNG'"},
        {"png,png", 0, "'png' is listed twice"},
        {"png,webp,", 0, "an empty entry in 'png,webp,'"},
        {",webp", 0, "an empty entry in ',webp'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned mask = 99;
        cuplas_error e;
        cuplas_error_clear(&e);
        int rc = cuplas_eval_parse_codecs(cases[i].list, &mask, &e);
        if (cases[i].mask ? rc != 0 || mask != cases[i].mask
                          : rc != CUPLAS_ERR_USAGE || !strstr(e.msg, cases[i].why) ||
                                !strstr(e.msg, "(accepted: png, webp, jxl"))
            fail_msg("'%s': rc %d, mask %u, message '%s'", cases[i].list, rc, mask, e.msg);
    }
}

/* Only sorted and Morton measured: their bytes (each image's too) and
 * metrics are the full run's; input and random cost nothing and are
 * absent from the JSON (bytes, bytes_per_item, ratios, image_bytes,
 * orders) and the table, not 0 bytes; the JSON reads back as measured. */
static void test_orders_subset(void **state)
{
    (void)state;
    double *items = malloc(EN * EC * sizeof *items);
    int64_t map[EH * EW];
    char dir[] = "/tmp/test_eval_orders.XXXXXX", path[PATH_MAX];
    cuplas_eval_opts o;
    cuplas_eval_result all, sub, back;
    cuplas_error e;
    struct stat st;

    cuplas_error_clear(&e);
    encode_case(items, map);
    cuplas_eval_opts_default(&o);
    o.per_image = 1;
    assert_int_equal(cuplas_evaluate(items, EN, EC, NULL, map, EH, EW, &o, &all, &e), 0);
    assert_int_equal(all.orders, CUPLAS_ORDERS_ALL);
    o.orders = 1u << CUPLAS_ORDER_SORTED | 1u << CUPLAS_ORDER_MORTON;
    assert_non_null(mkdtemp(dir));
    o.images_dir = dir;
    assert_int_equal(cuplas_evaluate(items, EN, EC, NULL, map, EH, EW, &o, &sub, &e), 0);
    assert_int_equal(sub.orders, o.orders);
    for (int k = 0; k < CUPLAS_ORDER_COUNT; k++) {
        const int on = k == CUPLAS_ORDER_SORTED || k == CUPLAS_ORDER_MORTON;
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++) {
            assert_int_equal(sub.order[k].bytes[c], on ? all.order[k].bytes[c] : -1);
            for (int i = 0; i < sub.nimages; i++)
                assert_int_equal(sub.image_bytes[k][c][i], on ? all.image_bytes[k][c][i] : -1);
        }
        if (on) {
            assert_true(sub.order[k].and_ == all.order[k].and_);
            assert_true(sub.order[k].vad == all.order[k].vad);
            assert_memory_equal(&sub.order[k].dpq, &all.order[k].dpq, sizeof(double));
        } else {
            assert_true(isnan(sub.order[k].and_) && isnan(sub.order[k].vad) &&
                        isnan(sub.order[k].dpq));
        }
        snprintf(path, sizeof path, "%s/%s", dir, cuplas_order_name((cuplas_order_kind)k));
        assert_int_equal(stat(path, &st) == 0, on);   /* no folder of its images */
    }
    assert_string_equal(sub.morton_keys, all.morton_keys);
    assert_true(isnan(cuplas_eval_ratio(&sub, CUPLAS_ORDER_INPUT, CUPLAS_CODEC_PNG)));

    char *js = cuplas_eval_result_json_str(&sub);
    cuplas_json *doc = NULL;
    assert_non_null(js);
    assert_int_equal(cuplas_json_parse(js, strlen(js), &doc, &e), 0);
    static const char *const keyed[] = {"bytes", "bytes_per_item", "ratios", "image_bytes",
                                        "orders"};
    for (size_t i = 0; i < sizeof keyed / sizeof keyed[0]; i++) {
        const cuplas_json *obj = cuplas_json_get(doc, keyed[i]);
        assert_non_null(obj);
        assert_null(cuplas_json_get(obj, "input"));
        assert_null(cuplas_json_get(obj, "random"));
        assert_non_null(cuplas_json_get(obj, "morton"));
        assert_int_equal(obj->n, i == 2 ? 1 : 2);   /* ratios: morton alone */
    }
    assert_int_equal(cuplas_eval_result_from_json(doc, &back), 0);
    assert_int_equal(back.orders, sub.orders);
    assert_true(isnan(back.order[CUPLAS_ORDER_INPUT].and_));
    assert_int_equal(back.order[CUPLAS_ORDER_MORTON].bytes[CUPLAS_CODEC_WEBP],
                     all.order[CUPLAS_ORDER_MORTON].bytes[CUPLAS_CODEC_WEBP]);
    cuplas_json_free(doc);
    free(js);
    /* an eval of before --orders (every order in "bytes") reads as all four */
    js = cuplas_eval_result_json_str(&all);
    assert_int_equal(cuplas_json_parse(js, strlen(js), &doc, &e), 0);
    assert_int_equal(cuplas_eval_result_from_json(doc, &back), 0);
    assert_int_equal(back.orders, CUPLAS_ORDERS_ALL);
    cuplas_json_free(doc);
    free(js);

    /* the table: no row, no ratio of an unmeasured order; said so */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    cuplas_eval_result_print(f, &sub);
    fclose(f);
    assert_null(strstr(text, "\ninput "));
    assert_null(strstr(text, "\nrandom "));
    assert_non_null(strstr(text, "\nmorton "));
    assert_non_null(strstr(text, "Not measured (--orders): input, random.\n"));
    assert_null(strstr(text, "nan"));
    free(text);
    /* sorted alone: no Morton column in the per-image table either */
    o.orders = 1u << CUPLAS_ORDER_SORTED;
    o.images_dir = NULL;
    assert_int_equal(cuplas_evaluate(items, EN, EC, NULL, map, EH, EW, &o, &sub, &e), 0);
    assert_string_equal(sub.morton_keys, "");
    assert_non_null(f = open_memstream(&text, &len));
    cuplas_eval_result_print(f, &sub);
    fclose(f);
    assert_null(strstr(text, "morton "));
    assert_null(strstr(text, "Morton of"));
    assert_null(strstr(text, "nan"));
    assert_non_null(strstr(text, "Not measured (--orders): input, random, morton.\n"));
    free(text);
    assert_non_null(js = cuplas_eval_result_json_str(&sub));
    assert_non_null(strstr(js, "\"morton_keys\": null"));
    assert_non_null(strstr(js, "\"ratios\": {}"));
    free(js);
    tu_rmtree(dir);
    free(items);
}

/* Preview: 2x2 gray items 0..3 over their 1..99 % range; enlarged. */
static void test_preview(void **state)
{
    (void)state;
    const double items[4] = {0, 1, 2, 3};
    const int64_t map[4] = {3, 2, 1, 0};
    cuplas_preview_opts o;
    cuplas_eval_image img;
    cuplas_error e;

    cuplas_error_clear(&e);
    cuplas_preview_opts_default(&o);
    assert_int_equal(cuplas_preview_build(items, 4, 1, map, 2, 2, &o, &img, &e), 0);
    assert_int_equal(img.channels, 3);
    assert_int_equal(img.H, 256);   /* each cell 128 x 128 */
    assert_int_equal(img.W, 2 * 256 + CUPLAS_PREVIEW_GAP);
    /* left panel top-left = item 0 (black), right panel top-left = item 3 (white) */
    assert_int_equal(img.px[0], 0);
    assert_int_equal(img.px[(size_t)(256 + CUPLAS_PREVIEW_GAP) * 3], 255);
    /* gray: R = G = B; item 1 of 0..3 is 85 */
    const uint8_t *p = img.px + (size_t)(128) * 3;
    assert_int_equal(p[0], 85);
    assert_int_equal(p[1], 85);
    assert_int_equal(p[2], 85);
    free(img.px);
    /* shrunk: a 100x100 grid under max_side 58 -> factor 4: 25 + 8 + 25 */
    enum { S = 100 };
    double *big = malloc(S * S * sizeof *big);
    int64_t *m = malloc(S * S * sizeof *m);
    for (int i = 0; i < S * S; i++)
        big[i] = i, m[i] = i;
    o.max_side = 58;
    assert_int_equal(cuplas_preview_build(big, S * S, 1, m, S, S, &o, &img, &e), 0);
    assert_int_equal(img.W, 58);
    assert_int_equal(img.H, 25);
    free(img.px);
    o.nchannels = 1;
    o.channels[0] = 3;
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_preview_build(big, S * S, 1, m, S, S, &o, &img, &e), CUPLAS_ERR_USAGE);
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_preview_parse_channels("0,1,1", &o, &e), CUPLAS_ERR_USAGE);
    assert_int_equal(cuplas_preview_parse_channels("2,0", &o, &e), 0);
    assert_int_equal(o.nchannels, 2);
    free(big);
    free(m);
}

/* The playcanvas scheme's SH bands: each order gets the palette an export
 * of that order would (the sorted order's two images are the bytes of
 * cuplas_sog_sh_encode on the sorted grid), empty cells label 0; bands
 * the format cannot hold are refused; the palette's settings are part of
 * what a stored eval answers. */
enum { SH = 18, SW = 18, SN = 299, SC = 12 };
static void test_sh_palette_per_order(void **state)
{
    (void)state;
    static const char *const names[SC] = {"x", "y", "z", "f_rest_0", "f_rest_1", "f_rest_2",
                                          "f_rest_3", "f_rest_4", "f_rest_5", "f_rest_6",
                                          "f_rest_7", "f_rest_8"};
    double *items = malloc(sizeof(double) * SN * SC), *grid = malloc(sizeof(double) * SH * SW * SC);
    int64_t map[SH * SW];
    uint8_t empty[SH * SW];
    cuplas_eval_opts o;
    cuplas_eval_result *r = malloc(sizeof *r);
    cuplas_error e;
    assert_true(items && grid && r);
    cuplas_error_clear(&e);
    for (int i = 0; i < SN; i++) {
        items[i * SC] = i % 17, items[i * SC + 1] = i / 17, items[i * SC + 2] = (i * 7) % 5;
        for (int k = 3; k < SC; k++)   /* smooth in i, with noise */
            items[i * SC + k] = sin(0.05 * i * (k - 2)) + 0.01 * (double)((i * 31 + k) % 7);
    }
    /* a padded grid: every 13th cell empty, the items in a scrambled order */
    for (int c = 0, i = 0; c < SH * SW; c++)
        map[c] = (c % 13 == 5 || i == SN) ? -1 : (int64_t)((i++ * 37) % SN);
    cuplas_eval_opts_default(&o);
    o.scheme = CUPLAS_SCHEME_PLAYCANVAS;
    o.codecs = 1u << CUPLAS_CODEC_PNG;
    o.orders = 1u << CUPLAS_ORDER_SORTED | 1u << CUPLAS_ORDER_MORTON;
    o.sh_palette = 16, o.sh_iterations = 5, o.per_image = 1;
    assert_int_equal(cuplas_evaluate(items, SN, SC, names, map, SH, SW, &o, r, &e), 0);
    assert_int_equal(r->sh_count, 16);
    assert_int_equal(r->nimages, 4);
    assert_string_equal(r->image_name[2], "shN_centroids");
    assert_string_equal(r->image_name[3], "shN_labels");

    /* the sorted order's images, made directly */
    cuplas_sog_sh sh = {0};
    cuplas_codec_opts co;
    int col[CUPLAS_PALETTE_MAX_D];
    cuplas_buf b = {NULL, 0, 0};
    cuplas_codec_opts_default(&co);
    assert_int_equal(cuplas_eval_gather(items, SC, map, SH * SW, grid, empty, NULL), 25);
    assert_int_equal(cuplas_sog_sh_bands(names, SC, &sh, col, &e), 0);
    assert_int_equal(sh.bands, 1);
    assert_int_equal(cuplas_sog_sh_encode(grid, SH, SW, SC, col, empty, 16, 5, -1, &sh, NULL, &e), 0);
    assert_int_equal(cuplas_image_bytes(&sh.centroids, CUPLAS_CODEC_PNG, &co, NULL, &b, &e), 0);
    assert_int_equal((int64_t)b.size, r->image_bytes[CUPLAS_ORDER_SORTED][CUPLAS_CODEC_PNG][2]);
    free(b.data), b.data = NULL, b.size = b.cap = 0;
    assert_int_equal(cuplas_image_bytes(&sh.labels, CUPLAS_CODEC_PNG, &co, NULL, &b, &e), 0);
    assert_int_equal((int64_t)b.size, r->image_bytes[CUPLAS_ORDER_SORTED][CUPLAS_CODEC_PNG][3]);
    free(b.data);
    for (int c = 0; c < SH * SW; c++)   /* empty: 0 everywhere; filled: opaque */
        assert_int_equal(sh.labels.px[c * 4 + 3], empty[c] ? 0 : 255);
    assert_int_equal(sh.labels.px[5 * 4] | sh.labels.px[5 * 4 + 1], 0);
    cuplas_sog_sh_free(&sh);

    /* the stored form, and what it answers */
    char *js = cuplas_eval_result_json_str(r);
    cuplas_json *doc = NULL;
    cuplas_eval_result *back = malloc(sizeof *back);
    assert_true(js && back);
    assert_non_null(strstr(js, "\"sh_palette\": {\"count\": 16, \"asked\": 16, "
                               "\"iterations\": 5}"));
    assert_int_equal(cuplas_json_parse(js, strlen(js), &doc, &e), 0);
    assert_int_equal(cuplas_eval_result_from_json(doc, back), 0);
    assert_true(back->sh_count == 16 && back->sh_palette == 16 && back->sh_iterations == 5);
    assert_int_equal(cuplas_eval_result_answers(back, &o), 1);
    o.sh_iterations = 10;
    assert_int_equal(cuplas_eval_result_answers(back, &o), 0);
    o.sh_iterations = 5, o.sh_palette = 0;
    assert_int_equal(cuplas_eval_result_answers(back, &o), 0);
    back->sh_count = -1;   /* stored before the palette */
    o.sh_palette = 16;
    assert_int_equal(cuplas_eval_result_answers(back, &o), 0);
    back->sh_count = 0;    /* no bands: the settings do not matter */
    o.sh_iterations = 3;
    assert_int_equal(cuplas_eval_result_answers(back, &o), 1);
    cuplas_json_free(doc);
    free(js);
    free(back);

    /* 10 coefficients are no whole band: refused before any work */
    static const char *const ten[SC] = {"x", "y", "z", "f_rest_0", "f_rest_1", "f_rest_2",
                                        "f_rest_3", "f_rest_4", "f_rest_5", "f_rest_6",
                                        "f_rest_7", "f_rest_9"};
    cuplas_error_clear(&e);
    assert_int_equal(cuplas_evaluate(items, SN, SC, ten, map, SH, SW, &o, r, &e), CUPLAS_ERR_INPUT);
    assert_non_null(strstr(e.msg, "not 1, 2 or 3 SH bands"));
    free(items), free(grid), free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metrics_hand), cmocka_unit_test(test_padded),
        cmocka_unit_test(test_dpq_reason),   cmocka_unit_test(test_extreme_values),
        cmocka_unit_test(test_bad_maps),     cmocka_unit_test(test_unsort),
        cmocka_unit_test(test_bytes_are_files), cmocka_unit_test(test_preview),
        cmocka_unit_test(test_encode_threads), cmocka_unit_test(test_encode_error_order),
        cmocka_unit_test(test_parse_orders),   cmocka_unit_test(test_parse_codecs),   cmocka_unit_test(test_orders_subset),
        cmocka_unit_test(test_result_answers), cmocka_unit_test(test_sh_palette_per_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
