/*
 * codec_write.c - a result to stored HDF5 chunks, by hand (codec.h). No
 * HDF5 calls.
 *
 * Each chunk of `sorted` is gathered from the input's raw rows through the
 * index, shuffled and deflated exactly as HDF5's pipeline would, so
 * H5Dwrite_chunk can store it as it is; chunks are encoded in parallel,
 * and a streamed write takes them as they finish. Its twin, codec_read.c,
 * undoes the same filters.
 */
#include "io/codec.h"
#include "io/zplanes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <pthread.h>

#define AUTO_CHUNK_BYTES ((size_t)1 << 20)

/* Encoded index chunks are host int32/int64 bytes stored as I32LE/I64LE. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "codec_write.c assumes a little-endian host"
#endif

/* ------------------------------------------------------------- filters */


/* HDF5's shuffle filter: byte k of every element goes to byte plane k. As in
 * HDF5, 1-byte types and single-element buffers are passed through, and a
 * trailing partial element is copied as is. Constant widths get their own
 * loop so the compiler can unroll the inner one. */
static void shuffle_bytes(const unsigned char *src, size_t n, size_t es, unsigned char *dst)
{
    size_t m = es ? n / es : 0;

    if (es <= 1 || m <= 1) {
        memcpy(dst, src, n);
        return;
    }
#define SHUFFLE_LOOP(ES)                                  \
    for (size_t i = 0; i < m; i++)                        \
        for (size_t k = 0; k < (ES); k++)                 \
            dst[k * m + i] = src[i * (ES) + k];
    switch (es) {
    case 2: SHUFFLE_LOOP(2) break;
    case 4: SHUFFLE_LOOP(4) break;
    case 8: SHUFFLE_LOOP(8) break;
    default: SHUFFLE_LOOP(es) break;
    }
#undef SHUFFLE_LOOP
    memcpy(dst + m * es, src + m * es, n - m * es);
}

/* ------------------------------------------------------------- writing */

int64_t cuplas_h5_chunk_rows(int64_t H, size_t row_bytes, int64_t chunk_rows)
{
    if (chunk_rows <= 0)
        chunk_rows = row_bytes ? (int64_t)(AUTO_CHUNK_BYTES / row_bytes) : 1;
    if (chunk_rows < 1)
        chunk_rows = 1;
    return chunk_rows > H ? H : chunk_rows;
}

static int check_permutation(const int64_t *index, int64_t n, cuplas_error *err)
{
    unsigned char *seen = calloc((size_t)n / 8 + 1, 1);
    int rc = 0;

    if (!seen)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory checking the index");
    for (int64_t i = 0; i < n; i++) {
        int64_t v = index[i];
        if (v < 0 || v >= n)
            CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL,
                        "index is not a permutation: cell %lld holds %lld, outside 0..%lld",
                        (long long)i, (long long)v, (long long)(n - 1));
        if (seen[v >> 3] & (1u << (v & 7)))
            CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL,
                        "index is not a permutation: %lld appears twice (again at cell %lld)",
                        (long long)v, (long long)i);
        seen[v >> 3] |= (unsigned char)(1u << (v & 7));
    }
fail:
    free(seen);
    return rc;
}

/* Full-size chunk ci of `sorted` (which 0) or `index` (which 1), as the bytes
 * H5Dwrite would hand to the filters: rows past H are zero, like the padding
 * HDF5 gives a new edge chunk. */
