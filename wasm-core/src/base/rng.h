/*
 * Internal: the seeded random number generator every model draws from.
 *
 * Determinism is by construction: an rng is a plain 32-byte value that lives
 * inside the state struct that owns it (the simulator's), is saved in its
 * snapshots, and is never shared. The seed is expanded with splitmix64 (so
 * seeds 0, 1, 2 give unrelated streams) into xoshiro256** state, the
 * generator Blackman and Vigna recommend for general use. Bounded draws use
 * Lemire's multiply-shift with rejection, so they are unbiased and identical
 * natively and in wasm (only 64-bit integer arithmetic, no floating point).
 */
#ifndef KSCOPE_BASE_RNG_H
#define KSCOPE_BASE_RNG_H

#include <stdint.h>

typedef struct rng_state {
    uint64_t s[4];
} rng_state;

/* Expands seed into a full state (splitmix64, as the xoshiro authors advise). */
void rng_seed(rng_state *rng, uint64_t seed);

/* The next 64 random bits (xoshiro256**). */
uint64_t rng_next(rng_state *rng);

/* A uniform integer in [0, bound); 0 when bound is 0. */
uint32_t rng_below(rng_state *rng, uint32_t bound);

/* Fisher-Yates shuffle of n int32 values in place. */
void rng_shuffle(rng_state *rng, int32_t *items, int32_t n);

#endif
