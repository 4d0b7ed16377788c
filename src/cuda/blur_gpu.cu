/*
 * blur_gpu.cu - the level's target on the GPU: exact integer box blurs
 * along x, then y, any H x W x Cp. CPU reference: cpu/blur_cpu.c.
 *
 * The grid is row-major [y][x][c] int16 with cells cs elements apart (Cp,
 * or 2 Cp when q and the target share one record per cell). A "line" is
 * one channel of one row (axis 0) or of one column (axis 1). A pass takes
 * the inclusive prefix sums P of every line and reads each output's window
 * sum from P in O(1) at any radius:
 *
 *   out[l][k] = round(window sum / (2r+1))
 *
 * Window sums that run past an edge are assembled from up to three P
 * differences according to the border mode, so the result equals the CPU
 * reference's sliding window bit for bit.
 *
 * Two ways to get P. When the lines of one row (or of a few adjacent
 * columns) fit in shared memory, which covers every grid up to 4096 wide
 * at C = 3 and 1024 at C = 16, one kernel per pass loads them, scans them
 * one warp per line and writes the outputs (line_kernel): one read and one
 * write of the grid. Longer lines take the general path through global
 * memory, four kernels per pass:
 *
 *   seg_sum -> seg_scan -> prefix   P[l][k] = in[l][0] + ... + in[l][k]
 *   window
 *
 * The general path cost ~4x the fused one at 1024^2 x 3 (ncu, H200: about
 * 140 us a level, more than the level's solve at small radii). Both round
 * with a precomputed multiply-shift division (cuda/udiv.cuh): the division
 * routine made the window kernel compute-bound.
 */
#include "cuda/blur_gpu.cuh"

#include "cuda/cuda_check.h"
#include "cuda/udiv.cuh"
#include "core/quad.h"

#define SEG 32
#define THREADS 256

/* ------------------------------------------------------------------ geometry */

/*
 * Lines cover the C real channels only: padding channels are zero in q and
 * stay zero in the target, as their blur would be. IT is the index type:
 * 32-bit whenever the grid allows, because 64-bit division made the window
 * kernel compute-bound.
 *
 * Segment order: in the column pass (axis 1) adjacent threads take
 * adjacent lines of one segment, so every load is coalesced; in the row
 * pass (axis 0) adjacent threads take the channels of one cell, then the
 * next segments of the same row, so a warp stays inside one row.
 */
template <typename IT>
struct axis_geom {
    IT lines, n, nseg;  /* lines, elements per line, segments per line */
    IT W;
    int C, Cp, axis;
    IT cs;              /* cell stride of in/out; P always uses Cp */
};

/* Start and step of line l in an array whose cells are cs elements apart. */
template <typename IT>
static __device__ __forceinline__ IT line_base(const axis_geom<IT> &g, IT l, IT cs)
{
    IT cell = l / g.C, c = l - cell * g.C;
    return g.axis == 0 ? cell * g.W * cs + c : cell * cs + c;
}

template <typename IT>
static __device__ __forceinline__ IT line_stride(const axis_geom<IT> &g, IT cs)
{
    return g.axis == 0 ? cs : g.W * cs;
}

/* Thread t of a per-segment kernel -> (line, segment); also the slot of
 * that segment's sum. Row pass: channel fastest, then segment, then row,
 * so a warp reads whole cells of a few neighbouring segments. */
template <typename IT>
static __device__ __forceinline__ void seg_of(const axis_geom<IT> &g, IT t, IT &l, IT &s)
{
    if (g.axis == 0) {
        IT c = t % g.C, rest = t / g.C, y = rest / g.nseg;
        s = rest - y * g.nseg;
        l = y * g.C + c;
    } else {
        s = t / g.lines;
        l = t - s * g.lines;
    }
}

template <typename IT>
static __device__ __forceinline__ IT seg_slot(const axis_geom<IT> &g, IT l, IT s)
{
    return g.axis == 0 ? l * g.nseg + s : s * g.lines + l;
}

/* ------------------------------------------------------------------ kernels */

template <typename PT, typename IT>
__global__ void seg_sum_kernel(PT *segs, const int16_t *in, axis_geom<IT> g)
{
    IT t = (IT)blockIdx.x * blockDim.x + threadIdx.x, l, s;
    if (t >= g.lines * g.nseg)
        return;
    seg_of(g, t, l, s);
    IT base = line_base(g, l, g.cs), stride = line_stride(g, g.cs);
    IT k1 = min(g.n, (s + 1) * SEG);
    PT sum = 0;
    for (IT k = s * SEG; k < k1; k++)
        sum += in[base + k * stride];
    segs[seg_slot(g, l, s)] = sum;
}