static void gather_chunk(const cuplas_h5grid *in, const int64_t *index,
                         const cuplas_h5_encoded *e, int which, size_t ci, unsigned char *buf)
{
    size_t W = (size_t)e->W, cr = (size_t)e->chunk_rows, r0 = ci * cr;
    size_t rows = (size_t)e->H - r0 < cr ? (size_t)e->H - r0 : cr;
    size_t first = r0 * W, m = rows * W;

    if (which == 0) {
        size_t cell = e->elem_size * (size_t)e->C;
        const unsigned char *raw = in->raw;
        if (in->label) {   /* a fitted grid: empty cells are all-zero bytes */
            for (size_t i = 0; i < m; i++) {
                int64_t row = in->label[index[first + i]];
                if (row < 0)
                    memset(buf + i * cell, 0, cell);
                else
                    memcpy(buf + i * cell, raw + (size_t)row * cell, cell);
            }
        } else {
            for (size_t i = 0; i < m; i++)
                memcpy(buf + i * cell, raw + (size_t)index[first + i] * cell, cell);
        }
        memset(buf + m * cell, 0, (cr * W - m) * cell);
    } else if (in->label) {   /* the input row of each cell, -1 = empty */
        if (e->wide) {
            int64_t *p = (int64_t *)(void *)buf;
            for (size_t i = 0; i < m; i++)
                p[i] = in->label[index[first + i]];
            memset(p + m, 0, (cr * W - m) * sizeof *p);
        } else {
            int32_t *p = (int32_t *)(void *)buf;
            for (size_t i = 0; i < m; i++)
                p[i] = (int32_t)in->label[index[first + i]];
            memset(p + m, 0, (cr * W - m) * sizeof *p);
        }
    } else if (e->wide) {
        memcpy(buf, index + first, m * sizeof(int64_t));
        memset(buf + m * sizeof(int64_t), 0, (cr * W - m) * sizeof(int64_t));
    } else {
        int32_t *p = (int32_t *)(void *)buf;
        for (size_t i = 0; i < m; i++)
            p[i] = (int32_t)index[first + i];
        memset(p + m, 0, (cr * W - m) * sizeof *p);
    }
}

/* Encode one chunk the way HDF5's pipeline would: shuffle, then one zlib
 * stream at the dataset's level (what HDF5's deflate filter stores and
 * inflates; any conforming encoder's stream reads back the same). The
 * encoder is libdeflate, at the same level number, with the shuffled noise
 * planes stored (zplanes.h): its streams differ in bytes from zlib's
 * compress2, not in what they inflate to, and depend only on the chunk and
 * the level, never on the thread that made them.
 * a and b: scratch of the chunk's size. 0, -1 out of memory, -2 encoder. */
static int encode_chunk(const cuplas_h5grid *in, const int64_t *index, cuplas_h5_encoded *e,
                        int which, size_t ci, unsigned char *a, unsigned char *b)
{
    size_t es = which ? (e->wide ? 8 : 4) : e->elem_size;
    size_t len = (size_t)e->chunk_rows * (size_t)e->W * (which ? es : es * (size_t)e->C);
    cuplas_h5_chunk *out = which ? &e->index[ci] : &e->sorted[ci];
    struct libdeflate_compressor *z;
    unsigned char *cur;
    size_t n;

    out->data = e->lent[which] + ci * e->slot[which];
    if (!e->deflate) {   /* the last step writes straight into the output */
        out->size = len;
        gather_chunk(in, index, e, which, ci, e->shuffle ? a : out->data);
        if (e->shuffle)
            shuffle_bytes(a, len, es, out->data);
        return 0;
    }
    gather_chunk(in, index, e, which, ci, a);
    cur = a;
    if (e->shuffle) {
        shuffle_bytes(a, len, es, b);
        cur = b;
    }
    /* one compressor per chunk: its set-up is microseconds next to the
       milliseconds a chunk takes, and nothing is shared between threads */
    if (!(z = libdeflate_alloc_compressor(e->deflate)))
        return -1;
    n = cuplas_zplanes_compress(z, e->deflate, cur, len, e->shuffle ? es : 1, out->data,
                                e->slot[which]);
    libdeflate_free_compressor(z);
    if (n == 0)   /* cannot happen: a slot holds the bound */
        return -2;
    out->size = n;
    return 0;
}

