/*
 * test_eval_codec.c - lossless round trips through libpng, libwebp and
 * libjxl (src/eval/codec.c), and the whole measuring path: a named grid,
 * each scheme, each order, each codec; the files written decode to the
 * scheme's planes exactly and their sizes add up to the bytes reported.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "eval/codec.h"
#include "eval/orders.h"
#include "eval/schemes.h"
#include "testutil.h"
#include "tmpdir.h"

static int setup(void **state) { return tu_fixture_new(state, "/tmp/cuplas-eval-XXXXXX"); }
static int teardown(void **state)
{
    tu_fixture_free(state);
    return 0;
}

/* A smooth pattern plus noise, with alpha 0 on some pixels whose RGB
 * must survive (WebP exact, JXL keep-invisible). */
static void pattern(cuplas_eval_image *im, int64_t H, int64_t W, int ch, uint64_t seed)
{
    memset(im, 0, sizeof *im);
    snprintf(im->name, sizeof im->name, "p%d", ch);
    im->H = H;
    im->W = W;
    im->channels = ch;
    im->px = malloc((size_t)(H * W * ch));
    for (int64_t i = 0; i < H * W * ch; i++) {
        uint32_t r = cuplas_philox(seed, 7, (uint32_t)i, 0, 0).v[0];
        im->px[i] = (uint8_t)((i / ch) % W * 3 + (r & 15));
        if (ch == 4 && i % 4 == 3 && (r >> 8) % 3 == 0)
            im->px[i] = 0;
    }
}

static void roundtrip(const cuplas_eval_image *im)
{
    cuplas_buf buf = {NULL, 0, 0};
    cuplas_error err = {0};
    for (int c = 0; c < CUPLAS_CODEC_COUNT; c++) {
        int rc = cuplas_image_encode((cuplas_codec)c, im, NULL, &buf, &err);
        if (rc)
            fail_msg("%s: %s", cuplas_codec_name((cuplas_codec)c), err.msg);
        assert_true(buf.size > 0);
        cuplas_eval_image back;
        assert_int_equal(cuplas_image_decode((cuplas_codec)c, buf.data, buf.size, im->channels, &back, &err), 0);
        assert_true(back.H == im->H && back.W == im->W && back.channels == im->channels);
        if (memcmp(back.px, im->px, (size_t)(im->H * im->W * im->channels)) != 0)
            fail_msg("%s: %d-channel %lldx%lld image does not round-trip",
                     cuplas_codec_name((cuplas_codec)c), im->channels, (long long)im->H,
                     (long long)im->W);
        free(back.px);
    }
    free(buf.data);
}

static void test_roundtrips(void **state)
{
    (void)state;
    const int64_t sizes[][2] = {{1, 1}, {7, 5}, {33, 64}, {2, 300}};
    const int chans[] = {1, 3, 4};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int k = 0; k < 3; k++) {
            cuplas_eval_image im;
            pattern(&im, sizes[s][0], sizes[s][1], chans[k], s * 3 + k);
            roundtrip(&im);
            free(im.px);
        }
}

/* Extra codec threads (libwebp's second thread) must not change a byte:
 * eval's bytes are the same on any thread count. */
static void test_codec_threads(void **state)
{
    (void)state;
    const int chans[] = {1, 3, 4};
    cuplas_codec_opts one, many;
    cuplas_codec_opts_default(&one);
    many = one;
    many.threads = 4;
    for (int k = 0; k < 3; k++) {
        cuplas_eval_image im;
        pattern(&im, 96, 128, chans[k], 40 + k);
        for (int c = 0; c < CUPLAS_CODEC_COUNT; c++) {
            cuplas_buf a = {NULL, 0, 0}, b = {NULL, 0, 0};
            cuplas_error err = {0};
            assert_int_equal(cuplas_image_encode((cuplas_codec)c, &im, &one, &a, &err), 0);
            assert_int_equal(cuplas_image_encode((cuplas_codec)c, &im, &many, &b, &err), 0);
            if (a.size != b.size || memcmp(a.data, b.data, a.size) != 0)
                fail_msg("%s, %d channels: %zu bytes on one thread, %zu with more",
                         cuplas_codec_name((cuplas_codec)c), chans[k], a.size, b.size);
            free(a.data);
            free(b.data);
        }
        free(im.px);
    }
}