/* Exclusive scan over the segments of each line, in place: one warp per
 * line, 32 segments per step with a shuffle scan and a running carry. */
template <typename PT, typename IT>
__global__ void seg_scan_kernel(PT *segs, axis_geom<IT> g)
{
    IT l = ((IT)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (l >= g.lines)
        return; /* whole warps leave together: lines are per warp */
    PT carry = 0;
    for (IT s0 = 0; s0 < g.nseg; s0 += 32) {
        IT s = s0 + lane;
        PT v = s < g.nseg ? segs[seg_slot(g, l, s)] : (PT)0, x = v;
        for (int o = 1; o < 32; o <<= 1) {
            PT y = __shfl_up_sync(0xffffffffu, x, o);
            if (lane >= o)
                x += y;
        }
        if (s < g.nseg)
            segs[seg_slot(g, l, s)] = carry + x - v;
        carry += __shfl_sync(0xffffffffu, x, 31);
    }
}

template <typename PT, typename IT>
__global__ void prefix_kernel(PT *P, const PT *segs, const int16_t *in, axis_geom<IT> g)
{
    IT t = (IT)blockIdx.x * blockDim.x + threadIdx.x, l, s;
    if (t >= g.lines * g.nseg)
        return;
    seg_of(g, t, l, s);
    IT base = line_base(g, l, g.cs), stride = line_stride(g, g.cs);
    IT pbase = line_base(g, l, (IT)g.Cp), pstride = line_stride(g, (IT)g.Cp);
    IT k1 = min(g.n, (s + 1) * SEG);
    PT run = segs[seg_slot(g, l, s)];
    for (IT k = s * SEG; k < k1; k++) {
        run += in[base + k * stride];
        P[pbase + k * pstride] = run;
    }
}

template <typename PT, typename IT>
static __device__ __forceinline__ PT range_sum(const PT *P, IT base, IT stride, IT a, IT b)
{
    return P[base + b * stride] - (a > 0 ? P[base + (a - 1) * stride] : (PT)0);
}

/* Sum of in[B(k)] for k in [j-r, j+r], r <= n-1, B the border map. Signed
 * arithmetic for the window ends, which may lie outside [0, n). */
template <typename PT, typename IT>
static __device__ PT window_sum(const PT *P, IT base, IT stride, IT n, IT j, IT r,
                                cuplas_border border)
{
    int64_t lo = (int64_t)j - r, hi = (int64_t)j + r;
    PT s = range_sum(P, base, stride, (IT)(lo > 0 ? lo : 0), (IT)(hi < n - 1 ? hi : n - 1));
    if (lo < 0) {
        IT m = (IT)-lo;
        if (border == CUPLAS_BORDER_CIRCULAR)
            s += range_sum(P, base, stride, n - m, n - 1);
        else if (border == CUPLAS_BORDER_REFLECT)
            s += range_sum(P, base, stride, (IT)1, m);
        else
            s += (PT)m * range_sum(P, base, stride, (IT)0, (IT)0);
    }
    if (hi > (int64_t)n - 1) {
        IT m = (IT)(hi - ((int64_t)n - 1));
        if (border == CUPLAS_BORDER_CIRCULAR)
            s += range_sum(P, base, stride, (IT)0, m - 1);
        else if (border == CUPLAS_BORDER_REFLECT)
            s += range_sum(P, base, stride, n - 1 - m, n - 2);
        else
            s += (PT)m * range_sum(P, base, stride, n - 1, n - 1);
    }
    return s;
}

/* cuplas_div_round(s, w) in 32 bits: floor((2s + w) / 2w), the same
 * value while |2s + w| < 2^31 (the launcher checks); u divides by 2w. */
static __device__ __forceinline__ int32_t div_round32(int32_t s, int32_t w, const cuplas_udiv32 &u)
{
    int32_t num = 2 * s + w;
    if (num >= 0)
        return (int32_t)cuplas_udiv32_div((uint32_t)num, u);
    return -(int32_t)cuplas_udiv32_div((uint32_t)(-num) + u.d - 1, u);
}

template <typename PT, typename IT, bool R32>
__global__ void window_kernel(int16_t *out, const PT *P, axis_geom<IT> g, cuplas_border border,
                              IT r, cuplas_udiv32 u)
{
    IT e = (IT)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= g.lines * g.n)
        return;
    IT cell = e / g.C, c = e - cell * g.C, l, j;
    if (g.axis == 0) {
        IT y = cell / g.W;
        j = cell - y * g.W;
        l = y * g.C + c;
    } else {
        j = cell / g.W;
        l = (cell - j * g.W) * g.C + c;
    }
    PT s = window_sum(P, line_base(g, l, (IT)g.Cp), line_stride(g, (IT)g.Cp), g.n, j, r, border);
    out[(int64_t)cell * g.cs + c] =
        R32 ? (int16_t)div_round32((int32_t)s, 2 * (int32_t)r + 1, u)
            : (int16_t)cuplas_div_round((int64_t)s, 2 * (int64_t)r + 1);
}

