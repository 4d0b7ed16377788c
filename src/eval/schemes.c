/*
 * schemes.c - plain, SOG and gsplat quantisation into 8-bit images
 * (schemes.h has what each scheme does and why).
 *
 * Every scheme is a list of groups: up to 4 channels, a value transform,
 * a range rule and a bit depth. One routine codes any group; the schemes
 * differ only in the list they build. The per-cell loops run in blocks of
 * cells on the caller's pool (a cell's texels depend on it alone; the
 * ranges are minima and maxima, the same in any order); a codebook's
 * histogram stays one serial pass, since its double sums must keep one
 * order.
 */
#include "eval/schemes.h"
#include "core/channel_names.h"
#include "eval/codebook.h"
#include "util/pool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* RANGE_CODEBOOK: labels into a codebook of the group's pooled values. */
typedef enum { RANGE_PER_CHANNEL, RANGE_JOINT, RANGE_FIXED, RANGE_CODEBOOK } range_rule;
/* XF_SMALLEST3: rot_0..3 as PlayCanvas SOG packs them (code_quats). */
typedef enum { XF_NONE, XF_SIGNED_LOG, XF_UNIT_NORM, XF_SMALLEST3 } transform;

typedef struct group {
    char name[24];     /* image stem; with bits > 8: stem + lo/hi suffix */
    char lo_sfx[4], hi_sfx[4];
    int ch[4], n;      /* channel indices, 1..4 */
    transform xf;
    range_rule range;
    double lo, hi;     /* RANGE_FIXED: values are clipped to [lo, hi] */
    int bits;          /* 1..16 */
    int trunc;         /* codes truncated, not rounded (PlayCanvas's writer) */
    int sigmoid_plane; /* -1, or the plane coded 255 sigmoid(v), truncated */
} group;

/* Groups a scheme can make: every channel alone at worst, plus slack. */
typedef struct plan {
    group *g;
    int n;
} plan;

const char *cuplas_scheme_name(cuplas_scheme s)
{
    static const char *const names[CUPLAS_SCHEME_COUNT] = {"plain", "sog", "gsplat",
                                                           "playcanvas"};
    return (unsigned)s < CUPLAS_SCHEME_COUNT ? names[s] : "?";
}

int cuplas_scheme_parse(const char *name, cuplas_scheme *s, cuplas_error *err)
{
    for (int i = 0; i < CUPLAS_SCHEME_COUNT; i++)
        if (strcmp(name, cuplas_scheme_name((cuplas_scheme)i)) == 0) {
            *s = (cuplas_scheme)i;
            return 0;
        }
    return cuplas_error_set(err, CUPLAS_ERR_USAGE,
                            "unknown scheme '%s' (plain, sog, gsplat, playcanvas)", name);
}

int cuplas_scheme_applies(cuplas_scheme s, const char *const *names, int C)
{
    if (s == CUPLAS_SCHEME_PLAIN)
        return 1;
    if ((unsigned)s >= CUPLAS_SCHEME_COUNT)
        return 0;
    return cuplas_channel_index(names, C, "x") >= 0 && cuplas_channel_index(names, C, "y") >= 0 &&
           cuplas_channel_index(names, C, "z") >= 0;
}

void cuplas_eval_images_free(cuplas_eval_images *imgs)
{
    for (int i = 0; i < imgs->n; i++) {
        free(imgs->img[i].px);
        free(imgs->img[i].codebook);
    }
    free(imgs->img);
    imgs->img = NULL;
    imgs->n = 0;
}

static group *add(plan *p, const char *name, transform xf, range_rule range, double lo, double hi,
                  int bits)
{
    group *g = &p->g[p->n++];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    g->xf = xf;
    g->range = range;
    g->lo = lo;
    g->hi = hi;
    g->bits = bits;
    g->sigmoid_plane = -1;
    return g;
}

/* The named channels prefix0.. (e.g. "rot_0".."rot_3") that exist, into g,
 * marking them taken. */
static void add_named(group *g, const char *const *names, int C, const char *const *want, int nwant,
                      char *taken)
{
    for (int i = 0; i < nwant; i++) {
        int c = cuplas_channel_index(names, C, want[i]);
        if (c >= 0 && !taken[c]) {
            g->ch[g->n++] = c;
            taken[c] = 1;
        }
    }
}

