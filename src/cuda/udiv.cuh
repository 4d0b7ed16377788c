/*
 * udiv.cuh - division by a divisor fixed for many numerators, for kernels.
 *
 * The GPU has no integer divider: a 32-bit `/` by a run-time value is a
 * software routine of about 20 instructions, and the blur's window kernel
 * and the solve's cell arithmetic divide for every element. A divisor
 * known before a launch (a block width, a window width) is turned into a
 * multiply-high and two shifts once (Granlund and Montgomery 1994, fig.
 * 4.1): with l = ceil(log2 d) and m = floor(2^32 (2^l - d) / d) + 1,
 *
 *     n / d = (t + ((n - t) >> min(l, 1))) >> max(l - 1, 0),  t = umulhi(m, n)
 *
 * exactly, for every 32-bit n and every d >= 1 (d = 1: m = 1, t = 0).
 */
#ifndef CUPLAS_UDIV_CUH
#define CUPLAS_UDIV_CUH

#include <stdint.h>

typedef struct cuplas_udiv32 {
    uint32_t m, s1, s2, d;
} cuplas_udiv32;

static __host__ __device__ inline cuplas_udiv32 cuplas_udiv32_make(uint32_t d)
{
    cuplas_udiv32 u;
    uint32_t l = 0;
    while (((uint64_t)1 << l) < d)
        l++;
    u.m = (uint32_t)((((uint64_t)1 << 32) * (((uint64_t)1 << l) - d)) / d + 1);
    u.s1 = l < 1 ? l : 1;
    u.s2 = l > 1 ? l - 1 : 0;
    u.d = d;
    return u;
}

static __device__ __forceinline__ uint32_t cuplas_udiv32_div(uint32_t n, const cuplas_udiv32 &u)
{
    uint32_t t = __umulhi(u.m, n);
    return (t + ((n - t) >> u.s1)) >> u.s2;
}

#endif
