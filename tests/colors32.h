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
#include "shared_data.h"

/* 1024 x 3 doubles (0..255) in row-major cell order; NULL (with a note)
 * when the file is absent. */
static inline double *tu_load_colors32(void)
{
    size_t n;
    char *data = tu_shared_data("colors_1024_random.png", &n);
    if (!data)
        return NULL;
    cuplas_eval_image im;
    cuplas_error err = {0};
    assert_int_equal(cuplas_image_decode(CUPLAS_CODEC_PNG, (const uint8_t *)data, n, 3, &im, &err),
                     0);
    free(data);
    assert_true(im.H == 32 && im.W == 32);
    double *x = malloc(1024 * 3 * sizeof *x);
    assert_non_null(x);
    for (int i = 0; i < 1024 * 3; i++)
        x[i] = im.px[i];
    free(im.px);
    return x;
}

#endif
