/*
 * bench_groups.c - workshop experiment for issue 16's algorithm levers
 * (bench/results/2026-11-24-cpu-groups): groups of k > 4 cells solved
 * exactly (core/lap.h), and a target recomputed at every configuration.
 *
 *   bench_groups [--seeds A-B] [--label TEXT] [--group K] [--retarget]
 *                [--set key=value]... CASE...        (CASE: bench_cases.h)
 *
 * The sort here is the library's CPU sort (cpu/sort_cpu.c) with two
 * switches, built from the library's own pieces (shuffle, blur, schedule,
 * core/level.h's control, cpu/assign_cpu.c's pass) so that everything
 * else is unchanged:
 *   --group K   sort.group_size K (4, 8, 16): a pass reads the pass
 *               permutation of a block's bh*bw offsets K at a time; a
 *               block whose size is not a multiple of K ends with one
 *               smaller group of the n % K leftover cells (a multiple of
 *               4: blocks have even sides), so every cell is in a group.
 *               Each group gets its optimal arrangement (core/lap.h),
 *               applied only when strictly cheaper than the identity.
 *               (The experiment's first version had this pass here; it
 *               moved unchanged into cpu/assign_cpu.c.)
 *   --retarget  blur the grid again at the start of every configuration
 *               after the first, not only once per level.
 * Prints bench_presets' JSON line (mean AND, DPQ16 for N <= 4096, median
 * process CPU time, passes) plus "blurs".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "core/level.h"
#include "core/metrics.h"
#include "core/quantize.h"
#include "core/schedule.h"
#include "cpu/assign_cpu.h"
#include "cpu/blur_cpu.h"
#include "cpu/shuffle_cpu.h"
#include "eval/quality.h"
#include "bench_cases.h"

static int groups_sort(const double *x, int64_t H, int64_t W, int C,
                       const cuplas_sort_params *p, int k, int retarget, int64_t *index,
                       cuplas_sort_stats *st, int64_t *blurs, cuplas_error *err)
{
    int rc = 0;
    cuplas_qgrid g = {0};
    cuplas_schedule s = {0};
    int16_t *q = NULL, *t = NULL;
    memset(st, 0, sizeof *st);
    *blurs = 0;
    CUPLAS_TRY(cuplas_qgrid_build(x, H, W, C, NULL, NULL, &g, err));
    CUPLAS_TRY(cuplas_schedule_build(H, W, p, &s, err));
    if (g.Cp > 64)
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "bench_groups takes at most 64 channels");
    const int64_t N = H * W;
    q = malloc((size_t)N * g.Cp * sizeof *q);
    t = malloc((size_t)N * g.Cp * sizeof *t);
    if (!q || !t)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    cuplas_shuffle_cpu(q, index, g.q, N, g.Cp, p->seed, p->shuffle);
    for (int L = 0; L < s.nlevels; L++) {
        const cuplas_level *lv = &s.levels[L];
        CUPLAS_TRY(cuplas_blur_cpu(q, t, H, W, g.Cp, lv->rx, lv->ry, p->blur_passes,
                                   p->border_x, p->border_y, err));
        ++*blurs;
        cuplas_level_params a = cuplas_level_params_make(p, lv, H, W, L);
        a.group = (uint32_t)k;
        cuplas_level_state ls = cuplas_level_start();
        cuplas_pass_geom geo = cuplas_level_geom(&a, ls.cfg);
        for (;;) {
            uint64_t before, after;
            cuplas_assign_pass_cpu(q, index, t, g.Cp, &geo, a.seed, a.level, ls.cfg,
                                   ls.pass, &before, &after);
            cuplas_level_next next = cuplas_level_step(&ls, before, after, &a);
            if (next == CUPLAS_LEVEL_DONE)
                break;
            if (next == CUPLAS_LEVEL_NEXT_CONFIG) {
                geo = cuplas_level_geom(&a, ls.cfg);
                if (retarget) {
                    CUPLAS_TRY(cuplas_blur_cpu(q, t, H, W, g.Cp, lv->rx, lv->ry,
                                               p->blur_passes, p->border_x, p->border_y, err));
                    ++*blurs;
                }
            }
        }
        st->passes += ls.passes;
        st->configs += ls.cfg;
        st->levels++;
    }
fail:
    free(q);
    free(t);
    cuplas_qgrid_free(&g);
    cuplas_schedule_free(&s);
    return rc;
}

int main(int argc, char **argv)
{
    int a = 1, k = 4, retarget = 0;
    bench_opts o = BENCH_OPTS_INIT;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (bench_common_opt(argc, argv, &a, &o))
            continue;
        if (!strcmp(argv[a], "--group") && a + 1 < argc) {
            k = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--retarget")) {
            retarget = 1;
        } else {
            fprintf(stderr, "usage: bench_groups [--seeds A-B] [--label TEXT] [--group K] "
                    "[--retarget] [--set key=value]... CASE...\n");
            return 2;
        }
    }
    if (k != 4 && k != 8 && k != 16) {
        fprintf(stderr, "--group: 4, 8 or 16\n");
        return 2;
    }
    cuplas_config cfg;
    cuplas_error err = {0};
    if (bench_load_config(&o, &cfg))
        return 2;
    int nseeds = (int)(o.s1 - o.s0 + 1);
    for (; a < argc; a++) {
        int64_t H, W;
        int C;
        double *x = load_case(argv[a], &H, &W, &C);
        if (!x) {
            fprintf(stderr, "bad case %s\n", argv[a]);
            return 2;
        }
        int64_t N = H * W, blurs = 0;
        int64_t *index = malloc((size_t)N * sizeof *index);
        double *g = malloc((size_t)(N * C) * sizeof *g), *ms = malloc((size_t)nseeds * sizeof *ms);
        double and_sum = 0, dpq_sum = 0, passes = 0, levels = 0, nblurs = 0;
        int have_dpq = N <= CUPLAS_DPQ_MAX_N;
        for (int s = 0; s < nseeds; s++) {
            cuplas_sort_params p = cfg.sort;
            cuplas_sort_stats st;
            p.seed = (uint64_t)(o.s0 + s);
            double c0 = cpu_now_ms();
            if (groups_sort(x, H, W, C, &p, k, retarget, index, &st, &blurs, &err)) {
                fprintf(stderr, "%s: %s\n", argv[a], err.msg);
                return 1;
            }
            ms[s] = cpu_now_ms() - c0;
            and_sum += cuplas_and(x, H, W, C, index, NULL);
            passes += (double)st.passes, levels += st.levels, nblurs += (double)blurs;
            if (have_dpq) {
                double d;
                for (int64_t i = 0; i < N; i++)
                    memcpy(g + i * C, x + index[i] * C, (size_t)C * sizeof *g);
                if (cuplas_eval_dpq(g, H, W, C, NULL, CUPLAS_DPQ_P, 0, NULL, &d, &err)) {
                    fprintf(stderr, "%s\n", err.msg);
                    return 1;
                }
                dpq_sum += d;
            }
        }
        qsort(ms, (size_t)nseeds, sizeof *ms, cmp_double);
        printf("{\"label\":\"%s\",\"case\":\"%s\",\"group\":%d,\"retarget\":%d,\"sets\":\"%s\","
               "\"seeds\":\"%lld-%lld\",\"and\":%.4f,",
               o.label, argv[a], k, retarget, o.setstr, o.s0, o.s1, and_sum / nseeds);
        if (have_dpq)
            printf("\"dpq16\":%.4f,", dpq_sum / nseeds);
        printf("\"cpu_ms\":%.1f,\"levels\":%.1f,\"passes\":%.1f,\"blurs\":%.1f}\n", ms[nseeds / 2],
               levels / nseeds, passes / nseeds, nblurs / nseeds);
        fflush(stdout);
        free(x), free(index), free(g), free(ms);
    }
    cuplas_config_free(&cfg);
    return 0;
}
