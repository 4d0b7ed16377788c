/*
 * ply_write.c - the PLY writer (cuplas_ply_write, ply.h): the input's
 * vertices in a given order, each row byte for byte as it was read.
 *
 * Design facts: the index array is checked completely before the output
 * is created, so a bad index leaves no file. The header is the input's
 * text with two edits: the count token of "element vertex N" and the
 * lines of other elements (dropped, because their rows are not written).
 * Binary rows come from the caller's buffer (or a mapping of the input)
 * and are gathered in blocks of 4 MiB on the pool's threads (or an OpenMP
 * team), each block written with pwrite at its own offset: a scene of millions of splats is
 * hundreds of MB of random row reads, which one thread made slower than
 * the GPU's sort. Ascii rows go through one 1 MiB stdio buffer from the
 * input's text through a table of line starts, so the numbers are never
 * printed again and an identity export is byte-identical. The bytes do not
 * depend on the thread count. A failed write removes its partial output.
 * With opts->writeback each block's pages head for the disk once written
 * (cuplas_tmp_writeback_range): a 1.8 GB body that is fsync'd next then
 * waits for its last blocks only (bench/results/2026-11-25-h200-ply).
 */
#define _GNU_SOURCE
#include "io/ply.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io/ply_priv.h"
#include "io/publish.h"

#define WFAIL(code, ...) CUPLAS_FAIL_IN(err, code, out_path, __VA_ARGS__)

/* The header with the vertex count set to m and dropped lines left out. */
static void put_header(const cuplas_ply *p, int64_t m, FILE *f)
{
    size_t at = 0;
    int d = 0;
    char cnt[32];
    int cl = snprintf(cnt, sizeof cnt, "%" PRId64, m);

    while (at < p->header_len) {
        /* the next edit: a dropped range or the count token */
        size_t next = p->header_len;
        if (d < p->ndrop && p->drop[2 * d] < next)
            next = p->drop[2 * d];
        if (p->count_at >= at && p->count_at < next)
            next = p->count_at;
        fwrite(p->header + at, 1, next - at, f);
        at = next;
        if (at == p->header_len)
            break;
        if (d < p->ndrop && at == p->drop[2 * d]) {
            at = p->drop[2 * d + 1];
            d++;
        } else {
            fwrite(cnt, 1, (size_t)cl, f);
            at += p->count_len;
        }
    }
}

/* Line starts of the ascii vertex rows (n + 0 entries; the end of a row is
 * found again from its start). */
static int ascii_starts(const cuplas_ply *p, const char *map, size_t size, size_t *starts,
                        cuplas_error *err)
{
    size_t pos = (size_t)p->body_offset, a, b;
    int64_t line = p->body_line - 1;

    for (int64_t i = 0; i < p->pre_lines; i++)
        if (!cuplas_ply__next_row(map, size, &pos, &line, &a, &b))
            goto short_body;
    for (int64_t i = 0; i < p->n; i++) {
        if (!cuplas_ply__next_row(map, size, &pos, &line, &a, &b))
            goto short_body;
        starts[i] = a;
    }
    return 0;
short_body:
    cuplas_error_set(err, CUPLAS_ERR_INPUT, "count mismatch: the body has fewer rows than the "
                     "%lld declared vertices", (long long)p->n);
    return cuplas_ply__count_where(p, err);
}

/* The ascii rows order[0..m) (-1: skipped) as the input's own text, each
 * with its line ending; a last row without one gets "\n". Errors show in
 * ferror(f). Returns 0, or -1 when *cancel was set (looked at every 64Ki
 * rows). */
