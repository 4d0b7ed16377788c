/*
 * scene_read.c - how long reading a 3DGS scene takes (io/scene.c: the
 * header, the body, a .splat's or compressed PLY's decode), with a hash of
 * the grid's bytes, so that thread counts compare in time and in bytes.
 *
 * Usage: bench/scene_read SCENE THREADS [REPEATS] [--pool]
 *
 * THREADS is the OpenMP team of the read (what `cuplas sort --backend cpu
 * --threads N` gives it), or with --pool the threads of a cuplas_pool
 * (the GPU lanes' path; the calling thread serves items too). Prints each
 * repeat's seconds, their median and the FNV-1a 64 hash of the decoded
 * grid. The file is read whole once before the first repeat, so every
 * repeat reads from the page cache, as a run's second read of a scene.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/scene.h"
#include "util/clock.h"
#include "util/pool.h"
#include "util/threads.h"

#define MAX_REPEATS 64

static uint64_t fnv1a(const unsigned char *b, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One read: its seconds in *s, the grid's hash in *h. */
static int read_once(const char *path, cuplas_pool *pool, double *s, uint64_t *h,
                     int64_t *n, int *c)
{
    cuplas_h5grid g;
    cuplas_ply p;
    cuplas_error e;
    char msg[1200];
    int in_raw, rc;

    cuplas_error_clear(&e);
    double t = cuplas_now_s();
    rc = cuplas_scene_read(path, &g, &p, NULL, &in_raw, pool, &e);
    *s = cuplas_now_s() - t;
    if (rc == 0) {
        *h = fnv1a(g.raw, (size_t)(g.H * g.C) * g.elem_size);
        *n = g.H;
        *c = (int)g.C;
        cuplas_h5grid_free(&g);
    } else {
        fprintf(stderr, "scene_read: %s\n", cuplas_error_format(&e, msg, sizeof msg));
    }
    cuplas_ply_close(&p);
    return rc;
}

int main(int argc, char **argv)
{
    int threads = argc > 2 ? atoi(argv[2]) : 0, repeats = argc > 3 ? atoi(argv[3]) : 5;
    int use_pool = argc > 4 && !strcmp(argv[4], "--pool"), c = 0, rc = 0;
    cuplas_pool *pool = NULL;
    cuplas_error e;
    double s[MAX_REPEATS], warm;
    uint64_t h = 0;
    int64_t n = 0;

    if (argc < 3 || argc > 5 || threads < 1 || repeats < 1 || repeats > MAX_REPEATS ||
        (argc == 5 && !use_pool)) {
        fprintf(stderr, "usage: scene_read SCENE THREADS [REPEATS (1-%d)] [--pool]\n",
                MAX_REPEATS);
        return 2;
    }
    if (use_pool && cuplas_pool_create(threads, &pool, &e) != 0) {
        fprintf(stderr, "scene_read: %s\n", e.msg);
        return 1;
    }
    cuplas_set_threads(use_pool ? 1 : threads);
    /* the warm-up read puts the file in the page cache */
    rc = read_once(argv[1], pool, &warm, &h, &n, &c);
    for (int r = 0; r < repeats && rc == 0; r++) {
        uint64_t hr = 0;
        rc = read_once(argv[1], pool, &s[r], &hr, &n, &c);
        if (rc == 0 && hr != h) {
            fprintf(stderr, "scene_read: repeat %d hashed %016llx, not %016llx\n", r,
                    (unsigned long long)hr, (unsigned long long)h);
            rc = 1;
        }
        if (rc == 0)
            printf("repeat %d: %.4f s\n", r, s[r]);
    }
    if (rc == 0) {
        qsort(s, (size_t)repeats, sizeof *s, cmp_double);
        printf("%s: %lld rows x %d, %d %s thread%s: median %.4f s (min %.4f, max %.4f), "
               "fnv1a %016llx\n", argv[1], (long long)n, c, threads, use_pool ? "pool" : "OpenMP",
               threads == 1 ? "" : "s", s[repeats / 2], s[0], s[repeats - 1],
               (unsigned long long)h);
    }
    cuplas_pool_free(pool);
    return rc ? 1 : 0;
}
