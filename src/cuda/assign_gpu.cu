/*
 * assign.cu - the 4-cell solve: the initial shuffle, one cooperative
 * kernel per level, and a single-pass kernel for the parity tests.
 *
 * A solve thread owns one group of 4 cells of one block: it gathers their
 * values and targets 4 channels (8 bytes) at a time, builds the 4x4 cost
 * matrix in registers, picks the best of 24 arrangements (hd_quad.h) and
 * writes the group back in place. Groups are disjoint, so no thread reads
 * a cell another one writes. The pass's identity and best costs are summed
 * per warp with shuffles and added with one 64-bit integer atomic per warp
 * (DISTWAR): exact, so the sum never depends on thread order.
 *
 * Cell arithmetic is 32-bit (N < 2^31): 64-bit division is an order of
 * magnitude slower on the GPU, and the torus wrap needs no division at all
 * because shifted coordinates stay below twice the side.
 *
 * Large blocks make the gathers random over the whole grid, so the solve is
 * bound by L2 sector traffic (32 bytes fetched per access). The solve modes
 * (cuplas_solve_mode) cut the sectors per cell: LAZY reads and writes the
 * index and writes values only for cells that move (about 5 % of cells per
 * pass after the first levels); PACKED also keeps q and target in one
 * record per cell ([q | t], 2 Cp elements), one sector for both at Cp <= 8.
 */
#include "cuda/assign_gpu.cuh"

#include <cooperative_groups.h>

#include "cuda/cuda_check.h"
#include "core/quad.h"

namespace cg = cooperative_groups;

#define SOLVE_THREADS 256
#define COPY_THREADS 256

/* ------------------------------------------------------------------ helpers */

struct quad_geom {
    uint32_t H, W, bh, bw, nbx, quads, total;
    uint32_t sy, sx;
};

static __device__ __forceinline__ quad_geom make_geom(uint32_t H, uint32_t W, uint32_t bh,
                                                     uint32_t bw, uint32_t sy, uint32_t sx)
{
    quad_geom g;
    g.H = H;
    g.W = W;
    g.bh = bh;
    g.bw = bw;
    g.nbx = W / bw;
    g.quads = bh * bw / 4;
    g.total = g.nbx * (H / bh) * g.quads;
    g.sy = sy;
    g.sx = sx;
    return g;
}

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

/* q and t of one cell, one 16-byte load (PACKED, Cp = 4). */
struct __align__(16) short4x2 {
    short4 q, t;
};

/*
 * Solve group gi of the pass in place; add its identity and best costs.
 * NC = Cp/4 chunks known at compile time (1..4) keeps the four cells'
 * values in registers between scoring and writing; NC = 0 reads Cp at
 * run time and reloads them (wide feature vectors). MODE: a
 * cuplas_solve_mode; PACKED requires t == q + Cp.
 */
