/*
 * schemes.h - from a grid of named attributes to the 8-bit images a
 * lossless codec measures: the quantisation schemes of `cuplas eval`.
 *
 * A scheme splits the channels into groups, maps each group to integer
 * codes, and packs the codes into images of 1 (gray), 3 (RGB) or 4 (RGBA)
 * 8-bit planes. A code of more than 8 bits goes into two images, its low
 * byte and its high byte. Ranges (min/max) are taken over the items only,
 * so they do not depend on the order: every order of the same items gets
 * the same codes, only placed differently.
 *
 *  plain   any channels: each channel over its own min..max to 8 bits;
 *          images of 3 channels in channel order ("plain_000", ...); a
 *          last group of 1 is gray, of 2 is RGB with a zero third plane.
 *  sog     Self-Organizing Gaussians' bit depths and ranges
 *          (ecosystem.md §1.6, config umbrella_sh): x,y,z over their
 *          joint min..max to 14 bits -> "xyz_lo"/"xyz_hi" (RGB);
 *          f_dc_0..2 clipped to [-2, 4], 8 bits -> "f_dc" (RGB);
 *          f_rest clipped to [-1, 1], 5 bits; scale_0..2, rot_0..3 and
 *          opacity each over their group's joint min..max to 6 bits ->
 *          "scale" (RGB), "rot" (RGBA), "opacity" (gray).
 *  gsplat  gsplat's PNG module (ecosystem.md §1.8, png_compression.py):
 *          means = sign(v) log(1 + |v|) of x,y,z, per channel min..max,
 *          16 bits -> "means_l"/"means_u" (RGB); scale_0..2 -> "scales"
 *          (RGB), rot_0..3 L2-normalised -> "quats" (RGBA), opacity ->
 *          "opacities" (gray), f_dc_0..2 -> "sh0" (RGB), each per channel
 *          min..max to 8 bits. gsplat codes shN (f_rest) by k-means into
 *          an NPZ, not an image; here f_rest is coded per channel to 8
 *          bits instead, so that its bytes are counted like the rest.
 *  playcanvas  PlayCanvas SOG version 2, the images splat-transform's
 *          writer makes (ecosystem.md §1.9; the format's spec): means as
 *          gsplat's, but truncated (16 bits -> "means_l"/"means_u");
 *          rot_0..3 unit length, "smallest three": the largest component
 *          by magnitude made positive and left out, the other three times
 *          sqrt(2) from [-1, 1] to 8 bits, the alpha 252 + its index ->
 *          "quats" (RGBA); scale_0..2 and f_dc_0..2 as labels into a
 *          256-entry codebook of their pooled values (codebook.h) ->
 *          "scales" (RGB) and "sh0" (RGBA, the alpha 255 sigmoid(opacity)).
 *          Codes are truncated, as the writer's are. The writer's constant
 *          alpha (255) of means and scales is left out: WebP codes it in
 *          no bits. SOG codes shN (f_rest) as labels into a k-means
 *          palette of up to 64Ki entries: that needs the k-means, so this
 *          scheme makes no image of f_rest and its callers add the
 *          palette's two (eval/sog_sh.h: shN_centroids, shN_labels).
 *          Other channels (a trainer's nx, ny, nz) have no place in the
 *          format and make no image.
 *
 * sog, gsplat and playcanvas need the graphdeco 3DGS channel names (ecosystem.md §5.1:
 * x y z f_dc_0.. f_rest_0.. opacity scale_0.. rot_0..), at least x, y and
 * z. sog and gsplat image f_rest (channel-major in a PLY) a coefficient at a time:
 * with 3K of them, image k holds f_rest_k, f_rest_{K+k}, f_rest_{2K+k}
 * ("f_rest_00", ...; gsplat "shN_00", ...). Channels of no group (nx, ny,
 * nz, anything else) are coded as plain does ("extra_000", ...), except
 * by playcanvas.
 *
 * Empty (padding) cells are written as code 0 in every plane, the zero
 * texel a GPU texture is padded with; they are left out of the ranges.
 */
#ifndef CUPLAS_EVAL_SCHEMES_H
#define CUPLAS_EVAL_SCHEMES_H

#include <stdint.h>

#include "util/error.h"
#include "util/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CUPLAS_SCHEME_PLAIN = 0,
    CUPLAS_SCHEME_SOG,
    CUPLAS_SCHEME_GSPLAT,
    CUPLAS_SCHEME_PLAYCANVAS,
    CUPLAS_SCHEME_COUNT
} cuplas_scheme;

/* One 8-bit image: H x W pixels of `channels` interleaved bytes, and
 * how its codes decode, for a writer of the format (export-sog): a
 * range-coded plane's values after the group's transform run lo..hi over
 * codes 0..top (both images of a 16-bit group carry the range); a
 * codebook image's planes are labels into `codebook`. */
typedef struct cuplas_eval_image {
    char name[32];   /* file stem: "plain_000", "means_l", ...          */
    int channels;    /* 1 gray, 3 RGB, 4 RGBA                            */
    int64_t H, W;
    uint8_t *px;     /* H*W*channels bytes, row-major                    */
    double lo[4], hi[4]; /* range-coded planes (0 elsewhere)            */
    double *codebook;    /* CUPLAS_SCHEME_CODEBOOK entries, or NULL      */
} cuplas_eval_image;

/* Entries of a codebook image's codebook (playcanvas: scales, sh0). */
#define CUPLAS_SCHEME_CODEBOOK 256

typedef struct cuplas_eval_images {
    int n;
    cuplas_eval_image *img;
} cuplas_eval_images;

/* "plain", "sog", "gsplat", "playcanvas". */
const char *cuplas_scheme_name(cuplas_scheme s);
/* 0, or CUPLAS_ERR_USAGE for an unknown name. */
int cuplas_scheme_parse(const char *name, cuplas_scheme *s, cuplas_error *err);

/* 1 when the scheme can code these channels: plain always; the others
 * when names has "x", "y" and "z". */
int cuplas_scheme_applies(cuplas_scheme s, const char *const *names, int C);

/* Code a grid (H*W cells x C doubles, cell order; empty NULL or H*W
 * flags, nonzero = empty) into out (cleared first; free with
 * cuplas_eval_images_free, also after a failure). names: C channel
 * names (NULL allowed for plain). Non-finite values code as 0. pool:
 * the cells' loops (NULL: an OpenMP team); the texels do not depend on
 * it. Errors: CUPLAS_ERR_USAGE (scheme does not apply), CUPLAS_ERR_NOMEM. */
int cuplas_scheme_encode(cuplas_scheme s, const double *x, int64_t H, int64_t W, int C,
                         const char *const *names, const uint8_t *empty, cuplas_pool *pool,
                         cuplas_eval_images *out, cuplas_error *err);

void cuplas_eval_images_free(cuplas_eval_images *imgs);

#ifdef __cplusplus
}
#endif
#endif
