/* rng.c: PCG32 XSH-RR; see rng.h. */
#include "rng.h"

void rng_seed(rng *r, uint64_t seed, uint64_t stream)
{
    r->state = 0;
    r->inc = (stream << 1u) | 1u;
    rng_next(r);
    r->state += seed;
    rng_next(r);
}

uint32_t rng_next(rng *r)
{
    uint64_t old = r->state;
    r->state = old * 6364136223846793005ULL + r->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

uint64_t rng_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

rng rng_at(uint64_t key, uint64_t k)
{
    /* k mixed before it meets the key, so that small keys and small counts
     * (seed 7 at play 3, seed 4 at play 0) do not cancel into one seed; the
     * PCG stream from a second mix of it */
    uint64_t s = rng_mix64(key ^ rng_mix64(k));
    rng r;
    rng_seed(&r, s, rng_mix64(s));
    return r;
}

uint32_t rng_below(rng *r, uint32_t bound)
{
    uint64_t m = (uint64_t)rng_next(r) * bound;
    uint32_t l = (uint32_t)m;
    if (l < bound) {
        uint32_t t = -bound % bound;
        while (l < t) {
            m = (uint64_t)rng_next(r) * bound;
            l = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* rng_shuffle_u8 over bytes scattered in a struct: the values at
 * *slots[0..n) shuffled among those places (n <= 256). */
static void rng_shuffle_slots(rng *r, uint8_t *const *slots, size_t n)
{
    uint8_t v[256];
    if (n > sizeof v)
        n = sizeof v;
    for (size_t i = 0; i < n; i++)
        v[i] = *slots[i];
    rng_shuffle_u8(r, v, n);
    for (size_t i = 0; i < n; i++)
        *slots[i] = v[i];
}

void rng_slots_shuffle(rng_slots *s, uint64_t salt)
{
    rng r;
    rng_seed(&r, salt, 0x5eed5);
    rng_shuffle_slots(&r, s->at, s->n);
}

void rng_shuffle_u8(rng *r, uint8_t *a, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = rng_below(r, (uint32_t)i);
        uint8_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}
