/*
 * fsutil.h - the few filesystem helpers several stages share: the folder
 * of a path, mkdir -p, rm -r and a lock file. POSIX only; no HDF5.
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

/* Take an exclusive lock (fcntl: it works on NFS too) on `path`, created
 * if missing, and keep it until the process ends (*fd stays open). 0 held;
 * 1 another process holds it (*pid: its pid, written into the file, 0 if
 * unknown); -1 the file cannot be made (err, CUPLAS_ERR_OUTPUT). A file
 * system without locks (ENOLCK, EOPNOTSUPP) counts as held. */
int cuplas_lock_path(const char *path, int *fd, long *pid, cuplas_error *err);

/* rm -r path (files, folders, links as links); 0, or -1 with errno. For
 * temporary folders this program made itself. */
int cuplas_rm_tree(const char *path);

#ifdef __cplusplus
}
#endif
#endif
