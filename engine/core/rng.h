/* rng.h: PCG32 (O'Neill, pcg-random.org), the only randomness in engine/.
 *
 * The deal's generator is a plain value inside each game's state, so a
 * stored game carries its own stream and the same seed and plays give the
 * same game on every machine. The bots' chance is counter-based instead:
 * rng_at(key, k) is a fresh generator for the k-th play of the game whose
 * key is `key`, a pure function of the two, so nothing of it is kept
 * between plays and a game's log replays without asking a bot anything.
 * Never rand().
 */
#ifndef CROUPIER_RNG_H
#define CROUPIER_RNG_H

#include <stdint.h>
#include <stddef.h>

typedef struct rng {
    uint64_t state;
    uint64_t inc; /* odd */
} rng;

void rng_seed(rng *r, uint64_t seed, uint64_t stream);
uint32_t rng_next(rng *r);
/* SplitMix64's finaliser (Steele, Lea, Flood 2014): a bijection of 64 bits
 * in which every input bit moves about half the output bits. */
uint64_t rng_mix64(uint64_t x);
/* A new generator for step k of the stream keyed by key (engine/bots.c: a
 * game's bot key and the number of plays made so far). Deterministic;
 * distinct k give unrelated generators. */
rng rng_at(uint64_t key, uint64_t k);
/* Uniform in [0, bound); bound > 0. Unbiased (Lemire's rejection). */
uint32_t rng_below(rng *r, uint32_t bound);
/* Fisher-Yates shuffle of n bytes. */
void rng_shuffle_u8(rng *r, uint8_t *a, size_t n);
/* Bytes scattered in a struct (the places of the cards a reader may not
 * see), filled by rng_slots_add (the 257th and later are not taken: no game
 * holds that many cards). */
typedef struct rng_slots {
    uint8_t *at[256];
    size_t n;
} rng_slots;
static inline void rng_slots_add(rng_slots *s, uint8_t *a, size_t n)
{
    for (size_t i = 0; i < n && s->n < sizeof s->at / sizeof s->at[0]; i++)
        s->at[s->n++] = a + i;
}
/* Shuffle their values among those places, from salt (a stream of its own). */
void rng_slots_shuffle(rng_slots *s, uint64_t salt);

#endif
