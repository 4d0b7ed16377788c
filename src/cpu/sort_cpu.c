/*
 * sort_cpu.c - CPU reference of the CUPLAS sort, parallel with OpenMP.
 *
 * Per level: target = iterated box blur of the grid (exact integer sliding
 * sums); then block configurations, each with a fresh torus shift, each
 * running solve passes with fresh random groups of 4 until the relative
 * gain of a pass drops below improvement_break. Groups are disjoint, so a
 * pass is order-free; its gain is an exact integer sum. Nothing here
 * depends on the number of threads.
 */
#include "cpu/sort_cpu.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/quad.h"
#include "core/random.h"
#include "util/threads.h"

#define MAX_CP 1024

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* Map i in [-(n-1), 2n-2] onto [0, n) for the border mode. */
static int64_t border_index(int64_t i, int64_t n, cuplas_border b)
{
    if (i >= 0 && i < n)
        return i;
    switch (b) {
    case CUPLAS_BORDER_CIRCULAR:
        return i < 0 ? i + n : i - n;
    case CUPLAS_BORDER_REFLECT:
        return i < 0 ? -i : 2 * n - 2 - i;
    case CUPLAS_BORDER_REPLICATE:
        break;
    }
    return i < 0 ? 0 : n - 1;
}

/* One box pass along x: every row slides a window of 2r+1 cells. */
static void box_x(const int16_t *in, int16_t *out, int64_t H, int64_t W, int Cp,
                  int r, cuplas_border b, int64_t *sums)
{
    const int64_t w = 2 * (int64_t)r + 1;
    #pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < H; y++) {
        int64_t *s = sums + (int64_t)thread_id() * Cp;
        const int16_t *row = in + y * W * Cp;
        int16_t *o = out + y * W * Cp;
        memset(s, 0, Cp * sizeof *s);
        for (int64_t k = -r; k <= r; k++) {
            const int16_t *v = row + border_index(k, W, b) * Cp;
            for (int c = 0; c < Cp; c++)
                s[c] += v[c];
        }
        for (int64_t x = 0; x < W; x++) {
            for (int c = 0; c < Cp; c++)
                o[x * Cp + c] = (int16_t)cuplas_div_round(s[c], w);
            if (x + 1 == W)
                break; /* x + r + 1 may lie past the reflect range */
            const int16_t *add = row + border_index(x + r + 1, W, b) * Cp;
            const int16_t *sub = row + border_index(x - r, W, b) * Cp;
            for (int c = 0; c < Cp; c++)
                s[c] += add[c] - sub[c];
        }
    }
}

/* One box pass along y, streaming rows through per-column sums. */
#define YCHUNK 64
static void box_y(const int16_t *in, int16_t *out, int64_t H, int64_t W, int Cp,
                  int r, cuplas_border b, int64_t *sums)
{
    const int64_t w = 2 * (int64_t)r + 1;
    const int64_t nchunks = (W + YCHUNK - 1) / YCHUNK;
    #pragma omp parallel for schedule(static)
    for (int64_t ch = 0; ch < nchunks; ch++) {
        int64_t x0 = ch * YCHUNK, x1 = x0 + YCHUNK < W ? x0 + YCHUNK : W;
        int64_t len = (x1 - x0) * Cp;
        int64_t *s = sums + (int64_t)thread_id() * YCHUNK * Cp;
        memset(s, 0, len * sizeof *s);
        for (int64_t k = -r; k <= r; k++) {
            const int16_t *v = in + (border_index(k, H, b) * W + x0) * Cp;
            for (int64_t i = 0; i < len; i++)
                s[i] += v[i];
        }
        for (int64_t y = 0; y < H; y++) {
            int16_t *o = out + (y * W + x0) * Cp;
            for (int64_t i = 0; i < len; i++)
                o[i] = (int16_t)cuplas_div_round(s[i], w);
            if (y + 1 == H)
                break;
            const int16_t *add = in + (border_index(y + r + 1, H, b) * W + x0) * Cp;
            const int16_t *sub = in + (border_index(y - r, H, b) * W + x0) * Cp;
            for (int64_t i = 0; i < len; i++)
                s[i] += add[i] - sub[i];
        }
    }
}

