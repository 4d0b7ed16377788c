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

/* Process CPU time: on a shared machine it counts this sort's work, not
 * the other processes' (run with OMP_NUM_THREADS=1 to read it as work). */
static double cpu_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double *load_png(const char *path, int64_t *H, int64_t *W, int *C)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 20, n = 0;
    uint8_t *data = malloc(cap);
    size_t got;
    while (data && (got = fread(data + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            data = realloc(data, cap *= 2);
    }
    fclose(f);
    cuplas_eval_image im;
    cuplas_error err = {0};
    if (!data || cuplas_image_decode(CUPLAS_CODEC_PNG, data, n, 3, &im, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        free(data);
        return NULL;
    }
    free(data);
    double *x = malloc((size_t)(im.H * im.W * 3) * sizeof *x);
    for (int64_t i = 0; x && i < im.H * im.W * 3; i++)
        x[i] = im.px[i];
    *H = im.H, *W = im.W, *C = 3;
    free(im.px);
    return x;
}

/* A case as N x C doubles (the same generated data as bench_sort). */
static double *load_case(const char *spec, int64_t *H, int64_t *W, int *C)
{
    long long h = 0, w = 0, c = 3;
    if (!strncmp(spec, "png:", 4))
        return load_png(spec + 4, H, W, C);
    if (!strncmp(spec, "normal:", 7) || !strncmp(spec, "colors:", 7)) {
        int normal = spec[0] == 'n';
        if (normal ? sscanf(spec + 7, "%lldx%lldx%lld", &h, &w, &c) != 3
                   : sscanf(spec + 7, "%lldx%lld", &h, &w) < 1)
            return NULL;
        if (!normal && !strchr(spec + 7, 'x'))
            w = h;
        cuplas_gen_opts o;
        cuplas_gen_defaults(&o);
        o.kind = normal ? CUPLAS_GEN_NORMAL : CUPLAS_GEN_COLORS;
        o.H = h, o.W = w, o.C = c, o.seed = 1337;
        size_t es = cuplas_gen_elem_size(&o);
        unsigned char *raw = malloc((size_t)(h * w * c) * es);
        double *x = malloc((size_t)(h * w * c) * sizeof *x);
        cuplas_gen_fill(&o, 0, 0, h * w, raw);
        for (int64_t i = 0; i < h * w * c; i++)
            x[i] = normal ? ((float *)raw)[i] : raw[i];
        free(raw);
        *H = h, *W = w, *C = (int)c;
        return x;
    }
    char file[1024];
    const char *colon = strrchr(spec, ':');
    if (!colon || colon - spec >= (long)sizeof file)
        return NULL;
    memcpy(file, spec, (size_t)(colon - spec));
    file[colon - spec] = 0;
    cuplas_h5grid g = {0};
    cuplas_error err = {0};
    if (cuplas_h5_read_grid(file, colon + 1, 0, 0, &g, &err)) {
        fprintf(stderr, "%s: %s\n", spec, err.msg);
        return NULL;
    }
    int *use = malloc((size_t)g.C * sizeof *use);
    for (int i = 0; i < g.C; i++)
        use[i] = i;
    double *x = malloc((size_t)(g.H * g.W * g.C) * sizeof *x);
    cuplas_h5grid_to_double(&g, use, (int)g.C, x, NULL, &err);
    *H = g.H, *W = g.W, *C = (int)g.C;
    free(use);
    cuplas_h5grid_free(&g);
    return x;
}

int main(int argc, char **argv)
{
    int nsets = 0, a = 1;
    long long s0 = 1, s1 = 1;
    const char *sets[64] = {0}, *label = "";
    char setstr[2048] = "";
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (!strcmp(argv[a], "--seeds") && a + 1 < argc) {
            if (sscanf(argv[++a], "%lld-%lld", &s0, &s1) < 2)
                s1 = s0;
        } else if (!strcmp(argv[a], "--label") && a + 1 < argc) {
            label = argv[++a];
        } else if (!strcmp(argv[a], "--set") && a + 1 < argc && nsets < 64) {
            sets[nsets++] = argv[++a];
            size_t len = strlen(setstr);
            snprintf(setstr + len, sizeof setstr - len, "%s%s", len ? " " : "", argv[a]);
        } else {
            fprintf(stderr, "usage: bench_presets [--seeds A-B] [--label TEXT] "
                    "[--set key=value]... CASE...\n");
            return 2;
        }
    }
    cuplas_config cfg;
    cuplas_error err = {0};
    if (cuplas_config_load(&cfg, NULL, sets, nsets, &err)) {
        fprintf(stderr, "%s: %s\n", err.where, err.msg);
        return 2;
    }
    int nseeds = (int)(s1 - s0 + 1);
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
            p.seed = (uint64_t)(s0 + k);
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
                if (cuplas_eval_dpq(g, H, W, C, NULL, CUPLAS_DPQ_P, 0, &d, &err)) {
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
               label, argv[a], (long long)H, (long long)W, C, setstr, s0, s1,
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