/*
 * One pass over the lines a block owns, through shared memory. Axis 0: the
 * C lines of row blockIdx.x. Axis 1: the tw*C lines of columns
 * [blockIdx.x tw, +tw). S holds line l at S[l*ld ...] (ld odd, so the
 * lines of one cell fall in different banks). Loads and stores walk the
 * grid in memory order; each warp scans whole lines 32 elements a step.
 * A block reads all its cells before writing any, and no other block
 * touches them, so in == out is safe.
 */
static __device__ __forceinline__ void line_elem(uint32_t e, int C, uint32_t tw, int axis,
                                                 uint32_t &k, uint32_t &l, uint32_t &xt)
{
    uint32_t c = e % (uint32_t)C, rest = e / (uint32_t)C;
    if (axis == 0) {
        k = rest;          /* x */
        xt = 0;
        l = c;
    } else {
        k = rest / tw;     /* y */
        xt = rest - k * tw;
        l = xt * C + c;
    }
}

template <bool R32>
__global__ void line_kernel(int16_t *out, const int16_t *in, uint32_t H, uint32_t W, int C,
                            uint32_t cs, int axis, uint32_t tw, uint32_t ld, int r,
                            cuplas_border border, cuplas_udiv32 u)
{
    extern __shared__ int32_t S[];
    const uint32_t n = axis == 0 ? W : H;
    uint32_t y0 = 0, x0 = 0, twb = tw;
    if (axis == 0)
        y0 = blockIdx.x;
    else {
        x0 = blockIdx.x * tw;
        twb = W - x0 < tw ? W - x0 : tw;  /* the last tile may be narrower */
    }
    const uint32_t lines = axis == 0 ? (uint32_t)C : twb * C, elems = lines * n;
    for (uint32_t e = threadIdx.x; e < elems; e += blockDim.x) {
        uint32_t k, l, xt;
        line_elem(e, C, twb, axis, k, l, xt);
        uint32_t cell = axis == 0 ? y0 * W + k : k * W + x0 + xt;
        S[l * ld + k] = in[(size_t)cell * cs + (e % (uint32_t)C)];
    }
    __syncthreads();
    const int lane = threadIdx.x & 31;
    for (uint32_t l = threadIdx.x / 32; l < lines; l += blockDim.x / 32) {
        int32_t carry = 0;
        for (uint32_t k0 = 0; k0 < n; k0 += 32) {
            uint32_t k = k0 + lane;
            int32_t v = k < n ? S[l * ld + k] : 0;
            for (int o = 1; o < 32; o <<= 1) {
                int32_t t = __shfl_up_sync(0xffffffffu, v, o);
                if (lane >= o)
                    v += t;
            }
            if (k < n)
                S[l * ld + k] = carry + v;
            carry += __shfl_sync(0xffffffffu, v, 31);
        }
    }
    __syncthreads();
    for (uint32_t e = threadIdx.x; e < elems; e += blockDim.x) {
        uint32_t k, l, xt;
        line_elem(e, C, twb, axis, k, l, xt);
        uint32_t cell = axis == 0 ? y0 * W + k : k * W + x0 + xt;
        int32_t s = window_sum<int32_t, uint32_t>(S, l * ld, 1u, n, k, (uint32_t)r, border);
        out[(size_t)cell * cs + (e % (uint32_t)C)] =
            R32 ? (int16_t)div_round32(s, 2 * r + 1, u)
                : (int16_t)cuplas_div_round((int64_t)s, 2 * (int64_t)r + 1);
    }
}

/* ---------------------------------------------------------------- launchers */

/* Shared memory a fused pass may use per block (opted in above the 48 KB
 * default; an H100/H200 SM has 228 KB, so two blocks still fit). */