template <int NC, int MODE>
static __device__ __forceinline__ void solve_quad(int16_t *q, int32_t *idx, const int16_t *t,
                                                  int Cp, const quad_geom &g,
                                                  const cuplas_perm &perm, uint32_t gi,
                                                  unsigned long long &cid,
                                                  unsigned long long &cbest)
{
    const uint32_t b = gi / g.quads, k = gi - b * g.quads;
    const uint32_t by = b / g.nbx, bx = b - by * g.nbx;
    const int nc = NC ? NC : Cp / 4;
    const size_t cs = MODE == CUPLAS_SOLVE_PACKED ? 2 * (size_t)Cp : (size_t)Cp;
    uint32_t cell[4];
    int32_t id[4] = {0, 0, 0, 0};
    for (int j = 0; j < 4; j++) {
        uint32_t o = cuplas_perm_apply(&perm, 4 * k + j);
        uint32_t oy = o / g.bw, ox = o - oy * g.bw;
        uint32_t y = by * g.bh + oy + g.sy, x = bx * g.bw + ox + g.sx;
        y = y >= g.H ? y - g.H : y;
        x = x >= g.W ? x - g.W : x;
        cell[j] = y * g.W + x;
    }
    /* LEGACY: issue the index loads early, their latency hides behind the
     * scoring; the others load only the indices of cells that move */
    if (MODE == CUPLAS_SOLVE_LEGACY)
        for (int j = 0; j < 4; j++)
            id[j] = idx[cell[j]];
    const short4 *qv[4], *tv[4];
    for (int j = 0; j < 4; j++) {
        qv[j] = (const short4 *)(q + cell[j] * cs);
        tv[j] = MODE == CUPLAS_SOLVE_PACKED ? qv[j] + nc : (const short4 *)(t + cell[j] * cs);
    }
    short4 keep[NC ? NC : 1][4];
    uint64_t D[4][4] = {{0}};
    for (int c = 0; c < nc; c++) {
        short4 a[4], tt[4];
        for (int i = 0; i < 4; i++) {
            if (MODE == CUPLAS_SOLVE_PACKED && NC == 1) {
                short4x2 r = *(const short4x2 *)qv[i];
                a[i] = r.q;
                tt[i] = r.t;
            } else {
                a[i] = qv[i][c];
                tt[i] = tv[i][c];
            }
            if (NC)
                keep[NC ? c : 0][i] = a[i];
        }
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                D[i][j] += sq4(a[i], tt[j]);
    }
    uint64_t ci, cb;
    uint32_t code = cuplas_quad_best(D, &ci, &cb);
    cid += ci;
    cbest += cb;
    if (cb == ci)
        return;
    if (MODE == CUPLAS_SOLVE_LEGACY) {
        for (int j = 0; j < 4; j++)
            idx[cell[j]] = id[(code >> (2 * j)) & 3];
        for (int c = 0; c < nc; c++) {
            short4 a[4];
            for (int i = 0; i < 4; i++)
                a[i] = NC ? keep[NC ? c : 0][i] : qv[i][c];
            for (int j = 0; j < 4; j++)
                ((short4 *)qv[j])[c] = a[(code >> (2 * j)) & 3];
        }
    } else {
        /* Only cells with src != j change. They are closed under the
         * arrangement (its non-fixed points), so every id[src] read is loaded. */
        uint32_t src[4];
        for (int j = 0; j < 4; j++)
            src[j] = (code >> (2 * j)) & 3;
        for (int j = 0; j < 4; j++)
            if (src[j] != (uint32_t)j)
                id[j] = idx[cell[j]];
        for (int j = 0; j < 4; j++)
            if (src[j] != (uint32_t)j)
                idx[cell[j]] = id[src[j]];
        for (int c = 0; c < nc; c++) {
            short4 a[4];
            for (int i = 0; i < 4; i++)
                a[i] = NC ? keep[NC ? c : 0][i] : qv[i][c];
            for (int j = 0; j < 4; j++)
                if (src[j] != (uint32_t)j)
                    ((short4 *)qv[j])[c] = a[src[j]];
        }
    }
}

/* Warp-reduce both sums and add them to slot[0..1] (one atomic per warp). */
static __device__ __forceinline__ void add_sums(unsigned long long *slot,
                                                unsigned long long cid,
                                                unsigned long long cbest)
{
    cid = warp_sum(cid);
    cbest = warp_sum(cbest);
    if ((threadIdx.x & 31) == 0 && cid) {
        atomicAdd(&slot[0], cid);
        atomicAdd(&slot[1], cbest);
    }
}

/* ------------------------------------------------------------------ kernels */

__global__ void shuffle_kernel(int16_t *q, int32_t *idx, const int16_t *q_in, int64_t N,
                               int Cp, int cs, uint64_t seed, int shuffle)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N)
        return;
    /* always Feistel, as in the CPU reference */
    cuplas_perm perm = cuplas_perm_make(0, (uint32_t)N, seed, CUPLAS_TAG_SHUFFLE, 0, 0, 0);
    int64_t src = shuffle ? (int64_t)cuplas_perm_apply(&perm, (uint32_t)i) : i;
    idx[i] = (int32_t)src;
    const short4 *from = (const short4 *)(q_in + src * Cp);
    short4 *to = (short4 *)(q + i * cs);
    for (int c = 0; c < Cp / 4; c++)
        to[c] = from[c];
}

/*
 * One level. Mirrors run_level() in src/sort_cpu.c: every thread keeps the
 * same (cfg, pass, improved) state and reaches the same decision from the
 * sums it reads after the barrier. Sum slots rotate over three so that a
 * slot is cleared (by one thread, after barrier k) two passes before reuse.
 */
