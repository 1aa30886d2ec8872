/*
 * bench_host_work: how long lesson 03's host work takes before its first step, alone, without a
 * GPU: the work of lesson_prepare (lessons/03_mlp/main.cu) at the series' shape, each phase timed
 * on the wall clock and in CPU time (all threads: on a busy machine the CPU time is the work, and
 * CPU / wall the cores it got):
 *   random inputs  x ~ N(0, 1) (tokens, dim); Wg|Wu and Wd uniform (wb_random.h)
 *   bf16 encoding  the three inputs rounded, as the lesson uploads them (wb_bf16.h)
 *   reference      y of 32 sampled tokens in double (wb_cpu_matmul_nt, as the lesson's check)
 * The threads are wb_host_threads()'s: WB_HOST_THREADS=1 for one core, unset for every core.
 * The last line is a hash of every byte made, which must not change with the thread count.
 *
 *     WB_HOST_THREADS=1 build/bin/bench_host_work; build/bin/bench_host_work
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "wb_activations.h"
#include "wb_bf16.h"
#include "wb_compare.h"
#include "wb_parallel.h"
#include "wb_random.h"
#include "wb_upload.h"

enum { TOKENS = 64 * 128, DIM = 768, HIDDEN = 3072, ROWS = 32 }; /* lesson 03's defaults */

typedef struct {
    double wall, cpu;
} instant;

static instant now(void) {
    struct timespec w, c;
    clock_gettime(CLOCK_MONOTONIC, &w);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
    return (instant){(double)w.tv_sec + (double)w.tv_nsec * 1e-9, (double)c.tv_sec + (double)c.tv_nsec * 1e-9};
}

static void phase(const char *name, instant from, instant to) {
    printf("  %-14s %7.1f ms wall %7.1f ms CPU\n", name, (to.wall - from.wall) * 1e3, (to.cpu - from.cpu) * 1e3);
}

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n) { /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
    return h;
}

int main(void) {
    size_t nx = (size_t)TOKENS * DIM, nwgu = (size_t)2 * HIDDEN * DIM, nwd = (size_t)DIM * HIDDEN;
    float *x = malloc(nx * sizeof *x), *wgu = malloc(nwgu * sizeof *wgu), *wd = malloc(nwd * sizeof *wd);
    uint16_t *xb = malloc(nx * sizeof *xb), *wgub = malloc(nwgu * sizeof *wgub), *wdb = malloc(nwd * sizeof *wdb);
    float *x_rows = malloc((size_t)ROWS * DIM * sizeof *x_rows), *h = malloc((size_t)ROWS * HIDDEN * sizeof *h);
    double *g = malloc((size_t)ROWS * HIDDEN * sizeof *g), *u = malloc((size_t)ROWS * HIDDEN * sizeof *u);
    double *y = malloc((size_t)ROWS * DIM * sizeof *y);
    if (!x || !wgu || !wd || !xb || !wgub || !wdb || !x_rows || !h || !g || !u || !y) {
        fprintf(stderr, "bench_host_work: out of host memory\n");
        return 1;
    }
    instant t0 = now();
    wb_rng rng;
    wb_rng_seed(&rng, 1);
    float bound_in = sqrtf(3.0f / DIM), bound_hidden = sqrtf(3.0f / HIDDEN);
    wb_fill_normal(x, nx, &rng, 1.0f);
    wb_fill_uniform(wgu, nwgu, &rng, -bound_in, bound_in);
    wb_fill_uniform(wd, nwd, &rng, -bound_hidden, bound_hidden);
    instant t1 = now();
    wb_bf16_encode(xb, x, nx);
    wb_bf16_encode(wgub, wgu, nwgu);
    wb_bf16_encode(wdb, wd, nwd);
    instant t2 = now();
    wb_gather_sampled_rows(x_rows, x, TOKENS, DIM, ROWS);
    wb_cpu_matmul_nt(g, x_rows, wgu, ROWS, HIDDEN, DIM);
    wb_cpu_matmul_nt(u, x_rows, wgu + (size_t)HIDDEN * DIM, ROWS, HIDDEN, DIM);
    for (size_t i = 0; i < (size_t)ROWS * HIDDEN; i++) h[i] = (float)(wb_gelu_tanh(g[i]) * u[i]);
    wb_cpu_matmul_nt(y, h, wd, ROWS, DIM, HIDDEN);
    instant t3 = now();

    uint64_t hash = 1469598103934665603ull;
    hash = hash_bytes(hash, x, nx * sizeof *x);
    hash = hash_bytes(hash, wgu, nwgu * sizeof *wgu);
    hash = hash_bytes(hash, wd, nwd * sizeof *wd);
    hash = hash_bytes(hash, xb, nx * sizeof *xb);
    hash = hash_bytes(hash, wgub, nwgu * sizeof *wgub);
    hash = hash_bytes(hash, wdb, nwd * sizeof *wdb);
    hash = hash_bytes(hash, y, (size_t)ROWS * DIM * sizeof *y);
    printf("lesson 03's host work, tokens %d, dim %d, hidden %d, %d threads\n", TOKENS, DIM, HIDDEN,
           wb_host_threads());
    phase("random inputs", t0, t1);
    phase("bf16 encoding", t1, t2);
    phase("reference", t2, t3);
    phase("total", t0, t3);
    printf("  bytes made: hash %016llx\n", (unsigned long long)hash);
    free(x);
    free(wgu);
    free(wd);
    free(xb);
    free(wgub);
    free(wdb);
    free(x_rows);
    free(h);
    free(g);
    free(u);
    free(y);
    return 0;
}
