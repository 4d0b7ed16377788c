/*
 * bench_solve.cu - the memory-layout variants of the GPU solve, checked
 * against the CPU reference and timed (llm.c's dev/cuda style: the
 * variants live here, the winner in the product). Built with nvcc when
 * CUDA is on; not installed.
 *
 *   bench_solve [--json] [--reps R] [--passes P] [CASE...]
 *   CASE = HxWxCp:B    grid H x W, Cp channels (a multiple of 4), blocks B x B
 *   default cases: 2048x2048x4:256 2048x2048x4:16 1024x1024x16:256 1024x1024x16:16
 *
 * Variants of one solve pass (the inner loop of every level):
 *   1 legacy  q and target apart; the index of every cell read; all four
 *             cells of a group written back when the group changes
 *   2 lazy    q and target apart; index read, and values and index
 *             written, only for the cells that move
 *   3 packed  lazy, with q and target in one record per cell ([q | t],
 *             2 Cp elements): one 32-byte sector for both at Cp <= 8
 * The product (cuda/assign_gpu.cu, cuplas_assign_gpu_packed) runs packed
 * for Cp <= 4 and lazy above: H200, 2026-11-21, whole sorts: 2048^2 x 3
 * 142 ms packed vs 145 lazy; 1024^2 x 16 74 ms lazy vs 78 packed.
 *
 * Method: random features in [-CUPLAS_QMAX, CUPLAS_QMAX], target =
 * cuplas_blur_cpu(q) (radius B/2), then P consecutive passes (level 0,
 * configuration 0, passes 0..P-1) of one torus-shifted geometry: the first
 * passes move most cells, later ones few, as within a sort. Check: after
 * the P passes every variant's values, index and per-pass cost sums must
 * equal cuplas_assign_pass_cpu's, byte for byte. Timing: the same P passes
 * from the same start, R times after one warm-up, by CUDA events; the
 * median per pass is reported, in a table or (--json) one JSON object
 * per case and variant.
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/level.h"
#include "core/quad.h"
#include "core/random.h"
#include "cpu/assign_cpu.h"
#include "cpu/blur_cpu.h"

#define SOLVE_THREADS 256

/* fail fast: a bench is a one-shot tool (llm.c's cudaCheck) */
#define CHECK(expr)                                                                 \
    do {                                                                            \
        cudaError_t e_ = (expr);                                                    \
        if (e_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr,           \
                    cudaGetErrorString(e_));                                        \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

enum { LEGACY = 0, LAZY = 1, PACKED = 2, NVARIANTS = 3 };
static const char *const variant_name[NVARIANTS] = {"legacy", "lazy", "packed"};

/* ------------------------------------------------------------------ kernels */

struct quad_geom {
    uint32_t H, W, bh, bw, nbx, quads, total;
    uint32_t sy, sx;
};

static quad_geom make_geom(const cuplas_pass_geom &pg)
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
    return g;
}

static __device__ __forceinline__ uint32_t sq4(short4 a, short4 b)
{
    int32_t d0 = a.x - b.x, d1 = a.y - b.y, d2 = a.z - b.z, d3 = a.w - b.w;
    return (uint32_t)(d0 * d0) + (uint32_t)(d1 * d1) + (uint32_t)(d2 * d2) + (uint32_t)(d3 * d3);
}

