/*
 * bench_sort.c - time and quality of whole sorts, GPU or CPU, as JSON.
 *
 *   bench_sort [--cpu] [--runs N] [--set key=value]... CASE...
 *   bench_sort --throughput M [--lanes K] [--gpus G] [--interleave] [--set ...] CASE
 *       pure-sort throughput: M sorts of CASE spread over K lanes (host
 *       threads, each with its own GPU context and stream) on each of G
 *       GPUs, features already quantised in pinned memory: no HDF5, no
 *       conversion. grids/s = M / wall. The reference for the pipeline.
 *       The lanes of a device share its sort order (cuplas_gpu_order), as
 *       in the pipeline; --interleave leaves it out (the A/B of that
 *       policy: sorts of one device interleave level by level).
 *   CASE = FILE.h5:/dataset            (e.g. the peers' colors_1024)
 *        | normal:HxWxC | colors:HxW   (cuplas gen data, seed 1337)
 *        | png:FILE                      (bench_cases.h: the one CASE parser)
 *
 * Method: one warm-up sort per case, then N timed sorts (default 5); the
 * median is reported. "device_ms" is CUDA-event time from the shuffle to
 * the end of the sort graph; "wall_ms" adds quantisation, the schedule and
 * the host<->device copies. Each run is checked to be a permutation and
 * identical to the first (determinism). One JSON object per line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuplas_build.h"
#include "config/config.h"
#include "io/h5_gen.h"
#include "io/dtype.h"
#include "io/h5_lib.h"
#include "io/h5_read.h"
#include "core/metrics.h"
#include "core/quantize.h"
#include "sort/sort.h"
#ifdef HAVE_CUDA
#include "cuda/sort_gpu.h"
#endif
#include "core/schedule.h"
#include "bench_cases.h"
#ifdef _OPENMP
#include <omp.h>
#endif


#ifdef HAVE_CUDA
/* M sorts of one grid over gpus x lanes contexts; returns grids/s. */
static double throughput(const double *x, int64_t H, int64_t W, int C,
                         const cuplas_sort_params *p, int M, int lanes, int gpus,
                         int interleave)
{
    int K = lanes * gpus, next = 0, failed = 0;
    cuplas_schedule s;
    cuplas_error err = {0};
    if (cuplas_schedule_build(H, W, p, &s, &err))
        return -1;
    double t0 = 0;
    cuplas_gpu_order *order[64] = {0};   /* as the pipeline: one per device */
    for (int d = 0; d < gpus && d < 64 && !interleave; d++)
        cuplas_gpu_order_create(&order[d], d, &err);
    omp_set_max_active_levels(2);
    #pragma omp parallel num_threads(K)
    {
        cuplas_gpu_ctx *ctx = NULL;
        cuplas_error e = {0};
        cuplas_qgrid g = {0};
        cuplas_sort_stats st;
        int64_t *index = malloc((size_t)(H * W) * sizeof *index);
        int me = omp_get_thread_num();
        if (cuplas_gpu_ctx_init(&ctx, me / lanes, &e) == 0)
            cuplas_gpu_ctx_set_order(ctx, me / lanes < 64 ? order[me / lanes] : NULL);
        if (!ctx ||
            cuplas_qgrid_build(x, H, W, C, cuplas_gpu_staging(ctx, H * W * cuplas_padded_channels(C)), NULL, &g, &e) ||
            cuplas_sort_gpu(ctx, &g, p, &s, index, NULL, &st, &e)) /* warm-up */
            failed = 1;
        #pragma omp barrier
        #pragma omp single
        t0 = now_ms();
        for (;;) {
            int k;
            #pragma omp atomic capture
            k = next++;
            if (k >= M || failed)
                break;
            if (cuplas_sort_gpu(ctx, &g, p, &s, index, NULL, &st, &e)) {
                fprintf(stderr, "%s\n", e.msg);
                failed = 1;
            }
        }
        #pragma omp barrier
        free(index);
        cuplas_gpu_ctx_free(ctx);
    }
    double wall = now_ms() - t0;
    for (int d = 0; d < gpus && d < 64; d++)
        cuplas_gpu_order_free(order[d]);
    cuplas_schedule_free(&s);
    return failed ? -1 : M / (wall / 1e3);
}
#endif

int main(int argc, char **argv)
{
    int runs = 5, use_cpu = 0, nsets = 0, repeat = 0, lanes = 1, gpus = 1, interleave = 0;
    const char *sets[64] = {0};
    cuplas_config cfg;
    cuplas_error err = {0};
    cuplas_sort_target target = {.gpu = NULL};
    char device[256] = "cpu", solve[16] = "cpu";
    int a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (!strcmp(argv[a], "--cpu"))
            use_cpu = 1;
        else if (!strcmp(argv[a], "--runs") && a + 1 < argc)
            runs = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--set") && a + 1 < argc && nsets < 64)
            sets[nsets++] = argv[++a];
        else if (!strcmp(argv[a], "--throughput") && a + 1 < argc)
            repeat = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--lanes") && a + 1 < argc)
            lanes = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--gpus") && a + 1 < argc)
            gpus = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--interleave"))
            interleave = 1;
    }
    if (cuplas_config_load(&cfg, NULL, sets, nsets, &err)) {
        fprintf(stderr, "%s: %s\n", err.where, err.msg);
        return 2;
    }
