/* wb_compare.c: see wb_compare.h. */
#include "wb_compare.h"

#include <math.h>
#include <stdio.h>

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

void wb_cpu_matmul(double *ref, const float *a, const float *b, int m, int n, int k) {
    for (int i = 0; i < m; i++) {
        double *row = ref + (size_t)i * n;
        for (int j = 0; j < n; j++) row[j] = 0.0;
        for (int p = 0; p < k; p++) {
            double av = a[(size_t)i * k + p];
            const float *brow = b + (size_t)p * n;
            for (int j = 0; j < n; j++) row[j] += av * brow[j];
        }
    }
}

void wb_cpu_matmul_nt(double *ref, const float *a, const float *w, int m, int n, int k) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            const float *arow = a + (size_t)i * k, *wrow = w + (size_t)j * k;
            double sum = 0.0;
            for (int p = 0; p < k; p++) sum += (double)arow[p] * wrow[p];
            ref[(size_t)i * n + j] = sum;
        }
}
