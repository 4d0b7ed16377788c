/*
 * blur_cpu.c - the level's target, an iterated box blur of the grid (CPU
 * reference of cuda/blur_gpu.cu).
 *
 * Exact integer sliding sums, rounded by cuplas_div_round: the same bytes
 * as the GPU's prefix-sum blur for any radius and border mode. Rows (x
 * passes) and column chunks (y passes) run in parallel; nothing depends
 * on the number of threads.
 */
#include "cpu/blur_cpu.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/quad.h"
#include "util/threads.h"

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
