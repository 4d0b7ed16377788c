/*
 * assign_parts.cuh - what the three parts of the GPU solve share: the
 * 4-cell solve as device functions, the pass sums, and the launchers one
 * part calls in another. Included only by assign_gpu.cu (grid-wide levels
 * and single passes), assign_local_gpu.cu (block-local levels) and
 * assign_group_gpu.cu (groups of k > 4); everything here is static
 * inline, so each part compiles its own copy into its kernels.
 */
#ifndef CUPLAS_ASSIGN_PARTS_CUH
#define CUPLAS_ASSIGN_PARTS_CUH

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/assign_gpu.cuh"
#include "cuda/udiv.cuh"
#include "core/level.h"
#include "core/quad.h"
#include "util/error.h"

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

/* Two consecutive 4-channel chunks of one cell, one 16-byte load. */
struct __align__(16) chunk_pair {
    short4 lo, hi;
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

/* The best arrangement of D (costs under 2^32: the 32-bit variant), its
 * sums added to cid and cbest, and the index entries of the cells that
 * change moved; false when the identity is best (nothing to write). */
static __device__ __forceinline__ uint32_t quad_best_of(const uint32_t D[4][4], uint64_t *ci,
                                                        uint64_t *cb)
{
    return cuplas_quad_best32(D, ci, cb);
}

static __device__ __forceinline__ uint32_t quad_best_of(const uint64_t D[4][4], uint64_t *ci,
                                                        uint64_t *cb)
{
    return cuplas_quad_best(D, ci, cb);
}

template <typename T>
static __device__ __forceinline__ bool quad_choose(const T D[4][4], int32_t *idx,
                                                   const uint32_t cell[4],
                                                   unsigned long long &cid,
                                                   unsigned long long &cbest, uint32_t src[4])
{
    uint64_t ci, cb;
    const uint32_t code = quad_best_of(D, &ci, &cb);
    cid += ci;
    cbest += cb;
    if (cb == ci)
        return false;
    quad_move_index(idx, cell, code, src);
    return true;
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
    uint32_t src[4];
    if (!quad_choose(D, idx, cell, cid, cbest, src))
        return;
    for (int j = 0; j < 4; j++)
        if (src[j] != (uint32_t)j)
            *(short4 *)(q + cell[j] * 8) = pick4(r, src[j]).q;
}

/*
 * Solve the group of cells cell[0..3] in place; add its identity and best
 * costs. The cells index q, idx and t, in global memory or in a staged
 * copy in shared memory (assign_local_gpu.cu); cs: elements from one
 * cell's values (and targets, apart) to the next's, where the packed
 * layout (PACKED && NC == 1) has 8.
 * NC = Cp/4 chunks known at compile time (1..4) keeps the four cells'
 * values in registers between scoring and writing; NC = 0 reads Cp at
 * run time and reloads them (wide feature vectors). PACKED: cells 2 Cp
 * elements apart with t == q + Cp; else Cp apart. C3: the grid has 3
 * channels, packed with a zero fourth (as is its target: the blur leaves
 * padding channels zero), so the costs skip it. (A thread solving two
 * groups at a time, both gathered before either is scored, was slower:
 * spills at 80 registers; bench/results/2026-11-24-h100-local r6.)
 */
template <int NC, bool PACKED, bool C3 = false, bool WIDE = false>
static __device__ __forceinline__ void solve_cells(int16_t *q, int32_t *idx, const int16_t *t,
                                                   int Cp, size_t cs, const uint32_t cell[4],
                                                   unsigned long long &cid,
                                                   unsigned long long &cbest)
{
    if constexpr (PACKED && NC == 1) {
        short4x2 r[4];
        for (int j = 0; j < 4; j++)
            r[j] = *(const short4x2 *)(q + cell[j] * 8);
        packed_finish<C3>(q, idx, cell, r, cid, cbest);
        return;
    }
    const int nc = NC ? NC : Cp / 4;
    const short4 *qv[4], *tv[4];
    for (int j = 0; j < 4; j++) {
        qv[j] = (const short4 *)(q + cell[j] * cs);
        tv[j] = PACKED ? qv[j] + nc : (const short4 *)(t + cell[j] * cs);
    }
    short4 keep[NC ? NC : 1][4];
    uint64_t D[4][4] = {{0}};
    chunk_pair pa[4], pt[4];   /* WIDE: chunks c and c + 1, loaded at even c */
    for (int c = 0; c < nc; c++) {
        short4 a[4], tt[4];
        for (int i = 0; i < 4; i++) {
            if (WIDE) {
                if (c % 2 == 0) {
                    pa[i] = ((const chunk_pair *)qv[i])[c / 2];
                    pt[i] = ((const chunk_pair *)tv[i])[c / 2];
                }
                a[i] = c % 2 ? pa[i].hi : pa[i].lo;
                tt[i] = c % 2 ? pt[i].hi : pt[i].lo;
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
    uint32_t src[4];
    if (!quad_choose(D, idx, cell, cid, cbest, src))
        return;
    for (int c = 0; c < nc; c++) {
        short4 a[4];
        for (int i = 0; i < 4; i++)
            a[i] = NC ? keep[NC ? c : 0][i] : qv[i][c];
        for (int j = 0; j < 4; j++)
            if (src[j] != (uint32_t)j)
                ((short4 *)qv[j])[c] = pick4(a, src[j]);
    }
}

/* Group gi of the pass, in place on the grid (q, idx, t in global memory). */
template <int NC, bool PACKED, bool C3 = false>
static __device__ __forceinline__ void solve_quad(int16_t *q, int32_t *idx, const int16_t *t,
                                                  int Cp, const quad_geom &g,
                                                  const cuplas_perm &perm, const uint32_t *tab,
                                                  uint32_t gi, unsigned long long &cid,
                                                  unsigned long long &cbest)
{
    /* rows of 8 or 16 channels are 16 or 32 bytes, 16-byte aligned: two
       chunks a load, half the requests to L1 and L2 */
    constexpr bool WIDE = !PACKED && (NC == 2 || NC == 4);
    uint32_t cell[4];
    quad_cells(g, perm, tab, gi, cell);
    solve_cells<NC, PACKED, C3, WIDE>(q, idx, t, Cp, PACKED ? 2 * (size_t)Cp : (size_t)Cp, cell,
                                      cid, cbest);
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

/* The end of one pass of a grid-wide level (level_kernel, group_level_kernel;
 * a cooperative launch): the block's sums into this pass's slot, the grid
 * barrier, then every thread reads the totals and takes the same decision
 * (core/level.h). Slots rotate over three, so the leader clears the slot
 * two passes ahead, after this barrier and two barriers before its use. */
static __device__ __forceinline__ cuplas_level_next
level_pass_end(cuplas_level_counters *c, cuplas_level_state *s, const cuplas_level_params *a,
               unsigned long long cid, unsigned long long cbest, unsigned long long (*red)[2],
               bool leader)
{
    unsigned long long *slot = c->sums + 2 * (s->passes % 3);
    add_sums_block(slot, cid, cbest, red);
    cooperative_groups::this_grid().sync();
    const uint64_t before = __ldcg(&slot[0]), after = __ldcg(&slot[1]);
    if (leader) {
        unsigned long long *old = c->sums + 2 * ((s->passes + 2) % 3);
        old[0] = old[1] = 0;
    }
    return cuplas_level_step(s, before, after, a);
}

/* The instance of solve kernel template K for C channels padded to Cp:
 * the packed record at Cp = 4 (with 3-channel costs when C = 3), 8, 12 or
 * 16 channels in registers, wider vectors read at run time. One choice for
 * the level, block-local and staged kernels. */
#define SOLVE_KERNEL_FOR(K, C, Cp)                                                      \
    (cuplas_assign_gpu_packed(Cp) ? ((C) == 3 ? K<1, true, true> : K<1, true, false>)     \
     : (Cp) == 8                  ? K<2, false, false>                                    \
     : (Cp) == 12                 ? K<3, false, false>                                    \
     : (Cp) == 16                 ? K<4, false, false>                                    \
                                  : K<0, false, false>)

/* Resident blocks per SM the level kernel is compiled for: Cp = 4 fits
 * 3 x 256 threads in 80 registers (without the bound, ptxas's choice flips
 * between 80 and 122 registers on unrelated edits, and 122 allow only 2);
 * wider vectors need up to 128 registers, 2 blocks either way (Cp = 16
 * bound to 3 blocks spills 300-744 bytes and takes 1.4-1.8x the time:
 * bench/results/2026-11-24-h100-staged s15). */
#define LEVEL_MIN_BLOCKS(NC) ((NC) == 1 ? 3 : 2)

/* ------------------------------------------------- the parts' launchers */

/* A cooperative level kernel (core/level.h's control in every thread). */
typedef void (*cuplas_level_kernel_fn)(int16_t *, int32_t *, const int16_t *, int,
                                       cuplas_level_params, cuplas_level_counters *);

/* Threads a group of k cells takes in a launch: one for k = 4
 * (solve_quad), a tile of 8 or 16 lanes of a warp, or for k = 32 a whole
 * warp and an idle one (a CTA's shared memory holds 4 tiles of 32 x 32
 * costs, not 8: assign_group_gpu.cu). The one rule for launch sizes. */
static __host__ __device__ __forceinline__ unsigned cuplas_group_threads(uint32_t k)
{
    return k > 16 ? 64u : k > 8 ? 16u : k > 4 ? 8u : 1u;
}

/* assign_group_gpu.cu: the level kernel for groups of k > 4 cells, and
 * one such pass (the parity tests). */
cuplas_level_kernel_fn cuplas_group_level_kernel_for(int Cp, int k);
int cuplas_group_pass_gpu(int16_t *q, int32_t *idx, const int16_t *t, int Cp,
                          const cuplas_pass_geom *pg, const cuplas_perm &perm,
                          cuplas_level_counters *c, cudaStream_t stream, cuplas_error *err);

/* assign_local_gpu.cu: all configurations of a block-local level. */
int cuplas_local_level_gpu(int16_t *q, int32_t *idx, const int16_t *t, int C, int Cp,
                           const cuplas_level_params &a, uint32_t *tab,
                           cuplas_level_counters *c, int max_blocks, cudaStream_t stream,
                           cuplas_error *err);

#endif
