/*
 * sort_gpu.cu - GPU context, workspace, and the sort driver. CPU
 * reference: cpu/sort_cpu.c.
 *
 *   upload -> shuffle -> for each level: target = blur(q), assign level
 *          -> AND polish (sort.polish) -> index
 *
 * The number of levels is known on the host, so all launches are queued at
 * once on the context's stream; the data-dependent loops (configurations,
 * passes) run inside the cooperative level kernel. The host waits once,
 * for the index.
 *
 * Layout: q and the target apart (N x Cp each), or for Cp <= 4
 * interleaved per cell ([q | t], 2 Cp: cuplas_assign_gpu_packed), so that
 * the solve's random gathers fetch one sector for both. The footprint is
 * the same either way.
 */
#include "cuda/sort_gpu.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/assign_gpu.cuh"
#include "cuda/blur_gpu.cuh"
#include "cuda/cuda_check.h"
#include "cuda/pinned.cuh"
#include "cuda/polish_gpu.cuh"
#include "cuda/shuffle_gpu.cuh"

struct cuplas_gpu_ctx {
    int device;
    char name[256];
    cudaStream_t stream;
    int sms;             /* multiprocessors: the level kernel's grid bound */
    struct { int cp, group, per_sm; } occ[2]; /* level-kernel occupancy, cached
                                   for the two group sizes a sort can use
                                   (sort.group_size, sort.local_group_size) */
    int polish_per_sm[2]; /* the polish kernel's, for 4- and 6-cell windows
                             (0: not asked yet) */
    void *ws;          /* device workspace, grown on demand */
    size_t ws_bytes;
    uint32_t *tab;     /* block-local levels' offset tables, grown on demand */
    size_t tab_bytes;
    int16_t *h_q;      /* pinned: features to upload        */
    int32_t *h_idx;    /* pinned: index downloaded          */
    cuplas_level_counters *h_state; /* pinned: a pageable download would
                                   wait for the sort inside the copy, spinning */
    int64_t h_q_n, h_idx_n;
    cudaEvent_t ev[4]; /* upload, sort, download boundaries  */
    cuplas_gpu_order *order; /* the device's sort order, or NULL */
};

/* Grids of at least this many cells fill an H200 on their own: theirs
 * run one after another. Smaller grids keep running several at a time
 * (256^2 x 3: 290 grids/s ordered 16 wide against 576 free, r13). */
#define ORDER_CELLS ((int64_t)1 << 20)

struct cuplas_gpu_order {
    int device;
    pthread_mutex_t mu;  /* held from a sort's wait to its record */
    cudaEvent_t last;    /* recorded after the last ordered sort's launches */
};

/* Grids of more than this many cells count their levels as they finish
 * (a host callback after each level's kernel, read by the progress
 * line): such a sort takes seconds, and a callback's few microseconds a
 * level are lost in it. Smaller grids report their levels at the end. */
#define PROGRESS_CELLS ((int64_t)1 << 22)

/* Carved out of the workspace for one grid. */
struct gpu_buffers {
    int16_t *q, *t;  /* cell i at q + i*cs, t + i*cs */
    int cs;
    int16_t *in;     /* the uploaded features (N x Cp) until the shuffle */
    int32_t *idx;
    cuplas_level_counters *state;
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
    CUPLAS_TRY(cuplas_blur_gpu_setup(err));
    CUPLAS_CUDA_TRY(err, cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking));
    /* the last event is waited on: blocking, so that a lane waiting for its
       sort sleeps instead of spinning a core the other lanes' host work needs */
    for (int i = 0; i < 4; i++)
        CUPLAS_CUDA_TRY(err, cudaEventCreateWithFlags(&ctx->ev[i], i == 3 ? cudaEventBlockingSync
                                                                         : cudaEventDefault));
    CUPLAS_CUDA_TRY(err, cudaMallocHost((void **)&ctx->h_state, sizeof *ctx->h_state));
    if (!prop.cooperativeLaunch)
        CUPLAS_FAIL(err, CUPLAS_ERR_NODEVICE, "%s cannot run cooperative kernels", prop.name);
    ctx->sms = prop.multiProcessorCount;
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
    if (ctx->tab)
        cudaFree(ctx->tab);
    cuplas_pinned_free(ctx->h_q);
    cuplas_pinned_free(ctx->h_idx);
    if (ctx->h_state)
        cudaFreeHost(ctx->h_state);
    for (int i = 0; i < 4; i++)
        if (ctx->ev[i])
            cudaEventDestroy(ctx->ev[i]);
    if (ctx->stream)
        cudaStreamDestroy(ctx->stream);
    free(ctx);
}