int cuplas_blur_cpu(const int16_t *q, int16_t *target, int64_t H, int64_t W,
                    int Cp, int rx, int ry, int passes, cuplas_border bx,
                    cuplas_border by, cuplas_error *err)
{
    int rc = 0;
    size_t n = (size_t)(H * W * Cp);
    int64_t *sums = malloc((size_t)cuplas_max_threads() * YCHUNK * Cp * sizeof *sums);
    int16_t *tmp = malloc(n * sizeof *tmp);
    if (!sums || !tmp)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for the blur");
    /* ping-pong so that the last pass lands in target */
    const int16_t *src = q;
    int nx = rx > 0 ? passes : 0, total = nx + (ry > 0 ? passes : 0);
    if (total == 0)
        memcpy(target, q, n * sizeof *q);
    for (int i = 0; i < total; i++) {
        int16_t *dst = ((total - i) % 2 == 1) ? target : tmp;
        if (i < nx)
            box_x(src, dst, H, W, Cp, rx, bx, sums);
        else
            box_y(src, dst, H, W, Cp, ry, by, sums);
        src = dst;
    }
fail:
    free(sums);
    free(tmp);
    return rc;
}

/* The grid cell of block offset o in block (by, bx) under the shift. */
static int64_t quad_cell(const cuplas_pass_geom *g, int64_t by, int64_t bx, uint32_t o)
{
    int64_t y = (by * g->bh + o / g->bw + g->sy) % g->H;
    int64_t x = (bx * g->bw + o % g->bw + g->sx) % g->W;
    return y * g->W + x;
}

static void quad_costs(const int16_t *q, const int16_t *t, int Cp,
                       const int64_t cell[4], uint64_t D[4][4])
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            const int16_t *a = q + cell[i] * Cp, *b = t + cell[j] * Cp;
            uint64_t s = 0;
            for (int c = 0; c < Cp; c++) {
                int32_t d = (int32_t)a[c] - b[c];
                s += (uint32_t)(d * d);
            }
            D[i][j] = s;
        }
}

static void quad_apply(int16_t *q, int64_t *idx, int Cp, const int64_t cell[4],
                       uint32_t code)
{
    int16_t v[4][MAX_CP];
    int64_t id[4];
    for (int i = 0; i < 4; i++) {
        memcpy(v[i], q + cell[i] * Cp, Cp * sizeof *q);
        id[i] = idx[cell[i]];
    }
    for (int j = 0; j < 4; j++) {
        int src = (code >> (2 * j)) & 3;
        memcpy(q + cell[j] * Cp, v[src], Cp * sizeof *q);
        idx[cell[j]] = id[src];
    }
}

void cuplas_pass_cpu(int16_t *q, int64_t *idx, const int16_t *target, int Cp,
                     const cuplas_pass_geom *g, uint64_t seed, uint32_t level,
                     uint32_t cfg, uint32_t pass, uint64_t *before,
                     uint64_t *after)
{
    cuplas_perm perm = cuplas_perm_make(g->kind, g->n, seed, CUPLAS_TAG_GROUP,
                                        level, cfg, pass);
    const int64_t nbx = g->W / g->bw, quads = g->n / 4;
    const int64_t total = nbx * (g->H / g->bh) * quads;
    uint64_t sb = 0, sa = 0;
    #pragma omp parallel for reduction(+ : sb, sa) schedule(static)
    for (int64_t gi = 0; gi < total; gi++) {
        int64_t b = gi / quads, k = gi % quads, cell[4];
        for (int j = 0; j < 4; j++)
            cell[j] = quad_cell(g, b / nbx, b % nbx,
                                cuplas_perm_apply(&perm, (uint32_t)(4 * k + j)));
        uint64_t D[4][4], cid, cbest;
        quad_costs(q, target, Cp, cell, D);
        uint32_t code = cuplas_quad_best(D, &cid, &cbest);
        sb += cid;
        sa += cbest;
        if (cbest < cid)
            quad_apply(q, idx, Cp, cell, code);
    }
    *before = sb;
    *after = sa;
}

