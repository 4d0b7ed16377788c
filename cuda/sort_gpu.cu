/*
 * sort_gpu.cu - GPU context, workspace, and the sort as one CUDA graph.
 *
 *   graph G:  while (h_level) {                       <- level body BL
 *                 blur x passes, blur y passes        (radius from table)
 *                 level_begin                         (sets h_pass = 1)
 *                 while (h_pass) { solve, pass_end }  <- pass body BP
 *                 level_end                           (sets h_level)
 *             }
 *
 * Everything the loop decides lives in device memory (cuplas_loop_state),
 * so a sort is: upload, shuffle, one graph launch, download the index.
 */
#include "sort_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assign.cuh"
#include "blur.cuh"
#include "cuda_check.h"

struct cuplas_gpu_ctx {
    int device;
    char name[256];
    cudaStream_t stream, capture_stream;
    void *ws;          /* device workspace, grown on demand */
    size_t ws_bytes;
};

/* Carved out of the workspace for one grid. */
struct gpu_buffers {
    int16_t *q, *t;
    int32_t *idx;
    cuplas_level *levels;
    cuplas_loop_state *state;
    void *blur_ws;
};

static size_t align256(size_t n) { return (n + 255) & ~(size_t)255; }

/* ------------------------------------------------------------- context */

extern "C" int cuplas_gpu_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky "no driver" status */
        return 0;
    }
    return n;
}

extern "C" int cuplas_gpu_ctx_init(cuplas_gpu_ctx **out, int device, cuplas_error *err)
{
    int rc = 0;
    cudaDeviceProp prop;
    cuplas_gpu_ctx *ctx = (cuplas_gpu_ctx *)calloc(1, sizeof *ctx);
    *out = NULL;
    if (!ctx)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    ctx->device = device;
    if (device < 0 || device >= cuplas_gpu_count())
        CUPLAS_FAIL(err, CUPLAS_ERR_NODEVICE, "GPU %d does not exist (%d visible)", device,
                    cuplas_gpu_count());
    CUPLAS_CUDA_TRY(err, cudaSetDevice(device));
    CUPLAS_CUDA_TRY(err, cudaGetDeviceProperties(&prop, device));
    snprintf(ctx->name, sizeof ctx->name, "%s", prop.name);
    CUPLAS_CUDA_TRY(err, cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking));
    CUPLAS_CUDA_TRY(err, cudaStreamCreateWithFlags(&ctx->capture_stream, cudaStreamNonBlocking));
    *out = ctx;
    return 0;
fail:
    cuplas_error_where(err, "gpu %d", device);
    cuplas_gpu_ctx_free(ctx);
    return rc;
}

extern "C" void cuplas_gpu_ctx_free(cuplas_gpu_ctx *ctx)
{
    if (!ctx)
        return;
    cudaSetDevice(ctx->device);
    if (ctx->ws)
        cudaFree(ctx->ws);
    if (ctx->stream)
        cudaStreamDestroy(ctx->stream);
    if (ctx->capture_stream)
        cudaStreamDestroy(ctx->capture_stream);
    free(ctx);
}

extern "C" const char *cuplas_gpu_name(const cuplas_gpu_ctx *ctx) { return ctx->name; }
extern "C" int cuplas_gpu_device(const cuplas_gpu_ctx *ctx) { return ctx->device; }

extern "C" int cuplas_gpu_mem_info(cuplas_gpu_ctx *ctx, size_t *free_b, size_t *total_b)
{
    if (cudaSetDevice(ctx->device) != cudaSuccess || cudaMemGetInfo(free_b, total_b) != cudaSuccess)
        return -1;
    return 0;
}

extern "C" size_t cuplas_sort_gpu_bytes(int64_t H, int64_t W, int Cp, int nlevels)
{
    size_t N = (size_t)(H * W);
    return 2 * align256(N * Cp * sizeof(int16_t)) + align256(N * sizeof(int32_t)) +
           align256((size_t)nlevels * sizeof(cuplas_level)) + align256(sizeof(cuplas_loop_state)) +
           align256(cuplas_blur_workspace(H, W, Cp));
}

