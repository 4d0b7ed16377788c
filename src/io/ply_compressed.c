/*
 * ply_compressed.c - SuperSplat compressed PLY as a PLY-shaped table
 * (ply_compressed.h).
 *
 * Design facts: ply.c parses the header as any PLY's and hands it here
 * when it claims to be compressed; the file is then checked whole against
 * it (types, the chunk and sh counts, every element's bytes) before
 * anything is read, so that a bad file fails with the header line at
 * fault and a good one cannot fail later but by changing. The body is
 * read like a .splat's: the chunk bounds once (72 bytes a 256 splats),
 * then blocks of 64Ki splats (1 MiB of packed words, plus their SH bytes),
 * each an item of a loop on the caller's pool: read into a scratch buffer
 * of its own and decoded straight into its rows of the caller's buffer.
 * A splat's floats depend on its bytes and its chunk's bounds only, so
 * they are the same on any thread count, and memory is the decoded table
 * plus one block a thread at work. A block that cannot be read fails the
 * read as the sequential loop did: the first in file order, its packed
 * words before its SH bytes. Values are loaded byte by byte in the file's
 * order, so the decode is the same on any host.
 *
 * References (the facts taken from each; no code or text copied):
 * - playcanvas/splat-transform src/lib/readers/decompress-ply.ts: which
 *   properties and types make a compressed PLY, the 12 or 18 chunk bounds
 *   (colour bounds optional, the colour then the plain 8-bit fraction),
 *   chunk count ceil(N / 256), an sh element of uchar f_rest_* with N
 *   rows, the 11-10-11 and 8-8-8-8 fields, the lerp, the rotation's
 *   (u - 0.5) * sqrt(2) with its 2-bit index of the left-out component
 *   placed at rot_index, the clamp max(0, ...) under its square root, the
 *   colour -> f_dc and alpha -> logit mapping, the SH byte decoding
 *   (0 -> -4, 255 -> 4, else bin centres (v + 0.5) / 256).
 * - playcanvas/splat-transform src/lib/writers/compressed-chunk.ts and
 *   write-compressed-ply.ts: the encoder side (rounding to the nearest
 *   step, the largest |component| made positive and left out, scale
 *   bounds clamped to [-20, 20], SH bytes trunc((v / 8 + 0.5) * 256)),
 *   which the tests' encoder follows.
 * - playcanvas/engine src/scene/gsplat/gsplat-compressed-data.js: the same
 *   fields and the colour default of the older 12-bound chunks, as the
 *   viewer reads them; its SH decoding (v * 8 / 255 - 4) differs from
 *   splat-transform's by at most 1/64 and its opacity ends are -/+40:
 *   cuplas follows splat-transform for SH and its own .splat rule for
 *   the alpha ends (-/+6.2324), so the two decoded formats agree.
 * - a "Compressed PLY Format Specification" (gsply, COMPRESSED_FORMAT.md):
 *   the byte layout of the body (chunk rows, then vertex rows, then SH).
 *   Its rotation decoding (v / 511.5 - 1, no sqrt(2)) contradicts both
 *   PlayCanvas sources and is not followed.
 */
#define _GNU_SOURCE /* pread */
#include "io/ply_compressed.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/ply_priv.h"
#include "io/splat.h"
#include "util/fsutil.h"

#define BLOCK 65536 /* splats a decode block; a multiple of the chunk size */

static const char *const bound_names[CUPLAS_PLYC_BOUNDS] = {
    "min_x", "min_y", "min_z", "max_x", "max_y", "max_z",
    "min_scale_x", "min_scale_y", "min_scale_z", "max_scale_x", "max_scale_y", "max_scale_z",
    "min_r", "min_g", "min_b", "max_r", "max_g", "max_b",
};
static const char *const packed_names[4] = {
    "packed_position", "packed_rotation", "packed_scale", "packed_color",
};
/* the decoded columns around the f_rest ones */
static const char *const head_names[6] = {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2"};
static const char *const tail_names[8] = {
    "opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3",
};


#define FFAIL(code, ...) CUPLAS_FAIL_IN(err, code, path, __VA_ARGS__)

static const cuplas_ply__elem *find_elem(const cuplas_ply__elem *el, int nel, const char *name)
{
    for (int i = 0; i < nel; i++)
        if (!strcmp(el[i].name, name))
            return &el[i];
    return NULL;
}

static const cuplas_ply_prop *find_prop(const cuplas_ply_prop *pr, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(pr[i].name, name))
            return &pr[i];
    return NULL;
}

