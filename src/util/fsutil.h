/*
 * fsutil.h - the few filesystem helpers several stages share: the folder
 * of a path, and mkdir -p. POSIX only; no HDF5.
 */
#ifndef CUPLAS_FSUTIL_H
#define CUPLAS_FSUTIL_H

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Folder part of a path ("." for a bare name, "/" for the root); malloc'd,
 * NULL when out of memory. */
char *cuplas_path_dir(const char *path);

/* mkdir -p dir. Errors (CUPLAS_ERR_OUTPUT) name the folder that failed. */
int cuplas_mkdir_p(const char *dir, cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
