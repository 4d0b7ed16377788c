/*
 * codec_refine.c - workshop experiment (issue 16, scenes): after the sort,
 * swap nearby cells to lower a codec proxy of the SOG images, and measure
 * what that buys in real PNG and WebP bytes against a Morton order.
 *
 *   bench/codec_refine RESULT.h5 [radius] [sweeps] [webp_method] [sum|min] [w0 w1 ...]
 *
 * The proxy: every 8-bit plane of every SOG image, every pixel pays
 * f(v - left) + f(v - up) ("sum"), or per image the cheaper of the two
 * predictors ("min": a codec picks its predictor, and an exact repeat of
 * a whole pixel costs nothing); f(0) = 0 and f(d) = 2 + log2 |d| (bits of
 * an entropy coder, roughly; exact repeats are what LZ77 and the colour
 * cache reward). wK weighs image K (scheme order). A sweep tries, for
 * each cell in row order, a swap with every cell within `radius`
 * (Chebyshev), and keeps it when the proxy falls.
 *
 * Result (bench/results/2026-11-24-cpu-refine): the proxy falls 3-7 %,
 * and WebP bytes rise 1-2 % on both captures in every variant; PNG moves
 * by -0.4..+1.5 %. A local swap search on a neighbour-difference proxy is
 * not how to beat Morton in bytes; nothing of it is in the product.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval/codec.h"
#include "eval/evaluate.h"
#include "eval/orders.h"
#include "eval/schemes.h"
#include "io/h5_lib.h"
#include "io/h5_read.h"
#include "io/h5_result.h"

#define MAXP 64

typedef struct refine {
    int64_t H, W;
    int P;                 /* bytes per cell over all images */
    uint8_t *v;            /* cells x P                      */
    int nimg, ch[MAXP];    /* images, and the planes of each */
    int wi[MAXP];          /* weight of each image (x16)     */
    int mode;              /* 1: sum of both residuals; 0: min */
    int f[256];            /* cost of |d| (x64)              */
} refine;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* the proxy of one pixel: per image, the cheaper of its residuals
 * against left and against up (a codec picks its predictor); an image's
 * pixel that repeats its neighbour exactly costs nothing */
static int64_t pix(const refine *r, int64_t y, int64_t x)
{
    const uint8_t *c = r->v + (y * r->W + x) * r->P;
    const uint8_t *l = x > 0 ? c - r->P : NULL;
    const uint8_t *u = y > 0 ? c - r->W * r->P : NULL;
    int64_t s = 0;
    for (int i = 0, p = 0; i < r->nimg; i++) {
        int eL = 0, eU = 0;
        for (int k = 0; k < r->ch[i]; k++, p++) {
            if (l)
                eL += r->f[abs((int)c[p] - (int)l[p])];
            if (u)
                eU += r->f[abs((int)c[p] - (int)u[p])];
        }
        int e = !l ? eU : !u ? eL : (r->mode ? eL + eU : (eL < eU ? eL : eU));
        s += (int64_t)e * r->wi[i];
    }
    return s;
}

static int64_t total(const refine *r)
{
    int64_t s = 0;
    for (int64_t y = 0; y < r->H; y++)
        for (int64_t x = 0; x < r->W; x++)
            s += pix(r, y, x);
    return s;
}

/* the pixels whose proxy depends on cell (y, x): itself, right, below */
static int64_t around(const refine *r, int64_t y, int64_t x, int64_t y2, int64_t x2)
{
    int64_t s = 0;
    int64_t ys[6] = {y, y, y + 1, y2, y2, y2 + 1}, xs[6] = {x, x + 1, x, x2, x2 + 1, x2};
    for (int i = 0; i < 6; i++) {
        if (ys[i] >= r->H || xs[i] >= r->W)
            continue;
        int dup = 0;
        for (int j = 0; j < i; j++)
            dup |= ys[j] == ys[i] && xs[j] == xs[i];
        if (!dup)
            s += pix(r, ys[i], xs[i]);
    }
    return s;
}

static void swap_cells(refine *r, int64_t a, int64_t b, int64_t *perm)
{
    uint8_t t[MAXP];
    memcpy(t, r->v + a * r->P, (size_t)r->P);
    memcpy(r->v + a * r->P, r->v + b * r->P, (size_t)r->P);
    memcpy(r->v + b * r->P, t, (size_t)r->P);
    int64_t q = perm[a];
    perm[a] = perm[b];
    perm[b] = q;
}

static int64_t sweep(refine *r, int R, int64_t *perm)
{
    int64_t kept = 0;
    for (int64_t y = 0; y < r->H; y++)
        for (int64_t x = 0; x < r->W; x++)
            for (int dy = 0; dy <= R; dy++)
                for (int dx = -R; dx <= R; dx++) {
                    if (dy == 0 && dx <= 0)
                        continue;
                    int64_t y2 = y + dy, x2 = x + dx;
                    if (y2 >= r->H || x2 < 0 || x2 >= r->W)
                        continue;
                    int64_t a = y * r->W + x, b = y2 * r->W + x2;
                    int64_t before = around(r, y, x, y2, x2);
                    swap_cells(r, a, b, perm);
                    if (around(r, y, x, y2, x2) < before)
                        kept++;
                    else
                        swap_cells(r, a, b, perm);
                }
    return kept;
}

