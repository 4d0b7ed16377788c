/*
 * assign_group_gpu.cu - groups of k > 4 cells (sort.group_size 8, 16;
 * sort.local_group_size also 32) on the GPU: a tile of k lanes of one warp
 * solves one group. Lane j owns the
 * group's cell j: it gathers that cell's value and target, computes the
 * column j of the k x k costs into shared memory, and keeps column j's
 * state of core/lap.h's solver in registers (potential, slack, way, the
 * row it holds). Each step of the solver's search is then one shared read,
 * a few integer operations and a tile-wide arg-min (one redux.sync while
 * the slacks are under 2^28, else three), in
 * place of a k-long loop over local memory in one thread (0.4.2: a 16-cell
 * pass cost ~57 four-cell passes, bench/results/2026-11-24-cpu-groups).
 * CPU reference: cpu/assign_cpu.c (group_pass).
 *
 * Same answer as lap.h, bit for bit: the tile runs lap.h's integer steps
 * in the same order. Its loops over columns are lanes; their one
 * order-dependent part, "the first column of least slack", is an arg-min
 * whose ties go to the lowest lane. Slacks are exact int64, compared as
 * unsigned after flipping the sign bit (order-preserving), 32 bits at a
 * time.
 *
 * group_level_kernel has its own copy of assign_gpu.cu's level_kernel
 * control loop, so the tuned 4-cell kernels stay as they were (one shared
 * loop made 1024^2 x 16 3.5-4 % slower: bench/results/2026-11-24-h200-levers
 * r10, r11). Only the end of a pass is shared (level_pass_end).
 */

#include "cuda/assign_parts.cuh"
#include "cuda/cuda_check.h"

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

/* One tile's shared workspace: D[i * K + j] = cost of value i on cell j;
 * x = one 4-channel chunk of every lane's value while the costs are
 * summed. */
template <int K>
struct group_tile {
    uint64_t D[K * K];
    short4 x[K];
};

/* The tile's lanes of this warp. */
template <int K>
static __device__ __forceinline__ unsigned tile_mask()
{
    return (K == 32 ? ~0u : (1u << K) - 1u) << ((threadIdx.x & 31) & ~(unsigned)(K - 1));
}

/* The least key of the tile and its lane, ties to the lowest lane (lap.h:
 * only a strictly smaller slack replaces the best). Slacks of columns
 * outside the tree are never negative (the potentials stay dual
 * feasible), so a slack under 2^28 and its lane share one 32-bit key: one
 * redux.sync. Otherwise the exact 64-bit form, 32 bits at a time. */
template <int K>
static __device__ __forceinline__ void tile_argmin(bool cand, int64_t minv, int l,
                                                   unsigned mask, int64_t &delta, int &j1)
{
    constexpr int B = K == 32 ? 5 : 4; /* bits of the lane */
    const unsigned k32 = cand && (uint64_t)minv < (1ull << (32 - B))
                             ? (unsigned)minv << B | (unsigned)l
                             : ~0u;
    const unsigned r = __reduce_min_sync(mask, k32);
    if (r != ~0u) {
        delta = (int64_t)(r >> B);
        j1 = (int)(r & ((1u << B) - 1u));
        return;
    }
    const uint64_t flip = 1ull << 63;
    const uint64_t key = cand ? (uint64_t)minv ^ flip : ~0ull;
    const unsigned hi = __reduce_min_sync(mask, (unsigned)(key >> 32));
    const unsigned lo = __reduce_min_sync(mask, (unsigned)(key >> 32) == hi ? (unsigned)key : ~0u);
    const uint64_t kmin = (uint64_t)hi << 32 | lo;
    j1 = (int)__reduce_min_sync(mask, key == kmin ? (unsigned)l : ~0u);
    delta = (int64_t)(kmin ^ flip);
}

/*
 * lap.h's solve of the m x m costs D (m <= K), one column and one row per
 * lane: lane l holds column l + 1 of lap.h's 1-based arrays (v, minv,
 * way, p, used) and row l + 1's potential u. The rows in the search tree
 * (lap.h: p[j] of the used columns, and row i) are `seen`: those are the
 * rows whose u grows by delta. Lanes l >= m take no part but keep the
 * tile converged. Returns the 1-based row that ends in this lane's column
 * (lap.h's p[l + 1]).
 */