/* Scratch pairs (gathered, shuffled) handed from chunk to chunk: as many
 * as threads ever encode at once, made on first need and freed when the
 * run ends. Why not malloc per chunk: a 1 MiB block is mmap'd, faulted in
 * and unmapped every time, and with all cores encoding those faults and
 * unmaps (TLB shootdowns) queue on the process's memory lock (4096^2 x 16:
 * 1.5 M minor faults, more system time than user time). */
typedef struct scratch_stack {
    pthread_mutex_t mu;
    unsigned char **free;   /* pairs not in use: a, b back to back */
    int nfree, cap;
    size_t bytes;           /* of one pair */
} scratch_stack;

typedef struct encode_ctx {
    const cuplas_h5grid *in;
    const int64_t *index;
    cuplas_h5_encoded *e;
    size_t scratch;     /* bytes of the larger chunk */
    cuplas_h5_encode_progress *prog;   /* or NULL */
    scratch_stack *stack;
} encode_ctx;

static unsigned char *scratch_take(scratch_stack *s)
{
    unsigned char *p = NULL;
    pthread_mutex_lock(&s->mu);
    if (s->nfree > 0)
        p = s->free[--s->nfree];
    pthread_mutex_unlock(&s->mu);
    return p ? p : malloc(s->bytes);
}

/* Back on the stack; freed when the stack cannot grow (out of memory). */
static void scratch_give(scratch_stack *s, unsigned char *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&s->mu);
    if (s->nfree == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        unsigned char **f = realloc(s->free, (size_t)cap * sizeof *f);
        if (f) {
            s->free = f;
            s->cap = cap;
        }
    }
    if (s->nfree < s->cap) {
        s->free[s->nfree++] = p;
        p = NULL;
    }
    pthread_mutex_unlock(&s->mu);
    free(p);
}

/* Item j done (r: its result): advance the in-order prefix and wake the
 * writer waiting on it. */
