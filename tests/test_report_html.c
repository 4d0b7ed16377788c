/*
 * test_report_html.c - `cuplas report --html` draws in a real headless
 * browser (scripts/report-screenshot.sh, Debian's chromium), previews
 * included (cli/report_html.c).
 *
 * A screenshot's size alone cannot tell a page whose previews draw from one
 * whose previews are broken: a broken image leaves room for more table
 * text, which compresses no better. So the screenshot is decoded and its
 * distinct saturated colours counted. The page's own chrome (text, bars,
 * green ratios) has a few dozen to a hundred; two previews of 24 x 24
 * random colours add hundreds. The same page with its previews' data
 * replaced by an empty image is rendered as a control, so the check is
 * shown to fail when the previews do not draw.
 *
 * Exit 77 (skip) where no chromium is installed; bootstrap.sh test
 * installs it, so CI runs this.
 */
#define _GNU_SOURCE /* nftw, asprintf, vasprintf */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/codec.h"
#include "tmpdir.h"
#include "clitest.h"

#ifndef CUPLAS_SRCDIR
#error "CUPLAS_SRCDIR must name the source folder (Makefile.am sets it)"
#endif

/* A pixel counts as saturated when its channels spread over more than
 * this: text anti-aliasing is grey, the previews are random colours. */
#define SATURATED_SPREAD 64
/* What the two previews must add over the control page; 2 x 576 distinct
 * colours are drawn, the visible part of them far above this. */
#define PREVIEW_COLOURS_MIN 300

static int setup(void **state)
{
    return tu_fixture_new(state, CUPLAS_BUILDDIR "/tests/test_report_html.XXXXXX");
}

static int teardown(void **state)
{
    tu_fixture_free(state);
    return 0;
}

static int have_chromium(void)
{
    return system("command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||"
                  " command -v google-chrome >/dev/null 2>&1") == 0;
}

/* dst = src with the payload of every `src="data:image/png;base64,...` cut,
 * so each preview becomes a broken image and the rest stays as written. */
static void strip_previews(const fixture *f, const char *src, const char *dst)
{
    static const char mark[] = "src=\"data:image/png;base64,";
    size_t n;
    char *html = tu_slurp(f, src, &n);
    char path[PATH_MAX];
    FILE *out = fopen(tu_path(f->dir, dst, path), "w");
    assert_non_null(out);
    int cut = 0;
    for (char *p = html, *m; p && *p; p = m) {
        m = strstr(p, mark);
        if (!m) {
            fputs(p, out);
            break;
        }
        m += sizeof mark - 1;
        fwrite(p, 1, (size_t)(m - p), out);
        m = strchr(m, '"');
        assert_non_null(m);
        cut++;
    }
    assert_int_equal(fclose(out), 0);
    free(html);
    assert_int_equal(cut, 2); /* one preview a dataset */
}

/* Distinct saturated colours of a W x H screenshot (a PNG in the fixture). */
static int saturated_colours(const fixture *f, const char *name, int W, int H)
{
    size_t n = 0;
    char *png = tu_slurp(f, name, &n);
    cuplas_eval_image img;
    cuplas_error err;
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_image_decode(CUPLAS_CODEC_PNG, (const uint8_t *)png, n, 3, &img, &err), 0);
    assert_int_equal(img.W, W);
    assert_int_equal(img.H, H);
    uint8_t *seen = calloc((size_t)1 << 21, 1); /* one bit per 24-bit colour */
    assert_non_null(seen);
    int distinct = 0;
    for (int64_t i = 0; i < img.H * img.W; i++) {
        const uint8_t *px = img.px + 3 * i;
        int lo = px[0], hi = px[0];
        for (int c = 1; c < 3; c++) {
            lo = px[c] < lo ? px[c] : lo;
            hi = px[c] > hi ? px[c] : hi;
        }
        if (hi - lo <= SATURATED_SPREAD)
            continue;
        uint32_t key = (uint32_t)px[0] << 16 | (uint32_t)px[1] << 8 | px[2];
        if (!(seen[key >> 3] & (1u << (key & 7)))) {
            seen[key >> 3] |= (uint8_t)(1u << (key & 7));
            distinct++;
        }
    }
    free(seen);
    free(img.px);
    free(png);
    return distinct;
}

static void test_report_draws_previews(void **state)
{
    fixture *f = *state;
    assert_int_equal(tu_sh(f, "$B gen --size 24x24 --count 2 in.h5"), 0);
    assert_int_equal(tu_sh(f, "printf 'inputs: [{files: in.h5}]\\noutput: {dir: out, preview: true}\\n"
                              "eval: {enabled: true}\\nbackend: {device: cpu}\\n' >c.yaml && "
                              "$B run c.yaml --log-format text"),
                     0);
    assert_int_equal(tu_sh(f, "$B report out --html \"$PWD/r.html\""), 0);
    strip_previews(f, "r.html", "s.html");
    const char *shot = CUPLAS_SRCDIR "/scripts/report-screenshot.sh";
    assert_int_equal(tu_sh(f, "sh '%s' \"$PWD/r.html\" \"$PWD/shot.png\" 1200x900", shot), 0);
    assert_int_equal(tu_sh(f, "sh '%s' \"$PWD/s.html\" \"$PWD/control.png\" 1200x900", shot), 0);

    int page = saturated_colours(f, "shot.png", 1200, 900);
    int control = saturated_colours(f, "control.png", 1200, 900);
    print_message("distinct saturated colours: page %d, control (no previews) %d\n", page, control);
    assert_true(control > 0);   /* the control drew too: its green ratios */
    assert_true(page >= control + PREVIEW_COLOURS_MIN);
}

int main(void)
{
    if (!have_chromium()) {
        printf("no chromium (apt-get install chromium): skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_report_draws_previews, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
