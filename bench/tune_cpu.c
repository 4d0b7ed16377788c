/* tune_cpu.c - quality/work of the CPU sorter on random colours (dev tool,
 * used to pick the default sort parameters; not built by make).
 *   gcc -O2 -fopenmp -I. -Isrc -Icuda bench/tune_cpu.c libcuplas.a \
 *       -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++ -lm
 *   (drop the CUDA libraries for a --without-cuda build)
 * usage: tune_cpu SIDE key=value...  keys: decay ib minblock passes minc maxc
 *        maxp lcg bx by minr seed */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/metrics.h"
#include "sort/sort.h"
#include "../tests/testutil.h"

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoll(argv[1]) : 64, N = n * n;
    cuplas_sort_params p;
    cuplas_sort_params_default(&p);
    for (int i = 2; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) continue;
        *eq = 0;
        double v = atof(eq + 1);
        if (!strcmp(argv[i], "decay")) p.radius_decay = v;
        else if (!strcmp(argv[i], "ib")) p.improvement_break = v;
        else if (!strcmp(argv[i], "minblock")) p.min_block_size = (int)v;
        else if (!strcmp(argv[i], "passes")) p.blur_passes = (int)v;
        else if (!strcmp(argv[i], "minc")) p.min_configs = (int)v;
        else if (!strcmp(argv[i], "maxc")) p.max_configs = (int)v;
        else if (!strcmp(argv[i], "maxp")) p.max_passes = (int)v;
        else if (!strcmp(argv[i], "lcg")) p.permuter = (cuplas_permuter)(int)v;
        else if (!strcmp(argv[i], "bx")) p.border_x = (cuplas_border)(int)v;
        else if (!strcmp(argv[i], "by")) p.border_y = (cuplas_border)(int)v;
        else if (!strcmp(argv[i], "minr")) p.min_blur_radius = (int)v;
        else if (!strcmp(argv[i], "seed")) p.seed = (uint64_t)v;
    }
    double *x = tu_colors(N, 3, 1337);
    int64_t *index = malloc(N * sizeof *index);
    cuplas_sort_stats st;
    cuplas_error err = {0};
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    if (cuplas_sort_features(x, n, n, 3, &p, NULL, index, &st, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("n=%lld AND %.3f -> %.3f levels %d configs %lld passes %lld %.2fs\n", (long long)n,
           cuplas_and(x, n, n, 3, NULL, NULL), cuplas_and(x, n, n, 3, index, NULL), st.levels,
           (long long)st.configs, (long long)st.passes,
           (b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec));
    return 0;
}