/* Channels not taken, 3 to an image, per-channel min..max to 8 bits. */
static void add_rest_plain(plan *p, int C, char *taken, const char *prefix)
{
    int k = 0;
    group *g = NULL;
    for (int c = 0; c < C; c++) {
        if (taken[c])
            continue;
        if (!g || g->n == 3) {
            char name[24];
            snprintf(name, sizeof name, "%s_%03d", prefix, k++);
            g = add(p, name, XF_NONE, RANGE_PER_CHANNEL, 0, 0, 8);
        }
        g->ch[g->n++] = c;
        taken[c] = 1;
    }
}

/* f_rest_0.. (as many as run on from 0), a coefficient an image when they
 * are 3K, else 3 in a row. */
static void add_f_rest(plan *p, const char *const *names, int C, char *taken, const char *prefix,
                       range_rule range, double lo, double hi, int bits)
{
    int R = 0, idx[512];
    for (; R < (int)(sizeof idx / sizeof *idx); R++) {
        char nm[24];
        snprintf(nm, sizeof nm, "f_rest_%d", R);
        if ((idx[R] = cuplas_channel_index(names, C, nm)) < 0 || taken[idx[R]])
            break;
    }
    const int per = R % 3 == 0 ? R / 3 : 0;
    for (int k = 0; k * 3 < R; k++) {
        char name[24];
        snprintf(name, sizeof name, "%s_%02d", prefix, k);
        group *g = add(p, name, XF_NONE, range, lo, hi, bits);
        for (int j = 0; j < 3 && (per ? 1 : k * 3 + j < R); j++) {
            int c = idx[per ? j * per + k : k * 3 + j];
            g->ch[g->n++] = c;
            taken[c] = 1;
        }
    }
}

static const char *const XYZ[] = {"x", "y", "z"};
static const char *const DC[] = {"f_dc_0", "f_dc_1", "f_dc_2"};
static const char *const SCALE[] = {"scale_0", "scale_1", "scale_2"};
static const char *const ROT[] = {"rot_0", "rot_1", "rot_2", "rot_3"};
static const char *const OPACITY[] = {"opacity"};

static void build_plan(cuplas_scheme s, const char *const *names, int C, char *taken, plan *p)
{
    group *g;
    switch (s) {
    case CUPLAS_SCHEME_PLAIN:
        add_rest_plain(p, C, taken, "plain");
        return;
    case CUPLAS_SCHEME_SOG:
        g = add(p, "xyz", XF_NONE, RANGE_JOINT, 0, 0, 14);
        strcpy(g->lo_sfx, "_lo");
        strcpy(g->hi_sfx, "_hi");
        add_named(g, names, C, XYZ, 3, taken);
        add_named(add(p, "f_dc", XF_NONE, RANGE_FIXED, -2, 4, 8), names, C, DC, 3, taken);
        add_f_rest(p, names, C, taken, "f_rest", RANGE_FIXED, -1, 1, 5);
        add_named(add(p, "scale", XF_NONE, RANGE_JOINT, 0, 0, 6), names, C, SCALE, 3, taken);
        add_named(add(p, "rot", XF_NONE, RANGE_JOINT, 0, 0, 6), names, C, ROT, 4, taken);
        add_named(add(p, "opacity", XF_NONE, RANGE_JOINT, 0, 0, 6), names, C, OPACITY, 1, taken);
        break;
    case CUPLAS_SCHEME_PLAYCANVAS:
        g = add(p, "means", XF_SIGNED_LOG, RANGE_PER_CHANNEL, 0, 0, 16);
        strcpy(g->lo_sfx, "_l");
        strcpy(g->hi_sfx, "_u");
        g->trunc = 1;
        add_named(g, names, C, XYZ, 3, taken);
        add_named(add(p, "scales", XF_NONE, RANGE_CODEBOOK, 0, 0, 8), names, C, SCALE, 3, taken);
        g = add(p, "quats", XF_SMALLEST3, RANGE_FIXED, 0, 0, 8);
        add_named(g, names, C, ROT, 4, taken);
        if (g->n != 4)   /* no quaternion to pack: its parts as gsplat codes them */
            g->xf = XF_UNIT_NORM, g->range = RANGE_PER_CHANNEL;
        g = add(p, "sh0", XF_NONE, RANGE_CODEBOOK, 0, 0, 8);
        add_named(g, names, C, DC, 3, taken);
        add_named(g, names, C, OPACITY, 1, taken);
        if (g->n > 0 && !strcmp(names[g->ch[g->n - 1]], "opacity"))
            g->sigmoid_plane = g->n - 1;
        /* the higher SH bands are SOG's k-means palette, which the caller
         * images (eval/sog_sh.h: evaluate.c, export-sog), not a plane
         * here; the format has no place for any other channel (a
         * trainer's normals): the bytes are the files export-sog writes */
        memset(taken, 1, (size_t)C);
        break;
    default: /* gsplat */
        g = add(p, "means", XF_SIGNED_LOG, RANGE_PER_CHANNEL, 0, 0, 16);
        strcpy(g->lo_sfx, "_l");
        strcpy(g->hi_sfx, "_u");
        add_named(g, names, C, XYZ, 3, taken);
        add_named(add(p, "scales", XF_NONE, RANGE_PER_CHANNEL, 0, 0, 8), names, C, SCALE, 3, taken);
        add_named(add(p, "quats", XF_UNIT_NORM, RANGE_PER_CHANNEL, 0, 0, 8), names, C, ROT, 4, taken);
        add_named(add(p, "opacities", XF_NONE, RANGE_PER_CHANNEL, 0, 0, 8), names, C, OPACITY, 1,
                  taken);
        add_named(add(p, "sh0", XF_NONE, RANGE_PER_CHANNEL, 0, 0, 8), names, C, DC, 3, taken);
        add_f_rest(p, names, C, taken, "shN", RANGE_PER_CHANNEL, 0, 0, 8);
        break;
    }
    add_rest_plain(p, C, taken, "extra");
    /* drop groups that found no channel */
    int k = 0;
    for (int i = 0; i < p->n; i++)
        if (p->g[i].n > 0)
            p->g[k++] = p->g[i];
    p->n = k;
}

