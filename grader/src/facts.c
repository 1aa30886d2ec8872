/* facts.c: see facts.h for the attribution rules. */
#define _GNU_SOURCE
#include "facts.h"
#include "gemm_families.h"
#include "overlap.h"

#include <stdlib.h>
#include <string.h>

int wb_in_profiled_window(const wb_capture *c, uint64_t start, uint64_t end) {
    if (c->n_windows == 0) return 1;
    for (size_t i = 0; i < c->n_windows; i++)
        if (start >= c->windows[i].start && end <= c->windows[i].end) return 1;
    return 0;
}

static int push(long **v, size_t *n, long x) {
    long *p = realloc(*v, (*n + 1) * sizeof *p);
    if (!p) return -1;
    p[(*n)++] = x;
    *v = p;
    return 0;
}

static int range_start_cmp(const void *a, const void *b, void *ctx) {
    const wb_capture *c = ctx;
    uint64_t x = c->ranges[((const wb_occurrence *)a)->range].start, y = c->ranges[((const wb_occurrence *)b)->range].start;
    return (x > y) - (x < y);
}

static int fill(const wb_capture *c, wb_occurrence *o) {
    const wb_range *r = &c->ranges[o->range];
    /* API calls of the range's thread that start inside it */
    char *in_range = calloc(c->n_api + 1, 1);
    if (!in_range) return -1;
    for (size_t i = 0; i < c->n_api; i++) {
        const wb_api_call *a = &c->api[i];
        if (a->thread != r->thread || a->start < r->start || a->start > r->end) continue;
        in_range[i] = 1;
        if (!a->nested && push(&o->api, &o->n_api, (long)i)) goto oom;
    }
    for (size_t i = 0; i < c->n_kernels; i++)
        if (c->kernels[i].api >= 0 && in_range[c->kernels[i].api] && push(&o->kernels, &o->n_kernels, (long)i)) goto oom;
    for (size_t i = 0; i < c->n_ops; i++)
        if (c->ops[i].api >= 0 && in_range[c->ops[i].api] && push(&o->ops, &o->n_ops, (long)i)) goto oom;
    free(in_range);
    return 0;
oom:
    free(in_range);
    return -1;
}

int wb_find_occurrences(const wb_capture *c, const char *range_name, wb_occurrences *out) {
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < c->n_ranges; i++) {
        const wb_range *r = &c->ranges[i];
        if (r->is_mark || r->end == WB_OPEN_END || strcmp(r->name, range_name) != 0) continue;
        if (!wb_in_profiled_window(c, r->start, r->end)) continue;
        wb_occurrence *p = realloc(out->items, (out->n + 1) * sizeof *p);
        if (!p) goto oom;
        out->items = p;
        memset(&p[out->n], 0, sizeof *p);
        p[out->n].range = (long)i;
        out->n++;
        if (fill(c, &p[out->n - 1])) goto oom;
    }
    if (out->n > 1) qsort_r(out->items, out->n, sizeof *out->items, range_start_cmp, (void *)c);
    return 0;
oom:
    wb_occurrences_free(out);
    return -1;
}

void wb_occurrences_free(wb_occurrences *o) {
    for (size_t i = 0; i < o->n; i++) {
        free(o->items[i].api);
        free(o->items[i].kernels);
        free(o->items[i].ops);
    }
    free(o->items);
    memset(o, 0, sizeof *o);
}

long wb_count_fact(const wb_capture *c, const wb_occurrence *o, const wb_fact *f) {
    long n = 0;
    switch (f->kind) {
    case WB_FACT_KERNELS: return (long)o->n_kernels;
    case WB_FACT_GEMMS:
        for (size_t i = 0; i < o->n_kernels; i++) n += wb_is_gemm(c->kernels[o->kernels[i]].name, NULL);
        return n;
    case WB_FACT_KERNELS_NAMED:
        for (size_t i = 0; i < o->n_kernels; i++) n += wb_fact_name_matches(f, c->kernels[o->kernels[i]].name);
        return n;
    case WB_FACT_API_CALLS:
        for (size_t i = 0; i < o->n_api; i++) n += strcmp(c->api[o->api[i]].name, f->key) == 0;
        return n;
    case WB_FACT_MEMSETS:
        for (size_t i = 0; i < o->n_ops; i++) n += c->ops[o->ops[i]].kind == WB_GPU_MEMSET;
        return n;
    case WB_FACT_MEMCPYS:
        for (size_t i = 0; i < o->n_ops; i++) n += c->ops[o->ops[i]].kind == WB_GPU_MEMCPY;
        return n;
    case WB_FACT_MEMCPYS_NAMED:
        for (size_t i = 0; i < o->n_ops; i++) n += wb_memcpy_matches(&c->ops[o->ops[i]], f->key);
        return n;
    case WB_FACT_STREAMS: return wb_occurrence_streams(c, o);
    case WB_FACT_OVERLAP_US: {
        int64_t ns = wb_occurrence_overlap_ns(c, o);
        return ns < 0 ? -1 : (long)((ns + 500) / 1000); /* whole microseconds, rounded */
    }
    case WB_FACT_GPU_US:
    case WB_FACT_WALL_US:
    case WB_FACT_BOUND: return 0; /* not counts: time_facts.h */
    }
    return 0;
}
