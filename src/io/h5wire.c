/*
 * h5wire.c - requests and replies of the HDF5 helper processes (h5wire.h).
 */
#include "cuplas_build.h"

#include "io/h5wire.h"
#include "io/h5io_encoded.h"

#include <hdf5.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define REQUEST_MAGIC "cuplasQ1"
#define REPLY_MAGIC "cuplasR1"
#define MAGIC_LEN 8
#define NO_STRING UINT32_MAX

/* ---------------------------------------------------------------- writer */

typedef struct wbuf {
    unsigned char *p;
    size_t n, cap;
    int oom;
} wbuf;

static void put(wbuf *b, const void *v, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        while (cap < b->n + n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, v, n);
    b->n += n;
}

static void put_u64(wbuf *b, uint64_t v) { put(b, &v, sizeof v); }
static void put_f64(wbuf *b, double v) { put(b, &v, sizeof v); }

/* A string with its NUL (the reader hands out pointers into the message),
 * or NO_STRING for NULL. */
static void put_str(wbuf *b, const char *s)
{
    uint32_t n = s ? (uint32_t)strlen(s) + 1 : NO_STRING;
    put(b, &n, sizeof n);
    if (s)
        put(b, s, n);
}

static void put_blob(wbuf *b, const void *p, size_t n)
{
    put_u64(b, n);
    put(b, p, n);
}

