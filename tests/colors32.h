/*
 * colors32.h - the standard 32x32 colour benchmark
 * (shared/data/colors_1024_random.png, beside the checkout, or
 * $CUPLAS_SHARED_DATA), decoded with libpng through eval/codec, for the
 * suites that measure DPQ on it. Include after cmocka.h.
 */
#ifndef CUPLAS_TESTS_COLORS32_H
#define CUPLAS_TESTS_COLORS32_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "eval/codec.h"

/* 1024 x 3 doubles (0..255) in row-major cell order; NULL (with a note)
 * when the file is absent. */
static inline double *tu_load_colors32(void)
{
    char path[4096];
    const char *dir = getenv("CUPLAS_SHARED_DATA");
    snprintf(path, sizeof path, "%s/colors_1024_random.png",
             dir ? dir : CUPLAS_SRCDIR "/../shared/data");
    FILE *f = fopen(path, "rb");
    if (!f) {
        print_message("skipped: %s not found (set CUPLAS_SHARED_DATA)\n", path);
        return NULL;
    }
    static uint8_t data[1 << 16];
    size_t n = fread(data, 1, sizeof data, f);
    fclose(f);
    cuplas_eval_image im;
    cuplas_error err = {0};
    assert_int_equal(cuplas_image_decode(CUPLAS_CODEC_PNG, data, n, 3, &im, &err), 0);
    assert_true(im.H == 32 && im.W == 32);
    double *x = malloc(1024 * 3 * sizeof *x);
    assert_non_null(x);
    for (int i = 0; i < 1024 * 3; i++)
        x[i] = im.px[i];
    free(im.px);
    return x;
}

#endif
