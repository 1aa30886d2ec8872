/* wb_random.c: see wb_random.h. */
#include "wb_random.h"

#include <math.h>
#include <pthread.h>
#include <unistd.h>

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

/* ---- filling arrays, on several threads when they are large --------------------------------- */

/* A large fill (lesson 03's inputs are 13 million values: ~0.35 s of logf, cosf and sqrtf on one
 * core, every run) is cut into slices, one per thread. The generator is one sequence, so each
 * slice starts where the one before it ends: one pass of bare xorshift steps (about 1 ns each)
 * finds those starts, then the slices are transformed in parallel. Every value, and the state
 * the generator is left in, is what one thread filling in order gives. */
#define FILL_PARALLEL_MIN (1u << 20) /* below a million values, starting threads costs more */
#define FILL_MAX_THREADS 8

typedef struct {
    float *x;
    size_t n;
    wb_rng rng;  /* the state at the slice's first value */
    float a, b;  /* normal: std; uniform: lo and hi */
    int normal;
} fill_slice;

static void fill_slice_run(fill_slice *s) {
    if (s->normal)
        for (size_t i = 0; i < s->n; i++) s->x[i] = s->a * wb_rng_normal(&s->rng);
    else
        for (size_t i = 0; i < s->n; i++) s->x[i] = s->a + (s->b - s->a) * wb_rng_uniform(&s->rng);
}

static void *fill_slice_main(void *arg) {
    fill_slice_run((fill_slice *)arg);
    return NULL;
}

static void fill(float *x, size_t n, wb_rng *rng, float a, float b, int normal) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int k = n < FILL_PARALLEL_MIN || cpus < 2 ? 1 : cpus < FILL_MAX_THREADS ? (int)cpus : FILL_MAX_THREADS;
    size_t per = (n + (size_t)k - 1) / (size_t)k, draws = normal ? 2 : 1; /* Box-Muller takes two */
    fill_slice s[FILL_MAX_THREADS];
    pthread_t thread[FILL_MAX_THREADS];
    int started[FILL_MAX_THREADS] = {0};
    for (int i = 0; i < k; i++) {
        size_t from = (size_t)i * per < n ? (size_t)i * per : n, to = from + per < n ? from + per : n;
        s[i] = (fill_slice){x + from, to - from, *rng, a, b, normal};
        for (size_t j = 0; j < (to - from) * draws; j++) (void)wb_rng_next(rng);
    }
    for (int i = 1; i < k; i++) started[i] = pthread_create(&thread[i], NULL, fill_slice_main, &s[i]) == 0;
    fill_slice_run(&s[0]);
    for (int i = 1; i < k; i++) {
        if (started[i]) pthread_join(thread[i], NULL);
        else fill_slice_run(&s[i]); /* no thread to be had: this one does it */
    }
}

void wb_fill_uniform(float *x, size_t n, wb_rng *rng, float lo, float hi) { fill(x, n, rng, lo, hi, 0); }

void wb_fill_normal(float *x, size_t n, wb_rng *rng, float std) { fill(x, n, rng, std, 0.0f, 1); }