static int finish(wbuf *b, unsigned char **msg, size_t *len, cuplas_error *err)
{
    if (b->oom) {
        free(b->p);
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    *msg = b->p;
    *len = b->n;
    return 0;
}

/* ---------------------------------------------------------------- reader */

typedef struct rbuf {
    const unsigned char *p;
    size_t n, at;
    int bad;   /* ran past the end or found a malformed field */
} rbuf;

static const void *take(rbuf *b, size_t n)
{
    if (b->bad || n > b->n - b->at) {
        b->bad = 1;
        return NULL;
    }
    b->at += n;
    return b->p + b->at - n;
}

/* n bytes into v (left as it is past the end). */
static void get(rbuf *b, void *v, size_t n)
{
    const void *p = take(b, n);
    if (p)
        memcpy(v, p, n);
}

static uint64_t get_u64(rbuf *b)
{
    uint64_t v = 0;
    get(b, &v, sizeof v);
    return v;
}

static double get_f64(rbuf *b)
{
    double v = 0;
    get(b, &v, sizeof v);
    return v;
}

static const char *get_str(rbuf *b)
{
    uint32_t n = NO_STRING;
    get(b, &n, sizeof n);
    if (n == NO_STRING)
        return NULL;
    const char *s = n ? take(b, n) : NULL;
    if (!s || s[n - 1] != '\0')
        b->bad = 1;
    return b->bad ? NULL : s;
}

static const void *get_blob(rbuf *b, size_t *n)
{
    *n = (size_t)get_u64(b);
    return take(b, *n);
}

static int magic_ok(rbuf *b, const char *magic)
{
    const void *p = take(b, MAGIC_LEN);
    return p && !memcmp(p, magic, MAGIC_LEN);
}

/* --------------------------------------------------------------- request */

int cuplas_h5wire_fits(const cuplas_h5grid *in, const cuplas_h5_encoded *enc)
{
    return enc && !enc->deflate && in->type_blob && in->file && in->dataset &&
           cuplas_h5_encoded_in_memory(enc);
}

int cuplas_h5wire_request(const char *tmp, const cuplas_h5grid *in,
                          const cuplas_h5_encoded *enc, const cuplas_result_meta *meta,
                          unsigned char **msg, size_t *len, cuplas_error *err)
{
    wbuf b = {0};
    static const cuplas_result_meta none = {0};

    if (!cuplas_h5wire_fits(in, enc))
        return cuplas_error_set(err, CUPLAS_ERR_INTERNAL, "a helper cannot build this result");
    if (!meta)
        meta = &none;
    put(&b, REQUEST_MAGIC, MAGIC_LEN);
    put_str(&b, tmp);
    put_str(&b, in->file);
    put_str(&b, in->dataset);
    put_str(&b, in->dtype);
    put_u64(&b, (uint64_t)in->H);
    put_u64(&b, (uint64_t)in->W);
    put_u64(&b, (uint64_t)in->C);
    put_u64(&b, (uint64_t)in->in_rank);
    for (int k = 0; k < 3; k++)
        put_u64(&b, (uint64_t)in->in_dims[k]);
    put_u64(&b, in->elem_size);
    put_blob(&b, in->type_blob, in->type_len);
    put_u64(&b, (uint64_t)enc->wide);
    put_u64(&b, (uint64_t)enc->chunk_rows);
    put_str(&b, meta->params_yaml);
    put_u64(&b, meta->seed);
    put_str(&b, meta->version);
    put_f64(&b, meta->and_before);
    put_f64(&b, meta->and_after);
    put_f64(&b, meta->wall_seconds);
    put_str(&b, meta->backend);
    put_str(&b, meta->device_name);
    put_str(&b, meta->identity);
    return finish(&b, msg, len, err);
}

/* ----------------------------------------------------------------- serve */

/* The reply to a request: its outcome, then (on success) enc's image. */
static int reply(int rc, const cuplas_error *why, const cuplas_h5_encoded *enc,
                 unsigned char **msg, size_t *len, cuplas_error *err)
{
    wbuf b = {0};
    size_t kept = 0;

    put(&b, REPLY_MAGIC, MAGIC_LEN);
    put_u64(&b, (uint64_t)rc);
    put_str(&b, rc ? why->msg : NULL);
    put_str(&b, rc ? why->where : NULL);
    if (rc == 0) {
        put_u64(&b, enc->raw_at[0]);
        put_u64(&b, enc->raw_at[1]);
        put_u64(&b, enc->image_size);
        put_u64(&b, (uint64_t)enc->nseg);
        for (int k = 0; k < enc->nseg; k++) {
            put_u64(&b, enc->seg[k][0]);
            put_u64(&b, enc->seg[k][1]);
            kept += (size_t)enc->seg[k][1];
        }
        put_blob(&b, enc->image, kept);
    }
    return finish(&b, msg, len, err);
}

int cuplas_h5wire_serve(const unsigned char *req, size_t req_len,
                        unsigned char **msg, size_t *len, cuplas_error *err)
{
    rbuf b = {req, req_len, 0, 0};
    cuplas_h5grid in;
    cuplas_result_meta meta;
    cuplas_h5_encoded enc;
    cuplas_error why;
    const char *tmp, *dtype;
    const void *type;
    size_t type_len;
    int rc;

    memset(&in, 0, sizeof in);
    memset(&meta, 0, sizeof meta);
    memset(&enc, 0, sizeof enc);
    cuplas_error_clear(&why);
    in.file_type = H5I_INVALID_HID;
    if (!magic_ok(&b, REQUEST_MAGIC))
        return cuplas_error_set(err, CUPLAS_ERR_INTERNAL, "not a cuplas helper request");
    tmp = get_str(&b);
    in.file = (char *)get_str(&b);   /* read-only here: in is never freed */
    in.dataset = (char *)get_str(&b);
    dtype = get_str(&b);
    in.H = (int64_t)get_u64(&b);
    in.W = (int64_t)get_u64(&b);
    in.C = (int64_t)get_u64(&b);
    in.in_rank = (int)get_u64(&b);
    for (int k = 0; k < 3; k++)
        in.in_dims[k] = (int64_t)get_u64(&b);
    in.elem_size = (size_t)get_u64(&b);
    type = get_blob(&b, &type_len);
    enc.wide = (int)get_u64(&b);
    enc.chunk_rows = (int64_t)get_u64(&b);
    meta.params_yaml = get_str(&b);
    meta.seed = get_u64(&b);
    meta.version = get_str(&b);
    meta.and_before = get_f64(&b);
    meta.and_after = get_f64(&b);
    meta.wall_seconds = get_f64(&b);
    meta.backend = get_str(&b);
    meta.device_name = get_str(&b);
    meta.identity = get_str(&b);
    if (b.bad || b.at != b.n || !tmp || !in.file || !in.dataset || !dtype || !type_len ||
        strlen(dtype) >= sizeof in.dtype)
        return cuplas_error_set(err, CUPLAS_ERR_INTERNAL, "malformed cuplas helper request");
    snprintf(in.dtype, sizeof in.dtype, "%s", dtype);

    /* enc as encode_result makes it for an uncompressed result, without data */
    enc.H = in.H;
    enc.W = in.W;
    enc.C = in.C;
    enc.elem_size = in.elem_size;
    if ((in.file_type = H5Tdecode(type)) < 0)
        rc = cuplas_error_set(&why, CUPLAS_ERR_INTERNAL, "cannot decode the type of %s",
                              in.dataset);
    else
        rc = cuplas_h5_write_encoded_to(tmp, &in, &enc, &meta, &why);
    if (in.file_type >= 0)
        H5Tclose((hid_t)in.file_type);
    rc = reply(rc, &why, &enc, msg, len, err);
    free(enc.image);
    return rc;
}

/* ----------------------------------------------------------------- apply */

int cuplas_h5wire_apply(const unsigned char *msg, size_t len, cuplas_h5_encoded *enc,
                        cuplas_error *err)
{
    rbuf b = {msg, len, 0, 0};
    uint64_t code, raw_at[2], image_size, nseg, seg[CUPLAS_H5_IMAGE_SEGS][2] = {{0}}, kept = 0;
    const char *why, *where;
    const void *image;
    size_t image_len;

    if (!magic_ok(&b, REPLY_MAGIC))
        return cuplas_error_set(err, CUPLAS_ERR_INTERNAL, "not a cuplas helper reply");
    code = get_u64(&b);
    why = get_str(&b);
    where = get_str(&b);
    if (code) {
        if (b.bad || !why)
            return cuplas_error_set(err, CUPLAS_ERR_INTERNAL, "malformed cuplas helper reply");
        cuplas_error_set(err, (cuplas_status)code, "%s", why);
        if (where && *where)
            cuplas_error_where(err, "%s", where);
        return (int)code;
    }
    raw_at[0] = get_u64(&b);
    raw_at[1] = get_u64(&b);
    image_size = get_u64(&b);
    nseg = get_u64(&b);
    for (uint64_t k = 0; k < nseg && k < CUPLAS_H5_IMAGE_SEGS; k++) {
        seg[k][0] = get_u64(&b);
        seg[k][1] = get_u64(&b);
        kept += seg[k][1];
        if (seg[k][1] > image_size || seg[k][0] > image_size - seg[k][1])
            b.bad = 1;
    }
    image = get_blob(&b, &image_len);
    if (b.bad || b.at != b.n || nseg > CUPLAS_H5_IMAGE_SEGS || image_len != kept)
        return cuplas_error_set(err, CUPLAS_ERR_INTERNAL, "malformed cuplas helper reply");

    free(enc->image);
    if (!(enc->image = malloc(image_len ? image_len : 1))) {
        enc->nseg = 0;
        return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
    }
    memcpy(enc->image, image, image_len);
    enc->image_size = (size_t)image_size;
    enc->nseg = (int)nseg;
    memcpy(enc->seg, seg, sizeof seg);
    enc->raw_at[0] = raw_at[0];
    enc->raw_at[1] = raw_at[1];
    enc->raw_pending = 1;
    return 0;
}
