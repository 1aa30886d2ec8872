/* wb_random.c: see wb_random.h. */
#include "wb_random.h"

#include <math.h>

void wb_rng_seed(wb_rng *rng, uint64_t seed) { rng->state = seed ? seed : 0x9E3779B97F4A7C15ull; }

uint64_t wb_rng_next(wb_rng *rng) {
    uint64_t x = rng->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng->state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

float wb_rng_uniform(wb_rng *rng) { return (float)(wb_rng_next(rng) >> 40) / (float)(1ull << 24); }

float wb_rng_normal(wb_rng *rng) {
    float u1 = wb_rng_uniform(rng), u2 = wb_rng_uniform(rng);
    if (u1 < 1e-7f) u1 = 1e-7f;
    return sqrtf(-2.0f * logf(u1)) * cosf(6.28318530718f * u2);
}

void wb_fill_uniform(float *x, size_t n, wb_rng *rng, float lo, float hi) {
    for (size_t i = 0; i < n; i++) x[i] = lo + (hi - lo) * wb_rng_uniform(rng);
}

void wb_fill_normal(float *x, size_t n, wb_rng *rng, float std) {
    for (size_t i = 0; i < n; i++) x[i] = std * wb_rng_normal(rng);
}
