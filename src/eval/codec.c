/*
 * codec.c - PNG (libpng), WebP (libwebp) and JPEG XL (libjxl) lossless
 * encode/decode in memory, and the byte count of a set of images
 * (codec.h has the settings and why).
 */
#include "eval/codec.h"

#include <errno.h>
#include <limits.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jxl/decode.h>
#include <jxl/encode.h>
#include <webp/decode.h>
#include <webp/encode.h>

void cuplas_codec_opts_default(cuplas_codec_opts *o)
{
    o->png_level = 9;
    o->webp_method = 6;
    o->webp_quality = 100;
    o->jxl_effort = 7;
    o->threads = 1;
}

const char *cuplas_codec_name(cuplas_codec c)
{
    static const char *const names[CUPLAS_CODEC_COUNT] = {"png", "webp", "jxl"};
    return (unsigned)c < CUPLAS_CODEC_COUNT ? names[c] : "?";
}

int cuplas_codec_parse(const char *name, cuplas_codec *c, cuplas_error *err)
{
    for (int i = 0; i < CUPLAS_CODEC_COUNT; i++)
        if (strcmp(name, cuplas_codec_name((cuplas_codec)i)) == 0) {
            *c = (cuplas_codec)i;
            return 0;
        }
    return cuplas_error_set(err, CUPLAS_ERR_USAGE, "unknown codec '%s' (png, webp, jxl)", name);
}

/* Room for n more bytes past size. */
static int buf_reserve(cuplas_buf *b, size_t n)
{
    if (b->cap - b->size >= n)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->size < n)
        cap *= 2;
    uint8_t *d = realloc(b->data, cap);
    if (!d)
        return -1;
    b->data = d;
    b->cap = cap;
    return 0;
}

static int buf_append(cuplas_buf *b, const void *p, size_t n)
{
    if (buf_reserve(b, n))
        return -1;
    memcpy(b->data + b->size, p, n);
    b->size += n;
    return 0;
}

static void buf_clear(cuplas_buf *b) { b->size = 0; }

/* Convert pixels between 1/3/4 channels (see cuplas_image_decode). */
static uint8_t *convert(const uint8_t *src, int64_t npx, int from, int to)
{
    uint8_t *dst = malloc((size_t)(npx * to) + 1);
    if (!dst)
        return NULL;
    for (int64_t i = 0; i < npx; i++) {
        const uint8_t *s = src + i * from;
        uint8_t *d = dst + i * to;
        for (int c = 0; c < to; c++) {
            if (to == 1)
                d[c] = s[0];
            else if (c == 3)
                d[c] = from == 4 ? s[3] : 255;
            else
                d[c] = from == 1 ? s[0] : s[c];
        }
    }
    return dst;
}

/* ---- PNG ---- */

typedef struct png_mem {
    cuplas_buf *out;
    const uint8_t *in;
    size_t in_size, pos;
    int failed;
} png_mem;

static void png_write_cb(png_structp png, png_bytep data, png_size_t n)
{
    png_mem *m = png_get_io_ptr(png);
    if (buf_append(m->out, data, n)) {
        m->failed = 1;
        png_error(png, "out of memory");
    }
}

static void png_flush_cb(png_structp png) { (void)png; }

/* libpng reports through its callbacks; ours say nothing (the caller
 * gets a cuplas_error) and jump back to the setjmp. */
static void png_error_cb(png_structp png, png_const_charp msg)
{
    (void)msg;
    png_longjmp(png, 1);
}

static void png_warning_cb(png_structp png, png_const_charp msg) { (void)png, (void)msg; }

static void png_read_cb(png_structp png, png_bytep data, png_size_t n)
{
    png_mem *m = png_get_io_ptr(png);
    if (n > m->in_size - m->pos)
        png_error(png, "truncated");
    memcpy(data, m->in + m->pos, n);
    m->pos += n;
}