static void test_errors(void **state)
{
    (void)state;
    cuplas_error err = {0};
    cuplas_eval_image im, out;
    cuplas_buf buf = {NULL, 0, 0};
    const uint8_t junk[16] = "not an image....";
    for (int c = 0; c < CUPLAS_CODEC_COUNT; c++) {
        cuplas_error_clear(&err);
        assert_int_equal(cuplas_image_decode((cuplas_codec)c, junk, sizeof junk, 0, &out, &err),
                         CUPLAS_ERR_INPUT);
    }
    cuplas_error_clear(&err);
    pattern(&im, 1, 16384, 1, 1);
    assert_int_equal(cuplas_image_encode(CUPLAS_CODEC_WEBP, &im, NULL, &buf, &err), CUPLAS_ERR_USAGE);
    im.channels = 2;
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_image_encode(CUPLAS_CODEC_PNG, &im, NULL, &buf, &err), CUPLAS_ERR_USAGE);
    free(im.px);
    free(buf.data);
    cuplas_codec c;
    assert_int_equal(cuplas_codec_parse("jxl", &c, &err), 0);
    assert_int_equal(c, CUPLAS_CODEC_JXL);
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_codec_parse("gif", &c, &err), CUPLAS_ERR_USAGE);
}

static int64_t file_size(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (int64_t)st.st_size;
}

static uint8_t *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc(*n + 1);
    assert_int_equal(fread(d, 1, *n, f), *n);
    fclose(f);
    return d;
}

/* A 3DGS-named 12x12 grid of 130 items (14 cells empty), every scheme,
 * order and codec: DIR/ORDER/NAME.EXT decode to the planes, sizes add up. */
static void test_measure_path(void **state)
{
    fixture *fx = *state;
    enum { H = 12, W = 12, N = 130, C = 15 };
    const char *names[C] = {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity", "scale_0",
                            "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3", "extra"};
    double *x = tu_normals(N, C, 3), *grid = malloc(H * W * C * sizeof *grid);
    int64_t order[H * W];
    uint8_t empty[H * W];
    cuplas_error err = {0};
    cuplas_codec_opts o;
    cuplas_codec_opts_default(&o);
    o.jxl_effort = 3; /* quick: any effort is lossless */
    for (int s = 0; s < CUPLAS_SCHEME_COUNT; s++)
        for (int ord = CUPLAS_ORDER_INPUT; ord < CUPLAS_ORDER_COUNT; ord++) {
            if (ord == CUPLAS_ORDER_INPUT)
                cuplas_order_input(N, H * W, order);
            else if (ord == CUPLAS_ORDER_RANDOM)
                cuplas_order_random(N, H * W, 1, order);
            else
                assert_int_equal(cuplas_order_morton(x, N, C, names, H * W, order, NULL, &err), 0);
            assert_int_equal(cuplas_eval_gather(x, C, order, H * W, grid, empty, NULL), H * W - N);
            cuplas_eval_images imgs;
            assert_int_equal(cuplas_scheme_encode((cuplas_scheme)s, grid, H, W, C, names, empty,
                                                  NULL,
                                                  &imgs, &err), 0);
            char dir[256];
            if (snprintf(dir, sizeof dir, "%s/%s-%s", fx->dir, cuplas_scheme_name((cuplas_scheme)s),
                         cuplas_order_name((cuplas_order_kind)ord)) >= (int)sizeof dir)
                fail_msg("path too long");
            assert_int_equal(mkdir(dir, 0777), 0);
            for (int c = 0; c < CUPLAS_CODEC_COUNT; c++) {
                int64_t total = -1, per[64];
                assert_true(imgs.n <= 64);
                int rc = cuplas_images_bytes(&imgs, (cuplas_codec)c, &o, dir, &total, per, &err);
                if (rc)
                    fail_msg("%s", err.msg);
                int64_t sum = 0;
                for (int i = 0; i < imgs.n; i++) {
                    char path[PATH_MAX + 64];
                    if (snprintf(path, sizeof path, "%s/%s.%s", dir, imgs.img[i].name,
                                 cuplas_codec_name((cuplas_codec)c)) >= (int)sizeof path)
                        fail_msg("path too long");
                    int64_t sz = file_size(path);
                    assert_true(sz == per[i]);
                    sum += sz;
                    size_t n;
                    uint8_t *data = read_all(path, &n);
                    cuplas_eval_image back;
                    assert_int_equal(cuplas_image_decode((cuplas_codec)c, data, n,
                                                         imgs.img[i].channels, &back, &err), 0);
                    assert_memory_equal(back.px, imgs.img[i].px,
                                        (size_t)(H * W * imgs.img[i].channels));
                    free(back.px);
                    free(data);
                }
                assert_true(sum == total);
                /* without a folder: the same bytes */
                int64_t again = -1;
                assert_int_equal(cuplas_images_bytes(&imgs, (cuplas_codec)c, &o, NULL, &again,
                                                     NULL, &err), 0);
                assert_true(again == total);
            }
            cuplas_eval_images_free(&imgs);
        }
    free(x);
    free(grid);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrips),
        cmocka_unit_test(test_codec_threads),
        cmocka_unit_test(test_errors),
        cmocka_unit_test_setup_teardown(test_measure_path, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
