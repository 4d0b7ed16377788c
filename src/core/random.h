/*
 * random.h - counter-based randomness and on-the-fly permutations,
 * compiled both as C11 (CPU reference) and as CUDA (kernels).
 *
 * Every random choice of the sort is a pure function of (seed, tag, level,
 * configuration, pass), never of thread scheduling: Philox-4x32-10 maps
 * that counter to 128 bits. Permutations are bijections evaluated per
 * element (affine LCG, or a keyed Feistel network with cycle walking), so
 * neither backend materialises them and both get the same map.
 */
#ifndef CUPLAS_RANDOM_H
#define CUPLAS_RANDOM_H

#include <stdint.h>

#if defined(__CUDACC__)
#define CUPLAS_HD static __host__ __device__ __forceinline__
#else
#define CUPLAS_HD static inline
#endif

/* Philox stream tags: one per kind of random decision. */
enum {
    CUPLAS_TAG_SHUFFLE = 1, /* initial shuffle of all N cells     */
    CUPLAS_TAG_SHIFT = 2,   /* torus shift of a block configuration */
    CUPLAS_TAG_GROUP = 3    /* grouping permutation of one pass     */
};

typedef struct { uint32_t v[4]; } cuplas_u128;

/* Philox-4x32 with 10 rounds (Salmon et al., SC'11), key = seed. */
CUPLAS_HD cuplas_u128 cuplas_philox(uint64_t seed, uint32_t c0, uint32_t c1,
                                    uint32_t c2, uint32_t c3)
{
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    uint32_t x0 = c0, x1 = c1, x2 = c2, x3 = c3;
    for (int i = 0; i < 10; i++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * x0;
        uint64_t p1 = (uint64_t)0xCD9E8D57u * x2;
        uint32_t y0 = (uint32_t)(p1 >> 32) ^ x1 ^ k0;
        uint32_t y2 = (uint32_t)(p0 >> 32) ^ x3 ^ k1;
        x1 = (uint32_t)p1;
        x3 = (uint32_t)p0;
        x0 = y0;
        x2 = y2;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    cuplas_u128 r = {{x0, x1, x2, x3}};
    return r;
}

CUPLAS_HD uint64_t cuplas_u128_lo64(cuplas_u128 r) { return r.v[0] | ((uint64_t)r.v[1] << 32); }
CUPLAS_HD uint64_t cuplas_u128_hi64(cuplas_u128 r) { return r.v[2] | ((uint64_t)r.v[3] << 32); }

/* A bijection on [0, n): p(i) = (a*i + b) mod n, or a Feistel network. */
typedef struct cuplas_perm {
    uint32_t kind;     /* 0 feistel, 1 lcg (cuplas_permuter)       */
    uint32_t n;        /* domain size, >= 1                          */
    uint32_t a, b;     /* lcg: multiplier (coprime to n) and offset   */
    uint32_t half;     /* feistel: left bits << 8 | right bits         */
    uint32_t key[4];   /* feistel round keys                          */
} cuplas_perm;

CUPLAS_HD uint32_t cuplas_gcd32(uint32_t a, uint32_t b)
{
    while (b) {
        uint32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/*
 * Draw the permutation for counter (tag, level, cfg, pass). LCG multipliers
 * are rejection-sampled until coprime to n; the draw index lives in the
 * high byte of the tag word so every draw has its own counter.
 */
CUPLAS_HD cuplas_perm cuplas_perm_make(uint32_t kind, uint32_t n, uint64_t seed,
                                       uint32_t tag, uint32_t level,
                                       uint32_t cfg, uint32_t pass)
{
    cuplas_perm p;
    p.kind = kind;
    p.n = n;
    p.a = 1;
    p.b = 0;
    p.half = 1;
    cuplas_u128 r = cuplas_philox(seed, tag, level, cfg, pass);
    for (int i = 0; i < 4; i++)
        p.key[i] = r.v[i];
    if (kind == 1) {
        p.b = n > 1 ? (uint32_t)(cuplas_u128_hi64(r) % n) : 0;
        for (uint32_t d = 1; n > 2 && d < 256; d++) {
            cuplas_u128 q = cuplas_philox(seed, tag | (d << 24), level, cfg, pass);
            uint32_t g = 1 + (uint32_t)(cuplas_u128_lo64(q) % (n - 1));
            if (cuplas_gcd32(g, n) == 1) {
                p.a = g;
                break;
            }
        }
    } else {
        uint32_t bits = 0;
        while (bits < 31 && ((uint64_t)1 << bits) < n)
            bits++;
        bits = bits < 2 ? 2 : bits;
        p.half = ((bits / 2) << 8) | (bits - bits / 2); /* left bits << 8 | right bits */
    }
    return p;
}

/* Round function: a keyed 32-bit mix (multiply-xorshift). */
CUPLAS_HD uint32_t cuplas_feistel_f(uint32_t x, uint32_t k)
{
    x ^= k;
    x *= 0x9E3779B1u;
    x ^= x >> 15;
    x *= 0x85EBCA77u;
    x ^= x >> 13;
    return x;
}

/* p(i) for i < n. Feistel runs on the smallest power of two >= n (two
 * halves of bits/2 and bits - bits/2, rounds alternate between them) and
 * cycle-walks back into [0, n): the walk stays on i's cycle, so it ends
 * and the map stays a bijection; on average it takes under two steps. */
CUPLAS_HD uint32_t cuplas_perm_apply(const cuplas_perm *p, uint32_t i)
{
    if (p->kind == 1)
        return (uint32_t)(((uint64_t)p->a * i + p->b) % p->n);
    const uint32_t hl = p->half >> 8, hr = p->half & 255;
    const uint32_t ml = (uint32_t)(((uint64_t)1 << hl) - 1), mr = (uint32_t)(((uint64_t)1 << hr) - 1);
    uint32_t x = i;
    do {
        uint32_t l = x >> hr, r = x & mr;
        l ^= cuplas_feistel_f(r, p->key[0]) & ml;
        r ^= cuplas_feistel_f(l, p->key[1]) & mr;
        l ^= cuplas_feistel_f(r, p->key[2]) & ml;
        r ^= cuplas_feistel_f(l, p->key[3]) & mr;
        x = (l << hr) | r;
    } while (x >= p->n);
    return x;
}

/* The initial shuffle of all n cells (both backends' cuplas_shuffle_*):
 * always Feistel, whatever the permuter, because an affine map keeps
 * structured input structured. */
CUPLAS_HD cuplas_perm cuplas_shuffle_perm(uint32_t n, uint64_t seed)
{
    return cuplas_perm_make(0, n, seed, CUPLAS_TAG_SHUFFLE, 0, 0, 0);
}

/* Torus shift of one block configuration: uniform on [0,H) x [0,W). */
CUPLAS_HD void cuplas_shift_draw(uint64_t seed, uint32_t level, uint32_t cfg,
                                 int64_t H, int64_t W, int64_t *sy, int64_t *sx)
{
    cuplas_u128 r = cuplas_philox(seed, CUPLAS_TAG_SHIFT, level, cfg, 0);
    *sy = (int64_t)(cuplas_u128_lo64(r) % (uint64_t)H);
    *sx = (int64_t)(cuplas_u128_hi64(r) % (uint64_t)W);
}

#endif
