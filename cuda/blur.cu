/*
 * blur.cu - exact integer box blur along one axis, any H x W x Cp.
 *
 * The grid is row-major [y][x][c] int16. A "line" is one channel of one row
 * (axis 0) or of one column (axis 1); lines are numbered so that adjacent
 * threads touch adjacent addresses in the column pass. Per pass:
 *
 *   seg_sum -> seg_scan -> prefix   P[l][k] = in[l][0] + ... + in[l][k]
 *   window                          out[l][k] = round(window sum / (2r+1))
 *
 * Window sums that run past an edge are assembled from up to three P
 * differences according to the border mode, so the result equals the CPU
 * reference's sliding window bit for bit and costs O(1) per cell at any r.
 */
#include "blur.cuh"

#include "cuda_check.h"
#include "hd_quad.h"

#define SEG 32
#define THREADS 256

/* ------------------------------------------------------------------ geometry */

/* Lines cover the C real channels only: padding channels are zero in q
 * and stay zero in the target, as their blur would be. */
struct axis_geom {
    int64_t lines, n;   /* number of lines, elements per line */
    int64_t W;
    int C, Cp, axis;
};

static __device__ __forceinline__ int64_t line_base(const axis_geom &g, int64_t l)
{
    return g.axis == 0 ? (l / g.C) * g.W * g.Cp + l % g.C : (l / g.C) * g.Cp + l % g.C;
}

static __device__ __forceinline__ int64_t line_stride(const axis_geom &g)
{
    return g.axis == 0 ? g.Cp : g.W * g.Cp;
}

/* ------------------------------------------------------------------ kernels */

template <typename PT>
__global__ void seg_sum_kernel(PT *segs, const int16_t *in, axis_geom g)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t nseg = (g.n + SEG - 1) / SEG;
    if (t >= g.lines * nseg)
        return;
    int64_t l = t % g.lines, s = t / g.lines;
    int64_t base = line_base(g, l), stride = line_stride(g);
    int64_t k1 = min(g.n, (s + 1) * SEG);
    PT sum = 0;
    for (int64_t k = s * SEG; k < k1; k++)
        sum += in[base + k * stride];
    segs[t] = sum;
}

/* Exclusive scan over the segments of each line, in place. */
template <typename PT>
__global__ void seg_scan_kernel(PT *segs, axis_geom g)
{
    int64_t l = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (l >= g.lines)
        return;
    int64_t nseg = (g.n + SEG - 1) / SEG;
    PT run = 0;
    for (int64_t s = 0; s < nseg; s++) {
        PT v = segs[s * g.lines + l];
        segs[s * g.lines + l] = run;
        run += v;
    }
}

template <typename PT>
__global__ void prefix_kernel(PT *P, const PT *segs, const int16_t *in, axis_geom g)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t nseg = (g.n + SEG - 1) / SEG;
    if (t >= g.lines * nseg)
        return;
    int64_t l = t % g.lines, s = t / g.lines;
    int64_t base = line_base(g, l), stride = line_stride(g);
    int64_t k1 = min(g.n, (s + 1) * SEG);
    PT run = segs[t];
    for (int64_t k = s * SEG; k < k1; k++) {
        run += in[base + k * stride];
        P[base + k * stride] = run;
    }
}

template <typename PT>
static __device__ __forceinline__ PT range_sum(const PT *P, int64_t base, int64_t stride,
                                               int64_t a, int64_t b)
{
    return P[base + b * stride] - (a > 0 ? P[base + (a - 1) * stride] : (PT)0);
}

/* Sum of in[B(k)] for k in [j-r, j+r], r <= n-1, B the border map. */
template <typename PT>
static __device__ PT window_sum(const PT *P, int64_t base, int64_t stride, int64_t n,
                                int64_t j, int64_t r, cuplas_border border)
{
    int64_t lo = j - r, hi = j + r;
    PT s = range_sum(P, base, stride, max(lo, (int64_t)0), min(hi, n - 1));
    if (lo < 0) {
        int64_t m = -lo;
        if (border == CUPLAS_BORDER_CIRCULAR)
            s += range_sum(P, base, stride, n - m, n - 1);
        else if (border == CUPLAS_BORDER_REFLECT)
            s += range_sum(P, base, stride, 1, m);
        else
            s += (PT)m * range_sum(P, base, stride, 0, 0);
    }
    if (hi > n - 1) {
        int64_t m = hi - (n - 1);
        if (border == CUPLAS_BORDER_CIRCULAR)
            s += range_sum(P, base, stride, 0, m - 1);
        else if (border == CUPLAS_BORDER_REFLECT)
            s += range_sum(P, base, stride, n - 1 - m, n - 2);
        else
            s += (PT)m * range_sum(P, base, stride, n - 1, n - 1);
    }
    return s;
}

