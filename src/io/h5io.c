/*
 * h5io.c - HDF5 input grids (read raw, convert on demand) and atomic outputs.
 *
 * Design fact: the input is kept as raw bytes in the file's own datatype and
 * `sorted` is produced by gathering whole rows of those bytes, so no value is
 * ever converted on the way from input to output. Only to_double decodes
 * values, by hand for little-endian standard types (no HDF5 call, safe off
 * the I/O thread) and through H5Tconvert for anything else. Every hid_t
 * starts at H5I_INVALID_HID and is closed in the function's single `fail:`.
 *
 * Chunked data with only shuffle/deflate filters never goes through HDF5's
 * filter pipeline: HDF5 holds one global lock, and inflating 64 MB inside it
 * serialises every I/O thread. Instead the locked phase moves stored chunk
 * bytes (chunk addresses + pread / H5Dwrite_chunk) and the codec below (zlib, byte
 * shuffle) runs outside it, one cuplas_par_for item per chunk. The codec
 * reproduces HDF5's filters exactly, so either side can read the other's
 * chunks; anything else (szip, fletcher32, contiguous, ...) is left to HDF5.
 */
#include "io/h5io.h"
#include "io/h5io_encoded.h"
#include "util/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define CUPLAS_MAX_CHANNELS 4096
#define READ_SLAB_BYTES ((size_t)64 << 20)   /* bounded H5Dread calls      */
#define WRITE_SLAB_BYTES ((size_t)32 << 20)  /* gather buffer for `sorted` */
#define AUTO_CHUNK_BYTES ((size_t)1 << 20)
#define CONVERT_BLOCK_VALUES ((size_t)1 << 20)
/* Cells per item of the hand conversion to double. */
#define CONVERT_CELLS 16384
/* Output files holding at most this much data are built in memory (see
 * write_encoded_to); the core driver grows its buffer by data + slack. */
#define IMAGE_MAX_BYTES ((size_t)8 << 20)
#define IMAGE_SLACK_BYTES ((size_t)256 << 10)
#define CAUSE_LEN 200                        /* HDF5 cause quoted in messages */
#define READ_CHUNK_CACHE ((size_t)32 << 20)  /* slabs rarely align to chunks */
#define MAX_FILTERS 8                        /* longer pipelines: plain H5Dread */
#define MSG_LEN 128                          /* per-chunk failure text */

/* Encoded index chunks are host int32/int64 bytes stored as I32LE/I64LE. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "h5io.c assumes a little-endian host"
#endif

/* ------------------------------------------------------------------ types */

/* A supported file datatype: its dtype name and whether to_double can decode
 * the raw bytes itself (little-endian, standard layout). */
typedef struct type_info {
    const char *name;
    size_t size;
    int native;
} type_info;


typedef struct list_ctx {
    char **names;
    int count, cap;
    int oom;
} list_ctx;

/* One stored chunk of an input dataset, fetched under the lock. Offsets are
 * 3-D: rank-2 (N, C) data is viewed as (1, N, C). */
typedef struct fetched_chunk {
    hsize_t offset[3];
    size_t pos, size;    /* at fetch->bytes + pos; size 0: never written   */
    unsigned mask;       /* bit k set: filter k was skipped for this chunk */
    off_t at;            /* byte offset of the stored chunk in the file     */
} fetched_chunk;

struct cuplas_h5_fetch {
    int whole;                          /* begin filled g->raw: no chunks  */
    int nfilters;
    H5Z_filter_t filter[MAX_FILTERS];   /* pipeline (write) order           */
    size_t shuffle_size[MAX_FILTERS];   /* element size of a shuffle step   */
    hsize_t dims[3], chunk[3];          /* 3-D view of dataset and chunk    */
    size_t chunk_bytes;                 /* a whole (unfiltered) chunk       */
    unsigned char fill[16];             /* fill value, one file-type element */
    int fill_zero;
    size_t nchunks;
    fetched_chunk *c;
    unsigned char *bytes;               /* every stored chunk, back to back */
    char *path;                         /* the file, for pread outside HDF5 */
    cuplas_h5_buffers *bufs;            /* lends bytes and the grid, or NULL */
};

/* ------------------------------------------------------------ HDF5 causes */

static herr_t first_cause_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    char *buf = data;
    if (n == 0 && e->desc)
        snprintf(buf, CAUSE_LEN, "%s", e->desc);
    return 0;
}

