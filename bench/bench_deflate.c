/*
 * bench_deflate.c - output size and encode time per deflate level, with
 * cuplas's encoder (libdeflate) and with zlib's compress2 for reference.
 *
 *   bench_deflate [--rounds R] [--threads T] [--levels A-B]
 *                 INPUT.h5 DATASET [SORTED.h5]
 *
 * Encodes INPUT's grid as a result would be stored: shuffle + deflate,
 * ~1 MiB chunks, one `sorted` and one `index` dataset. The index is the
 * `index` dataset of SORTED.h5 (a cuplas output of this input: the real
 * sorted result) or, without it, a fixed pseudo-random permutation (data
 * in no order: the worst case). Each level runs R rounds on T threads (1
 * and all cores in the reproduction script); prints one JSON line per
 * level and encoder with the median encode time and the stored bytes.
 *
 * Why a separate tool: the encode is one phase of a job's write, and the
 * level's choice turns on its time against the bytes it saves; the zlib
 * rows show what the encoder change bought (the chunks, shuffle and level
 * are the same, only the deflate implementation differs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "io/codec.h"
#include "io/h5_lib.h"
#include "io/h5_read.h"
#include "util/clock.h"

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The permutation: SORTED's index, or a fixed random one (splitmix64). */
static int64_t *load_index(const char *sorted, int64_t N, cuplas_error *err)
{
    int64_t *ix = malloc((size_t)N * sizeof *ix);
    if (!ix)
        return NULL;
    if (!sorted) {
        uint64_t s = 12345;
        for (int64_t i = 0; i < N; i++)
            ix[i] = i;
        for (int64_t i = N - 1; i > 0; i--) {
            uint64_t z = (s += 0x9e3779b97f4a7c15ull);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            z ^= z >> 31;
            int64_t j = (int64_t)(z % (uint64_t)(i + 1)), t = ix[i];
            ix[i] = ix[j];
            ix[j] = t;
        }
        return ix;
    }
    cuplas_h5grid g;   /* (H, W) int32 read as a flat (H, W) table */
    if (cuplas_h5_read_grid(sorted, "/grid/index", 0, 0, &g, err) != 0 &&
        cuplas_h5_read_grid(sorted, "/index", 0, 0, &g, err) != 0) {
        free(ix);
        return NULL;
    }
    if (g.H * g.W * g.C != N || g.elem_size != 4) {
        fprintf(stderr, "bench_deflate: %s: index has %lld cells, not %lld int32\n", sorted,
                (long long)(g.H * g.W * g.C), (long long)N);
        exit(2);
    }
    for (int64_t i = 0; i < N; i++)
        ix[i] = ((const int32_t *)g.raw)[i];
    cuplas_h5grid_free(&g);
    return ix;
}

/* zlib reference: the same chunks (gathered by a level-0 encode, shuffled
 * here as the filter would) through compress2. Returns stored bytes. */
static size_t zlib_encode(const cuplas_h5_encoded *raw, int level)
{
    size_t total = 0;
    int64_t n = 2 * (int64_t)raw->nchunks;

    #pragma omp parallel for schedule(dynamic, 1) reduction(+ : total)
    for (int64_t j = 0; j < n; j++) {
        int which = j >= (int64_t)raw->nchunks;
        const cuplas_h5_chunk *c = which ? &raw->index[j - (int64_t)raw->nchunks] : &raw->sorted[j];
        size_t es = which ? 4 : raw->elem_size, m = c->size / es;
        unsigned char *sh = malloc(c->size);
        uLongf bound = compressBound((uLong)c->size);
        unsigned char *out = malloc(bound);
        for (size_t i = 0; i < m; i++)
            for (size_t k = 0; k < es; k++)
                sh[k * m + i] = c->data[i * es + k];
        if (es == 1 || m <= 1)
            memcpy(sh, c->data, c->size);
        if (compress2(out, &bound, sh, (uLong)c->size, level) != Z_OK)
            abort();
        total += bound;
        free(sh);
        free(out);
    }
    return total;
}

