/*
 * ply.c - the PLY header parser (ply.h, ply_priv.h); which format a path
 * holds is decided above it in ply_open.c, the vertex body reader is in
 * ply_read.c, the writer in ply_write.c.
 *
 * Design facts: the header is read in one pread of at most 1 MiB (a 3DGS
 * header is about 1.5 KB) and parsed line by line with the 1-based line
 * number kept for errors. Every count is checked against the file size
 * before anything depends on it, so a hostile "element vertex
 * 99999999999999" fails as a truncated body, never as a huge malloc, and
 * names that header line. The vertex body is read in ply_read.c. Every
 * element is kept while parsing (name, count, scalar properties) so that
 * a compressed PLY, whose header is an ordinary PLY's, can be recognised
 * and located afterwards (ply_open.c hands it to ply_compressed.c).
 */
#define _GNU_SOURCE /* strdup, pread */
#include "io/ply.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/ply_priv.h"
#include "util/fsutil.h"

#define HEADER_MAX (1 << 20)
#define MAX_TOKENS 8

static const struct {
    const char *name, *alias;
    size_t size;
} types[] = {
    [CUPLAS_PLY_INT8] = {"char", "int8", 1},     [CUPLAS_PLY_UINT8] = {"uchar", "uint8", 1},
    [CUPLAS_PLY_INT16] = {"short", "int16", 2},  [CUPLAS_PLY_UINT16] = {"ushort", "uint16", 2},
    [CUPLAS_PLY_INT32] = {"int", "int32", 4},    [CUPLAS_PLY_UINT32] = {"uint", "uint32", 4},
    [CUPLAS_PLY_FLOAT32] = {"float", "float32", 4}, [CUPLAS_PLY_FLOAT64] = {"double", "float64", 8},
};

const char *cuplas_ply_type_name(cuplas_ply_type t) { return types[t].name; }
size_t cuplas_ply_type_size(cuplas_ply_type t) { return types[t].size; }

static int type_of(const char *s)
{
    for (int t = 0; t <= CUPLAS_PLY_FLOAT64; t++)
        if (!strcmp(s, types[t].name) || !strcmp(s, types[t].alias))
            return t;
    return -1;
}

void cuplas_ply_close(cuplas_ply *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->nprops; i++)
        free(p->props[i].name);
    free(p->props);
    free(p->header);
    free(p->drop);
    free(p->path);
    free(p->plyc);
    memset(p, 0, sizeof *p);
}

size_t cuplas_ply_body_bytes(const cuplas_ply *p) { return (size_t)p->n * p->row_size; }

int cuplas_ply_find(const cuplas_ply *p, const char *name)
{
    for (int i = 0; i < p->nprops; i++)
        if (!strcmp(p->props[i].name, name))
            return i;
    return -1;
}

void cuplas_ply_names(const cuplas_ply *p, const char **names)
{
    for (int i = 0; i < p->nprops; i++)
        names[i] = p->props[i].name;
}

int cuplas_ply__float_table(cuplas_ply *p, const char *const *names, int n,
                            const char *comment, cuplas_error *err)
{
    int rc = 0;
    size_t cap = 128 + strlen(comment), len;
    char *h;

    for (int i = 0; i < n; i++)
        cap += strlen(names[i]) + sizeof "property float \n";
    h = malloc(cap);
    p->rows_native = 1;
    p->vertex_last = 1;
    if (!h || !(p->props = calloc((size_t)n, sizeof *p->props)))
        CUPLAS_FAIL_IN(err, CUPLAS_ERR_NOMEM, p->path, "out of memory");
    for (int i = 0; i < n; i++) {
        if (!(p->props[i].name = strdup(names[i])))
            CUPLAS_FAIL_IN(err, CUPLAS_ERR_NOMEM, p->path, "out of memory");
        p->props[i].type = CUPLAS_PLY_FLOAT32;
        p->props[i].offset = (size_t)i * 4;
        p->nprops++;
    }
    p->row_size = (size_t)n * 4;
    len = (size_t)snprintf(h, cap, "ply\nformat binary_little_endian 1.0\ncomment %s\n"
                           "element vertex ", comment);
    p->count_at = len;
    len += (size_t)snprintf(h + len, cap - len, "%lld\n", (long long)p->n);
    p->count_len = len - 1 - p->count_at;
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(h + len, cap - len, "property float %s\n", names[i]);
    len += (size_t)snprintf(h + len, cap - len, "end_header\n");
    p->header = h;
    h = NULL;
    p->header_len = len;
fail:
    free(h);
    return rc;
}

