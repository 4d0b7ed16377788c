/*
 * test_eval_schemes.c - the baseline orders (src/eval/orders.c) and the
 * quantisation schemes (src/eval/schemes.c) on tiny named grids whose
 * codes can be worked out by hand.
 */
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "eval/orders.h"
#include "eval/schemes.h"
#include "util/pool.h"
#include "testutil.h"

static void test_morton_code(void **state)
{
    (void)state;
    assert_true(cuplas_morton3_21(1, 0, 0) == 4);
    assert_true(cuplas_morton3_21(0, 1, 0) == 2);
    assert_true(cuplas_morton3_21(0, 0, 1) == 1);
    assert_true(cuplas_morton3_21(2, 0, 0) == 32);
    assert_true(cuplas_morton3_21(0x1fffff, 0x1fffff, 0x1fffff) == 0x7fffffffffffffffull);
    assert_true(cuplas_morton3_21(0x1fffff, 0, 0) == 0x4924924924924924ull);
}

static void test_input_random(void **state)
{
    (void)state;
    int64_t a[12], b[12], c[12];
    cuplas_order_input(10, 12, a);
    for (int i = 0; i < 10; i++)
        assert_true(a[i] == i);
    assert_true(a[10] == -1 && a[11] == -1);
    cuplas_order_random(10, 12, 42, a);
    cuplas_order_random(10, 12, 42, b);
    cuplas_order_random(10, 12, 43, c);
    assert_true(tu_is_permutation(a, 10));
    assert_memory_equal(a, b, sizeof a);
    assert_memory_not_equal(a, c, 10 * sizeof *a);
    assert_true(a[10] == -1 && a[11] == -1);
}

/* The 8 corners of a cube, shuffled: Morton visits them in code order
 * x<<2 | y<<1 | z. */
static void test_morton_cube(void **state)
{
    (void)state;
    const int perm[8] = {5, 2, 7, 0, 3, 6, 1, 4};
    const char *names[4] = {"w", "z", "y", "x"}; /* named channels anywhere */
    double pts[8 * 4];
    for (int i = 0; i < 8; i++) {
        int code = perm[i];
        pts[i * 4 + 0] = 100 + i;            /* "w": ignored */
        pts[i * 4 + 3] = (code >> 2) & 1;    /* x */
        pts[i * 4 + 2] = (code >> 1) & 1;    /* y */
        pts[i * 4 + 1] = code & 1;           /* z */
    }
    int64_t order[9];
    const char *used = NULL;
    cuplas_error err = {0};
    assert_int_equal(cuplas_order_morton(pts, 8, 4, names, 9, order, &used, &err), 0);
    assert_string_equal(used, "xyz");
    for (int k = 0; k < 8; k++)
        assert_int_equal(perm[order[k]], k);
    assert_true(order[8] == -1);
}

/* Random points: a permutation, codes non-decreasing along the order. */
static void test_morton_cloud(void **state)
{
    (void)state;
    const int64_t N = 500;
    const char *names[3] = {"x", "y", "z"};
    double *p = tu_normals(N, 3, 11);
    int64_t *order = malloc((size_t)N * sizeof *order);
    cuplas_error err = {0};
    assert_int_equal(cuplas_order_morton(p, N, 3, names, N, order, NULL, &err), 0);
    assert_true(tu_is_permutation(order, N));
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int64_t i = 0; i < N; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], p[i * 3 + k]);
            hi[k] = fmax(hi[k], p[i * 3 + k]);
        }
    uint64_t prev = 0;
    for (int64_t i = 0; i < N; i++) {
        uint32_t q[3];
        for (int k = 0; k < 3; k++)
            q[k] = (uint32_t)floor((p[order[i] * 3 + k] - lo[k]) / (hi[k] - lo[k]) * 2097151.0 + 0.5);
        uint64_t code = cuplas_morton3_21(q[0], q[1], q[2]);
        assert_true(code >= prev);
        prev = code;
    }
    free(p);
    free(order);
}

/* Items along a line in 5-D plus small noise: the first principal
 * component is the line (up to sign, fixed by the largest entry). */