static int png_encode(const cuplas_eval_image *img, const cuplas_codec_opts *o, cuplas_buf *out,
                      cuplas_error *err)
{
    static const int types[5] = {0, PNG_COLOR_TYPE_GRAY, 0, PNG_COLOR_TYPE_RGB,
                                 PNG_COLOR_TYPE_RGB_ALPHA};
    png_mem m = {out, NULL, 0, 0, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, png_error_cb, png_warning_cb);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "png: out of memory");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return cuplas_error_set(err, m.failed ? CUPLAS_ERR_NOMEM : CUPLAS_ERR_INTERNAL,
                                "png: cannot encode %s", img->name);
    }
    png_set_write_fn(png, &m, png_write_cb, png_flush_cb);
    png_set_compression_level(png, o->png_level);
    png_set_compression_mem_level(png, 9);
    png_set_compression_window_bits(png, 15);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_ALL_FILTERS);
    png_set_IHDR(png, info, (png_uint_32)img->W, (png_uint_32)img->H, 8, types[img->channels],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_write_info(png, info);
    for (int64_t y = 0; y < img->H; y++)
        png_write_row(png, img->px + y * img->W * img->channels);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}

static int png_decode(const uint8_t *data, size_t size, cuplas_eval_image *out, cuplas_error *err)
{
    png_mem m = {NULL, data, size, 0, 0};
    uint8_t *volatile px = NULL;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, png_error_cb, png_warning_cb);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_read_struct(&png, &info, NULL);
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "png: out of memory");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(px);
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "png: not a valid PNG stream");
    }
    png_set_read_fn(png, &m, png_read_cb);
    png_read_info(png, info);
    png_set_expand(png);   /* palette -> RGB, gray < 8 bits -> 8, tRNS -> alpha */
    png_set_strip_16(png);
    png_read_update_info(png, info);
    const int ch = png_get_channels(png, info);
    const png_uint_32 W = png_get_image_width(png, info), H = png_get_image_height(png, info);
    if (ch == 2) /* gray + alpha: keep the gray plane and alpha as RGBA */
        png_set_gray_to_rgb(png), png_read_update_info(png, info);
    const int chans = png_get_channels(png, info);
    px = malloc((size_t)W * H * (size_t)chans + 1);
    if (!px)
        png_error(png, "out of memory");
    for (png_uint_32 y = 0; y < H; y++)
        png_read_row(png, px + (size_t)y * W * (size_t)chans, NULL);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    out->channels = chans;
    out->H = H;
    out->W = W;
    out->px = px;
    return 0;
}

/* ---- WebP ---- */

static int webp_encode(const cuplas_eval_image *img, const cuplas_codec_opts *o, cuplas_buf *out,
                       cuplas_error *err)
{
    int rc = 0;
    WebPConfig cfg;
    WebPPicture pic;
    WebPMemoryWriter wr;
    uint8_t *rgb = NULL;
    int pic_ok = 0;
    WebPMemoryWriterInit(&wr);
    if (img->W > WEBP_MAX_DIMENSION || img->H > WEBP_MAX_DIMENSION || img->W < 1 || img->H < 1)
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "webp: %lld x %lld is beyond WebP's %d pixels a side",
                    (long long)img->H, (long long)img->W, WEBP_MAX_DIMENSION);
    if (!WebPConfigInit(&cfg) || !WebPPictureInit(&pic))
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "webp: library version mismatch");
    pic_ok = 1;
    cfg.lossless = 1;
    cfg.exact = 1;
    cfg.method = o->webp_method;
    cfg.quality = (float)o->webp_quality;
    /* At method 6, quality 100 a lossless encode tries several codings in
     * turn; a second thread halves the longest tasks of an eval, whose
     * tail one image at a time sets (2026-11-28-cpu-webpthr). */
    cfg.thread_level = o->threads > 1;
    if (!WebPValidateConfig(&cfg))
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "webp: invalid settings (method %d, quality %d)",
                    o->webp_method, o->webp_quality);
    pic.use_argb = 1;
    pic.width = (int)img->W;
    pic.height = (int)img->H;
    pic.writer = WebPMemoryWrite;
    pic.custom_ptr = &wr;
    const uint8_t *src = img->px;
    if (img->channels == 1) {
        if (!(rgb = convert(img->px, img->H * img->W, 1, 3)))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "webp: out of memory");
        src = rgb;
    }
    int ok = img->channels == 4 ? WebPPictureImportRGBA(&pic, src, (int)img->W * 4)
                                : WebPPictureImportRGB(&pic, src, (int)img->W * 3);
    if (!ok)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "webp: out of memory importing %s", img->name);
    if (!WebPEncode(&cfg, &pic))
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "webp: cannot encode %s (error %d)", img->name,
                    (int)pic.error_code);
    if (buf_append(out, wr.mem, wr.size))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "webp: out of memory");
