/*
 * testutil.h - deterministic test inputs shared by the cmocka suites.
 */
#ifndef CUPLAS_TESTUTIL_H
#define CUPLAS_TESTUTIL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/random.h"

/* Uniform integers 0..255 (random colours), N x C doubles. */
static inline double *tu_colors(int64_t N, int C, uint64_t seed)
{
    double *x = malloc((size_t)(N * C) * sizeof *x);
    for (int64_t i = 0; i < N * C; i++)
        x[i] = (double)(cuplas_philox(seed, 99, (uint32_t)i, (uint32_t)(i >> 32), 0).v[0] & 255u);
    return x;
}

/* Standard normals by Box-Muller, N x C doubles. */
static inline double *tu_normals(int64_t N, int C, uint64_t seed)
{
    double *x = malloc((size_t)(N * C) * sizeof *x);
    for (int64_t i = 0; i < N * C; i++) {
        cuplas_u128 r = cuplas_philox(seed, 98, (uint32_t)i, (uint32_t)(i >> 32), 0);
        double u1 = (r.v[0] + 1.0) / 4294967297.0, u2 = r.v[1] / 4294967296.0;
        x[i] = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    }
    return x;
}

/* 1 if index is a permutation of 0..N-1. */
static inline int tu_is_permutation(const int64_t *index, int64_t N)
{
    char *seen = calloc((size_t)N, 1);
    int ok = 1;
    for (int64_t i = 0; i < N && ok; i++) {
        if (index[i] < 0 || index[i] >= N || seen[index[i]])
            ok = 0;
        else
            seen[index[i]] = 1;
    }
    free(seen);
    return ok;
}

/* splitmix64: a test's own reproducible stream (no libc rand). */
static inline uint64_t tu_next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The next permutation of a[0..n-1] in lexicographic order; 0 after the
 * last (brute-force checks over every arrangement). */
static inline int tu_next_perm(int *a, int n)
{
    int i = n - 2;
    while (i >= 0 && a[i] >= a[i + 1])
        i--;
    if (i < 0)
        return 0;
    int j = n - 1;
    while (a[j] <= a[i])
        j--;
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int l = i + 1, r = n - 1; l < r; l++, r--) {
        t = a[l];
        a[l] = a[r];
        a[r] = t;
    }
    return 1;
}

#endif