static void test_pca(void **state)
{
    (void)state;
    const int64_t N = 300;
    const int C = 5;
    const double u[5] = {0.1, -0.7, 0.2, 0.6, 0.3};
    double *noise = tu_normals(N, C, 5), *x = malloc((size_t)(N * C) * sizeof *x);
    double *proj = malloc((size_t)N * 3 * sizeof *proj);
    for (int64_t i = 0; i < N; i++)
        for (int c = 0; c < C; c++)
            x[i * C + c] = ((double)i - 149.5) * u[c] + 0.01 * noise[i * C + c];
    cuplas_error err = {0};
    assert_int_equal(cuplas_pca3(x, N, C, proj, &err), 0);
    /* the largest entry of u is -0.7, so the sign flips; |u|^2 = 0.99 */
    double r = 0;
    for (int64_t i = 0; i < N; i++)
        r = fmax(r, fabs(proj[i * 3] + ((double)i - 149.5) * sqrt(0.99)));
    assert_true(r < 0.1);
    /* no x/y/z names: the Morton order falls back to PCA */
    int64_t *order = malloc((size_t)N * sizeof *order);
    const char *used = NULL;
    assert_int_equal(cuplas_order_morton(x, N, C, NULL, N, order, &used, &err), 0);
    assert_string_equal(used, "pca");
    assert_true(tu_is_permutation(order, N));
    free(noise);
    free(x);
    free(proj);
    free(order);
}

static void test_gather(void **state)
{
    (void)state;
    const double x[6] = {1, 2, 3, 4, 5, 6};
    const int64_t order[4] = {2, -1, 0, 1};
    double g[8];
    uint8_t e[4];
    assert_int_equal(cuplas_eval_gather(x, 2, order, 4, g, e, NULL), 1);
    const double want[8] = {5, 6, 0, 0, 1, 2, 3, 4};
    assert_memory_equal(g, want, sizeof want);
    assert_true(e[0] == 0 && e[1] == 1 && e[2] == 0 && e[3] == 0);
}

/* 2x2 grid of a 3DGS layout plus one foreign channel; cell 3 empty. */
enum { NC = 16 };
static const char *const GS_NAMES[NC] = {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity",
                                         "scale_0", "scale_1", "scale_2", "rot_0", "rot_1",
                                         "rot_2", "rot_3", "nx", "f_rest_0"};
static void gs_grid(double *g, uint8_t *empty)
{
    for (int i = 0; i < 4; i++) {
        double *c = g + i * NC;
        c[0] = i;          /* x 0..2 over the filled cells */
        c[1] = 2 * i;      /* y 0..4 */
        c[2] = -i;         /* z -2..0 */
        c[3] = 1;          /* f_dc: fixed [-2, 4]: 1 -> 0.5 -> 128 */
        c[4] = -3;         /*        clipped -> 0 */
        c[5] = 4;          /*        -> 255 */
        c[6] = i;          /* opacity 0..2 */
        c[7] = c[8] = c[9] = 0.5 * i;
        c[10] = 2;         /* rot (2, 0, 0, 0): unit (1, 0, 0, 0) */
        c[11] = c[12] = c[13] = 0;
        c[14] = 7;         /* nx: constant */
        c[15] = 0.5 * i;   /* f_rest_0 */
        empty[i] = 0;
    }
    for (int k = 0; k < NC; k++)
        g[3 * NC + k] = 1e6; /* the empty cell: must not move any range */
    empty[3] = 1;
}

static const cuplas_eval_image *img(const cuplas_eval_images *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->img[i].name, name) == 0)
            return &s->img[i];
    fail_msg("no image %s", name);
    return NULL;
}

/* The 2x2 grid of gs_grid (cell 3 empty) coded by scheme sc; its images
 * must be want[0..n) with chans[] planes (chans NULL: not checked), and
 * the empty cell 0 in every plane. */
static void encode_gs(cuplas_scheme sc, cuplas_eval_images *s, const char *const *want,
                      const int *chans, int n)
{
    double g[4 * NC];
    uint8_t empty[4];
    cuplas_error err = {0};
    gs_grid(g, empty);
    assert_int_equal(cuplas_scheme_encode(sc, g, 2, 2, NC, GS_NAMES, empty, NULL, s, &err), 0);
    assert_int_equal(s->n, n);
    for (int i = 0; i < n; i++) {
        assert_string_equal(s->img[i].name, want[i]);
        if (chans)
            assert_int_equal(s->img[i].channels, chans[i]);
        for (int c = 0; c < s->img[i].channels; c++)
            assert_int_equal(s->img[i].px[3 * s->img[i].channels + c], 0);
    }
}