/* The innermost HDF5 error description (the most specific one), or "". */
static const char *h5_cause(char buf[CAUSE_LEN])
{
    buf[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_cause_cb, buf);
    for (char *p = buf; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return buf;
}

/* -------------------------------------------------------------- datatypes */

static int is_half(hid_t t)
{
    size_t spos, epos, esize, mpos, msize;
    if (H5Tget_fields(t, &spos, &epos, &esize, &mpos, &msize) < 0)
        return 0;
    return spos == 15 && epos == 10 && esize == 5 && mpos == 0 && msize == 10 &&
           H5Tget_ebias(t) == 15;
}

/* Classify a file datatype; returns 0 and fills *ti, or -1 if unsupported. */
static int classify_type(hid_t t, type_info *ti)
{
    static const char *int_names[2][4] = {
        {"uint8", "uint16", "uint32", "uint64"},
        {"int8", "int16", "int32", "int64"},
    };
    H5T_class_t cls = H5Tget_class(t);
    size_t size = H5Tget_size(t);
    int le = H5Tget_order(t) == H5T_ORDER_LE;

    ti->size = size;
    if (cls == H5T_INTEGER) {
        int lg = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
        H5T_sign_t sign = H5Tget_sign(t);
        if (lg < 0 || sign < 0)
            return -1;
        ti->name = int_names[sign == H5T_SGN_2][lg];
        ti->native = (le || size == 1) && H5Tget_precision(t) == 8 * size &&
                     H5Tget_offset(t) == 0;
        return 0;
    }
    if (cls == H5T_FLOAT) {
        if (size == 2) {
            ti->name = "float16";
            ti->native = le && is_half(t);
        } else if (size == 4) {
            ti->name = "float32";
            ti->native = H5Tequal(t, H5T_IEEE_F32LE) > 0;
        } else if (size == 8) {
            ti->name = "float64";
            ti->native = H5Tequal(t, H5T_IEEE_F64LE) > 0;
        } else {
            return -1;
        }
        return 0;
    }
    return -1;
}

static const char *class_name(H5T_class_t cls)
{
    switch (cls) {
    case H5T_STRING: return "string";
    case H5T_COMPOUND: return "compound";
    case H5T_ENUM: return "enum";
    case H5T_OPAQUE: return "opaque";
    case H5T_BITFIELD: return "bitfield";
    case H5T_REFERENCE: return "reference";
    case H5T_VLEN: return "variable-length";
    case H5T_ARRAY: return "array";
    case H5T_TIME: return "time";
    default: return "non-numeric";
    }
}

/* ------------------------------------------- chunk codec (no HDF5 calls) */

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

/* The inverse of shuffle_bytes. */
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
 * HDF5 does. 0, or -1 with the reason in msg. */
static int inflate_exact(const unsigned char *src, size_t n, unsigned char *dst, size_t want,
                         char msg[MSG_LEN])
{
    z_stream z;
    int r, rc = -1;

    memset(&z, 0, sizeof z);
    if (n > UINT_MAX || want > UINT_MAX) {   /* HDF5 chunks are < 4 GiB */
        snprintf(msg, MSG_LEN, "chunk larger than 4 GiB");
        return -1;
    }
    if (inflateInit(&z) != Z_OK) {
        snprintf(msg, MSG_LEN, "zlib: %s", z.msg ? z.msg : "cannot initialise inflate");
        return -1;
    }
    z.next_in = (Bytef *)(uintptr_t)src;   /* zlib's API is not const-correct */
    z.avail_in = (uInt)n;
    z.next_out = dst;
    z.avail_out = (uInt)want;
    r = inflate(&z, Z_FINISH);
    if (r == Z_STREAM_END && z.total_out == want)
        rc = 0;
    else if (r == Z_STREAM_END)
        snprintf(msg, MSG_LEN, "inflates to %lu bytes, not %zu", (unsigned long)z.total_out, want);
    else if (r == Z_BUF_ERROR && z.avail_out == 0)
        snprintf(msg, MSG_LEN, "inflates to more than %zu bytes", want);
    else if (r == Z_BUF_ERROR)
        snprintf(msg, MSG_LEN, "zlib: truncated stream");
    else
        snprintf(msg, MSG_LEN, "zlib: %s", z.msg ? z.msg : zError(r));
    inflateEnd(&z);
    return rc;
}

/* Copy a chunk's in-grid part (edge chunks are stored full size) into raw,
 * or, with src NULL, set that part to the fill value. */
static void place_chunk(const cuplas_h5_fetch *f, const fetched_chunk *c, size_t es,
                        const unsigned char *src, unsigned char *raw)
{
    const hsize_t *d = f->dims, *k = f->chunk, *o = c->offset;
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
static int decode_chunk(const cuplas_h5_fetch *f, const fetched_chunk *c, size_t es,
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
        if (f->filter[k] == H5Z_FILTER_DEFLATE) {
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

/* n bytes of b's buffer `which` (CUPLAS_H5_*), grown if needed; or
 * malloc'd when b is NULL. */
static unsigned char *lend(cuplas_h5_buffers *b, int which, size_t n)
{
    n = n ? n : 1;
    if (!b)
        return malloc(n);
    if (n > b->cap[which]) {
        free(b->p[which]);
        b->cap[which] = 0;
        if (!(b->p[which] = malloc(n)))
            return NULL;
        b->cap[which] = n;
    }
    return b->p[which];
}

void cuplas_h5_buffers_free(cuplas_h5_buffers *b)
{
    if (!b)
        return;
    for (int i = 0; i < CUPLAS_H5_NBUF; i++)
        free(b->p[i]);
    memset(b, 0, sizeof *b);
}

/* g->raw for `bytes` of data, lent by bufs when there are any. */
static int alloc_raw(cuplas_h5grid *g, cuplas_h5_buffers *bufs, size_t bytes)
{
    g->raw = lend(bufs, CUPLAS_H5_RAW, bytes);
    g->raw_lent = g->raw && bufs;
    return g->raw ? 0 : -1;
}

static void fetch_free(cuplas_h5_fetch *f)
{
    if (!f)
        return;
    free(f->c);
    if (!f->bufs)
        free(f->bytes);
    free(f->path);
    free(f);
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
        for (size_t i = 0; i < m; i++)
            memcpy(buf + i * cell, raw + (size_t)index[first + i] * cell, cell);
        memset(buf + m * cell, 0, (cr * W - m) * cell);
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

/* Encode one chunk the way HDF5's pipeline would: shuffle, then compress2
 * at the dataset's level (HDF5's deflate filter stores that zlib stream).
 * a and b: scratch of the chunk's size. 0, -1 out of memory, -2 zlib. */
static int encode_chunk(const cuplas_h5grid *in, const int64_t *index, cuplas_h5_encoded *e,
                        int which, size_t ci, unsigned char *a, unsigned char *b)
{
    size_t es = which ? (e->wide ? 8 : 4) : e->elem_size;
    size_t len = (size_t)e->chunk_rows * (size_t)e->W * (which ? es : es * (size_t)e->C);
    encoded_chunk *out = which ? &e->index[ci] : &e->sorted[ci];
    unsigned char *cur;

    if (!e->deflate) {   /* the last step writes straight into the output */
        if (!(out->data = e->lent[which] ? e->lent[which] + ci * len : malloc(len)))
            return -1;
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
    uLongf n = compressBound((uLong)len);
    if (!(out->data = malloc(n)))
        return -1;
    if (compress2(out->data, &n, cur, (uLong)len, e->deflate) != Z_OK)
        return -2;
    unsigned char *p = realloc(out->data, n ? n : 1);   /* keep only what is used */
    if (p)
        out->data = p;
    out->size = n;
    return 0;
}

/* ------------------------------------------------------------ open / shape */

static char *dataset_path(const char *dataset)
{
    size_t n = strlen(dataset);
    char *p = malloc(n + 2);
    if (!p)
        return NULL;
    if (dataset[0] == '/')
        memcpy(p, dataset, n + 1);
    else {
        p[0] = '/';
        memcpy(p + 1, dataset, n + 1);
    }
    return p;
}

/* Open `file` read-only, telling "missing" from "not HDF5" from "corrupt". */
static int open_input(const char *file, hid_t *fid, cuplas_error *err)
{
    struct stat st;
    char cause[CAUSE_LEN];

    if (stat(file, &st) != 0)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "cannot open: %s",
                                errno == ENOENT ? "no such file" : strerror(errno));
    if (S_ISDIR(st.st_mode))
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "cannot open: is a directory");
    if (access(file, R_OK) != 0)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "cannot open: %s", strerror(errno));
    *fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (*fid < 0)
        return cuplas_error_set(err, CUPLAS_ERR_INPUT, "not an HDF5 file or corrupt (%s)",
                                h5_cause(cause));
    return 0;
}

/* Read an integer attribute `name` of `obj` into *v; 1 found, 0 absent/unusable. */
static int int_attr(hid_t obj, const char *name, int64_t *v)
{
    hid_t aid = H5I_INVALID_HID, tid = H5I_INVALID_HID, sid = H5I_INVALID_HID;
    int found = 0;

    if (H5Aexists(obj, name) <= 0)
        return 0;
    if ((aid = H5Aopen(obj, name, H5P_DEFAULT)) < 0)
        goto fail;
    if ((tid = H5Aget_type(aid)) < 0 || H5Tget_class(tid) != H5T_INTEGER)
        goto fail;
    if ((sid = H5Aget_space(aid)) < 0 || H5Sget_simple_extent_npoints(sid) != 1)
        goto fail;
    found = H5Aread(aid, H5T_NATIVE_INT64, v) >= 0;
fail:
    if (sid >= 0) H5Sclose(sid);
    if (tid >= 0) H5Tclose(tid);
    if (aid >= 0) H5Aclose(aid);
    return found;
}

/* Resolve (H, W) of an (N, C) dataset: arguments, then attributes, then sqrt. */
static int grid_shape_2d(hid_t did, int64_t n, int64_t height, int64_t width,
                         int64_t *H, int64_t *W, cuplas_error *err)
{
    if (height <= 0 && width <= 0 && int_attr(did, "height", &height) &&
        int_attr(did, "width", &width)) {
        if (height <= 0 || width <= 0)
            return cuplas_error_set(err, CUPLAS_ERR_INPUT,
                                    "height/width attributes must be positive (got %lld x %lld)",
                                    (long long)height, (long long)width);
    }
    if (height > 0 && width <= 0) {
        if (n % height)
            return cuplas_error_set(err, CUPLAS_ERR_INPUT,
                                    "N = %lld items is not a multiple of height %lld",
                                    (long long)n, (long long)height);
        width = n / height;
    } else if (width > 0 && height <= 0) {
        if (n % width)
            return cuplas_error_set(err, CUPLAS_ERR_INPUT,
                                    "N = %lld items is not a multiple of width %lld",
                                    (long long)n, (long long)width);
        height = n / width;
    } else if (height <= 0 && width <= 0) {
        int64_t s = (int64_t)llround(sqrt((double)n));
        while (s > 0 && s * s > n)
            s--;
        while ((s + 1) * (s + 1) <= n)
            s++;
        if (s * s != n)
            return cuplas_error_set(err, CUPLAS_ERR_INPUT,
                                    "N = %lld items is not a square; set height and width "
                                    "(config or dataset attributes)", (long long)n);
        height = width = s;
    }
    *H = height;
    *W = width;
    return 0;
}

/*
 * Open the dataset and fill g's shape and type (no data). On success *did is
 * the open dataset; on failure everything opened here is closed again.
 */
static int probe_open(hid_t fid, int64_t height, int64_t width, cuplas_h5grid *g,
                      hid_t *did_out, cuplas_error *err)
{
    hid_t did = H5I_INVALID_HID, sid = H5I_INVALID_HID, tid = H5I_INVALID_HID;
    hid_t dapl = H5I_INVALID_HID;
    H5O_info_t oi;
    hsize_t dims[H5S_MAX_RANK];
    type_info ti;
    int rc = 0, rank;
    size_t bytes;

    if (H5Lexists(fid, g->dataset, H5P_DEFAULT) <= 0 ||
        H5Oget_info_by_name2(fid, g->dataset, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "no dataset %s", g->dataset);
    if (oi.type != H5O_TYPE_DATASET)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "%s is not a dataset", g->dataset);
    /* a chunk cut by a slab boundary is decompressed once, not twice */
    if ((dapl = H5Pcreate(H5P_DATASET_ACCESS)) < 0 ||
        H5Pset_chunk_cache(dapl, H5D_CHUNK_CACHE_NSLOTS_DEFAULT, READ_CHUNK_CACHE,
                           H5D_CHUNK_CACHE_W0_DEFAULT) < 0 ||
        (did = H5Dopen2(fid, g->dataset, dapl)) < 0 ||
        (sid = H5Dget_space(did)) < 0 || (tid = H5Dget_type(did)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot open dataset %s", g->dataset);

    if (classify_type(tid, &ti) != 0) {
        H5T_class_t cls = H5Tget_class(tid);
        if (cls == H5T_INTEGER || cls == H5T_FLOAT)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "unsupported %zu-byte %s type",
                        H5Tget_size(tid), cls == H5T_INTEGER ? "integer" : "float");
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT,
                    "%s data is not numeric (need integers or float16/32/64)",
                    class_name(cls));
    }
    rank = H5Sget_simple_extent_ndims(sid);
    if (rank != 2 && rank != 3)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT,
                    "rank %d dataset; need (N, C) or (H, W, C)", rank);
    H5Sget_simple_extent_dims(sid, dims, NULL);
    for (int i = 0; i < rank; i++) {
        if (dims[i] > (hsize_t)INT64_MAX)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "dimension %d too large", i);
        g->in_dims[i] = (int64_t)dims[i];
    }
    g->in_rank = rank;
    g->C = g->in_dims[rank - 1];
    int64_t n = rank == 3 ? 0 : g->in_dims[0];
    if (rank == 3 && __builtin_mul_overflow(g->in_dims[0], g->in_dims[1], &n))
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "H x W overflows");
    if (n == 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "empty dataset (0 items)");
    if (g->C == 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "no channels (C = 0)");
    if (g->C > CUPLAS_MAX_CHANNELS)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "C = %lld channels exceeds the limit of %d",
                    (long long)g->C, CUPLAS_MAX_CHANNELS);
    if (rank == 3) {
        g->H = g->in_dims[0];
        g->W = g->in_dims[1];
    } else {
        CUPLAS_TRY(grid_shape_2d(did, n, height, width, &g->H, &g->W, err));
        int64_t hw;
        if (__builtin_mul_overflow(g->H, g->W, &hw) || hw != n)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "N = %lld items does not fill a %lld x %lld grid",
                        (long long)n, (long long)g->H, (long long)g->W);
    }
    if (__builtin_mul_overflow((size_t)n, (size_t)g->C, &bytes) ||
        __builtin_mul_overflow(bytes, ti.size, &bytes))
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "dataset too large for this machine");

    snprintf(g->dtype, sizeof g->dtype, "%s", ti.name);
    g->elem_size = ti.size;
    g->native = ti.native;
    if ((g->file_type = H5Tcopy(tid)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot copy the datatype");
    *did_out = did;
    did = H5I_INVALID_HID;
fail:
    if (tid >= 0) H5Tclose(tid);
    if (sid >= 0) H5Sclose(sid);
    if (did >= 0) H5Dclose(did);
    if (dapl >= 0) H5Pclose(dapl);
    return rc;
}

/* Read the whole dataset into g->raw in slabs along the first dimension. */
static int read_raw(hid_t did, cuplas_h5grid *g, cuplas_h5_buffers *bufs, cuplas_error *err)
{
    hid_t fsp = H5I_INVALID_HID, msp = H5I_INVALID_HID;
    int rc = 0, rank = g->in_rank;
    size_t row_bytes = g->elem_size * (size_t)g->C * (rank == 3 ? (size_t)g->W : 1);
    hsize_t rows = (hsize_t)g->in_dims[0];
    hsize_t slab = READ_SLAB_BYTES / row_bytes ? READ_SLAB_BYTES / row_bytes : 1;
    char cause[CAUSE_LEN];

    if (alloc_raw(g, bufs, row_bytes * (size_t)rows) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "cannot allocate %zu bytes for the input",
                    row_bytes * (size_t)rows);
    if ((fsp = H5Dget_space(did)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot get the dataspace");
    for (hsize_t r0 = 0; r0 < rows; r0 += slab) {
        hsize_t start[3] = {r0, 0, 0};
        hsize_t count[3] = {rows - r0 < slab ? rows - r0 : slab,
                            (hsize_t)g->in_dims[1], (hsize_t)g->in_dims[2]};
        if ((msp = H5Screate_simple(rank, count, NULL)) < 0 ||
            H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
            H5Dread(did, (hid_t)g->file_type, msp, fsp, H5P_DEFAULT,
                    (char *)g->raw + (size_t)r0 * row_bytes) < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "read failed at row %llu (%s)",
                        (unsigned long long)r0, h5_cause(cause));
        H5Sclose(msp);
        msp = H5I_INVALID_HID;
    }
fail:
    if (msp >= 0) H5Sclose(msp);
    if (fsp >= 0) H5Sclose(fsp);
    return rc;
}

/* "(y, x, c)" or "(n, c)": a chunk's offset in the dataset's own rank. */
static const char *chunk_where(const cuplas_h5grid *g, const hsize_t off[3], char buf[80])
{
    if (g->in_rank == 3)
        snprintf(buf, 80, "(%llu, %llu, %llu)", (unsigned long long)off[0],
                 (unsigned long long)off[1], (unsigned long long)off[2]);
    else
        snprintf(buf, 80, "(%llu, %llu)", (unsigned long long)off[1],
                 (unsigned long long)off[2]);
    return buf;
}

/*
 * Decide how begin reads the open dataset: fill f's geometry, filter
 * pipeline and fill value for the hand decoder, or leave f->whole set when
 * HDF5 must decode it itself (not chunked, or a filter other than shuffle
 * and deflate: szip, fletcher32, nbit, scaleoffset, plugins).
 */
static int plan_fetch(hid_t did, const cuplas_h5grid *g, cuplas_h5_fetch *f, cuplas_error *err)
{
    hid_t dcpl = H5I_INVALID_HID;
    hsize_t cdims[3] = {1, 1, 1};
    H5D_fill_value_t fill_status = H5D_FILL_VALUE_UNDEFINED;
    int rc = 0, nf, r = g->in_rank;

    f->whole = 1;
#if !H5_VERSION_GE(1, 10, 5)
    goto fail;   /* no H5Dread_chunk / H5Dget_chunk_info_by_coord: HDF5 decodes */
#endif
    if ((dcpl = H5Dget_create_plist(did)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot get the dataset creation properties");
    if (H5Pget_layout(dcpl) != H5D_CHUNKED)
        goto fail;
    if (H5Pget_chunk(dcpl, r, cdims + (3 - r)) != r || (nf = H5Pget_nfilters(dcpl)) < 0 ||
        nf > MAX_FILTERS)
        goto fail;
    for (int k = 0; k < nf; k++) {
        unsigned flags = 0, cd[8], config = 0;
        size_t ncd = sizeof cd / sizeof cd[0];
        char name[64];
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)k, &flags, &ncd, cd, sizeof name, name,
                                         &config);
        /* shuffle's one parameter is the element size, set by HDF5 at creation */
        if (id == H5Z_FILTER_SHUFFLE && ncd == 1 && cd[0] > 0)
            f->shuffle_size[k] = cd[0];
        else if (id != H5Z_FILTER_DEFLATE)
            goto fail;
        f->filter[k] = id;
    }
    f->nfilters = nf;
    for (int i = 0; i < 3; i++) {
        f->dims[i] = i < 3 - r ? 1 : (hsize_t)g->in_dims[i - (3 - r)];
        f->chunk[i] = cdims[i];
        if (f->chunk[i] == 0)
            goto fail;
    }
    if (__builtin_mul_overflow((size_t)cdims[0], (size_t)cdims[1], &f->chunk_bytes) ||
        __builtin_mul_overflow(f->chunk_bytes, (size_t)cdims[2], &f->chunk_bytes) ||
        __builtin_mul_overflow(f->chunk_bytes, g->elem_size, &f->chunk_bytes) ||
        g->elem_size > sizeof f->fill)
        goto fail;
    /* never-written chunks read as the fill value (0 unless the file sets one) */
    memset(f->fill, 0, sizeof f->fill);
    if (H5Pfill_value_defined(dcpl, &fill_status) < 0 ||
        (fill_status != H5D_FILL_VALUE_UNDEFINED &&
         H5Pget_fill_value(dcpl, (hid_t)g->file_type, f->fill) < 0))
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot read the dataset's fill value");
    f->fill_zero = 1;
    for (size_t i = 0; i < g->elem_size; i++)
        if (f->fill[i])
            f->fill_zero = 0;
    f->whole = 0;
fail:
    if (dcpl >= 0) H5Pclose(dcpl);
    return rc;
}

/*
 * Under the lock: where every chunk is stored (file offset, size, filter
 * mask). The bytes themselves are read later with pread, outside the HDF5
 * lock: HDF5 moving tens of MB per grid through its one lock was what kept
 * several GPUs from scaling.
 */
static int fetch_chunks(hid_t fid, hid_t did, const cuplas_h5grid *g, cuplas_h5_fetch *f,
                        cuplas_error *err)
{
    hsize_t grid[3], doff[3], userblock = 0;
    hid_t fcpl = H5I_INVALID_HID;
    size_t total = 0, cap = f->chunk_bytes;
    int rc = 0, r = g->in_rank;
    char cause[CAUSE_LEN], at[80];

    /* chunk addresses are relative to the end of the user block */
    if ((fcpl = H5Fget_create_plist(fid)) < 0 || H5Pget_userblock(fcpl, &userblock) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot read the file's layout (%s)", h5_cause(cause));
    for (int i = 0; i < 3; i++)
        grid[i] = (f->dims[i] + f->chunk[i] - 1) / f->chunk[i];
    f->nchunks = (size_t)(grid[0] * grid[1] * grid[2]);
    for (int k = 0; k < f->nfilters; k++)
        if (f->filter[k] == H5Z_FILTER_DEFLATE)   /* worst-case zlib expansion */
            cap = (size_t)compressBound((uLong)cap) + 64;
    if (!(f->c = calloc(f->nchunks ? f->nchunks : 1, sizeof *f->c)) || !(f->path = strdup(g->file)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for %zu chunk records", f->nchunks);
    for (size_t i = 0; i < f->nchunks; i++) {
        fetched_chunk *c = &f->c[i];
        hsize_t q = (hsize_t)i, size = 0;
        haddr_t addr = HADDR_UNDEF;
        unsigned mask = 0;
        for (int d = 2; d >= 0; d--) {
            c->offset[d] = (q % grid[d]) * f->chunk[d];
            q /= grid[d];
        }
        memcpy(doff, c->offset + (3 - r), (size_t)r * sizeof *doff);
        /* size 0 for a chunk never written (H5Dget_chunk_storage_size fails
         * on those in 1.10.8 once any chunk exists) */
        if (H5Dget_chunk_info_by_coord(did, doff, &mask, &addr, &size) < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "read failed at row %llu: cannot locate chunk %s (%s)",
                        (unsigned long long)doff[0], chunk_where(g, c->offset, at),
                        h5_cause(cause));
        if (addr == HADDR_UNDEF)
            size = 0;
        if (size > cap)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT,
                        "read failed at row %llu: chunk %s is corrupt (stores %llu bytes, "
                        "at most %zu possible)", (unsigned long long)doff[0],
                        chunk_where(g, c->offset, at), (unsigned long long)size, cap);
        c->pos = total;
        c->size = (size_t)size;
        c->mask = mask;
        c->at = (off_t)(addr + userblock);
        total += (size_t)size;
    }
    if (!(f->bytes = lend(f->bufs, CUPLAS_H5_STORED, total)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "cannot allocate %zu bytes for the stored chunks",
                    total);
fail:
    if (fcpl >= 0) H5Pclose(fcpl);
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
    const fetched_chunk *c = &x->f->c[i];
    size_t got = 0;

    while (got < c->size) {
        ssize_t n = pread(x->fd, x->f->bytes + c->pos + got, c->size - got, c->at + (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? (errno ? errno : EIO) : -1;
        got += (size_t)n;
    }
    return 0;
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
        const fetched_chunk *c = &f->c[bad];
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "read failed at row %llu: chunk %s: %s",
                    (unsigned long long)c->offset[g->in_rank == 3 ? 0 : 1],
                    chunk_where(g, c->offset, at),
                    code > 0 ? strerror(code) : "file ends inside the chunk (truncated)");
    }
fail:
    if (x.fd >= 0)
        close(x.fd);
    return rc;
}

/* probe (fetch NULL) or read_begin: open and validate, then fetch the data. */
static int open_grid(const char *file, const char *dataset, int64_t height, int64_t width,
                     cuplas_h5_fetch **fetch, cuplas_h5_buffers *bufs, cuplas_h5grid *g,
                     cuplas_error *err)
{
    hid_t fid = H5I_INVALID_HID, did = H5I_INVALID_HID;
    cuplas_h5_fetch *f = NULL;
    int rc = 0;

    memset(g, 0, sizeof *g);
    g->file_type = H5I_INVALID_HID;
    if (fetch)
        *fetch = NULL;
    g->file = strdup(file);
    g->dataset = dataset_path(dataset);
    if (!g->file || !g->dataset)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    CUPLAS_TRY(open_input(file, &fid, err));
    CUPLAS_TRY(probe_open(fid, height, width, g, &did, err));
    if (fetch) {
        if (!(f = calloc(1, sizeof *f)))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
        f->bufs = bufs;
        CUPLAS_TRY(plan_fetch(did, g, f, err));
        if (f->whole)
            CUPLAS_TRY(read_raw(did, g, bufs, err));
        else
            CUPLAS_TRY(fetch_chunks(fid, did, g, f, err));
        *fetch = f;
        f = NULL;
    }
fail:
    fetch_free(f);
    if (did >= 0) H5Dclose(did);
    if (fid >= 0) H5Fclose(fid);
    if (rc) {
        cuplas_error_where(err, "%s:%s", file, g->dataset ? g->dataset : dataset);
        cuplas_h5grid_free(g);
    }
    return rc;
}

/* --------------------------------------------------------------- decoding */

/* One element of each native type to double. Hand decoders assume the
 * host is little-endian (x86-64, aarch64). */
static inline double dec_u8(const unsigned char *p) { return p[0]; }
static inline double dec_i8(const unsigned char *p) { return (int8_t)p[0]; }
#define DECODER(name, T)                                                       \
    static inline double name(const unsigned char *p)                          \
    {                                                                          \
        T v;                                                                   \
        memcpy(&v, p, sizeof v);                                               \
        return (double)v;                                                      \
    }
DECODER(dec_u16, uint16_t)
DECODER(dec_i16, int16_t)
DECODER(dec_u32, uint32_t)
DECODER(dec_i32, int32_t)
DECODER(dec_u64, uint64_t)
DECODER(dec_i64, int64_t)
DECODER(dec_f32, float)
DECODER(dec_f64, double)

static inline double dec_f16(const unsigned char *p)
{
    unsigned h = (unsigned)p[0] | (unsigned)p[1] << 8;
    unsigned e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24)
             : e == 31 ? (m ? NAN : INFINITY)
             : ldexp(m + 1024, (int)e - 25);
    return h & 0x8000 ? -v : v;
}

/* Channels use[0..nuse) of cells [i0, i1) (C channels of es bytes) to
 * double, one function a type so that the decoder inlines into the loop.
 * Returns the first non-finite value's position (i * nuse + k) or
 * INT64_MAX. */
#define CONVERTER(name, dec, es, FLOATING)                                     \
    static int64_t name(const unsigned char *raw, size_t i0, size_t i1,        \
                        size_t C, const int *use, int nuse, double *out)       \
    {                                                                          \
        int64_t bad = INT64_MAX;                                               \
        for (size_t i = i0; i < i1; i++)                                       \
            for (int k = 0; k < nuse; k++) {                                   \
                double v = dec(raw + (i * C + (size_t)use[k]) * (es));         \
                out[i * (size_t)nuse + (size_t)k] = v;                         \
                if (FLOATING && !isfinite(v) && bad == INT64_MAX)              \
                    bad = (int64_t)(i * (size_t)nuse + (size_t)k);             \
            }                                                                  \
        return bad;                                                            \
    }
CONVERTER(conv_u8, dec_u8, 1, 0)
CONVERTER(conv_i8, dec_i8, 1, 0)
CONVERTER(conv_u16, dec_u16, 2, 0)
CONVERTER(conv_i16, dec_i16, 2, 0)
CONVERTER(conv_u32, dec_u32, 4, 0)
CONVERTER(conv_i32, dec_i32, 4, 0)
CONVERTER(conv_u64, dec_u64, 8, 0)
CONVERTER(conv_i64, dec_i64, 8, 0)
CONVERTER(conv_f16, dec_f16, 2, 1)
CONVERTER(conv_f32, dec_f32, 4, 1)
CONVERTER(conv_f64, dec_f64, 8, 1)

typedef int64_t (*convert_fn)(const unsigned char *, size_t, size_t, size_t, const int *, int,
                              double *);

static convert_fn find_converter(const char *dtype)
{
    static const struct { const char *name; convert_fn fn; } table[] = {
        {"uint8", conv_u8},   {"int8", conv_i8},   {"uint16", conv_u16}, {"int16", conv_i16},
        {"uint32", conv_u32}, {"int32", conv_i32}, {"uint64", conv_u64}, {"int64", conv_i64},
        {"float16", conv_f16}, {"float32", conv_f32}, {"float64", conv_f64},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i].name, dtype))
            return table[i].fn;
    return NULL;
}

/* Fallback for big-endian or odd layouts: gather, then H5Tconvert in blocks. */
static int convert_h5(const cuplas_h5grid *g, const int *use, int nuse, double *out,
                      cuplas_error *err)
{
    size_t n = (size_t)(g->H * g->W), es = g->elem_size;
    size_t block = CONVERT_BLOCK_VALUES / (size_t)nuse ? CONVERT_BLOCK_VALUES / (size_t)nuse : 1;
    const unsigned char *raw = g->raw;
    int rc = 0;

    for (size_t i0 = 0; i0 < n; i0 += block) {
        size_t cnt = n - i0 < block ? n - i0 : block;
        unsigned char *buf = (unsigned char *)(out + i0 * (size_t)nuse);
        /* out's slice is 8 bytes a value, >= elem_size: convert in place there */
        for (size_t i = 0; i < cnt; i++)
            for (int k = 0; k < nuse; k++)
                memcpy(buf + (i * (size_t)nuse + (size_t)k) * es,
                       raw + ((i0 + i) * (size_t)g->C + (size_t)use[k]) * es, es);
        if (H5Tconvert((hid_t)g->file_type, H5T_NATIVE_DOUBLE, cnt * (size_t)nuse, buf,
                       NULL, H5P_DEFAULT) < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot convert %s to double", g->dtype);
    }
fail:
    return rc;
}

/* ------------------------------------------------------------- writing */

static int check_dir(const char *dir, cuplas_error *err)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "output folder %s does not exist", dir);
    if (!S_ISDIR(st.st_mode))
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "output folder %s is not a directory", dir);
    if (access(dir, W_OK | X_OK) != 0)
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "output folder %s is not writable", dir);
    return 0;
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

int64_t cuplas_h5_chunk_rows(int64_t H, size_t row_bytes, int64_t chunk_rows)
{
    if (chunk_rows <= 0)
        chunk_rows = row_bytes ? (int64_t)(AUTO_CHUNK_BYTES / row_bytes) : 1;
    if (chunk_rows < 1)
        chunk_rows = 1;
    return chunk_rows > H ? H : chunk_rows;
}

/* Dataset creation properties: chunk, then shuffle, then deflate; chunk
 * NULL: contiguous, allocated early, no fill. */
static int make_dcpl(int rank, const hsize_t *chunk, int shuffle, int deflate, hid_t *dcpl_out,
                     cuplas_error *err)
{
    hid_t dcpl = H5I_INVALID_HID;
    int rc = 0;

    /* no modification times: the same result gives the same bytes */
    if ((dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 || H5Pset_obj_track_times(dcpl, 0) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot create dataset properties");
    if (!chunk) {
        /* space allocated at creation and never filled: the data goes
           straight to its offset (write_raw), without a second pass */
        if (H5Pset_layout(dcpl, H5D_CONTIGUOUS) < 0 ||
            H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) < 0 ||
            H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot set up a contiguous layout");
        goto done;
    }
    if (H5Pset_chunk(dcpl, rank, chunk) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot set up chunking");
    if (shuffle && (H5Zfilter_avail(H5Z_FILTER_SHUFFLE) <= 0 || H5Pset_shuffle(dcpl) < 0))
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "shuffle filter not available in this HDF5");
    if (deflate > 0 && (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0 ||
                        H5Pset_deflate(dcpl, (unsigned)deflate) < 0))
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "deflate filter not available in this HDF5");
done:
    *dcpl_out = dcpl;
    dcpl = H5I_INVALID_HID;
fail:
    if (dcpl >= 0) H5Pclose(dcpl);
    return rc;
}

/* Create dataset `name` (rank 2 or 3) and store the encoded chunks.
 * Compressed: chunked (chunk_rows rows a chunk), each chunk stored as it
 * is with H5Dwrite_chunk; the dcpl names the filters it went through.
 * Uncompressed: contiguous, and *raw_at gets the data's file offset: the
 * bytes are left to write_raw, outside the serialised HDF5 calls. */
static int write_dataset(hid_t gid, const char *name, hid_t type, int rank, const hsize_t *dims,
                         const hsize_t *chunk, const encoded_chunk *c,
                         const cuplas_h5_encoded *e, uint64_t *raw_at, cuplas_error *err)
{
    hid_t sid = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, did = H5I_INVALID_HID;
    int rc = 0;
    char cause[CAUSE_LEN];

    CUPLAS_TRY(make_dcpl(rank, e->deflate ? chunk : NULL, e->shuffle, e->deflate, &dcpl, err));
    if ((sid = H5Screate_simple(rank, dims, NULL)) < 0 ||
        (did = H5Dcreate2(gid, name, type, sid, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot create dataset %s (%s)", name,
                    h5_cause(cause));
    if (!e->deflate) {
        haddr_t at = H5Dget_offset(did);
        if (at == HADDR_UNDEF)
            CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "no storage allocated for %s", name);
        *raw_at = (uint64_t)at;
    }
    for (size_t ci = 0; e->deflate && ci < e->nchunks; ci++) {
        hsize_t offset[3] = {(hsize_t)ci * (hsize_t)e->chunk_rows, 0, 0};
        if (H5Dwrite_chunk(did, H5P_DEFAULT, 0, offset, c[ci].size, c[ci].data) < 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot write %s at row %llu (%s)", name,
                        (unsigned long long)offset[0], h5_cause(cause));
    }
fail:
    if (did >= 0 && H5Dclose(did) < 0 && !rc)
        rc = cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot close %s (%s)", name,
                              h5_cause(cause));
    if (dcpl >= 0) H5Pclose(dcpl);
    if (sid >= 0) H5Sclose(sid);
    return rc;
}

/* encode_result without the error context (write_result adds its own). */
typedef struct encode_ctx {
    const cuplas_h5grid *in;
    const int64_t *index;
    cuplas_h5_encoded *e;
    size_t scratch;     /* bytes of the larger chunk */
} encode_ctx;

/* Chunk j of sorted (j < nchunks) or of index. Scratch only for
 * compression: uncompressed chunks are gathered straight into their
 * output (and shuffle implies deflate). */
static int encode_one(void *p, int64_t j)
{
    const encode_ctx *x = p;
    cuplas_h5_encoded *e = x->e;
    int which = (size_t)j >= e->nchunks;
    unsigned char *a = e->deflate ? malloc(x->scratch) : NULL;
    unsigned char *b = e->shuffle ? malloc(x->scratch) : NULL;
    int r = (a || !e->deflate) && (b || !e->shuffle)
                ? encode_chunk(x->in, x->index, e, which, which ? (size_t)j - e->nchunks : (size_t)j,
                               a, b)
                : -1;
    free(a);
    free(b);
    return r;
}

static int encode_result(const cuplas_h5grid *in, const int64_t *index,
                         const cuplas_output_opts *opts, cuplas_h5_buffers *bufs,
                         cuplas_pool *pool, cuplas_h5_encoded **enc_out, cuplas_error *err)
{
    cuplas_h5_encoded *e = NULL;
    size_t row_bytes = in->elem_size * (size_t)in->C * (size_t)in->W;
    size_t sorted_bytes, index_bytes, scratch, first_bad;
    int rc = 0, bad_code = 0;

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
    e->wide = in->H * in->W > INT32_MAX;
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
    scratch = sorted_bytes > index_bytes ? sorted_bytes : index_bytes;
    if (!(e->sorted = calloc(e->nchunks, sizeof *e->sorted)) ||
        !(e->index = calloc(e->nchunks, sizeof *e->index)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (bufs && !e->deflate &&
        (!(e->lent[0] = lend(bufs, CUPLAS_H5_SORTED, e->nchunks * sorted_bytes)) ||
         !(e->lent[1] = lend(bufs, CUPLAS_H5_INDEX, e->nchunks * index_bytes))))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for a %lldx%lld result",
                    (long long)in->H, (long long)in->W);

    /* one item per chunk of either dataset; the lowest failing one is
     * reported, so the outcome does not depend on the schedule */
    encode_ctx x = {in, index, e, scratch};
    first_bad = (size_t)cuplas_par_for(pool, 2 * (int64_t)e->nchunks, encode_one, &x, &bad_code);
    if (first_bad < 2 * e->nchunks) {
        if (bad_code == -1)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory compressing the output");
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "zlib compress2 failed on a %s chunk",
                    first_bad < e->nchunks ? "sorted" : "index");
    }
    *enc_out = e;
    e = NULL;
fail:
    cuplas_h5_encoded_free(e);
    return rc;
}

/* One attribute: `type` in the file, `mtype` in memory, `n` values (0 = scalar). */
static int put_attr(hid_t obj, const char *name, hid_t type, hid_t mtype, hsize_t n,
                    const void *val)
{
    hid_t sid = H5I_INVALID_HID, aid = H5I_INVALID_HID;
    int ok = 0;

    if ((sid = n ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_SCALAR)) < 0)
        goto fail;
    if ((aid = H5Acreate2(obj, name, type, sid, H5P_DEFAULT, H5P_DEFAULT)) < 0)
        goto fail;
    ok = H5Awrite(aid, mtype, val) >= 0;
fail:
    if (aid >= 0 && H5Aclose(aid) < 0)
        ok = 0;
    if (sid >= 0) H5Sclose(sid);
    return ok ? 0 : -1;
}

/* Variable-length UTF-8 strings: h5py reads them as str, h5dump prints them. */
static int put_str(hid_t obj, const char *name, const char *s)
{
    hid_t tid = H5I_INVALID_HID;
    const char *v = s ? s : "";
    int rc = -1;

    if ((tid = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(tid, H5T_VARIABLE) < 0 ||
        H5Tset_cset(tid, H5T_CSET_UTF8) < 0)
        goto fail;
    rc = put_attr(obj, name, tid, tid, 0, &v);
fail:
    if (tid >= 0) H5Tclose(tid);
    return rc;
}

static int write_attrs(hid_t gid, const cuplas_h5grid *in, const cuplas_result_meta *m,
                       cuplas_error *err)
{
    static const cuplas_result_meta none = {0};
    const int one = 1;
    char cause[CAUSE_LEN];

    if (!m)
        m = &none;
    if (put_str(gid, "params", m->params_yaml) < 0 ||
        put_attr(gid, "seed", H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, &m->seed) < 0 ||
        put_str(gid, "cuplas_version", m->version) < 0 ||
        put_str(gid, "input_file", in->file) < 0 ||
        put_str(gid, "input_dataset", in->dataset) < 0 ||
        put_attr(gid, "input_shape", H5T_STD_I64LE, H5T_NATIVE_INT64, (hsize_t)in->in_rank,
                 in->in_dims) < 0 ||
        put_str(gid, "input_dtype", in->dtype) < 0 ||
        put_attr(gid, "and_before", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &m->and_before) < 0 ||
        put_attr(gid, "and_after", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &m->and_after) < 0 ||
        put_attr(gid, "wall_seconds", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0,
                 &m->wall_seconds) < 0 ||
        put_str(gid, "backend", m->backend) < 0 ||
        put_str(gid, "device", m->device_name) < 0 ||
        put_str(gid, "identity", m->identity) < 0 ||
        /* last: a reader that sees complete=1 sees everything above */
        put_attr(gid, "complete", H5T_STD_I32LE, H5T_NATIVE_INT, 0, &one) < 0)
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot write attributes (%s)",
                                h5_cause(cause));
    return 0;
}

static int fsync_path(const char *path, int flags)
{
    int fd = open(path, flags);
    if (fd < 0)
        return -1;
    int r = fsync(fd);
    /* some filesystems refuse fsync on directories; that is not data loss */
    if (r != 0 && (flags & O_DIRECTORY) && (errno == EINVAL || errno == ENOTSUP))
        r = 0;
    close(fd);
    return r;
}

/* The umask without changing it (umask(2) can only set it, and other
 * threads create files meanwhile): /proc/self/status, Linux >= 4.7. */
static mode_t process_umask(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned m = 022;

    if (!f)
        return 022;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Umask: %o", &m) == 1)
            break;
    fclose(f);
    return (mode_t)(m & 0777);
}

/* -------------------------------------------------------------- public API */

char *cuplas_tmp_create(const char *out_path, cuplas_error *err)
{
    const char *slash = strrchr(out_path, '/');
    const char *base = slash ? slash + 1 : out_path;
    int dlen = slash ? (int)(slash - out_path) + 1 : 0;   /* keeps the '/' */
    size_t n = strlen(out_path) + 64;
    char *tmp = malloc(n);

    if (!tmp) {
        cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    snprintf(tmp, n, "%.*s.%s.tmp.%ld.XXXXXX", dlen, out_path, base, (long)getpid());
    int fd = mkstemp(tmp);
    if (fd < 0) {
        cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot create a temporary file next to %s: %s",
                         out_path, strerror(errno));
        free(tmp);
        return NULL;
    }
    /* mkstemp makes 0600; a published file gets the mode open() would give
       (on a cluster the results are read by others than the batch user) */
    fchmod(fd, 0666 & ~process_umask());
    close(fd);
    return tmp;
}

int cuplas_tmp_publish(const char *tmp, const char *out_path, int sync, cuplas_error *err)
{
    char *dir = cuplas_path_dir(out_path);
    int rc = 0;

    if (!dir)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    /* HDF5 does not fsync: without this a crash after rename can publish zeros */
    if (sync && fsync_path(tmp, O_RDONLY) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "fsync %s: %s", tmp, strerror(errno));
    if (rename(tmp, out_path) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot rename %s to %s: %s", tmp, out_path,
                    strerror(errno));
    if (sync && fsync_path(dir, O_RDONLY | O_DIRECTORY) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "fsync folder %s: %s", dir, strerror(errno));
fail:
    free(dir);
    return rc;
}

int64_t cuplas_h5_pin(const char *file)
{
    hid_t fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    return fid < 0 ? -1 : (int64_t)fid;
}

void cuplas_h5_unpin(int64_t id)
{
    if (id >= 0)
        H5Fclose((hid_t)id);
}

int cuplas_h5_read_begin(const char *file, const char *dataset, int64_t height, int64_t width,
                         cuplas_h5grid *g, cuplas_h5_fetch **fetch, cuplas_h5_buffers *bufs,
                         cuplas_error *err)
{
    return open_grid(file, dataset, height, width, fetch, bufs, g, err);
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
    if (alloc_raw(g, f->bufs, bytes) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "cannot allocate %zu bytes for the input", bytes);

    /* the lowest failing chunk is reported: the same error for any thread
       count; its text comes from decoding it once more */
    bad = (size_t)cuplas_par_for(pool, (int64_t)f->nchunks, decode_one, &x, &code);
    if (bad < f->nchunks) {
        const fetched_chunk *c = &f->c[bad];
        x.msg = why;
        if (code == -2 || decode_one(&x, (int64_t)bad) == -2)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory decompressing chunks");
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "read failed at row %llu: chunk %s is corrupt (%s)",
                    (unsigned long long)c->offset[g->in_rank == 3 ? 0 : 1],
                    chunk_where(g, c->offset, at), why);
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
    fetch_free(f);
    return rc;
}

int cuplas_h5_read_grid(const char *file, const char *dataset, int64_t height, int64_t width,
                        cuplas_h5grid *g, cuplas_error *err)
{
    cuplas_h5_fetch *f = NULL;
    int rc = cuplas_h5_read_begin(file, dataset, height, width, g, &f, NULL, err);

    if (rc == 0 && (rc = cuplas_h5_read_finish(g, f, NULL, err)) != 0)
        cuplas_h5grid_free(g);
    return rc;
}

int cuplas_h5_probe_grid(const char *file, const char *dataset, int64_t height, int64_t width,
                         cuplas_h5grid *g, cuplas_error *err)
{
    return open_grid(file, dataset, height, width, NULL, NULL, g, err);
}

void cuplas_h5grid_free(cuplas_h5grid *g)
{
    if (!g)
        return;
    free(g->file);
    free(g->dataset);
    if (!g->raw_lent)
        free(g->raw);
    if (g->file_type >= 0)
        H5Tclose((hid_t)g->file_type);
    memset(g, 0, sizeof *g);
    g->file_type = H5I_INVALID_HID;
}

typedef struct convert_ctx {
    convert_fn conv;
    const cuplas_h5grid *g;
    const int *use;
    int nuse;
    double *out;
} convert_ctx;

static int64_t convert_block(const convert_ctx *x, int64_t b)
{
    size_t n = (size_t)(x->g->H * x->g->W), i0 = (size_t)b * CONVERT_CELLS;
    size_t i1 = n - i0 < CONVERT_CELLS ? n : i0 + CONVERT_CELLS;
    return x->conv(x->g->raw, i0, i1, (size_t)x->g->C, x->use, x->nuse, x->out);
}

static int convert_one(void *p, int64_t b) { return convert_block(p, b) != INT64_MAX; }

int cuplas_h5grid_to_double(const cuplas_h5grid *g, const int *use, int nuse, double *out,
                            cuplas_pool *pool, cuplas_error *err)
{
    size_t n = (size_t)(g->H * g->W);
    convert_ctx x = {g->native ? find_converter(g->dtype) : NULL, g, use, nuse, out};
    int64_t bad = INT64_MAX;   /* first non-finite value, as i * nuse + k */
    int rc = 0;

    if (!g->raw || nuse <= 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "no data or no channels to convert");
    for (int k = 0; k < nuse; k++)
        if (use[k] < 0 || use[k] >= g->C)
            CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "channel %d out of range (C = %lld)", use[k],
                        (long long)g->C);
    if (x.conv) {
        int64_t nb = cuplas_par_blocks((int64_t)n, CONVERT_CELLS);
        int64_t b = cuplas_par_for(pool, nb, convert_one, &x, NULL);
        if (b < nb)   /* the first block with a bad value: find it again */
            bad = convert_block(&x, b);
    } else {
        CUPLAS_TRY(convert_h5(g, use, nuse, out, err));
        for (size_t j = 0; j < n * (size_t)nuse && bad == INT64_MAX; j++)
            if (!isfinite(out[j]))
                bad = (int64_t)j;
    }
    if (bad != INT64_MAX) {
        int64_t i = bad / nuse;
        double v = out[bad];
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "%s at cell (y=%lld, x=%lld), channel %d",
                    isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf", (long long)(i / g->W),
                    (long long)(i % g->W), use[bad % nuse]);
    }