static void initial_order(const cuplas_qgrid *g, const cuplas_sort_params *p,
                          int16_t *q, int64_t *idx)
{
    const int64_t N = g->H * g->W;
    /* always Feistel: an affine map keeps structured input structured */
    cuplas_perm perm = cuplas_perm_make(0, (uint32_t)N, p->seed, CUPLAS_TAG_SHUFFLE, 0, 0, 0);
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < N; i++) {
        idx[i] = p->shuffle ? (int64_t)cuplas_perm_apply(&perm, (uint32_t)i) : i;
        memcpy(q + i * g->Cp, g->q + idx[i] * g->Cp, g->Cp * sizeof *q);
    }
}

/* Configurations of one level until one brings no improving pass. */
static void run_level(int16_t *q, int64_t *idx, const int16_t *t, int Cp,
                      cuplas_pass_geom *geo, const cuplas_sort_params *p,
                      uint32_t level, cuplas_sort_stats *st)
{
    for (uint32_t cfg = 0;;) {
        cuplas_shift_draw(p->seed, level, cfg, geo->H, geo->W, &geo->sy, &geo->sx);
        int improved = 0;
        for (uint32_t pass = 0;;) {
            uint64_t before, after;
            cuplas_pass_cpu(q, idx, t, Cp, geo, p->seed, level, cfg, pass, &before, &after);
            st->passes++;
            if (cuplas_pass_stops(before, after, p->improvement_break))
                break;
            improved = 1;
            if (++pass == (uint32_t)p->max_passes)
                break;
        }
        cfg++;
        st->configs++;
        if (cfg >= (uint32_t)p->max_configs || (!improved && cfg >= (uint32_t)p->min_configs))
            break;
    }
}

int cuplas_sort_cpu(const cuplas_qgrid *g, const cuplas_sort_params *p,
                    const cuplas_schedule *s, int64_t *index,
                    const volatile int *cancel, cuplas_sort_stats *st,
                    cuplas_error *err)
{
    int rc = 0;
    const int64_t N = g->H * g->W;
    int16_t *q = NULL, *t = NULL;
    memset(st, 0, sizeof *st);
    if (g->Cp > MAX_CP)
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "%d channels: the CPU sorter takes at most %d", g->C, MAX_CP);
    if (N > (int64_t)UINT32_MAX / 2)
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "%lld cells: at most 2^31-1 are supported", (long long)N);
    q = malloc((size_t)N * g->Cp * sizeof *q);
    t = malloc((size_t)N * g->Cp * sizeof *t);
    if (!q || !t)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory for a %lldx%lld grid", (long long)g->H, (long long)g->W);
    initial_order(g, p, q, index);
    for (int L = 0; L < s->nlevels; L++) {
        if (cancel && *cancel)
            CUPLAS_FAIL(err, CUPLAS_ERR_INTERRUPTED, "interrupted at level %d of %d", L, s->nlevels);
        const cuplas_level *lv = &s->levels[L];
        CUPLAS_TRY(cuplas_blur_cpu(q, t, g->H, g->W, g->Cp, lv->rx, lv->ry,
                                   p->blur_passes, p->border_x, p->border_y, err));
        cuplas_pass_geom geo = {g->H, g->W, lv->bh, lv->bw, 0, 0,
                                (uint32_t)p->permuter, (uint32_t)(lv->bh * lv->bw)};
        run_level(q, index, t, g->Cp, &geo, p, (uint32_t)L, st);
        st->levels++;
    }
fail:
    free(q);
    free(t);
    return rc;
}