extern "C" const char *cuplas_gpu_name(const cuplas_gpu_ctx *ctx) { return ctx->name; }

extern "C" int cuplas_gpu_order_create(cuplas_gpu_order **out, int device, cuplas_error *err)
{
    int rc = 0;
    cuplas_gpu_order *o = (cuplas_gpu_order *)calloc(1, sizeof *o);
    *out = NULL;
    if (!o)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    o->device = device;
    pthread_mutex_init(&o->mu, NULL);
    CUPLAS_CUDA_TRY(err, cudaSetDevice(device));
    CUPLAS_CUDA_TRY(err, cudaEventCreateWithFlags(&o->last, cudaEventDisableTiming));
    *out = o;
    return 0;
fail:
    cuplas_gpu_order_free(o);
    return rc;
}

extern "C" void cuplas_gpu_order_free(cuplas_gpu_order *o)
{
    if (!o)
        return;
    cudaSetDevice(o->device);
    if (o->last)
        cudaEventDestroy(o->last);
    pthread_mutex_destroy(&o->mu);
    free(o);
}

extern "C" void cuplas_gpu_ctx_set_order(cuplas_gpu_ctx *ctx, cuplas_gpu_order *o)
{
    ctx->order = o && o->device == ctx->device ? o : NULL;
}

/* For a grid that fills the GPU: lock the order and make the stream wait
 * for the ordered sort queued last (a wait takes the event's latest
 * record, so recording it again afterwards is safe). The caller records
 * o->last after its last launch and unlocks (order_leave). Returns the
 * order it holds, NULL when the grid is small or there is none. */
static cuplas_gpu_order *order_enter(cuplas_gpu_order *o, int64_t N, cudaStream_t s,
                                     cuplas_error *err, int *rc)
{
    if (!o || N < ORDER_CELLS)
        return NULL;
    pthread_mutex_lock(&o->mu);
    cudaError_t e = cudaStreamWaitEvent(s, o->last, 0);
    if (e != cudaSuccess)
        *rc = cuplas_error_set(err, CUPLAS_ERR_CUDA, "cudaStreamWaitEvent: %s",
                               cudaGetErrorString(e));
    return o;   /* locked either way */
}

static void order_leave(cuplas_gpu_order *o)
{
    if (o)
        pthread_mutex_unlock(&o->mu);
}

extern "C" int cuplas_gpu_mem_info(cuplas_gpu_ctx *ctx, size_t *free_b, size_t *total_b)
{
    if (cudaSetDevice(ctx->device) != cudaSuccess || cudaMemGetInfo(free_b, total_b) != cudaSuccess)
        return -1;
    return 0;
}

/* Grow a pinned host buffer to n elements of size es (contents dropped). */
static void *grow_pinned(void *p, int64_t *have, int64_t n, size_t es)
{
    if (*have >= n)
        return p;
    cuplas_pinned_free(p);
    *have = 0;
    if (!(p = cuplas_pinned_alloc((size_t)n * es)))
        return NULL;
    *have = n;
    return p;
}

extern "C" int cuplas_gpu_touch(int device, cuplas_error *err)
{
    int rc = 0;
    CUPLAS_CUDA_TRY(err, cudaSetDevice(device));
    CUPLAS_CUDA_TRY(err, cudaFree(0));   /* creates the primary context */
fail:
    if (rc)
        cuplas_error_where(err, "gpu %d", device);
    return rc;
}

extern "C" void cuplas_gpu_device_release(int device)
{
    if (cudaSetDevice(device) != cudaSuccess || cudaDeviceReset() != cudaSuccess)
        cudaGetLastError();
}

/* The level kernel's resident blocks per SM for (Cp, group), from the
 * two-entry cache (the newest first). */