fail:
    if (pic_ok)
        WebPPictureFree(&pic);
    WebPMemoryWriterClear(&wr);
    free(rgb);
    return rc;
}

static int webp_decode(const uint8_t *data, size_t size, cuplas_eval_image *out, cuplas_error *err)
{
    WebPBitstreamFeatures f;
    if (WebPGetFeatures(data, size, &f) != VP8_STATUS_OK)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "webp: not a valid WebP stream");
    int w = 0, h = 0;
    uint8_t *px = f.has_alpha ? WebPDecodeRGBA(data, size, &w, &h) : WebPDecodeRGB(data, size, &w, &h);
    if (!px)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "webp: cannot decode");
    /* into malloc'd memory, so that every decoder's pixels are free()d */
    const int ch = f.has_alpha ? 4 : 3;
    out->px = malloc((size_t)w * h * ch + 1);
    if (out->px)
        memcpy(out->px, px, (size_t)w * h * ch);
    WebPFree(px);
    if (!out->px)
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "webp: out of memory");
    out->channels = ch;
    out->H = h;
    out->W = w;
    return 0;
}

/* ---- JPEG XL ---- */

static int jxl_encode(const cuplas_eval_image *img, const cuplas_codec_opts *o, cuplas_buf *out,
                      cuplas_error *err)
{
    int rc = 0;
    JxlEncoder *enc = JxlEncoderCreate(NULL);
    if (!enc)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "jxl: out of memory");
    const int alpha = img->channels == 4, color = img->channels == 1 ? 1 : 3;
    JxlBasicInfo bi;
    JxlEncoderInitBasicInfo(&bi);
    bi.xsize = (uint32_t)img->W;
    bi.ysize = (uint32_t)img->H;
    bi.bits_per_sample = 8;
    bi.exponent_bits_per_sample = 0;
    bi.num_color_channels = (uint32_t)color;
    bi.num_extra_channels = (uint32_t)alpha;
    bi.alpha_bits = alpha ? 8 : 0;
    bi.uses_original_profile = JXL_TRUE; /* no XYB: required for lossless */
    if (JxlEncoderSetBasicInfo(enc, &bi) != JXL_ENC_SUCCESS)
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "jxl: cannot take a %lld x %lld image",
                    (long long)img->H, (long long)img->W);
    if (alpha) {
        JxlExtraChannelInfo ec;
        JxlEncoderInitExtraChannelInfo(JXL_CHANNEL_ALPHA, &ec);
        ec.bits_per_sample = 8;
        if (JxlEncoderSetExtraChannelInfo(enc, 0, &ec) != JXL_ENC_SUCCESS)
            CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "jxl: cannot set the alpha channel");
    }
    JxlColorEncoding ce;
    JxlColorEncodingSetToSRGB(&ce, color == 1);
    if (JxlEncoderSetColorEncoding(enc, &ce) != JXL_ENC_SUCCESS)
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "jxl: cannot set the colour encoding");
    JxlEncoderFrameSettings *fs = JxlEncoderFrameSettingsCreate(enc, NULL);
    if (!fs || JxlEncoderSetFrameLossless(fs, JXL_TRUE) != JXL_ENC_SUCCESS ||
        JxlEncoderFrameSettingsSetOption(fs, JXL_ENC_FRAME_SETTING_EFFORT, o->jxl_effort) !=
            JXL_ENC_SUCCESS ||
        JxlEncoderFrameSettingsSetOption(fs, JXL_ENC_FRAME_SETTING_KEEP_INVISIBLE, 1) !=
            JXL_ENC_SUCCESS)
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "jxl: invalid settings (effort %d)", o->jxl_effort);
    JxlPixelFormat pf = {(uint32_t)img->channels, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    if (JxlEncoderAddImageFrame(fs, &pf, img->px,
                                (size_t)(img->H * img->W * img->channels)) != JXL_ENC_SUCCESS)
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "jxl: cannot add %s", img->name);
    JxlEncoderCloseInput(enc);
    for (;;) {
        if (buf_reserve(out, 65536))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "jxl: out of memory");
        uint8_t *next = out->data + out->size;
        size_t avail = out->cap - out->size;
        JxlEncoderStatus st = JxlEncoderProcessOutput(enc, &next, &avail);
        out->size = (size_t)(next - out->data);
        if (st == JXL_ENC_SUCCESS)
            break;
        if (st != JXL_ENC_NEED_MORE_OUTPUT)
            CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "jxl: cannot encode %s", img->name);
    }