#ifndef HAVE_CUDA
    (void)use_cpu, (void)repeat, (void)lanes, (void)gpus, (void)interleave; /* CPU-only build */
#else
    if (repeat > 0) {
        int64_t H, W;
        int C;
        double *x = a < argc ? load_case(argv[a], &H, &W, &C) : NULL;
        if (!x)
            return 2;
        cuplas_sort_params sp = cfg.sort;   /* as the pipeline: wide grids may differ */
        cuplas_sort_params_for_grid(&sp, C, H * W);
        double gps = throughput(x, H, W, C, &sp, repeat, lanes, gpus, interleave);
        printf("{\"case\":\"%s\",\"mode\":\"pure_sort\",\"grids\":%d,\"lanes\":%d,"
               "\"gpus\":%d,\"order\":\"%s\",\"grids_per_s\":%.3f}\n", argv[a], repeat, lanes,
               gpus, interleave ? "interleaved" : "ordered", gps);
        free(x);
        cuplas_config_free(&cfg);
        return gps > 0 ? 0 : 1;
    }
    cuplas_gpu_ctx *ctx = NULL;
    if (!use_cpu) {
        if (cuplas_gpu_ctx_init(&ctx, 0, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 3;
        }
        target.gpu = ctx;
        snprintf(device, sizeof device, "%s", cuplas_gpu_name(ctx));
        /* the product's layout policy; its alternatives: bench/bench_solve.cu */
        snprintf(solve, sizeof solve, "auto");
    }
#endif
    for (; a < argc; a++) {
        int64_t H, W;
        int C;
        double *x = load_case(argv[a], &H, &W, &C);
        if (!x) {
            fprintf(stderr, "bad case %s\n", argv[a]);
            continue;
        }
        cuplas_sort_params sp = cfg.sort;   /* as the pipeline: wide grids may differ */
        cuplas_sort_params_for_grid(&sp, C, H * W);
        int64_t N = H * W, *first = malloc(N * 8), *index = malloc(N * 8);
        double *wall = malloc(runs * sizeof *wall), *dev = malloc(runs * sizeof *dev);
        cuplas_sort_stats st;
        int ok = cuplas_sort_features(x, H, W, C, &sp, &target, first, &st, &err) == 0;
        for (int r = 0; ok && r < runs; r++) {
            double t0 = now_ms();
            ok = cuplas_sort_features(x, H, W, C, &sp, &target, index, &st, &err) == 0;
            wall[r] = now_ms() - t0;
            dev[r] = st.device_ms;
            ok = ok && memcmp(first, index, N * 8) == 0;
        }
        if (!ok) {
            printf("{\"case\":\"%s\",\"error\":\"%s\"}\n", argv[a], err.msg[0] ? err.msg : "runs differ");
        } else {
            qsort(wall, runs, sizeof *wall, cmp_double);
            qsort(dev, runs, sizeof *dev, cmp_double);
            double bpc = 0;
            /* bandwidth floor (bench/RESULTS.md): per pass each cell's value,
             * target and index in, value and index out; per level one blur
             * read and one target write */
            int Cp = cuplas_padded_channels(C);
            double floor_b = (double)st.passes * N * (6.0 * Cp + 8) + (double)st.levels * N * 4.0 * Cp;
#ifdef HAVE_CUDA
            if (target.gpu)
                bpc = (double)cuplas_sort_gpu_bytes(H, W, Cp) / N;
#endif
            printf("{\"case\":\"%s\",\"H\":%lld,\"W\":%lld,\"C\":%d,\"device\":\"%s\","
                   "\"solve\":\"%s\",\"group\":%d,\"runs\":%d,"
                   "\"wall_ms\":%.3f,\"device_ms\":%.3f,\"and_before\":%.4f,\"and_after\":%.4f,"
                   "\"levels\":%d,\"configs\":%lld,\"passes\":%lld,\"bytes_per_cell\":%.1f,"
                   "\"half_cuplas_bytes_per_cell\":%d,\"floor_bytes\":%.0f,\"floor_tb_per_s\":%.3f}\n",
                   argv[a], (long long)H, (long long)W, C, device, solve, sp.group_size, runs, wall[runs / 2],
                   dev[runs / 2], cuplas_and(x, H, W, C, NULL, NULL), cuplas_and(x, H, W, C, first, NULL),
                   st.levels, (long long)st.configs, (long long)st.passes, bpc, (36 * C + 20) / 2,
                   floor_b, dev[runs / 2] > 0 ? floor_b / (dev[runs / 2] * 1e9) : 0.0);
        }
        fflush(stdout);
        free(x); free(first); free(index); free(wall); free(dev);
    }
#ifdef HAVE_CUDA
    cuplas_gpu_ctx_free(ctx);
#endif
    cuplas_config_free(&cfg);
    return 0;
}
