/*
 * dtype.c - file values to double, by hand (dtype.h). No HDF5 calls.
 *
 * Design fact: one converter per (type, byte order), so that the decoder
 * inlines into the loop over cells; the loop runs in blocks of cells on
 * a pool (cuplas_par_for). Every value is decoded exactly as HDF5's
 * H5Tconvert would (integers by C conversion, which rounds 64-bit values
 * to nearest even as HDF5's soft conversion does; halves exactly), so
 * where the decoding happens does not change a byte of the output.
 */
#include "io/dtype.h"
#include "io/grid.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Cells per item of the conversion. */
#define CONVERT_CELLS 16384

/* The decoders assume a little-endian host (x86-64, aarch64). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "dtype.c assumes a little-endian host"
#endif

const char *cuplas_dtype_name(const cuplas_dtype *t)
{
    static const char *ints[2][4] = {
        {"uint8", "uint16", "uint32", "uint64"},
        {"int8", "int16", "int32", "int64"},
    };
    int lg = t->size == 1 ? 0 : t->size == 2 ? 1 : t->size == 4 ? 2 : t->size == 8 ? 3 : -1;

    if (lg < 0)
        return NULL;
    if (t->cls == CUPLAS_DTYPE_INT)
        return ints[t->is_signed ? 1 : 0][lg];
    if (t->cls == CUPLAS_DTYPE_FLOAT && lg > 0)
        return lg == 1 ? "float16" : lg == 2 ? "float32" : "float64";
    return NULL;
}

/* ------------------------------------------------------------- decoders */

/* One element to double, little-endian (_le) or big-endian (_be) bytes. */
static inline double dec_u8(const unsigned char *p) { return p[0]; }
static inline double dec_i8(const unsigned char *p) { return (int8_t)p[0]; }
#define DECODER(name, T, U, SWAP)                                              \
    static inline double name##_le(const unsigned char *p)                     \
    {                                                                          \
        T v;                                                                   \
        memcpy(&v, p, sizeof v);                                               \
        return (double)v;                                                      \
    }                                                                          \
    static inline double name##_be(const unsigned char *p)                     \
    {                                                                          \
        U u;                                                                   \
        T v;                                                                   \
        memcpy(&u, p, sizeof u);                                               \
        u = SWAP(u);                                                           \
        memcpy(&v, &u, sizeof v);                                              \
        return (double)v;                                                      \
    }
DECODER(dec_u16, uint16_t, uint16_t, __builtin_bswap16)
DECODER(dec_i16, int16_t, uint16_t, __builtin_bswap16)
DECODER(dec_u32, uint32_t, uint32_t, __builtin_bswap32)
DECODER(dec_i32, int32_t, uint32_t, __builtin_bswap32)
DECODER(dec_u64, uint64_t, uint64_t, __builtin_bswap64)
DECODER(dec_i64, int64_t, uint64_t, __builtin_bswap64)
DECODER(dec_f32, float, uint32_t, __builtin_bswap32)
DECODER(dec_f64, double, uint64_t, __builtin_bswap64)

static inline double half(unsigned h)
{
    unsigned e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24)
             : e == 31 ? (m ? NAN : INFINITY)
             : ldexp(m + 1024, (int)e - 25);
    return h & 0x8000 ? -v : v;
}
static inline double dec_f16_le(const unsigned char *p) { return half(p[0] | (unsigned)p[1] << 8); }
static inline double dec_f16_be(const unsigned char *p) { return half(p[1] | (unsigned)p[0] << 8); }

/* Channels use[0..nuse) of rows [i0, i1) (C channels of es bytes) to
 * double; with rows, output row i is row rows[i] of raw (zeros where it
 * is negative). Returns the first non-finite value's position in out
 * (i * nuse + k) or INT64_MAX. */
#define CONVERTER(name, dec, es, FLOATING)                                     \
    static int64_t name(const unsigned char *raw, size_t i0, size_t i1,        \
                        size_t C, const int *use, int nuse,                    \
                        const int64_t *rows, double *out)                      \
    {                                                                          \
        int64_t bad = INT64_MAX;                                               \
        for (size_t i = i0; i < i1; i++) {                                     \
            const int64_t r = rows ? rows[i] : (int64_t)i;                     \
            double *o = out + i * (size_t)nuse;                                \
            if (r < 0) {                                                       \
                memset(o, 0, (size_t)nuse * sizeof *o);                        \
                continue;                                                      \
            }                                                                  \
            for (int k = 0; k < nuse; k++) {                                   \
                double v = dec(raw + ((size_t)r * C + (size_t)use[k]) * (es)); \
                o[k] = v;                                                      \
                if (FLOATING && !isfinite(v) && bad == INT64_MAX)              \
                    bad = (int64_t)(i * (size_t)nuse + (size_t)k);             \
            }                                                                  \
        }                                                                      \
        return bad;                                                            \
    }
