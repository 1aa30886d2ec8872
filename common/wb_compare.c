/* wb_compare.c: see wb_compare.h. */
#include "wb_compare.h"

#include <math.h>
#include <stdio.h>

#include "wb_parallel.h"

double wb_relative_error(const float *out, const double *ref, size_t n) {
    double diff = 0.0, norm = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(out[i])) return INFINITY;
        double d = (double)out[i] - ref[i];
        diff += d * d;
        norm += ref[i] * ref[i];
    }
    return norm > 0.0 ? sqrt(diff / norm) : sqrt(diff);
}

int wb_check_close(const char *name, const float *out, const double *ref, size_t n, double tolerance) {
    double err = wb_relative_error(out, ref, n);
    int ok = err <= tolerance;
    printf("check %-24s rel err %.3e (tolerance %.1e) %s\n", name, err, tolerance, ok ? "PASS" : "FAIL");
    return ok ? 0 : -1;
}

/* ---- CPU references, on every core --------------------------------------------------------- */

/* Lesson 03's reference is 230 million multiply-adds in double, each sum a chain of dependent
 * additions (0.2 s on one core). Every output is one sum, added in the same order whichever
 * thread computes it (wb_parallel.h): the same bits on any number of cores. */
typedef struct {
    double *ref;
    const float *a, *b; /* b: (K, N) for wb_cpu_matmul, W (N, K) for wb_cpu_matmul_nt */
    int n, k;
} matmul_job;

static void matmul_rows(void *arg, size_t from, size_t to) { /* indices: rows of ref */
    const matmul_job *j = (const matmul_job *)arg;
    int n = j->n, k = j->k;
    for (size_t i = from; i < to; i++) {
        double *row = j->ref + i * n;
        for (int c = 0; c < n; c++) row[c] = 0.0;
        for (int p = 0; p < k; p++) {
            double av = j->a[i * k + p];
            const float *brow = j->b + (size_t)p * n;
            for (int c = 0; c < n; c++) row[c] += av * brow[c];
        }
    }
}

void wb_cpu_matmul(double *ref, const float *a, const float *b, int m, int n, int k) {
    matmul_job j = {ref, a, b, n, k};
    wb_parallel_for((size_t)m, (size_t)n * k, matmul_rows, &j);
}

static void matmul_nt_outputs(void *arg, size_t from, size_t to) { /* indices: elements of ref */
    const matmul_job *j = (const matmul_job *)arg;
    int n = j->n, k = j->k;
    for (size_t e = from; e < to; e++) {
        const float *arow = j->a + (e / n) * k, *wrow = j->b + (e % n) * k;
        double sum = 0.0;
        for (int p = 0; p < k; p++) sum += (double)arow[p] * wrow[p];
        j->ref[e] = sum;
    }
}

void wb_cpu_matmul_nt(double *ref, const float *a, const float *w, int m, int n, int k) {
    matmul_job j = {ref, a, w, n, k};
    wb_parallel_for((size_t)m * n, (size_t)k, matmul_nt_outputs, &j);
}
