/* summary.c: see summary.h. Grouping is by sorting, so the tables cost O(n log n) in the
 * capture's records however many kernel and range names it holds. */
#define _GNU_SOURCE
#include "summary.h"
#include "facts.h"
#include "gemm_families.h"

#include <stdlib.h>
#include <string.h>

static int row_cmp(const void *a, const void *b) {
    const wb_kernel_row *x = a, *y = b;
    if (x->total_ns != y->total_ns) return x->total_ns < y->total_ns ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Kernels by (name, duration): each name's kernels end up together, their durations sorted. */
static int kernel_name_cmp(const void *a, const void *b, void *ctx) {
    const wb_capture *c = ctx;
    const wb_kernel *x = &c->kernels[*(const long *)a], *y = &c->kernels[*(const long *)b];
    int by_name = strcmp(x->name, y->name);
    if (by_name) return by_name;
    uint64_t dx = x->end - x->start, dy = y->end - y->start;
    return (dx > dy) - (dx < dy);
}

static int kernel_rows(const wb_capture *c, wb_summary *s) {
    /* kernels launched in the window, grouped by name through one sort */
    size_t n = 0;
    long *idx = malloc((c->n_kernels + 1) * sizeof *idx);
    s->kernels = calloc(c->n_kernels + 1, sizeof *s->kernels);
    if (!idx || !s->kernels) {
        free(idx);
        return -1;
    }
    for (size_t i = 0; i < c->n_kernels; i++) {
        const wb_kernel *k = &c->kernels[i];
        long a = k->api;
        uint64_t launched = a >= 0 ? c->api[a].start : k->start;
        if (wb_in_profiled_window(c, launched, launched)) idx[n++] = (long)i;
    }
    qsort_r(idx, n, sizeof *idx, kernel_name_cmp, (void *)c);
    for (size_t first = 0, last; first < n; first = last) {
        const char *name = c->kernels[idx[first]].name;
        for (last = first; last < n && !strcmp(c->kernels[idx[last]].name, name); last++) {}
        wb_kernel_row *row = &s->kernels[s->n_kernels++];
        row->name = name;
        row->gemm = wb_is_gemm(name, NULL);
        row->instances = last - first;
#define DURATION(j) (c->kernels[idx[j]].end - c->kernels[idx[j]].start)
        row->min_ns = DURATION(first);
        row->max_ns = DURATION(last - 1);
        for (size_t j = first; j < last; j++) row->total_ns += DURATION(j);
        size_t m = row->instances, mid = first + m / 2;
        row->median_ns = m % 2 ? (double)DURATION(mid) : 0.5 * ((double)DURATION(mid - 1) + (double)DURATION(mid));
#undef DURATION
        row->avg_ns = (double)row->total_ns / (double)row->instances;
        s->kernel_total_ns += row->total_ns;
    }
    qsort(s->kernels, s->n_kernels, sizeof *s->kernels, row_cmp);
    free(idx);
    return 0;
}

static int range_rows(const wb_capture *c, wb_summary *s) {
    /* one row per range name, in the order names first appear (the nesting reads top down) */
    s->ranges = calloc(c->n_ranges + 1, sizeof *s->ranges);
    char *seen = calloc(c->n_ranges + 1, 1); /* by position of the name's first entry in the name index */
    size_t *group = malloc((c->n_ranges + 1) * sizeof *group);
    const long *by_name = c->index.ranges_by_name;
    if (!s->ranges || !seen || !group || (c->n_ranges && !by_name)) goto oom;
    for (size_t k = 0; k < c->n_ranges; k++)
        group[by_name[k]] = k > 0 && !strcmp(c->ranges[by_name[k]].name, c->ranges[by_name[k - 1]].name) ? group[by_name[k - 1]] : k;
    for (size_t i = 0; i < c->n_ranges; i++) {
        const wb_range *r = &c->ranges[i];
        if (r->is_mark || r->end == WB_OPEN_END || !wb_in_profiled_window(c, r->start, r->end)) continue;
        if (seen[group[i]]) continue;
        seen[group[i]] = 1;
        wb_occurrences occ;
        if (wb_find_occurrences(c, r->name, &occ)) goto oom;
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
    free(seen);
    free(group);
    return 0;
oom:
    free(seen);
    free(group);
    return -1;
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
