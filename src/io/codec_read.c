/*
 * codec_read.c - stored HDF5 chunks to a grid, by hand (codec.h). No HDF5
 * calls.
 *
 * The stored bytes of every chunk come in with pread (the HDF5 thread only
 * located them: HDF5 moving tens of MB per grid through its one lock was
 * what kept several GPUs from scaling), then each chunk's filters are
 * undone, last first, and its in-grid part is placed. Its twin,
 * codec_write.c, applies the same filters for H5Dwrite_chunk.
 */
#include "io/codec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libdeflate.h>

#include "util/fsutil.h"

#define MSG_LEN 128                          /* per-chunk failure text */

/* ------------------------------------------------------------- filters */

/* The inverse of HDF5's shuffle filter (codec_write.c's shuffle_bytes):
 * byte plane k back to byte k of every element; 1-byte types, single
 * elements and a trailing partial element pass through, as in HDF5. */
static void unshuffle_bytes(const unsigned char *src, size_t n, size_t es, unsigned char *dst)
{
    size_t m = es ? n / es : 0;

    if (es <= 1 || m <= 1) {
        memcpy(dst, src, n);
        return;
    }
#define UNSHUFFLE_LOOP(ES)                                \
    for (size_t i = 0; i < m; i++)                        \
        for (size_t k = 0; k < (ES); k++)                 \
            dst[i * (ES) + k] = src[k * m + i];
    switch (es) {
    case 2: UNSHUFFLE_LOOP(2) break;
    case 4: UNSHUFFLE_LOOP(4) break;
    case 8: UNSHUFFLE_LOOP(8) break;
    default: UNSHUFFLE_LOOP(es) break;
    }
#undef UNSHUFFLE_LOOP
    memcpy(dst + m * es, src + m * es, n - m * es);
}

/* Inflate one zlib stream (what HDF5's deflate filter stores) that must give
 * exactly `want` bytes. Trailing input after the stream end is ignored, as
 * HDF5 does. libdeflate: whole-buffer, about twice zlib's speed, and it
 * checks the Adler-32 as zlib does. 0, or -1 with the reason in msg. */
static int inflate_exact(const unsigned char *src, size_t n, unsigned char *dst, size_t want,
                         char msg[MSG_LEN])
{
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    size_t got = 0;
    enum libdeflate_result r;

    if (!d) {
        snprintf(msg, MSG_LEN, "out of memory for a decompressor");
        return -1;
    }
    r = libdeflate_zlib_decompress(d, src, n, dst, want, &got);
    libdeflate_free_decompressor(d);
    if (r == LIBDEFLATE_SUCCESS && got == want)
        return 0;
    if (r == LIBDEFLATE_SUCCESS)
        snprintf(msg, MSG_LEN, "inflates to %zu bytes, not %zu", got, want);
    else if (r == LIBDEFLATE_INSUFFICIENT_SPACE)
        snprintf(msg, MSG_LEN, "inflates to more than %zu bytes", want);
    else
        snprintf(msg, MSG_LEN, "deflate: corrupt or truncated stream");
    return -1;
}

/* ------------------------------------------------------------- reading */



void cuplas_h5_fetch_free(cuplas_h5_fetch *f)
{
    if (!f)
        return;
    free(f->c);
    if (!f->bufs)
        free(f->bytes);
    free(f->path);
    free(f);
}

/* "(y, x, c)" or "(n, c)": a chunk's offset in the dataset's own rank. */
const char *cuplas_h5_chunk_where(const cuplas_h5grid *g, const uint64_t off[3], char buf[80])
{
    if (g->in_rank == 3)
        snprintf(buf, 80, "(%llu, %llu, %llu)", (unsigned long long)off[0],
                 (unsigned long long)off[1], (unsigned long long)off[2]);
    else
        snprintf(buf, 80, "(%llu, %llu)", (unsigned long long)off[1],
                 (unsigned long long)off[2]);
    return buf;
}

/* Copy a chunk's in-grid part (edge chunks are stored full size) into raw,
 * or, with src NULL, set that part to the fill value. */
