/*
 * ply_priv.h - what ply.c, ply_read.c, ply_write.c and splat.c share and
 * nobody else uses: the ascii row scanner, the read-only file mapping,
 * host order.
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

#endif
