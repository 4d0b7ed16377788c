/*
 * bench_presets.c - quality against work of the CPU sorter, for the preset
 * ablation (bench/presets_sweep.sh, bench/results/2026-11-23-cpu-presets).
 *
 *   bench_presets [--seeds A-B] [--label TEXT] [--set key=value]... CASE...
 *   CASE = colors:N | colors:HxW | normal:HxWxC   (cuplas gen data, seed 1337)
 *        | FILE.h5:/dataset                         (e.g. the peers' colors_256)
 *        | png:FILE                                 (8-bit RGB, e.g. the 32x32
 *                                                     colors_1024_random.png)
 *
 * Per case, one CPU sort per seed (sort.seed = A..B, default 1..1) with the
 * config's sort.* keys (--set goes through the config loader, so
 * sort.preset and the explicit-key rule work as in `cuplas sort`). Prints
 * one JSON object per case: mean AND, mean DPQ16 (grids of at most 4096
 * cells: DPQ is O(N^2 log N)), the median CPU time of a sort (process
 * CPU time: all threads) and wall time, and the mean
 * levels / configurations / passes. Passes are the GPU-time proxy: the GPU
 * runs one kernel pass per CPU pass, and its time per pass at a given grid
 * is about constant (README "Performance"). The index is bit-identical to
 * the GPU's, so AND and DPQ here are exactly the GPU's.
 *
 * Why a separate program from bench_sort: the ablation wants several
 * seeds, DPQ, and PNG inputs; bench_sort times one seed on the GPU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "core/metrics.h"
#include "eval/codec.h"
#include "eval/quality.h"
#include "io/dtype.h"
#include "io/h5_gen.h"
#include "io/h5_read.h"
#include "sort/sort.h"
#include "bench_cases.h"

/* Process CPU time: on a shared machine it counts this sort's work, not
 * the other processes' (run with OMP_NUM_THREADS=1 to read it as work). */
int main(int argc, char **argv)
{
    int a = 1;
    bench_opts o = BENCH_OPTS_INIT;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (!bench_common_opt(argc, argv, &a, &o)) {
            fprintf(stderr, "usage: bench_presets [--seeds A-B] [--label TEXT] "
                    "[--set key=value]... CASE...\n");
            return 2;
        }
    }
    cuplas_config cfg;
    cuplas_error err = {0};
    if (bench_load_config(&o, &cfg))
        return 2;
    int nseeds = (int)(o.s1 - o.s0 + 1);
    if (nseeds < 1) {
        fprintf(stderr, "--seeds: empty range\n");
        return 2;
    }
    for (; a < argc; a++) {
        int64_t H, W;
        int C;
        double *x = load_case(argv[a], &H, &W, &C);
        if (!x) {
            fprintf(stderr, "bad case %s\n", argv[a]);
            return 2;
        }
        int64_t N = H * W;
        int64_t *index = malloc((size_t)N * sizeof *index);
        double *g = malloc((size_t)(N * C) * sizeof *g), *ms = malloc((size_t)nseeds * sizeof *ms);
        double *wall = malloc((size_t)nseeds * sizeof *wall);
        double and_sum = 0, dpq_sum = 0, and_min = INFINITY, and_max = -INFINITY;
        double levels = 0, configs = 0, passes = 0;
        int have_dpq = N <= CUPLAS_DPQ_MAX_N;
        char dpqs[1024] = "";
        for (int k = 0; k < nseeds; k++) {
            cuplas_sort_params p = cfg.sort;
            cuplas_sort_stats st;
            p.seed = (uint64_t)(o.s0 + k);
            cuplas_sort_params_for_grid(&p, C, H * W);   /* as the pipeline */
            double t0 = now_ms(), c0 = cpu_now_ms();
            if (cuplas_sort_features(x, H, W, C, &p, NULL, index, &st, &err)) {
                fprintf(stderr, "%s: %s\n", argv[a], err.msg);
                return 1;
            }
            ms[k] = cpu_now_ms() - c0;
            wall[k] = now_ms() - t0;
            double and = cuplas_and(x, H, W, C, index, NULL);
            and_sum += and;
            and_min = and < and_min ? and : and_min;
            and_max = and > and_max ? and : and_max;
            levels += st.levels, configs += (double)st.configs, passes += (double)st.passes;
            if (have_dpq) {
                double d;
                for (int64_t i = 0; i < N; i++)
                    memcpy(g + i * C, x + index[i] * C, (size_t)C * sizeof *g);
                if (cuplas_eval_dpq(g, H, W, C, NULL, CUPLAS_DPQ_P, 0, NULL, &d, &err)) {
                    fprintf(stderr, "%s\n", err.msg);
                    return 1;
                }
                dpq_sum += d;
                size_t len = strlen(dpqs);
                snprintf(dpqs + len, sizeof dpqs - len, "%s%.4f", k ? "," : "", d);
            }
        }
        qsort(ms, (size_t)nseeds, sizeof *ms, cmp_double);
        qsort(wall, (size_t)nseeds, sizeof *wall, cmp_double);
        printf("{\"label\":\"%s\",\"case\":\"%s\",\"H\":%lld,\"W\":%lld,\"C\":%d,\"sets\":\"%s\","
               "\"seeds\":\"%lld-%lld\",\"and\":%.4f,\"and_min\":%.4f,\"and_max\":%.4f,",
               o.label, argv[a], (long long)H, (long long)W, C, o.setstr, o.s0, o.s1,
               and_sum / nseeds, and_min, and_max);
        if (have_dpq)
            printf("\"dpq16\":%.4f,\"dpq16_seeds\":[%s],", dpq_sum / nseeds, dpqs);
        printf("\"cpu_ms\":%.1f,\"wall_ms\":%.1f,\"levels\":%.1f,\"configs\":%.1f,\"passes\":%.1f}\n",
               ms[nseeds / 2], wall[nseeds / 2], levels / nseeds, configs / nseeds, passes / nseeds);
        fflush(stdout);
        free(x), free(index), free(g), free(ms), free(wall);
    }
    cuplas_config_free(&cfg);
    return 0;
}