fail:
    JxlEncoderDestroy(enc);
    return rc;
}

static int jxl_decode(const uint8_t *data, size_t size, cuplas_eval_image *out, cuplas_error *err)
{
    int rc = 0;
    uint8_t *px = NULL;
    JxlDecoder *dec = JxlDecoderCreate(NULL);
    if (!dec)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "jxl: out of memory");
    if (JxlDecoderSubscribeEvents(dec, JXL_DEC_BASIC_INFO | JXL_DEC_FULL_IMAGE) != JXL_DEC_SUCCESS ||
        JxlDecoderSetInput(dec, data, size) != JXL_DEC_SUCCESS)
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "jxl: cannot set up the decoder");
    JxlDecoderCloseInput(dec);
    JxlBasicInfo bi;
    JxlPixelFormat pf = {0, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    int got_image = 0;
    for (;;) {
        JxlDecoderStatus st = JxlDecoderProcessInput(dec);
        if (st == JXL_DEC_BASIC_INFO) {
            if (JxlDecoderGetBasicInfo(dec, &bi) != JXL_DEC_SUCCESS)
                CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "jxl: bad header");
            pf.num_channels = bi.num_color_channels + (bi.alpha_bits ? 1 : 0);
            if (pf.num_channels == 2) /* gray + alpha: as RGBA */
                pf.num_channels = 4;
        } else if (st == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t need = 0;
            if (JxlDecoderImageOutBufferSize(dec, &pf, &need) != JXL_DEC_SUCCESS)
                CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "jxl: cannot size the image");
            free(px);
            if (!(px = malloc(need + 1)))
                CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "jxl: out of memory");
            if (JxlDecoderSetImageOutBuffer(dec, &pf, px, need) != JXL_DEC_SUCCESS)
                CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "jxl: cannot set the output buffer");
        } else if (st == JXL_DEC_FULL_IMAGE) {
            got_image = 1;
        } else if (st == JXL_DEC_SUCCESS) {
            break;
        } else {
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "jxl: not a valid JPEG XL stream");
        }
    }
    if (!got_image)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "jxl: no image in the stream");
    out->channels = (int)pf.num_channels;
    out->H = bi.ysize;
    out->W = bi.xsize;
    out->px = px;
    px = NULL;
fail:
    free(px);
    JxlDecoderDestroy(dec);
    return rc;
}