template <typename PT>
__global__ void window_kernel(int16_t *out, const PT *P, axis_geom g, cuplas_border border,
                              int64_t r)
{
    int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t total = g.lines * g.n;
    if (e >= total)
        return;
    int64_t cell = e / g.C, c = e - cell * g.C, l, j;
    if (g.axis == 0) {
        j = cell % g.W;
        l = (cell / g.W) * g.C + c;
    } else {
        l = (cell % g.W) * g.C + c;
        j = cell / g.W;
    }
    PT s = window_sum(P, line_base(g, l), line_stride(g), g.n, j, r, border);
    out[cell * g.Cp + c] = (int16_t)cuplas_div_round((int64_t)s, 2 * r + 1);
}

/* ---------------------------------------------------------------- launchers */

/* int32 prefix sums are exact while a line sums below 2^31. */
static bool wide_prefix(int64_t H, int64_t W)
{
    return (H > W ? H : W) * (int64_t)CUPLAS_QMAX >= ((int64_t)1 << 31);
}

size_t cuplas_blur_workspace(int64_t H, int64_t W, int Cp)
{
    size_t pt = wide_prefix(H, W) ? 8 : 4;
    int64_t segs_x = H * Cp * ((W + SEG - 1) / SEG), segs_y = W * Cp * ((H + SEG - 1) / SEG);
    size_t p_bytes = (size_t)(H * W * Cp) * pt;
    p_bytes = (p_bytes + 255) & ~(size_t)255;
    return p_bytes + (size_t)(segs_x > segs_y ? segs_x : segs_y) * pt;
}

template <typename PT>
static int blur_pass_t(int16_t *out, const int16_t *in, int64_t H, int64_t W, int C, int Cp,
                       int axis, int r, cuplas_border border, void *ws, cudaStream_t stream,
                       cuplas_error *err)
{
    int rc = 0;
    axis_geom g;
    g.W = W;
    g.C = C;
    g.Cp = Cp;
    g.axis = axis;
    g.lines = axis == 0 ? H * C : W * C;
    g.n = axis == 0 ? W : H;
    int64_t nseg = (g.n + SEG - 1) / SEG;
    size_t p_bytes = ((size_t)(H * W * Cp) * sizeof(PT) + 255) & ~(size_t)255;
    PT *P = (PT *)ws;
    PT *segs = (PT *)((char *)ws + p_bytes);

    seg_sum_kernel<PT><<<cuplas_blocks(g.lines * nseg, THREADS), THREADS, 0, stream>>>(segs, in, g);
    CUPLAS_LAUNCH_CHECK(err, stream);
    seg_scan_kernel<PT><<<cuplas_blocks(g.lines, THREADS), THREADS, 0, stream>>>(segs, g);
    CUPLAS_LAUNCH_CHECK(err, stream);
    prefix_kernel<PT><<<cuplas_blocks(g.lines * nseg, THREADS), THREADS, 0, stream>>>(P, segs, in, g);
    CUPLAS_LAUNCH_CHECK(err, stream);
    window_kernel<PT><<<cuplas_blocks(g.lines * g.n, THREADS), THREADS, 0, stream>>>(
        out, P, g, border, r);
    CUPLAS_LAUNCH_CHECK(err, stream);
fail:
    return rc;
}

int cuplas_blur_pass(int16_t *out, const int16_t *in, int64_t H, int64_t W, int C, int Cp,
                     int axis, int r, cuplas_border border, void *workspace,
                     cudaStream_t stream, cuplas_error *err)
{
    if (wide_prefix(H, W))
        return blur_pass_t<int64_t>(out, in, H, W, C, Cp, axis, r, border, workspace, stream, err);
    return blur_pass_t<int32_t>(out, in, H, W, C, Cp, axis, r, border, workspace, stream, err);
}