static void test_scheme_sog(void **state)
{
    (void)state;
    cuplas_eval_images s;
    const char *const want[] = {"xyz_lo", "xyz_hi", "f_dc", "f_rest_00",
                                "scale",  "rot",    "opacity", "extra_000"};
    const int chans[] = {3, 3, 3, 1, 3, 4, 1, 1};
    encode_gs(CUPLAS_SCHEME_SOG, &s, want, chans, 8);
    /* xyz: joint range -2..4 to 14 bits: y = 4 at cell 2 -> 16383 */
    const cuplas_eval_image *lo = img(&s, "xyz_lo"), *hi = img(&s, "xyz_hi");
    assert_int_equal(lo->px[2 * 3 + 1], 0xff);
    assert_int_equal(hi->px[2 * 3 + 1], 0x3f);
    /* z = -2 at cell 2 -> 0; x = 0 at cell 0 -> round(16383/3) = 5461 */
    assert_int_equal(lo->px[2 * 3 + 2] | hi->px[2 * 3 + 2] << 8, 0);
    assert_int_equal(lo->px[0] | hi->px[0] << 8, 5461);
    const cuplas_eval_image *dc = img(&s, "f_dc");
    assert_int_equal(dc->px[0], 128);
    assert_int_equal(dc->px[1], 0);
    assert_int_equal(dc->px[2], 255);
    /* f_rest fixed [-1, 1], 5 bits: 0.5 (cell 1) -> 0.75 * 31 = 23.25 -> 23 */
    assert_int_equal(img(&s, "f_rest_00")->px[1], 23);
    /* opacity 0..2, 6 bits: 1 -> 31.5 -> 32 */
    assert_int_equal(img(&s, "opacity")->px[1], 32);
    cuplas_eval_images_free(&s);
}

static void test_scheme_gsplat(void **state)
{
    (void)state;
    cuplas_eval_images s;
    const char *const want[] = {"means_l", "means_u", "scales", "quats",
                                "opacities", "sh0", "shN_00", "extra_000"};
    encode_gs(CUPLAS_SCHEME_GSPLAT, &s, want, NULL, 8);
    /* means per channel: x = log1p(1) at cell 1 of 0..log1p(2) */
    const cuplas_eval_image *l = img(&s, "means_l"), *u = img(&s, "means_u");
    int q = l->px[3] | u->px[3] << 8;
    assert_int_equal(q, (int)floor(log(2.0) / log(3.0) * 65535 + 0.5));
    assert_int_equal(l->px[2 * 3] | u->px[2 * 3] << 8, 65535);
    /* quats normalised to (1, 0, 0, 0) everywhere: a constant channel -> 0 */
    assert_int_equal(img(&s, "quats")->px[0], 0);
    /* sh0 per channel: constant channels code 0 */
    assert_int_equal(img(&s, "sh0")->px[2 * 3], 0);
    assert_int_equal(img(&s, "opacities")->px[2], 255);
    cuplas_eval_images_free(&s);
}

/* PlayCanvas SOG v2: truncated 16-bit log means, codebook labels, the
 * smallest-three quaternion, sigmoid opacity in sh0's alpha. */