/* ---- front ---- */

int cuplas_image_encode(cuplas_codec c, const cuplas_eval_image *img, const cuplas_codec_opts *opts,
                        cuplas_buf *out, cuplas_error *err)
{
    cuplas_codec_opts def;
    if (!opts) {
        cuplas_codec_opts_default(&def);
        opts = &def;
    }
    buf_clear(out);
    if (img->channels != 1 && img->channels != 3 && img->channels != 4)
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "%s: %d channels (1, 3 or 4 only)",
                                cuplas_codec_name(c), img->channels);
    if (img->H < 1 || img->W < 1 || img->H > INT_MAX / 8 || img->W > INT_MAX / 8)
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "%s: cannot code a %lld x %lld image",
                                cuplas_codec_name(c), (long long)img->H, (long long)img->W);
    switch (c) {
    case CUPLAS_CODEC_PNG:
        return png_encode(img, opts, out, err);
    case CUPLAS_CODEC_WEBP:
        return webp_encode(img, opts, out, err);
    case CUPLAS_CODEC_JXL:
        return jxl_encode(img, opts, out, err);
    default:
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "unknown codec %d", (int)c);
    }
}

int cuplas_image_decode(cuplas_codec c, const uint8_t *data, size_t size, int channels,
                        cuplas_eval_image *out, cuplas_error *err)
{
    int rc;
    memset(out, 0, sizeof *out);
    switch (c) {
    case CUPLAS_CODEC_PNG:
        rc = png_decode(data, size, out, err);
        break;
    case CUPLAS_CODEC_WEBP:
        rc = webp_decode(data, size, out, err);
        break;
    case CUPLAS_CODEC_JXL:
        rc = jxl_decode(data, size, out, err);
        break;
    default:
        return cuplas_error_set(err, CUPLAS_ERR_USAGE, "unknown codec %d", (int)c);
    }
    if (rc || channels == 0 || channels == out->channels)
        return rc;
    uint8_t *px = convert(out->px, out->H * out->W, out->channels, channels);
    if (!px) {
        free(out->px);
        out->px = NULL;
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "decode: out of memory");
    }
    free(out->px);
    out->px = px;
    out->channels = channels;
    return 0;
}

int cuplas_write_file(const char *path, const uint8_t *data, size_t size, cuplas_error *err)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot create %s: %s", path, strerror(errno));
    size_t n = fwrite(data, 1, size, f);
    int bad = n != size;
    if (fclose(f) != 0)
        bad = 1;
    if (bad)
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

int cuplas_image_bytes(const cuplas_eval_image *img, cuplas_codec c,
                       const cuplas_codec_opts *opts, const char *dir, cuplas_buf *buf,
                       cuplas_error *err)
{
    int rc = 0;
    char *path = NULL;
    CUPLAS_TRY(cuplas_image_encode(c, img, opts, buf, err));
    if (dir) {
        size_t len = strlen(dir) + strlen(img->name) + 8;
        if (!(path = malloc(len)))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
        snprintf(path, len, "%s/%s.%s", dir, img->name, cuplas_codec_name(c));
        CUPLAS_TRY(cuplas_write_file(path, buf->data, buf->size, err));
    }
fail:
    free(path);
    return rc;
}

int cuplas_images_bytes(const cuplas_eval_images *imgs, cuplas_codec c,
                        const cuplas_codec_opts *opts, const char *dir, int64_t *total,
                        int64_t *per_image, cuplas_error *err)
{
    int rc = 0;
    cuplas_buf buf = {NULL, 0, 0};
    *total = 0;
    for (int i = 0; i < imgs->n; i++) {
        CUPLAS_TRY(cuplas_image_bytes(&imgs->img[i], c, opts, dir, &buf, err));
        if (per_image)
            per_image[i] = (int64_t)buf.size;
        *total += (int64_t)buf.size;
    }
fail:
    free(buf.data);
    return rc;
}