static void progress_note(cuplas_h5_encode_progress *g, const cuplas_h5_encoded *e, int64_t j,
                          int r)
{
    pthread_mutex_lock(&g->mu);
    g->state[j] = r ? 2 : 1;
    while (g->prefix < 2 * e->nchunks && g->state[g->prefix] == 1) {
        size_t k = g->prefix++;
        g->prefix_bytes += k < e->nchunks ? e->index[k].size : e->sorted[k - e->nchunks].size;
    }
    if (r)
        g->failed = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

/* Item j: chunk j of index (j < nchunks), else chunk j - nchunks of
 * sorted; the order HDF5 stores them in (index is created first), so a
 * streamed write finds its next chunk among the first done. Scratch only
 * for compression: uncompressed chunks are gathered straight into their
 * output (and shuffle implies deflate). */
static int encode_one(void *p, int64_t j)
{
    const encode_ctx *x = p;
    cuplas_h5_encoded *e = x->e;
    int which = (size_t)j < e->nchunks;
    size_t ci = which ? (size_t)j : (size_t)j - e->nchunks;
    unsigned char *a = e->deflate ? scratch_take(x->stack) : NULL;
    int r = a || !e->deflate ? encode_chunk(x->in, x->index, e, which, ci, a, a + x->scratch)
                             : -1;
    scratch_give(x->stack, a);
    if (x->prog)
        progress_note(x->prog, e, j, r);
    return r;
}

static int encode_plan(const cuplas_h5grid *in, const int64_t *index,
                       const cuplas_output_opts *opts, cuplas_h5_buffers *bufs,
                       cuplas_h5_encoded **enc_out, cuplas_error *err)
{
    cuplas_h5_encoded *e = NULL;
    size_t row_bytes = in->elem_size * (size_t)in->C * (size_t)in->W;
    size_t sorted_bytes, index_bytes;
    int rc = 0;

    *enc_out = NULL;
    if (!in->raw)
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "write_result needs a grid read with its data");
    CUPLAS_TRY(check_permutation(index, in->H * in->W, err));
    if (!(e = calloc(1, sizeof *e)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    e->H = in->H;
    e->W = in->W;
    e->C = in->C;
    e->elem_size = in->elem_size;
    e->wide = in->H * in->W > INT32_MAX || cuplas_h5grid_rows(in) > INT32_MAX;
    e->deflate = !opts || opts->deflate <= 0 ? 0 : opts->deflate > 9 ? 9 : opts->deflate;
    /* shuffling only helps deflate; uncompressed data is stored contiguous */
    e->shuffle = opts && opts->shuffle && e->deflate;
    e->chunk_rows = cuplas_h5_chunk_rows(in->H, row_bytes, opts ? opts->chunk_rows : 0);
    e->nchunks = (size_t)((in->H + e->chunk_rows - 1) / e->chunk_rows);
    sorted_bytes = (size_t)e->chunk_rows * row_bytes;
    index_bytes = (size_t)e->chunk_rows * (size_t)in->W * (e->wide ? 8 : 4);
    if (sorted_bytes > UINT32_MAX)   /* HDF5's limit on one chunk */
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "a chunk of %lld rows is %zu bytes; HDF5 chunks "
                    "stay under 4 GiB (lower output.chunk_rows)", (long long)e->chunk_rows,
                    sorted_bytes);
    e->scratch = sorted_bytes > index_bytes ? sorted_bytes : index_bytes;
    if (!(e->sorted = calloc(e->nchunks, sizeof *e->sorted)) ||
        !(e->index = calloc(e->nchunks, sizeof *e->index)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    /* every chunk's bytes in a slot of one block per dataset, lent by the
       lane when there is one (reused job after job): the bound's size
       when compressed (what libdeflate can need), else the chunk's */
    e->slot[0] = sorted_bytes;
    e->slot[1] = index_bytes;
    if (e->deflate) {
        struct libdeflate_compressor *z = libdeflate_alloc_compressor(e->deflate);
        if (!z)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
        e->slot[0] = libdeflate_zlib_compress_bound(z, sorted_bytes);
        e->slot[1] = libdeflate_zlib_compress_bound(z, index_bytes);
        libdeflate_free_compressor(z);
    }
    e->owned = bufs == NULL;
    if (!(e->lent[0] = cuplas_h5_buffers_lend(bufs, CUPLAS_H5_SORTED, e->nchunks * e->slot[0])) ||
        !(e->lent[1] = cuplas_h5_buffers_lend(bufs, CUPLAS_H5_INDEX, e->nchunks * e->slot[1])))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for a %lldx%lld result",
                    (long long)in->H, (long long)in->W);

    *enc_out = e;
    e = NULL;
fail:
    cuplas_h5_encoded_free(e);
    return rc;
}

/* One item per chunk of either dataset; the lowest failing one is
 * reported, so the outcome does not depend on the schedule. */
static int encode_run(const cuplas_h5grid *in, const int64_t *index, cuplas_h5_encoded *e,
                      cuplas_pool *pool, cuplas_h5_encode_progress *prog, cuplas_error *err)
{
    scratch_stack stack = {.bytes = 2 * e->scratch};
    encode_ctx x = {in, index, e, e->scratch, prog, &stack};
    int rc = 0, bad_code = 0;
    pthread_mutex_init(&stack.mu, NULL);
    size_t first_bad = (size_t)cuplas_par_for(pool, 2 * (int64_t)e->nchunks, encode_one, &x,
                                              &bad_code);
    for (int k = 0; k < stack.nfree; k++)
        free(stack.free[k]);
    free(stack.free);
    pthread_mutex_destroy(&stack.mu);
    if (first_bad < 2 * e->nchunks) {
        if (bad_code == -1)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory compressing the output");
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "deflate failed on a %s chunk",
                    first_bad < e->nchunks ? "index" : "sorted");
    }
fail:
    if (prog) {   /* whatever happened: a waiting writer must wake */
        pthread_mutex_lock(&prog->mu);
        prog->finished = 1;
        prog->failed |= rc != 0;
        pthread_cond_broadcast(&prog->cv);
        pthread_mutex_unlock(&prog->mu);
    }
    return rc;
}

int cuplas_h5_encode_plan(const cuplas_h5grid *in, const int64_t *index,
                          const cuplas_output_opts *opts, cuplas_h5_buffers *bufs,
                          cuplas_h5_encoded **enc, cuplas_error *err)
{
    int rc = encode_plan(in, index, opts, bufs, enc, err);
    if (rc && in->file)
        cuplas_error_where(err, "%s:%s", in->file, in->dataset);
    return rc;
}

int cuplas_h5_encode_run(const cuplas_h5grid *in, const int64_t *index, cuplas_h5_encoded *enc,
                         cuplas_pool *pool, cuplas_h5_encode_progress *prog, cuplas_error *err)
{
    int rc = encode_run(in, index, enc, pool, prog, err);
    if (rc && in->file)
        cuplas_error_where(err, "%s:%s", in->file, in->dataset);
    return rc;
}

int cuplas_h5_encode_result(const cuplas_h5grid *in, const int64_t *index,
                            const cuplas_output_opts *opts, cuplas_h5_buffers *bufs,
                            cuplas_pool *pool, cuplas_h5_encoded **enc, cuplas_error *err)
{
    int rc = cuplas_h5_encode_plan(in, index, opts, bufs, enc, err);
    if (rc == 0 && (rc = cuplas_h5_encode_run(in, index, *enc, pool, NULL, err)) != 0) {
        cuplas_h5_encoded_free(*enc);
        *enc = NULL;
    }
    return rc;
}

int cuplas_h5_encode_progress_init(cuplas_h5_encode_progress *g, const cuplas_h5_encoded *e)
{
    memset(g, 0, sizeof *g);
    if (!(g->state = calloc(2 * e->nchunks + 1, 1)))
        return -1;
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    return 0;
}

void cuplas_h5_encode_progress_free(cuplas_h5_encode_progress *g)
{
    if (!g->state)
        return;
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mu);
    free(g->state);
    g->state = NULL;
}

