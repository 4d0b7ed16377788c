/*
 * ply_read.c - the vertex body of a PLY whose header ply.c parsed: binary
 * rows read straight into the caller's buffer, ascii rows parsed from a
 * read-only mapping, and the typed access to a row's values (ply.h).
 *
 * Design facts: the binary body is read in large blocks in parallel on the
 * caller's pool, since a production scene is gigabytes and one pread
 * stream does not fill the disk. The ascii body is rare and small; it is
 * parsed in one pass with the file's line number kept for errors. Values
 * stay in the file's byte order until cuplas_ply_value / _extract read
 * them.
 */
#define _GNU_SOURCE /* madvise flags */
#include "io/ply.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h> /* NAN */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/ply_compressed.h"
#include "io/ply_priv.h"
#include "io/splat.h"
#include "util/fsutil.h"

#define FFAIL(code, ...) CUPLAS_FAIL_IN(err, code, path, __VA_ARGS__)

int cuplas_ply__next_row(const char *map, size_t size, size_t *pos, int64_t *line,
                         size_t *start, size_t *end)
{
    while (*pos < size) {
        size_t a = *pos;
        const char *nl = memchr(map + a, '\n', size - a);
        size_t b = nl ? (size_t)(nl - map) : size;
        *pos = nl ? b + 1 : size;
        (*line)++;
        for (size_t i = a; i < b; i++)
            if (!isspace((unsigned char)map[i])) {
                *start = a;
                *end = b;
                return 1;
            }
    }
    return 0;
}

int cuplas_ply__map(const cuplas_ply *p, const char **map, size_t *size, cuplas_error *err)
{
    int rc = 0, fd = open(p->path, O_RDONLY);
    const char *path = p->path;
    struct stat st;
    *map = NULL;
    if (fd < 0 || fstat(fd, &st))
        FFAIL(CUPLAS_ERR_INPUT, "cannot open: %s", strerror(errno));
    if ((int64_t)st.st_size != p->file_size)
        FFAIL(CUPLAS_ERR_INPUT, "the file changed size since its header was read");
    *size = (size_t)st.st_size;
    void *m = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED)
        FFAIL(CUPLAS_ERR_INPUT, "cannot map: %s", strerror(errno));
    madvise(m, *size, MADV_SEQUENTIAL);
    *map = m;
fail:
    if (fd >= 0)
        close(fd);
    return rc;
}

/* Parse one ascii value of type t from tok into dst (host endianness).
 * A float property is parsed by strtof, straight to the nearest float:
 * strtod then a cast rounds twice, and "1.0000000596046447755" (just
 * above the midpoint of 1 and the next float) became 1 instead of
 * 1.00000012, so an ascii scene and the binary file of the same text
 * differed. strtof/strtod follow LC_NUMERIC; cuplas never calls setlocale,
 * so the decimal point is '.' as PLY requires. */
static int put_ascii(const char *tok, cuplas_ply_type t, unsigned char *dst)
{
    char *end;
    errno = 0;
    if (t == CUPLAS_PLY_FLOAT32) {
        float f = strtof(tok, &end);
        if (end == tok || *end)
            return -1;
        memcpy(dst, &f, 4);
        return 0;
    }
    if (t == CUPLAS_PLY_FLOAT64) {
        double v = strtod(tok, &end);
        if (end == tok || *end)
            return -1;
        memcpy(dst, &v, 8);
        return 0;
    }
    long long v = strtoll(tok, &end, 10);
    if (end == tok || *end || errno)
        return -1;
    static const long long lo[] = {INT8_MIN, 0, INT16_MIN, 0, INT32_MIN, 0};
    static const long long hi[] = {INT8_MAX, UINT8_MAX, INT16_MAX, UINT16_MAX, INT32_MAX,
                                   UINT32_MAX};
    if (v < lo[t] || v > hi[t])
        return -1;
    switch (t) {
    case CUPLAS_PLY_INT8: { int8_t x = (int8_t)v; memcpy(dst, &x, 1); break; }
    case CUPLAS_PLY_UINT8: { uint8_t x = (uint8_t)v; memcpy(dst, &x, 1); break; }
    case CUPLAS_PLY_INT16: { int16_t x = (int16_t)v; memcpy(dst, &x, 2); break; }
    case CUPLAS_PLY_UINT16: { uint16_t x = (uint16_t)v; memcpy(dst, &x, 2); break; }
    case CUPLAS_PLY_INT32: { int32_t x = (int32_t)v; memcpy(dst, &x, 4); break; }
    default: { uint32_t x = (uint32_t)v; memcpy(dst, &x, 4); break; }
    }
    return 0;
}

