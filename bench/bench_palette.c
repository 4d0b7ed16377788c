/*
 * bench_palette.c - the SH palette's k-means (sort/palette.h) timed, on
 * synthetic SH-like coefficients (no capture here has SH bands: both are
 * .splat files).
 *
 *   bench_palette N D K ITERS DEVICE [--cpu-check]
 *
 * Data: N points of D coefficients; point i's coefficient k is
 * s_k (0.7 u(i / 64, k) + 0.3 u(i, k)), u uniform in [-1, 1] from a fixed
 * hash, s_k = 0.12, 0.06, 0.03 for the first 3, next 5 and last 7 of each
 * colour's 15 (a scene's bands shrink with degree; groups of 64 points
 * share most of their value, as neighbouring splats of one surface do).
 * Prints one JSON line: the assignment step on DEVICE (-1: the CPU) as
 * the median of 5 calls after one warm-up (a call is synchronous:
 * centroids in, kernel, labels out, timed with the monotonic clock), a
 * whole fit of ITERS updates, and with --cpu-check one CPU assignment of
 * the same centroids and whether its labels equal the device's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/kmeans_cpu.h"
#include "sort/palette.h"
#include "util/clock.h"
#include "cuplas_build.h"
#ifdef HAVE_CUDA
#include "cuda/kmeans_gpu.h"
#endif

static float u(uint64_t a, uint64_t b)
{
    uint64_t z = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)((double)(z >> 11) / 4503599627370496.0 - 1.0);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: bench_palette N D K ITERS DEVICE [--cpu-check]\n");
        return 2;
    }
    const int64_t N = atoll(argv[1]);
    const int D = atoi(argv[2]), K = atoi(argv[3]), iters = atoi(argv[4]), dev = atoi(argv[5]);
    const int check = argc > 6 && !strcmp(argv[6], "--cpu-check");
    const int coeffs = D / 3 > 0 ? D / 3 : 1;
    float *x = malloc((size_t)N * D * sizeof *x), *cen = malloc((size_t)K * D * sizeof *cen);
    int32_t *label = malloc((size_t)N * sizeof *label), *lc = malloc((size_t)N * sizeof *lc);
    cuplas_palette_stats st;
    cuplas_error err;
    double t[5], t0;

    cuplas_error_clear(&err);
    if (!x || !cen || !label || !lc)
        return 3;
    for (int64_t i = 0; i < N; i++)
        for (int k = 0; k < D; k++) {
            int j = k % coeffs;
            float s = j < 3 ? 0.12f : j < 8 ? 0.06f : 0.03f;
            float shared = u((uint64_t)i / 64, (uint64_t)k);
            float own = u((uint64_t)i + (1ull << 40), (uint64_t)k);
            x[i * D + k] = s * (0.7f * shared + 0.3f * own);
        }
    /* the assignment alone, at the fit's starting centroids */
    for (int j = 0; j < K; j++)
        memcpy(cen + (int64_t)j * D, x + (int64_t)j * N / K * D, (size_t)D * sizeof *x);
    for (int r = -1; r < 5; r++) {
        t0 = cuplas_now_s();
        if (dev < 0) {
            for (int64_t i = 0; i < N; i++)
                label[i] = -1;
            if (cuplas_kmeans_assign_cpu(x, N, D, cen, K, label, NULL, NULL))
                return 3;
        } else {
#ifdef HAVE_CUDA
            static cuplas_kmeans_gpu *g;
            if (!g && cuplas_kmeans_gpu_create(&g, dev, x, N, D, K, &err)) {
                fprintf(stderr, "%s\n", err.msg);
                return 1;
            }
            if (cuplas_kmeans_assign_gpu(g, cen, label, NULL, &err)) {
                fprintf(stderr, "%s\n", err.msg);
                return 1;
            }
#else
            fprintf(stderr, "built without CUDA\n");
            return 1;
#endif
        }
        if (r >= 0)
            t[r] = cuplas_now_s() - t0;
        if (dev < 0 && r == 0)   /* the CPU: one timed call */
            break;
    }
    int nt = dev < 0 ? 1 : 5;
    qsort(t, (size_t)nt, sizeof *t, cmp_d);
    double cpu_s = -1;
    int match = -1;
    if (check) {
        for (int64_t i = 0; i < N; i++)
            lc[i] = -1;
        t0 = cuplas_now_s();
        if (cuplas_kmeans_assign_cpu(x, N, D, cen, K, lc, NULL, NULL))
            return 3;
        cpu_s = cuplas_now_s() - t0;
        match = !memcmp(lc, label, (size_t)N * sizeof *lc);
    }
    t0 = cuplas_now_s();
    if (cuplas_palette_fit(x, N, D, K, iters, dev, cen, label, &st, NULL, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    double fit_s = cuplas_now_s() - t0;
    printf("{\"N\": %lld, \"D\": %d, \"K\": %d, \"device\": %d, \"assign_s_median\": %.4f, "
           "\"assign_runs\": %d, \"cpu_assign_s\": %.3f, \"labels_equal_cpu\": %d, "
           "\"fit_iters\": %d, \"fit_updates\": %d, \"fit_s\": %.3f, \"fit_assign_s\": %.3f, "
           "\"mse\": %.6g, \"moved_last\": %lld}\n",
           (long long)N, D, K, dev, t[nt / 2], nt, cpu_s, match, iters, st.updates, fit_s,
           st.assign_s, st.mse, (long long)st.moved);
    free(x), free(cen), free(label), free(lc);
    return 0;
}