static int level_occupancy(cuplas_gpu_ctx *ctx, int Cp, int group, int *per_sm, cuplas_error *err)
{
    int rc = 0;
    for (int i = 0; i < 2; i++)
        if (ctx->occ[i].cp == Cp && ctx->occ[i].group == group && ctx->occ[i].per_sm > 0) {
            *per_sm = ctx->occ[i].per_sm;
            return 0;
        }
    CUPLAS_TRY(cuplas_assign_level_gpu_occupancy(Cp, group, per_sm, err));
    ctx->occ[1] = ctx->occ[0];
    ctx->occ[0].cp = Cp;
    ctx->occ[0].group = group;
    ctx->occ[0].per_sm = *per_sm;
fail:
    return rc;
}

extern "C" int cuplas_gpu_prepare(cuplas_gpu_ctx *ctx, int64_t n_q, int64_t n_idx, int Cp)
{
    cuplas_error e;
    int per_sm = 0;
    if (cudaSetDevice(ctx->device) != cudaSuccess)
        return -1;
    ctx->h_q = (int16_t *)grow_pinned(ctx->h_q, &ctx->h_q_n, n_q, sizeof(int16_t));
    ctx->h_idx = (int32_t *)grow_pinned(ctx->h_idx, &ctx->h_idx_n, n_idx, sizeof(int32_t));
    /* the occupancy query loads the level kernel's module (lazy loading);
     * 4-cell groups, the presets' (a sort with another size queries again) */
    cuplas_error_clear(&e);
    if (Cp > 0)
        level_occupancy(ctx, Cp, 4, &per_sm, &e);
    return ctx->h_q && ctx->h_idx ? 0 : -1;
}

extern "C" int16_t *cuplas_gpu_staging(cuplas_gpu_ctx *ctx, int64_t n)
{
    if (cudaSetDevice(ctx->device) != cudaSuccess)
        return NULL;
    ctx->h_q = (int16_t *)grow_pinned(ctx->h_q, &ctx->h_q_n, n, sizeof(int16_t));
    return ctx->h_q;
}

extern "C" void cuplas_gpu_release(cuplas_gpu_ctx *ctx)
{
    cudaSetDevice(ctx->device);
    if (ctx->ws)
        cudaFree(ctx->ws);
    if (ctx->tab)
        cudaFree(ctx->tab);
    ctx->ws = NULL;
    ctx->ws_bytes = 0;
    ctx->tab = NULL;
    ctx->tab_bytes = 0;
}

extern "C" size_t cuplas_sort_gpu_bytes(int64_t H, int64_t W, int Cp)
{
    size_t N = (size_t)(H * W);
    return 2 * align256(N * Cp * sizeof(int16_t)) + align256(N * sizeof(int32_t)) +
           align256(sizeof(cuplas_level_counters)) +
           align256(cuplas_blur_gpu_workspace(H, W, Cp));
}

/* Grow a device buffer of the context to at least `bytes` (its contents
 * are not kept). `what` names it in the out-of-memory error. */
static int grow_device(void **buf, size_t *have, size_t bytes, const char *what,
                       cuplas_error *err)
{
    int rc = 0;
    if (*have >= bytes)
        return 0;
    if (*buf)
        CUPLAS_CUDA_TRY(err, cudaFree(*buf));
    *buf = NULL;
    *have = 0;
    if (cudaMalloc(buf, bytes) != cudaSuccess) {
        size_t fr = 0, tot = 0;
        cudaGetLastError();
        cudaMemGetInfo(&fr, &tot);
        *buf = NULL;
        CUPLAS_FAIL(err, CUPLAS_ERR_CUDA, "out of device memory: %s needs %.2f GiB, %.2f GiB free of %.2f",
                    what, bytes / 1073741824.0, fr / 1073741824.0, tot / 1073741824.0);
    }
    *have = bytes;
fail:
    return rc;
}

static gpu_buffers carve(void *ws, int64_t H, int64_t W, int Cp)
{
    gpu_buffers b;
    size_t N = (size_t)(H * W);
    char *p = (char *)ws;
    b.q = (int16_t *)p;
    p += align256(N * Cp * sizeof(int16_t));
    b.t = (int16_t *)p;
    p += align256(N * Cp * sizeof(int16_t));
    b.cs = Cp;
    if (cuplas_assign_gpu_packed(Cp)) {
        b.t = b.q + Cp; /* the same 2 N Cp elements, interleaved */
        b.cs = 2 * Cp;
    }
    b.idx = (int32_t *)p;
    p += align256(N * sizeof(int32_t));
    b.state = (cuplas_level_counters *)p;
    p += align256(sizeof(cuplas_level_counters));
    b.blur_ws = p;
    /* packed: the input waits in the blur's workspace (at least N Cp x 4
     * bytes), which the blur first writes after the shuffle */
    b.in = b.cs != Cp ? (int16_t *)b.blur_ws : b.t;
    return b;
}

