/*
 * ply_priv.h - what ply.c, ply_open.c, ply_read.c, ply_write.c, splat.c
 * and ply_compressed.c share and nobody else uses: the ascii row scanner, the
 * read-only file mapping, host order, the header's elements, the table of
 * a decoded format.
 */
#ifndef CUPLAS_IO_PLY_PRIV_H
#define CUPLAS_IO_PLY_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "io/ply.h"
#include "util/error.h"

/* The next non-blank line of map[*pos, size) as [*start, *end) (without
 * its '\n'); *pos moves past it and *line counts every line passed.
 * 0 at the end of the data. */
int cuplas_ply__next_row(const char *map, size_t size, size_t *pos, int64_t *line,
                         size_t *start, size_t *end);

/* Map p's whole file read-only (checking it still has the size its header
 * was read with); munmap((void *)*map, *size) when done. */
int cuplas_ply__map(const cuplas_ply *p, const char **map, size_t *size, cuplas_error *err);

/* 1 on a little-endian host. */
int cuplas_ply__host_le(void);

/* err->where for a body that does not match the vertex count: "FILE:LINE"
 * of the `element vertex N` line (README: scene errors name the header
 * line), "FILE" for a .splat. Returns err->code. */
int cuplas_ply__count_where(const cuplas_ply *p, cuplas_error *err);

/* An element of a PLY header as ply.c parsed it: enough to find any
 * element's bytes in a binary body (the skipped ones, and those of a
 * compressed PLY). */
typedef struct cuplas_ply__elem {
    char name[64];
    int64_t count;
    int line;                /* header line of "element NAME COUNT"      */
    int has_list;            /* a list property: its rows vary in size   */
    size_t row_size;         /* bytes of its scalar properties           */
    int nprops;              /* its scalar properties (for `vertex`: 0,  */
    cuplas_ply_prop *props;  /* they are the cuplas_ply's own props)     */
} cuplas_ply__elem;

/* Every element of a parsed header, in file order. */
typedef struct cuplas_ply__header {
    cuplas_ply__elem *el;
    int nel;
    int npre;                /* elements before vertex (el[npre] is it)  */
} cuplas_ply__header;

/* Parse path's header into p (props, counts, body offset; no check of the
 * body against them yet) and hand its elements out in *hd (free with
 * cuplas_ply__header_free, also after a failure). Errors name the header
 * line. cuplas_ply_open (ply_open.c) decides what the header is. */
int cuplas_ply__parse(const char *path, cuplas_ply *p, cuplas_ply__header *hd,
                      cuplas_error *err);
void cuplas_ply__header_free(cuplas_ply__header *hd);

/* A plain PLY's body size against its header's counts (a binary one; a
 * lower bound for ascii); moves p->body_offset past the elements before
 * vertex. Errors name the element's header line. */
int cuplas_ply__check_body(cuplas_ply *p, const cuplas_ply__header *hd, cuplas_error *err);

/* 1 when a parsed header is a compressed PLY's (ply_compressed.c): an
 * element `chunk` and a vertex property packed_position, packed_rotation,
 * packed_scale or packed_color. */
int cuplas_plyc__claims(const cuplas_ply *p, const cuplas_ply__elem *el, int nel);

/* Check such a header against its file and turn p (header parsed, body
 * offset set) into the decoded table cuplas_plyc_read fills. Errors name
 * the header line at fault (README "Errors"). */
int cuplas_plyc__adopt(cuplas_ply *p, const cuplas_ply__elem *el, int nel, int vi,
                       cuplas_error *err);

/* Make p a decoded table of n float32 columns named names[] in host
 * order (props, row_size, rows_native) whose export header is a
 * binary_little_endian PLY with the one comment line given and these
 * properties: what a .splat and a compressed PLY become. p->n is set. */
int cuplas_ply__float_table(cuplas_ply *p, const char *const *names, int n,
                            const char *comment, cuplas_error *err);

/* logit(a / 255) of an 8-bit alpha, with a / 255 clamped half a step
 * inside (0, 1): a = 0 and 255 give -/+log(509) = -/+6.2324 instead of
 * infinities (io/splat.h). */
float cuplas_ply__opacity_u8(unsigned a);

/* Fail with where = "path:line", a header line: for functions with the
 * locals `rc`, `err` and `path` and a `fail:` label. */
#define PLY_FAIL_AT(line, ...)                                          \
    do {                                                                \
        rc = cuplas_error_set(err, CUPLAS_ERR_INPUT, __VA_ARGS__);      \
        cuplas_error_where(err, "%s:%d", path, (line));                 \
        goto fail;                                                      \
    } while (0)

#endif
