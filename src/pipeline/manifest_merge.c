/*
 * manifest_merge.c - many shards' manifests as one account of a run
 * (cuplas_manifest_merge, manifest.h), for `cuplas report`.
 *
 * Design facts:
 * - a requeued SLURM task rewrites its own shard's manifest, so the
 *   newest manifest of each (index, count) is the one that counts;
 * - a dataset may appear in several manifests (a resumed run skips what
 *   an earlier run did): the newest entry wins, except that a "skipped"
 *   entry lets the newest "done" under it stand, since that run made the
 *   output being skipped;
 * - "newest" is a total order (end time, start time, path), so which
 *   manifest or entry wins does not depend on the order the files were
 *   named in; a start marker (a run that has not ended) counts from its
 *   start, which is later than any end of what it replaced;
 * - a start marker's entries are all pending, so the datasets of a run
 *   that was killed read as not done, whatever an earlier run did;
 * - a split (the manifests of one shard count; unsharded is a split of
 *   one) is complete when each of its shards has a finished manifest. A
 *   split whose last manifest ended before a complete split of another
 *   count began is superseded: the later split ran the whole job list
 *   since, so the older one's missing shards and unfinished runs are not
 *   reported (a shard count changed between array jobs must not keep
 *   report at 1 forever). Its records still merge by dataset as usual:
 *   older, they lose wherever the later split has the dataset.
 */
#include "pipeline/manifest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* When a manifest's account holds from: its end, or a marker's start. */
static double as_of(const cuplas_manifest *m)
{
    return m->finished ? m->end_unix : m->start_unix;
}

/* Later first: end time, then start time, then path (a total order). */
static int newer(const cuplas_manifest *a, const cuplas_manifest *b)
{
    if (as_of(a) != as_of(b))
        return as_of(a) > as_of(b);
    if (a->start_unix != b->start_unix)
        return a->start_unix > b->start_unix;
    return strcmp(a->path ? a->path : "", b->path ? b->path : "") > 0;
}

static int cmp_merged(const void *pa, const void *pb)
{
    const cuplas_merged_entry *a = pa, *b = pb;
    int c = strcmp(a->e->input, b->e->input);
    if (!c)
        c = strcmp(a->e->dataset ? a->e->dataset : "", b->e->dataset ? b->e->dataset : "");
    if (!c)   /* the winner of a key sorts first */
        c = newer(b->from, a->from) - newer(a->from, b->from);
    return c;
}

static int same_key(const cuplas_manifest_entry *a, const cuplas_manifest_entry *b)
{
    return !strcmp(a->input, b->input) &&
           !strcmp(a->dataset ? a->dataset : "", b->dataset ? b->dataset : "");
}

/* One manifest per shard: the newest; the others count as superseded. */
static void pick_shards(const cuplas_manifest *ms, int n, cuplas_merged *out)
{
    for (int i = 0; i < n; i++) {
        int dup = -1;
        for (int u = 0; u < out->nused; u++)
            if (out->used[u]->shard.index == ms[i].shard.index &&
                out->used[u]->shard.count == ms[i].shard.count)
                dup = u;
        if (dup < 0) {
            out->used[out->nused++] = &ms[i];
            continue;
        }
        out->nsuperseded++;
        if (newer(&ms[i], out->used[dup]))
            out->used[dup] = &ms[i];
    }
}

/* The span of split count's used manifests: first start, last as_of. */
static void split_span(const cuplas_merged *out, int count, double *began, double *ended)
{
    int any = 0;
    for (int u = 0; u < out->nused; u++) {
        const cuplas_manifest *m = out->used[u];
        if (m->shard.count != count)
            continue;
        if (!any || m->start_unix < *began)
            *began = m->start_unix;
        if (!any || as_of(m) > *ended)
            *ended = as_of(m);
        any = 1;
    }
}

/* Every shard of split count has a used manifest, and each finished. */
static int split_complete(const cuplas_merged *out, int count)
{
    int shards = count > 0 ? count : 1, have = 0;
    for (int u = 0; u < out->nused; u++) {
        const cuplas_manifest *m = out->used[u];
        if (m->shard.count != count)
            continue;
        if (!m->finished)
            return 0;
        have++;   /* one used manifest per shard (pick_shards) */
    }
    return have == shards;
}

int cuplas_merged_superseded(const cuplas_merged *mg, int count)
{
    for (int i = 0; i < mg->nold_splits; i++)
        if (mg->old_splits[i] == count)
            return 1;
    return 0;
}

