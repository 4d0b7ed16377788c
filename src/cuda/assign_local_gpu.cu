/*
 * assign_local_gpu.cu - block-local levels on the GPU (core/level.h,
 * sort.local_cells). CPU reference: cpu/assign_cpu.c (local_level).
 *
 * The grid-wide barrier after each pass of the cooperative level kernel
 * (assign_gpu.cu) is what the small levels waited on (48 % of stall
 * cycles at 1024^2 x 3, bench/results/2026-11-24-h100-local r3). Here a
 * CTA, or a cluster of CTAs for a block larger than its share, keeps a
 * tile of blocks for all passes of a configuration (local_config_kernel),
 * reading each pass's offsets from tables drawn once per level
 * (local_tab_kernel). One launch per configuration; whether it runs is
 * decided on the device from the previous configuration's moved flag.
 */
#include <cooperative_groups.h>

#include "cuda/assign_parts.cuh"
#include "cuda/cuda_check.h"

namespace cg = cooperative_groups;

/* Offset tables larger than this are not made (cuplas_assign_local_tab_bytes
 * says 0): 786 KiB for the default preset, 2 MiB for `best`. */
#define LOCAL_TAB_MAX_BYTES (64.0 * 1048576)

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
        /* with a table the permutation is not needed: its Philox draw is
           about as much work as a thread's share of a small level's pass */
        const uint32_t *ptab = tab ? tab + ((size_t)cfg * a.max_passes + p) * n : NULL;
        cuplas_perm perm = {};
        if (!ptab)
            perm = cuplas_pass_perm(&s_geom, a.seed, a.level, cfg, p);
        for (uint32_t gi = g0 + rank * blockDim.x + threadIdx.x; gi < g1; gi += stride)
            solve_quad<NC, PACKED, C3>(q, idx, t, Cp, g, perm, ptab, gi, cid, cbest);
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
int cuplas_local_level_gpu(int16_t *q, int32_t *idx, const int16_t *t, int C, int Cp,
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
    const int passes = p->local_passes > 0 ? p->local_passes : p->max_passes;
    const double bytes = (double)p->max_configs * passes * n * sizeof(uint32_t);
    /* thousands of passes: the kernels draw every offset as they go */
    return bytes <= LOCAL_TAB_MAX_BYTES ? (size_t)bytes : 0;
}
