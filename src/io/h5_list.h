/*
 * h5_list.h - the grids a file holds: every dataset that the reader could
 * take by type and rank. HDF5 calls: on the pipeline's HDF5 thread
 * (h5_thread.h) or in a one-thread tool.
 */
#ifndef CUPLAS_H5_LIST_H
#define CUPLAS_H5_LIST_H

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Names of every numeric dataset of rank 2 or 3 in `file`, sorted
 * (malloc'd array of malloc'd strings, "/a/b" form). */
int cuplas_h5_list_datasets(const char *file, char ***names, int *count, cuplas_error *err);
void cuplas_h5_free_names(char **names, int count);

#ifdef __cplusplus
}
#endif
#endif