/* ---- header ---------------------------------------------------------- */

#define MAX_PRE 16     /* elements before vertex (a 3DGS file has 0 or 1) */

typedef struct hstate {
    cuplas_ply *p;
    cuplas_error *err;
    cuplas_ply__header hd;  /* every element, in file order             */
    int cur;           /* 0 none, 1 vertex, 2 another element             */
    int have_vertex, have_format;
} hstate;

void cuplas_ply__header_free(cuplas_ply__header *hd)
{
    for (int i = 0; i < hd->nel; i++) {
        for (int k = 0; k < hd->el[i].nprops; k++)
            free(hd->el[i].props[k].name);
        free(hd->el[i].props);
    }
    free(hd->el);
    memset(hd, 0, sizeof *hd);
}

/* A new element at the end of h->hd.el; NULL when out of memory. */
static cuplas_ply__elem *new_elem(hstate *h, const char *name, int64_t count, int line)
{
    cuplas_ply__elem *e = realloc(h->hd.el, (size_t)(h->hd.nel + 1) * sizeof *e);
    if (!e)
        return NULL;
    h->hd.el = e;
    e += h->hd.nel++;
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", name);
    e->count = count;
    e->line = line;
    return e;
}

/* A scalar property of an element other than vertex; -1 out of memory. */
static int elem_prop(cuplas_ply__elem *e, const char *name, int type, int line)
{
    cuplas_ply_prop *np = realloc(e->props, (size_t)(e->nprops + 1) * sizeof *np);
    if (!np)
        return -1;
    e->props = np;
    np += e->nprops;
    if (!(np->name = strdup(name)))
        return -1;
    np->type = (cuplas_ply_type)type;
    np->offset = e->row_size;
    np->line = line;
    e->row_size += types[type].size;
    e->nprops++;
    return 0;
}


#define FFAIL(code, ...) CUPLAS_FAIL_IN(err, code, path, __VA_ARGS__)

static int add_drop(cuplas_ply *p, size_t a, size_t b)
{
    if (p->ndrop && p->drop[2 * p->ndrop - 1] == a) {   /* extend the last range */
        p->drop[2 * p->ndrop - 1] = b;
        return 0;
    }
    size_t *d = realloc(p->drop, (size_t)(p->ndrop + 1) * 2 * sizeof *d);
    if (!d)
        return -1;
    p->drop = d;
    d[2 * p->ndrop] = a;
    d[2 * p->ndrop + 1] = b;
    p->ndrop++;
    return 0;
}

/* Split s (modified) at blanks into at most MAX_TOKENS tokens. */
static int tokenize(char *s, char **tok)
{
    int n = 0;
    char *save = NULL;   /* strtok_r: any thread may parse a header */
    const char *blank = " \t\r\f\v";
    for (char *q = strtok_r(s, blank, &save); q; q = strtok_r(NULL, blank, &save))
        if (n < MAX_TOKENS)
            tok[n++] = q;
        else
            return MAX_TOKENS + 1;
    return n;
}

static int parse_count(const char *s, int64_t *out)
{
    int64_t v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (INT64_MAX - (*s - '0')) / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    *out = v;
    return 0;
}

