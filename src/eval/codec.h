/*
 * codec.h - lossless 8-bit images in and out of PNG, WebP and JPEG XL,
 * through the libraries made for them (libpng, libwebp, libjxl), in
 * memory; plus the byte count of a scheme's images and their files.
 *
 * Settings, the strongest lossless ones each library offers at a
 * practical speed (cuplas_codec_opts_default):
 *  png   zlib level 9, window 15, memLevel 9, default strategy, all five
 *        row filters tried per row (PNG_ALL_FILTERS), no ancillary chunks.
 *  webp  lossless=1, exact=1 (keep RGB under alpha 0: the alpha plane is
 *        data here), method 6, quality 100 (in lossless mode quality is
 *        effort); gray images are sent as RGB with R = G = B, WebP has no
 *        gray. 16383 pixels a side at most (a WebP limit). With threads
 *        > 1, libwebp's second thread (thread_level 1): it tries half of
 *        its candidate codings beside the other half and keeps the first
 *        smallest, so the bytes are the same as on one thread.
 *  jxl   JxlEncoderSetFrameLossless (modular, distance 0), effort 7 (the
 *        libjxl default; 8-9 cost far more time for a few per cent),
 *        KEEP_INVISIBLE=1, original profile, sRGB / gray sRGB colour
 *        encoding, alpha as an 8-bit extra channel; bare codestream (no
 *        container), single-threaded (the bytes do not depend on it).
 */
#ifndef CUPLAS_EVAL_CODEC_H
#define CUPLAS_EVAL_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "eval/schemes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CUPLAS_CODEC_PNG = 0, CUPLAS_CODEC_WEBP, CUPLAS_CODEC_JXL, CUPLAS_CODEC_COUNT } cuplas_codec;

typedef struct cuplas_codec_opts {
    int png_level;    /* zlib level 0..9                 (9) */
    int webp_method;  /* 0..6                            (6) */
    int webp_quality; /* lossless effort 0..100        (100) */
    int jxl_effort;   /* 1..9                            (7) */
    int threads;      /* >1: a codec may add a thread (1); not in the bytes */
} cuplas_codec_opts;

void cuplas_codec_opts_default(cuplas_codec_opts *o);

/* "png", "webp", "jxl": names and file extensions alike. */
const char *cuplas_codec_name(cuplas_codec c);
int cuplas_codec_parse(const char *name, cuplas_codec *c, cuplas_error *err);

/* A growable byte buffer; free data with free(). */
typedef struct cuplas_buf {
    uint8_t *data;
    size_t size, cap;
} cuplas_buf;

/* Encode img (1, 3 or 4 channels) losslessly into out (cleared first).
 * opts NULL = defaults. Errors: CUPLAS_ERR_USAGE (size or channels the
 * codec cannot take), CUPLAS_ERR_NOMEM, CUPLAS_ERR_INTERNAL (library). */
int cuplas_image_encode(cuplas_codec c, const cuplas_eval_image *img, const cuplas_codec_opts *opts,
                        cuplas_buf *out, cuplas_error *err);

/* Decode a PNG, WebP or JPEG XL stream into out (px malloc'd, name
 * empty). channels: 1, 3 or 4 to convert to (gray from the first plane,
 * gray to RGB by copy, alpha added as 255 or dropped), or 0 to keep what
 * the file holds (WebP always decodes to 3 or 4). Errors:
 * CUPLAS_ERR_INPUT (not a valid stream), CUPLAS_ERR_NOMEM. */
int cuplas_image_decode(cuplas_codec c, const uint8_t *data, size_t size, int channels,
                        cuplas_eval_image *out, cuplas_error *err);

/* Write size bytes to path (created or truncated). CUPLAS_ERR_OUTPUT. */
int cuplas_write_file(const char *path, const uint8_t *data, size_t size, cuplas_error *err);

/* One image encoded by codec c into buf (its bytes: buf->size); when dir
 * is not NULL also written to dir/NAME.EXT (dir must exist), so that the
 * count is that file's size. buf is reused: a caller encoding many images
 * keeps one. */
int cuplas_image_bytes(const cuplas_eval_image *img, cuplas_codec c,
                       const cuplas_codec_opts *opts, const char *dir, cuplas_buf *buf,
                       cuplas_error *err);

/* Total encoded bytes of every image of imgs under codec c, one after
 * another (cuplas_image_bytes each), so the total is the sum of the files'
 * sizes when dir is not NULL. per_image (may be NULL): imgs->n byte
 * counts. */
int cuplas_images_bytes(const cuplas_eval_images *imgs, cuplas_codec c,
                        const cuplas_codec_opts *opts, const char *dir, int64_t *total,
                        int64_t *per_image, cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
