/*
 * schedule.c - PLAS's radius schedule generalised to any H x W.
 *
 * Radii decay geometrically from max(H,W)/2 - 1 (PLAS core.py semantics:
 * emit int(r), multiply by the decay, stop below min_blur_radius). A level's
 * blocks are squares of side max(2r+2, min_block_size) cut down to the grid
 * and to even sides, so every block splits into groups of 4; a 1-wide grid
 * gets 1 x 4k blocks instead.
 */
#include "core/schedule.h"

#include <math.h>
#include <stdlib.h>

static int64_t even_floor(int64_t v) { return v & ~(int64_t)1; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Per-pass radius so that `passes` boxes have the variance of one box of
 * width 2r+1 (a near-flat kernel like PLAS's sigma = k Gaussian). */
static int pass_radius(int r, int passes)
{
    if (r <= 0)
        return 0;
    double w = 2.0 * r + 1.0;
    double wp = sqrt((w * w - 1.0) / passes + 1.0);
    int rp = (int)floor((wp - 1.0) / 2.0 + 0.5);
    return rp < 1 ? 1 : rp;
}

static void block_shape(int64_t H, int64_t W, int r, int min_block,
                        int64_t *bh, int64_t *bw)
{
    int64_t side = 2 * (int64_t)r + 2;
    if (side < min_block)
        side = min_block;
    if (H == 1) {
        *bh = 1;
        *bw = min64(side, W) & ~(int64_t)3;
    } else if (W == 1) {
        *bw = 1;
        *bh = min64(side, H) & ~(int64_t)3;
    } else {
        *bh = even_floor(min64(side, H));
        *bw = even_floor(min64(side, W));
    }
}

static void fill_level(cuplas_level *lv, int64_t H, int64_t W, int r,
                       const cuplas_sort_params *p)
{
    int rp = pass_radius(r, p->blur_passes);
    lv->radius = r;
    /* a window wider than the axis adds nothing; reflect needs r <= side-1 */
    lv->rx = (int)min64(rp, W - 1);
    lv->ry = (int)min64(rp, H - 1);
    block_shape(H, W, r, p->min_block_size, &lv->bh, &lv->bw);
}

int cuplas_schedule_build(int64_t H, int64_t W, const cuplas_sort_params *p,
                          cuplas_schedule *s, cuplas_error *err)
{
    int rc = 0;
    s->levels = NULL;
    s->nlevels = 0;
    if (H < 1 || W < 1 || H * W < 4)
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "schedule needs at least 4 cells, got %lldx%lld",
                    (long long)H, (long long)W);
    double rf = p->start_radius > 0 ? p->start_radius : (H > W ? H : W) / 2.0 - 1.0;
    int cap = 16;
    s->levels = malloc(cap * sizeof *s->levels);
    if (!s->levels)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory building the schedule");
    /* small grids start below min_blur_radius: they still get one level */
    if (rf < p->min_blur_radius)
        rf = p->min_blur_radius;
    while (rf >= p->min_blur_radius) {
        if (s->nlevels == cap) {
            cap *= 2;
            cuplas_level *n = realloc(s->levels, cap * sizeof *n);
            if (!n)
                CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory building the schedule");
            s->levels = n;
        }
        fill_level(&s->levels[s->nlevels++], H, W, (int)rf, p);
        rf *= p->radius_decay;
    }
    return 0;
fail:
    cuplas_schedule_free(s);
    return rc;
}

void cuplas_schedule_free(cuplas_schedule *s)
{
    free(s->levels);
    s->levels = NULL;
    s->nlevels = 0;
}
