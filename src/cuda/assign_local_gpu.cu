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
 *
 * When a CTA's blocks fit its shared memory (local_staged_kernel, the
 * usual case), it copies them in, runs every pass there and copies them
 * back: the passes' random gathers then never leave the SM, which pays
 * where the grid outgrows L2 (2048^2 x 3, 1024^2 x 16: 420 -> 395 and
 * 384 -> 332 ms, bench/results/2026-11-24-h100-staged). The moves are
 * those of the global-memory kernel, so the index is the same.
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

/* The start of a configuration, in both kernels below: whether it runs
 * is read from the previous one's moved flag (slot (cfg - 1) % 3); CTA 0
 * clears slot (cfg + 1) % 3 for the next configuration, which no kernel
 * in flight reads. If it runs, thread 0 puts its geometry in s_geom and
 * s_g for the CTA. */
static __device__ __forceinline__ bool config_begin(const cuplas_level_params &a, uint32_t cfg,
                                                    cuplas_level_counters *c,
                                                    cuplas_pass_geom *s_geom, quad_geom *s_g)
{
    const int prev = cfg == 0 ? 1 : (int)__ldcg(&c->moved[(cfg + 2) % 3]);
    if (blockIdx.x == 0 && threadIdx.x == 0)
        c->moved[(cfg + 1) % 3] = 0;
    if (!cuplas_local_config_runs(&a, cfg, prev))
        return false;
    if (threadIdx.x == 0) {
        *s_geom = cuplas_level_geom(&a, cfg);
        *s_g = make_geom(*s_geom);
    }
    __syncthreads();
    return true;
}

/* The end: every group's best is at most its identity, so the sums
 * differ iff a group of the CTA moved; count the configuration. */