static __device__ __forceinline__ unsigned long long warp_sum(unsigned long long v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

struct __align__(16) short4x2 {
    short4 q, t;
};

/* One group, as cuda/assign_gpu.cu's solve_quad, with the variant's reads
 * and writes. NC = Cp/4 in registers (1..4), or 0: Cp read at run time. */
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
    const size_t cs = MODE == PACKED ? 2 * (size_t)Cp : (size_t)Cp;
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
    /* legacy: issue the index loads early, their latency hides behind the
     * scoring */
    if (MODE == LEGACY)
        for (int j = 0; j < 4; j++)
            id[j] = idx[cell[j]];
    const short4 *qv[4], *tv[4];
    for (int j = 0; j < 4; j++) {
        qv[j] = (const short4 *)(q + cell[j] * cs);
        tv[j] = MODE == PACKED ? qv[j] + nc : (const short4 *)(t + cell[j] * cs);
    }
    short4 keep[NC ? NC : 1][4];
    uint64_t D[4][4] = {{0}};
    for (int c = 0; c < nc; c++) {
        short4 a[4], tt[4];
        for (int i = 0; i < 4; i++) {
            if (MODE == PACKED && NC == 1) {
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
    uint32_t src[4];
    for (int j = 0; j < 4; j++)
        src[j] = (code >> (2 * j)) & 3;
    if (MODE == LEGACY) {
        for (int j = 0; j < 4; j++)
            idx[cell[j]] = id[src[j]];
        for (int c = 0; c < nc; c++) {
            short4 a[4];
            for (int i = 0; i < 4; i++)
                a[i] = NC ? keep[NC ? c : 0][i] : qv[i][c];
            for (int j = 0; j < 4; j++)
                ((short4 *)qv[j])[c] = a[src[j]];
        }
    } else {
        /* moving cells are closed under the arrangement: every id[src]
         * read is loaded */
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

template <int NC, int MODE>
__global__ void __launch_bounds__(SOLVE_THREADS)
pass_kernel(int16_t *q, int32_t *idx, const int16_t *t, int Cp, quad_geom g, cuplas_perm perm,
            unsigned long long *sums)
{
    uint32_t gi = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long cid = 0, cbest = 0;
    if (gi < g.total)
        solve_quad<NC, MODE>(q, idx, t, Cp, g, perm, gi, cid, cbest);
    cid = warp_sum(cid);
    cbest = warp_sum(cbest);
    if ((threadIdx.x & 31) == 0 && cid) {
        atomicAdd(&sums[0], cid);
        atomicAdd(&sums[1], cbest);
    }
}

/* ---------------------------------------------------------------- launchers */

typedef void (*pass_fn)(int16_t *, int32_t *, const int16_t *, int, quad_geom, cuplas_perm,
                        unsigned long long *);

template <int MODE>
static pass_fn pass_kernel_nc(int Cp)
{
    switch (Cp / 4) {
    case 1: return pass_kernel<1, MODE>;
    case 2: return pass_kernel<2, MODE>;
    case 3: return pass_kernel<3, MODE>;
    case 4: return pass_kernel<4, MODE>;
    }
    return pass_kernel<0, MODE>;
}

static pass_fn pass_kernel_for(int variant, int Cp)
{
    switch (variant) {
    case LEGACY: return pass_kernel_nc<LEGACY>(Cp);
    case LAZY: return pass_kernel_nc<LAZY>(Cp);
    }
    return pass_kernel_nc<PACKED>(Cp);
}

/* ------------------------------------------------------------------- a case */

typedef struct bench_case {
    int64_t H, W, B;
    int Cp;
} bench_case;

/* The variant's device buffers, all set from the same host start. */
typedef struct variant_bufs {
    int16_t *rec;       /* q (and, packed, t) */
    int16_t *q, *t;
    int cs;
    int32_t *idx;
    unsigned long long *sums; /* 2 per pass */
} variant_bufs;

static void upload(const variant_bufs *v, const int16_t *q, const int16_t *t, const int32_t *idx,
                   int64_t N, int Cp, int passes)
{
    const size_t row = (size_t)Cp * sizeof(int16_t), pitch = (size_t)v->cs * sizeof(int16_t);
    CHECK(cudaMemcpy2D(v->q, pitch, q, row, row, (size_t)N, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2D(v->t, pitch, t, row, row, (size_t)N, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(v->idx, idx, (size_t)N * sizeof *idx, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(v->sums, 0, 2 * (size_t)passes * sizeof *v->sums));
}

static void run_passes(const variant_bufs *v, pass_fn fn, const cuplas_pass_geom *pg, int Cp,
                       uint64_t seed, int passes)
{
    quad_geom g = make_geom(*pg);
    for (int p = 0; p < passes; p++) {
        cuplas_perm perm = cuplas_pass_perm(pg, seed, 0, 0, (uint32_t)p);
        fn<<<(g.total + SOLVE_THREADS - 1) / SOLVE_THREADS, SOLVE_THREADS>>>(
            v->q, v->idx, v->t, Cp, g, perm, v->sums + 2 * p);
    }
    CHECK(cudaGetLastError());
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Check and time every variant on one case; returns the number of variants
 * that differ from the CPU reference. */
static int bench_one(const bench_case *bc, int passes, int reps, int json, const char *device)
{
    const int64_t H = bc->H, W = bc->W, N = H * W;
    const int Cp = bc->Cp;
    const uint64_t seed = 1337;
    const size_t qn = (size_t)N * Cp;
    int16_t *q0 = (int16_t *)malloc(qn * sizeof *q0), *t = (int16_t *)malloc(qn * sizeof *t);
    int16_t *qc = (int16_t *)malloc(qn * sizeof *qc), *qg = (int16_t *)malloc(qn * sizeof *qg);
    int64_t *ic = (int64_t *)malloc((size_t)N * sizeof *ic);
    int32_t *i0 = (int32_t *)malloc((size_t)N * sizeof *i0), *ig = (int32_t *)malloc((size_t)N * sizeof *ig);
    uint64_t *cpu_sums = (uint64_t *)malloc(2 * (size_t)passes * sizeof *cpu_sums);
    unsigned long long *gpu_sums = (unsigned long long *)malloc(2 * (size_t)passes * sizeof *gpu_sums);
    float *ms = (float *)malloc((size_t)reps * sizeof *ms);
    float legacy_ms = 0;
    int bad = 0;
    char name[64];
    cuplas_error err;
    memset(&err, 0, sizeof err);
    snprintf(name, sizeof name, "%lldx%lldx%d:%lld", (long long)H, (long long)W, Cp, (long long)bc->B);

    /* the start: random features, their blur, the identity index */
    for (size_t i = 0; i < qn; i++)
        q0[i] = (int16_t)((int)(cuplas_philox(seed, (uint32_t)i, (uint32_t)(i >> 32), 7, 0).v[0] %
                                (2 * CUPLAS_QMAX + 1)) - CUPLAS_QMAX);
    for (int64_t i = 0; i < N; i++)
        i0[i] = (int32_t)i, ic[i] = i;
    int r = (int)(bc->B / 2 < W - 1 ? bc->B / 2 : W - 1), ry = (int)(bc->B / 2 < H - 1 ? bc->B / 2 : H - 1);
    if (cuplas_blur_cpu(q0, t, H, W, Cp, r, ry, 1, CUPLAS_BORDER_CIRCULAR, CUPLAS_BORDER_REFLECT, &err)) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        exit(1);
    }
    cuplas_level_params lp;
    memset(&lp, 0, sizeof lp);
    lp.seed = seed;
    lp.permuter = CUPLAS_PERMUTER_FEISTEL;
    lp.H = H, lp.W = W, lp.bh = bc->B, lp.bw = bc->B;
    const cuplas_pass_geom pg = cuplas_level_geom(&lp, 0);

    /* the CPU reference */
    memcpy(qc, q0, qn * sizeof *qc);
    for (int p = 0; p < passes; p++)
        cuplas_assign_pass_cpu(qc, ic, t, Cp, &pg, seed, 0, 0, (uint32_t)p, &cpu_sums[2 * p],
                               &cpu_sums[2 * p + 1]);

    for (int v = 0; v < NVARIANTS; v++) {
        variant_bufs b;
        pass_fn fn = pass_kernel_for(v, Cp);
        cudaEvent_t e0, e1;
        CHECK(cudaMalloc((void **)&b.rec, 2 * qn * sizeof(int16_t)));
        CHECK(cudaMalloc((void **)&b.idx, (size_t)N * sizeof(int32_t)));
        CHECK(cudaMalloc((void **)&b.sums, 2 * (size_t)passes * sizeof(unsigned long long)));
        b.q = b.rec;
        b.t = v == PACKED ? b.rec + Cp : b.rec + qn;
        b.cs = v == PACKED ? 2 * Cp : Cp;
        CHECK(cudaEventCreate(&e0));
        CHECK(cudaEventCreate(&e1));

        /* check: the P passes once, against the CPU reference */
        upload(&b, q0, t, i0, N, Cp, passes);
        run_passes(&b, fn, &pg, Cp, seed, passes);
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy2D(qg, Cp * sizeof(int16_t), b.q, b.cs * sizeof(int16_t), Cp * sizeof(int16_t),
                           (size_t)N, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(ig, b.idx, (size_t)N * sizeof *ig, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(gpu_sums, b.sums, 2 * (size_t)passes * sizeof *gpu_sums, cudaMemcpyDeviceToHost));
        int ok = memcmp(qg, qc, qn * sizeof *qg) == 0;
        for (int64_t i = 0; ok && i < N; i++)
            ok = ig[i] == ic[i];
        for (int p = 0; ok && p < 2 * passes; p++)
            ok = gpu_sums[p] == cpu_sums[p];
        bad += !ok;

        /* time: warm-up, then reps from the same start */
        for (int k = -1; k < reps; k++) {
            upload(&b, q0, t, i0, N, Cp, passes);
            CHECK(cudaEventRecord(e0));
            run_passes(&b, fn, &pg, Cp, seed, passes);
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            if (k >= 0)
                CHECK(cudaEventElapsedTime(&ms[k], e0, e1));
        }
        qsort(ms, (size_t)reps, sizeof *ms, cmp_float);
        float med = ms[reps / 2] / passes;
        if (v == LEGACY)
            legacy_ms = med;
        if (json)
            printf("{\"case\":\"%s\",\"variant\":\"%s\",\"device\":\"%s\",\"passes\":%d,\"reps\":%d,"
                   "\"ms_per_pass\":%.4f,\"vs_legacy\":%.3f,\"identical\":%s}\n",
                   name, variant_name[v], device, passes, reps, med, legacy_ms / med,
                   ok ? "true" : "false");
        else
            printf("%-20s %-8s %10.4f %9.2fx  %s\n", name, variant_name[v], med, legacy_ms / med,
                   ok ? "identical" : "DIFFERS from cuplas_assign_pass_cpu");
        fflush(stdout);
        CHECK(cudaEventDestroy(e0));
        CHECK(cudaEventDestroy(e1));
        CHECK(cudaFree(b.rec));
        CHECK(cudaFree(b.idx));
        CHECK(cudaFree(b.sums));
    }
    free(q0); free(t); free(qc); free(qg); free(ic); free(i0); free(ig);
    free(cpu_sums); free(gpu_sums); free(ms);
    return bad;
}

int main(int argc, char **argv)
{
    static const char *const defaults[] = {"2048x2048x4:256", "2048x2048x4:16",
                                           "1024x1024x16:256", "1024x1024x16:16"};
    int json = 0, reps = 10, passes = 8, a = 1, bad = 0, n = 0;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (!strcmp(argv[a], "--json"))
            json = 1;
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--passes") && a + 1 < argc)
            passes = atoi(argv[++a]);
        else {
            fprintf(stderr, "usage: %s [--json] [--reps R] [--passes P] [HxWxCp:B ...]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1 || passes < 1)
        return 2;
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        fprintf(stderr, "no GPU\n");
        return 77;
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    if (!json)
        printf("%s, %d passes, median of %d\n%-20s %-8s %10s %10s  %s\n", prop.name, passes, reps,
               "case", "variant", "ms/pass", "vs legacy", "check");
    int ncases = a < argc ? argc - a : (int)(sizeof defaults / sizeof *defaults);
    for (int i = 0; i < ncases; i++) {
        const char *spec = a < argc ? argv[a + i] : defaults[i];
        long long H, W, B;
        int Cp;
        if (sscanf(spec, "%lldx%lldx%d:%lld", &H, &W, &Cp, &B) != 4 || Cp < 4 || Cp % 4 ||
            B < 2 || B % 2 || B > H || B > W || H * W >= ((long long)1 << 31)) {
            fprintf(stderr, "bad case %s (HxWxCp:B, Cp a multiple of 4, B even, B <= H, W)\n", spec);
            return 2;
        }
        bench_case bc = {H, W, B, Cp};
        bad += bench_one(&bc, passes, reps, json, prop.name);
        n++;
    }
    return bad ? 1 : 0;
}
