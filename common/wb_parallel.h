/*
 * wb_parallel.h: a host loop over [0, n) spread over the machine's cores, with results that do
 * not depend on how many there are.
 *
 * Why: a lesson's own host work (its random inputs, their bf16 encoding, the CPU reference its
 * check compares with) took 0.7 s of one core at lesson 03's shape, on every run, while the CUDA
 * context and cuBLAS are ready in 0.25 s; a grader check runs four such programs. Spread over the
 * GPU machine's 16 cores, that work fits inside the CUDA start-up.
 * What it costs: a thread start per slice (tens of microseconds), so a loop with less work than
 * WB_PARALLEL_MIN_OPS per slice runs on the caller alone; and one rule for fn: whatever it
 * writes for index i is computed from i alone (no sum carried from one index to the next), so
 * any cut of [0, n) into slices writes the same bytes. tests/lessons/test_host_threads.c checks
 * each user of it with 1 thread and with several.
 *
 *     static void square(void *ctx, size_t from, size_t to) {
 *         float *x = ctx;
 *         for (size_t i = from; i < to; i++) x[i] *= x[i];
 *     }
 *     wb_parallel_for(n, 1, square, x);   // 1: about one operation per index
 */
#ifndef WB_PARALLEL_H
#define WB_PARALLEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* About a tenth of a millisecond of simple operations: the least work worth a thread. */
#define WB_PARALLEL_MIN_OPS ((size_t)1 << 18)

/* The threads a loop may use: WB_HOST_THREADS when set (1 to 256: what the tests compare), else
 * the cores this process may run on. */
int wb_host_threads(void);

/* fn(ctx, from, to) on contiguous slices that cover [0, n) once, at most wb_host_threads() of
 * them and none with less than WB_PARALLEL_MIN_OPS of work (ops_per_index: the work of one
 * index, in simple operations); the caller runs the first slice and returns when all are done.
 * A slice whose thread cannot be started runs on the caller too. */
void wb_parallel_for(size_t n, size_t ops_per_index, void (*fn)(void *ctx, size_t from, size_t to), void *ctx);

#ifdef __cplusplus
}
#endif

#endif