static int read_ascii(const cuplas_ply *p, unsigned char *rows, cuplas_error *err)
{
    const char *path = p->path, *map = NULL;
    size_t size = 0, pos = (size_t)p->body_offset, a, b;
    int64_t line = p->body_line - 1, i;
    int rc = 0;

    CUPLAS_TRY(cuplas_ply__map(p, &map, &size, err));
    for (i = 0; i < p->pre_lines; i++)
        if (!cuplas_ply__next_row(map, size, &pos, &line, &a, &b)) {
            cuplas_error_set(err, CUPLAS_ERR_INPUT, "count mismatch: the body ends inside the "
                             "elements before 'vertex', before its %lld rows", (long long)p->n);
            rc = cuplas_ply__count_where(p, err);
            goto fail;
        }
    for (i = 0; i < p->n; i++) {
        unsigned char *row = rows + (size_t)i * p->row_size;
        if (!cuplas_ply__next_row(map, size, &pos, &line, &a, &b)) {
            cuplas_error_set(err, CUPLAS_ERR_INPUT, "count mismatch: the header declares %lld "
                             "vertices, the body has %lld rows", (long long)p->n, (long long)i);
            rc = cuplas_ply__count_where(p, err);
            goto fail;
        }
        int k = 0;
        size_t q = a;
        for (;;) {
            char tok[80];
            while (q < b && isspace((unsigned char)map[q]))
                q++;
            if (q == b)
                break;
            size_t t0 = q;
            while (q < b && !isspace((unsigned char)map[q]))
                q++;
            if (k == p->nprops) {
                k++;
                break;
            }
            if (q - t0 >= sizeof tok) {
                rc = cuplas_error_set(err, CUPLAS_ERR_INPUT, "value of '%s' too long",
                                      p->props[k].name);
                cuplas_error_where(err, "%s:%lld", path, (long long)line);
                goto fail;
            }
            memcpy(tok, map + t0, q - t0);
            tok[q - t0] = 0;
            if (put_ascii(tok, p->props[k].type, row + p->props[k].offset)) {
                rc = cuplas_error_set(err, CUPLAS_ERR_INPUT, "'%s' is not a valid %s for "
                                      "property '%s'", tok, cuplas_ply_type_name(p->props[k].type),
                                      p->props[k].name);
                cuplas_error_where(err, "%s:%lld", path, (long long)line);
                goto fail;
            }
            k++;
        }
        if (k != p->nprops) {
            rc = cuplas_error_set(err, CUPLAS_ERR_INPUT, "vertex row %lld has %s values than "
                                  "the %d properties", (long long)i, k < p->nprops ? "fewer"
                                  : "more", p->nprops);
            cuplas_error_where(err, "%s:%lld", path, (long long)line);
            goto fail;
        }
    }
    if (p->vertex_last && cuplas_ply__next_row(map, size, &pos, &line, &a, &b)) {
        cuplas_error_set(err, CUPLAS_ERR_INPUT, "count mismatch: the header declares %lld "
                         "vertices, the body has more rows (from line %lld)", (long long)p->n,
                         (long long)line);
        rc = cuplas_ply__count_where(p, err);
        goto fail;
    }
fail:
    if (map)
        munmap((void *)map, size);
    return rc;
}

/* The binary body in blocks of 64 MiB, read in parallel: one pread of a
 * GB-sized body is one thread copying from the page cache and taking every
 * page fault of a fresh buffer (0.76 GB: 0.26 s, against 0.04 s on the 16
 * cores of the H200 host, bench/results/2026-11-25-h200-bounds e5). */
#define READ_BLOCK ((size_t)64 << 20)

typedef struct read_job {
    int fd;
    unsigned char *rows;
    size_t want;
    int64_t at;        /* the body's offset in the file */
    size_t *got;       /* per block: bytes read before it stopped */
} read_job;

/* 0, -1 when the file ends inside the block, or an errno. */
static int read_block(void *ctx, int64_t b)
{
    const read_job *x = ctx;
    size_t off = (size_t)b * READ_BLOCK;
    size_t len = x->want - off < READ_BLOCK ? x->want - off : READ_BLOCK;
    return cuplas_pread_full(x->fd, x->rows + off, len, x->at + (int64_t)off, &x->got[b]);
}

