/*
 * stale.h - remove temporary files that an earlier, dead cuplas left.
 *
 * Outputs are written as ".<name>.tmp.<pid>.XXXXXX" next to <name> and
 * renamed when complete (publish.h); so are run's SOG folders, which go
 * whole. A process killed with SIGKILL, by the OOM
 * killer or by a node failure cannot remove its own; the next run of the
 * same shard does, at start, before any job runs.
 */
#ifndef CUPLAS_STALE_H
#define CUPLAS_STALE_H

#include <time.h>

#include "util/log.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Does `entry` (a bare file name) look like a temp file of `base`? Sets
 * *pid from the name. 1 yes, 0 no. */
int cuplas_stale_match(const char *entry, const char *base, long *pid);

/*
 * For each of paths[0..n) (outputs, NULL entries ignored), remove its temp
 * files whose writer is not alive on this host or that were last modified
 * before `since` (the start of this run: then they are not ours). A temp
 * file of a live process that is newer than `since` is left alone (two
 * runs of one shard at once). Each removal is logged (lg may be NULL).
 * Returns the number of files removed.
 */
int cuplas_stale_clean(const char *const *paths, int n, time_t since, cuplas_log *lg);

#ifdef __cplusplus
}
#endif
#endif
