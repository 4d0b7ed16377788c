/*
 * scene.c - a PLY/.splat scene as a grid (scene.h).
 */
#define _GNU_SOURCE /* strdup */
#include "io/scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int host_big_endian(void)
{
    const unsigned one = 1;
    return *(const unsigned char *)&one == 0;
}

static int all_float32(const cuplas_ply *p)
{
    for (int k = 0; k < p->nprops; k++)
        if (p->props[k].type != CUPLAS_PLY_FLOAT32)
            return 0;
    return 1;
}

/* Shape, type and names of g from the open header p. */
static int describe(const cuplas_ply *p, const char *path, cuplas_h5grid *g, cuplas_error *err)
{
    int f32 = all_float32(p);
    int rc = 0;

    if (!(g->file = strdup(path)) || !(g->dataset = strdup(CUPLAS_SCENE_DATASET)) ||
        !(g->names = calloc((size_t)p->nprops, sizeof *g->names)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    g->C = p->nprops;
    for (int k = 0; k < p->nprops; k++)
        if (!(g->names[k] = strdup(p->props[k].name)))
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    if (g->C > CUPLAS_MAX_CHANNELS)
        CUPLAS_FAIL(err, CUPLAS_ERR_INPUT, "%lld vertex properties exceed the limit of %d",
                    (long long)g->C, CUPLAS_MAX_CHANNELS);
    g->H = p->n;
    g->W = 1;
    g->in_rank = 2;
    g->in_dims[0] = p->n;
    g->in_dims[1] = g->C;
    g->type.cls = CUPLAS_DTYPE_FLOAT;
    g->type.size = f32 ? 4 : 8;
    g->type.is_signed = 1;
    /* float32 rows keep the file's order (binary) or the host's (ascii
       and .splat, parsed or decoded); doubles are converted on the host */
    g->type.big_endian = f32 && !p->rows_native ? p->format == CUPLAS_PLY_BINARY_BE
                                                : host_big_endian();
    g->elem_size = (size_t)g->type.size;
    snprintf(g->dtype, sizeof g->dtype, "%s", cuplas_dtype_name(&g->type));
fail:
    if (rc)
        cuplas_error_where(err, "%s", path);
    return rc;
}

int cuplas_scene_probe(const char *path, cuplas_h5grid *g, cuplas_error *err)
{
    cuplas_ply p;
    int rc;

    memset(g, 0, sizeof *g);
    rc = cuplas_ply_open(path, &p, err);
    if (rc == 0)
        rc = describe(&p, path, g, err);
    cuplas_ply_close(&p);
    if (rc)
        cuplas_h5grid_free(g);
    return rc;
}

int cuplas_scene_read(const char *path, cuplas_h5grid *g, cuplas_ply *p,
                      cuplas_h5_buffers *bufs, int *rows_in_raw, cuplas_pool *pool,
                      cuplas_error *err)
{
    void *body = NULL;
    int rc = 0;

    memset(g, 0, sizeof *g);
    *rows_in_raw = 0;
    CUPLAS_TRY(cuplas_ply_open(path, p, err));
    CUPLAS_TRY(describe(p, path, g, err));
    size_t cells = (size_t)g->H * (size_t)g->C;
    if (cuplas_h5grid_alloc_raw(g, bufs, cells * g->elem_size) != 0)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for %lld vertices", (long long)g->H);
    if (g->elem_size == 4) {   /* the rows are the matrix: one copy */
        CUPLAS_TRY(cuplas_ply_read(p, g->raw, pool, err));
        *rows_in_raw = 1;
    } else {
        int *cols = malloc((size_t)g->C * sizeof *cols);
        if (!cols || !(body = malloc(cuplas_ply_body_bytes(p)))) {
            free(cols);
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for %lld vertices",
                        (long long)g->H);
        }
        for (int k = 0; k < (int)g->C; k++)
            cols[k] = k;
        rc = cuplas_ply_read(p, body, pool, err);
        if (rc == 0)
            cuplas_ply_extract(p, body, cols, (int)g->C, g->raw);
        free(cols);
        if (rc)
            goto fail;
    }
fail:
    free(body);
    if (rc)
        cuplas_h5grid_free(g);
    return rc;
}
