/*
 * assign.cu - the 4-cell solve pass, the initial shuffle, and the
 * single-thread control kernels that run the level loop on the device.
 *
 * A solve thread owns one group of 4 cells of one block: it gathers their
 * values and targets 4 channels (8 bytes) at a time, builds the 4x4 cost
 * matrix in registers, picks the best of 24 arrangements (hd_quad.h) and
 * writes the group back in place. Groups are disjoint, so no thread ever
 * reads a cell another one writes. The pass's identity and best costs are
 * reduced per warp with shuffles and added with one 64-bit integer atomic
 * per warp (DISTWAR): exact, so the sum never depends on thread order.
 */
#include "assign.cuh"

#include "cuda_check.h"
#include "hd_quad.h"

#define SOLVE_THREADS 256
#define COPY_THREADS 256

/* ------------------------------------------------------------------ helpers */

static __device__ __forceinline__ uint32_t sq4(short4 a, short4 b)
{
    int32_t d0 = a.x - b.x, d1 = a.y - b.y, d2 = a.z - b.z, d3 = a.w - b.w;
    /* each square < 2^30, so four fit in 32 bits */
    return (uint32_t)(d0 * d0) + (uint32_t)(d1 * d1) + (uint32_t)(d2 * d2) + (uint32_t)(d3 * d3);
}

static __device__ __forceinline__ unsigned long long warp_sum(unsigned long long v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

static __device__ void draw_configuration(cuplas_loop_state *st, const cuplas_loop_params &lp)
{
    cuplas_shift_draw(lp.seed, st->level, st->cfg, lp.H, lp.W, &st->sy, &st->sx);
}

static __device__ void draw_grouping(cuplas_loop_state *st, const cuplas_loop_params &lp)
{
    st->perm = cuplas_perm_make(lp.permuter, (uint32_t)(st->bh * st->bw), lp.seed,
                                CUPLAS_TAG_GROUP, st->level, st->cfg, st->pass);
}

/* ------------------------------------------------------------------ kernels */

__global__ void shuffle_kernel(int16_t *q, int32_t *idx, const int16_t *q_in, int64_t N,
                               int Cp, uint64_t seed, int shuffle)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N)
        return;
    /* always Feistel, as in the CPU reference */
    cuplas_perm perm = cuplas_perm_make(0, (uint32_t)N, seed, CUPLAS_TAG_SHUFFLE, 0, 0, 0);
    int64_t src = shuffle ? (int64_t)cuplas_perm_apply(&perm, (uint32_t)i) : i;
    idx[i] = (int32_t)src;
    const short4 *from = (const short4 *)(q_in + src * Cp);
    short4 *to = (short4 *)(q + i * Cp);
    for (int c = 0; c < Cp / 4; c++)
        to[c] = from[c];
}

__global__ void loop_init_kernel(cuplas_loop_state *st)
{
    st->before = st->after = 0;
    st->passes = st->configs = 0;
    st->level = 0;
}

__global__ void level_begin_kernel(cuplas_loop_state *st, const cuplas_level *levels,
                                   cuplas_loop_params lp, cudaGraphConditionalHandle h_pass)
{
    const cuplas_level lv = levels[st->level];
    st->bh = lv.bh;
    st->bw = lv.bw;
    st->nbx = lp.W / lv.bw;
    st->quads = lv.bh * lv.bw / 4;
    st->total = st->nbx * (lp.H / lv.bh) * st->quads;
    st->cfg = st->pass = st->improved = 0;
    st->before = st->after = 0;
    draw_configuration(st, lp);
    draw_grouping(st, lp);
    cudaGraphSetConditional(h_pass, 1);
}

__global__ void solve_pass_kernel(int16_t *q, int32_t *idx, const int16_t *t, int Cp,
                                  cuplas_loop_state *st, int64_t H, int64_t W)
{
    const int64_t gi = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long cid = 0, cbest = 0;
    if (gi < st->total) {
        const cuplas_perm perm = st->perm;
        const int64_t quads = st->quads, nbx = st->nbx, bh = st->bh, bw = st->bw;
        const int64_t b = gi / quads, k = gi % quads, by = b / nbx, bx = b % nbx;
        int64_t cell[4];
        for (int j = 0; j < 4; j++) {
            uint32_t o = cuplas_perm_apply(&perm, (uint32_t)(4 * k + j));
            int64_t y = (by * bh + o / bw + st->sy) % H;
            int64_t x = (bx * bw + o % bw + st->sx) % W;
            cell[j] = (y * W + x) * Cp;
        }
        uint64_t D[4][4] = {{0}};
        for (int c = 0; c < Cp; c += 4) {
            short4 a[4], tt[4];
            for (int i = 0; i < 4; i++) {
                a[i] = *(const short4 *)(q + cell[i] + c);
                tt[i] = *(const short4 *)(t + cell[i] + c);
            }
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++)
                    D[i][j] += sq4(a[i], tt[j]);
        }
        uint64_t ci, cb;
        uint32_t code = cuplas_quad_best(D, &ci, &cb);
        cid = ci;
        cbest = cb;
        if (cb < ci) {
            int32_t id[4];
            for (int i = 0; i < 4; i++)
                id[i] = idx[cell[i] / Cp];
            for (int j = 0; j < 4; j++)
                idx[cell[j] / Cp] = id[(code >> (2 * j)) & 3];
            for (int c = 0; c < Cp; c += 4) {
                short4 a[4];
                for (int i = 0; i < 4; i++)
                    a[i] = *(const short4 *)(q + cell[i] + c);
                for (int j = 0; j < 4; j++)
                    *(short4 *)(q + cell[j] + c) = a[(code >> (2 * j)) & 3];
            }
        }
    }
    cid = warp_sum(cid);
    cbest = warp_sum(cbest);
    if ((threadIdx.x & 31) == 0 && cid) {
        atomicAdd(&st->before, cid);
        atomicAdd(&st->after, cbest);
    }
}

