/*
 * wb_compare.h: compare a result with a higher-precision reference.
 *
 * The measure is ||out - ref|| / ||ref|| (2-norms): fp32 arithmetic lands far under 1e-3, bf16
 * operands between 1e-3 and 1e-2. NaN or Inf anywhere in out never passes.
 */
#ifndef WB_COMPARE_H
#define WB_COMPARE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Returns the relative error, or INFINITY when out holds a NaN or Inf. */
double wb_relative_error(const float *out, const double *ref, size_t n);

/* Prints "name: rel err E (tolerance T) PASS|FAIL" and returns 0 on pass, -1 on fail. */
int wb_check_close(const char *name, const float *out, const double *ref, size_t n, double tolerance);

/* ref (M, N) = A (M, K) @ B (K, N), row-major, accumulated in double. */
void wb_cpu_matmul(double *ref, const float *a, const float *b, int m, int n, int k);

/* ref (M, N) = A (M, K) @ W^T with W stored (N, K) like nn.Linear's weight: the same sums, in the
 * same order, as wb_cpu_matmul on W transposed (bit for bit), without making that transpose. */
void wb_cpu_matmul_nt(double *ref, const float *a, const float *w, int m, int n, int k);

#ifdef __cplusplus
}
#endif

#endif