int cuplas_plyc__claims(const cuplas_ply *p, const cuplas_ply__elem *el, int nel)
{
    if (!find_elem(el, nel, "chunk"))
        return 0;
    for (int k = 0; k < 4; k++)
        if (cuplas_ply_find(p, packed_names[k]) >= 0)
            return 1;
    return 0;
}

/* The offset of property name (of type t) among pr[0..n) of element
 * ename, declared on header line eline. */
static int need(const char *path, const cuplas_ply_prop *pr, int n, const char *name,
                cuplas_ply_type t, const char *ename, int eline, size_t *offset,
                cuplas_error *err)
{
    int rc = 0;
    const cuplas_ply_prop *q = find_prop(pr, n, name);

    if (!q)
        PLY_FAIL_AT(eline, "compressed PLY: element '%s' has no property '%s'", ename, name);
    if (q->type != t)
        PLY_FAIL_AT(q->line, "compressed PLY: property '%s' of element '%s' is %s, not %s", name,
              ename, cuplas_ply_type_name(q->type), cuplas_ply_type_name(t));
    *offset = q->offset;
fail:
    return rc;
}

/* The properties and counts of the three elements, into c. */
static int check_header(const cuplas_ply *p, const cuplas_ply__elem *ch,
                        const cuplas_ply__elem *sh, cuplas_plyc *c, cuplas_error *err)
{
    const char *path = p->path;
    int rc = 0, colors = 0;
    int64_t want = p->n / CUPLAS_PLYC_CHUNK + (p->n % CUPLAS_PLYC_CHUNK != 0);

    if (p->format == CUPLAS_PLY_ASCII)
        PLY_FAIL_AT(ch->line, "compressed PLY (element 'chunk' beside packed_* vertex properties): "
                        "it must be binary, not ascii");
    if (ch->has_list)
        PLY_FAIL_AT(ch->line, "compressed PLY: element 'chunk' has a list property");
    for (int k = 12; k < CUPLAS_PLYC_BOUNDS; k++)
        colors += find_prop(ch->props, ch->nprops, bound_names[k]) != NULL;
    /* older files have no colour bounds: all six, or none */
    c->has_color = colors > 0;
    for (int k = 0; k < (c->has_color ? CUPLAS_PLYC_BOUNDS : 12); k++)
        CUPLAS_TRY(need(path, ch->props, ch->nprops, bound_names[k], CUPLAS_PLY_FLOAT32, "chunk",
                        ch->line, &c->bound[k], err));
    for (int k = 0; k < 4; k++)
        CUPLAS_TRY(need(path, p->props, p->nprops, packed_names[k], CUPLAS_PLY_UINT32, "vertex",
                        p->vertex_line, &c->packed[k], err));
    if (ch->count != want)
        PLY_FAIL_AT(ch->line, "compressed PLY: element 'chunk' has %lld rows; %lld vertices need "
              "ceil(%lld / %d) = %lld", (long long)ch->count, (long long)p->n,
              (long long)p->n, CUPLAS_PLYC_CHUNK, (long long)want);
    if (!sh)
        return 0;
    if (sh->has_list)
        PLY_FAIL_AT(sh->line, "compressed PLY: element 'sh' has a list property");
    if (sh->count != p->n)
        PLY_FAIL_AT(sh->line, "compressed PLY: element 'sh' has %lld rows, element 'vertex' %lld; "
              "they must be equal", (long long)sh->count, (long long)p->n);
    for (int k = 0; k < sh->nprops; k++) {
        const cuplas_ply_prop *q = &sh->props[k];
        int clash = find_prop(sh->props, k, q->name) != NULL;
        for (int j = 0; j < 6; j++)
            clash |= !strcmp(q->name, head_names[j]);
        for (int j = 0; j < 8; j++)
            clash |= !strcmp(q->name, tail_names[j]);
        if (q->type != CUPLAS_PLY_UINT8)
            PLY_FAIL_AT(q->line, "compressed PLY: property '%s' of element 'sh' is %s, not uchar",
                  q->name, cuplas_ply_type_name(q->type));
        if (clash)
            PLY_FAIL_AT(q->line, "compressed PLY: duplicate property '%s' (element 'sh')", q->name);
    }
    c->nsh = sh->nprops;
fail:
    return rc;
}