/* ------------------------------------------------------------------ sort */

/* A level's kernel finished: one more for the progress line (runs on a
 * CUDA thread, in stream order; the counter is a display's, read racily). */
static void CUDART_CB level_done(void *levels)
{
    (*(volatile int *)levels)++;
}

extern "C" int cuplas_sort_gpu(cuplas_gpu_ctx *ctx, const cuplas_qgrid *g,
                               const cuplas_sort_params *p, const cuplas_schedule *s,
                               int64_t *index, const volatile int *cancel,
                               cuplas_sort_stats *st, cuplas_error *err)
{
    int rc = 0;
    const int64_t N = g->H * g->W;
    const size_t qbytes = (size_t)N * g->Cp * sizeof(int16_t);
    float ms[3] = {0, 0, 0};
    int per_sm = 0, per_sm_small = 0;
    /* the group sizes of the level kernels this sort launches */
    const int k_main = cuplas_group_main(p), k_small = cuplas_group_small(p);
    cuplas_level_counters hs;
    gpu_buffers b;
    cudaStream_t str = ctx->stream;
    cuplas_gpu_order *ordered = NULL;   /* set while its lock is held */
    int count_levels = 0;               /* level_done callbacks queued */
    size_t tab_bytes = 0;               /* block-local levels' tables, 0: none */
    (void)cancel; /* a GPU sort always completes its grid (README) */
    memset(st, 0, sizeof *st);
    if (N > INT32_MAX)
        CUPLAS_FAIL(err, CUPLAS_ERR_USAGE, "%lld cells: the GPU backend takes at most 2^31-1", (long long)N);
    CUPLAS_CUDA_TRY(err, cudaSetDevice(ctx->device));
    CUPLAS_TRY(grow_device(&ctx->ws, &ctx->ws_bytes, cuplas_sort_gpu_bytes(g->H, g->W, g->Cp),
                           "the grid", err));
    b = carve(ctx->ws, g->H, g->W, g->Cp);
    tab_bytes = cuplas_assign_local_tab_bytes(p, N);
    /* apart from the workspace: their size follows the sort parameters
       (at most a few MiB for the presets), not the grid */
    CUPLAS_TRY(grow_device((void **)&ctx->tab, &ctx->tab_bytes, tab_bytes,
                           "the block-local levels' pass tables", err));
    if (!(ctx->h_idx = (int32_t *)grow_pinned(ctx->h_idx, &ctx->h_idx_n, N, sizeof(int32_t))))
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "cannot allocate pinned host memory for the index");
    /* a lane sorts many grids of one shape: query the occupancy once */
    /* a lane sorts many grids of one shape: the occupancies are cached */
    CUPLAS_TRY(level_occupancy(ctx, g->Cp, k_main, &per_sm, err));
    per_sm_small = per_sm;
    if (k_small != k_main)
        CUPLAS_TRY(level_occupancy(ctx, g->Cp, k_small, &per_sm_small, err));
    if (per_sm < 1 || per_sm_small < 1)
        CUPLAS_FAIL(err, CUPLAS_ERR_CUDA, "the level kernel for %d channels does not fit an SM", g->C);

    /* b.in (the target buffer, or the blur's workspace) holds the input
     * until the shuffle has gathered it; g->q is pinned when it came from
     * cuplas_gpu_staging (async copy) */
    CUPLAS_CUDA_TRY(err, cudaEventRecord(ctx->ev[0], str));
    CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(b.in, g->q, qbytes, cudaMemcpyHostToDevice, str));
    CUPLAS_CUDA_TRY(err, cudaMemsetAsync(b.state, 0, sizeof(cuplas_level_counters), str));
    /* the upload overlaps the sorts ahead; the sort itself waits its turn
       (ev[1] after the wait: device_ms is this grid's own time) */
    ordered = order_enter(ctx->order, N, str, err, &rc);
    if (rc)
        goto fail;
    CUPLAS_CUDA_TRY(err, cudaEventRecord(ctx->ev[1], str));
    /* the blur leaves padding channels of the target alone: zero them, as
     * the split layout's target gets them from the (zero-padded) input */
    if (b.cs != g->Cp && g->C != g->Cp)
        CUPLAS_CUDA_TRY(err, cudaMemsetAsync(b.q, 0, 2 * qbytes, str));
    CUPLAS_TRY(cuplas_shuffle_gpu(b.q, b.idx, b.in, N, g->Cp, b.cs, p->seed, p->shuffle, str,
                                  err));
    /* every launch is asynchronous: the loop decisions live on the device */
    count_levels = N > PROGRESS_CELLS;
    for (int L = 0; L < s->nlevels; L++) {
        const cuplas_level *lv = &s->levels[L];
        CUPLAS_TRY(cuplas_blur_gpu(b.q, b.t, g->H, g->W, g->C, g->Cp, b.cs, lv->rx, lv->ry,
                                   p->blur_passes, p->border_x, p->border_y, b.blur_ws, str, err));
        cuplas_level_params a = cuplas_level_params_make(p, lv, g->H, g->W, L);
        /* a cooperative launch may not exceed what is resident at once:
           the bound of the kernel this level runs (its group size) */
        int bound = (a.group > 4 ? (int)a.group : 4) == k_main ? per_sm : per_sm_small;
        CUPLAS_TRY(cuplas_assign_level_gpu(b.q, b.idx, b.t, g->C, g->Cp, a,
                                           tab_bytes ? ctx->tab : NULL, b.state,
                                           bound * ctx->sms, str, err));
        if (count_levels)
            CUPLAS_CUDA_TRY(err, cudaLaunchHostFunc(str, level_done, (void *)&st->levels));
    }
    if (p->polish > 0) {
        int *pps = &ctx->polish_per_sm[p->polish_cells == 6];
        if (*pps == 0)
            CUPLAS_TRY(cuplas_polish_gpu_occupancy(p->polish_cells, pps, err));
        CUPLAS_TRY(cuplas_polish_gpu(b.q, b.idx, b.cs, g->Cp, g->H, g->W, p->polish,
                                     p->polish_cells, b.state->polish_moved, *pps * ctx->sms,
                                     str, err));
    }
    CUPLAS_CUDA_TRY(err, cudaEventRecord(ctx->ev[2], str));
    if (ordered) {
        CUPLAS_CUDA_TRY(err, cudaEventRecord(ordered->last, str));
        order_leave(ordered);
        ordered = NULL;
    }
    CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(ctx->h_idx, b.idx, (size_t)N * sizeof(int32_t),
                                         cudaMemcpyDeviceToHost, str));
    CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(ctx->h_state, b.state, sizeof hs, cudaMemcpyDeviceToHost,
                                         str));
    CUPLAS_CUDA_TRY(err, cudaEventRecord(ctx->ev[3], str));
    CUPLAS_CUDA_TRY(err, cudaEventSynchronize(ctx->ev[3]));
    hs = *ctx->h_state;
    for (int i = 0; i < 3; i++)
        CUPLAS_CUDA_TRY(err, cudaEventElapsedTime(&ms[i], ctx->ev[i], ctx->ev[i + 1]));
    for (int64_t i = 0; i < N; i++)
        index[i] = ctx->h_idx[i];
    st->levels = s->nlevels;
    st->configs = (int64_t)hs.configs;
    st->passes = (int64_t)hs.passes;
    st->polish_moves = 0;
    for (int k = 0; k < CUPLAS_POLISH_MAX; k++)
        st->polish_moves += hs.polish_moved[k];
    st->h2d_ms = ms[0];
    st->device_ms = ms[1];
    st->d2h_ms = ms[2];