/* Mirrors run_level() in src/sort_cpu.c step for step. */
__global__ void pass_end_kernel(cuplas_loop_state *st, cuplas_loop_params lp,
                                cudaGraphConditionalHandle h_pass)
{
    uint64_t before = st->before, after = st->after;
    st->before = st->after = 0;
    st->passes++;
    bool config_done = before == 0 ||
                       (double)(before - after) < lp.improvement_break * (double)before;
    if (!config_done) {
        st->improved = 1;
        config_done = ++st->pass == lp.max_passes;
    }
    if (!config_done) {
        draw_grouping(st, lp);
        cudaGraphSetConditional(h_pass, 1);
        return;
    }
    st->cfg++;
    st->configs++;
    if (st->cfg >= lp.max_configs || (!st->improved && st->cfg >= lp.min_configs)) {
        cudaGraphSetConditional(h_pass, 0);
        return;
    }
    st->improved = 0;
    st->pass = 0;
    draw_configuration(st, lp);
    draw_grouping(st, lp);
    cudaGraphSetConditional(h_pass, 1);
}

__global__ void level_end_kernel(cuplas_loop_state *st, cuplas_loop_params lp,
                                 cudaGraphConditionalHandle h_level)
{
    st->level++;
    cudaGraphSetConditional(h_level, st->level < lp.nlevels ? 1 : 0);
}

/* ---------------------------------------------------------------- launchers */

int cuplas_shuffle_launch(int16_t *q, int32_t *idx, const int16_t *q_in, int64_t N, int Cp,
                          uint64_t seed, int shuffle, cudaStream_t stream, cuplas_error *err)
{
    int rc = 0;
    shuffle_kernel<<<cuplas_blocks(N, COPY_THREADS), COPY_THREADS, 0, stream>>>(
        q, idx, q_in, N, Cp, seed, shuffle);
    CUPLAS_LAUNCH_CHECK(err, stream);
fail:
    return rc;
}

int cuplas_loop_init_launch(cuplas_loop_state *st, cudaStream_t stream, cuplas_error *err)
{
    int rc = 0;
    loop_init_kernel<<<1, 1, 0, stream>>>(st);
    CUPLAS_LAUNCH_CHECK(err, stream);
fail:
    return rc;
}

int cuplas_level_begin_launch(cuplas_loop_state *st, const cuplas_level *levels,
                              cuplas_loop_params lp, cudaGraphConditionalHandle h_pass,
                              cudaStream_t stream, cuplas_error *err)
{
    int rc = 0;
    level_begin_kernel<<<1, 1, 0, stream>>>(st, levels, lp, h_pass);
    CUPLAS_LAUNCH_CHECK(err, stream);
fail:
    return rc;
}

int cuplas_solve_pass_launch(int16_t *q, int32_t *idx, const int16_t *t, int Cp,
                             cuplas_loop_state *st, cuplas_loop_params lp,
                             int64_t max_quads, cudaStream_t stream, cuplas_error *err)
{
    int rc = 0;
    solve_pass_kernel<<<cuplas_blocks(max_quads, SOLVE_THREADS), SOLVE_THREADS, 0, stream>>>(
        q, idx, t, Cp, st, lp.H, lp.W);
    CUPLAS_LAUNCH_CHECK(err, stream);
fail:
    return rc;
}

int cuplas_pass_end_launch(cuplas_loop_state *st, cuplas_loop_params lp,
                           cudaGraphConditionalHandle h_pass, cudaStream_t stream,
                           cuplas_error *err)
{
    int rc = 0;
    pass_end_kernel<<<1, 1, 0, stream>>>(st, lp, h_pass);
    CUPLAS_LAUNCH_CHECK(err, stream);
fail:
    return rc;
}

int cuplas_level_end_launch(cuplas_loop_state *st, cuplas_loop_params lp,
                            cudaGraphConditionalHandle h_level, cudaStream_t stream,
                            cuplas_error *err)
{
    int rc = 0;
    level_end_kernel<<<1, 1, 0, stream>>>(st, lp, h_level);
    CUPLAS_LAUNCH_CHECK(err, stream);
fail:
    return rc;
}
