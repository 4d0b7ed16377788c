/*
 * probe_cache.h - the HDF5 probes of one job list, each done once.
 *
 * Why: planning lists a file's datasets and probes every (file, dataset)
 * it names, and each of those opens the file. A config of 20,000 entries
 * naming one file opened it 40,000 times (2.6 s of a 2.7 s `check`).
 * Keys are the file as written, the dataset and every argument of the
 * probe, so a hit returns exactly what the call would (errors included).
 * One thread: the planner's.
 */
#ifndef CUPLAS_PROBE_CACHE_H
#define CUPLAS_PROBE_CACHE_H

#include <stdint.h>

#include "io/grid.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuplas_probe_cache cuplas_probe_cache;

/* NULL when out of memory (the calls below then go straight to HDF5). */
cuplas_probe_cache *cuplas_probe_cache_new(void);
void cuplas_probe_cache_free(cuplas_probe_cache *pc);

/* cuplas_h5_probe_grid, remembered: g gets the shape and type only
 * (g->file and g->dataset NULL); cuplas_h5grid_free(g) as usual. */
int cuplas_probe_cached(cuplas_probe_cache *pc, const char *file, const char *dataset,
                        int64_t height, int64_t width, unsigned flags, cuplas_h5grid *g,
                        cuplas_error *err);

/* cuplas_h5_list_datasets, remembered: *names belongs to the cache (pc
 * NULL: to the caller, cuplas_h5_free_names). */
int cuplas_list_cached(cuplas_probe_cache *pc, const char *file, char ***names, int *count,
                       cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