/* One header line (tok[0..nt), starting at byte a, ending before b). */
static int header_line(hstate *h, const char *path, int line, char **tok, int nt, size_t a,
                       size_t b, size_t count_at)
{
    cuplas_ply *p = h->p;
    cuplas_error *err = h->err;
    int rc = 0;

    if (nt == 0)
        PLY_FAIL_AT(line, "empty header line");
    if (nt > MAX_TOKENS)
        PLY_FAIL_AT(line, "too many words on a header line");
    if (!strcmp(tok[0], "comment") || !strcmp(tok[0], "obj_info")) {
        if (h->cur == 2 && add_drop(p, a, b))
            FFAIL(CUPLAS_ERR_NOMEM, "out of memory");
        return 0;
    }
    if (!strcmp(tok[0], "format")) {
        if (h->have_format)
            PLY_FAIL_AT(line, "a second 'format' line");
        if (nt != 3)
            PLY_FAIL_AT(line, "expected 'format FORMAT VERSION'");
        if (!strcmp(tok[1], "ascii"))
            p->format = CUPLAS_PLY_ASCII;
        else if (!strcmp(tok[1], "binary_little_endian"))
            p->format = CUPLAS_PLY_BINARY_LE;
        else if (!strcmp(tok[1], "binary_big_endian"))
            p->format = CUPLAS_PLY_BINARY_BE;
        else
            PLY_FAIL_AT(line, "unknown format '%s' (ascii, binary_little_endian or "
                        "binary_big_endian)", tok[1]);
        h->have_format = 1;
        return 0;
    }
    if (!strcmp(tok[0], "element")) {
        int64_t cnt;
        if (nt != 3)
            PLY_FAIL_AT(line, "expected 'element NAME COUNT'");
        if (parse_count(tok[2], &cnt))
            PLY_FAIL_AT(line, "element '%s': count '%s' is not a non-negative integer", tok[1],
                        tok[2]);
        if (!h->have_format)
            PLY_FAIL_AT(line, "'element' before the 'format' line");
        if (!strcmp(tok[1], "vertex")) {
            if (h->have_vertex)
                PLY_FAIL_AT(line, "a second 'vertex' element");
            if (!new_elem(h, tok[1], cnt, line))
                FFAIL(CUPLAS_ERR_NOMEM, "out of memory");
            h->have_vertex = 1;
            h->cur = 1;
            p->n = cnt;
            p->vertex_line = line;
            p->count_at = count_at + (size_t)(tok[2] - tok[0]);
            p->count_len = strlen(tok[2]);
            p->vertex_last = 1;
            return 0;
        }
        h->cur = 2;
        p->vertex_last = 0;
        if (add_drop(p, a, b))
            FFAIL(CUPLAS_ERR_NOMEM, "out of memory");
        if (!h->have_vertex && h->hd.npre++ == MAX_PRE)
            PLY_FAIL_AT(line, "more than %d elements before 'vertex'", MAX_PRE);
        if (!new_elem(h, tok[1], cnt, line))
            FFAIL(CUPLAS_ERR_NOMEM, "out of memory");
        return 0;
    }
    if (!strcmp(tok[0], "property")) {
        int list = nt > 1 && !strcmp(tok[1], "list");
        if (h->cur == 0)
            PLY_FAIL_AT(line, "'property' before any 'element'");
        if (list ? nt != 5 : nt != 3)
            PLY_FAIL_AT(line, list ? "expected 'property list COUNT_TYPE ITEM_TYPE NAME'"
                             : "expected 'property TYPE NAME'");
        for (int k = 1 + list; k < nt - 1; k++)
            if (type_of(tok[k]) < 0)
                PLY_FAIL_AT(line, "unknown property type '%s'", tok[k]);
        if (h->cur == 2) {
            cuplas_ply__elem *e = &h->hd.el[h->hd.nel - 1];
            if (add_drop(p, a, b))
                FFAIL(CUPLAS_ERR_NOMEM, "out of memory");
            if (list)
                e->has_list = 1;
            else if (elem_prop(e, tok[2], type_of(tok[1]), line))
                FFAIL(CUPLAS_ERR_NOMEM, "out of memory");
            return 0;
        }
        if (list)
            PLY_FAIL_AT(line, "list property '%s' in element 'vertex' (only scalar properties are "
                        "supported there)", tok[4]);
        if (cuplas_ply_find(p, tok[2]) >= 0)
            PLY_FAIL_AT(line, "duplicate vertex property '%s'", tok[2]);
        cuplas_ply_prop *np = realloc(p->props, (size_t)(p->nprops + 1) * sizeof *np);
        if (!np)
            FFAIL(CUPLAS_ERR_NOMEM, "out of memory");
        p->props = np;
        np[p->nprops].type = (cuplas_ply_type)type_of(tok[1]);
        np[p->nprops].offset = p->row_size;
        np[p->nprops].line = line;
        if (!(np[p->nprops].name = strdup(tok[2])))
            FFAIL(CUPLAS_ERR_NOMEM, "out of memory");
        p->row_size += types[np[p->nprops].type].size;
        p->nprops++;
        return 0;
    }
    PLY_FAIL_AT(line, "unknown header keyword '%s'", tok[0]);
fail:
    return rc;
}