fail:
    order_leave(ordered);   /* a failed launch: the next waits on an older record */
    if (rc && count_levels) {
        /* no callback may touch st after this returns (a CPU retry reuses it) */
        cudaStreamSynchronize(str);
        cudaGetLastError();
    }
    if (rc)
        cuplas_error_where(err, "gpu %d (%s)", ctx->device, ctx->name);
    return rc;
}

/* ------------------------------------------- the steps run from host arrays */

extern "C" int cuplas_blur_gpu_host(cuplas_gpu_ctx *ctx, const int16_t *q, int16_t *target,
                                    int64_t H, int64_t W, int Cp, int rx, int ry, int passes,
                                    cuplas_border bx, cuplas_border by, cuplas_error *err)
{
    int rc = 0;
    const size_t row = (size_t)Cp * sizeof(int16_t), n = (size_t)(H * W);
    CUPLAS_CUDA_TRY(err, cudaSetDevice(ctx->device));
    CUPLAS_TRY(grow_device(&ctx->ws, &ctx->ws_bytes, cuplas_sort_gpu_bytes(H, W, Cp), "the grid", err));
    {
        gpu_buffers b = carve(ctx->ws, H, W, Cp);
        const size_t pitch = (size_t)b.cs * sizeof(int16_t);
        CUPLAS_CUDA_TRY(err, cudaMemcpy2DAsync(b.q, pitch, q, row, row, n, cudaMemcpyHostToDevice,
                                               ctx->stream));
        /* every channel (padding included), like the CPU */
        CUPLAS_TRY(cuplas_blur_gpu(b.q, b.t, H, W, Cp, Cp, b.cs, rx, ry, passes, bx, by,
                                   b.blur_ws, ctx->stream, err));
        CUPLAS_CUDA_TRY(err, cudaMemcpy2DAsync(target, row, b.t, pitch, row, n,
                                               cudaMemcpyDeviceToHost, ctx->stream));
        CUPLAS_CUDA_TRY(err, cudaStreamSynchronize(ctx->stream));
    }
fail:
    return rc;
}

