/*
 * sort_cpu.c - CPU reference of the CUPLAS sort, parallel with OpenMP
 * (GPU twin: cuda/sort_gpu.cu).
 *
 *   shuffle -> for each level: target = blur(q), assign level -> index
 *
 * Per level: target = iterated box blur of the grid (blur_cpu.c); then
 * block configurations, each with a fresh torus shift, each running solve
 * passes with fresh random groups of 4 until the relative gain of a pass
 * drops below improvement_break (assign_cpu.c, core/level.h). Then,
 * with sort.polish, the AND polish (polish_cpu.c). Nothing here depends
 * on the number of threads.
 */
#include "cpu/sort_cpu.h"

#include <stdlib.h>
#include <string.h>

#include "cpu/assign_cpu.h"
#include "cpu/blur_cpu.h"
#include "cpu/polish_cpu.h"
#include "cpu/shuffle_cpu.h"

int cuplas_sort_cpu(const cuplas_qgrid *g, const cuplas_sort_params *p,
                    const cuplas_schedule *s, int64_t *index,
                    const volatile int *cancel, cuplas_sort_stats *st,
                    cuplas_error *err)
{
    int rc = 0;
    const int64_t N = g->H * g->W;
    int16_t *q = NULL, *t = NULL;
    memset(st, 0, sizeof *st);
    if (g->Cp > CUPLAS_CPU_MAX_CP)
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "%d channels: the CPU sorter takes at most %d", g->C,
                    CUPLAS_CPU_MAX_CP);
    if (N > (int64_t)UINT32_MAX / 2)
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "%lld cells: at most 2^31-1 are supported", (long long)N);
    q = malloc((size_t)N * g->Cp * sizeof *q);
    t = malloc((size_t)N * g->Cp * sizeof *t);
    if (!q || !t)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for a %lldx%lld grid", (long long)g->H, (long long)g->W);
    cuplas_shuffle_cpu(q, index, g->q, N, g->Cp, p->seed, p->shuffle);
    for (int L = 0; L < s->nlevels; L++) {
        if (cancel && *cancel)
            CUPLAS_FAIL(err, CUPLAS_ERR_INTERRUPTED, "interrupted at level %d of %d", L, s->nlevels);
        const cuplas_level *lv = &s->levels[L];
        CUPLAS_TRY(cuplas_blur_cpu(q, t, g->H, g->W, g->Cp, lv->rx, lv->ry,
                                   p->blur_passes, p->border_x, p->border_y, err));
        cuplas_level_params a = cuplas_level_params_make(p, lv, g->H, g->W, L);
        if (cuplas_assign_level_cpu(q, index, t, g->Cp, &a, st) != 0)
            CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for level %d's pass tables", L);
        st->levels++;
    }
    if (p->polish > 0)
        st->polish_moves = cuplas_polish_cpu(q, index, g->H, g->W, g->Cp, p->polish,
                                             p->polish_cells);
fail:
    free(q);
    free(t);
    return rc;
}