static void place_chunk(const cuplas_h5_fetch *f, const cuplas_h5_stored *c, size_t es,
                        const unsigned char *src, unsigned char *raw)
{
    const uint64_t *d = f->dims, *k = f->chunk, *o = c->offset;
    size_t n0 = (size_t)(d[0] - o[0] < k[0] ? d[0] - o[0] : k[0]);
    size_t n1 = (size_t)(d[1] - o[1] < k[1] ? d[1] - o[1] : k[1]);
    size_t n2 = (size_t)(d[2] - o[2] < k[2] ? d[2] - o[2] : k[2]);

    for (size_t z = 0; z < n0; z++)
        for (size_t y = 0; y < n1; y++) {
            unsigned char *dst =
                raw + ((((size_t)o[0] + z) * d[1] + o[1] + y) * d[2] + o[2]) * es;
            if (src)
                memcpy(dst, src + ((z * k[1] + y) * k[2]) * es, n2 * es);
            else if (f->fill_zero)
                memset(dst, 0, n2 * es);
            else
                for (size_t x = 0; x < n2; x++)
                    memcpy(dst + x * es, f->fill, es);
        }
}

/* Undo the filter pipeline of one fetched chunk (last filter first, skipping
 * those its mask marks) and place it. a and b: chunk_bytes scratch each. */
static int decode_chunk(const cuplas_h5_fetch *f, const cuplas_h5_stored *c, size_t es,
                        unsigned char *raw, unsigned char *a, unsigned char *b,
                        char msg[MSG_LEN])
{
    const unsigned char *cur = f->bytes + c->pos;
    size_t len = c->size;

    if (len == 0) {   /* never written: reads as the fill value, as in HDF5 */
        place_chunk(f, c, es, NULL, raw);
        return 0;
    }
    for (int k = f->nfilters - 1; k >= 0; k--) {
        unsigned char *out = cur == a ? b : a;
        if (c->mask & (1u << k))
            continue;
        if (f->filter[k] == CUPLAS_FILTER_DEFLATE) {
            if (inflate_exact(cur, len, out, f->chunk_bytes, msg) != 0)
                return -1;
            len = f->chunk_bytes;
        } else {
            if (len != f->chunk_bytes)
                goto bad_size;
            unshuffle_bytes(cur, len, f->shuffle_size[k], out);
        }
        cur = out;
    }
    if (len != f->chunk_bytes)
        goto bad_size;
    place_chunk(f, c, es, cur, raw);
    return 0;
bad_size:
    snprintf(msg, MSG_LEN, "%zu bytes where the chunk needs %zu", len, f->chunk_bytes);
    return -1;
}

int cuplas_h5_chunk_check(const cuplas_h5_fetch *f, unsigned mask, const unsigned char *src,
                          size_t len, char *msg)
{
    unsigned char *a = malloc(f->chunk_bytes ? f->chunk_bytes : 1);
    unsigned char *b = malloc(f->chunk_bytes ? f->chunk_bytes : 1);
    const unsigned char *cur = src;
    int rc = -2;

    if (!a || !b)
        goto done;
    rc = -1;
    for (int k = f->nfilters - 1; k >= 0; k--) {
        unsigned char *out = cur == a ? b : a;
        if (mask & (1u << k))
            continue;
        if (f->filter[k] == CUPLAS_FILTER_DEFLATE) {
            if (inflate_exact(cur, len, out, f->chunk_bytes, msg) != 0)
                goto done;
            len = f->chunk_bytes;
        } else if (len != f->chunk_bytes) {
            break;
        } else {
            unshuffle_bytes(cur, len, f->shuffle_size[k], out);
        }
        cur = out;
    }
    if (len == f->chunk_bytes)
        rc = 0;
    else
        snprintf(msg, MSG_LEN, "%zu bytes where the chunk needs %zu", len, f->chunk_bytes);
done:
    free(a);
    free(b);
    return rc;
}

typedef struct pread_ctx {
    const cuplas_h5_fetch *f;
    int fd;
} pread_ctx;

