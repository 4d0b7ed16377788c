/*
 * fsutil.h - the few filesystem helpers several stages share: the folder
 * of a path, mkdir -p and rm -r. POSIX only; no HDF5.
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

/* rm -r path (files, folders, links as links); 0, or -1 with errno. For
 * temporary folders this program made itself. */
int cuplas_rm_tree(const char *path);

#ifdef __cplusplus
}
#endif
#endif
