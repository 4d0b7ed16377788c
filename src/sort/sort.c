/*
 * sort.c - backend dispatch, and exact solutions for grids of < 4 cells.
 */
#include "cuplas_build.h"
#include "sort/sort.h"

#include <math.h>
#include <string.h>

#include "core/quantize.h"
#include "core/schedule.h"
#include "cpu/sort_cpu.h"
#ifdef HAVE_CUDA
#include "cuda/sort_gpu.h"
#endif

static double path_length(const double *x, int C, const int *order, int n)
{
    double s = 0;
    for (int i = 0; i + 1 < n; i++) {
        double d2 = 0;
        for (int c = 0; c < C; c++) {
            double d = x[order[i] * C + c] - x[order[i + 1] * C + c];
            d2 += d * d;
        }
        s += sqrt(d2);
    }
    return s;
}

/* A 1 x n line with n <= 3: try all orders, keep the first shortest. */
static void sort_tiny(const double *x, int n, int C, int64_t *index)
{
    static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                     {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int best = -1;
    double best_len = 0;
    for (int k = 0; k < 6; k++) {
        int ok = 1;
        for (int i = 0; i < n; i++)
            ok &= orders[k][i] < n;
        if (!ok)
            continue;
        double len = path_length(x, C, orders[k], n);
        if (best < 0 || len < best_len) {
            best = k;
            best_len = len;
        }
    }
    for (int i = 0; i < n; i++)
        index[i] = orders[best][i];
}

int cuplas_sort_features(const double *x, int64_t H, int64_t W, int C,
                         const cuplas_sort_params *p,
                         const cuplas_sort_target *target, int64_t *index,
                         cuplas_sort_stats *st, cuplas_error *err)
{
    int rc = 0;
    cuplas_qgrid g = {0};
    cuplas_schedule s = {0};
    memset(st, 0, sizeof *st);
    if (p->group_size != 0 && p->group_size != 4 && p->group_size != 8 && p->group_size != 16)
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "sort.group_size %d: 4, 8 or 16", p->group_size);
    if (H * W < 4) {
        sort_tiny(x, (int)(H * W), C, index);
        return 0;
    }
    int16_t *staging = NULL;
#ifdef HAVE_CUDA
    /* quantise straight into the GPU's pinned upload buffer */
    if (target && target->gpu &&
        !(staging = cuplas_gpu_staging(target->gpu, H * W * cuplas_padded_channels(C))))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "cannot allocate pinned host memory for a %lldx%lld grid",
                    (long long)H, (long long)W);
#endif
    CUPLAS_TRY(cuplas_qgrid_build(x, H, W, C, staging, target ? target->pool : NULL, &g, err));
    CUPLAS_TRY(cuplas_schedule_build(H, W, p, &s, err));
    if (target && target->levels_total)
        *target->levels_total = s.nlevels;
    if (target && target->gpu) {
#ifdef HAVE_CUDA
        CUPLAS_TRY(cuplas_sort_gpu(target->gpu, &g, p, &s, index, target->cancel, st, err));
#else
        CUPLAS_FAIL(err, CUPLAS_ERR_NODEVICE, "this cuplas was built without CUDA");
#endif
    } else {
        CUPLAS_TRY(cuplas_sort_cpu(&g, p, &s, index, target ? target->cancel : NULL, st, err));
    }
fail:
    cuplas_qgrid_free(&g);
    cuplas_schedule_free(&s);
    return rc;
}
