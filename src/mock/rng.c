/*
 * The mock's random numbers: a splitmix64 stream, and the seed mixer that gives each request
 * its own stream. Shared by the value generator (gen.c) and pattern strings (pattern.c).
 */
#include "mock/mock.h"

uint64_t mock_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t mock_seed_mix(uint64_t seed, const void *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ seed;
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return mock_rng_next(&h);
}