static void test_scheme_playcanvas(void **state)
{
    (void)state;
    cuplas_eval_images s;
    cuplas_error err = {0};
    /* f_rest_0 makes no image (the palette's are the caller's: sog_sh.h),
       nor does nx: the format has no place for it */
    const char *const want[] = {"means_l", "means_u", "scales", "quats", "sh0"};
    const int chans[] = {3, 3, 3, 4, 4};
    encode_gs(CUPLAS_SCHEME_PLAYCANVAS, &s, want, chans, 5);
    /* x = log1p(1) of 0..log1p(2): 41347.99 truncates to 41347 (gsplat
       rounds to 41348); z = -log1p(1) of -log1p(2)..0: 24187 */
    const cuplas_eval_image *l = img(&s, "means_l"), *u = img(&s, "means_u");
    assert_int_equal(l->px[3] | u->px[3] << 8, 41347);
    assert_int_equal(l->px[3 + 2] | u->px[3 + 2] << 8, 24187);
    assert_int_equal(l->px[2 * 3] | u->px[2 * 3] << 8, 65535);
    /* scales 0, 0.5, 1 pooled: three runs, the last entry repeated to
       fill 256, so the top value is nearest the last of them (the
       writer's search gives the same) */
    const cuplas_eval_image *sc = img(&s, "scales");
    assert_int_equal(sc->px[0], 0);
    assert_int_equal(sc->px[3], 1);
    assert_int_equal(sc->px[2 * 3 + 1], 255);
    /* rot (2, 0, 0, 0): w largest, the rest 0 -> 255 * 0.5 = 127 */
    const uint8_t q0[4] = {127, 127, 127, 252};
    assert_memory_equal(img(&s, "quats")->px, q0, 4);
    /* f_dc 1, -3, 4 in every cell: entries -3, 1, 4 (4 repeated);
       opacity 0, 1, 2 -> 255 sigmoid, truncated: 127, 186, 224 */
    const cuplas_eval_image *dc = img(&s, "sh0");
    const uint8_t dc0[4] = {1, 0, 255, 127};
    assert_memory_equal(dc->px, dc0, 4);
    assert_int_equal(dc->px[4 + 3], 186);
    assert_int_equal(dc->px[2 * 4 + 3], 224);
    cuplas_eval_images_free(&s);   /* (its empty cell 0, the quaternion's alpha too) */

    /* quaternions as the writer packs them (worked out by hand) */
    static const char *const qn[7] = {"x", "y", "z", "rot_0", "rot_1", "rot_2", "rot_3"};
    static const double qs[6][4] = {
        {1, 0, 0, 0}, {0, -1, 0, 0}, {0.5, 0.5, 0.5, -0.5}, {0.1, -0.2, 0.9, 0.3},
        {-0.3, 0.2, -0.1, -0.9}, {0, 0, 0, 0},
    };
    static const uint8_t qw[6][4] = {
        {127, 127, 127, 252}, {127, 127, 127, 253}, {217, 217, 37, 252}, {145, 90, 182, 254},
        {182, 90, 145, 255}, {0, 0, 0, 252},
    };
    double h[6 * 7];
    for (int i = 0; i < 6; i++) {
        h[i * 7] = i, h[i * 7 + 1] = h[i * 7 + 2] = 0;
        memcpy(h + i * 7 + 3, qs[i], sizeof qs[i]);
    }
    assert_int_equal(cuplas_scheme_encode(CUPLAS_SCHEME_PLAYCANVAS, h, 2, 3, 7, qn, NULL, NULL,
                                          &s, &err),
                     0);
    assert_memory_equal(img(&s, "quats")->px, qw, sizeof qw);
    cuplas_eval_images_free(&s);
    /* three rot channels: no quaternion to pack, coded as gsplat does */
    assert_int_equal(cuplas_scheme_encode(CUPLAS_SCHEME_PLAYCANVAS, h, 2, 3, 6, qn, NULL, NULL,
                                          &s, &err),
                     0);
    assert_int_equal(img(&s, "quats")->channels, 3);
    cuplas_eval_images_free(&s);
    cuplas_scheme sc2;
    assert_int_equal(cuplas_scheme_parse("playcanvas", &sc2, &err), 0);
    assert_int_equal(sc2, CUPLAS_SCHEME_PLAYCANVAS);
}

static void test_scheme_plain_and_rest(void **state)
{
    (void)state;
    /* 5 channels: RGB, then 2 padded to RGB with a zero plane */
    double g[2 * 5] = {0, 1, 2, 3, 4, 10, 11, 12, 13, 14};
    cuplas_eval_images s;
    cuplas_error err = {0};
    assert_int_equal(cuplas_scheme_encode(CUPLAS_SCHEME_PLAIN, g, 1, 2, 5, NULL, NULL, NULL, &s,
                                          &err), 0);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.img[0].name, "plain_000");
    assert_string_equal(s.img[1].name, "plain_001");
    assert_int_equal(s.img[1].channels, 3);
    const uint8_t want1[6] = {0, 0, 0, 255, 255, 0};
    assert_memory_equal(s.img[1].px, want1, 6);
    cuplas_eval_images_free(&s);
    /* one channel: gray */
    assert_int_equal(cuplas_scheme_encode(CUPLAS_SCHEME_PLAIN, g, 2, 5, 1, NULL, NULL, NULL, &s,
                                          &err), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.img[0].channels, 1);
    cuplas_eval_images_free(&s);

    /* 6 f_rest channels (K = 2 per colour): image k = f_rest_k, _{2+k}, _{4+k} */
    const char *names[9] = {"x", "y", "z", "f_rest_0", "f_rest_1", "f_rest_2", "f_rest_3",
                            "f_rest_4", "f_rest_5"};
    double h[2 * 9] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
    assert_int_equal(cuplas_scheme_encode(CUPLAS_SCHEME_GSPLAT, h, 1, 2, 9, names, NULL, NULL, &s,
                                          &err), 0);
    assert_int_equal(s.n, 4);
    assert_string_equal(s.img[2].name, "shN_00");
    assert_string_equal(s.img[3].name, "shN_01");
    cuplas_eval_images_free(&s);

    /* sog/gsplat need x, y, z */
    cuplas_error_clear(&err);
    assert_int_equal(cuplas_scheme_encode(CUPLAS_SCHEME_SOG, g, 1, 2, 5, NULL, NULL, NULL, &s,
                                          &err),
                     CUPLAS_ERR_USAGE);
    cuplas_eval_images_free(&s);
    assert_false(cuplas_scheme_applies(CUPLAS_SCHEME_GSPLAT, NULL, 5));
    assert_true(cuplas_scheme_applies(CUPLAS_SCHEME_PLAIN, NULL, 5));
    cuplas_scheme sc;
    assert_int_equal(cuplas_scheme_parse("gsplat", &sc, &err), 0);
    assert_int_equal(sc, CUPLAS_SCHEME_GSPLAT);
    assert_int_equal(cuplas_scheme_parse("jpeg", &sc, &err), CUPLAS_ERR_USAGE);
}

