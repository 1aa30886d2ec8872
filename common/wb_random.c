/* wb_random.c: see wb_random.h. */
#include "wb_random.h"

#include <math.h>

#include "wb_parallel.h"

static uint64_t xorshift(uint64_t x) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    return x;
}

void wb_rng_seed(wb_rng *rng, uint64_t seed) { rng->state = seed ? seed : 0x9E3779B97F4A7C15ull; }

uint64_t wb_rng_next(wb_rng *rng) {
    rng->state = xorshift(rng->state);
    return rng->state * 0x2545F4914F6CDD1Dull;
}

float wb_rng_uniform(wb_rng *rng) { return (float)(wb_rng_next(rng) >> 40) / (float)(1ull << 24); }

float wb_rng_normal(wb_rng *rng) {
    float u1 = wb_rng_uniform(rng), u2 = wb_rng_uniform(rng);
    if (u1 < 1e-7f) u1 = 1e-7f;
    return sqrtf(-2.0f * logf(u1)) * cosf(6.28318530718f * u2);
}

/* ---- jumping ahead ---------------------------------------------------------------------------- */

/* A xorshift step only XORs shifted copies of the state: it is linear over the 64 bits, a 64 x 64
 * bit matrix, and n steps are that matrix to the power n. Squaring it log2(n) times (4096 XORs
 * and shifts each) reaches any draw of the sequence in about 0.1 ms, where stepping there would
 * take n nanoseconds. */
typedef struct {
    uint64_t col[64]; /* col[b]: where the state with only bit b set goes */
} bit_matrix;

static uint64_t bit_matrix_apply(const bit_matrix *m, uint64_t v) {
    uint64_t r = 0;
    for (int b = 0; v; b++, v >>= 1)
        if (v & 1) r ^= m->col[b];
    return r;
}

void wb_rng_skip(wb_rng *rng, uint64_t n) {
    bit_matrix power, squared; /* power: the matrix of 2^i steps, i the bit of n being read */
    for (int b = 0; b < 64; b++) power.col[b] = xorshift(1ull << b);
    for (; n; n >>= 1) {
        if (n & 1) rng->state = bit_matrix_apply(&power, rng->state);
        if (n == 1) break;
        for (int b = 0; b < 64; b++) squared.col[b] = bit_matrix_apply(&power, power.col[b]);
        power = squared;
    }
}

/* ---- filling arrays, on every core when they are large -------------------------------------- */

/* Lesson 03's inputs are 13 million values: ~0.4 s of logf, cosf and sqrtf on one core, every
 * run. Each slice of the array jumps to the draw of its first value (wb_rng_skip) and fills on
 * its own thread (wb_parallel.h): every value, and the state the generator is left in, is what
 * one thread drawing them in order gives. */
typedef struct {
    float *x;
    wb_rng start; /* the generator at x[0] */
    float a, b;   /* normal: std; uniform: lo and hi */
    int normal;
} fill_job;

static void fill_range(void *arg, size_t from, size_t to) {
    const fill_job *f = (const fill_job *)arg;
    wb_rng rng = f->start;
    wb_rng_skip(&rng, f->normal ? 2 * (uint64_t)from : (uint64_t)from); /* Box-Muller takes two draws */
    if (f->normal)
        for (size_t i = from; i < to; i++) f->x[i] = f->a * wb_rng_normal(&rng);
    else
        for (size_t i = from; i < to; i++) f->x[i] = f->a + (f->b - f->a) * wb_rng_uniform(&rng);
}

/* Operations per value, for wb_parallel_for: a normal value costs a logf, a cosf and a sqrtf. */
#define NORMAL_OPS 64
#define UNIFORM_OPS 8

void wb_fill_uniform(float *x, size_t n, wb_rng *rng, float lo, float hi) {
    fill_job f = {x, *rng, lo, hi, 0};
    wb_parallel_for(n, UNIFORM_OPS, fill_range, &f);
    wb_rng_skip(rng, n);
}

void wb_fill_normal(float *x, size_t n, wb_rng *rng, float std) {
    fill_job f = {x, *rng, std, 0.0f, 1};
    wb_parallel_for(n, NORMAL_OPS, fill_range, &f);
    wb_rng_skip(rng, 2 * (uint64_t)n);
}