template <int NC, int MODE>
__global__ void __launch_bounds__(SOLVE_THREADS)
level_kernel(int16_t *q, int32_t *idx, const int16_t *t, int Cp, cuplas_level_args a,
             cuplas_loop_state *st)
{
    __shared__ cuplas_perm s_perm;
    __shared__ int64_t s_sy, s_sx;
    cg::grid_group grid = cg::this_grid();
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    const uint32_t stride = gridDim.x * blockDim.x;
    uint32_t cfg = 0, pass = 0, k = 0;
    bool improved = false;

    if (threadIdx.x == 0) {
        cuplas_shift_draw(a.seed, a.level, 0, a.H, a.W, &s_sy, &s_sx);
        s_perm = cuplas_perm_make(a.permuter, a.bh * a.bw, a.seed, CUPLAS_TAG_GROUP, a.level, 0, 0);
    }
    __syncthreads();
    for (;;) {
        const quad_geom g = make_geom(a.H, a.W, a.bh, a.bw, (uint32_t)s_sy, (uint32_t)s_sx);
        const cuplas_perm perm = s_perm;
        unsigned long long cid = 0, cbest = 0;
        for (uint32_t gi = blockIdx.x * blockDim.x + threadIdx.x; gi < g.total; gi += stride)
            solve_quad<NC, MODE>(q, idx, t, Cp, g, perm, gi, cid, cbest);
        unsigned long long *slot = st->sums + 2 * (k % 3);
        add_sums(slot, cid, cbest);
        grid.sync();
        uint64_t before = __ldcg(&slot[0]), after = __ldcg(&slot[1]);
        if (leader) {
            unsigned long long *old = st->sums + 2 * ((k + 2) % 3);
            old[0] = old[1] = 0;
        }
        k++;
        bool config_done = cuplas_pass_stops(before, after, a.improvement_break);
        if (!config_done) {
            improved = true;
            config_done = ++pass == a.max_passes;
        }
        if (config_done) {
            cfg++;
            if (cfg >= a.max_configs || (!improved && cfg >= a.min_configs))
                break;
            improved = false;
            pass = 0;
        }
        if (threadIdx.x == 0) {
            if (pass == 0)
                cuplas_shift_draw(a.seed, a.level, cfg, a.H, a.W, &s_sy, &s_sx);
            s_perm = cuplas_perm_make(a.permuter, a.bh * a.bw, a.seed, CUPLAS_TAG_GROUP,
                                      a.level, cfg, pass);
        }
        __syncthreads();
    }
    if (leader) {
        st->passes += k;
        st->configs += cfg;
    }
}

template <int NC, int MODE>
__global__ void pass_kernel(int16_t *q, int32_t *idx, const int16_t *t, int Cp, quad_geom g,
                            cuplas_perm perm, cuplas_loop_state *st)
{
    uint32_t gi = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long cid = 0, cbest = 0;
    if (gi < g.total)
        solve_quad<NC, MODE>(q, idx, t, Cp, g, perm, gi, cid, cbest);
    add_sums(st->sums, cid, cbest);
}

/* ---------------------------------------------------------------- launchers */

int cuplas_shuffle_launch(int16_t *q, int32_t *idx, const int16_t *q_in, int64_t N, int Cp,
                          int cs, uint64_t seed, int shuffle, cudaStream_t stream,
                          cuplas_error *err)
{
    int rc = 0;
    shuffle_kernel<<<cuplas_blocks(N, COPY_THREADS), COPY_THREADS, 0, stream>>>(
        q, idx, q_in, N, Cp, cs, seed, shuffle);
    CUPLAS_LAUNCH_CHECK(err, stream);
fail:
    return rc;
}

/* The kernel instance for Cp channels: registers for up to 16 channels. */
typedef void (*level_fn)(int16_t *, int32_t *, const int16_t *, int, cuplas_level_args,
                         cuplas_loop_state *);

template <int MODE>
static level_fn level_kernel_nc(int Cp)
{
    switch (Cp / 4) {
    case 1: return level_kernel<1, MODE>;
    case 2: return level_kernel<2, MODE>;
    case 3: return level_kernel<3, MODE>;
    case 4: return level_kernel<4, MODE>;
    }
    return level_kernel<0, MODE>;
}