static int ensure_workspace(cuplas_gpu_ctx *ctx, size_t bytes, cuplas_error *err)
{
    int rc = 0;
    if (ctx->ws_bytes >= bytes)
        return 0;
    if (ctx->ws)
        CUPLAS_CUDA_TRY(err, cudaFree(ctx->ws));
    ctx->ws = NULL;
    ctx->ws_bytes = 0;
    if (cudaMalloc(&ctx->ws, bytes) != cudaSuccess) {
        size_t fr = 0, tot = 0;
        cudaGetLastError();
        cudaMemGetInfo(&fr, &tot);
        ctx->ws = NULL;
        CUPLAS_FAIL(err, CUPLAS_ERR_CUDA, "out of device memory: the grid needs %.2f GiB, %.2f GiB free of %.2f",
                    bytes / 1073741824.0, fr / 1073741824.0, tot / 1073741824.0);
    }
    ctx->ws_bytes = bytes;
fail:
    return rc;
}

static gpu_buffers carve(void *ws, int64_t H, int64_t W, int Cp, int nlevels)
{
    gpu_buffers b;
    size_t N = (size_t)(H * W);
    char *p = (char *)ws;
    b.q = (int16_t *)p;
    p += align256(N * Cp * sizeof(int16_t));
    b.t = (int16_t *)p;
    p += align256(N * Cp * sizeof(int16_t));
    b.idx = (int32_t *)p;
    p += align256(N * sizeof(int32_t));
    b.levels = (cuplas_level *)p;
    p += align256((size_t)nlevels * sizeof(cuplas_level));
    b.state = (cuplas_loop_state *)p;
    p += align256(sizeof(cuplas_loop_state));
    b.blur_ws = p;
    return b;
}

/* --------------------------------------------------------- graph building */

/* target <- blur(q) for the level in state->level: x passes, then y passes. */
static int launch_blur(const gpu_buffers *b, int64_t H, int64_t W, int Cp,
                       const cuplas_sort_params *p, cudaStream_t s, cuplas_error *err)
{
    int rc = 0;
    const uint32_t *level = &b->state->level;
    for (int i = 0; i < p->blur_passes; i++)
        CUPLAS_TRY(cuplas_blur_pass(b->t, i == 0 ? b->q : b->t, H, W, Cp, 0, p->border_x,
                                    b->levels, level, b->blur_ws, s, err));
    for (int i = 0; i < p->blur_passes; i++)
        CUPLAS_TRY(cuplas_blur_pass(b->t, b->t, H, W, Cp, 1, p->border_y, b->levels, level,
                                    b->blur_ws, s, err));
fail:
    return rc;
}

static cudaGraphNodeParams while_params(cudaGraphConditionalHandle h)
{
    cudaGraphNodeParams np = {cudaGraphNodeTypeConditional};
    np.conditional.handle = h;
    np.conditional.type = cudaGraphCondTypeWhile;
    np.conditional.size = 1;
    return np;
}

/* Pass body: solve all groups, then decide (sets h_pass). */
static int build_pass_body(cudaGraph_t body, cuplas_gpu_ctx *ctx, const gpu_buffers *b,
                           int Cp, cuplas_loop_params lp, cudaGraphConditionalHandle h_pass,
                           cuplas_error *err)
{
    int rc = 0;
    cudaStream_t s = ctx->capture_stream;
    cudaGraph_t captured = NULL;
    CUPLAS_CUDA_TRY(err, cudaStreamBeginCaptureToGraph(s, body, NULL, NULL, 0,
                                                       cudaStreamCaptureModeRelaxed));
    CUPLAS_TRY(cuplas_solve_pass_launch(b->q, b->idx, b->t, Cp, b->state, lp,
                                        lp.H * lp.W / 4, s, err));
    CUPLAS_TRY(cuplas_pass_end_launch(b->state, lp, h_pass, s, err));
fail:
    if (cudaStreamEndCapture(s, &captured) != cudaSuccess && rc == 0)
        rc = cuplas_error_set(err, CUPLAS_ERR_CUDA, "capturing the pass body failed");
    return rc;
}