/* The body's size against the header's counts (a binary one), or a
 * lower bound of it (ascii); where the vertex rows start. */
int cuplas_ply__check_body(cuplas_ply *p, const cuplas_ply__header *hd, cuplas_error *err)
{
    const char *path = p->path;
    int rc = 0;
    int64_t avail = p->file_size - p->body_offset;

    if (p->format != CUPLAS_PLY_ASCII) {
        /* skip the rows of elements before vertex: sizes must be fixed */
        for (int i = 0; i < hd->npre; i++) {
            const cuplas_ply__elem *e = &hd->el[i];
            if (e->has_list)
                PLY_FAIL_AT(e->line, "element '%s' before 'vertex' has a list property; a binary "
                               "PLY like this is not supported", e->name);
            if (e->row_size && e->count > avail / (int64_t)e->row_size)
                PLY_FAIL_AT(e->line, "truncated body: element '%s' needs more bytes than the file "
                               "has", e->name);
            p->body_offset += e->count * (int64_t)e->row_size;
            avail -= e->count * (int64_t)e->row_size;
        }
        /* count errors name the `element vertex N` line: the count to check */
        if (p->n > avail / (int64_t)p->row_size)
            PLY_FAIL_AT(p->vertex_line, "truncated body: %lld vertices of %zu bytes need %lld "
                  "bytes, the file has %lld after the header", (long long)p->n, p->row_size,
                  p->n <= INT64_MAX / (int64_t)p->row_size
                      ? (long long)(p->n * (int64_t)p->row_size) : (long long)INT64_MAX,
                  (long long)avail);
        if (p->vertex_last && avail > p->n * (int64_t)p->row_size)
            PLY_FAIL_AT(p->vertex_line, "count mismatch: the header declares %lld vertices, the "
                  "body has %lld more bytes (%.1f rows)", (long long)p->n,
                  (long long)(avail - p->n * (int64_t)p->row_size),
                  (double)(avail - p->n * (int64_t)p->row_size) / (double)p->row_size);
    } else {
        /* a row is at least one digit and one blank per property */
        int64_t per = 2 * (int64_t)p->nprops;
        if (p->n > (avail + 1) / per)
            PLY_FAIL_AT(p->vertex_line, "count mismatch: the header declares %lld vertices, the "
                  "body has only %lld bytes", (long long)p->n, (long long)avail);
        /* rows before vertex are skipped as lines of at least one byte, so
           the body bounds their running sum: unbounded, two counts near
           INT64_MAX wrapped it negative and nothing was skipped. A body
           only a little short fails in ply_read.c, at the vertex line. */
        for (int i = 0; i < hd->npre; i++) {
            const cuplas_ply__elem *e = &hd->el[i];
            if (e->count > avail - p->pre_lines)
                PLY_FAIL_AT(e->line, "truncated body: element '%s' needs more bytes than the file "
                               "has", e->name);
            p->pre_lines += e->count;
        }
    }
fail:
    return rc;
}

/* Whether a line of buf[pos..got) would end the header as the parser
 * reads it: "end_header", blanks around it allowed, ended by a newline. */
static int end_header_follows(const char *buf, size_t got, size_t pos)
{
    static const char kw[] = "end_header";
    const char *blank = " \t\r\f\v";
    const char *nl;

    while (pos < got && (nl = memchr(buf + pos, '\n', got - pos))) {
        size_t b = (size_t)(nl - buf), q = pos;
        while (q < b && buf[q] && strchr(blank, buf[q]))
            q++;
        if (b - q >= sizeof kw - 1 && !memcmp(buf + q, kw, sizeof kw - 1)) {
            q += sizeof kw - 1;
            while (q < b && buf[q] && strchr(blank, buf[q]))
                q++;
            if (q == b)
                return 1;
        }
        pos = b + 1;
    }
    return 0;
}