/* Where each element's rows start, with every byte of the three
 * accounted for; elements with list properties may only follow them. */
static int locate(const cuplas_ply *p, const cuplas_ply__elem *el, int nel, int vi,
                  const cuplas_ply__elem *ch, const cuplas_ply__elem *sh, cuplas_plyc *c,
                  cuplas_error *err)
{
    const char *path = p->path;
    int rc = 0, last = vi > (int)(ch - el) ? vi : (int)(ch - el);
    int64_t at = p->body_offset;

    if (sh && (int)(sh - el) > last)
        last = (int)(sh - el);
    for (int i = 0; i < nel; i++) {
        const cuplas_ply__elem *e = &el[i];
        int64_t rs = (int64_t)(i == vi ? p->row_size : e->row_size), left = p->file_size - at;
        if (e->has_list) {
            if (i < last)
                PLY_FAIL_AT(e->line, "compressed PLY: element '%s' has a list property, so the "
                               "rows after it cannot be found", e->name);
            return 0;   /* what follows is not read: its size does not matter */
        }
        if (rs && e->count > left / rs)
            PLY_FAIL_AT(e->line, "truncated body: element '%s' needs %lld rows of %lld bytes, the "
                  "file has %lld bytes left", e->name, (long long)e->count, (long long)rs,
                  (long long)left);
        if (e == ch)
            c->chunk_at = at;
        else if (i == vi)
            c->vertex_at = at;
        else if (e == sh)
            c->sh_at = at;
        at += e->count * rs;
    }
    if (at < p->file_size)
        PLY_FAIL_AT(el[nel - 1].line, "count mismatch: %lld bytes follow the rows of the last "
              "element '%s'", (long long)(p->file_size - at), el[nel - 1].name);
fail:
    return rc;
}

int cuplas_plyc__adopt(cuplas_ply *p, const cuplas_ply__elem *el, int nel, int vi,
                       cuplas_error *err)
{
    const char *path = p->path;
    const cuplas_ply__elem *ch = find_elem(el, nel, "chunk"), *sh = find_elem(el, nel, "sh");
    cuplas_plyc *c = calloc(1, sizeof *c);
    const char **names = NULL;
    int rc = 0, n = 0;

    if (!c)
        FFAIL(CUPLAS_ERR_NOMEM, "out of memory");
    CUPLAS_TRY(check_header(p, ch, sh, c, err));
    CUPLAS_TRY(locate(p, el, nel, vi, ch, sh, c, err));
    c->big_endian = p->format == CUPLAS_PLY_BINARY_BE;
    c->chunks = ch->count;
    c->chunk_row = ch->row_size;
    c->vertex_row = p->row_size;
    c->chunk_line = ch->line;
    c->vertex_line = p->vertex_line;
    c->sh_line = sh ? sh->line : 0;
    if (!(names = malloc((size_t)(CUPLAS_PLYC_NPROPS + c->nsh) * sizeof *names)))
        FFAIL(CUPLAS_ERR_NOMEM, "out of memory");
    for (int k = 0; k < 6; k++)
        names[n++] = head_names[k];
    for (int k = 0; k < c->nsh; k++)
        names[n++] = sh->props[k].name;
    for (int k = 0; k < 8; k++)
        names[n++] = tail_names[k];

    /* the file's own table (packed words, its header) gives way to the
       decoded one, whose export is a graphdeco PLY */
    for (int i = 0; i < p->nprops; i++)
        free(p->props[i].name);
    free(p->props);
    free(p->header);
    free(p->drop);
    p->props = NULL;
    p->header = NULL;
    p->drop = NULL;
    p->nprops = p->ndrop = 0;
    p->format = CUPLAS_PLY_COMPRESSED;
    p->plyc = c;
    c = NULL;
    /* cuplas reads back header lines of at most 8 words: this one has 8 */
    rc = cuplas_ply__float_table(p, names, n, "decoded by cuplas from SuperSplat compressed PLY",
                                 err);
fail:
    free(c);
    free(names);
    return rc;
}