/* Level body: blur, level_begin, while(pass body), level_end. */
static int build_level_body(cudaGraph_t body, cuplas_gpu_ctx *ctx, const gpu_buffers *b,
                            int Cp, const cuplas_sort_params *p, cuplas_loop_params lp,
                            cudaGraphConditionalHandle h_level, cuplas_error *err)
{
    int rc = 0;
    cudaStream_t s = ctx->stream;
    cudaGraph_t cap_graph = NULL, captured = NULL;
    cudaGraphConditionalHandle h_pass;
    cudaStreamCaptureStatus status;
    const cudaGraphNode_t *deps = NULL;
    size_t ndeps = 0;
    cudaGraphNode_t loop_node;
    cudaGraphNodeParams np = while_params(0);

    CUPLAS_CUDA_TRY(err, cudaGraphConditionalHandleCreate(&h_pass, body, 0, 0));
    CUPLAS_CUDA_TRY(err, cudaStreamBeginCaptureToGraph(s, body, NULL, NULL, 0,
                                                       cudaStreamCaptureModeRelaxed));
    CUPLAS_TRY(launch_blur(b, lp.H, lp.W, Cp, p, s, err));
    CUPLAS_TRY(cuplas_level_begin_launch(b->state, b->levels, lp, h_pass, s, err));
    CUPLAS_CUDA_TRY(err, cudaStreamGetCaptureInfo(s, &status, NULL, &cap_graph, &deps, NULL, &ndeps));
    np = while_params(h_pass);
    CUPLAS_CUDA_TRY(err, cudaGraphAddNode(&loop_node, cap_graph, deps, NULL, ndeps, &np));
    CUPLAS_TRY(build_pass_body(np.conditional.phGraph_out[0], ctx, b, Cp, lp, h_pass, err));
    CUPLAS_CUDA_TRY(err, cudaStreamUpdateCaptureDependencies(s, &loop_node, NULL, 1,
                                                             cudaStreamSetCaptureDependencies));
    CUPLAS_TRY(cuplas_level_end_launch(b->state, lp, h_level, s, err));
fail:
    if (cudaStreamEndCapture(s, &captured) != cudaSuccess && rc == 0)
        rc = cuplas_error_set(err, CUPLAS_ERR_CUDA, "capturing the level body failed");
    return rc;
}

static int build_sort_graph(cudaGraphExec_t *exec, cuplas_gpu_ctx *ctx, const gpu_buffers *b,
                            int Cp, const cuplas_sort_params *p, cuplas_loop_params lp,
                            cuplas_error *err)
{
    int rc = 0;
    cudaGraph_t g = NULL;
    cudaGraphConditionalHandle h_level;
    cudaGraphNode_t node;
    cudaGraphNodeParams np = while_params(0);
    *exec = NULL;
    CUPLAS_CUDA_TRY(err, cudaGraphCreate(&g, 0));
    CUPLAS_CUDA_TRY(err, cudaGraphConditionalHandleCreate(&h_level, g, 1, cudaGraphCondAssignDefault));
    np = while_params(h_level);
    CUPLAS_CUDA_TRY(err, cudaGraphAddNode(&node, g, NULL, NULL, 0, &np));
    CUPLAS_TRY(build_level_body(np.conditional.phGraph_out[0], ctx, b, Cp, p, lp, h_level, err));
    CUPLAS_CUDA_TRY(err, cudaGraphInstantiate(exec, g, 0));
fail:
    if (g)
        cudaGraphDestroy(g);
    return rc;
}

/* ------------------------------------------------------------------ sort */

static cuplas_loop_params loop_params(const cuplas_qgrid *g, const cuplas_sort_params *p,
                                      int nlevels)
{
    cuplas_loop_params lp;
    lp.seed = p->seed;
    lp.permuter = (uint32_t)p->permuter;
    lp.nlevels = (uint32_t)nlevels;
    lp.H = g->H;
    lp.W = g->W;
    lp.improvement_break = p->improvement_break;
    lp.min_configs = (uint32_t)p->min_configs;
    lp.max_configs = (uint32_t)p->max_configs;
    lp.max_passes = (uint32_t)p->max_passes;
    return lp;
}

