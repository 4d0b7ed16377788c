/*
 * publish.h - atomic output files: a temp file next to the output,
 * filled, fsync'd and renamed into place, so that a reader never sees a
 * file that looks complete but is not. No HDF5 calls: any thread.
 *
 * A result's file is made in three steps: cuplas_tmp_create (here), the
 * HDF5 part on the HDF5 thread (h5_write.c: cuplas_h5_write_encoded_to),
 * then cuplas_h5_write_raw and cuplas_tmp_publish (here) in parallel with
 * other jobs' HDF5 work.
 */
#ifndef CUPLAS_PUBLISH_H
#define CUPLAS_PUBLISH_H

#include "io/codec.h"
#include "util/error.h"
#include "util/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Create a unique empty temp file ".<name>.tmp.<pid>.XXXXXX" next to
 * out_path (malloc'd path, NULL on error), with the mode open() would give
 * a new file. Shared with `gen` and the manifest. */
char *cuplas_tmp_create(const char *out_path, cuplas_error *err);

/* The same for a folder (run's SOG folder): an empty ".<name>.tmp.<pid>.
 * XXXXXX" folder next to out_path, so that stale.h finds it after a kill. */
char *cuplas_tmp_dir_create(const char *out_path, cuplas_error *err);

/* Whether out_path and its temp name fit the system's limits: every
 * component, and the temp name's, at most NAME_MAX bytes, the temp path
 * under PATH_MAX. 0, or CUPLAS_ERR_OUTPUT saying which is too long (the
 * path itself is not repeated: it may be longer than a message). The temp
 * name is taken with the longest pid (7 digits), so that the answer does
 * not depend on the process: `check` and `run` give the same one. Run at
 * planning, before a grid is read and sorted that could not be written. */
int cuplas_tmp_name_check(const char *out_path, cuplas_error *err);

/* Start writing tmp's dirty pages to disk without waiting (Linux:
 * sync_file_range), so that the fsync before the rename finds little left:
 * a large result written in batches calls it after each one. It changes
 * no guarantee (that is the fsync's) and failures are ignored. fd: an open
 * descriptor of tmp (read-only is enough), or -1: a no-op. */
void cuplas_tmp_writeback(int fd);

/* The same for bytes [off, off + len) only: a writer of large blocks
 * calls it after each, so the kernel writes the file while later blocks
 * are made (len 0: to the end of the file). */
void cuplas_tmp_writeback_range(int fd, int64_t off, int64_t len);

/* After the writer closed tmp, rename it onto out_path, with sync
 * (output.fsync) fsyncing the file before and the folder after. The
 * caller unlinks tmp on failure. */
int cuplas_tmp_publish(const char *tmp, const char *out_path, int sync, cuplas_error *err);

/*
 * Batched durability (output.fsync in a run). Per result, the temp file's
 * data is fdatasync'd before the rename, as cuplas_tmp_publish does: a name
 * never points at data that is not on disk. The folder's fsync, which
 * makes the rename itself survive a crash, is deferred: a cuplas_dirsync
 * collects the folders with renames not yet synced and fsyncs each once
 * per batch (cuplas_dirsync_flush). Two journal commits per file become
 * one, plus one per folder per batch. Thread-safe.
 */
typedef struct cuplas_dirsync cuplas_dirsync;

int cuplas_dirsync_create(cuplas_dirsync **out, cuplas_error *err);
void cuplas_dirsync_free(cuplas_dirsync *ds);   /* NULL: no-op; no flush */

/* Like cuplas_tmp_publish with sync on, but the folder's fsync is left to
 * ds; `job` (the caller's number for the result) is remembered with it. */
int cuplas_tmp_publish_deferred(const char *tmp, const char *out_path, cuplas_dirsync *ds,
                                int job, cuplas_error *err);

/* Renames deferred for longer than max_age_s (0: all) fsync'd, one fsync
 * per folder. On a failure *bad (malloc'd, may be NULL) lists the jobs
 * whose renames might not be durable, nbad of them, and err says why; the
 * other folders are still synced. Returns 0 or err's code. */
int cuplas_dirsync_flush(cuplas_dirsync *ds, double max_age_s, int **bad, int *nbad,
                         cuplas_error *err);

/* A small file (a preview PNG) published like a result: temp file next
 * to out_path, written, renamed onto it (fsync'd first with sync). */
int cuplas_publish_bytes(const char *out_path, const void *data, size_t size, int sync,
                         cuplas_error *err);

/* An output folder that exists, is a folder and is writable, or
 * CUPLAS_ERR_OUTPUT saying which of these it is not. */
int cuplas_out_dir_check(const char *dir, cuplas_error *err);

/* Store what write_encoded_to left in tmp: the in-memory file, then the
 * contiguous data (pwrite at the datasets' offsets, in parallel on pool);
 * a no-op when it left nothing. */
int cuplas_h5_write_raw(const char *tmp, const cuplas_h5_encoded *enc, cuplas_pool *pool,
                        cuplas_error *err);

#ifdef __cplusplus
}
#endif
#endif