/* Every scheme codes a grid of several cell blocks the same on one
 * thread, on three, and on a pool: texels, ranges and codebooks (empty
 * cells and non-finite values among them). */
static void test_scheme_threads(void **state)
{
    static const char *const names[] = {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity",
                                        "scale_0", "scale_1", "scale_2", "rot_0", "rot_1",
                                        "rot_2", "rot_3", "nx"};
    enum { H = 190, W = 250, C = 15 };
    double *g = malloc((size_t)H * W * C * sizeof *g);
    uint8_t *empty = malloc((size_t)H * W);
    uint64_t seed = 4242;
    cuplas_pool *pool = NULL;
    cuplas_error err = {0};
    assert_true(g && empty);
    for (int64_t i = 0; i < (int64_t)H * W; i++) {
        empty[i] = i % 97 == 5;
        for (int c = 0; c < C; c++)
            g[i * C + c] = ((double)(tu_next_u64(&seed) >> 11) / 9007199254740992.0 - 0.5) *
                           (c < 3 ? 40.0 : 4.0);
        if (i % 1013 == 7)
            g[i * C + (int)(i % C)] = NAN;
    }
    assert_int_equal(cuplas_pool_create(2, &pool, &err), 0);
    int saved = omp_get_max_threads();
    for (int sc = 0; sc < CUPLAS_SCHEME_COUNT; sc++) {
        cuplas_eval_images im[3];
        for (int r = 0; r < 3; r++) {
            omp_set_num_threads(r == 1 ? 3 : 1);
            assert_int_equal(cuplas_scheme_encode((cuplas_scheme)sc, g, H, W, C, names, empty,
                                                  r == 2 ? pool : NULL, &im[r], &err), 0);
        }
        if (sc == CUPLAS_SCHEME_GSPLAT) {   /* its position range, by a plain loop */
            const cuplas_eval_image *m = &im[0].img[0];
            assert_string_equal(m->name, "means_l");
            for (int j = 0; j < 3; j++) {
                double lo = INFINITY, hi = -INFINITY;
                for (int64_t i = 0; i < (int64_t)H * W; i++) {
                    double a = g[i * C + j];
                    a = a > 0 ? log1p(a) : (a < 0 ? -log1p(-a) : 0);
                    if (!empty[i] && isfinite(a))
                        lo = fmin(lo, a), hi = fmax(hi, a);
                }
                assert_true(m->lo[j] == lo && m->hi[j] == hi);
            }
        }
        for (int r = 1; r < 3; r++) {
            assert_int_equal(im[r].n, im[0].n);
            for (int k = 0; k < im[0].n; k++) {
                const cuplas_eval_image *a = &im[0].img[k], *b = &im[r].img[k];
                assert_string_equal(a->name, b->name);
                assert_memory_equal(a->px, b->px, (size_t)H * W * a->channels);
                assert_memory_equal(a->lo, b->lo, sizeof a->lo);
                assert_memory_equal(a->hi, b->hi, sizeof a->hi);
                assert_int_equal(!a->codebook, !b->codebook);
                if (a->codebook)
                    assert_memory_equal(a->codebook, b->codebook,
                                        CUPLAS_SCHEME_CODEBOOK * sizeof *a->codebook);
            }
        }
        for (int r = 0; r < 3; r++)
            cuplas_eval_images_free(&im[r]);
    }
    omp_set_num_threads(saved);
    cuplas_pool_free(pool);
    free(g), free(empty);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_morton_code),   cmocka_unit_test(test_input_random),
        cmocka_unit_test(test_morton_cube),   cmocka_unit_test(test_morton_cloud),
        cmocka_unit_test(test_pca),           cmocka_unit_test(test_gather),
        cmocka_unit_test(test_scheme_sog),    cmocka_unit_test(test_scheme_gsplat),
        cmocka_unit_test(test_scheme_playcanvas),
        cmocka_unit_test(test_scheme_plain_and_rest),
        cmocka_unit_test(test_scheme_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