static level_fn level_kernel_for(int Cp, cuplas_solve_mode mode)
{
    switch (mode) {
    case CUPLAS_SOLVE_LEGACY: return level_kernel_nc<CUPLAS_SOLVE_LEGACY>(Cp);
    case CUPLAS_SOLVE_LAZY: return level_kernel_nc<CUPLAS_SOLVE_LAZY>(Cp);
    case CUPLAS_SOLVE_PACKED: break;
    }
    return level_kernel_nc<CUPLAS_SOLVE_PACKED>(Cp);
}

int cuplas_level_occupancy(int Cp, cuplas_solve_mode mode, int *blocks_per_sm,
                           cuplas_error *err)
{
    int rc = 0;
    CUPLAS_CUDA_TRY(err, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                             blocks_per_sm, level_kernel_for(Cp, mode), SOLVE_THREADS, 0));
fail:
    return rc;
}

int cuplas_level_launch(int16_t *q, int32_t *idx, const int16_t *t, int Cp,
                        cuplas_solve_mode mode, cuplas_level_args a, cuplas_loop_state *st,
                        int max_blocks, cudaStream_t stream, cuplas_error *err)
{
    int rc = 0;
    /* one quad per thread where the grid allows; a grid-stride loop beyond */
    uint32_t quads = (a.W / a.bw) * (a.H / a.bh) * (a.bh * a.bw / 4);
    unsigned blocks = cuplas_blocks(quads, SOLVE_THREADS);
    blocks = blocks < (unsigned)max_blocks ? blocks : (unsigned)max_blocks;
    void *args[] = {&q, &idx, &t, &Cp, &a, &st};
    CUPLAS_CUDA_TRY(err, cudaMemsetAsync(st->sums, 0, sizeof st->sums, stream));
    CUPLAS_CUDA_TRY(err, cudaLaunchCooperativeKernel((const void *)level_kernel_for(Cp, mode), dim3(blocks),
                                                     dim3(SOLVE_THREADS), args, 0, stream));
    CUPLAS_LAUNCH_CHECK(err, stream);
fail:
    return rc;
}

/* The single-pass kernels for Cp channels in mode M (Cp = 4 in registers). */
template <int M>
static void pass_kernel_launch(int16_t *q, int32_t *idx, const int16_t *t, int Cp, quad_geom g,
                               cuplas_perm perm, cuplas_loop_state *st, cudaStream_t stream)
{
    if (Cp == 4)
        pass_kernel<1, M><<<cuplas_blocks(g.total, SOLVE_THREADS), SOLVE_THREADS, 0, stream>>>(
            q, idx, t, Cp, g, perm, st);
    else
        pass_kernel<0, M><<<cuplas_blocks(g.total, SOLVE_THREADS), SOLVE_THREADS, 0, stream>>>(
            q, idx, t, Cp, g, perm, st);
}

int cuplas_pass_launch(int16_t *q, int32_t *idx, const int16_t *t, int Cp,
                       cuplas_solve_mode mode, const cuplas_pass_geom *pg, cuplas_perm perm,
                       cuplas_loop_state *st, cudaStream_t stream, cuplas_error *err)
{
    int rc = 0;
    quad_geom g;
    g.H = (uint32_t)pg->H;
    g.W = (uint32_t)pg->W;
    g.bh = (uint32_t)pg->bh;
    g.bw = (uint32_t)pg->bw;
    g.nbx = g.W / g.bw;
    g.quads = g.bh * g.bw / 4;
    g.total = g.nbx * (g.H / g.bh) * g.quads;
    g.sy = (uint32_t)pg->sy;
    g.sx = (uint32_t)pg->sx;
    CUPLAS_CUDA_TRY(err, cudaMemsetAsync(st->sums, 0, sizeof st->sums, stream));
    if (mode == CUPLAS_SOLVE_LEGACY)
        pass_kernel_launch<CUPLAS_SOLVE_LEGACY>(q, idx, t, Cp, g, perm, st, stream);
    else if (mode == CUPLAS_SOLVE_LAZY)
        pass_kernel_launch<CUPLAS_SOLVE_LAZY>(q, idx, t, Cp, g, perm, st, stream);
    else
        pass_kernel_launch<CUPLAS_SOLVE_PACKED>(q, idx, t, Cp, g, perm, st, stream);
    CUPLAS_LAUNCH_CHECK(err, stream);
fail:
    return rc;
}
