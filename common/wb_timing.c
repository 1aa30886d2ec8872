/* wb_timing.c: see wb_timing.h. */
#define _POSIX_C_SOURCE 200809L
#include "wb_timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double wb_now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double wb_median(const double *values, int n) {
    if (n <= 0) return 0.0;
    double *v = malloc((size_t)n * sizeof *v);
    if (!v) return values[0];
    memcpy(v, values, (size_t)n * sizeof *v);
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double m = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    free(v);
    return m;
}

void wb_print_timing_header(void) {
    printf("%-28s %12s %12s %12s %8s\n", "timing (us)", "median", "min", "max", "steps");
}

void wb_print_timing_row(const char *label, const double *us, int n) {
    double lo = us[0], hi = us[0];
    for (int i = 1; i < n; i++) {
        if (us[i] < lo) lo = us[i];
        if (us[i] > hi) hi = us[i];
    }
    printf("%-28s %12.2f %12.2f %12.2f %8d\n", label, wb_median(us, n), lo, hi, n);
}