fail:
    if (rc && g->file)
        cuplas_error_where(err, "%s:%s", g->file, g->dataset);
    return rc;
}

int cuplas_h5_encode_result(const cuplas_h5grid *in, const int64_t *index,
                            const cuplas_output_opts *opts, cuplas_h5_buffers *bufs,
                            cuplas_pool *pool, cuplas_h5_encoded **enc, cuplas_error *err)
{
    int rc = encode_result(in, index, opts, bufs, pool, enc, err);
    if (rc && in->file)
        cuplas_error_where(err, "%s:%s", in->file, in->dataset);
    return rc;
}

void cuplas_h5_encoded_free(cuplas_h5_encoded *enc)
{
    if (!enc)
        return;
    for (size_t i = 0; i < enc->nchunks; i++) {
        if (enc->sorted && !enc->lent[0])
            free(enc->sorted[i].data);
        if (enc->index && !enc->lent[1])
            free(enc->index[i].data);
    }
    free(enc->sorted);
    free(enc->index);
    free(enc->image);
    free(enc);
}

/* pwrite all of buf at off, resuming after short writes and EINTR. */
static int pwrite_all(int fd, const unsigned char *buf, size_t n, off_t off)
{
    while (n) {
        ssize_t w = pwrite(fd, buf, n, off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        buf += w;
        n -= (size_t)w;
        off += w;
    }
    return 0;
}

typedef struct write_ctx {
    const cuplas_h5_encoded *enc;
    int fd;
} write_ctx;

/* Chunk j of sorted (j < nchunks) or of index at its place: 0 or errno. */
static int write_one(void *p, int64_t j)
{
    const write_ctx *x = p;
    const cuplas_h5_encoded *enc = x->enc;
    int which = (size_t)j >= enc->nchunks;
    size_t ci = which ? (size_t)j - enc->nchunks : (size_t)j;
    size_t cell = cuplas_h5_cell_bytes(enc, which);
    size_t row = cell * (size_t)enc->W, r0 = ci * (size_t)enc->chunk_rows;
    size_t rows = (size_t)enc->H - r0 < (size_t)enc->chunk_rows ? (size_t)enc->H - r0
                                                                 : (size_t)enc->chunk_rows;
    const encoded_chunk *c = which ? &enc->index[ci] : &enc->sorted[ci];
    return pwrite_all(x->fd, c->data, rows * row, (off_t)(enc->raw_at[which] + r0 * row));
}

/* The in-memory file's pieces (every byte but the raw data regions, which
 * write_one stores next): 0 or errno. */
static int write_image(int fd, const cuplas_h5_encoded *enc)
{
    const unsigned char *p = enc->image;
    for (int k = 0; k < enc->nseg; k++) {
        int e = pwrite_all(fd, p, (size_t)enc->seg[k][1], (off_t)enc->seg[k][0]);
        if (e)
            return e;
        p += enc->seg[k][1];
    }
    return 0;
}

int cuplas_h5_write_raw(const char *tmp, const cuplas_h5_encoded *enc, cuplas_pool *pool,
                        cuplas_error *err)
{
    write_ctx x = {enc, -1};
    int bad_errno = 0, rc = 0;

    if (!enc->raw_pending && !enc->image)
        return 0;
    if ((x.fd = open(tmp, O_WRONLY)) < 0)
        return cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot open %s: %s", tmp,
                                strerror(errno));
    if (enc->image)
        bad_errno = write_image(x.fd, enc);
    /* page-cache copies of many MiB: in parallel, like the encoding */
    if (enc->raw_pending && !bad_errno)
        cuplas_par_for(pool, 2 * (int64_t)enc->nchunks, write_one, &x, &bad_errno);
    if (close(x.fd) != 0 && !bad_errno)
        bad_errno = errno;
    if (bad_errno)
        rc = cuplas_error_set(err, CUPLAS_ERR_OUTPUT, "cannot write %s: %s", tmp,
                              strerror(bad_errno));
    return rc;
}