static void bytes_of(const cuplas_eval_images *im, int method, int64_t out[2], int64_t *per)
{
    cuplas_codec_opts o;
    cuplas_error err = {0};
    cuplas_codec_opts_default(&o);
    o.webp_method = method;
    cuplas_images_bytes(im, CUPLAS_CODEC_PNG, &o, NULL, &out[0], per, &err);
    cuplas_images_bytes(im, CUPLAS_CODEC_WEBP, &o, NULL, &out[1], per ? per + im->n : NULL,
                        &err);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return fprintf(stderr, "usage: codec_refine RESULT.h5 [R] [sweeps] [m] [sum|min] [w...]\n"), 2;
    int R = argc > 2 ? atoi(argv[2]) : 1, sweeps = argc > 3 ? atoi(argv[3]) : 4;
    int method = argc > 4 ? atoi(argv[4]) : 2;
    cuplas_error err = {0};
    cuplas_h5_result res;
    cuplas_h5_quiet();
    if (cuplas_h5_result_read(argv[1], NULL, &res, &err) != 0)
        return fprintf(stderr, "%s\n", err.msg), 1;
    const cuplas_h5grid *g = &res.sorted;
    int64_t H = g->H, W = g->W, cells = H * W;
    int C = (int)g->C;
    int *use = malloc((size_t)C * sizeof *use);
    double *grid = malloc((size_t)cells * C * sizeof *grid);
    double *items = malloc((size_t)cells * C * sizeof *items);
    double *g2 = malloc((size_t)cells * C * sizeof *g2);
    int64_t *idx = malloc((size_t)cells * sizeof *idx), N;
    for (int c = 0; c < C; c++)
        use[c] = c;
    memcpy(idx, res.index, (size_t)cells * sizeof *idx);
    if (cuplas_h5grid_to_double(g, use, C, grid, NULL, &err) != 0 ||
        cuplas_eval_unsort(grid, idx, cells, C, items, &N, &err) != 0)
        return fprintf(stderr, "%s\n", err.msg), 1;
    const char *const *names = (const char *const *)res.names;

    /* Morton baseline */
    int64_t *mo = malloc((size_t)cells * sizeof *mo);
    cuplas_eval_images im = {0};
    int64_t mb[2], sb[2], rb[2], per_m[2 * CUPLAS_EVAL_MAX_IMAGES], per_s[2 * CUPLAS_EVAL_MAX_IMAGES],
        per_r[2 * CUPLAS_EVAL_MAX_IMAGES];
    cuplas_order_morton(items, N, C, names, cells, mo, NULL, &err);
    cuplas_eval_gather(items, C, mo, cells, g2, NULL, NULL);
    cuplas_scheme_encode(CUPLAS_SCHEME_SOG, g2, H, W, C, names, NULL, NULL, &im, &err);
    bytes_of(&im, method, mb, per_m);
    cuplas_eval_images_free(&im);

    /* the sorted grid, as images */
    if (cuplas_scheme_encode(CUPLAS_SCHEME_SOG, grid, H, W, C, names, NULL, NULL, &im, &err) != 0)
        return fprintf(stderr, "%s\n", err.msg), 1;
    bytes_of(&im, method, sb, per_s);

    refine r = {.H = H, .W = W};
    for (int i = 0; i < im.n; i++)
        for (int c = 0; c < im.img[i].channels; c++) {
            double w = argc > 6 + i ? atof(argv[6 + i]) : 1.0;
            r.P++;
            r.ch[i] = im.img[i].channels;
            r.wi[i] = (int)lround(16 * w);
        }
    r.nimg = im.n;
    r.mode = !(argc > 5 && strcmp(argv[5], "min") == 0);   /* 1: sum */
    r.v = malloc((size_t)cells * r.P);
    for (int64_t k = 0; k < cells; k++) {
        int p = 0;
        for (int i = 0; i < im.n; i++)
            for (int c = 0; c < im.img[i].channels; c++)
                r.v[k * r.P + p++] = im.img[i].px[k * im.img[i].channels + c];
    }
    r.f[0] = 0;
    for (int d = 1; d < 256; d++)
        r.f[d] = (int)lround(64 * (2 + log2(d)));
    int64_t *perm = malloc((size_t)cells * sizeof *perm);
    for (int64_t k = 0; k < cells; k++)
        perm[k] = k;
    printf("proxy %.4g", (double)total(&r));
    double t0 = now();
    for (int s = 0; s < sweeps; s++) {
        int64_t kept = sweep(&r, R, perm);
        printf(" -> %.4g (%lld swaps)", (double)total(&r), (long long)kept);
        fflush(stdout);
    }
    printf("  [%.2f s]\n", now() - t0);
    for (int64_t k = 0; k < cells; k++) {
        int p = 0;
        for (int i = 0; i < im.n; i++)
            for (int c = 0; c < im.img[i].channels; c++)
                im.img[i].px[k * im.img[i].channels + c] = r.v[k * r.P + p++];
    }
    bytes_of(&im, method, rb, per_r);
    printf("%-10s %10s %10s %10s %8s %8s\n", "image", "morton", "sorted", "refined", "s/m", "r/m");
    for (int c = 0; c < 2; c++) {
        printf("%s\n", c ? "WebP" : "PNG");
        for (int i = 0; i < im.n; i++) {
            int64_t m = per_m[c * im.n + i], s = per_s[c * im.n + i], q = per_r[c * im.n + i];
            printf("  %-8s %10lld %10lld %10lld %8.4f %8.4f\n", im.img[i].name, (long long)m,
                   (long long)s, (long long)q, (double)s / m, (double)q / m);
        }
        printf("  %-8s %10lld %10lld %10lld %8.4f %8.4f\n", "total", (long long)mb[c],
               (long long)sb[c], (long long)rb[c], (double)sb[c] / mb[c], (double)rb[c] / mb[c]);
    }
    return 0;
}