#define CONVERTERS(name, dec, es, FLOATING)                                    \
    CONVERTER(name##_le, dec##_le, es, FLOATING)                               \
    CONVERTER(name##_be, dec##_be, es, FLOATING)
CONVERTER(conv_u8, dec_u8, 1, 0)
CONVERTER(conv_i8, dec_i8, 1, 0)
CONVERTERS(conv_u16, dec_u16, 2, 0)
CONVERTERS(conv_i16, dec_i16, 2, 0)
CONVERTERS(conv_u32, dec_u32, 4, 0)
CONVERTERS(conv_i32, dec_i32, 4, 0)
CONVERTERS(conv_u64, dec_u64, 8, 0)
CONVERTERS(conv_i64, dec_i64, 8, 0)
CONVERTERS(conv_f16, dec_f16, 2, 1)
CONVERTERS(conv_f32, dec_f32, 4, 1)
CONVERTERS(conv_f64, dec_f64, 8, 1)

typedef int64_t (*convert_fn)(const unsigned char *, size_t, size_t, size_t, const int *, int,
                              const int64_t *, double *);

static convert_fn find_converter(const cuplas_dtype *t)
{
    /* [size: 1 2 4 8][big_endian] */
    static const convert_fn u[4][2] = {{conv_u8, conv_u8}, {conv_u16_le, conv_u16_be},
                                       {conv_u32_le, conv_u32_be}, {conv_u64_le, conv_u64_be}};
    static const convert_fn s[4][2] = {{conv_i8, conv_i8}, {conv_i16_le, conv_i16_be},
                                       {conv_i32_le, conv_i32_be}, {conv_i64_le, conv_i64_be}};
    static const convert_fn f[4][2] = {{NULL, NULL}, {conv_f16_le, conv_f16_be},
                                       {conv_f32_le, conv_f32_be}, {conv_f64_le, conv_f64_be}};
    int lg = t->size == 1 ? 0 : t->size == 2 ? 1 : t->size == 4 ? 2 : t->size == 8 ? 3 : -1;
    int be = t->big_endian != 0;

    if (lg < 0)
        return NULL;
    if (t->cls == CUPLAS_DTYPE_INT)
        return t->is_signed ? s[lg][be] : u[lg][be];
    return t->cls == CUPLAS_DTYPE_FLOAT ? f[lg][be] : NULL;
}

/* ----------------------------------------------------------- conversion */

typedef struct convert_ctx {
    convert_fn conv;
    const cuplas_h5grid *g;
    const int *use;
    int nuse;
    const int64_t *rows;   /* NULL: g's rows in order */
    size_t n;              /* output rows            */
    double *out;
} convert_ctx;

static int64_t convert_block(const convert_ctx *x, int64_t b)
{
    size_t i0 = (size_t)b * CONVERT_CELLS;
    size_t i1 = (size_t)cuplas_par_block_end(b, CONVERT_CELLS, (int64_t)x->n);
    return x->conv(x->g->raw, i0, i1, (size_t)x->g->C, x->use, x->nuse, x->rows, x->out);
}

static int convert_one(void *p, int64_t b) { return convert_block(p, b) != INT64_MAX; }

static int convert(const cuplas_h5grid *g, const int *use, int nuse, const int64_t *rows,
                   size_t n, double *out, cuplas_pool *pool, cuplas_error *err)
{
    convert_ctx x = {find_converter(&g->type), g, use, nuse, rows, n, out};
    int64_t bad = INT64_MAX;   /* first non-finite value, as i * nuse + k */
    int rc = 0;

    if (!g->raw || nuse <= 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "no data or no channels to convert");
    if (!x.conv)
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "no decoder for %s", g->dtype);
    for (int k = 0; k < nuse; k++)
        if (use[k] < 0 || use[k] >= g->C)
            CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "channel %d out of range (C = %lld)", use[k],
                        (long long)g->C);
    int64_t nb = cuplas_par_blocks((int64_t)n, CONVERT_CELLS);
    int64_t b = cuplas_par_for(pool, nb, convert_one, &x, NULL);
    if (b < nb)   /* the first block with a bad value: find it again */
        bad = convert_block(&x, b);
    if (bad != INT64_MAX) {
        int64_t i = rows ? rows[bad / nuse] : bad / nuse;   /* g's row */
        double v = out[bad];
        if (g->nrows)   /* a fitted grid's rows are items, not cells */
            CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "%s in row %lld, channel %d",
                        isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf", (long long)i,
                        use[bad % nuse]);
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "%s at cell (y=%lld, x=%lld), channel %d",
                    isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf", (long long)(i / g->W),
                    (long long)(i % g->W), use[bad % nuse]);
    }
fail:
    if (rc && g->file)
        cuplas_error_where(err, "%s:%s", g->file, g->dataset);
    return rc;
}

int cuplas_h5grid_to_double(const cuplas_h5grid *g, const int *use, int nuse, double *out,
                            cuplas_pool *pool, cuplas_error *err)
{
    return convert(g, use, nuse, NULL, (size_t)cuplas_h5grid_rows(g), out, pool, err);
}

int cuplas_h5grid_to_double_rows(const cuplas_h5grid *g, const int *use, int nuse,
                                 const int64_t *rows, int64_t n, double *out, cuplas_pool *pool,
                                 cuplas_error *err)
{
    return convert(g, use, nuse, rows, (size_t)n, out, pool, err);
}
