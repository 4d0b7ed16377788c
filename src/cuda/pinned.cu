/*
 * pinned.cu - page-locked host buffers (pinned.cuh): huge pages zeroed in
 * parallel, then registered; cudaHostAlloc where that fails.
 *
 * A buffer remembers how it was made in a 64-byte header in front of the
 * pointer handed out, so that cuplas_pinned_free undoes the right one;
 * the header sits in the registered range (2 MiB aligned start) and the
 * data that follows stays 64-byte aligned.
 */
#include "cuda/pinned.cuh"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cuda_runtime.h>

#define HUGE_PAGE ((size_t)2 << 20)
#define HEADER 64
#define TOUCH_MAX_THREADS 16
/* below this, one thread zeroes faster than threads start */
#define TOUCH_PER_THREAD ((size_t)32 << 20)

enum { MADE_REGISTERED = 1, MADE_HOSTALLOC = 2 };

struct header {
    int made;
    size_t bytes;   /* of the whole block, header included */
};

struct zero_part {
    unsigned char *p;
    size_t n;
};

static void *zero_part_run(void *a)
{
    struct zero_part *z = (struct zero_part *)a;
    memset(z->p, 0, z->n);
    return NULL;
}

/* First touch of [p, p + n) by up to TOUCH_MAX_THREADS threads: the
 * kernel clears each new page on the thread that faults it in. */
static void zero_parallel(unsigned char *p, size_t n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t t = n / TOUCH_PER_THREAD;
    t = t < 1 ? 1 : t > TOUCH_MAX_THREADS ? TOUCH_MAX_THREADS : t;
    if (cpus > 0 && t > (size_t)cpus)
        t = (size_t)cpus;
    pthread_t th[TOUCH_MAX_THREADS];
    struct zero_part part[TOUCH_MAX_THREADS];
    size_t per = (n / HUGE_PAGE + t - 1) / t * HUGE_PAGE, k = 0;
    for (size_t off = 0; off < n && k < t; off += per, k++) {
        part[k].p = p + off;
        part[k].n = off + per <= n ? per : n - off;
        if (k + 1 == t || pthread_create(&th[k], NULL, zero_part_run, &part[k]) != 0) {
            zero_part_run(&part[k]);   /* the last part, or no thread: here */
            th[k] = pthread_self();
        }
    }
    for (size_t i = 0; i < k; i++)
        if (!pthread_equal(th[i], pthread_self()))
            pthread_join(th[i], NULL);
}

void *cuplas_pinned_alloc(size_t bytes)
{
    size_t total = (bytes + HEADER + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    unsigned char *p = (unsigned char *)aligned_alloc(HUGE_PAGE, total);
    int made = MADE_REGISTERED;

    if (p) {
        madvise(p, total, MADV_HUGEPAGE);
        zero_parallel(p, total);
        if (cudaHostRegister(p, total, cudaHostRegisterPortable) != cudaSuccess) {
            cudaGetLastError();
            free(p);
            p = NULL;
        }
    }
    if (!p) {
        made = MADE_HOSTALLOC;
        if (cudaHostAlloc((void **)&p, total, cudaHostAllocPortable) != cudaSuccess) {
            cudaGetLastError();
            return NULL;
        }
    }
    struct header *h = (struct header *)p;
    h->made = made;
    h->bytes = total;
    return p + HEADER;
}

void cuplas_pinned_free(void *q)
{
    if (!q)
        return;
    unsigned char *p = (unsigned char *)q - HEADER;
    struct header *h = (struct header *)p;
    if (h->made == MADE_REGISTERED) {
        cudaHostUnregister(p);
        free(p);
    } else {
        cudaFreeHost(p);
    }
}