int cuplas_h5_write_encoded(const char *out_path, const cuplas_h5grid *in,
                            cuplas_h5_encoded *enc, const cuplas_result_meta *meta,
                            cuplas_error *err)
{
    char *dir = cuplas_path_dir(out_path), *tmp = NULL;
    int rc = dir ? check_dir(dir, err) : cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");

    if (rc == 0 && !(tmp = cuplas_tmp_create(out_path, err)))
        rc = err ? (int)err->code : CUPLAS_ERR_OUTPUT;
    if (rc == 0 && ((rc = cuplas_h5_write_encoded_to(tmp, in, enc, meta, err)) != 0 ||
                    (rc = cuplas_h5_write_raw(tmp, enc, NULL, err)) != 0 ||
                    (rc = cuplas_tmp_publish(tmp, out_path, 1, err)) != 0))
        unlink(tmp);
    if (rc)
        cuplas_error_where(err, "%s:%s", out_path, in->dataset);
    free(dir);
    free(tmp);
    return rc;
}

/* Bytes of data the output file will hold (stored chunks, or the raw
 * datasets when uncompressed). */
static size_t encoded_bytes(const cuplas_h5_encoded *e)
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
    return encoded_bytes(enc) <= IMAGE_MAX_BYTES;
}

/* Drop the raw data regions (zeros in an image) from enc->image, keeping
 * the pieces around them back to back: 200 KiB of zeros for a 256^2 x 3
 * result need not be copied. */
