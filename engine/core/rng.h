/* rng.h: PCG32 (O'Neill, pcg-random.org), the only randomness in engine/.
 *
 * The generator is a plain value inside each game's state, so a stored game
 * carries its own stream and the same seed and plays give the same game on
 * every machine. Never rand().
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
/* Uniform in [0, bound); bound > 0. Unbiased (Lemire's rejection). */
uint32_t rng_below(rng *r, uint32_t bound);
/* Fisher-Yates shuffle of n bytes. */
void rng_shuffle_u8(rng *r, uint8_t *a, size_t n);

#endif
