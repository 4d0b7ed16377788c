/*
 * sog_sh.c - the shN images of PlayCanvas SOG version 2.
 *
 * Layout (the format's spec): the palette's entry i holds
 * `coeffs` texels of shN_centroids (64 entries a row, so the texture is
 * 64 coeffs wide), texel j carrying coefficient j of red, green and blue
 * as labels into one 256-entry codebook of every centroid value
 * (eval/codebook.h, the scales' and colours' quantiser); shN_labels
 * carries each splat's entry as R = low byte, G = high byte. The palette
 * is k-means of the splats' coefficients (sort/palette.h), at SOG's size
 * for the splat count unless asked otherwise.
 */
#define _GNU_SOURCE
#include "eval/sog_sh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/channel_names.h"
#include "eval/codebook.h"

int cuplas_sog_sh_bands(const char *const *names, int C, cuplas_sog_sh *sh, int *col,
                        cuplas_error *err)
{
    int n = 0, any = 0;

    for (int c = 0; c < C; c++)
        any += !strncmp(names[c], "f_rest_", 7);
    for (; n < CUPLAS_PALETTE_MAX_D; n++) {
        char want[16];
        snprintf(want, sizeof want, "f_rest_%d", n);
        if ((col[n] = cuplas_channel_index(names, C, want)) < 0)
            break;
    }
    if (any != n || (n != 0 && n != 9 && n != 24 && n != 45)) {
        char run[48] = "none of them from f_rest_0 on";
        if (n > 0)
            snprintf(run, sizeof run, "f_rest_0 to f_rest_%d in a row", n - 1);
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "%d f_rest_* channels (%s) are not 1, "
                                "2 or 3 SH bands (9, 24 or 45 coefficients); --no-sh leaves "
                                "them out", any, run);
    }
    sh->coeffs = n / 3;
    sh->bands = n == 9 ? 1 : n == 24 ? 2 : n == 45 ? 3 : 0;
    return 0;
}

static int new_image(cuplas_eval_image *im, const char *name, int64_t W, int64_t H)
{
    snprintf(im->name, sizeof im->name, "%s", name);
    im->channels = 4;
    im->W = W;
    im->H = H;
    im->px = calloc((size_t)(W * H), 4);
    return im->px ? 0 : -1;
}

/* The splats' coefficients as floats, a block of cells an item: x's row
 * p for cell i is first[block] plus the filled cells before i in it. */
typedef struct coeff_task {
    const double *grid;
    const uint8_t *empty;
    const int *col;
    const int64_t *first;   /* per block: its first splat's row */
    int64_t cells;
    int C, D;
    float *x;
} coeff_task;

#define COEFF_CELLS 16384

/* 0, or 1 at a coefficient the palette does not take */
static int coeff_block(void *ctx, int64_t b)
{
    const coeff_task *t = ctx;
    const int64_t end = cuplas_par_block_end(b, COEFF_CELLS, t->cells);
    int64_t p = t->first[b];
    for (int64_t i = b * COEFF_CELLS; i < end; i++) {
        if (t->empty && t->empty[i])
            continue;
        for (int k = 0; k < t->D; k++) {
            double v = t->grid[i * t->C + t->col[k]];
            if (!cuplas_sog_sh_takes(v))
                return 1;
            t->x[p * t->D + k] = (float)v;
        }
        p++;
    }
    return 0;
}