static void compact_image(cuplas_h5_encoded *enc)
{
    uint64_t end = enc->image_size, cut[2][2] = {{end, end}, {end, end}};
    if (!enc->deflate) {
        size_t cells = (size_t)(enc->H * enc->W);
        cut[0][0] = enc->raw_at[0];
        cut[0][1] = enc->raw_at[0] + cells * cuplas_h5_cell_bytes(enc, 0);
        cut[1][0] = enc->raw_at[1];
        cut[1][1] = enc->raw_at[1] + cells * cuplas_h5_cell_bytes(enc, 1);
    }
    int lo = cut[0][0] <= cut[1][0] ? 0 : 1;   /* the region that comes first */
    uint64_t from[3] = {0, cut[lo][1], cut[!lo][1]};
    uint64_t to[3] = {cut[lo][0], cut[!lo][0], end};
    size_t kept = 0;

    enc->nseg = 0;
    for (int k = 0; k < CUPLAS_H5_IMAGE_SEGS; k++) {
        uint64_t a = from[k] < end ? from[k] : end, b = to[k] < end ? to[k] : end;
        if (a >= b)
            continue;
        memmove(enc->image + kept, enc->image + a, (size_t)(b - a));
        enc->seg[enc->nseg][0] = a;
        enc->seg[enc->nseg][1] = b - a;
        enc->nseg++;
        kept += (size_t)(b - a);
    }
}