/* One stored chunk: 0, an errno, or -1 when the file ends inside it. */
static int pread_chunk(void *p, int64_t i)
{
    const pread_ctx *x = p;
    const cuplas_h5_stored *c = &x->f->c[i];
    return cuplas_pread_full(x->fd, x->f->bytes + c->pos, c->size, (int64_t)c->at, NULL);
}

/* Outside the lock: read every stored chunk with pread, in parallel. The
 * lowest failing chunk is reported, whatever the thread count. */
static int read_chunks(const cuplas_h5grid *g, cuplas_h5_fetch *f, cuplas_pool *pool,
                       cuplas_error *err)
{
    pread_ctx x = {f, open(f->path, O_RDONLY)};
    int rc = 0, code = 0;
    char at[80];

    if (x.fd < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot reopen: %s", strerror(errno));
    size_t bad = (size_t)cuplas_par_for(pool, (int64_t)f->nchunks, pread_chunk, &x, &code);
    if (bad < f->nchunks) {
        const cuplas_h5_stored *c = &f->c[bad];
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "read failed at row %llu: chunk %s: %s",
                    (unsigned long long)c->offset[g->in_rank == 3 ? 0 : 1],
                    cuplas_h5_chunk_where(g, c->offset, at),
                    code > 0 ? strerror(code) : "file ends inside the chunk (truncated)");
    }
fail:
    if (x.fd >= 0)
        close(x.fd);
    return rc;
}

typedef struct decode_ctx {
    const cuplas_h5_fetch *f;
    cuplas_h5grid *g;
    char *msg;          /* the failure's text, when run for one chunk */
} decode_ctx;

/* One chunk: 0, -2 out of memory, -1 corrupt (the text in x->msg, if set). */
static int decode_one(void *p, int64_t i)
{
    const decode_ctx *x = p;
    unsigned char *a = malloc(x->f->chunk_bytes), *b = malloc(x->f->chunk_bytes);
    char msg[MSG_LEN];
    int r = a && b ? decode_chunk(x->f, &x->f->c[i], x->g->elem_size, x->g->raw, a, b, msg)
                   : -2;
    if (r == -1 && x->msg)
        memcpy(x->msg, msg, MSG_LEN);
    free(a);
    free(b);
    return r;
}

int cuplas_h5_read_finish(cuplas_h5grid *g, cuplas_h5_fetch *f, cuplas_pool *pool,
                          cuplas_error *err)
{
    size_t bytes, bad;
    int rc = 0, code = 0;
    char why[MSG_LEN] = "", at[80];
    decode_ctx x = {f, g, NULL};

    if (!f)   /* g is the caller's, untouched */
        return cuplas_error_set(err, CUPLAS_ERR_INTERNAL, "read_finish without a fetch");
    if (f->whole)
        goto fail;   /* begin read the data already */
    if (g->raw)
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "read_finish on a grid that has data");
    CUPLAS_TRY(read_chunks(g, f, pool, err));
    bytes = (size_t)(f->dims[0] * f->dims[1] * f->dims[2]) * g->elem_size;
    if (cuplas_h5grid_alloc_raw(g, f->bufs, bytes) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "cannot allocate %zu bytes for the input", bytes);

    /* the lowest failing chunk is reported: the same error for any thread
       count; its text comes from decoding it once more */
    bad = (size_t)cuplas_par_for(pool, (int64_t)f->nchunks, decode_one, &x, &code);
    if (bad < f->nchunks) {
        const cuplas_h5_stored *c = &f->c[bad];
        x.msg = why;
        if (code == -2 || decode_one(&x, (int64_t)bad) == -2)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory decompressing chunks");
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "read failed at row %llu: chunk %s is corrupt (%s)",
                    (unsigned long long)c->offset[g->in_rank == 3 ? 0 : 1],
                    cuplas_h5_chunk_where(g, c->offset, at), why);
    }
fail:
    if (rc) {
        if (!g->raw_lent)
            free(g->raw);
        g->raw = NULL;
        g->raw_lent = 0;
        if (g->file)
            cuplas_error_where(err, "%s:%s", g->file, g->dataset);
    }
    cuplas_h5_fetch_free(f);
    return rc;
}

