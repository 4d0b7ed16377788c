/*
 * pixel_sort.c - the PLAS README's pixel-sorting example with cuplas as a
 * library: a photo's pixels are the items (3 channels, R G B), sorted on
 * the photo's own H x W grid, written back as a PNG; before and after
 * side by side, with the AND of each.
 *
 *   examples/pixel_sort IN.png OUT.png [SEED]
 *
 * Run without arguments (as `make check` does) it sorts a small synthetic
 * picture and checks that AND fell. The README shows it on
 * shared/data/images/chelsea.png (CC0, scikit-image).
 */
#include "cuplas_build.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics.h"   /* provides: cuplas_and */
#include "core/params.h"    /* provides: cuplas_sort_params and its defaults */
#include "eval/codec.h"     /* provides: PNG in and out through libpng */
#include "sort/sort.h"      /* provides: cuplas_sort_features */

static int read_png(const char *path, cuplas_eval_image *img, cuplas_error *err)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n;
    int rc;
    if (!f)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n <= 0 || !(buf = malloc((size_t)n)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(buf);
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "cannot read %s", path);
    }
    fclose(f);
    rc = cuplas_image_decode(CUPLAS_CODEC_PNG, buf, (size_t)n, 3, img, err);
    free(buf);
    return rc;
}

int main(int argc, char **argv)
{
    cuplas_eval_image in = {0}, out = {0};
    cuplas_buf png = {NULL, 0, 0};
    cuplas_sort_params p;
    cuplas_sort_target target = {0};   /* CPU, no cancel, no progress */
    cuplas_sort_stats st;
    cuplas_error err = {0};
    double *x = NULL;
    int64_t *index = NULL;
    int rc = 1;

    if (argc >= 3) {
        if (read_png(argv[1], &in, &err) != 0)
            goto done;
    } else {   /* a small smooth gradient, shuffled by a fixed rule */
        in.H = 48, in.W = 40, in.channels = 3;
        if (!(in.px = malloc((size_t)(in.H * in.W * 3))))
            goto done;
        for (int64_t k = 0; k < in.H * in.W; k++) {
            int64_t s = (k * 977) % (in.H * in.W);   /* 977 is prime to 1920 */
            in.px[3 * k] = (uint8_t)(s % in.W * 6), in.px[3 * k + 1] = (uint8_t)(s / in.W * 5);
            in.px[3 * k + 2] = 128;
        }
    }
    int64_t N = in.H * in.W;
    if (!(x = malloc((size_t)N * 3 * sizeof *x)) || !(index = malloc((size_t)N * sizeof *index)))
        goto done;
    for (int64_t i = 0; i < N * 3; i++)
        x[i] = in.px[i];
    cuplas_sort_params_default(&p);
    p.seed = argc >= 4 ? strtoull(argv[3], NULL, 10) : 42;
    cuplas_sort_params_for_grid(&p, 3, N);   /* the row `cuplas sort` would pick */
    if (cuplas_sort_features(x, in.H, in.W, 3, &p, &target, index, &st, &err) != 0)
        goto done;
    /* sorted | gap | input would be the preview; here just the sorted photo */
    out = in;
    if (!(out.px = malloc((size_t)N * 3)))
        goto done;
    for (int64_t k = 0; k < N; k++)
        memcpy(out.px + 3 * k, in.px + 3 * index[k], 3);
    double before = cuplas_and(x, in.H, in.W, 3, NULL, NULL);
    double after = cuplas_and(x, in.H, in.W, 3, index, NULL);
    printf("%lldx%lld pixels: AND %.2f -> %.2f (%d levels)\n", (long long)in.H, (long long)in.W,
           before, after, st.levels);
    if (argc >= 3) {
        if (cuplas_image_encode(CUPLAS_CODEC_PNG, &out, NULL, &png, &err) != 0 ||
            cuplas_write_file(argv[2], png.data, png.size, &err) != 0)
            goto done;
        printf("wrote %s (%zu bytes)\n", argv[2], png.size);
    }
    rc = after < before ? 0 : 1;
done:
    if (err.code)
        fprintf(stderr, "pixel_sort: %s\n", err.msg);
    free(in.px);
    free(out.px);
    free(png.data);
    free(x);
    free(index);
    return rc;
}
