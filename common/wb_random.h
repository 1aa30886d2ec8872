/*
 * wb_random.h: deterministic random inputs for lessons and tests (never zeros: zeros hide
 * unwritten outputs and wrong indexing, and can even run faster than real data).
 */
#ifndef WB_RANDOM_H
#define WB_RANDOM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { uint64_t state; } wb_rng;

void wb_rng_seed(wb_rng *rng, uint64_t seed);
uint64_t wb_rng_next(wb_rng *rng);            /* xorshift64*: fast, good enough for test data */
float wb_rng_uniform(wb_rng *rng);            /* [0, 1) */
float wb_rng_normal(wb_rng *rng);             /* standard normal, Box-Muller */
/* Moves rng on by n draws, as n calls of wb_rng_next would, in about 0.1 ms whatever n is. */
void wb_rng_skip(wb_rng *rng, uint64_t n);
/* x[i] = uniform in [lo, hi). A large fill is made on every core (wb_parallel.h): the same
 * values, and the same state left in rng, as drawing them one by one, whatever the core count. */
void wb_fill_uniform(float *x, size_t n, wb_rng *rng, float lo, float hi);
/* x[i] = std * N(0, 1); the same threads and the same guarantee. */
void wb_fill_normal(float *x, size_t n, wb_rng *rng, float std);

#ifdef __cplusplus
}
#endif

#endif