/* The group's values of one cell after its transform, into v[0..n). */
static void cell_values(const group *g, const double *cellx, double *v)
{
    double norm = 0;
    for (int j = 0; j < g->n; j++) {
        double a = cellx[g->ch[j]];
        if (g->xf == XF_SIGNED_LOG)
            a = a > 0 ? log1p(a) : (a < 0 ? -log1p(-a) : 0);
        v[j] = a;
        norm += a * a;
    }
    if (g->xf == XF_UNIT_NORM) {
        norm = sqrt(norm);
        for (int j = 0; j < g->n; j++)
            v[j] = norm > 0 ? v[j] / norm : 0;
    }
}

/* Image channel count for n planes: gray, RGB (2 padded to 3), RGBA. */
static int image_channels(int n) { return n == 1 ? 1 : (n <= 3 ? 3 : 4); }

static int new_image(cuplas_eval_images *out, const char *stem, const char *sfx, int channels,
                     int64_t H, int64_t W)
{
    cuplas_eval_image *im = &out->img[out->n];
    memset(im, 0, sizeof *im);
    snprintf(im->name, sizeof im->name, "%s%s", stem, sfx);
    im->channels = channels;
    im->H = H;
    im->W = W;
    im->px = calloc((size_t)(H * W * channels), 1);
    if (!im->px)
        return -1;
    out->n++;
    return 0;
}

/* rot_0..3 as PlayCanvas SOG's writer packs them: unit length, the first
 * largest component by magnitude made positive (the quaternion negated
 * with it) and left out, the other three times sqrt(2), from [-1, 1] to
 * 0..255 truncated; alpha 252 + the left-out index. A zero or non-finite
 * quaternion codes 0, 0, 0, 252, as the writer's arithmetic makes it. */
static void code_quat(const group *g, const double *xi, uint8_t *o)
{
    double q[4], len = 0;
    int big = 0;
    for (int j = 0; j < 4; j++) {
        q[j] = xi[g->ch[j]];
        len += q[j] * q[j];
    }
    len = sqrt(len);
    o[0] = o[1] = o[2] = 0;
    o[3] = 252;
    if (!(len > 0) || !isfinite(len))
        return;
    for (int j = 1; j < 4; j++)
        if (fabs(q[j]) > fabs(q[big]))
            big = j;
    const double sign = q[big] < 0 ? -1 : 1;
    for (int j = 0, k = 0; j < 4; j++) {
        if (j == big)
            continue;
        double t = 255 * (sign * q[j] / len * 1.4142135623730951 * 0.5 + 0.5);
        o[k++] = (uint8_t)(t > 0 ? (t < 255 ? t : 255) : 0);
    }
    o[3] = (uint8_t)(252 + big);
}

/* One loop over the cells, a block of them an item of the pool. */
#define CELL_BLOCK 16384

