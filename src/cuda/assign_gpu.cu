/*
 * assign_gpu.cu - the 4-cell solve on the GPU: one cooperative kernel per
 * level, one launch per configuration of a block-local level, and a
 * single-pass kernel for the parity tests. CPU reference: cpu/assign_cpu.c.
 *
 * A solve thread owns one group of 4 cells of one block: it gathers their
 * values and targets 4 channels (8 bytes) at a time, builds the 4x4 cost
 * matrix in registers, picks the best of 24 arrangements (core/quad.h) and
 * writes the group back in place. Groups are disjoint, so no thread reads
 * a cell another one writes. The pass's identity and best costs are summed
 * per warp with shuffles, per block in shared memory (the level kernel)
 * and added with one 64-bit integer atomic per block (per warp in the
 * parity kernel): exact, so the sum never depends on thread order.
 *
 * Cell arithmetic is 32-bit (N < 2^31): 64-bit division is an order of
 * magnitude slower on the GPU, and the torus wrap needs no division at all
 * because shifted coordinates stay below twice the side.
 *
 * Large blocks make the gathers random over the whole grid, so the solve is
 * bound by L2 sector traffic (32 bytes fetched per access). Two choices
 * cut the sectors per cell: the index is read and written, and values are
 * written back, only for cells that move (about 5 % of cells per pass
 * after the first levels); and for Cp <= 4 the value and target of a cell
 * share one record (cuplas_assign_gpu_packed). bench/bench_solve.cu keeps
 * the variants these were chosen against. For C = 3 the costs skip the
 * zero fourth channel, and D is 32-bit (each cost < 2^32 at Cp <= 4).
 *
 * Block-local levels (core/level.h; blocks of at most sort.local_cells
 * cells): the cooperative kernel's grid-wide barrier after each pass is
 * what the small levels waited on (48 % of stall cycles, bench/results/
 * 2026-11-24-h100-local r3), so there a CTA, or a cluster of CTAs for a
 * block larger than its share, keeps a tile of blocks for all passes of a
 * configuration (local_config_kernel), reading each pass's offsets from
 * tables drawn once per level (local_tab_kernel).
 *
 * sort.group_size 8 and 16 run a second, generic path (group_level_kernel,
 * solve_group): one thread per group of k cells gathers the k x k costs
 * (global memory, 4 channels at a time, any Cp), solves them with
 * core/lap.h in local memory, and writes back the cells that move. Up to
 * Cp = 16 it keeps the k points instead of the k x k matrix and lets
 * lap.h compute each cost as it reads it (cuplas_lap_solve_pts: 256
 * bytes to 1 KiB of local memory per thread instead of 2 KiB). It
 * repeats the level kernel's control loop rather than sharing it, so the
 * tuned 4-cell kernels stay exactly as they were: one loop templated on
 * the pass (tried twice, bench/results/2026-11-24-h200-levers r10, r11)
 * gave the same results but made 1024^2 x 16 3.5-4 % slower (ptxas
 * spills the Cp = 16 kernel differently).
 */
#include "cuda/assign_gpu.cuh"

#include <cooperative_groups.h>

#include "cuda/cuda_check.h"
#include "cuda/udiv.cuh"
#include "core/lap.h"
#include "core/quad.h"

namespace cg = cooperative_groups;

#define SOLVE_THREADS 256

/* ------------------------------------------------------------------ helpers */

/* A pass's geometry in the 32-bit form the kernels index with, with its
 * three divisors prepared (cuda/udiv.cuh): computed once per pass, by
 * one thread of each block in the level kernel. */
struct quad_geom {
    uint32_t H, W, bh, bw, nbx, quads, total;
    uint32_t sy, sx;
    cuplas_udiv32 by_quads, by_nbx, by_bw;
};

static __host__ __device__ __forceinline__ quad_geom make_geom(const cuplas_pass_geom &pg)
{
    quad_geom g;
    g.H = (uint32_t)pg.H;
    g.W = (uint32_t)pg.W;
    g.bh = (uint32_t)pg.bh;
    g.bw = (uint32_t)pg.bw;
    g.nbx = g.W / g.bw;
    g.quads = g.bh * g.bw / 4;
    g.total = g.nbx * (g.H / g.bh) * g.quads;
    g.sy = (uint32_t)pg.sy;
    g.sx = (uint32_t)pg.sx;
    g.by_quads = cuplas_udiv32_make(g.quads);
    g.by_nbx = cuplas_udiv32_make(g.nbx);
    g.by_bw = cuplas_udiv32_make(g.bw);
    return g;
}

/* Block offset o of a pass -> (oy << 16 | ox). The level kernel tabulates
 * it in shared memory when a block would otherwise evaluate the grouping
 * permutation more often than the block has offsets (small blocks: the
 * late levels, where most passes run). */
#define PERM_TAB_MAX 4096

static __device__ __forceinline__ uint32_t offset_yx(const quad_geom &g, const cuplas_perm &perm,
                                                     uint32_t o)
{
    uint32_t p = cuplas_perm_apply(&perm, o);
    uint32_t oy = cuplas_udiv32_div(p, g.by_bw);
    return oy << 16 | (p - oy * g.bw);
}