int cuplas_ply__parse(const char *path, cuplas_ply *p, cuplas_ply__header *hd, cuplas_error *err)
{
    int rc = 0, fd = -1, line = 0, ended = 0;
    char *buf = NULL, *tmp = NULL;
    hstate h;
    struct stat st;
    size_t pos = 0, got = 0;

    memset(&h, 0, sizeof h);
    h.p = p;
    h.err = err;
    if ((fd = open(path, O_RDONLY)) < 0 || fstat(fd, &st))
        FFAIL(CUPLAS_ERR_INPUT, "cannot open: %s", strerror(errno));
    p->file_size = (int64_t)st.st_size;
    size_t want = st.st_size < HEADER_MAX ? (size_t)st.st_size : HEADER_MAX;
    if (!(buf = malloc(want + 1)) || !(tmp = malloc(want + 1)))
        FFAIL(CUPLAS_ERR_NOMEM, "out of memory");
    int code = cuplas_pread_full(fd, buf, want, 0, &got);
    if (code)
        FFAIL(CUPLAS_ERR_INPUT, "cannot read: %s", code > 0 ? strerror(code) : "short read");
    buf[got] = 0;
    while (!ended) {
        char *nl = memchr(buf + pos, '\n', got - pos);
        char *tok[MAX_TOKENS];
        size_t a = pos;
        line++;
        if (!nl) {
            if (line == 1)
                PLY_FAIL_AT(1, "bad magic: not a PLY file (no 'ply' line)");
            PLY_FAIL_AT(line, got == HEADER_MAX ? "no 'end_header' in the first 1 MiB"
                                          : "no 'end_header' line before the end of the file");
        }
        size_t len = (size_t)(nl - (buf + pos));
        memcpy(tmp, buf + pos, len);
        tmp[len] = 0;
        pos += len + 1;
        /* a NUL is binary data: the body, when no end_header line follows
           to say the header went on past it */
        if (memchr(tmp, 0, len))
            PLY_FAIL_AT(line, line == 1 ? "bad magic: not a PLY file"
                              : end_header_follows(buf, got, pos) ? "NUL byte in the header"
                              : "no 'end_header' line before the binary data");
        int nt = tokenize(tmp, tok);
        if (line == 1) {
            if (nt != 1 || strcmp(tok[0], "ply"))
                PLY_FAIL_AT(1, "bad magic: not a PLY file (the first line is not 'ply')");
            continue;
        }
        if (nt == 1 && !strcmp(tok[0], "end_header")) {
            ended = 1;
            continue;
        }
        /* an empty line (nt 0) leaves tok[0] unset: header_line refuses it
           before it looks at the offset, which must not read tok[0] */
        CUPLAS_TRY(header_line(&h, path, line, tok, nt, a, pos,
                               nt ? a + (size_t)(tok[0] - tmp) : a));
    }
    if (!h.have_format)
        PLY_FAIL_AT(line, "no 'format' line in the header");
    if (!h.have_vertex)
        PLY_FAIL_AT(line, "no 'vertex' element in the header");
    if (p->n == 0)
        PLY_FAIL_AT(line, "the 'vertex' element has 0 vertices: nothing to sort");
    if (p->nprops == 0)
        PLY_FAIL_AT(line, "the 'vertex' element has no properties");
    if (!(p->header = malloc(pos + 1)))
        FFAIL(CUPLAS_ERR_NOMEM, "out of memory");
    memcpy(p->header, buf, pos);
    p->header[pos] = 0;
    p->header_len = pos;
    p->body_offset = (int64_t)pos;
    p->body_line = line + 1;
    p->rows_native = p->format == CUPLAS_PLY_ASCII;

    *hd = h.hd;   /* the caller's now */
    memset(&h.hd, 0, sizeof h.hd);
fail:
    cuplas_ply__header_free(&h.hd);
    free(buf);
    free(tmp);
    if (fd >= 0)
        close(fd);
    return rc;
}