typedef struct cells_task {
    const group *g;
    const double *x;
    int64_t cells;
    int C, nc;
    const uint8_t *empty;
    uint8_t *plo, *phi;          /* the images' texels                   */
    const double *lo, *hi;       /* quantise: the ranges                 */
    double top;                  /* quantise: the largest code           */
    double *blo, *bhi;           /* range: each block's minima, maxima   */
    const double *entry;         /* labels: the codebook                 */
    int nb;                      /* labels: its planes (then the sigmoid) */
} cells_task;

static int64_t block_end(const cells_task *t, int64_t b)
{
    return cuplas_par_block_end(b, CELL_BLOCK, t->cells);
}

static int quats_block(void *ctx, int64_t b)
{
    const cells_task *t = ctx;
    for (int64_t i = b * CELL_BLOCK; i < block_end(t, b); i++)
        if (!(t->empty && t->empty[i]))
            code_quat(t->g, t->x + i * t->C, t->plo + i * 4);
    return 0;
}

/* Labels into one codebook of the group's planes pooled (the sigmoid
 * plane, opacity, apart: 255 sigmoid(v), truncated). */
static int labels_block(void *ctx, int64_t b)
{
    const cells_task *t = ctx;
    for (int64_t i = b * CELL_BLOCK; i < block_end(t, b); i++) {
        if (t->empty && t->empty[i])
            continue;
        for (int j = 0; j < t->g->n; j++) {
            double v = t->x[i * t->C + t->g->ch[j]];
            if (j < t->nb) {
                t->plo[i * t->nc + j] = cuplas_codebook_label(t->entry, v);
            } else {
                double s = 255 / (1 + exp(-v));
                t->plo[i * t->nc + j] = (uint8_t)(s > 0 ? (s < 255 ? s : 255) : 0);   /* NaN: 0 */
            }
        }
    }
    return 0;
}

/* The group's minima and maxima over a block (finite values only). */
static int range_block(void *ctx, int64_t b)
{
    const cells_task *t = ctx;
    double v[4], *lo = t->blo + b * 4, *hi = t->bhi + b * 4;
    for (int j = 0; j < 4; j++) {
        lo[j] = INFINITY;
        hi[j] = -INFINITY;
    }
    for (int64_t i = b * CELL_BLOCK; i < block_end(t, b); i++) {
        if (t->empty && t->empty[i])
            continue;
        cell_values(t->g, t->x + i * t->C, v);
        for (int j = 0; j < t->g->n; j++)
            if (isfinite(v[j])) {
                lo[j] = fmin(lo[j], v[j]);
                hi[j] = fmax(hi[j], v[j]);
            }
    }
    return 0;
}

static int quantise_block(void *ctx, int64_t b)
{
    const cells_task *t = ctx;
    const group *g = t->g;
    double v[4];
    for (int64_t i = b * CELL_BLOCK; i < block_end(t, b); i++) {
        if (t->empty && t->empty[i])
            continue; /* stays 0: the fill value */
        cell_values(g, t->x + i * t->C, v);
        for (int j = 0; j < g->n; j++) {
            double u = t->hi[j] > t->lo[j] ? (v[j] - t->lo[j]) / (t->hi[j] - t->lo[j]) : 0;
            u = u > 0 ? (u < 1 ? u : 1) : 0; /* clips; NaN -> 0 */
            uint32_t q = (uint32_t)floor(u * t->top + (g->trunc ? 0 : 0.5));
            t->plo[i * t->nc + j] = (uint8_t)(q & 255u);
            if (t->phi)
                t->phi[i * t->nc + j] = (uint8_t)(q >> 8);
        }
    }
    return 0;
}