int main(int argc, char **argv)
{
    int rounds = 3, threads = 0, lo = 1, hi = 9, a = 1;
    cuplas_error err;
    cuplas_h5grid g;

    for (; a < argc && argv[a][0] == '-' && argv[a][1] == '-'; a += 2) {
        if (a + 1 >= argc)
            break;
        if (!strcmp(argv[a], "--rounds"))
            rounds = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--threads"))
            threads = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--levels"))
            sscanf(argv[a + 1], "%d-%d", &lo, &hi);
    }
    if (argc - a < 2 || rounds < 1) {
        fprintf(stderr, "usage: bench_deflate [--rounds R] [--threads T] [--levels A-B] "
                        "INPUT.h5 DATASET [SORTED.h5]\n");
        return 2;
    }
#ifdef _OPENMP
    if (threads > 0)
        omp_set_num_threads(threads);
    threads = omp_get_max_threads();
#else
    threads = 1;
#endif
    cuplas_h5_quiet();
    cuplas_error_clear(&err);
    if (cuplas_h5_read_grid(argv[a], argv[a + 1], 0, 0, &g, &err) != 0) {
        fprintf(stderr, "bench_deflate: %s\n", err.msg);
        return 1;
    }
    int64_t N = g.H * g.W;
    int64_t *ix = load_index(argc - a > 2 ? argv[a + 2] : NULL, N, &err);
    if (!ix) {
        fprintf(stderr, "bench_deflate: cannot load the index: %s\n", err.msg);
        return 1;
    }
    size_t raw_bytes = (size_t)N * (g.elem_size * (size_t)g.C + 4);
    cuplas_output_opts o = {.shuffle = true};
    cuplas_h5_encoded *plain = NULL;
    if (cuplas_h5_encode_result(&g, ix, &o, NULL, NULL, &plain, &err) != 0) {
        fprintf(stderr, "bench_deflate: %s\n", err.msg);
        return 1;
    }
    double *t = malloc((size_t)rounds * sizeof *t);
    for (int level = lo; level <= hi; level++)
        for (int enc = 0; enc < 2; enc++) {
            size_t bytes = 0;
            for (int r = 0; r < rounds; r++) {
                double t0 = cuplas_now_s();
                if (enc == 0) {
                    cuplas_h5_encoded *e = NULL;
                    o.deflate = level;
                    if (cuplas_h5_encode_result(&g, ix, &o, NULL, NULL, &e, &err) != 0) {
                        fprintf(stderr, "bench_deflate: %s\n", err.msg);
                        return 1;
                    }
                    bytes = cuplas_h5_encoded_bytes(e);
                    t[r] = cuplas_now_s() - t0;
                    cuplas_h5_encoded_free(e);
                } else {
                    bytes = zlib_encode(plain, level);
                    t[r] = cuplas_now_s() - t0;
                }
            }
            qsort(t, (size_t)rounds, sizeof *t, cmp_d);
            printf("{\"input\":\"%s\",\"dtype\":\"%s\",\"shape\":[%lld,%lld,%lld],"
                   "\"order\":\"%s\",\"encoder\":\"%s\",\"level\":%d,\"threads\":%d,"
                   "\"rounds\":%d,\"encode_ms\":%.1f,\"bytes\":%zu,\"raw_bytes\":%zu,"
                   "\"ratio\":%.4f,\"mib_per_s\":%.1f}\n",
                   argv[a], g.dtype, (long long)g.H, (long long)g.W, (long long)g.C,
                   argc - a > 2 ? "sorted" : "random", enc ? "zlib" : "libdeflate", level,
                   threads, rounds, 1e3 * t[rounds / 2], bytes, raw_bytes,
                   (double)bytes / (double)raw_bytes, raw_bytes / 1048576.0 / t[rounds / 2]);
            fflush(stdout);
        }
    free(t);
    free(ix);
    cuplas_h5_encoded_free(plain);
    cuplas_h5grid_free(&g);
    return 0;
}