extern "C" int cuplas_assign_pass_gpu_host(cuplas_gpu_ctx *ctx, int16_t *q, int64_t *idx,
                                           const int16_t *target, int Cp,
                                           const cuplas_pass_geom *g, uint64_t seed,
                                           uint32_t level, uint32_t cfg, uint32_t pass,
                                           uint64_t *before, uint64_t *after,
                                           cuplas_error *err)
{
    int rc = 0;
    const int64_t N = g->H * g->W;
    const size_t row = (size_t)Cp * sizeof(int16_t);
    int32_t *h_idx = (int32_t *)malloc((size_t)N * sizeof *h_idx);
    cuplas_level_counters hs;
    if (!h_idx)
        CUPLAS_FAIL(err, CUPLAS_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < N; i++)
        h_idx[i] = (int32_t)idx[i];
    CUPLAS_CUDA_TRY(err, cudaSetDevice(ctx->device));
    CUPLAS_TRY(grow_device(&ctx->ws, &ctx->ws_bytes, cuplas_sort_gpu_bytes(g->H, g->W, Cp), "the grid", err));
    {
        gpu_buffers b = carve(ctx->ws, g->H, g->W, Cp);
        const size_t pitch = (size_t)b.cs * sizeof(int16_t);
        CUPLAS_CUDA_TRY(err, cudaMemcpy2DAsync(b.q, pitch, q, row, row, (size_t)N,
                                               cudaMemcpyHostToDevice, ctx->stream));
        CUPLAS_CUDA_TRY(err, cudaMemcpy2DAsync(b.t, pitch, target, row, row, (size_t)N,
                                               cudaMemcpyHostToDevice, ctx->stream));
        CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(b.idx, h_idx, N * sizeof *h_idx, cudaMemcpyHostToDevice, ctx->stream));
        CUPLAS_TRY(cuplas_assign_pass_gpu(b.q, b.idx, b.t, Cp, g, seed, level, cfg, pass, b.state,
                                          ctx->stream, err));
        CUPLAS_CUDA_TRY(err, cudaMemcpy2DAsync(q, row, b.q, pitch, row, (size_t)N,
                                               cudaMemcpyDeviceToHost, ctx->stream));
        CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(h_idx, b.idx, N * sizeof *h_idx, cudaMemcpyDeviceToHost, ctx->stream));
        CUPLAS_CUDA_TRY(err, cudaMemcpyAsync(&hs, b.state, sizeof hs, cudaMemcpyDeviceToHost, ctx->stream));
        CUPLAS_CUDA_TRY(err, cudaStreamSynchronize(ctx->stream));
    }
    for (int64_t i = 0; i < N; i++)
        idx[i] = h_idx[i];
    *before = hs.sums[0];
    *after = hs.sums[1];
fail:
    free(h_idx);
    return rc;
}
