/*
 * pinned.cuh - page-locked host buffers for the lanes' uploads and
 * downloads (host code; GPU twin of nothing).
 *
 * Why not cudaHostAlloc: on the H200 machine it took 0.21-0.31 s for the
 * 576 MiB a 4096^2 x 16 lane needs (1.24 s for 2.3 GiB), and a one-file
 * sort waited for it (bench/bench_pin.cu, bench/results/
 * 2026-11-24-h200-levers r6). Memory asked for in 2 MiB pages, zeroed by
 * several threads and then registered with cudaHostRegister took 0.04 s
 * (0.16 s for 2.3 GiB), and uploads from it run at the same 55 GB/s.
 * Where registering fails, cudaHostAlloc is the fallback.
 */
#ifndef CUPLAS_PINNED_CUH
#define CUPLAS_PINNED_CUH

#include <stddef.h>

/* A page-locked, portable buffer of at least `bytes`; NULL on failure. */
void *cuplas_pinned_alloc(size_t bytes);

/* Free a cuplas_pinned_alloc buffer (NULL: no-op). */
void cuplas_pinned_free(void *p);

#endif
