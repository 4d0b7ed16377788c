/*
 * codebook.c - the playcanvas scheme's 256-entry codebooks (codebook.h).
 *
 * The split is the classic dynamic programme over runs of sorted points,
 * dp[m][j] = min_s dp[m-1][s] + cost(s+1..j), whose best s never moves left
 * as j grows (the squared error of runs satisfies the quadrangle
 * inequality), so each row is filled by divide and conquer: O(k H log H)
 * instead of O(k H^2), 2.6M steps instead of 134M for 256 runs of 1024
 * bins. Costs come from prefix sums of values shifted by their weighted
 * mean, which keeps the cancellation in sum(w x^2) - sum(w x)^2 / sum(w)
 * small.
 */
#include "eval/codebook.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct runs {
    const double *s0, *s1, *s2;   /* prefix sums of w, w x, w x^2 (P + 1) */
    double *prev, *cur;           /* dp rows                             */
    int *split;                   /* split[m * P + j]: the best s         */
} runs;

/* Weighted squared error of points a..b (inclusive). */
static double cost(const runs *r, int a, int b)
{
    double w = r->s0[b + 1] - r->s0[a];
    if (w <= 0)
        return 0;
    double wx = r->s1[b + 1] - r->s1[a];
    double e = r->s2[b + 1] - r->s2[a] - wx * wx / w;
    return e > 0 ? e : 0;
}

/* Row m for j in [jlo, jhi], the best split known to lie in [slo, shi]. */
static void fill(runs *r, int P, int m, int jlo, int jhi, int slo, int shi)
{
    while (jlo <= jhi) {
        int j = jlo + (jhi - jlo) / 2, best = -1;
        double bc = INFINITY;
        int lo = slo > m - 2 ? slo : m - 2, hi = shi < j - 1 ? shi : j - 1;
        for (int s = lo; s <= hi; s++) {
            double c = r->prev[s] + cost(r, s + 1, j);
            if (c < bc)
                bc = c, best = s;
        }
        r->cur[j] = bc;
        r->split[(size_t)m * P + j] = best;
        /* the left half recursively, the right half by the loop */
        fill(r, P, m, jlo, j - 1, slo, best);
        jlo = j + 1;
        slo = best;
    }
}

int cuplas_codebook_split(const double *x, const double *w, int H, int k, double *mean)
{
    int P = 0, K, rc = 0;
    double *px = malloc((size_t)(H > 0 ? H : 1) * sizeof *px),
           *pw = malloc((size_t)(H > 0 ? H : 1) * sizeof *pw),
           *sums = malloc((size_t)(3 * (H + 1) + 2 * (H > 0 ? H : 1)) * sizeof *sums);
    int *split = NULL;
    double shift = 0, wsum = 0;
    runs r;

    if (!px || !pw || !sums)
        goto done;
    for (int i = 0; i < H; i++)   /* only points of positive weight count */
        if (w[i] > 0) {
            px[P] = x[i], pw[P++] = w[i];
            shift += w[i] * x[i], wsum += w[i];
        }
    K = k < P ? k : P;
    if (K < 1)
        goto done;
    if (!(split = malloc((size_t)(K + 1) * (size_t)P * sizeof *split)))
        goto done;
    shift /= wsum;
    double *s0 = sums, *s1 = s0 + H + 1, *s2 = s1 + H + 1;
    s0[0] = s1[0] = s2[0] = 0;
    for (int i = 0; i < P; i++) {
        double d = px[i] - shift;
        s0[i + 1] = s0[i] + pw[i];
        s1[i + 1] = s1[i] + pw[i] * d;
        s2[i + 1] = s2[i] + pw[i] * d * d;
    }
    r = (runs){s0, s1, s2, s2 + H + 1, s2 + H + 1 + P, split};
    for (int j = 0; j < P; j++)
        r.prev[j] = cost(&r, 0, j), split[P + j] = -1;
    for (int m = 2; m <= K; m++) {
        for (int j = 0; j < P; j++)
            r.cur[j] = INFINITY;
        fill(&r, P, m, m - 1, P - 1, m - 2, P - 2);
        double *t = r.prev;
        r.prev = r.cur, r.cur = t;
    }
    /* back from the last point: run m covers s+1..j */
    for (int m = K, j = P - 1; m >= 1; m--) {
        int s = m > 1 ? split[(size_t)m * P + j] : -1;
        double ws = s0[j + 1] - s0[s + 1];
        mean[m - 1] = shift + (s1[j + 1] - s1[s + 1]) / ws;
        j = s;
    }
    rc = K;
done:
    free(px);
    free(pw);
    free(sums);
    free(split);
    return rc;
}

/* The value pooled at (cell i, channel j): 0 when left out (an empty
 * cell, a value that is not finite). */
static int pooled(const double *x, int C, const int *ch, const uint8_t *empty, int64_t i, int j,
                  double *a)
{
    if (empty && empty[i])
        return 0;
    *a = x[i * C + ch[j]];
    return isfinite(*a);
}

void cuplas_codebook_build(const double *x, int64_t cells, int C, const int *ch, int nch,
                           const uint8_t *empty, double *entry)
{
    enum { NB = CUPLAS_CODEBOOK_BINS };
    double lo = INFINITY, hi = -INFINITY, a, cnt[NB], sum[NB], bx[NB], bw[NB];
    int K = 0;

    memset(entry, 0, CUPLAS_CODEBOOK_SIZE * sizeof *entry);
    for (int64_t i = 0; i < cells; i++)
        for (int j = 0; j < nch; j++)
            if (pooled(x, C, ch, empty, i, j, &a))
                lo = fmin(lo, a), hi = fmax(hi, a);
    if (!(lo <= hi))
        return;
    if (!(hi - lo > 1e-20)) {   /* one value: every entry is it */
        for (int e = 0; e < CUPLAS_CODEBOOK_SIZE; e++)
            entry[e] = lo;
        return;
    }
    const double width = (hi - lo) / NB;
    memset(cnt, 0, sizeof cnt);
    memset(sum, 0, sizeof sum);
    for (int64_t i = 0; i < cells; i++)
        for (int j = 0; j < nch; j++)
            if (pooled(x, C, ch, empty, i, j, &a)) {
                int b = (int)((a - lo) / width);
                b = b < 0 ? 0 : (b >= NB ? NB - 1 : b);
                cnt[b] += 1;
                sum[b] += a;
            }
    for (int b = 0; b < NB; b++) {
        bx[b] = cnt[b] > 0 ? sum[b] / cnt[b] : lo + (b + 0.5) * width;
        bw[b] = sqrt(cnt[b]);
    }
    K = cuplas_codebook_split(bx, bw, NB, CUPLAS_CODEBOOK_SIZE, entry);
    if (K < 1) {   /* out of memory: a uniform codebook still labels */
        for (int e = 0; e < CUPLAS_CODEBOOK_SIZE; e++)
            entry[e] = lo + (hi - lo) * e / (CUPLAS_CODEBOOK_SIZE - 1);
        return;
    }
    for (int e = K; e < CUPLAS_CODEBOOK_SIZE; e++)
        entry[e] = entry[K - 1];
}

uint8_t cuplas_codebook_label(const double *entry, double v)
{
    int lo = 0, hi = CUPLAS_CODEBOOK_SIZE - 1;
    if (!isfinite(v))
        return 0;
    while (lo < hi) {   /* the first entry whose midpoint with the next is above v */
        int mid = (lo + hi) / 2;
        if (v < 0.5 * (entry[mid] + entry[mid + 1]))
            hi = mid;
        else
            lo = mid + 1;
    }
    return (uint8_t)lo;
}