/* ---- body ------------------------------------------------------------ */

static uint32_t load_u32(const unsigned char *b, int be)
{
    return be ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
              : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

static float load_f32(const unsigned char *b, int be)
{
    uint32_t u = load_u32(b, be);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static double lerp(double lo, double hi, double t) { return lo * (1 - t) + hi * t; }

/* An 11-10-11 word as fractions of its three ranges. */
static void unpack_111011(uint32_t w, double t[3])
{
    t[0] = (w >> 21) / 2047.0;
    t[1] = (w >> 11 & 0x3ff) / 1023.0;
    t[2] = (w & 0x7ff) / 2047.0;
}

void cuplas_plyc_decode(const float *b, const uint32_t w[4], const unsigned char *sh, int nsh,
                        float *out)
{
    float *o = out + 6 + nsh;   /* opacity, scale_0..2, rot_0..3 */
    double t[3], q[3], ss = 0;
    int big = (int)(w[1] >> 30);

    unpack_111011(w[0], t);
    for (int k = 0; k < 3; k++)
        out[k] = (float)lerp(b[k], b[3 + k], t[k]);
    for (int k = 0; k < 3; k++) {
        double c = lerp(b[12 + k], b[15 + k], (w[3] >> (24 - 8 * k) & 0xff) / 255.0);
        out[3 + k] = (float)((c - 0.5) / CUPLAS_SH_C0);
    }
    /* the ends are exact, the other bytes the centres of their bins */
    for (int k = 0; k < nsh; k++)
        out[6 + k] = sh[k] == 0 ? -4.0f : sh[k] == 255 ? 4.0f
                                                        : (float)(((sh[k] + 0.5) / 256 - 0.5) * 8);
    o[0] = cuplas_ply__opacity_u8(w[3] & 0xff);
    unpack_111011(w[2], t);
    for (int k = 0; k < 3; k++)
        o[1 + k] = (float)lerp(b[6 + k], b[9 + k], t[k]);
    for (int k = 0; k < 3; k++) {
        q[k] = ((w[1] >> (20 - 10 * k) & 0x3ff) / 1023.0 - 0.5) * sqrt(2.0);
        ss += q[k] * q[k];
    }
    /* a, b, c fill the places around the left-out largest component; three
       steps near sqrt(2)/2 can overshoot 1, hence the clamp */
    for (int k = 0, j = 0; k < 4; k++)
        o[4 + k] = (float)(k == big ? sqrt(ss < 1 ? 1 - ss : 0) : q[j++]);
}

/* The error of a cuplas_pread_full that failed inside element ename (line
 * eline): a file cut short since its header was checked, or an I/O error. */
static int read_failed(const char *path, int code, const char *ename, int eline,
                       cuplas_error *err)
{
    int rc;
    if (code > 0) {
        rc = cuplas_error_set(err, CUPLAS_ERR_INPUT, "cannot read: %s", strerror(code));
        cuplas_error_where(err, "%s", path);
    } else {
        rc = cuplas_error_set(err, CUPLAS_ERR_INPUT, "truncated body: the file ended inside "
                              "element '%s' (did it change?)", ename);
        cuplas_error_where(err, "%s:%d", path, eline);
    }
    return rc;
}

/* The chunks' bounds as floats, 18 a chunk (colour 0 0 0 1 1 1 without). */
static int read_bounds(const cuplas_ply *p, int fd, float *bounds, cuplas_error *err)
{
    const char *path = p->path;
    const cuplas_plyc *c = p->plyc;
    unsigned char *raw = malloc(c->chunks * c->chunk_row + 1);
    int rc = 0, code;

    if (!raw)
        FFAIL(CUPLAS_ERR_NOMEM, "out of memory");
    if ((code = cuplas_pread_full(fd, raw, c->chunks * c->chunk_row, c->chunk_at, NULL)))
        CUPLAS_TRY(read_failed(path, code, "chunk", c->chunk_line, err));
    for (int64_t i = 0; i < c->chunks; i++)
        for (int k = 0; k < CUPLAS_PLYC_BOUNDS; k++) {
            float *v = &bounds[i * CUPLAS_PLYC_BOUNDS + k];
            *v = k < 12 || c->has_color ? load_f32(raw + i * c->chunk_row + c->bound[k],
                                                   c->big_endian)
                                        : k < 15 ? 0.0f : 1.0f;
            /* lerp of an infinite bound is NaN or infinite for every splat */
            if (!isfinite(*v))
                PLY_FAIL_AT(c->chunk_line, "compressed PLY: chunk %lld has %s = %g; bounds must be "
                      "finite", (long long)i, bound_names[k], (double)*v);
        }
fail:
    free(raw);
    return rc;
}

typedef struct plyc_job {
    const cuplas_ply *p;
    int fd;
    const float *bounds;
    float *rows;
} plyc_job;

/* What a block's read returns besides 0 and a read error's errno. */
enum { SHORT_VERTEX = -1 /* as cuplas_pread_full */, SHORT_SH = -2, NO_MEMORY = -3 };

/* Block b: its packed words and SH bytes read, its splats decoded. */
static int read_block(void *ctx, int64_t b)
{
    const plyc_job *x = ctx;
    const cuplas_plyc *c = x->p->plyc;
    const size_t vs = c->vertex_row, ns = (size_t)c->nsh, ncol = CUPLAS_PLYC_NPROPS + ns;
    int64_t first = b * BLOCK, k = x->p->n - first < BLOCK ? x->p->n - first : BLOCK;
    unsigned char *buf = malloc((size_t)k * (vs + ns)), *shb;
    int code;

    if (!buf)
        return NO_MEMORY;
    shb = buf + (size_t)k * vs;
    code = cuplas_pread_full(x->fd, buf, (size_t)k * vs, c->vertex_at + first * (int64_t)vs,
                             NULL);
    if (code == 0 && ns) {
        code = cuplas_pread_full(x->fd, shb, (size_t)k * ns, c->sh_at + first * (int64_t)ns,
                                 NULL);
        code = code < 0 ? SHORT_SH : code;
    }
    for (int64_t j = 0; j < k && code == 0; j++) {
        const unsigned char *r = buf + (size_t)j * vs;
        uint32_t w[4];
        for (int m = 0; m < 4; m++)
            w[m] = load_u32(r + c->packed[m], c->big_endian);
        cuplas_plyc_decode(x->bounds + (first + j) / CUPLAS_PLYC_CHUNK * CUPLAS_PLYC_BOUNDS, w,
                           shb + (size_t)j * ns, c->nsh, x->rows + (size_t)(first + j) * ncol);
    }
    free(buf);
    return code;
}

int cuplas_plyc_read(const cuplas_ply *p, void *rows, cuplas_pool *pool, cuplas_error *err)
{
    const char *path = p->path;
    const cuplas_plyc *c = p->plyc;
    float *bounds = malloc((size_t)c->chunks * CUPLAS_PLYC_BOUNDS * sizeof *bounds);
    plyc_job x = {p, open(path, O_RDONLY), bounds, rows};
    int64_t nb = cuplas_par_blocks(p->n, BLOCK), b;
    int rc = 0, code = 0;

    if (x.fd < 0)
        FFAIL(CUPLAS_ERR_INPUT, "cannot open: %s", strerror(errno));
    if (!bounds)
        FFAIL(CUPLAS_ERR_NOMEM, "out of memory");
    CUPLAS_TRY(read_bounds(p, x.fd, bounds, err));
    b = cuplas_par_for(pool, nb, read_block, &x, &code);
    if (b < nb && code == NO_MEMORY)
        FFAIL(CUPLAS_ERR_NOMEM, "out of memory");
    if (b < nb && code == SHORT_SH)
        CUPLAS_TRY(read_failed(path, -1, "sh", c->sh_line, err));
    if (b < nb)
        CUPLAS_TRY(read_failed(path, code, "vertex", c->vertex_line, err));
fail:
    free(bounds);
    if (x.fd >= 0)
        close(x.fd);
    return rc;
}
