/*
 * fsutil.h - the few filesystem helpers several stages share: the folder
 * of a path, mkdir -p, rm -r, a lock file, and the two questions asked of
 * an output path before anything is written. POSIX only; no HDF5.
 */
#ifndef CUPLAS_FSUTIL_H
#define CUPLAS_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Folder part of a path ("." for a bare name, "/" for the root); malloc'd,
 * NULL when out of memory. */
char *cuplas_path_dir(const char *path);

/* 1 when a and b name one file: the same st_dev and st_ino when both
 * exist, else (neither exists) the same text once each one's folder is
 * resolved by realpath ("./o.h5" and "o.h5" are one name); else 0. */
int cuplas_path_same(const char *a, const char *b);

/* A text that is equal for two paths exactly when cuplas_path_same holds
 * for them (the device and inode of a file that exists, else its name
 * with the folder resolved), to find the same file among many paths by
 * sorting. Malloc'd; NULL when out of memory. */
char *cuplas_path_key(const char *path);

/* Read len bytes at offset off of fd into buf, through short reads and
 * EINTR: 0 when all came, else an errno (a read error) or -1 (the file
 * ended first). *got, if given, is what was read either way. The one
 * pread loop of the readers (PLY, .splat, compressed PLY, HDF5 chunks). */
int cuplas_pread_full(int fd, void *buf, size_t len, int64_t off, size_t *got);

/* NULL for a regular file's mode, else what it is instead, for "cannot
 * open: ..." ("is a directory", "is a FIFO, not a regular file", ...). An
 * input must be a regular file: open() of a FIFO waits for a writer (a
 * hung run, deaf to SIGTERM), and a device is no file to read twice. */
const char *cuplas_mode_not_regular(mode_t mode);

/* 0 when path is a regular file (links followed); else CUPLAS_ERR_INPUT
 * with "cannot open: WHY" in err (no where): "a dangling symbolic link to
 * TARGET (no such file there)" for a link whose target is missing (a glob
 * lists such a link as a file, and `ls` shows it: "no such file" alone
 * reads as a wrong path; a chain of links reads "to B -> C (...)"), "no such file", strerror, or what
 * cuplas_mode_not_regular says. The check every input makes before it is
 * opened (HDF5 files, scenes). */
int cuplas_input_file_check(const char *path, cuplas_error *err);

/* 1 when path exists (symbolic links followed) and is not a regular file:
 * a folder, a device, a FIFO. A result is published by rename, which would
 * replace such a file by a regular one, or fail after all the work. */
int cuplas_path_special(const char *path);

/* One path a command reads or writes, by the name its messages use. */
typedef struct {
    const char *role;   /* "input", "sorted PLY", ...; NULL path: skipped */
    const char *path;
    int output;         /* published by rename onto path */
} cuplas_path_role;

/* The paths of one command, in order: CUPLAS_ERR_USAGE when an output
 * names the same file as an earlier path (the rename would destroy it) or
 * an existing folder, device or FIFO. Checked before anything is read. */
int cuplas_paths_check(const cuplas_path_role *p, int n, cuplas_error *err);

/* path's size and modification time as "size=S mtime=SEC.NSEC" into buf:
 * what a result records of a file published beside it, so that a rerun
 * can tell that file from one another run left there. 0, or -1 (errno)
 * when path cannot be stat'ed or buf is too small. */
int cuplas_file_stamp(const char *path, char *buf, size_t n);

/* 1 when path is a regular file modified no earlier than ref (a preview
 * published after its result, not one an earlier run left); else 0. */
int cuplas_file_as_new(const char *path, const char *ref);

/* mkdir -p dir. Errors (CUPLAS_ERR_OUTPUT) name the folder that failed. */
int cuplas_mkdir_p(const char *dir, cuplas_error *err);

/* Take an exclusive lock (fcntl: it works on NFS too) on `path`, created
 * if missing, and keep it until the process ends (*fd stays open). 0 held;
 * 1 another process holds it (*pid: its pid, written into the file, 0 if
 * unknown); -1 the file cannot be made (err, CUPLAS_ERR_OUTPUT). A file
 * system without locks (ENOLCK, EOPNOTSUPP) counts as held. */
int cuplas_lock_path(const char *path, int *fd, long *pid, cuplas_error *err);

/* The split lock of an output folder (`path`, created if missing): the
 * shards of one split write the folder together, runs of two splits (say
 * unsharded and --shard i/2) must not, since they write the same outputs.
 * A run of split `count` (0: unsharded) holds a shared lock on byte
 * count + 1 until it ends (*fd stays open); it is refused while another
 * byte is held. Check and lock happen under an exclusive lock on byte 0,
 * so two runs that start at once see each other. 0 held (or no locks on
 * this file system); 1 another split holds it (*other: its count, *pid:
 * its pid where known); -1 the file cannot be made (err). */
int cuplas_lock_split(const char *path, int count, int *fd, int *other, long *pid,
                      cuplas_error *err);

/* rm -r path (files, folders, links as links); 0, or -1 with errno. For
 * temporary folders this program made itself. */
int cuplas_rm_tree(const char *path);

struct stat;
/* fn(path, st, ctx) for each regular file directly in dir whose name does
 * not start with '.', until fn returns nonzero (that value is returned).
 * -1 with errno when dir cannot be read, else 0. */
int cuplas_dir_files(const char *dir, int (*fn)(const char *path, const struct stat *st,
                                                void *ctx), void *ctx);

/* A folder that appears complete or not at all: it is filled under
 * "<dir>.tmp.<pid>" (cuplas_dir_tmp_name, malloc'd; NULL when out of
 * memory), then renamed onto dir (cuplas_dir_publish: dir absent or an
 * empty folder; 0, or CUPLAS_ERR_OUTPUT naming both). `eval --images`, a
 * run's `eval.images` and `export-sog` write their image folders so. */
char *cuplas_dir_tmp_name(const char *dir);
int cuplas_dir_publish(const char *tmp, const char *dir, cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
