/*
 * scene_eval.c - the quality side of bench/scene_bench.sh: the AND of a
 * scene's 9 SOG channels (x,y,z; f_dc_0-2; exp(scale_0-2); each group
 * standardised as one, as configs/sog.yaml) laid out in file order, in a
 * Morton order of x,y,z, and in the grid of a cuplas result, on that
 * result's H x W with its empty cells left out of the AND.
 *
 * Usage: scene_eval SCENE RESULT.h5  (prints one line per order)
 * Reads the scene with io/scene.c and the result's index with io/h5_read.c
 * (a one-thread tool, so HDF5 calls need no HDF5 thread).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/transform.h"
#include "eval/orders.h"
#include "eval/quality.h"
#include "io/h5_lib.h"
#include "io/h5_read.h"
#include "io/scene.h"
#include "util/clock.h"

static double and_of(const double *x, int C, const int64_t *order, int64_t H, int64_t W)
{
    double *grid = malloc((size_t)(H * W) * (size_t)C * sizeof *grid);
    uint8_t *empty = malloc((size_t)(H * W));
    if (!grid || !empty)
        exit(3);
    cuplas_eval_gather(x, C, order, H * W, grid, empty, NULL);
    double a = cuplas_eval_and(grid, H, W, C, empty);
    free(grid);
    free(empty);
    return a;
}

int main(int argc, char **argv)
{
    static const char *const want[9] = {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2",
                                        "scale_0", "scale_1", "scale_2"};
    cuplas_h5grid g, ix;
    cuplas_ply p;
    cuplas_error err;
    int rows_in_raw, use[9];

    if (argc != 3) {
        fprintf(stderr, "usage: scene_eval SCENE RESULT.h5\n");
        return 2;
    }
    cuplas_h5_quiet();
    cuplas_error_clear(&err);
    double t = cuplas_now_s();
    if (cuplas_scene_read(argv[1], &g, &p, NULL, &rows_in_raw, NULL, &err) != 0) {
        fprintf(stderr, "scene_eval: %s: %s\n", err.where, err.msg);
        return 1;
    }
    double read_s = cuplas_now_s() - t;
    int64_t N = g.H;
    for (int k = 0; k < 9; k++) {
        use[k] = -1;
        for (int c = 0; c < g.C; c++)
            if (!strcmp(g.names[c], want[k]))
                use[k] = c;
        if (use[k] < 0) {
            fprintf(stderr, "scene_eval: no %s in %s\n", want[k], argv[1]);
            return 1;
        }
    }
    double *x = malloc((size_t)N * 9 * sizeof *x);
    if (!x || cuplas_h5grid_to_double(&g, use, 9, x, NULL, &err) != 0)
        return 3;
    const unsigned char act[9] = {0, 0, 0, 0, 0, 0, CUPLAS_ACT_EXP, CUPLAS_ACT_EXP,
                                  CUPLAS_ACT_EXP};
    const int group[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    cuplas_transform tf = {act, NULL, group, CUPLAS_NORM_STANDARDIZE, NULL, NULL};
    cuplas_transform_apply(x, N, 9, &tf, NULL);

    /* the result's grid: cells hold input rows, -1 empty */
    cuplas_error_clear(&err);
    if (cuplas_h5_read_grid(argv[2], "/vertex/index", 0, 1, &ix, &err) != 0) {
        fprintf(stderr, "scene_eval: %s: %s\n", err.where, err.msg);
        return 1;
    }
    int64_t H = ix.H, W = ix.C, cells = H * W;
    int64_t *sorted = malloc((size_t)cells * sizeof *sorted);
    int64_t *file = malloc((size_t)cells * sizeof *file);
    int64_t *morton = malloc((size_t)(cells > N ? cells : N) * sizeof *morton);
    if (!sorted || !file || !morton)
        return 3;
    for (int64_t c = 0; c < cells; c++) {
        int32_t v;
        memcpy(&v, (const char *)ix.raw + 4 * c, 4);
        sorted[c] = v;
    }
    /* the same items as the result holds (a crop keeps fewer), in file
       order and in Morton order, on the same grid */
    int64_t m = 0;
    char *kept = calloc((size_t)N, 1);
    for (int64_t c = 0; c < cells; c++)
        if (sorted[c] >= 0)
            kept[sorted[c]] = 1;
    for (int64_t i = 0; i < N; i++)
        if (kept[i])
            file[m++] = i;
    for (int64_t c = m; c < cells; c++)
        file[c] = -1;
    double *xk = malloc((size_t)m * 9 * sizeof *xk);
    for (int64_t k = 0; k < m; k++)
        memcpy(xk + 9 * k, x + 9 * file[k], 9 * sizeof *xk);
    const char *used = NULL;
    if (cuplas_order_morton(xk, m, 9, want, cells, morton, &used, &err) != 0)
        return 3;
    for (int64_t c = 0; c < cells; c++)
        morton[c] = morton[c] >= 0 ? file[morton[c]] : -1;
    printf("scene %s: N = %lld, grid %lld x %lld, %lld items, read %.3f s\n", argv[1],
           (long long)N, (long long)H, (long long)W, (long long)m, read_s);
    printf("AND file order   %.4f\n", and_of(x, 9, file, H, W));
    printf("AND Morton (%s) %.4f\n", used, and_of(x, 9, morton, H, W));
    printf("AND cuplas       %.4f\n", and_of(x, 9, sorted, H, W));
    return 0;
}
