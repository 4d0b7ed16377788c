/*
 * scene.h - a 3DGS scene (PLY or .splat, io/ply.h) as a pipeline grid
 * (io/grid.h): N vertex rows x C properties, with the property names as
 * the grid's column names. No HDF5: any thread.
 *
 * The grid's dtype: float32 when every vertex property is float32 (the
 * graphdeco layout and every .splat), else float64 (each value converted
 * exactly: every PLY scalar type fits a double). A float32 scene is read
 * straight into the grid's raw buffer (the PLY row layout of an
 * all-float32 table IS an N x C float32 matrix, in the file's byte order),
 * so a 1.5 GB scene takes 1.5 GB. A mixed-type scene takes its body plus
 * N x C doubles while it is converted; the body is then freed.
 *
 * The grid is N x 1 (H = N, W = 1): the pipeline fits it to its H x W
 * (core/fit.h) afterwards, exactly as an HDF5 (N, C) dataset.
 */
#ifndef CUPLAS_IO_SCENE_H
#define CUPLAS_IO_SCENE_H

#include "io/grid.h"
#include "io/ply.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The dataset name a scene's job and output group use. */
#define CUPLAS_SCENE_DATASET "/vertex"

/* Header only: g's shape, dtype and names (no data). g is always
 * initialised; free it with cuplas_h5grid_free. Errors name the file and,
 * for header problems, its line ("plant.ply:4: ..."). */
int cuplas_scene_probe(const char *path, cuplas_h5grid *g, cuplas_error *err);

/* Header and body: g as for probe, with raw filled (lent by bufs when not
 * NULL). p keeps the scene's header for a PLY export (cuplas_ply_write);
 * *rows_in_raw = 1 when g->raw holds the rows as cuplas_ply_read gave them
 * (pass g->raw as the rows to export), else 0 (export with rows NULL: the
 * writer reads the file again). The body is read (a .splat or compressed
 * PLY also decoded) on pool's threads (NULL: an OpenMP loop). The caller
 * closes p (also on failure). */
int cuplas_scene_read(const char *path, cuplas_h5grid *g, cuplas_ply *p,
                      cuplas_h5_buffers *bufs, int *rows_in_raw, cuplas_pool *pool,
                      cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
