/* tolerance.c: see tolerance.h. */
#include "tolerance.h"

#include <stdlib.h>
#include <string.h>

int wb_within_tolerance(long predicted, long actual, double tolerance) {
    if (predicted < 0 || actual < 0) return 0;
    double diff = (double)(actual > predicted ? actual - predicted : predicted - actual);
    return diff <= tolerance * (double)actual;
}

static int long_cmp(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

long wb_median_long(const long *values, size_t n) {
    if (n == 0) return -1;
    long *v = malloc(n * sizeof *v);
    if (!v) return -1;
    memcpy(v, values, n * sizeof *v);
    qsort(v, n, sizeof *v, long_cmp);
    long m = v[(n - 1) / 2];
    free(v);
    return m;
}
