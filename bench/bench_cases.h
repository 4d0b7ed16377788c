/*
 * bench_cases.h - the workshop's inputs as N x C doubles (bench_sort, bench_presets,
 * bench_groups): one definition of a CASE string, and the clocks and the
 * median's sort order those programs share, and the options of
 * bench_presets and bench_groups (bench_opts).
 *   CASE = colors:N | colors:HxW | normal:HxWxC   (cuplas gen data, seed 1337)
 *        | FILE.h5:/dataset                         (e.g. the peers' colors_256)
 *        | png:FILE                                 (8-bit RGB, e.g. the 32x32
 *                                                     colors_1024_random.png)
 * Static functions in a header: each bench program is one source file.
 */
#ifndef CUPLAS_BENCH_CASES_H
#define CUPLAS_BENCH_CASES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "eval/codec.h"
#include "io/dtype.h"
#include "io/h5_gen.h"
#include "io/h5_read.h"

/* Wall time and this process's CPU time (all threads), in ms. */
static inline double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static inline double cpu_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* qsort order of doubles (for medians). */
static inline int cmp_double(const void *a, const void *b)
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

/* The options bench_presets and bench_groups share: --seeds A-B (sort
 * seeds A..B), --label TEXT and --set key=value (config overrides, also
 * joined by spaces in setstr for the JSON line). */
typedef struct bench_opts {
    long long s0, s1;
    const char *label;
    const char *sets[64];
    int nsets;
    char setstr[2048];
} bench_opts;

#define BENCH_OPTS_INIT {1, 1, "", {0}, 0, ""}

/* If argv[*a] is one of the shared options, take it (and its value) and
 * return 1; else 0. */
static inline int bench_common_opt(int argc, char **argv, int *a, bench_opts *o)
{
    const char *arg = argv[*a];
    if (*a + 1 >= argc)
        return 0;
    if (!strcmp(arg, "--seeds")) {
        if (sscanf(argv[++*a], "%lld-%lld", &o->s0, &o->s1) < 2)
            o->s1 = o->s0;
    } else if (!strcmp(arg, "--label")) {
        o->label = argv[++*a];
    } else if (!strcmp(arg, "--set") && o->nsets < 64) {
        o->sets[o->nsets++] = argv[++*a];
        size_t len = strlen(o->setstr);
        snprintf(o->setstr + len, sizeof o->setstr - len, "%s%s", len ? " " : "", argv[*a]);
    } else {
        return 0;
    }
    return 1;
}

/* The config the --set options make (defaults otherwise); 0, or 2 with
 * the error printed. */
static inline int bench_load_config(const bench_opts *o, cuplas_config *cfg)
{
    cuplas_error err = {0};
    if (cuplas_config_load(cfg, NULL, o->sets, o->nsets, &err) == 0)
        return 0;
    fprintf(stderr, "%s: %s\n", err.where, err.msg);
    return 2;
}

#endif