size_t cuplas_h5_encode_wait(cuplas_h5_encode_progress *g, size_t items, size_t bytes,
                             size_t *prefix_bytes, int *finished)
{
    pthread_mutex_lock(&g->mu);
    while (!g->finished && !g->failed && g->prefix < items && g->prefix_bytes <= bytes)
        pthread_cond_wait(&g->cv, &g->mu);
    size_t n = g->prefix;
    if (prefix_bytes)
        *prefix_bytes = g->prefix_bytes;
    if (finished)
        *finished = g->finished ? (g->failed ? -1 : 1) : g->failed ? -1 : 0;
    pthread_mutex_unlock(&g->mu);
    return n;
}

void cuplas_h5_encoded_free(cuplas_h5_encoded *enc)
{
    if (!enc)
        return;
    if (enc->owned) {
        free(enc->lent[0]);
        free(enc->lent[1]);
    }
    free(enc->sorted);
    free(enc->index);
    free(enc->image);
    free(enc);
}

/* Bytes of data the output file will hold (stored chunks, or the raw
 * datasets when uncompressed). */
size_t cuplas_h5_encoded_bytes(const cuplas_h5_encoded *e)
{
    size_t n = 0;
    if (!e->deflate)
        return (size_t)(e->H * e->W) * (cuplas_h5_cell_bytes(e, 0) + cuplas_h5_cell_bytes(e, 1));
    for (size_t i = 0; i < e->nchunks; i++)
        n += e->sorted[i].size + e->index[i].size;
    return n;
}

int cuplas_h5_encoded_in_memory(const cuplas_h5_encoded *enc)
{
    return cuplas_h5_encoded_bytes(enc) <= CUPLAS_H5_IMAGE_MAX_BYTES;
}
