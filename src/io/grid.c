/*
 * grid.c - a grid's memory (grid.h). No HDF5 calls.
 */
#include "io/grid.h"

#include <stdlib.h>
#include <string.h>

#include "util/sysmem.h"

unsigned char *cuplas_h5_buffers_lend(cuplas_h5_buffers *b, int which, size_t n)
{
    n = n ? n : 1;
    if (!b)
        return malloc(n);
    if (n > b->cap[which]) {
        free(b->p[which]);
        b->cap[which] = 0;
        if (!(b->p[which] = cuplas_alloc_big(n)))
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

int cuplas_h5grid_alloc_raw(cuplas_h5grid *g, cuplas_h5_buffers *bufs, size_t bytes)
{
    g->raw = cuplas_h5_buffers_lend(bufs, CUPLAS_H5_RAW, bytes);
    g->raw_lent = g->raw && bufs;
    return g->raw ? 0 : -1;
}

void cuplas_h5grid_free_names(cuplas_h5grid *g)
{
    for (int64_t c = 0; g->names && c < g->C; c++)
        free(g->names[c]);
    free(g->names);
    g->names = NULL;
}

void cuplas_h5grid_free(cuplas_h5grid *g)
{
    if (!g)
        return;
    cuplas_h5grid_free_names(g);
    free(g->file);
    free(g->dataset);
    if (!g->raw_lent)
        free(g->raw);
    memset(g, 0, sizeof *g);
}