extern "C" int cuplas_sort_gpu(cuplas_gpu_ctx *ctx, const cuplas_qgrid *g,
                               const cuplas_sort_params *p, const cuplas_schedule *s,
                               int64_t *index, const volatile int *cancel,
                               cuplas_sort_stats *st, cuplas_error *err)
{
    int rc = 0;
    const int64_t N = g->H * g->W;
    int32_t *h_idx = NULL;
    cudaGraphExec_t exec = NULL;
    cudaEvent_t ev[2] = {NULL, NULL};
    float ms = 0;
    cuplas_loop_state hs;
    gpu_buffers b;
    (void)cancel; /* a GPU sort always completes its grid (README) */
    memset(st, 0, sizeof *st);
    if (N > INT32_MAX)
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "%lld cells: the GPU backend takes at most 2^31-1", (long long)N);
    CUPLAS_CUDA_TRY(err, cudaSetDevice(ctx->device));
    CUPLAS_TRY(ensure_workspace(ctx, cuplas_sort_gpu_bytes(g->H, g->W, g->Cp, s->nlevels), err));
    b = carve(ctx->ws, g->H, g->W, g->Cp, s->nlevels);
    h_idx = (int32_t *)malloc((size_t)N * sizeof *h_idx);
    if (!h_idx)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");

    /* the target buffer holds the input until the shuffle has gathered it */
    CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(b.t, g->q, (size_t)N * g->Cp * sizeof(int16_t),
                                         cudaMemcpyHostToDevice, ctx->stream));
    CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(b.levels, s->levels, (size_t)s->nlevels * sizeof(cuplas_level),
                                         cudaMemcpyHostToDevice, ctx->stream));
    CUPLAS_TRY(build_sort_graph(&exec, ctx, &b, g->Cp, p, loop_params(g, p, s->nlevels), err));
    CUPLAS_CUDA_TRY(err, cudaEventCreate(&ev[0]));
    CUPLAS_CUDA_TRY(err, cudaEventCreate(&ev[1]));
    CUPLAS_CUDA_TRY(err, cudaEventRecord(ev[0], ctx->stream));
    CUPLAS_TRY(cuplas_shuffle_launch(b.q, b.idx, b.t, N, g->Cp, p->seed, p->shuffle, ctx->stream, err));
    CUPLAS_TRY(cuplas_loop_init_launch(b.state, ctx->stream, err));
    CUPLAS_CUDA_TRY(err, cudaGraphLaunch(exec, ctx->stream));
    CUPLAS_CUDA_TRY(err, cudaEventRecord(ev[1], ctx->stream));
    CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(h_idx, b.idx, (size_t)N * sizeof *h_idx,
                                         cudaMemcpyDeviceToHost, ctx->stream));
    CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(&hs, b.state, sizeof hs, cudaMemcpyDeviceToHost, ctx->stream));
    CUPLAS_CUDA_TRY(err, cudaStreamSynchronize(ctx->stream));
    CUPLAS_CUDA_TRY(err, cudaEventElapsedTime(&ms, ev[0], ev[1]));
    st->device_ms = ms;
    if (hs.level != (uint32_t)s->nlevels)
        CUPLAS_FAIL(err, CUPLAS_ERR_INTERNAL, "GPU loop ended at level %u of %d", hs.level, s->nlevels);
    for (int64_t i = 0; i < N; i++)
        index[i] = h_idx[i];
    st->levels = (int)hs.level;
    st->configs = (int64_t)hs.configs;
    st->passes = (int64_t)hs.passes;
fail:
    for (int i = 0; i < 2; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    if (exec)
        cudaGraphExecDestroy(exec);
    free(h_idx);
    if (rc)
        cuplas_error_where(err, "gpu %d (%s)", ctx->device, ctx->name);
    return rc;
}

/* ------------------------------------------------- kernel-level test hooks */

