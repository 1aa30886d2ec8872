/* summary.c: see summary.h. */
#include "summary.h"
#include "facts.h"
#include "gemm_families.h"

#include <stdlib.h>
#include <string.h>

static int u64_cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int row_cmp(const void *a, const void *b) {
    const wb_kernel_row *x = a, *y = b;
    if (x->total_ns != y->total_ns) return x->total_ns < y->total_ns ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int kernel_rows(const wb_capture *c, wb_summary *s) {
    /* kernels in the window, grouped by name: sort indices by name, then walk the groups */
    size_t n = 0;
    long *idx = malloc((c->n_kernels + 1) * sizeof *idx);
    uint64_t *durations = malloc((c->n_kernels + 1) * sizeof *durations);
    s->kernels = calloc(c->n_kernels + 1, sizeof *s->kernels);
    if (!idx || !durations || !s->kernels) goto oom;
    for (size_t i = 0; i < c->n_kernels; i++) {
        const wb_kernel *k = &c->kernels[i];
        long a = k->api;
        uint64_t launched = a >= 0 ? c->api[a].start : k->start;
        if (wb_in_profiled_window(c, launched, launched)) idx[n++] = (long)i;
    }
    for (size_t i = 0; i < n; i++) {
        const char *name = c->kernels[idx[i]].name;
        wb_kernel_row *row = NULL;
        for (size_t r = 0; r < s->n_kernels && !row; r++)
            if (!strcmp(s->kernels[r].name, name)) row = &s->kernels[r];
        if (!row) {
            row = &s->kernels[s->n_kernels++];
            row->name = name;
            row->min_ns = UINT64_MAX;
            row->gemm = wb_is_gemm(name, NULL);
        }
        uint64_t d = c->kernels[idx[i]].end - c->kernels[idx[i]].start;
        row->instances++;
        row->total_ns += d;
        if (d < row->min_ns) row->min_ns = d;
        if (d > row->max_ns) row->max_ns = d;
        s->kernel_total_ns += d;
    }
    for (size_t r = 0; r < s->n_kernels; r++) {
        wb_kernel_row *row = &s->kernels[r];
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (!strcmp(c->kernels[idx[i]].name, row->name)) durations[m++] = c->kernels[idx[i]].end - c->kernels[idx[i]].start;
        qsort(durations, m, sizeof *durations, u64_cmp);
        row->median_ns = m % 2 ? (double)durations[m / 2] : 0.5 * ((double)durations[m / 2 - 1] + (double)durations[m / 2]);
        row->avg_ns = (double)row->total_ns / (double)row->instances;
    }
    qsort(s->kernels, s->n_kernels, sizeof *s->kernels, row_cmp);
    free(idx);
    free(durations);
    return 0;
oom:
    free(idx);
    free(durations);
    return -1;
}

static int range_rows(const wb_capture *c, wb_summary *s) {
    s->ranges = calloc(c->n_ranges + 1, sizeof *s->ranges);
    if (!s->ranges) return -1;
    for (size_t i = 0; i < c->n_ranges; i++) {
        const wb_range *r = &c->ranges[i];
        if (r->is_mark || r->end == WB_OPEN_END || !wb_in_profiled_window(c, r->start, r->end)) continue;
        int seen = 0;
        for (size_t j = 0; j < s->n_ranges && !seen; j++) seen = !strcmp(s->ranges[j].name, r->name);
        if (seen) continue;
        wb_occurrences occ;
        if (wb_find_occurrences(c, r->name, &occ)) return -1;
        wb_range_row *row = &s->ranges[s->n_ranges++];
        row->name = r->name;
        row->occurrences = occ.n;
        row->depth = r->depth;
        for (size_t k = 0; k < occ.n; k++) {
            const wb_occurrence *o = &occ.items[k];
            row->kernels += (double)o->n_kernels;
            row->api_calls += (double)o->n_api;
            row->wall_ns += (double)(c->ranges[o->range].end - c->ranges[o->range].start);
            for (size_t q = 0; q < o->n_kernels; q++)
                row->gpu_ns += (double)(c->kernels[o->kernels[q]].end - c->kernels[o->kernels[q]].start);
            /* copies and memsets are GPU time too (the copy engines'), as in the time facts */
            for (size_t q = 0; q < o->n_ops; q++) row->gpu_ns += (double)(c->ops[o->ops[q]].end - c->ops[o->ops[q]].start);
        }
        if (occ.n) {
            row->kernels /= (double)occ.n;
            row->api_calls /= (double)occ.n;
            row->wall_ns /= (double)occ.n;
            row->gpu_ns /= (double)occ.n;
        }
        wb_occurrences_free(&occ);
    }
    return 0;
}

int wb_summary_build(const wb_capture *c, wb_summary *out) {
    memset(out, 0, sizeof *out);
    if (kernel_rows(c, out) || range_rows(c, out)) {
        wb_summary_free(out);
        return -1;
    }
    return 0;
}

void wb_summary_free(wb_summary *s) {
    free(s->kernels);
    free(s->ranges);
    memset(s, 0, sizeof *s);
}

void wb_summary_print(FILE *f, const char *variant, const wb_capture *c, const wb_summary *s, int max_rows) {
    fprintf(f, "\nKernels of variant '%s' in the profiled window (%s)\n", variant, c->gpu);
    fprintf(f, "  %6s %12s %6s %11s %11s %11s %11s  %s\n", "time%", "total (us)", "count", "avg (us)", "med (us)", "min (us)",
            "max (us)", "name");
    for (size_t i = 0; i < s->n_kernels && (max_rows <= 0 || (int)i < max_rows); i++) {
        const wb_kernel_row *r = &s->kernels[i];
        double pct = s->kernel_total_ns ? 100.0 * (double)r->total_ns / (double)s->kernel_total_ns : 0.0;
        fprintf(f, "  %6.1f %12.2f %6zu %11.2f %11.2f %11.2f %11.2f  %.110s%s\n", pct, (double)r->total_ns / 1e3, r->instances,
                r->avg_ns / 1e3, r->median_ns / 1e3, (double)r->min_ns / 1e3, (double)r->max_ns / 1e3, r->name,
                r->gemm ? "  [gemm]" : "");
    }
    if (max_rows > 0 && s->n_kernels > (size_t)max_rows)
        fprintf(f, "  ... %zu more kernel names (the trace file has them all)\n", s->n_kernels - (size_t)max_rows);
    if (s->n_kernels == 0) fprintf(f, "  (no kernels)\n");

    fprintf(f, "\nNVTX ranges of variant '%s', per occurrence in the profiled window\n", variant);
    fprintf(f, "  %-32s %6s %9s %10s %12s %12s\n", "range", "count", "kernels", "API calls", "wall (us)", "GPU (us)");
    for (size_t i = 0; i < s->n_ranges; i++) {
        const wb_range_row *r = &s->ranges[i];
        char label[64];
        snprintf(label, sizeof label, "%*s%s", r->depth * 2, "", r->name);
        fprintf(f, "  %-32.32s %6zu %9.1f %10.1f %12.2f %12.2f\n", label, r->occurrences, r->kernels, r->api_calls,
                r->wall_ns / 1e3, r->gpu_ns / 1e3);
    }
    if (s->n_ranges == 0) fprintf(f, "  (no NVTX ranges: was NVTX_INJECTION64_PATH set?)\n");
}

json_t *wb_summary_json(const wb_summary *s) {
    json_t *kernels = json_array(), *ranges = json_array();
    for (size_t i = 0; i < s->n_kernels; i++) {
        const wb_kernel_row *r = &s->kernels[i];
        json_array_append_new(kernels, json_pack("{s:s, s:I, s:I, s:f, s:f, s:I, s:I, s:b}", "name", r->name, "instances",
                                                 (json_int_t)r->instances, "total_ns", (json_int_t)r->total_ns, "avg_ns",
                                                 r->avg_ns, "median_ns", r->median_ns, "min_ns", (json_int_t)r->min_ns,
                                                 "max_ns", (json_int_t)r->max_ns, "gemm", r->gemm));
    }
    for (size_t i = 0; i < s->n_ranges; i++) {
        const wb_range_row *r = &s->ranges[i];
        json_array_append_new(ranges, json_pack("{s:s, s:I, s:f, s:f, s:f, s:f}", "name", r->name, "occurrences",
                                                (json_int_t)r->occurrences, "kernels", r->kernels, "api_calls", r->api_calls,
                                                "wall_ns", r->wall_ns, "gpu_ns", r->gpu_ns));
    }
    return json_pack("{s:o, s:o}", "kernels", kernels, "ranges", ranges);
}