/* The in-memory file's bytes into enc->image (compacted). The flush comes
 * first: the image of an unflushed file keeps the superblock of
 * H5Fcreate (its end of file 2048 bytes), which no reader opens. */
static int take_image(hid_t fid, cuplas_h5_encoded *enc, const char *tmp, cuplas_error *err)
{
    char cause[CAUSE_LEN];
    ssize_t n = H5Fflush(fid, H5F_SCOPE_GLOBAL) < 0 ? -1 : H5Fget_file_image(fid, NULL, 0);

    if (n <= 0 || !(enc->image = malloc((size_t)n)) ||
        H5Fget_file_image(fid, enc->image, (size_t)n) != n)
        return cuplas_error_set(err, n > 0 && !enc->image ? CUPLAS_ERR_NOMEM : CUPLAS_ERR_OUTPUT,
                                "cannot build %s in memory (%s)", tmp, h5_cause(cause));
    enc->image_size = (size_t)n;
    compact_image(enc);
    return 0;
}

int cuplas_h5_write_encoded_to(const char *tmp, const cuplas_h5grid *in,
                               cuplas_h5_encoded *enc, const cuplas_result_meta *meta,
                               cuplas_error *err)
{
    hid_t fapl = H5I_INVALID_HID, lcpl = H5I_INVALID_HID, fid = H5I_INVALID_HID;
    hid_t gcpl = H5I_INVALID_HID, gid = H5I_INVALID_HID;
    char cause[CAUSE_LEN];
    int rc = 0;

    if (!enc || in->file_type < 0 || enc->H != in->H || enc->W != in->W || enc->C != in->C ||
        enc->elem_size != in->elem_size)
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL,
                    "write_encoded needs the grid (with its type) that was encoded");

    /* SEMI: H5Fclose fails (instead of silently deferring) if an id leaked.
     * A small file is built in memory (core driver, no backing store): the
     * HDF5 thread then makes no file system call at all, and write_raw
     * stores the image on the caller's thread. */
    enc->raw_pending = 0;
    free(enc->image);
    enc->image = NULL;
    enc->nseg = 0;
    size_t bytes = encoded_bytes(enc);
    int in_memory = cuplas_h5_encoded_in_memory(enc);
    if ((fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 ||
        H5Pset_fclose_degree(fapl, H5F_CLOSE_SEMI) < 0 ||
        (in_memory && H5Pset_fapl_core(fapl, bytes + IMAGE_SLACK_BYTES, 0) < 0) ||
        (fid = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot create %s (%s)", tmp, h5_cause(cause));
    if ((lcpl = H5Pcreate(H5P_LINK_CREATE)) < 0 ||
        H5Pset_create_intermediate_group(lcpl, 1) < 0 ||
        (gcpl = H5Pcreate(H5P_GROUP_CREATE)) < 0 || H5Pset_obj_track_times(gcpl, 0) < 0 ||
        (gid = H5Gcreate2(fid, in->dataset, lcpl, gcpl, H5P_DEFAULT)) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot create group %s (%s)", in->dataset,
                    h5_cause(cause));

    {
        hsize_t idims[2] = {(hsize_t)in->H, (hsize_t)in->W};
        hsize_t ichunk[2] = {(hsize_t)enc->chunk_rows, (hsize_t)in->W};
        hsize_t sdims[3] = {(hsize_t)in->H, (hsize_t)in->W, (hsize_t)in->C};
        hsize_t schunk[3] = {(hsize_t)enc->chunk_rows, (hsize_t)in->W, (hsize_t)in->C};
        CUPLAS_TRY(write_dataset(gid, "index", enc->wide ? H5T_STD_I64LE : H5T_STD_I32LE, 2,
                                 idims, ichunk, enc->index, enc, &enc->raw_at[1], err));
        CUPLAS_TRY(write_dataset(gid, "sorted", (hid_t)in->file_type, 3, sdims, schunk,
                                 enc->sorted, enc, &enc->raw_at[0], err));
    }
    CUPLAS_TRY(write_attrs(gid, in, meta, err));

    if (H5Gclose(gid) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot close group (%s)", h5_cause(cause));
    gid = H5I_INVALID_HID;
    if (in_memory)
        CUPLAS_TRY(take_image(fid, enc, tmp, err));
    if (H5Fclose(fid) < 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_OUTPUT, "cannot close %s (%s)", tmp, h5_cause(cause));
    fid = H5I_INVALID_HID;
    enc->raw_pending = !enc->deflate;
fail:
    if (gid >= 0) H5Gclose(gid);
    if (gcpl >= 0) H5Pclose(gcpl);
    if (lcpl >= 0) H5Pclose(lcpl);
    if (fid >= 0) H5Fclose(fid);
    if (fapl >= 0) H5Pclose(fapl);
    if (rc) {
        free(enc->image);
        enc->image = NULL;
        enc->nseg = 0;
    }
    return rc;
}

int cuplas_h5_write_result(const char *out_path, const cuplas_h5grid *in, const int64_t *index,
                           const cuplas_output_opts *opts, const cuplas_result_meta *meta,
                           cuplas_error *err)
{
    cuplas_h5_encoded *enc = NULL;
    int rc = encode_result(in, index, opts, NULL, NULL, &enc, err);

    if (rc == 0)
        rc = cuplas_h5_write_encoded(out_path, in, enc, meta, err);
    cuplas_h5_encoded_free(enc);
    if (rc)
        cuplas_error_where(err, "%s:%s", out_path, in->dataset);
    return rc;
}

/* Read a string attribute (fixed or variable length) into buf; 0 on success. */
static int str_attr(hid_t obj, const char *name, char *buf, size_t size)
{
    hid_t aid = H5I_INVALID_HID, tid = H5I_INVALID_HID, mt = H5I_INVALID_HID;
    int rc = -1;

    if (H5Aexists(obj, name) <= 0 || (aid = H5Aopen(obj, name, H5P_DEFAULT)) < 0 ||
        (tid = H5Aget_type(aid)) < 0 || H5Tget_class(tid) != H5T_STRING)
        goto fail;
    if (H5Tis_variable_str(tid) > 0) {
        char *s = NULL;
        /* same cset as the file: HDF5 has no ASCII <-> UTF-8 conversion path
           (a fresh process fails the read; the writer's process does not) */
        if ((mt = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(mt, H5T_VARIABLE) < 0 ||
            H5Tset_cset(mt, H5Tget_cset(tid)) < 0 || H5Aread(aid, mt, &s) < 0)
            goto fail;
        if (s) {
            snprintf(buf, size, "%s", s);
            H5free_memory(s);
            rc = 0;
        }
    } else {
        size_t n = H5Tget_size(tid);
        char *s = calloc(n + 1, 1);
        if (!s || (mt = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(mt, n + 1) < 0 ||
            H5Tset_cset(mt, H5Tget_cset(tid)) < 0 || H5Aread(aid, mt, s) < 0) {
            free(s);
            goto fail;
        }
        snprintf(buf, size, "%s", s);
        free(s);
        rc = 0;
    }
fail:
    if (mt >= 0) H5Tclose(mt);
    if (tid >= 0) H5Tclose(tid);
    if (aid >= 0) H5Aclose(aid);
    return rc;
}

int cuplas_h5_output_complete(const char *out_path, const char *dataset, const char *identity)
{
    hid_t fid = H5I_INVALID_HID, gid = H5I_INVALID_HID;
    char *path = NULL, *have = NULL;
    int64_t complete = 0;
    int ok = 0;

    if (access(out_path, R_OK) != 0 || !(path = dataset_path(dataset)))
        return 0;
    H5E_BEGIN_TRY {
        if ((fid = H5Fopen(out_path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0 ||
            H5Lexists(fid, path, H5P_DEFAULT) <= 0 ||
            (gid = H5Gopen2(fid, path, H5P_DEFAULT)) < 0)
            goto fail;
        if (!int_attr(gid, "complete", &complete) || complete != 1)
            goto fail;
        if (identity) {
            size_t n = strlen(identity) + 2;   /* +1 so a longer stored value differs */
            if (!(have = malloc(n)) || str_attr(gid, "identity", have, n) != 0 ||
                strcmp(have, identity) != 0)
                goto fail;
        }
        ok = 1;
    fail:
        if (gid >= 0) H5Gclose(gid);
        if (fid >= 0) H5Fclose(fid);
    } H5E_END_TRY;
    free(have);
    free(path);
    return ok;
}

/* Read a scalar floating-point attribute; 1 found, 0 absent/unusable. */
static int double_attr(hid_t obj, const char *name, double *v)
{
    hid_t aid = H5I_INVALID_HID, tid = H5I_INVALID_HID;
    int found = 0;

    if (H5Aexists(obj, name) <= 0 || (aid = H5Aopen(obj, name, H5P_DEFAULT)) < 0)
        goto fail;
    if ((tid = H5Aget_type(aid)) < 0 || H5Tget_class(tid) != H5T_FLOAT)
        goto fail;
    found = H5Aread(aid, H5T_NATIVE_DOUBLE, v) >= 0;
fail:
    if (tid >= 0) H5Tclose(tid);
    if (aid >= 0) H5Aclose(aid);
    return found;
}

int cuplas_h5_output_metrics(const char *out_path, const char *dataset, double *and_before,
                             double *and_after, char *backend, size_t bsize, char *device,
                             size_t dsize)
{
    hid_t fid = H5I_INVALID_HID, gid = H5I_INVALID_HID;
    char *path = NULL;
    int rc = -1;

    if (!(path = dataset_path(dataset)))
        return -1;
    H5E_BEGIN_TRY {
        if ((fid = H5Fopen(out_path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0 ||
            H5Lexists(fid, path, H5P_DEFAULT) <= 0 ||
            (gid = H5Gopen2(fid, path, H5P_DEFAULT)) < 0)
            goto fail;
        if (!double_attr(gid, "and_before", and_before) ||
            !double_attr(gid, "and_after", and_after))
            goto fail;
        if (str_attr(gid, "backend", backend, bsize) != 0)
            backend[0] = '\0';
        if (str_attr(gid, "device", device, dsize) != 0)
            device[0] = '\0';
        rc = 0;
    fail:
        if (gid >= 0) H5Gclose(gid);
        if (fid >= 0) H5Fclose(fid);
    } H5E_END_TRY;
    free(path);
    return rc;
}

static int add_name(list_ctx *ctx, const char *name)
{
    if (ctx->count == ctx->cap) {
        int cap = ctx->cap ? 2 * ctx->cap : 16;
        char **p = realloc(ctx->names, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        ctx->names = p;
        ctx->cap = cap;
    }
    if (!(ctx->names[ctx->count] = dataset_path(name)))
        return -1;
    ctx->count++;
    return 0;
}

/* Visitor: keep datasets that read_grid could accept by type and rank. */
static herr_t list_cb(hid_t obj, const char *name, const H5O_info_t *info, void *data)
{
    list_ctx *ctx = data;
    hid_t did = H5I_INVALID_HID, tid = H5I_INVALID_HID, sid = H5I_INVALID_HID;
    type_info ti;
    herr_t ret = 0;

    if (info->type != H5O_TYPE_DATASET)
        return 0;
    if ((did = H5Dopen2(obj, name, H5P_DEFAULT)) < 0)
        goto fail;
    if ((tid = H5Dget_type(did)) < 0 || classify_type(tid, &ti) != 0)
        goto fail;
    if ((sid = H5Dget_space(did)) < 0)
        goto fail;
    int rank = H5Sget_simple_extent_ndims(sid);
    if ((rank == 2 || rank == 3) && add_name(ctx, name) != 0) {
        ctx->oom = 1;
        ret = -1;
    }
fail:
    if (sid >= 0) H5Sclose(sid);
    if (tid >= 0) H5Tclose(tid);
    if (did >= 0) H5Dclose(did);
    return ret;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int cuplas_h5_list_datasets(const char *file, char ***names, int *count, cuplas_error *err)
{
    hid_t fid = H5I_INVALID_HID;
    list_ctx ctx = {0};
    char cause[CAUSE_LEN];
    int rc = 0;

    *names = NULL;
    *count = 0;
    CUPLAS_TRY(open_input(file, &fid, err));
    if (H5Ovisit2(fid, H5_INDEX_NAME, H5_ITER_INC, list_cb, &ctx, H5O_INFO_BASIC) < 0) {
        if (ctx.oom)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory listing datasets");
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "cannot list objects (%s)", h5_cause(cause));
    }
    if (ctx.count > 1)
        qsort(ctx.names, (size_t)ctx.count, sizeof *ctx.names, cmp_str);
    *names = ctx.names;
    *count = ctx.count;
    ctx.names = NULL;
fail:
    if (fid >= 0) H5Fclose(fid);
    if (rc) {
        cuplas_h5_free_names(ctx.names, ctx.count);
        cuplas_error_where(err, "%s", file);
    }
    return rc;
}

void cuplas_h5_free_names(char **names, int count)
{
    if (!names)
        return;
    for (int i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

void cuplas_h5_quiet(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void cuplas_h5_tune(void)
{
    /* Every H5Fcreate/H5Fopen allocates a ~520 KiB metadata-cache table and
       every close frees it. The default per-list limit of HDF5's free lists
       (64 KiB) hands it back to malloc each time, and a fresh 520 KiB block
       costs ~130 page faults: half of the HDF5 work of writing a small
       result. 1 MiB per list keeps one; the other limits stay the defaults. */
    H5set_free_list_limits(4 << 20, 1 << 20, 4 << 20, 256 << 10, 16 << 20, 1 << 20);
#ifdef __GLIBC__
    /* glibc maps blocks from 128 KiB up (the threshold adapts, up to
       32 MiB) and trims freed heap tops: chunk and grid buffers, freed job
       after job, come back as fresh pages. Fixed thresholds keep freed
       memory for the next job (unmaps also interrupt every core the
       process runs on). Larger grids are lent per lane (cuplas_h5_buffers). */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}
