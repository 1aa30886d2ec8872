/* summary.c: see summary.h. Grouping is by sorting, so the tables cost O(n log n) in the
 * capture's records however many kernel and range names it holds. */
#define _GNU_SOURCE
#include "summary.h"
#include "wb_capture.h"
#include "wb_base.h"

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
        if (wb_in_profiled_window(c, k->rank, launched, launched)) idx[n++] = (long)i;
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
        group[by_name[k]] = k > 0 && !wb_range_name_cmp(c->ranges[by_name[k]].name, c->ranges[by_name[k - 1]].name) ? group[by_name[k - 1]] : k;
    for (size_t i = 0; i < c->n_ranges; i++) {
        const wb_range *r = &c->ranges[i];
        if (r->is_mark || r->end == WB_OPEN_END || !wb_in_profiled_window(c, r->rank, r->start, r->end)) continue;
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
            row->wall_ns += (double)(o->end - o->start);
            for (size_t q = 0; q < o->n_kernels; q++)
                row->gpu_ns += (double)(c->kernels[o->kernels[q]].end - c->kernels[o->kernels[q]].start);
            /* copies and memsets are GPU time too (the copy engines'), as in the time facts */
            for (size_t q = 0; q < o->n_ops; q++) {
                row->gpu_ns += (double)(c->ops[o->ops[q]].end - c->ops[o->ops[q]].start);
                if (c->ops[o->ops[q]].kind == WB_GPU_MEMSET) row->memsets += 1;
                else row->memcpys += 1;
            }
        }
        if (occ.n) {
            row->kernels /= (double)occ.n;
            row->memsets /= (double)occ.n;
            row->memcpys /= (double)occ.n;
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

static int api_row_cmp(const void *a, const void *b) {
    const wb_api_row *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* API calls made inside the window, by name (top level only, as the api_calls facts count). */
static int api_rows(const wb_capture *c, wb_summary *s) {
    s->api = calloc(c->n_api + 1, sizeof *s->api);
    if (!s->api) return -1;
    for (size_t i = 0; i < c->n_api; i++) {
        const wb_api_call *a = &c->api[i];
        if (a->nested || !wb_in_profiled_window(c, a->rank, a->start, a->start)) continue;
        wb_api_row *row = NULL;
        for (size_t r = 0; r < s->n_api && !row; r++)
            if (!strcmp(s->api[r].name, a->name)) row = &s->api[r];
        if (!row) row = &s->api[s->n_api++], row->name = a->name;
        row->count++;
        row->total_ns += a->end - a->start;
    }
    qsort(s->api, s->n_api, sizeof *s->api, api_row_cmp);
    return 0;
}

/* Memsets and memcpys launched inside the window, by kind (and the host side's memory kind). */
static int copy_rows(const wb_capture *c, wb_summary *s) {
    s->copies = calloc(c->n_ops + 1, sizeof *s->copies);
    if (!s->copies) return -1;
    for (size_t i = 0; i < c->n_ops; i++) {
        const wb_gpu_op *o = &c->ops[i];
        uint64_t launched = o->api >= 0 ? c->api[o->api].start : o->start;
        if (!wb_in_profiled_window(c, o->rank, launched, launched)) continue;
        char name[64];
        const char *host = !strcmp(o->copy_kind, "HtoD") ? o->src_kind : !strcmp(o->copy_kind, "DtoH") ? o->dst_kind : "";
        if (o->kind == WB_GPU_MEMSET) snprintf(name, sizeof name, "memset");
        else snprintf(name, sizeof name, "memcpy %s%s%s%s", o->copy_kind, *host ? " (" : "", host, *host ? ")" : "");
        wb_copy_row *row = NULL;
        for (size_t r = 0; r < s->n_copies && !row; r++)
            if (!strcmp(s->copies[r].name, name)) row = &s->copies[r];
        if (!row) row = &s->copies[s->n_copies++], snprintf(row->name, sizeof row->name, "%s", name);
        row->count++;
        row->bytes += o->bytes;
        row->total_ns += o->end - o->start;
    }
    return 0;
}

int wb_summary_build(const wb_capture *c, wb_summary *out) {
    memset(out, 0, sizeof *out);
    if (kernel_rows(c, out) || range_rows(c, out) || api_rows(c, out) || copy_rows(c, out)) {
        wb_summary_free(out);
        return -1;
    }
    return 0;
}

void wb_summary_free(wb_summary *s) {
    free(s->kernels);
    free(s->ranges);
    free(s->api);
    free(s->copies);
    memset(s, 0, sizeof *s);
}

/* A name in a column of `width` columns (at least 12), shortened unless style says not to. */
static const char *cell_name(const char *name, int width, const wb_table_style *st, char *buf, size_t cap) {
    if (st->long_names) return wb_term_clean(name, buf, cap); /* whole, but never control bytes */
    return wb_fit_name(name, (size_t)(width < 12 ? 12 : width), buf, cap);
}

/* A table's title after a blank line, wrapped to the width. */
static void title(FILE *f, const wb_table_style *st, const char *fmt, const char *a, const char *b) {
    char text[1024];
    snprintf(text, sizeof text, fmt, a, b);
    fputc('\n', f);
    wb_wrap(f, text, 0, 2, st->width);
}

static int shown_rows(const wb_table_style *st, size_t n) {
    return st->max_rows > 0 && n > (size_t)st->max_rows ? st->max_rows : (int)n;
}

/* A column: its heading in the learner's language and its width in display columns, the
 * English width or the heading's where that is wider (a Japanese heading's characters take two
 * columns each), so headings and numbers line up in every language. */
typedef struct {
    const char *heading;
    int width;
} column;

static column col(const char *heading, int width) {
    int w = (int)wb_columns(heading);
    return (column){heading, w > width ? w : width};
}

/* " heading", right-aligned in the column's width. */
static void head(FILE *f, column c) { fprintf(f, " %*s%s", c.width - (int)wb_columns(c.heading), "", c.heading); }

static void kernel_table(FILE *f, const char *variant, const wb_capture *c, const wb_summary *s, const wb_table_style *st) {
    int wide = st->width >= 120, shown = shown_rows(st, s->n_kernels);
    char gpu[256];
    title(f, st, _("Kernels of variant '%s' in the profiled window (%s)"), variant, wb_term_clean(c->gpu, gpu, sizeof gpu));
    column pct = col(C_("table column", "time%"), 6), total = col(C_("table column", "total (us)"), 11),
           count = col(C_("table column", "count"), 6), avg = col(C_("table column", "avg (us)"), 10),
           med = col(C_("table column", "med (us)"), 10), min = col(C_("table column", "min (us)"), 10),
           max = col(C_("table column", "max (us)"), 10);
    fputc(' ', f);
    head(f, pct), head(f, total), head(f, count), head(f, avg);
    if (wide) head(f, med), head(f, min), head(f, max);
    fprintf(f, "  %s\n", C_("table column", "name"));
    int used = 2 + pct.width + 1 + total.width + 1 + count.width + 1 + avg.width +
               (wide ? 1 + med.width + 1 + min.width + 1 + max.width : 0) + 2;
    for (int i = 0; i < shown; i++) {
        const wb_kernel_row *r = &s->kernels[i];
        double share = s->kernel_total_ns ? 100.0 * (double)r->total_ns / (double)s->kernel_total_ns : 0.0;
        char buf[512], *whole = st->long_names ? malloc(4 * strlen(r->name) + 1) : NULL; /* a C++ name may run to kilobytes */
        const char *name = cell_name(r->name, st->width - used - (r->gemm ? 8 : 0), st, whole ? whole : buf,
                                     whole ? 4 * strlen(r->name) + 1 : sizeof buf);
        fprintf(f, "  %*.1f %*.2f %*zu %*.2f", pct.width, share, total.width, (double)r->total_ns / 1e3, count.width, r->instances,
                avg.width, r->avg_ns / 1e3);
        if (wide)
            fprintf(f, " %*.2f %*.2f %*.2f", med.width, r->median_ns / 1e3, min.width, (double)r->min_ns / 1e3, max.width,
                    (double)r->max_ns / 1e3);
        fprintf(f, "  %s%s\n", name, r->gemm ? "  [gemm]" : "");
        free(whole);
    }
    if ((size_t)shown < s->n_kernels)
        fprintf(f, _("  ... %zu more kernel names (the trace file has them all)\n"), s->n_kernels - (size_t)shown);
    if (s->n_kernels == 0) fprintf(f, "  %s\n", _("(no kernels)"));
    int cut = 0;
    for (int i = 0; i < shown && !st->long_names; i++)
        cut |= (int)wb_columns(s->kernels[i].name) > st->width - used - (s->kernels[i].gemm ? 8 : 0);
    if (cut) fputs("  ", f), wb_wrap(f, _("(names shortened to fit; --long-names, or a wider COLUMNS, shows them whole)"), 2, 3, st->width);
}

static void range_table(FILE *f, const char *variant, const wb_summary *s, const wb_table_style *st) {
    column count = col(C_("table column", "count"), 5), kernels = col(C_("table column", "kernels"), 7),
           memsets = col(C_("table column", "memsets"), 7), memcpys = col(C_("table column", "memcpys"), 7),
           api = col(C_("table column", "API calls"), 9), wall = col(C_("table column", "wall (us)"), 10),
           gpu = col(C_("table column", "GPU (us)"), 10);
    const char *range = C_("table column", "range");
    /* the range column is as wide as its longest label, and gives way to the numbers */
    int label_w = (int)wb_columns(range) > 5 ? (int)wb_columns(range) : 5;
    for (size_t i = 0; i < s->n_ranges; i++) {
        char clean[256]; /* as shown: control bytes take 4 columns each */
        int w = s->ranges[i].depth * 2 + (int)wb_columns(wb_term_clean(s->ranges[i].name, clean, sizeof clean));
        if (w > label_w) label_w = w;
    }
    int numbers = 1 + count.width + 1 + kernels.width + 1 + memsets.width + 1 + memcpys.width + 1 + api.width + 1 + wall.width + 1 +
                  gpu.width;
    int room = st->width - 2 - numbers;
    if (label_w > room) label_w = room < 12 ? 12 : room;
    title(f, st, _("NVTX ranges of variant '%s', per occurrence in the profiled window"), variant, "");
    fputs("  ", f);
    wb_pad(f, range, label_w);
    head(f, count), head(f, kernels), head(f, memsets), head(f, memcpys), head(f, api), head(f, wall), head(f, gpu);
    fputc('\n', f);
    for (size_t i = 0; i < s->n_ranges; i++) {
        const wb_range_row *r = &s->ranges[i];
        char label[300], fitted[300];
        snprintf(label, sizeof label, "%*s%s", r->depth * 2, "", r->name);
        wb_fit_name(label, (size_t)label_w, fitted, sizeof fitted);
        fprintf(f, "  %-*s %*zu %*.1f %*.1f %*.1f %*.1f %*.2f %*.2f\n", label_w, fitted, count.width, r->occurrences, kernels.width,
                r->kernels, memsets.width, r->memsets, memcpys.width, r->memcpys, api.width, r->api_calls, wall.width,
                r->wall_ns / 1e3, gpu.width, r->gpu_ns / 1e3);
    }
    if (s->n_ranges == 0) fprintf(f, "  %s\n", _("(no NVTX ranges: was NVTX_INJECTION64_PATH set?)"));
}

static void api_table(FILE *f, const char *variant, const wb_summary *s, const wb_table_style *st) {
    int shown = shown_rows(st, s->n_api);
    title(f, st, _("API calls of variant '%s' in the profiled window (top level: calls made inside other calls are not counted, as "
                   "in grading)"), variant, "");
    column count = col(C_("table column", "count"), 7), total = col(C_("table column", "total (us)"), 11),
           avg = col(C_("table column", "avg (us)"), 10);
    fputc(' ', f);
    head(f, count), head(f, total), head(f, avg);
    fprintf(f, "  %s\n", C_("table column", "name"));
    int used = 2 + count.width + 1 + total.width + 1 + avg.width + 2;
    for (int i = 0; i < shown; i++) {
        const wb_api_row *r = &s->api[i];
        char buf[512];
        fprintf(f, "  %*zu %*.2f %*.2f  %s\n", count.width, r->count, total.width, (double)r->total_ns / 1e3, avg.width,
                (double)r->total_ns / 1e3 / (double)r->count, cell_name(r->name, st->width - used, st, buf, sizeof buf));
    }
    if ((size_t)shown < s->n_api) fprintf(f, _("  ... %zu more API names (the trace file has them all)\n"), s->n_api - (size_t)shown);
    if (s->n_api == 0) fprintf(f, "  %s\n", _("(no API calls)"));
}

static void copy_table(FILE *f, const char *variant, const wb_summary *s, const wb_table_style *st) {
    title(f, st, _("Memsets and memcpys of variant '%s' in the profiled window"), variant, "");
    if (s->n_copies == 0) {
        fprintf(f, "  %s\n", _("(none)"));
        return;
    }
    column count = col(C_("table column", "count"), 7), bytes = col(C_("table column", "bytes"), 14),
           total = col(C_("table column", "total (us)"), 11);
    fputc(' ', f);
    head(f, count), head(f, bytes), head(f, total);
    fprintf(f, "  %s\n", C_("table column", "kind"));
    for (size_t i = 0; i < s->n_copies; i++)
        fprintf(f, "  %*zu %*llu %*.2f  %s\n", count.width, s->copies[i].count, bytes.width,
                (unsigned long long)s->copies[i].bytes, total.width, (double)s->copies[i].total_ns / 1e3, s->copies[i].name);
}

void wb_summary_print(FILE *f, const char *variant, const wb_capture *c, const wb_summary *s, const wb_table_style *style) {
    kernel_table(f, variant, c, s, style);
    range_table(f, variant, s, style);
    api_table(f, variant, s, style);
    copy_table(f, variant, s, style);
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
        json_array_append_new(ranges, json_pack("{s:s, s:I, s:f, s:f, s:f, s:f, s:f, s:f}", "name", r->name, "occurrences",
                                                (json_int_t)r->occurrences, "kernels", r->kernels, "memsets", r->memsets,
                                                "memcpys", r->memcpys, "api_calls", r->api_calls, "wall_ns", r->wall_ns,
                                                "gpu_ns", r->gpu_ns));
    }
    json_t *api = json_array(), *copies = json_array();
    for (size_t i = 0; i < s->n_api; i++)
        json_array_append_new(api, json_pack("{s:s, s:I, s:I}", "name", s->api[i].name, "count", (json_int_t)s->api[i].count,
                                             "total_ns", (json_int_t)s->api[i].total_ns));
    for (size_t i = 0; i < s->n_copies; i++)
        json_array_append_new(copies, json_pack("{s:s, s:I, s:I, s:I}", "kind", s->copies[i].name, "count",
                                                (json_int_t)s->copies[i].count, "bytes", (json_int_t)s->copies[i].bytes,
                                                "total_ns", (json_int_t)s->copies[i].total_ns));
    return json_pack("{s:o, s:o, s:o, s:o}", "kernels", kernels, "ranges", ranges, "api_calls", api, "memsets_and_memcpys", copies);
}