static int code_group(const group *g, const double *x, int64_t H, int64_t W, int C,
                      const uint8_t *empty, cuplas_pool *pool, cuplas_eval_images *out,
                      cuplas_error *err)
{
    const int64_t cells = H * W, nblk = cuplas_par_blocks(cells, CELL_BLOCK);
    cells_task t = {.g = g, .x = x, .cells = cells, .C = C, .empty = empty};
    if (g->xf == XF_SMALLEST3 || g->range == RANGE_CODEBOOK) {
        t.nc = image_channels(g->n);
        if (new_image(out, g->name, "", t.nc, H, W))
            return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "scheme: out of memory for image %s",
                                    g->name);
        cuplas_eval_image *im = &out->img[out->n - 1];
        t.plo = im->px;
        if (g->xf == XF_SMALLEST3) {
            (void)cuplas_par_for(pool, nblk, quats_block, &t, NULL);
            return 0;
        }
        if (!(im->codebook = malloc(CUPLAS_CODEBOOK_SIZE * sizeof *im->codebook)))
            return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "scheme: out of memory");
        t.nb = g->sigmoid_plane >= 0 ? g->sigmoid_plane : g->n;
        cuplas_codebook_build(x, cells, C, g->ch, t.nb, empty, im->codebook);
        t.entry = im->codebook;
        (void)cuplas_par_for(pool, nblk, labels_block, &t, NULL);
        return 0;
    }
    double lo[4], hi[4];
    for (int j = 0; j < 4; j++) {
        lo[j] = INFINITY;
        hi[j] = -INFINITY;
    }
    if (g->range == RANGE_FIXED) {
        for (int j = 0; j < g->n; j++) {
            lo[j] = g->lo;
            hi[j] = g->hi;
        }
    } else {
        t.blo = malloc((size_t)(nblk > 0 ? nblk : 1) * 4 * sizeof *t.blo);
        t.bhi = malloc((size_t)(nblk > 0 ? nblk : 1) * 4 * sizeof *t.bhi);
        if (!t.blo || !t.bhi) {
            free(t.blo), free(t.bhi);
            return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "scheme: out of memory");
        }
        (void)cuplas_par_for(pool, nblk, range_block, &t, NULL);
        for (int64_t b = 0; b < nblk; b++)
            for (int j = 0; j < g->n; j++) {
                lo[j] = fmin(lo[j], t.blo[b * 4 + j]);
                hi[j] = fmax(hi[j], t.bhi[b * 4 + j]);
            }
        free(t.blo), free(t.bhi);
        if (g->range == RANGE_JOINT)
            for (int j = 1; j < g->n; j++) {
                lo[0] = fmin(lo[0], lo[j]);
                hi[0] = fmax(hi[0], hi[j]);
            }
        for (int j = 0; j < g->n; j++)
            if (g->range == RANGE_JOINT) {
                lo[j] = lo[0];
                hi[j] = hi[0];
            }
    }
    const int wide = g->bits > 8;
    t.nc = image_channels(g->n);
    t.top = (double)((1u << g->bits) - 1);
    if (new_image(out, g->name, wide ? g->lo_sfx : "", t.nc, H, W) ||
        (wide && new_image(out, g->name, g->hi_sfx, t.nc, H, W)))
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "scheme: out of memory for image %s", g->name);
    t.plo = out->img[out->n - 1 - wide].px;
    t.phi = wide ? out->img[out->n - 1].px : NULL;
    for (int k = 0; k <= wide; k++)
        for (int j = 0; j < g->n; j++) {
            out->img[out->n - 1 - k].lo[j] = isfinite(lo[j]) ? lo[j] : 0;
            out->img[out->n - 1 - k].hi[j] = isfinite(hi[j]) ? hi[j] : 0;
        }
    t.lo = lo, t.hi = hi;
    (void)cuplas_par_for(pool, nblk, quantise_block, &t, NULL);
    return 0;
}

int cuplas_scheme_encode(cuplas_scheme s, const double *x, int64_t H, int64_t W, int C,
                         const char *const *names, const uint8_t *empty, cuplas_pool *pool,
                         cuplas_eval_images *out, cuplas_error *err)
{
    int rc = 0;
    char *taken = calloc((size_t)(C > 0 ? C : 1), 1);
    plan p = {calloc((size_t)C + 16, sizeof(group)), 0};
    out->n = 0;
    out->img = NULL;
    if (!taken || !p.g)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "scheme: out of memory");
    if ((unsigned)s >= CUPLAS_SCHEME_COUNT)
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "unknown scheme %d", (int)s);
    if (!cuplas_scheme_applies(s, names, C))
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE,
                    "scheme %s needs 3DGS channel names (x, y, z, ...); use plain",
                    cuplas_scheme_name(s));
    build_plan(s, names, C, taken, &p);
    /* at most two images a group */
    out->img = calloc((size_t)(2 * p.n + 1), sizeof *out->img);
    if (!out->img)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "scheme: out of memory");
    for (int i = 0; i < p.n; i++)
        CUPLAS_TRY(code_group(&p.g[i], x, H, W, C, empty, pool, out, err));
fail:
    free(taken);
    free(p.g);
    return rc;
}