static int read_binary(const cuplas_ply *p, unsigned char *rows, cuplas_pool *pool,
                       cuplas_error *err)
{
    const char *path = p->path;
    size_t want = cuplas_ply_body_bytes(p);
    int64_t nb = cuplas_par_blocks((int64_t)want, (int64_t)READ_BLOCK);
    read_job x = {open(path, O_RDONLY), rows, want, p->body_offset,
                  calloc((size_t)(nb ? nb : 1), sizeof *x.got)};
    int rc = 0, code = 0;

    if (x.fd < 0)
        FFAIL(CUPLAS_ERR_INPUT, "cannot open: %s", strerror(errno));
    if (!x.got)
        FFAIL(CUPLAS_ERR_NOMEM, "out of memory");
    int64_t b = cuplas_par_for(pool, nb, read_block, &x, &code);
    if (b < nb && code > 0)
        FFAIL(CUPLAS_ERR_INPUT, "cannot read: %s", strerror(code));
    if (b < nb) {
        cuplas_error_set(err, CUPLAS_ERR_INPUT, "truncated body: the file ended after %zu of "
                         "%zu body bytes (did it change?)", (size_t)b * READ_BLOCK + x.got[b],
                         want);
        rc = cuplas_ply__count_where(p, err);
        goto fail;
    }
fail:
    if (x.fd >= 0)
        close(x.fd);
    free(x.got);
    return rc;
}

int cuplas_ply_read(const cuplas_ply *p, void *rows, cuplas_pool *pool, cuplas_error *err)
{
    switch (p->format) {
    case CUPLAS_PLY_ASCII: return read_ascii(p, rows, err);
    case CUPLAS_PLY_SPLAT: return cuplas_splat_read(p, rows, pool, err);
    case CUPLAS_PLY_COMPRESSED: return cuplas_plyc_read(p, rows, pool, err);
    default: return read_binary(p, rows, pool, err);
    }
}

/* ---- values ---------------------------------------------------------- */

int cuplas_ply__count_where(const cuplas_ply *p, cuplas_error *err)
{
    if (p->vertex_line > 0)
        cuplas_error_where(err, "%s:%d", p->path, p->vertex_line);
    else
        cuplas_error_where(err, "%s", p->path);
    return (int)err->code;
}

int cuplas_ply__host_le(void)
{
    const uint16_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 1;
}

static int needs_swap(const cuplas_ply *p)
{
    if (p->rows_native)
        return 0;
    return (p->format == CUPLAS_PLY_BINARY_LE) != cuplas_ply__host_le();
}

static double get(const unsigned char *src, cuplas_ply_type t, int swap)
{
    unsigned char b[8];
    size_t n = cuplas_ply_type_size(t);
    if (swap)
        for (size_t i = 0; i < n; i++)
            b[i] = src[n - 1 - i];
    else
        memcpy(b, src, n);
    switch (t) {
    case CUPLAS_PLY_INT8: { int8_t v; memcpy(&v, b, 1); return v; }
    case CUPLAS_PLY_UINT8: return b[0];
    case CUPLAS_PLY_INT16: { int16_t v; memcpy(&v, b, 2); return v; }
    case CUPLAS_PLY_UINT16: { uint16_t v; memcpy(&v, b, 2); return v; }
    case CUPLAS_PLY_INT32: { int32_t v; memcpy(&v, b, 4); return v; }
    case CUPLAS_PLY_UINT32: { uint32_t v; memcpy(&v, b, 4); return v; }
    case CUPLAS_PLY_FLOAT32: { float v; memcpy(&v, b, 4); return v; }
    case CUPLAS_PLY_FLOAT64: { double v; memcpy(&v, b, 8); return v; }
    }
    return NAN;
}

double cuplas_ply_value(const cuplas_ply *p, const void *rows, int64_t i, int col)
{
    const unsigned char *r = (const unsigned char *)rows + (size_t)i * p->row_size;
    return get(r + p->props[col].offset, p->props[col].type, needs_swap(p));
}

void cuplas_ply_extract(const cuplas_ply *p, const void *rows, const int *cols, int k,
                        double *out)
{
    int swap = needs_swap(p);
    for (int64_t i = 0; i < p->n; i++) {
        const unsigned char *r = (const unsigned char *)rows + (size_t)i * p->row_size;
        for (int j = 0; j < k; j++)
            out[i * k + j] = get(r + p->props[cols[j]].offset, p->props[cols[j]].type, swap);
    }
}