template <int K>
static __device__ __forceinline__ int tile_lap(const uint64_t *D, int m, int l, unsigned mask)
{
    const int64_t inf = INT64_MAX / 4;
    const bool live = l < m;
    int64_t u = 0, v = 0;
    int p = 0, way = 0;
    for (int i = 1; i <= m; i++) {
        bool used = !live, seen = l == i - 1;
        int64_t minv = inf;
        int j0 = 0, i0 = i; /* the search's column (0: the start) and its row */
        for (;;) {
            const int64_t ui0 = __shfl_sync(mask, u, i0 - 1, K);
            if (!used) {
                const int64_t cur = (int64_t)D[(i0 - 1) * K + l] - ui0 - v;
                if (cur < minv) {
                    minv = cur;
                    way = j0;
                }
            }
            int64_t delta;
            int j1;
            tile_argmin<K>(!used, minv, l, mask, delta, j1);
            if (!used)
                minv -= delta;
            else if (live)
                v -= delta;
            if (seen)
                u += delta;
            used = used || l == j1;
            j0 = j1 + 1;
            i0 = __shfl_sync(mask, p, j1, K);
            if (i0 == 0)
                break;
            seen = seen || l == i0 - 1;
        }
        for (;;) { /* flip the augmenting path back to the start column */
            const int jw = __shfl_sync(mask, way, j0 - 1, K);
            const int pw = jw == 0 ? i : __shfl_sync(mask, p, jw - 1, K);
            if (l == j0 - 1)
                p = pw;
            j0 = jw;
            if (j0 == 0)
                break;
        }
    }
    return p;
}

/*
 * Solve group gi (cells r*k .. r*k+m-1 of block b's permuted offsets) in
 * place, lane l holding cell l; add its identity and optimal costs (split
 * over the lanes: each its own column's). The same costs and the same
 * lap.h steps as cpu/assign_cpu.c's group_pass, so the same arrangement;
 * only moved cells are written (as solve_quad).
 */
template <int NC, bool PACKED, int K>
static __device__ __forceinline__ void solve_group_tile(int16_t *q, int32_t *idx,
                                                        const int16_t *t, int Cp,
                                                        const group_geom &g,
                                                        const cuplas_perm &perm, uint32_t gi,
                                                        group_tile<K> &ws, int l, unsigned mask,
                                                        unsigned long long &cid,
                                                        unsigned long long &cbest)
{
    const uint32_t b = gi / g.per, r = gi - b * g.per;
    const uint32_t by = b / g.nbx, bx = b - by * g.nbx;
    const int m = cuplas_group_cells(g.n, g.k, r);
    const bool live = l < m;
    const int nc = NC > 0 ? NC : Cp / 4;
    const size_t cs = PACKED ? 2 * (size_t)Cp : (size_t)Cp;
    uint32_t cell = 0;
    if (live) {
        const uint32_t o = cuplas_perm_apply(&perm, r * g.k + (uint32_t)l);
        const uint32_t oy = o / g.bw, ox = o - oy * g.bw;
        uint32_t y = by * g.bh + oy + g.sy, x = bx * g.bw + ox + g.sx;
        y = y >= g.H ? y - g.H : y;
        x = x >= g.W ? x - g.W : x;
        cell = y * g.W + x;
    }
    const short4 zero = make_short4(0, 0, 0, 0);
    /* column l of the costs, 4 channels at a time: every lane's value
       chunk goes through shared memory once, its own target stays here */
    uint64_t acc[K];
#pragma unroll
    for (int i = 0; i < K; i++)
        acc[i] = 0;
    for (int c = 0; c < nc; c++) {
        short4 xc = zero, tc = zero;
        if (live) {
            const short4 *qv = (const short4 *)(q + cell * cs);
            if (PACKED) {
                const short4x2 rec = *(const short4x2 *)qv;
                xc = rec.q;
                tc = rec.t;
            } else {
                xc = qv[c];
                tc = ((const short4 *)(t + cell * cs))[c];
            }
        }
        ws.x[l] = xc;
        __syncwarp(mask);
#pragma unroll
        for (int i = 0; i < K; i++)
            if (i < m)
                acc[i] += sq4(ws.x[i], tc);
        __syncwarp(mask);
    }
    if (live) {
#pragma unroll
        for (int i = 0; i < K; i++)
            if (i < m)
                ws.D[i * K + l] = acc[i];
    }
    __syncwarp(mask);
    const int p = tile_lap<K>(ws.D, m, l, mask);
    const int src = p - 1;
    const uint64_t own = live ? ws.D[l * K + l] : 0, best = live ? ws.D[src * K + l] : 0;
    cid += own;
    cbest += best;
    /* the optimum is never above the identity; keep the identity unless
       strictly cheaper (lap.h's callers) */
    int64_t gain = (int64_t)(best - own);
#pragma unroll
    for (int o = K / 2; o > 0; o >>= 1)
        gain += __shfl_xor_sync(mask, gain, o, K);
    if (gain >= 0)
        return;
    /* cell l takes the item and value of cell src: every lane reads its
       own cell, the shuffle hands them over, each writes its own */
    const int32_t id = live ? idx[cell] : 0;
    const int32_t nid = __shfl_sync(mask, id, src & (K - 1), K);
    const bool moves = live && src != l;
    if (moves)
        idx[cell] = nid;
    for (int c = 0; c < nc; c++) {
        short4 xc = live ? ((const short4 *)(q + cell * cs))[c] : zero;
        int2 w = *(int2 *)&xc;
        w.x = __shfl_sync(mask, w.x, src & (K - 1), K);
        w.y = __shfl_sync(mask, w.y, src & (K - 1), K);
        if (moves)
            ((short4 *)(q + cell * cs))[c] = *(short4 *)&w;
    }
}