/* The splits that a later complete split supersedes, into out->old_splits. */
static int find_superseded(cuplas_merged *out, cuplas_error *err)
{
    for (int u = 0; u < out->nused; u++) {
        int count = out->used[u]->shard.count, seen = 0, later = 0;
        double began = 0, ended = 0;
        for (int v = 0; v < u; v++)
            seen |= out->used[v]->shard.count == count;
        if (seen)
            continue;
        split_span(out, count, &began, &ended);
        for (int v = 0; v < out->nused && !later; v++) {
            int other = out->used[v]->shard.count;
            double b2 = 0, e2 = 0;
            if (other == count || !split_complete(out, other))
                continue;
            split_span(out, other, &b2, &e2);
            later = b2 > ended;
        }
        if (!later)
            continue;
        int *p = realloc(out->old_splits, (size_t)(out->nold_splits + 1) * sizeof *p);
        if (!p)
            return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
        out->old_splits = p;
        out->old_splits[out->nold_splits++] = count;
    }
    return 0;
}

/* Shards of a count that left no manifest (a task died before writing),
 * except in superseded splits. */
static int find_missing(cuplas_merged *out, cuplas_error *err)
{
    for (int u = 0; u < out->nused; u++) {
        int count = out->used[u]->shard.count, seen = cuplas_merged_superseded(out, count);
        for (int v = 0; v < u; v++)
            seen |= out->used[v]->shard.count == count;
        for (int s = 0; s < count && !seen; s++) {
            int have = 0;
            for (int v = 0; v < out->nused; v++)
                have |= out->used[v]->shard.count == count && out->used[v]->shard.index == s;
            if (have)
                continue;
            cuplas_shard *p = realloc(out->missing, (size_t)(out->nmissing + 1) * sizeof *p);
            if (!p)
                return cuplas_error_set(err, CUPLAS_ERR_NOMEM, "out of memory");
            out->missing = p;
            out->missing[out->nmissing].index = s;
            out->missing[out->nmissing++].count = count;
        }
    }
    return 0;
}

/* The status counts, the summed sort time and the mean AND of out->v. */
static void tally(cuplas_merged *out)
{
    double sum_b = 0, sum_a = 0;

    for (int i = 0; i < out->n; i++) {
        const cuplas_manifest_entry *e = out->v[i].e;
        int done = !strcmp(e->status, "done"), skipped = !strcmp(e->status, "skipped");
        if (done) {
            out->done++;
            out->sort_s += e->sort_s;
        } else if (skipped) {
            out->skipped++;
        } else if (!strcmp(e->status, "failed")) {
            out->failed++;
        } else if (!strcmp(e->status, "cancelled")) {
            out->cancelled++;
        } else {
            out->pending++;
        }
        if ((done || skipped) && isfinite(e->and_before) && isfinite(e->and_after)) {
            sum_b += e->and_before;
            sum_a += e->and_after;
            out->and_count++;
        }
    }
    out->and_before_mean = out->and_count ? sum_b / out->and_count : NAN;
    out->and_after_mean = out->and_count ? sum_a / out->and_count : NAN;
}

int cuplas_manifest_merge(const cuplas_manifest *ms, int n, cuplas_merged *out,
                          cuplas_error *err)
{
    cuplas_merged_entry *all = NULL;
    int total = 0, k = 0, rc = 0;
    double first = 0, last = 0;

    memset(out, 0, sizeof *out);
    if (!(out->used = malloc((size_t)n * sizeof *out->used + 1)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    pick_shards(ms, n, out);
    CUPLAS_TRY(find_superseded(out, err));
    CUPLAS_TRY(find_missing(out, err));
    for (int u = 0; u < out->nused; u++) {
        const cuplas_manifest *m = out->used[u];
        total += m->n;
        out->nunfinished += !m->finished && !cuplas_merged_superseded(out, m->shard.count);
        if (u == 0 || m->start_unix < first)
            first = m->start_unix;
        if (u == 0 || as_of(m) > last)
            last = as_of(m);
    }
    out->span_s = out->nused ? last - first : 0;
    if (!(all = malloc((size_t)total * sizeof *all + 1)) ||
        !(out->v = malloc((size_t)total * sizeof *out->v + 1)))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int u = 0; u < out->nused; u++)
        for (int i = 0; i < out->used[u]->n; i++) {
            all[k].e = &out->used[u]->v[i];
            all[k++].from = out->used[u];
        }
    qsort(all, (size_t)total, sizeof *all, cmp_merged);
    for (int i = 0; i < total;) {
        int j = i, pick = i;
        while (j < total && same_key(all[i].e, all[j].e))
            j++;
        /* newest first within [i, j): a skip says the earlier result stands */
        if (!strcmp(all[i].e->status, "skipped"))
            for (int t = i + 1; t < j; t++)
                if (!strcmp(all[t].e->status, "done")) {
                    pick = t;
                    break;
                }
        out->v[out->n++] = all[pick];
        i = j;
    }
    tally(out);
fail:
    free(all);
    if (rc)
        cuplas_merged_free(out);
    return rc;
}

void cuplas_merged_free(cuplas_merged *mg)
{
    free(mg->used);
    free(mg->v);
    free(mg->missing);
    free(mg->old_splits);
    memset(mg, 0, sizeof *mg);
}