static int ascii_rows(const char *map, size_t msize, const size_t *starts,
                      const int64_t *order, int64_t m, const volatile int *cancel, FILE *f)
{
    for (int64_t i = 0; i < m; i++) {
        if (cancel && !(i & 0xffff) && *cancel)
            return -1;
        int64_t r = order[i];
        if (r < 0)
            continue;
        const char *a = map + starts[r];
        const char *nl = memchr(a, '\n', msize - starts[r]);
        if (nl) {
            fwrite(a, 1, (size_t)(nl - a) + 1, f);
        } else {   /* the last row of a file without a final newline */
            fwrite(a, 1, msize - starts[r], f);
            fputc('\n', f);
        }
    }
    return 0;
}

#define BLOCK_BYTES ((size_t)4 << 20)

/* The binary body: row k of the output is src row rows[k]. */
typedef struct body_job {
    const unsigned char *src;
    const int64_t *rows;
    int64_t n, per_block;
    size_t row_size;
    int fd, swap4, writeback;
    off_t at;              /* where the body starts in the file */
    const volatile int *cancel;
} body_job;

/* One block of rows: gathered (byte-swapped for a decoded format on a
 * big-endian host, whose PLY says little endian), then written where it belongs.
 * 0 or an errno. */
static int body_block(void *ctx, int64_t b)
{
    const body_job *x = ctx;
    int64_t r0 = b * x->per_block, r1 = r0 + x->per_block < x->n ? r0 + x->per_block : x->n;
    size_t rs = x->row_size, len = (size_t)(r1 - r0) * rs, done = 0;
    unsigned char *buf;

    if (x->cancel && *x->cancel)
        return ECANCELED;
    if (!(buf = malloc(len ? len : 1)))
        return ENOMEM;
    for (int64_t k = r0; k < r1; k++) {
        unsigned char *d = buf + (size_t)(k - r0) * rs;
        memcpy(d, x->src + (size_t)x->rows[k] * rs, rs);
        if (x->swap4)
            for (size_t i = 0; i + 4 <= rs; i += 4) {
                unsigned char t0 = d[i], t1 = d[i + 1];
                d[i] = d[i + 3];
                d[i + 1] = d[i + 2];
                d[i + 2] = t1;
                d[i + 3] = t0;
            }
    }
    while (done < len) {
        ssize_t w = pwrite(x->fd, buf + done, len - done, x->at + (off_t)((size_t)r0 * rs + done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int code = w < 0 ? errno : EIO;
            free(buf);
            return code ? code : EIO;
        }
        done += (size_t)w;
    }
    free(buf);
    if (x->writeback)
        cuplas_tmp_writeback_range(x->fd, (int64_t)x->at + r0 * (int64_t)rs, (int64_t)len);
    return 0;
}

/* The binary body of m output rows on the pool; 0 or an errno. */
static int write_body(int fd, off_t at, const unsigned char *src, size_t row_size,
                      const int64_t *order, int64_t m, int64_t kept, int swap4,
                      const cuplas_ply_write_opts *o)
{
    int64_t *rows = malloc((size_t)(kept ? kept : 1) * sizeof *rows), k = 0;
    int code = 0;

    if (!rows)
        return ENOMEM;
    for (int64_t i = 0; i < m; i++)
        if (order[i] >= 0)
            rows[k++] = order[i];
    body_job x = {.src = src, .rows = rows, .n = kept, .row_size = row_size, .fd = fd,
                  .swap4 = swap4, .writeback = o->writeback, .at = at, .cancel = o->cancel};
    x.per_block = (int64_t)(BLOCK_BYTES / (row_size ? row_size : 1));
    if (x.per_block < 1)
        x.per_block = 1;
    int64_t blocks = cuplas_par_blocks(kept, x.per_block);
    if (cuplas_par_for(o->pool, blocks, body_block, &x, &code) == blocks)
        code = 0;
    free(rows);
    return code;
}

int cuplas_ply_write(const cuplas_ply *p, const void *rows, const int64_t *order, int64_t m,
                     const char *out_path, const cuplas_ply_write_opts *opts,
                     cuplas_error *err)
{
    static const cuplas_ply_write_opts defaults = {0};
    const cuplas_ply_write_opts *o = opts ? opts : &defaults;
    int rc = 0, swap4 = 0, created = 0;
    int64_t kept = 0;
    FILE *f = NULL;
    char *obuf = NULL;
    const char *map = NULL;
    size_t msize = 0, *starts = NULL;
    void *own = NULL;
    const unsigned char *src = rows;

    for (int64_t i = 0; i < m; i++) {
        if (order[i] < -1 || order[i] >= p->n) {
            rc = cuplas_error_set(err, CUPLAS_ERR_INPUT, "index %lld at position %lld is "
                                  "outside [-1, %lld)", (long long)order[i], (long long)i,
                                  (long long)p->n);
            cuplas_error_where(err, "%s", p->path);
            goto fail;
        }
        kept += order[i] >= 0;
    }

    /* where the row bytes come from */
    if (p->format == CUPLAS_PLY_ASCII) {
        CUPLAS_TRY(cuplas_ply__map(p, &map, &msize, err));
        if (!(starts = malloc((size_t)p->n * sizeof *starts)))
            WFAIL(CUPLAS_ERR_NOMEM, "out of memory");
        CUPLAS_TRY(ascii_starts(p, map, msize, starts, err));
    } else if (p->format == CUPLAS_PLY_SPLAT || p->format == CUPLAS_PLY_COMPRESSED) {
        if (!src) {   /* decoded again: the file's bytes are not the rows */
            if (!(own = malloc(cuplas_ply_body_bytes(p))))
                WFAIL(CUPLAS_ERR_NOMEM, "out of memory");
            CUPLAS_TRY(cuplas_ply_read(p, own, o->pool, err));
            src = own;
        }
        swap4 = !cuplas_ply__host_le();   /* the header says little endian */
    } else if (!src) {
        CUPLAS_TRY(cuplas_ply__map(p, &map, &msize, err));
        src = (const unsigned char *)map + p->body_offset;
    }

    if (!(f = fopen(out_path, "wb")))
        WFAIL(CUPLAS_ERR_OUTPUT, "cannot create: %s", strerror(errno));
    created = 1;
    if ((obuf = malloc(1 << 20)))
        setvbuf(f, obuf, _IOFBF, 1 << 20);
    put_header(p, kept, f);
    if (p->format == CUPLAS_PLY_ASCII) {
        if (ascii_rows(map, msize, starts, order, m, o->cancel, f) != 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_INTERRUPTED, "interrupted by a signal: no file written");
    } else {   /* the header is out; the body by pwrite after it */
        off_t at;
        int code;
        if (fflush(f) != 0 || (at = ftello(f)) < 0)
            WFAIL(CUPLAS_ERR_OUTPUT, "cannot write: %s", strerror(errno));
        if ((code = write_body(fileno(f), at, src, p->row_size, order, m, kept, swap4, o)) ==
            ECANCELED)
            CUPLAS_FAIL(err, CUPLAS_ERR_INTERRUPTED, "interrupted by a signal: no file written");
        if (code)
            WFAIL(code == ENOMEM ? CUPLAS_ERR_NOMEM : CUPLAS_ERR_OUTPUT, "cannot write: %s",
                  strerror(code));
    }
    if (fflush(f) != 0 || ferror(f))
        WFAIL(CUPLAS_ERR_OUTPUT, "cannot write: %s", strerror(errno));
    if (o->writeback)   /* the header (and ascii rows) from the stdio buffer */
        cuplas_tmp_writeback(fileno(f));
    {
        FILE *g = f;
        f = NULL;
        if (fclose(g))
            WFAIL(CUPLAS_ERR_OUTPUT, "cannot write: %s", strerror(errno));
    }
fail:
    if (f)
        fclose(f);
    if (rc && created)
        remove(out_path);
    free(obuf);
    free(starts);
    free(own);
    if (map)
        munmap((void *)map, msize);
    return rc;
}