static __device__ __forceinline__ uint32_t sq4(short4 a, short4 b)
{
    int32_t d0 = a.x - b.x, d1 = a.y - b.y, d2 = a.z - b.z, d3 = a.w - b.w;
    /* each square < 2^30, so four fit in 32 bits */
    return (uint32_t)(d0 * d0) + (uint32_t)(d1 * d1) + (uint32_t)(d2 * d2) + (uint32_t)(d3 * d3);
}

/* sq4 of the first 3 channels (the fourth is zero in both). */
static __device__ __forceinline__ uint32_t sq3(short4 a, short4 b)
{
    int32_t d0 = a.x - b.x, d1 = a.y - b.y, d2 = a.z - b.z;
    return (uint32_t)(d0 * d0) + (uint32_t)(d1 * d1) + (uint32_t)(d2 * d2);
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

/* The 4 cells of group gi of the pass: offsets from the table when there
 * is one, else from the permutation. */
static __device__ __forceinline__ void quad_cells(const quad_geom &g, const cuplas_perm &perm,
                                                  const uint32_t *tab, uint32_t gi,
                                                  uint32_t cell[4])
{
    const uint32_t b = cuplas_udiv32_div(gi, g.by_quads), k = gi - b * g.quads;
    const uint32_t by = cuplas_udiv32_div(b, g.by_nbx), bx = b - by * g.nbx;
    for (int j = 0; j < 4; j++) {
        uint32_t yx = tab ? tab[4 * k + j] : offset_yx(g, perm, 4 * k + j);
        uint32_t oy = yx >> 16, ox = yx & 0xffffu;
        uint32_t y = by * g.bh + oy + g.sy, x = bx * g.bw + ox + g.sx;
        y = y >= g.H ? y - g.H : y;
        x = x >= g.W ? x - g.W : x;
        cell[j] = y * g.W + x;
    }
}

/* v[s] for s < 4 by selects: a run-time index into a register array would
 * put the array in local memory (the stack). */
template <typename T>
static __device__ __forceinline__ T pick4(const T v[4], uint32_t s)
{
    T lo = (s & 1) ? v[1] : v[0], hi = (s & 1) ? v[3] : v[2];
    return (s & 2) ? hi : lo;
}

/* Move the index entries of the cells that change under arrangement
 * `code` (cell j <- cell src[j]); returns src packed as code is. Only
 * cells with src != j change. They are closed under the arrangement
 * (its non-fixed points), so every id[src] read is loaded. */
static __device__ __forceinline__ void quad_move_index(int32_t *idx, const uint32_t cell[4],
                                                       uint32_t code, uint32_t src[4])
{
    int32_t id[4] = {0, 0, 0, 0};
    for (int j = 0; j < 4; j++)
        src[j] = (code >> (2 * j)) & 3;
    for (int j = 0; j < 4; j++)
        if (src[j] != (uint32_t)j)
            id[j] = idx[cell[j]];
    for (int j = 0; j < 4; j++)
        if (src[j] != (uint32_t)j)
            idx[cell[j]] = pick4(id, src[j]);
}

/* The packed Cp = 4 group whose 4 records r were loaded: score, choose,
 * write back the cells that move. */
template <bool C3>
static __device__ __forceinline__ void packed_finish(int16_t *q, int32_t *idx,
                                                     const uint32_t cell[4], const short4x2 r[4],
                                                     unsigned long long &cid,
                                                     unsigned long long &cbest)
{
    uint32_t D[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            D[i][j] = C3 ? sq3(r[i].q, r[j].t) : sq4(r[i].q, r[j].t);
    uint64_t ci, cb;
    uint32_t code = cuplas_quad_best32(D, &ci, &cb);
    cid += ci;
    cbest += cb;
    if (cb == ci)
        return;
    uint32_t src[4];
    quad_move_index(idx, cell, code, src);
    for (int j = 0; j < 4; j++)
        if (src[j] != (uint32_t)j)
            *(short4 *)(q + cell[j] * 8) = pick4(r, src[j]).q;
}

/*
 * Solve group gi of the pass in place; add its identity and best costs.
 * NC = Cp/4 chunks known at compile time (1..4) keeps the four cells'
 * values in registers between scoring and writing; NC = 0 reads Cp at
 * run time and reloads them (wide feature vectors). PACKED: cells 2 Cp
 * elements apart with t == q + Cp; else Cp apart.
 */
template <int NC, bool PACKED, bool C3 = false>
static __device__ __forceinline__ void solve_quad(int16_t *q, int32_t *idx, const int16_t *t,
                                                  int Cp, const quad_geom &g,
                                                  const cuplas_perm &perm, const uint32_t *tab,
                                                  uint32_t gi, unsigned long long &cid,
                                                  unsigned long long &cbest)
{
    uint32_t cell[4];
    quad_cells(g, perm, tab, gi, cell);
    if constexpr (PACKED && NC == 1) {
        short4x2 r[4];
        for (int j = 0; j < 4; j++)
            r[j] = *(const short4x2 *)(q + cell[j] * 8);
        packed_finish<C3>(q, idx, cell, r, cid, cbest);
        return;
    }
    const int nc = NC ? NC : Cp / 4;
    const size_t cs = PACKED ? 2 * (size_t)Cp : (size_t)Cp;
    const short4 *qv[4], *tv[4];
    for (int j = 0; j < 4; j++) {
        qv[j] = (const short4 *)(q + cell[j] * cs);
        tv[j] = PACKED ? qv[j] + nc : (const short4 *)(t + cell[j] * cs);
    }
    short4 keep[NC ? NC : 1][4];
    uint64_t D[4][4] = {{0}};
    for (int c = 0; c < nc; c++) {
        short4 a[4], tt[4];
        for (int i = 0; i < 4; i++) {
            a[i] = qv[i][c];
            tt[i] = tv[i][c];
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
    uint32_t src[4];
    quad_move_index(idx, cell, code, src);
    for (int c = 0; c < nc; c++) {
        short4 a[4];
        for (int i = 0; i < 4; i++)
            a[i] = NC ? keep[NC ? c : 0][i] : qv[i][c];
        for (int j = 0; j < 4; j++)
            if (src[j] != (uint32_t)j)
                ((short4 *)qv[j])[c] = pick4(a, src[j]);
    }
}

/*
 * Groups gi, gi + stride, ... < end of a pass, by one thread. C3: the
 * grid has 3 channels, packed with a zero fourth (as is its target: the
 * blur leaves padding channels zero), so the costs skip it.
 * (Two groups at a time, both gathered before either is scored, was
 * slower: spills at 80 registers; bench/results/2026-11-24-h100-local.)
 */
template <int NC, bool PACKED, bool C3>
static __device__ __forceinline__ void solve_range(int16_t *q, int32_t *idx, const int16_t *t,
                                                   int Cp, const quad_geom &g,
                                                   const cuplas_perm &perm, const uint32_t *tab,
                                                   uint32_t gi, uint32_t end, uint32_t stride,
                                                   unsigned long long &cid,
                                                   unsigned long long &cbest)
{
    for (; gi < end; gi += stride)
        solve_quad<NC, PACKED, C3>(q, idx, t, Cp, g, perm, tab, gi, cid, cbest);
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

/* Block-reduce both sums and add them to slot[0..1]: one atomic per block.
 * Every warp adding to the same two addresses serialises at the L2 slice
 * that owns them (thousands of atomics per pass at 1024^2); a block's
 * eight warps meet in shared memory first. */
static __device__ __forceinline__ void add_sums_block(unsigned long long *slot,
                                                      unsigned long long cid,
                                                      unsigned long long cbest,
                                                      unsigned long long (*red)[2])
{
    const int warp = threadIdx.x / 32;
    cid = warp_sum(cid);
    cbest = warp_sum(cbest);
    if ((threadIdx.x & 31) == 0) {
        red[warp][0] = cid;
        red[warp][1] = cbest;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < SOLVE_THREADS / 32; w++) {
            cid += red[w][0];
            cbest += red[w][1];
        }
        if (cid) {
            atomicAdd(&slot[0], cid);
            atomicAdd(&slot[1], cbest);
        }
    }
}

/* ------------------------------------------------------------------ kernels */

/* Resident blocks per SM the level kernel is compiled for: Cp = 4 fits
 * 3 x 256 threads in 80 registers (without the bound, ptxas's choice flips
 * between 80 and 122 registers on unrelated edits, and 122 allow only 2);
 * wider vectors need up to 128 registers, 2 blocks either way. */
#define LEVEL_MIN_BLOCKS(NC) ((NC) == 1 ? 3 : 2)

/*
 * One level: core/level.h's control, run by every thread. All threads keep
 * the same state and reach the same decision from the sums they read
 * after the barrier; thread 0 of each block then draws the next pass's
 * geometry and grouping into shared memory. Sum slots rotate over three
 * so that a slot is cleared (by one thread, after barrier k) two passes
 * before reuse.
 */
template <int NC, bool PACKED, bool C3>
__global__ void __launch_bounds__(SOLVE_THREADS, LEVEL_MIN_BLOCKS(NC))
level_kernel(int16_t *q, int32_t *idx, const int16_t *t, int Cp, cuplas_level_params a,
             cuplas_level_counters *c)
{
    __shared__ cuplas_pass_geom s_geom;
    __shared__ quad_geom s_g;
    __shared__ cuplas_perm s_perm;
    __shared__ uint32_t s_tab[PERM_TAB_MAX];
    __shared__ unsigned long long s_red[SOLVE_THREADS / 32][2];
    cg::grid_group grid = cg::this_grid();
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    const uint32_t stride = gridDim.x * blockDim.x;
    cuplas_level_state s = cuplas_level_start();

    if (threadIdx.x == 0) {
        s_geom = cuplas_level_geom(&a, s.cfg);
        s_g = make_geom(s_geom);
        s_perm = cuplas_pass_perm(&s_geom, a.seed, a.level, s.cfg, s.pass);
    }
    __syncthreads();
    for (;;) {
        const quad_geom g = s_g;
        const cuplas_perm perm = s_perm;
        /* tabulate the offsets when that is fewer evaluations than the
         * block's groups would make (the same choice in every block) */
        const uint32_t n = 4 * g.quads, per_block = 4 * ((g.total + gridDim.x - 1) / gridDim.x);
        const uint32_t *tab = NULL;
        if (PACKED && n <= PERM_TAB_MAX && n < per_block) {
            for (uint32_t o = threadIdx.x; o < n; o += blockDim.x)
                s_tab[o] = offset_yx(g, perm, o);
            __syncthreads();
            tab = s_tab;
        }
        unsigned long long cid = 0, cbest = 0;
        solve_range<NC, PACKED, C3>(q, idx, t, Cp, g, perm, tab, blockIdx.x * blockDim.x + threadIdx.x,
                                g.total, stride, cid, cbest);
        unsigned long long *slot = c->sums + 2 * (s.passes % 3);
        add_sums_block(slot, cid, cbest, s_red);
        grid.sync();
        uint64_t before = __ldcg(&slot[0]), after = __ldcg(&slot[1]);
        if (leader) {
            unsigned long long *old = c->sums + 2 * ((s.passes + 2) % 3);
            old[0] = old[1] = 0;
        }
        cuplas_level_next next = cuplas_level_step(&s, before, after, &a);
        if (next == CUPLAS_LEVEL_DONE)
            break;
        if (threadIdx.x == 0) {
            if (next == CUPLAS_LEVEL_NEXT_CONFIG) {
                s_geom = cuplas_level_geom(&a, s.cfg);
                s_g = make_geom(s_geom);
            }
            s_perm = cuplas_pass_perm(&s_geom, a.seed, a.level, s.cfg, s.pass);
        }
        __syncthreads();
    }
    if (leader) {
        c->passes += s.passes;
        c->configs += s.cfg;
    }
}

/*
 * The offset tables of a block-local level, drawn once for all its
 * configurations: tab[(cfg * max_passes + pass) * n + o] = block offset o
 * of that pass's grouping as (oy << 16 | ox). One CTA per pass builds the
 * permutation once; every CTA of the level's configurations then reads
 * the same few KiB (L1/L2 hits) instead of evaluating the permutation 4
 * times a group.
 */
__global__ void local_tab_kernel(uint32_t *tab, cuplas_level_params a)
{
    __shared__ cuplas_perm s_perm;
    const uint32_t cfg = blockIdx.x / a.max_passes, pass = blockIdx.x % a.max_passes;
    const uint32_t n = a.bh * a.bw;
    if (threadIdx.x == 0) {
        cuplas_pass_geom pg = cuplas_level_geom(&a, cfg);
        s_perm = cuplas_pass_perm(&pg, a.seed, a.level, cfg, pass);
    }
    __syncthreads();
    const cuplas_perm perm = s_perm;
    const cuplas_udiv32 by_bw = cuplas_udiv32_make(a.bw);
    uint32_t *out = tab + (size_t)blockIdx.x * n;
    for (uint32_t o = threadIdx.x; o < n; o += blockDim.x) {
        uint32_t v = cuplas_perm_apply(&perm, o);
        uint32_t oy = cuplas_udiv32_div(v, by_bw);
        out[o] = oy << 16 | (v - oy * a.bw);
    }
}

/*
 * One configuration of a block-local level (core/level.h). Tile x (blocks
 * [x * bpt, (x + 1) * bpt)) belongs to one cluster of CTAs (launched with
 * a cluster dimension of 1, 2, 4 or 8: several CTAs for blocks large
 * enough to need them), which runs all max_passes passes over it with
 * only a cluster barrier between them: no other CTA touches the tile's
 * cells during the configuration, and the barrier's release/acquire
 * orders global memory across the cluster's CTAs. Offsets come from
 * `tab` (local_tab_kernel) when the level has one, else from the pass's
 * permutation. Whether the configuration runs is read from the previous
 * one's moved flag (slot (cfg - 1) % 3); CTA 0 clears slot (cfg + 1) % 3
 * for the next configuration, which no kernel in flight reads.
 */
template <int NC, bool PACKED, bool C3>
__global__ void __launch_bounds__(SOLVE_THREADS, LEVEL_MIN_BLOCKS(NC))
local_config_kernel(int16_t *q, int32_t *idx, const int16_t *t, int Cp, cuplas_level_params a,
                    uint32_t cfg, uint32_t bpt, const uint32_t *tab, cuplas_level_counters *c)
{
    __shared__ cuplas_pass_geom s_geom;
    __shared__ quad_geom s_g;
    cg::cluster_group cluster = cg::this_cluster();
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    const int prev = cfg == 0 ? 1 : (int)__ldcg(&c->moved[(cfg + 2) % 3]);
    if (leader)
        c->moved[(cfg + 1) % 3] = 0;
    if (!cuplas_local_config_runs(&a, cfg, prev))
        return;
    if (threadIdx.x == 0) {
        s_geom = cuplas_level_geom(&a, cfg);
        s_g = make_geom(s_geom);
    }
    __syncthreads();
    const quad_geom g = s_g;
    const uint32_t cs = cluster.num_blocks(), rank = cluster.block_rank();
    const uint32_t g0 = (blockIdx.x / cs) * bpt * g.quads;
    const uint32_t g1 = min(g0 + bpt * g.quads, g.total);
    const uint32_t n = 4 * g.quads, stride = cs * blockDim.x;
    unsigned long long cid = 0, cbest = 0;
    for (uint32_t p = 0; p < a.max_passes; p++) {
        const cuplas_perm perm = cuplas_pass_perm(&s_geom, a.seed, a.level, cfg, p);
        const uint32_t *ptab = tab ? tab + ((size_t)cfg * a.max_passes + p) * n : NULL;
        solve_range<NC, PACKED, C3>(q, idx, t, Cp, g, perm, ptab, g0 + rank * blockDim.x + threadIdx.x,
                                g1, stride, cid, cbest);
        if (cs > 1)
            cluster.sync();
        else
            __syncthreads();
    }
    /* every group's best is at most its identity: the sums differ iff a
     * group moved */
    if (__syncthreads_or(cbest != cid) && threadIdx.x == 0)
        c->moved[cfg % 3] = 1;
    if (leader) {
        c->configs += 1;
        c->passes += a.max_passes;
    }
}

template <int NC, bool PACKED>
__global__ void pass_kernel(int16_t *q, int32_t *idx, const int16_t *t, int Cp, quad_geom g,
                            cuplas_perm perm, cuplas_level_counters *c)
{
    uint32_t gi = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long cid = 0, cbest = 0;
    if (gi < g.total)
        solve_quad<NC, PACKED>(q, idx, t, Cp, g, perm, NULL, gi, cid, cbest);
    add_sums(c->sums, cid, cbest);
}

/* ------------------------------------------- groups of k > 4 (generic) */

/* A group pass's geometry: per = groups per block (core/level.h). */
struct group_geom {
    uint32_t H, W, bh, bw, nbx, n, k, per, total;
    uint32_t sy, sx;
};

static __host__ __device__ __forceinline__ group_geom make_group_geom(const cuplas_pass_geom &pg)
{
    group_geom g;
    g.H = (uint32_t)pg.H;
    g.W = (uint32_t)pg.W;
    g.bh = (uint32_t)pg.bh;
    g.bw = (uint32_t)pg.bw;
    g.nbx = g.W / g.bw;
    g.n = g.bh * g.bw;
    g.k = pg.group;
    g.per = cuplas_groups_per_block(g.n, g.k);
    g.total = g.nbx * (g.H / g.bh) * g.per;
    g.sy = (uint32_t)pg.sy;
    g.sx = (uint32_t)pg.sx;
    return g;
}

/* Cp = 4 NC <= 16: the points, not a 2 KiB cost matrix, in local memory
 * (at most 1 KiB for 16 cells of 16 channels); lap.h computes each cost
 * as it reads it (the same answer). */
template <int NC, bool PACKED>
static __device__ __forceinline__ void solve_group_points(int16_t *q, int32_t *idx,
                                                          const int16_t *t, size_t cs, int m,
                                                          const uint32_t *cell,
                                                          unsigned long long &cid,
                                                          unsigned long long &cbest)
{
    constexpr int CP = 4 * NC;
    int16_t xs[CUPLAS_LAP_MAX * CP], ts[CUPLAS_LAP_MAX * CP];
    for (int i = 0; i < m; i++) {
        const short4 *qv = (const short4 *)(q + cell[i] * cs);
        const short4 *tv = PACKED ? qv + NC : (const short4 *)(t + cell[i] * cs);
        for (int c = 0; c < NC; c++) {
            short4 a, b;
            if (PACKED && NC == 1) {
                const short4x2 rec = *(const short4x2 *)qv;
                a = rec.q;
                b = rec.t;
            } else {
                a = qv[c];
                b = tv[c];
            }
            int16_t *xo = xs + i * CP + 4 * c, *to = ts + i * CP + 4 * c;
            xo[0] = a.x, xo[1] = a.y, xo[2] = a.z, xo[3] = a.w;
            to[0] = b.x, to[1] = b.y, to[2] = b.z, to[3] = b.w;
        }
    }
    uint64_t ci = 0;
    for (int j = 0; j < m; j++)
        ci += cuplas_lap_sqdist(xs + j * CP, ts + j * CP, CP);
    uint8_t src[CUPLAS_LAP_MAX];
    const uint64_t cb = cuplas_lap_solve_pts(m, xs, ts, CP, src);
    cid += ci;
    cbest += cb;
    if (cb >= ci)
        return;
    int32_t id[CUPLAS_LAP_MAX];
    for (int j = 0; j < m; j++)
        if (src[j] != j)
            id[j] = idx[cell[j]];
    for (int j = 0; j < m; j++)
        if (src[j] != j) {
            idx[cell[j]] = id[src[j]];
            for (int c = 0; c < NC; c++) {
                const int16_t *v = xs + src[j] * CP + 4 * c;
                ((short4 *)(q + cell[j] * cs))[c] = make_short4(v[0], v[1], v[2], v[3]);
            }
        }
}

/* Wider vectors (Cp > 16): the k x k cost matrix, gathered 4 channels at
 * a time. */
template <bool PACKED>
static __device__ __forceinline__ void solve_group_matrix(int16_t *q, int32_t *idx,
                                                          const int16_t *t, int Cp,
                                                          size_t cs, int m,
                                                          const uint32_t *cell,
                                                          unsigned long long &cid,
                                                          unsigned long long &cbest)
{
    const int nc = Cp / 4;
    uint64_t D[CUPLAS_LAP_MAX * CUPLAS_LAP_MAX];
    for (int e = 0; e < m * m; e++)
        D[e] = 0;
    for (int c = 0; c < nc; c++) {
        short4 a[CUPLAS_LAP_MAX], tt[CUPLAS_LAP_MAX];
        for (int i = 0; i < m; i++) {
            const short4 *qv = (const short4 *)(q + cell[i] * cs);
            a[i] = qv[c];
            tt[i] = PACKED ? qv[nc + c] : ((const short4 *)(t + cell[i] * cs))[c];
        }
        for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++)
                D[i * m + j] += sq4(a[i], tt[j]);
    }
    uint64_t ci = 0;
    for (int j = 0; j < m; j++)
        ci += D[j * m + j];
    uint8_t src[CUPLAS_LAP_MAX];
    const uint64_t cb = cuplas_lap_solve(m, D, src);
    cid += ci;
    cbest += cb;
    if (cb >= ci)
        return;
    /* moved cells are closed under the arrangement: load them all first */
    int32_t id[CUPLAS_LAP_MAX];
    for (int j = 0; j < m; j++)
        if (src[j] != j)
            id[j] = idx[cell[j]];
    for (int j = 0; j < m; j++)
        if (src[j] != j)
            idx[cell[j]] = id[src[j]];
    for (int c = 0; c < nc; c++) {
        short4 a[CUPLAS_LAP_MAX];
        for (int i = 0; i < m; i++)
            if (src[i] != i)
                a[i] = ((const short4 *)(q + cell[i] * cs))[c];
        for (int j = 0; j < m; j++)
            if (src[j] != j)
                ((short4 *)(q + cell[j] * cs))[c] = a[src[j]];
    }
}

/*
 * Solve group gi (cells r*k .. r*k+m-1 of block b's permuted offsets) in
 * place; add its identity and optimal costs. The same costs and the same
 * lap.h steps as cpu/assign_cpu.c's group_pass, so the same arrangement;
 * only moved cells are read back and written (as solve_quad).
 */
template <int NC, bool PACKED>
static __device__ __forceinline__ void solve_group(int16_t *q, int32_t *idx, const int16_t *t,
                                                   int Cp, const group_geom &g,
                                                   const cuplas_perm &perm, uint32_t gi,
                                                   unsigned long long &cid,
                                                   unsigned long long &cbest)
{
    const uint32_t b = gi / g.per, r = gi - b * g.per;
    const uint32_t by = b / g.nbx, bx = b - by * g.nbx;
    const int m = cuplas_group_cells(g.n, g.k, r);
    const size_t cs = PACKED ? 2 * (size_t)Cp : (size_t)Cp;
    uint32_t cell[CUPLAS_LAP_MAX];
    for (int j = 0; j < m; j++) {
        uint32_t o = cuplas_perm_apply(&perm, r * g.k + (uint32_t)j);
        uint32_t oy = o / g.bw, ox = o - oy * g.bw;
        uint32_t y = by * g.bh + oy + g.sy, x = bx * g.bw + ox + g.sx;
        y = y >= g.H ? y - g.H : y;
        x = x >= g.W ? x - g.W : x;
        cell[j] = y * g.W + x;
    }
    if constexpr (NC > 0)
        solve_group_points<NC, PACKED>(q, idx, t, cs, m, cell, cid, cbest);
    else
        solve_group_matrix<PACKED>(q, idx, t, Cp, cs, m, cell, cid, cbest);
}

/* level_kernel's control loop around solve_group (see there). NC as
 * level_kernel's: Cp / 4 when known at compile time (1..4), else 0. */
template <int NC, bool PACKED>
__global__ void __launch_bounds__(SOLVE_THREADS, 2)
group_level_kernel(int16_t *q, int32_t *idx, const int16_t *t, int Cp, cuplas_level_params a,
                   cuplas_level_counters *c)
{
    __shared__ cuplas_pass_geom s_geom;
    __shared__ cuplas_perm s_perm;
    __shared__ unsigned long long s_red[SOLVE_THREADS / 32][2];
    cg::grid_group grid = cg::this_grid();
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    const uint32_t stride = gridDim.x * blockDim.x;
    cuplas_level_state s = cuplas_level_start();

    if (threadIdx.x == 0) {
        s_geom = cuplas_level_geom(&a, s.cfg);
        s_perm = cuplas_pass_perm(&s_geom, a.seed, a.level, s.cfg, s.pass);
    }
    __syncthreads();
    for (;;) {
        const group_geom g = make_group_geom(s_geom);
        const cuplas_perm perm = s_perm;
        unsigned long long cid = 0, cbest = 0;
        for (uint32_t gi = blockIdx.x * blockDim.x + threadIdx.x; gi < g.total; gi += stride)
            solve_group<NC, PACKED>(q, idx, t, Cp, g, perm, gi, cid, cbest);
        unsigned long long *slot = c->sums + 2 * (s.passes % 3);
        add_sums_block(slot, cid, cbest, s_red);
        grid.sync();
        uint64_t before = __ldcg(&slot[0]), after = __ldcg(&slot[1]);
        if (leader) {
            unsigned long long *old = c->sums + 2 * ((s.passes + 2) % 3);
            old[0] = old[1] = 0;
        }
        cuplas_level_next next = cuplas_level_step(&s, before, after, &a);
        if (next == CUPLAS_LEVEL_DONE)
            break;
        if (threadIdx.x == 0) {
            if (next == CUPLAS_LEVEL_NEXT_CONFIG)
                s_geom = cuplas_level_geom(&a, s.cfg);
            s_perm = cuplas_pass_perm(&s_geom, a.seed, a.level, s.cfg, s.pass);
        }
        __syncthreads();
    }
    if (leader) {
        c->passes += s.passes;
        c->configs += s.cfg;
    }
}

template <int NC, bool PACKED>
__global__ void group_pass_kernel(int16_t *q, int32_t *idx, const int16_t *t, int Cp,
                                  group_geom g, cuplas_perm perm, cuplas_level_counters *c)
{
    uint32_t gi = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long cid = 0, cbest = 0;
    if (gi < g.total)
        solve_group<NC, PACKED>(q, idx, t, Cp, g, perm, gi, cid, cbest);
    add_sums(c->sums, cid, cbest);
}

/* ---------------------------------------------------------------- launchers */

/* The level kernel for Cp channels: registers for up to 16 channels. */
typedef void (*level_fn)(int16_t *, int32_t *, const int16_t *, int, cuplas_level_params,
                         cuplas_level_counters *);

/* C = 3 in the packed layout: the costs skip the zero fourth channel. */
static level_fn level_kernel_for(int C, int Cp, int group)
{
    if (group > 4) {
        if (cuplas_assign_gpu_packed(Cp))
            return group_level_kernel<1, true>;   /* Cp = 4 */
        switch (Cp / 4) {
        case 2: return group_level_kernel<2, false>;
        case 3: return group_level_kernel<3, false>;
        case 4: return group_level_kernel<4, false>;
        }
        return group_level_kernel<0, false>;
    }
    if (cuplas_assign_gpu_packed(Cp))
        return C == 3 ? level_kernel<1, true, true> : level_kernel<1, true, false>; /* Cp = 4 */
    switch (Cp / 4) {
    case 2: return level_kernel<2, false, false>;
    case 3: return level_kernel<3, false, false>;
    case 4: return level_kernel<4, false, false>;
    }
    return level_kernel<0, false, false>;
}

int cuplas_assign_level_gpu_occupancy(int Cp, int group, int *blocks_per_sm, cuplas_error *err)
{
    int rc = 0;
    CUPLAS_CUDA_TRY(err, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                             blocks_per_sm, level_kernel_for(Cp, Cp, group), SOLVE_THREADS, 0));
fail:
    return rc;
}

typedef void (*local_fn)(int16_t *, int32_t *, const int16_t *, int, cuplas_level_params,
                         uint32_t, uint32_t, const uint32_t *, cuplas_level_counters *);

static local_fn local_kernel_for(int C, int Cp)
{
    if (cuplas_assign_gpu_packed(Cp))
        return C == 3 ? local_config_kernel<1, true, true> : local_config_kernel<1, true, false>;
    switch (Cp / 4) {
    case 2: return local_config_kernel<2, false, false>;
    case 3: return local_config_kernel<3, false, false>;
    case 4: return local_config_kernel<4, false, false>;
    }
    return local_config_kernel<0, false, false>;
}

/* A block-local level: one launch per configuration. Tiles of bpt
 * blocks fill the co-resident CTAs at most once; when there are fewer
 * blocks than CTAs, a cluster of up to 8 CTAs shares each block. Blocks
 * of at most PERM_TAB_MAX cells read their offsets from tables drawn
 * once for the level. */
static int local_level(int16_t *q, int32_t *idx, const int16_t *t, int C, int Cp,
                       const cuplas_level_params &a, uint32_t *tab,
                       cuplas_level_counters *c, int max_blocks, cudaStream_t stream,
                       cuplas_error *err)
{
    int rc = 0;
    const uint32_t nblocks = (a.W / a.bw) * (a.H / a.bh), slots = (uint32_t)max_blocks;
    const uint32_t bpt = (nblocks + slots - 1) / slots;
    const uint32_t tiles = (nblocks + bpt - 1) / bpt;
    uint32_t cs = 1;
    while (cs < 8 && tiles * cs * 2 <= slots && a.bh * a.bw / 4 >= cs * 2 * SOLVE_THREADS)
        cs *= 2;
    const uint32_t *ptab = a.bh * a.bw <= PERM_TAB_MAX ? tab : NULL;
    cudaLaunchConfig_t lc = {};
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = cs;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    lc.gridDim = dim3(tiles * cs);
    lc.blockDim = dim3(SOLVE_THREADS);
    lc.stream = stream;
    lc.attrs = at;
    lc.numAttrs = 1;
    const local_fn fn = local_kernel_for(C, Cp);
    CUPLAS_CUDA_TRY(err, cudaMemsetAsync(c->moved, 0, sizeof c->moved, stream));
    if (ptab) {
        local_tab_kernel<<<a.max_configs * a.max_passes, SOLVE_THREADS, 0, stream>>>(tab, a);
        CUPLAS_LAUNCH_CHECK(err, stream);
    }
    for (uint32_t cfg = 0; cfg < a.max_configs; cfg++) {
        CUPLAS_CUDA_TRY(err, cudaLaunchKernelEx(&lc, fn, q, idx, t, Cp, a, cfg, bpt, ptab, c));
        CUPLAS_LAUNCH_CHECK(err, stream);
    }
fail:
    return rc;
}

size_t cuplas_assign_local_tab_bytes(const cuplas_sort_params *p, int64_t N)
{
    if (p->local_cells == 0 || p->group_size > 4)
        return 0;
    size_t n = (size_t)(N < p->local_cells ? N : p->local_cells);
    n = n < PERM_TAB_MAX ? n : PERM_TAB_MAX;  /* larger blocks draw offsets as they go */
    return (size_t)p->max_configs * (size_t)p->max_passes * n * sizeof(uint32_t);
}

int cuplas_assign_level_gpu(int16_t *q, int32_t *idx, const int16_t *t, int C, int Cp,
                            cuplas_level_params a, uint32_t *tab, cuplas_level_counters *c,
                            int max_blocks, cudaStream_t stream, cuplas_error *err)
{
    int rc = 0;
    if (cuplas_level_is_local(&a))
        return local_level(q, idx, t, C, Cp, a, tab, c, max_blocks, stream, err);
    /* one group per thread where the grid allows; a grid-stride loop beyond */
    uint32_t per = a.group > 4 ? cuplas_groups_per_block(a.bh * a.bw, a.group) : a.bh * a.bw / 4;
    uint32_t quads = (uint32_t)((a.W / a.bw) * (a.H / a.bh) * per);
    unsigned blocks = cuplas_blocks(quads, SOLVE_THREADS);
    blocks = blocks < (unsigned)max_blocks ? blocks : (unsigned)max_blocks;
    void *args[] = {&q, &idx, &t, &Cp, &a, &c};
    CUPLAS_CUDA_TRY(err, cudaMemsetAsync(c->sums, 0, sizeof c->sums, stream));
    CUPLAS_CUDA_TRY(err, cudaLaunchCooperativeKernel((const void *)level_kernel_for(C, Cp, (int)a.group), dim3(blocks),
                                                     dim3(SOLVE_THREADS), args, 0, stream));
    CUPLAS_LAUNCH_CHECK(err, stream);
fail:
    return rc;
}

int cuplas_assign_pass_gpu(int16_t *q, int32_t *idx, const int16_t *t, int Cp,
                           const cuplas_pass_geom *pg, uint64_t seed, uint32_t level,
                           uint32_t cfg, uint32_t pass, cuplas_level_counters *c,
                           cudaStream_t stream, cuplas_error *err)
{
    int rc = 0;
    const quad_geom g = make_geom(*pg);
    const cuplas_perm perm = cuplas_pass_perm(pg, seed, level, cfg, pass);
    const unsigned blocks = cuplas_blocks(g.total, SOLVE_THREADS);
    CUPLAS_CUDA_TRY(err, cudaMemsetAsync(c->sums, 0, sizeof c->sums, stream));
    if (pg->group > 4) {
        const group_geom gg = make_group_geom(*pg);
        const unsigned gblocks = cuplas_blocks(gg.total, SOLVE_THREADS);
        typedef void (*group_pass_fn)(int16_t *, int32_t *, const int16_t *, int, group_geom,
                                      cuplas_perm, cuplas_level_counters *);
        group_pass_fn fn = group_pass_kernel<0, false>;
        if (cuplas_assign_gpu_packed(Cp))
            fn = group_pass_kernel<1, true>;
        else if (Cp / 4 == 2)
            fn = group_pass_kernel<2, false>;
        else if (Cp / 4 == 3)
            fn = group_pass_kernel<3, false>;
        else if (Cp / 4 == 4)
            fn = group_pass_kernel<4, false>;
        fn<<<gblocks, SOLVE_THREADS, 0, stream>>>(q, idx, t, Cp, gg, perm, c);
        CUPLAS_LAUNCH_CHECK(err, stream);
        return 0;
    }
    /* Cp = 4 (packed) in registers; wider vectors read Cp at run time */
    if (cuplas_assign_gpu_packed(Cp))
        pass_kernel<1, true><<<blocks, SOLVE_THREADS, 0, stream>>>(q, idx, t, Cp, g, perm, c);
    else
        pass_kernel<0, false><<<blocks, SOLVE_THREADS, 0, stream>>>(q, idx, t, Cp, g, perm, c);
    CUPLAS_LAUNCH_CHECK(err, stream);
fail:
    return rc;
}
