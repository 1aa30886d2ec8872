/* range_times.c: see range_times.h for what is measured. */
#include "range_times.h"

#include <stdlib.h>
#include <string.h>

double wb_occurrence_gpu_us(const wb_capture *c, const wb_occurrence *o) {
    uint64_t ns = 0;
    for (size_t i = 0; i < o->n_kernels; i++) {
        const wb_kernel *k = &c->kernels[o->kernels[i]];
        if (k->end > k->start) ns += k->end - k->start;
    }
    for (size_t i = 0; i < o->n_ops; i++) {
        const wb_gpu_op *op = &c->ops[o->ops[i]];
        if (op->end > op->start) ns += op->end - op->start;
    }
    return (double)ns / 1000.0;
}

double wb_occurrence_wall_us(const wb_capture *c, const wb_occurrence *o) {
    (void)c;
    return o->end > o->start ? (double)(o->end - o->start) / 1000.0 : 0.0;
}

int wb_range_times_of(const wb_capture *c, const char *variant, const char *range, int rank, wb_range_times *out) {
    memset(out, 0, sizeof *out);
    out->per_rank = rank != WB_ALL_RANKS;
    out->rank = out->per_rank ? rank : 0;
    wb_occurrences occ;
    if (wb_find_occurrences_on(c, range, rank, &occ)) return -1;
    out->variant = strdup(variant);
    out->range = strdup(range);
    out->gpu_us = calloc(occ.n + 1, sizeof *out->gpu_us);
    out->wall_us = calloc(occ.n + 1, sizeof *out->wall_us);
    int ok = out->variant && out->range && out->gpu_us && out->wall_us;
    for (size_t k = 0; ok && k < occ.n; k++) {
        out->gpu_us[k] = wb_occurrence_gpu_us(c, &occ.items[k]);
        out->wall_us[k] = wb_occurrence_wall_us(c, &occ.items[k]);
    }
    out->n = occ.n;
    wb_occurrences_free(&occ);
    return ok ? 0 : -1;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double wb_median(const double *v, size_t n) {
    if (n == 0) return 0;
    double *s = malloc(n * sizeof *s);
    if (!s) return v[0];
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return m;
}