/* level_kernel's control loop around solve_group_tile (see there), one
 * tile of K lanes per group. NC as level_kernel's: Cp / 4 when known at
 * compile time (1..4), else 0. */
#ifndef GROUP_MIN_BLOCKS
#define GROUP_MIN_BLOCKS 4
#endif
template <int NC, bool PACKED, int K>
__global__ void __launch_bounds__(SOLVE_THREADS, GROUP_MIN_BLOCKS)
group_level_kernel(int16_t *q, int32_t *idx, const int16_t *t, int Cp, cuplas_level_params a,
                   cuplas_level_counters *c)
{
    constexpr uint32_t TILES = SOLVE_THREADS / (K > 16 ? 64 : K); /* cuplas_group_threads */
    __shared__ cuplas_pass_geom s_geom;
    __shared__ cuplas_perm s_perm;
    __shared__ unsigned long long s_red[SOLVE_THREADS / 32][2];
    __shared__ group_tile<K> s_tile[TILES];
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    const uint32_t stride = gridDim.x * TILES;
    const int l = (int)(threadIdx.x % K);
    const unsigned mask = tile_mask<K>();
    const bool tiled = threadIdx.x / K < TILES; /* k = 32: half the warps idle */
    group_tile<K> &ws = s_tile[tiled ? threadIdx.x / K : 0];
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
        for (uint32_t gi = blockIdx.x * TILES + threadIdx.x / K; tiled && gi < g.total;
             gi += stride)
            solve_group_tile<NC, PACKED, K>(q, idx, t, Cp, g, perm, gi, ws, l, mask, cid, cbest);
        const cuplas_level_next next = level_pass_end(c, &s, &a, cid, cbest, s_red, leader);
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

template <int NC, bool PACKED, int K>
__global__ void __launch_bounds__(SOLVE_THREADS)
group_pass_kernel(int16_t *q, int32_t *idx, const int16_t *t, int Cp, group_geom g,
                  cuplas_perm perm, cuplas_level_counters *c)
{
    constexpr uint32_t TILES = SOLVE_THREADS / (K > 16 ? 64 : K); /* cuplas_group_threads */
    __shared__ group_tile<K> s_tile[TILES];
    const uint32_t gi = blockIdx.x * TILES + threadIdx.x / K;
    unsigned long long cid = 0, cbest = 0;
    if (threadIdx.x / K < TILES && gi < g.total)
        solve_group_tile<NC, PACKED, K>(q, idx, t, Cp, g, perm, gi, s_tile[threadIdx.x / K],
                                        (int)(threadIdx.x % K), tile_mask<K>(), cid, cbest);
    add_sums(c->sums, cid, cbest);
}

/* The instance of kernel template KT for Cp channels and tiles of K lanes,
 * and for k-cell groups. */
#define GROUP_KERNEL_K(KT, Cp, K)                                                          \
    (cuplas_assign_gpu_packed(Cp) ? KT<1, true, K>                                         \
     : (Cp) == 8                  ? KT<2, false, K>                                        \
     : (Cp) == 12                 ? KT<3, false, K>                                        \
     : (Cp) == 16                 ? KT<4, false, K>                                        \
                                  : KT<0, false, K>)
#define GROUP_KERNEL_FOR(KT, Cp, k)                                                        \
    ((k) > 16  ? GROUP_KERNEL_K(KT, Cp, 32)                                                 \
     : (k) > 8 ? GROUP_KERNEL_K(KT, Cp, 16)                                                 \
               : GROUP_KERNEL_K(KT, Cp, 8))

cuplas_level_kernel_fn cuplas_group_level_kernel_for(int Cp, int k)
{
    return GROUP_KERNEL_FOR(group_level_kernel, Cp, k);
}

int cuplas_group_pass_gpu(int16_t *q, int32_t *idx, const int16_t *t, int Cp,
                          const cuplas_pass_geom *pg, const cuplas_perm &perm,
                          cuplas_level_counters *c, cudaStream_t stream, cuplas_error *err)
{
    int rc = 0;
    const group_geom gg = make_group_geom(*pg);
    const unsigned gblocks = cuplas_blocks((long long)gg.total * cuplas_group_threads(gg.k),
                                           SOLVE_THREADS);
    typedef void (*group_pass_fn)(int16_t *, int32_t *, const int16_t *, int, group_geom,
                                  cuplas_perm, cuplas_level_counters *);
    const group_pass_fn fn = GROUP_KERNEL_FOR(group_pass_kernel, Cp, gg.k);
    fn<<<gblocks, SOLVE_THREADS, 0, stream>>>(q, idx, t, Cp, gg, perm, c);
    CUPLAS_LAUNCH_CHECK(err, stream);
fail:
    return rc;
}