static __device__ __forceinline__ void config_end(const cuplas_level_params &a, uint32_t cfg,
                                                  cuplas_level_counters *c,
                                                  unsigned long long cid,
                                                  unsigned long long cbest)
{
    if (__syncthreads_or(cbest != cid) && threadIdx.x == 0)
        c->moved[cfg % 3] = 1;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        c->configs += 1;
        c->passes += a.max_passes;
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
 * permutation.
 */
template <int NC, bool PACKED, bool C3>
__global__ void __launch_bounds__(SOLVE_THREADS, LEVEL_MIN_BLOCKS(NC))
local_config_kernel(int16_t *q, int32_t *idx, const int16_t *t, int Cp, cuplas_level_params a,
                    uint32_t cfg, uint32_t bpt, const uint32_t *tab, cuplas_level_counters *c)
{
    __shared__ cuplas_pass_geom s_geom;
    __shared__ quad_geom s_g;
    cg::cluster_group cluster = cg::this_cluster();
    if (!config_begin(a, cfg, c, &s_geom, &s_g))
        return;
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
    config_end(a, cfg, c, cid, cbest);
}

/* Grid cell of offset o (row-major in the block) of block b of a pass. */
static __device__ __forceinline__ uint32_t block_cell(const quad_geom &g, uint32_t b, uint32_t o)
{
    const uint32_t by = cuplas_udiv32_div(b, g.by_nbx), bx = b - by * g.nbx;
    const uint32_t oy = cuplas_udiv32_div(o, g.by_bw), ox = o - oy * g.bw;
    uint32_t y = by * g.bh + oy + g.sy, x = bx * g.bw + ox + g.sx;
    y = y >= g.H ? y - g.H : y;
    x = x >= g.W ? x - g.W : x;
    return y * g.W + x;
}

/* Copy `n` short4 chunks from a to b (a cell's row; rows are whole
 * chunks: Cp is a multiple of 4). */
static __device__ __forceinline__ void copy_row(short4 *b, const short4 *a, int n)
{
    for (int i = 0; i < n; i++)
        b[i] = a[i];
}

/* Elements from one staged cell to the next: the packed record (16
 * bytes), or Cp padded to an odd number of 8-byte chunks. A group's four
 * 8-byte gathers from random cells then spread over all 32 banks; at Cp =
 * 16 unpadded they met in 8 (10.4 wavefronts a load, s4 of
 * bench/results/2026-11-24-h100-staged). */
static __host__ __device__ __forceinline__ int staged_stride(int Cp)
{
    if (cuplas_assign_gpu_packed(Cp))
        return 2 * Cp;
    return (Cp / 4) % 2 ? Cp : Cp + 4;
}

/*
 * The same configuration with the tile staged in shared memory: the CTA
 * copies `bpc` blocks at a time (their values, targets and index
 * entries) into shared memory, runs all passes there, and writes the
 * values and index back; the target is only read. The passes make the
 * same moves in the same order as local_config_kernel's (solve_cells on
 * other addresses), so the result is identical; what changes is that a
 * pass's random gathers hit shared memory instead of L2 or DRAM. Used
 * when a block fits the CTA's shared memory and no cluster is needed.
 * In shared memory a cell is `ss` elements (the packed record, or the
 * value alone with the targets in a second array), block-major with the
 * block's offsets row-major, so a group's offset (oy, ox) is the cell
 * s * n + oy * bw + ox of slot s.
 */
template <int NC, bool PACKED, bool C3>
__global__ void __launch_bounds__(SOLVE_THREADS, LEVEL_MIN_BLOCKS(NC))
local_staged_kernel(int16_t *q, int32_t *idx, const int16_t *t, int Cp, cuplas_level_params a,
                    uint32_t cfg, uint32_t bpt, uint32_t bpc, const uint32_t *tab,
                    cuplas_level_counters *c)
{
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ cuplas_pass_geom s_geom;
    __shared__ quad_geom s_g;
    if (!config_begin(a, cfg, c, &s_geom, &s_g))
        return;
    const quad_geom g = s_g;
    const uint32_t n = 4 * g.quads, nblocks = g.total / g.quads;
    const int cs = PACKED ? 2 * Cp : Cp, rq = cs / 4, rt = PACKED ? 0 : Cp / 4;
    const int ss = staged_stride(Cp);
    int16_t *sq = (int16_t *)smem;
    int16_t *st = PACKED ? sq + Cp : sq + (size_t)bpc * n * ss;
    int32_t *sidx = (int32_t *)(smem + (size_t)bpc * n * (PACKED ? ss : 2 * ss) * sizeof(int16_t));
    const uint32_t b0 = blockIdx.x * bpt, b1 = min(b0 + bpt, nblocks);
    const cuplas_udiv32 by_n = cuplas_udiv32_make(n);
    unsigned long long cid = 0, cbest = 0;
    for (uint32_t cb = b0; cb < b1; cb += bpc) {
        const uint32_t nb = min(bpc, b1 - cb), cells = nb * n;
        for (uint32_t e = threadIdx.x; e < cells; e += blockDim.x) {
            const uint32_t s = cuplas_udiv32_div(e, by_n);
            const uint32_t gc = block_cell(g, cb + s, e - s * n);
            copy_row((short4 *)(sq + (size_t)e * ss), (const short4 *)(q + (size_t)gc * cs), rq);
            if (!PACKED)
                copy_row((short4 *)(st + (size_t)e * ss), (const short4 *)(t + (size_t)gc * Cp), rt);
            sidx[e] = idx[gc];
        }
        __syncthreads();
        for (uint32_t p = 0; p < a.max_passes; p++) {
            const uint32_t *ptab = tab ? tab + ((size_t)cfg * a.max_passes + p) * n : NULL;
            cuplas_perm perm = {};
            if (!ptab)
                perm = cuplas_pass_perm(&s_geom, a.seed, a.level, cfg, p);
            for (uint32_t k = threadIdx.x; k < nb * g.quads; k += blockDim.x) {
                const uint32_t s = cuplas_udiv32_div(k, g.by_quads), kk = k - s * g.quads;
                uint32_t cell[4];
                for (int j = 0; j < 4; j++) {
                    const uint32_t yx = ptab ? ptab[4 * kk + j] : offset_yx(g, perm, 4 * kk + j);
                    cell[j] = s * n + (yx >> 16) * g.bw + (yx & 0xffffu);
                }
                solve_cells<NC, PACKED, C3>(sq, sidx, st, Cp, ss, cell, cid, cbest);
            }
            __syncthreads();
        }
        /* values (not the packed targets, which did not change) and index */
        for (uint32_t e = threadIdx.x; e < cells; e += blockDim.x) {
            const uint32_t s = cuplas_udiv32_div(e, by_n);
            const uint32_t gc = block_cell(g, cb + s, e - s * n);
            copy_row((short4 *)(q + (size_t)gc * cs), (const short4 *)(sq + (size_t)e * ss),
                     PACKED ? Cp / 4 : rq);
            idx[gc] = sidx[e];
        }
        __syncthreads();
    }
    config_end(a, cfg, c, cid, cbest);
}

typedef void (*local_fn)(int16_t *, int32_t *, const int16_t *, int, cuplas_level_params,
                         uint32_t, uint32_t, const uint32_t *, cuplas_level_counters *);
typedef void (*staged_fn)(int16_t *, int32_t *, const int16_t *, int, cuplas_level_params,
                          uint32_t, uint32_t, uint32_t, const uint32_t *, cuplas_level_counters *);

static local_fn local_kernel_for(int C, int Cp)
{
    return SOLVE_KERNEL_FOR(local_config_kernel, C, Cp);
}

static staged_fn staged_kernel_for(int C, int Cp)
{
    return SOLVE_KERNEL_FOR(local_staged_kernel, C, Cp);
}

/* Shared-memory bytes of one staged cell: value and target (packed or
 * apart) and the index entry. */
static size_t staged_cell_bytes(int Cp)
{
    const int ss = staged_stride(Cp);
    return (size_t)(cuplas_assign_gpu_packed(Cp) ? ss : 2 * ss) * sizeof(int16_t) + sizeof(int32_t);
}

/*
 * Plan a staged launch: blocks per chunk (bpc), per tile (bpt), tiles and
 * shared bytes per CTA; false when a block does not fit a CTA's shared
 * memory. Tiles fill the CTAs that are resident with that much shared
 * memory at most once; a chunk takes as many of a tile's blocks as the
 * resident CTAs' share of an SM's shared memory holds.
 */
static bool staged_plan(staged_fn fn, int Cp, uint32_t nblocks, uint32_t n, uint32_t *bpc,
                        uint32_t *bpt, uint32_t *tiles, size_t *smem, cuplas_error *err, int *rcp)
{
    int rc = 0, dev = 0, optin = 0, sm_bytes = 0, sms = 0, per_sm = 0, stat = 0;
    const size_t block = (size_t)n * staged_cell_bytes(Cp);
    CUPLAS_CUDA_TRY(err, cudaGetDevice(&dev));
    CUPLAS_CUDA_TRY(err, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    CUPLAS_CUDA_TRY(err, cudaDeviceGetAttribute(&sm_bytes, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    CUPLAS_CUDA_TRY(err, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    {
        /* the dynamic part may take what the kernel's static part leaves */
        cudaFuncAttributes fa;
        CUPLAS_CUDA_TRY(err, cudaFuncGetAttributes(&fa, (const void *)fn));
        stat = (int)fa.sharedSizeBytes;
        optin -= stat;
    }
    if (block > (size_t)optin)
        return false;
    CUPLAS_CUDA_TRY(err, cudaFuncSetAttribute((const void *)fn,
                                              cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    CUPLAS_CUDA_TRY(err, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, SOLVE_THREADS, block));
    if (per_sm < 1)
        return false;
    *bpt = (nblocks + (uint32_t)(per_sm * sms) - 1) / (uint32_t)(per_sm * sms);
    *tiles = (nblocks + *bpt - 1) / *bpt;
    {
        /* the resident CTAs' share of the SM, less what each CTA holds
           besides its chunk (1 KiB reserved by the system, the static part) */
        size_t share = (size_t)sm_bytes / per_sm - 1024 - stat;
        share = share < (size_t)optin ? share : (size_t)optin;
        uint32_t fit = (uint32_t)(share / block);
        fit = fit < 1 ? 1 : fit;
        *bpc = fit < *bpt ? fit : *bpt;
    }
    *smem = *bpc * block;
    return true;
fail:
    *rcp = rc;
    return false;
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
    const staged_fn sfn = staged_kernel_for(C, Cp);
    uint32_t s_bpc = 0, s_bpt = 0, s_tiles = 0;
    size_t s_smem = 0;
    const bool staged = cs == 1 && staged_plan(sfn, Cp, nblocks, a.bh * a.bw, &s_bpc, &s_bpt,
                                               &s_tiles, &s_smem, err, &rc);
    if (rc)
        goto fail;
    CUPLAS_CUDA_TRY(err, cudaMemsetAsync(c->moved, 0, sizeof c->moved, stream));
    if (ptab) {
        local_tab_kernel<<<a.max_configs * a.max_passes, SOLVE_THREADS, 0, stream>>>(tab, a);
        CUPLAS_LAUNCH_CHECK(err, stream);
    }
    for (uint32_t cfg = 0; cfg < a.max_configs; cfg++) {
        if (staged)
            sfn<<<s_tiles, SOLVE_THREADS, s_smem, stream>>>(q, idx, t, Cp, a, cfg, s_bpt, s_bpc,
                                                             ptab, c);
        else
            CUPLAS_CUDA_TRY(err, cudaLaunchKernelEx(&lc, fn, q, idx, t, Cp, a, cfg, bpt, ptab, c));
        CUPLAS_LAUNCH_CHECK(err, stream);
    }
fail:
    return rc;
}

size_t cuplas_assign_local_tab_bytes(const cuplas_sort_params *p, int64_t N)
{
    /* no block-local levels: none at all, or larger groups on the small
       levels (all levels' groups when group_size > 4) */
    if (p->local_cells == 0 || cuplas_group_small(p) > 4)
        return 0;
    size_t n = (size_t)(N < p->local_cells ? N : p->local_cells);
    n = n < PERM_TAB_MAX ? n : PERM_TAB_MAX;  /* larger blocks draw offsets as they go */
    const int passes = p->local_passes > 0 ? p->local_passes : p->max_passes;
    const double bytes = (double)p->max_configs * passes * n * sizeof(uint32_t);
    /* thousands of passes: the kernels draw every offset as they go */
    return bytes <= LOCAL_TAB_MAX_BYTES ? (size_t)bytes : 0;
}
