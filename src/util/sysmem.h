/*
 * sysmem.h - how much host memory this process can ever have: physical
 * RAM, lowered by the control group's limit (what SLURM and containers
 * set).
 *
 * Why: a job whose grid needs more than this can never run; refusing it
 * before anything is allocated (pipeline/jobs.c) turns a minute of
 * swapping and a late `out of memory` into one line at once.
 */
#ifndef CUPLAS_SYSMEM_H
#define CUPLAS_SYSMEM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The limit in bytes (0: unknown), and in *what ("physical memory",
 * "cgroup memory.max", ...) where it comes from. Reads /proc and /sys
 * each call: call it once per job list, not per allocation. */
size_t cuplas_host_memory_limit(const char **what);

/* malloc(n), asking the kernel for huge pages where n is large (32 MiB
 * and up; freed with free). Why: a grid-sized buffer first touched in
 * 4 KiB pages costs one fault each (a 4096^2 x 16 job: 1.5 M faults, more
 * system than user time); 2 MiB pages cut the faults 512-fold. Only a
 * hint (madvise): without transparent huge pages it is plain malloc. */
void *cuplas_alloc_big(size_t n);

#ifdef __cplusplus
}
#endif
#endif