int cuplas_sog_sh_encode(const double *grid, int64_t H, int64_t W, int C, const int *col,
                         const uint8_t *empty, int K, int iterations, int device,
                         cuplas_sog_sh *sh, cuplas_pool *pool, cuplas_error *err)
{
    const int D = 3 * sh->coeffs;
    const int64_t cells = H * W;
    int64_t count = 0, *first = NULL;
    int rc = 0;
    float *x = NULL;

    for (int64_t i = 0; i < cells; i++)
        count += !(empty && empty[i]);
    if (count == 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "no splats for the SH palette");
    const int64_t nb = cuplas_par_blocks(cells, COEFF_CELLS);
    if (!(x = malloc((size_t)count * D * sizeof *x)) ||
        !(first = malloc((size_t)(nb > 0 ? nb : 1) * sizeof *first)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for the SH palette of %lld splats",
                    (long long)count);
    for (int64_t b = 0, p = 0; b < nb; b++) {
        first[b] = p;
        for (int64_t i = b * COEFF_CELLS; i < cuplas_par_block_end(b, COEFF_CELLS, cells); i++)
            p += !(empty && empty[i]);
    }
    coeff_task ct = {grid, empty, col, first, cells, C, D, x};
    int64_t bad = cuplas_par_for(pool, nb, coeff_block, &ct, NULL);
    for (int64_t i = bad * COEFF_CELLS; bad < nb && i < cells; i++)   /* name the first */
        for (int k = 0; !(empty && empty[i]) && k < D; k++)
            CUPLAS_TRY(cuplas_sog_sh_check(grid[i * C + col[k]], k, i, err));
    rc = cuplas_sog_sh_fit(x, H, W, empty, K, iterations, device, sh, pool, err);
fail:
    free(first);
    free(x);
    return rc;
}

int cuplas_sog_sh_check(double v, int k, int64_t cell, cuplas_error *err)
{
    if (cuplas_sog_sh_takes(v))
        return 0;
    return cuplas_error_set(err, CUPLAS_ERR_INPUT, "f_rest_%d of the splat in cell %lld is %g: "
                            "the SH palette takes coefficients within +-1e18", k, (long long)cell,
                            v);
}

int cuplas_sog_sh_fit(const float *x, int64_t H, int64_t W, const uint8_t *empty, int K,
                      int iterations, int device, cuplas_sog_sh *sh, cuplas_pool *pool,
                      cuplas_error *err)
{
    const int D = 3 * sh->coeffs, n = sh->coeffs;
    const int64_t cells = H * W;
    int64_t count = 0;
    int rc = 0, *ch = NULL;
    float *cen = NULL;
    int32_t *label = NULL;
    double *cd = NULL;

    for (int64_t i = 0; i < cells; i++)
        count += !(empty && empty[i]);
    if (count == 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "no splats for the SH palette");
    if (K <= 0)
        K = cuplas_palette_sog_size(count);
    if (K > count)
        K = (int)count;
    sh->K = K;
    label = malloc((size_t)count * sizeof *label);
    cen = malloc((size_t)K * D * sizeof *cen);
    cd = malloc((size_t)K * D * sizeof *cd);
    ch = malloc((size_t)D * sizeof *ch);
    if (!label || !cen || !cd || !ch)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for the SH palette of %lld splats",
                    (long long)count);
    CUPLAS_TRY(cuplas_palette_fit(x, count, D, K, iterations, device, cen, label, &sh->st, pool,
                                  err));

    /* one codebook for every centroid value; entry i's texels */
    for (int64_t k = 0; k < (int64_t)K * D; k++)
        cd[k] = cen[k];
    for (int k = 0; k < D; k++)
        ch[k] = k;
    cuplas_codebook_build(cd, K, D, ch, D, NULL, sh->codebook);
    if (new_image(&sh->centroids, "shN_centroids", 64 * (int64_t)n, (K + 63) / 64) != 0 ||
        new_image(&sh->labels, "shN_labels", W, H) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for the SH images");
    for (int i = 0; i < K; i++)
        for (int j = 0; j < n; j++) {
            uint8_t *t = sh->centroids.px + ((int64_t)i * n + j) * 4;
            for (int rgb = 0; rgb < 3; rgb++)
                t[rgb] = cuplas_codebook_label(sh->codebook, cd[(int64_t)i * D + rgb * n + j]);
            t[3] = 255;
        }
    for (int64_t i = 0, p = 0; i < cells; i++) {
        if (empty && empty[i])
            continue;   /* 0 in every plane, as the schemes' empty cells */
        uint8_t *t = sh->labels.px + i * 4;
        t[0] = (uint8_t)(label[p] & 0xff);
        t[1] = (uint8_t)(label[p] >> 8);
        t[3] = 255;
        p++;
    }
fail:
    free(ch);
    free(cd);
    free(cen);
    free(label);
    return rc;
}

static int copy_image(cuplas_eval_image *dst, const cuplas_eval_image *src)
{
    const size_t n = (size_t)(src->W * src->H) * (size_t)src->channels;
    *dst = *src;
    dst->px = NULL;
    if (src->px && !(dst->px = malloc(n ? n : 1)))
        return -1;
    if (src->px)
        memcpy(dst->px, src->px, n);
    return 0;
}

int cuplas_sog_sh_copy(cuplas_sog_sh *dst, const cuplas_sog_sh *src)
{
    cuplas_sog_sh_free(dst);
    *dst = *src;
    dst->centroids.px = dst->labels.px = NULL;
    if (copy_image(&dst->centroids, &src->centroids) != 0 ||
        copy_image(&dst->labels, &src->labels) != 0) {
        cuplas_sog_sh_free(dst);
        return -1;
    }
    return 0;
}

void cuplas_sog_sh_free(cuplas_sog_sh *sh)
{
    free(sh->centroids.px);
    free(sh->labels.px);
    sh->centroids.px = sh->labels.px = NULL;
}