#define LINE_SMEM_MAX (96 * 1024)

/* Odd line pitch in shared memory for lines of n elements. */
static uint32_t line_ld(int64_t n) { return (uint32_t)(n | 1); }

/* Columns per block of the fused column pass: up to 4 adjacent columns (one
 * 32-byte sector per row at C <= 4 in the packed layout), fewer when their
 * lines do not fit; 0 when not even one column fits. */
static uint32_t line_tile(int64_t H, int64_t W, int C)
{
    for (uint32_t tw = W < 4 ? (uint32_t)W : 4; tw >= 1; tw /= 2)
        if ((int64_t)tw * C * line_ld(H) * 4 <= LINE_SMEM_MAX)
            return tw;
    return 0;
}

/* The fused pass, when the lines fit; 1 = done, 0 = take the general path. */
static int blur_pass_fused(int16_t *out, const int16_t *in, int64_t H, int64_t W, int C, int cs,
                           int axis, int r, cuplas_border border, cudaStream_t stream,
                           cuplas_error *err, int *done)
{
    int rc = 0;
    const int64_t n = axis == 0 ? W : H;
    const uint32_t ld = line_ld(n);
    uint32_t tw = 1, blocks;
    size_t smem;
    *done = 0;
    /* int32 prefix sums of int16 values are exact below 2^16 elements */
    if (n >= 65536 || H * W * (int64_t)cs >= ((int64_t)1 << 31))
        return 0;
    if (axis == 0) {
        smem = (size_t)C * ld * 4;
        blocks = (uint32_t)H;
    } else {
        tw = line_tile(H, W, C);
        smem = (size_t)tw * C * ld * 4;
        blocks = tw ? (uint32_t)((W + tw - 1) / tw) : 0;
    }
    if (!tw || smem > LINE_SMEM_MAX)
        return 0;
    {
        const bool r32 = (2 * (int64_t)r + 1) * (((int64_t)1 << 16) + 1) < ((int64_t)1 << 31);
        const cuplas_udiv32 u = cuplas_udiv32_make(2u * (2u * (uint32_t)r + 1u));
        void (*k)(int16_t *, const int16_t *, uint32_t, uint32_t, int, uint32_t, int, uint32_t,
                  uint32_t, int, cuplas_border, cuplas_udiv32) =
            r32 ? line_kernel<true> : line_kernel<false>;
        k<<<blocks, THREADS, smem, stream>>>(out, in, (uint32_t)H, (uint32_t)W, C, (uint32_t)cs,
                                             axis, tw, ld, r, border, u);
        CUPLAS_LAUNCH_CHECK(err, stream);
    }
    *done = 1;
fail:
    return rc;
}


/* int32 prefix sums are exact while a line sums below 2^31. */
static bool wide_prefix(int64_t H, int64_t W)
{
    return (H > W ? H : W) * (int64_t)CUPLAS_QMAX >= ((int64_t)1 << 31);
}

/* The line kernels' dynamic shared memory may reach LINE_SMEM_MAX. The
 * attribute is the kernel's, per device and shared by every lane of the
 * process, so it is set once, to the most any launch uses, when a lane's
 * context is made: set per launch to the launch's size, another lane could
 * lower it between the set and the launch (cudaErrorInvalidValue). */
int cuplas_blur_gpu_setup(cuplas_error *err)
{
    int rc = 0;
    CUPLAS_CUDA_TRY(err, cudaFuncSetAttribute((const void *)line_kernel<true>,
                                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              LINE_SMEM_MAX));
    CUPLAS_CUDA_TRY(err, cudaFuncSetAttribute((const void *)line_kernel<false>,
                                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              LINE_SMEM_MAX));
fail:
    return rc;
}

size_t cuplas_blur_gpu_workspace(int64_t H, int64_t W, int Cp)
{
    size_t pt = wide_prefix(H, W) ? 8 : 4;
    int64_t segs_x = H * Cp * ((W + SEG - 1) / SEG), segs_y = W * Cp * ((H + SEG - 1) / SEG);
    size_t p_bytes = (size_t)(H * W * Cp) * pt;
    p_bytes = (p_bytes + 255) & ~(size_t)255;
    return p_bytes + (size_t)(segs_x > segs_y ? segs_x : segs_y) * pt;
}

