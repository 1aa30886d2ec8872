/* occurrences.c: see occurrences.h for the attribution rules. */
#define _GNU_SOURCE
#include "occurrences.h"

#include <stdlib.h>
#include <string.h>

int wb_in_profiled_window(const wb_capture *c, int rank, uint64_t start, uint64_t end) {
    if (c->n_windows == 0) return 1;
    const size_t *first = c->index.window_first;
    if (!first || !c->index.window_reach || first[c->world_size] != c->n_windows) {
        /* windows added after linking (hand-made captures): the same rule, by scanning */
        int any = 0;
        for (size_t i = 0; i < c->n_windows; i++) {
            if (c->windows[i].rank != rank) continue;
            any = 1;
            if (c->windows[i].start <= start && end <= c->windows[i].end) return 1;
        }
        return !any;
    }
    if (rank < 0 || rank >= c->world_size) return 0;
    size_t from = first[rank], lo = from, hi = first[rank + 1];
    if (lo == hi) return 1; /* this rank marked no window: its whole run is profiled */
    /* a rank's windows are sorted by start: among those opened by start, is the latest end late enough? */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->windows[mid].start <= start) lo = mid + 1;
        else hi = mid;
    }
    return lo > from && end <= c->index.window_reach[lo - 1];
}

/* Appends x; the array doubles whenever its length reaches a power of two. */
static int push(long **v, size_t *n, long x) {
    if ((*n & (*n - 1)) == 0) {
        long *p = realloc(*v, (*n ? *n * 2 : 1) * sizeof *p);
        if (!p) return -1;
        *v = p;
    }
    (*v)[(*n)++] = x;
    return 0;
}

static int long_cmp(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* Through the capture's lookups: the calls starting in the range, then what each launched. The
 * cost is what the occurrence holds (plus a log), not the capture's size. */
static int fill(const wb_capture *c, long range, wb_occurrence *o) {
    const wb_range *r = &c->ranges[range];
    const long *calls;
    size_t n_calls = wb_capture_api_between(c, r->rank, r->thread, r->start, r->end, &calls);
    for (size_t i = 0; i < n_calls; i++) {
        if (!c->api[calls[i]].nested && push(&o->api, &o->n_api, calls[i])) return -1;
        const long *work;
        size_t n_work = wb_capture_launched_by(c, calls[i], &work);
        for (size_t j = 0; j < n_work; j++) {
            long w = work[j];
            int is_kernel = (size_t)w < c->n_kernels;
            if (is_kernel ? push(&o->kernels, &o->n_kernels, w) : push(&o->ops, &o->n_ops, w - (long)c->n_kernels)) return -1;
        }
    }
    return 0;
}

/* in capture order, as every reader of an occurrence expects */
static void sort_occurrence(wb_occurrence *o) {
    if (o->n_api > 1) qsort(o->api, o->n_api, sizeof *o->api, long_cmp);
    if (o->n_kernels > 1) qsort(o->kernels, o->n_kernels, sizeof *o->kernels, long_cmp);
    if (o->n_ops > 1) qsort(o->ops, o->n_ops, sizeof *o->ops, long_cmp);
}

/* Range i joins occurrence k of out (a new one when k == out->n). */
static int join(const wb_capture *c, long i, size_t k, wb_occurrences *out) {
    const wb_range *r = &c->ranges[i];
    if (k == out->n) {
        wb_occurrence *p = realloc(out->items, (out->n + 1) * sizeof *p);
        if (!p) return -1;
        out->items = p;
        p[out->n] = (wb_occurrence){.range = i, .rank = r->rank, .start = r->start, .end = r->end};
        out->n++;
    }
    wb_occurrence *o = &out->items[k];
    if (o->n_ranks++ > 0) {
        if (r->rank < c->ranges[o->range].rank) o->range = i;
        if (r->rank != o->rank) o->rank = WB_ALL_RANKS;
        if (r->start < o->start) o->start = r->start;
        if (r->end > o->end) o->end = r->end;
    }
    return fill(c, i, o);
}

int wb_find_occurrences_on(const wb_capture *c, const char *range_name, int rank, wb_occurrences *out) {
    memset(out, 0, sizeof *out);
    const long *named;
    long *matched = NULL; /* a pattern's ranges, found by a scan: owned here */
    size_t n_named;
    if (wb_range_is_pattern(range_name)) {
        long n = wb_capture_ranges_matching(c, range_name, &matched); /* in time order */
        if (n < 0) return -1;
        named = matched;
        n_named = (size_t)n;
    } else {
        n_named = wb_capture_ranges_named(c, range_name, &named); /* in time order */
    }
    /* how many occurrences each rank has had so far: the next one of rank r joins occurrence seen[r] */
    size_t *seen = calloc((size_t)(c->world_size > 0 ? c->world_size : 1), sizeof *seen);
    if (!seen) {
        free(matched);
        return -1;
    }
    for (size_t k = 0; k < n_named; k++) {
        long i = named[k];
        const wb_range *r = &c->ranges[i];
        if (r->is_mark || r->end == WB_OPEN_END || (rank != WB_ALL_RANKS && r->rank != rank)) continue;
        if (!wb_in_profiled_window(c, r->rank, r->start, r->end)) continue;
        if (join(c, i, seen[r->rank]++, out)) goto oom;
    }
    for (size_t k = 0; k < out->n; k++) sort_occurrence(&out->items[k]);
    free(seen);
    free(matched);
    return 0;
oom:
    free(seen);
    free(matched);
    wb_occurrences_free(out);
    return -1;
}

int wb_find_occurrences(const wb_capture *c, const char *range_name, wb_occurrences *out) {
    return wb_find_occurrences_on(c, range_name, WB_ALL_RANKS, out);
}

int wb_find_occurrence_of(const wb_capture *c, long range, wb_occurrences *out) {
    memset(out, 0, sizeof *out);
    const wb_range *r = &c->ranges[range];
    if (r->is_mark || r->end == WB_OPEN_END || !wb_in_profiled_window(c, r->rank, r->start, r->end)) return 0;
    if (join(c, range, 0, out)) {
        wb_occurrences_free(out);
        return -1;
    }
    sort_occurrence(&out->items[0]);
    return 0;
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
