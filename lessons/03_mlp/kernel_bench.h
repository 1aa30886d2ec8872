/*
 * kernel_bench.h: lesson_03_mlp --kernel-bench, as main.cu calls it. kernel_bench.cu says what it
 * measures and how.
 */
#ifndef LESSON_03_KERNEL_BENCH_H
#define LESSON_03_KERNEL_BENCH_H

#include <stdint.h>
#include <stdio.h>

/* How L2 is flushed before each timed launch (--flush). */
typedef enum { FLUSH_NONE, FLUSH_WRITE, FLUSH_READ } flush_mode;

/* --flush NAME: none, write or read. 0 on success, -1 for an unknown name. */
int kernel_bench_parse_flush(const char *name, flush_mode *out);

/* --impl LIST: implementation names or "all", comma-separated, into ids[0..*n) (at most cap).
 * Id 0 is row, gelu_mul_kernel itself. 0 on success, -1 for an unknown name or too many. */
int kernel_bench_parse_impls(const char *list, int *ids, int cap, int *n);

/* The usage lines of the --kernel-bench options, from "--kernel-bench" on. */
void kernel_bench_usage(FILE *out);

/* Checks, then times gelu(g) * u on (rows, cols) by each implementation in impl_ids, in each
 * layout, beside the eager pair and two controls; prints a line and a RESULT line per timing.
 * WB_OK when every result matched the CPU reference. */
int kernel_bench(int rows, int cols, int iters, flush_mode flush_how, const int *impl_ids, int n_impls,
                 uint64_t seed);

#endif
