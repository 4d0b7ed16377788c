/*
 * cuda_check.h - CUDA errors into struct cuplas_error, never exit().
 *
 * CUPLAS_CUDA_TRY records the call, cudaGetErrorString and the location,
 * then jumps to the function's `fail:` label. Out-of-memory gets its own
 * wording so a user sees "needs X GiB" instead of a bare status.
 */
#ifndef CUPLAS_CUDA_CHECK_H
#define CUPLAS_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "util/error.h"

#define CUPLAS_CUDA_TRY(err, expr)                                             \
    do {                                                                       \
        cudaError_t e_ = (expr);                                               \
        if (e_ != cudaSuccess) {                                               \
            rc = cuplas_error_set((err), CUPLAS_ERR_CUDA, "%s: %s (%s)",       \
                                  #expr, cudaGetErrorString(e_),               \
                                  cudaGetErrorName(e_));                       \
            goto fail;                                                         \
        }                                                                      \
    } while (0)

/* After a launch: configuration errors now, and with --enable-debug-sync
 * also faults of the kernel itself, attributed to the right launch. */
#ifdef CUPLAS_DEBUG_SYNC
#define CUPLAS_LAUNCH_CHECK(err, stream)                                       \
    do {                                                                       \
        cudaStreamCaptureStatus cs_ = cudaStreamCaptureStatusNone;             \
        CUPLAS_CUDA_TRY(err, cudaGetLastError());                              \
        CUPLAS_CUDA_TRY(err, cudaStreamIsCapturing(stream, &cs_));             \
        if (cs_ == cudaStreamCaptureStatusNone)                                \
            CUPLAS_CUDA_TRY(err, cudaStreamSynchronize(stream));               \
    } while (0)
#else
#define CUPLAS_LAUNCH_CHECK(err, stream) CUPLAS_CUDA_TRY(err, cudaGetLastError())
#endif

static inline unsigned cuplas_blocks(long long n, unsigned threads)
{
    return (unsigned)((n + threads - 1) / threads);
}

#endif