extern "C" int cuplas_gpu_blur(cuplas_gpu_ctx *ctx, const int16_t *q, int16_t *target,
                               int64_t H, int64_t W, int Cp, int rx, int ry, int passes,
                               cuplas_border bx, cuplas_border by, cuplas_error *err)
{
    int rc = 0;
    size_t bytes = (size_t)(H * W * Cp) * sizeof(int16_t);
    cuplas_level lv = {0, rx, ry, 2, 2};
    cuplas_sort_params p;
    cuplas_sort_params_default(&p);
    p.blur_passes = passes;
    p.border_x = bx;
    p.border_y = by;
    CUPLAS_CUDA_TRY(err, cudaSetDevice(ctx->device));
    CUPLAS_TRY(ensure_workspace(ctx, cuplas_sort_gpu_bytes(H, W, Cp, 1), err));
    {
        gpu_buffers b = carve(ctx->ws, H, W, Cp, 1);
        CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(b.q, q, bytes, cudaMemcpyHostToDevice, ctx->stream));
        CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(b.levels, &lv, sizeof lv, cudaMemcpyHostToDevice, ctx->stream));
        CUPLAS_CUDA_TRY(err, cudaMemsetAsync(b.state, 0, sizeof(cuplas_loop_state), ctx->stream));
        CUPLAS_TRY(launch_blur(&b, H, W, Cp, &p, ctx->stream, err));
        CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(target, b.t, bytes, cudaMemcpyDeviceToHost, ctx->stream));
        CUPLAS_CUDA_TRY(err, cudaStreamSynchronize(ctx->stream));
    }
fail:
    return rc;
}

extern "C" int cuplas_gpu_pass(cuplas_gpu_ctx *ctx, int16_t *q, int64_t *idx,
                               const int16_t *target, int Cp, const cuplas_pass_geom *g,
                               uint64_t seed, uint32_t level, uint32_t cfg, uint32_t pass,
                               uint64_t *before, uint64_t *after, cuplas_error *err)
{
    int rc = 0;
    const int64_t N = g->H * g->W;
    size_t bytes = (size_t)(N * Cp) * sizeof(int16_t);
    int32_t *h_idx = (int32_t *)malloc((size_t)N * sizeof *h_idx);
    cuplas_loop_state hs;
    cuplas_loop_params lp;
    memset(&hs, 0, sizeof hs);
    memset(&lp, 0, sizeof lp);
    lp.H = g->H;
    lp.W = g->W;
    hs.bh = g->bh;
    hs.bw = g->bw;
    hs.nbx = g->W / g->bw;
    hs.quads = g->n / 4;
    hs.total = hs.nbx * (g->H / g->bh) * hs.quads;
    hs.sy = g->sy;
    hs.sx = g->sx;
    hs.perm = cuplas_perm_make(g->kind, g->n, seed, CUPLAS_TAG_GROUP, level, cfg, pass);
    if (!h_idx)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < N; i++)
        h_idx[i] = (int32_t)idx[i];
    CUPLAS_CUDA_TRY(err, cudaSetDevice(ctx->device));
    CUPLAS_TRY(ensure_workspace(ctx, cuplas_sort_gpu_bytes(g->H, g->W, Cp, 1), err));
    {
        gpu_buffers b = carve(ctx->ws, g->H, g->W, Cp, 1);
        CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(b.q, q, bytes, cudaMemcpyHostToDevice, ctx->stream));
        CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(b.t, target, bytes, cudaMemcpyHostToDevice, ctx->stream));
        CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(b.idx, h_idx, N * sizeof *h_idx, cudaMemcpyHostToDevice, ctx->stream));
        CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(b.state, &hs, sizeof hs, cudaMemcpyHostToDevice, ctx->stream));
        CUPLAS_TRY(cuplas_solve_pass_launch(b.q, b.idx, b.t, Cp, b.state, lp, N / 4, ctx->stream, err));
        CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(q, b.q, bytes, cudaMemcpyDeviceToHost, ctx->stream));
        CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(h_idx, b.idx, N * sizeof *h_idx, cudaMemcpyDeviceToHost, ctx->stream));
        CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(&hs, b.state, sizeof hs, cudaMemcpyDeviceToHost, ctx->stream));
        CUPLAS_CUDA_TRY(err, cudaStreamSynchronize(ctx->stream));
    }
    for (int64_t i = 0; i < N; i++)
        idx[i] = h_idx[i];
    *before = hs.before;
    *after = hs.after;
fail:
    free(h_idx);
    return rc;
}
