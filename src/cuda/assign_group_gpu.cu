/*
 * assign_group_gpu.cu - groups of k > 4 cells (sort.group_size 8, 16) on
 * the GPU: one thread per group of k cells gathers the k x k costs
 * (global memory, 4 channels at a time, any Cp), solves them with
 * core/lap.h in local memory, and writes back the cells that move. Up to
 * Cp = 16 it keeps the k points instead of the k x k matrix and lets
 * lap.h compute each cost as it reads it (cuplas_lap_solve_pts: 256 bytes
 * to 1 KiB of local memory per thread instead of 2 KiB). CPU reference:
 * cpu/assign_cpu.c (group_pass).
 *
 * group_level_kernel has its own copy of assign_gpu.cu's level_kernel
 * control loop, so the tuned 4-cell kernels stay as they were: one loop
 * templated on the pass (tried twice, bench/results/2026-11-24-h200-levers
 * r10, r11) gave the same results but made 1024^2 x 16 3.5-4 % slower
 * (ptxas spills the Cp = 16 kernel differently). Only the end of a pass
 * is shared (level_pass_end, assign_parts.cuh, inlined): that left
 * 1024^2 x 16 at 280.2 ms and the same AND (2026-11-24-h200-retire v6).
 */

#include "cuda/assign_parts.cuh"
#include "cuda/cuda_check.h"
#include "core/lap.h"

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

/* Cell j of a solved group takes the item of cell src[j]. The moved cells
 * are closed under the arrangement, so all their items are read first. */
static __device__ __forceinline__ void group_move_index(int32_t *idx, const uint32_t *cell,
                                                        const uint8_t *src, int m)
{
    int32_t id[CUPLAS_LAP_MAX];
    for (int j = 0; j < m; j++)
        if (src[j] != j)
            id[j] = idx[cell[j]];
    for (int j = 0; j < m; j++)
        if (src[j] != j)
            idx[cell[j]] = id[src[j]];
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
    group_move_index(idx, cell, src, m);
    for (int j = 0; j < m; j++)
        if (src[j] != j) {
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
    group_move_index(idx, cell, src, m);
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

cuplas_level_kernel_fn cuplas_group_level_kernel_for(int Cp)
{
    if (cuplas_assign_gpu_packed(Cp))
        return group_level_kernel<1, true>;   /* Cp = 4 */
    switch (Cp / 4) {
    case 2: return group_level_kernel<2, false>;
    case 3: return group_level_kernel<3, false>;
    case 4: return group_level_kernel<4, false>;
    }
    return group_level_kernel<0, false>;
}

int cuplas_group_pass_gpu(int16_t *q, int32_t *idx, const int16_t *t, int Cp,
                          const cuplas_pass_geom *pg, const cuplas_perm &perm,
                          cuplas_level_counters *c, cudaStream_t stream, cuplas_error *err)
{
    int rc = 0;
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
fail:
    return rc;
}