template <typename PT, typename IT>
static int blur_pass_t(int16_t *out, const int16_t *in, int64_t H, int64_t W, int C, int Cp,
                       int cs, int axis, int r, cuplas_border border, void *ws,
                       cudaStream_t stream, cuplas_error *err)
{
    int rc = 0;
    axis_geom<IT> g;
    g.W = (IT)W;
    g.C = C;
    g.Cp = Cp;
    g.cs = (IT)cs;
    g.axis = axis;
    g.lines = (IT)(axis == 0 ? H * C : W * C);
    g.n = (IT)(axis == 0 ? W : H);
    g.nseg = (g.n + SEG - 1) / SEG;
    size_t p_bytes = ((size_t)(H * W * Cp) * sizeof(PT) + 255) & ~(size_t)255;
    PT *P = (PT *)ws;
    PT *segs = (PT *)((char *)ws + p_bytes);
    int64_t nsegs = (int64_t)g.lines * g.nseg;

    seg_sum_kernel<PT, IT><<<cuplas_blocks(nsegs, THREADS), THREADS, 0, stream>>>(segs, in, g);
    CUPLAS_LAUNCH_CHECK(err, stream);
    seg_scan_kernel<PT, IT><<<cuplas_blocks((int64_t)g.lines * 32, THREADS), THREADS, 0, stream>>>(
        segs, g);
    CUPLAS_LAUNCH_CHECK(err, stream);
    prefix_kernel<PT, IT><<<cuplas_blocks(nsegs, THREADS), THREADS, 0, stream>>>(P, segs, in, g);
    CUPLAS_LAUNCH_CHECK(err, stream);
    /* |window sum| <= (2r+1) 2^15 for any int16 input (not only +-QMAX),
     * so |2s + w| <= (2r+1)(2^16 + 1) */
    if ((2 * (int64_t)r + 1) * (((int64_t)1 << 16) + 1) < ((int64_t)1 << 31))
        window_kernel<PT, IT, true><<<cuplas_blocks((int64_t)g.lines * g.n, THREADS), THREADS, 0,
                                      stream>>>(out, P, g, border, (IT)r,
                                                cuplas_udiv32_make(2u * (2u * (uint32_t)r + 1u)));
    else
        window_kernel<PT, IT, false><<<cuplas_blocks((int64_t)g.lines * g.n, THREADS), THREADS, 0,
                                       stream>>>(out, P, g, border, (IT)r, cuplas_udiv32_make(2u));
    CUPLAS_LAUNCH_CHECK(err, stream);
fail:
    return rc;
}

/* One box pass of radius r of `in` into `out` along x (axis 0) or y
 * (axis 1); in may equal out. */
static int blur_axis(int16_t *out, const int16_t *in, int64_t H, int64_t W, int C, int Cp,
                     int cs, int axis, int r, cuplas_border border, void *workspace,
                     cudaStream_t stream, cuplas_error *err)
{
    int done = 0, rc = blur_pass_fused(out, in, H, W, C, cs, axis, r, border, stream, err, &done);
    if (rc || done)
        return rc;
    /* 32-bit indices while every element index and thread id fits */
    bool narrow = H * W * (int64_t)cs < ((int64_t)1 << 31) - 32 * 256;
    if (wide_prefix(H, W))
        return narrow ? blur_pass_t<int64_t, uint32_t>(out, in, H, W, C, Cp, cs, axis, r, border,
                                                       workspace, stream, err)
                      : blur_pass_t<int64_t, int64_t>(out, in, H, W, C, Cp, cs, axis, r, border,
                                                      workspace, stream, err);
    return narrow ? blur_pass_t<int32_t, uint32_t>(out, in, H, W, C, Cp, cs, axis, r, border,
                                                   workspace, stream, err)
                  : blur_pass_t<int32_t, int64_t>(out, in, H, W, C, Cp, cs, axis, r, border,
                                                  workspace, stream, err);
}

int cuplas_blur_gpu(const int16_t *q, int16_t *target, int64_t H, int64_t W, int C, int Cp,
                    int cs, int rx, int ry, int passes, cuplas_border bx, cuplas_border by,
                    void *workspace, cudaStream_t stream, cuplas_error *err)
{
    int rc = 0;
    /* the first pass reads q, every later one works in place on target */
    for (int i = 0; i < passes; i++)
        CUPLAS_TRY(blur_axis(target, i == 0 ? q : target, H, W, C, Cp, cs, 0, rx, bx, workspace,
                             stream, err));
    for (int i = 0; i < passes; i++)
        CUPLAS_TRY(blur_axis(target, target, H, W, C, Cp, cs, 1, ry, by, workspace, stream,
                             err));
fail:
    return rc;
}
