/*
 * shard.h - split one job list among the tasks of a SLURM array.
 *
 * Every task builds the same full job list and calls the same pure
 * function, so all tasks agree on who does what without talking to each
 * other. The split is greedy by cost (N*C): largest first, each job to
 * the currently lightest shard; ties are broken by names, never by order
 * of discovery, so an unchanged collection always splits the same way.
 */
#ifndef CUPLAS_SHARD_H
#define CUPLAS_SHARD_H

#include <stdint.h>

#include "util/error.h"
#include "pipeline/jobs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which part of the list this process runs. count 0 = not sharded. */
typedef struct cuplas_shard {
    int index;          /* 0 .. count-1                                  */
    int count;          /* number of shards; 0 = the whole list           */
} cuplas_shard;

/* One job as the splitter sees it. */
typedef struct cuplas_shard_item {
    int64_t cost;       /* N*C; anything < 1 counts as 1 (failed jobs)    */
    const char *key;    /* tie-breakers: input path, then dataset         */
    const char *key2;   /* (NULL = "")                                    */
} cuplas_shard_item;

/*
 * shard_of[i] = the shard (0..nshards-1) of items[i]. Greedy: items by
 * cost descending (ties: key, key2, then position), each to the lightest
 * shard so far (ties: lowest index). Returns 0, or CUPLAS_ERR_NOMEM /
 * CUPLAS_ERR_USAGE (nshards < 1).
 */
int cuplas_shard_assign(const cuplas_shard_item *items, int n, int nshards, int *shard_of,
                        cuplas_error *err);

/* "i/n" with 0 <= i < n (as given to --shard). CUPLAS_ERR_USAGE if bad. */
int cuplas_shard_parse(const char *s, cuplas_shard *out, cuplas_error *err);

/*
 * The shard of a SLURM array task from its environment values (NULL =
 * unset): index = ID - MIN and count = MAX - MIN + 1 when MIN and MAX are
 * set (COUNT, if set, must agree: a stepped or sparse array cannot be
 * mapped, use --shard), else index = ID and count = COUNT. ID unset:
 * out->count = 0 (not an array task). Bad values: CUPLAS_ERR_USAGE.
 * STEP (SLURM_ARRAY_TASK_STEP) other than 1 is refused whatever else is
 * set: a stepped array's ids are not 0..n-1, and without COUNT nothing
 * else would reveal the gaps.
 */
int cuplas_shard_from_env(const char *id, const char *count, const char *min,
                          const char *max, const char *step, cuplas_shard *out,
                          cuplas_error *err);

/*
 * mine = the jobs of shard s of the full list `all` (s->count 0: all of
 * them), in the list's order. Costs are H*W*C; ties by file, dataset.
 * mine->v holds shallow copies of all's jobs: release it with
 * cuplas_shard_release (never cuplas_jobs_free), before freeing all.
 */
int cuplas_shard_select(const cuplas_jobs *all, const cuplas_shard *s, cuplas_jobs *mine,
                        cuplas_error *err);
void cuplas_shard_release(cuplas_jobs *mine);

/* "2-of-4" for a shard, "" when unsharded (manifest names). */
const char *cuplas_shard_name(const cuplas_shard *s, char *buf, unsigned long size);

#ifdef __cplusplus
}
#endif
#endif
