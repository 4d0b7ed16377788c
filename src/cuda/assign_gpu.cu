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
 * The solve is in three parts: this file (grid-wide levels, single passes
 * and the launchers sort_gpu.cu calls), assign_local_gpu.cu (block-local
 * levels, core/level.h: blocks of at most sort.local_cells cells) and
 * assign_group_gpu.cu (sort.group_size 8 and 16); assign_parts.cuh holds
 * the device functions they share.
 */

#include "cuda/assign_parts.cuh"
#include "cuda/cuda_check.h"

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
        for (uint32_t gi = blockIdx.x * blockDim.x + threadIdx.x; gi < g.total; gi += stride)
            solve_quad<NC, PACKED, C3>(q, idx, t, Cp, g, perm, tab, gi, cid, cbest);
        const cuplas_level_next next = level_pass_end(c, &s, &a, cid, cbest, s_red, leader);
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

/* ---------------------------------------------------------------- launchers */

/* The level kernel for Cp channels: registers for up to 16 channels;
 * C = 3 in the packed layout: the costs skip the zero fourth channel. */
static cuplas_level_kernel_fn level_kernel_for(int C, int Cp, int group)
{
    if (group > 4)
        return cuplas_group_level_kernel_for(Cp, group);
    return SOLVE_KERNEL_FOR(level_kernel, C, Cp);
}

int cuplas_assign_level_gpu_occupancy(int Cp, int group, int *blocks_per_sm, cuplas_error *err)
{
    int rc = 0;
    CUPLAS_CUDA_TRY(err, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                             /* C = Cp: the 4-channel kernel; its 3-channel twin has the
                                same launch bounds, so the same occupancy */
                             blocks_per_sm, level_kernel_for(Cp, Cp, group), SOLVE_THREADS, 0));
fail:
    return rc;
}

int cuplas_assign_level_gpu(int16_t *q, int32_t *idx, const int16_t *t, int C, int Cp,
                            cuplas_level_params a, uint32_t *tab, cuplas_level_counters *c,
                            int max_blocks, cudaStream_t stream, cuplas_error *err)
{
    int rc = 0;
    if (cuplas_level_is_local(&a))
        return cuplas_local_level_gpu(q, idx, t, C, Cp, a, tab, c, max_blocks, stream, err);
    /* every group its threads where the grid allows; a grid-stride loop beyond */
    uint32_t per = a.group > 4 ? cuplas_groups_per_block(a.bh * a.bw, a.group) : a.bh * a.bw / 4;
    uint64_t threads = (uint64_t)(a.W / a.bw) * (a.H / a.bh) * per * cuplas_group_threads(a.group);
    unsigned blocks = cuplas_blocks((long long)threads, SOLVE_THREADS);
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
    if (pg->group > 4)
        return cuplas_group_pass_gpu(q, idx, t, Cp, pg, perm, c, stream, err);
    /* Cp = 4 (packed) in registers; wider vectors read Cp at run time */
    if (cuplas_assign_gpu_packed(Cp))
        pass_kernel<1, true><<<blocks, SOLVE_THREADS, 0, stream>>>(q, idx, t, Cp, g, perm, c);
    else
        pass_kernel<0, false><<<blocks, SOLVE_THREADS, 0, stream>>>(q, idx, t, Cp, g, perm, c);
    CUPLAS_LAUNCH_CHECK(err, stream);
fail:
    return rc;
}
