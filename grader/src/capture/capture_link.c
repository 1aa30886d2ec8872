/*
 * capture_link.c: the links derived after loading (nesting of API calls, the launching call of
 * each kernel, memcpy and memset, the parent of each range) and the sorted lookups that keep
 * attribution from scanning (capture.h). Everything here is sorting and binary search: linking a
 * capture of n records costs O(n log n), and one lookup O(log n + what it returns).
 *
 * A capture merged from several processes (ranks) keys every link on the rank first: thread ids,
 * correlation ids and profiler windows belong to one process, and two ranks may reuse the same
 * numbers.
 */
#define _GNU_SOURCE
#include "capture.h"

#include <stdlib.h>
#include <string.h>

/* ---- sorting helpers ------------------------------------------------------------------------ */

typedef struct { uint64_t key; long index; } corr_entry; /* rank << 32 | correlation id */

static int corr_cmp(const void *a, const void *b) {
    const corr_entry *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* Sorting by (rank, thread, start, longest first) makes containment a stack walk. */
typedef struct { int rank; uint32_t thread; uint64_t start, end; long index; } span;

static int span_cmp(const void *a, const void *b) {
    const span *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* For each span, the innermost earlier span on its thread that contains it (-1 if none). Leaves
 * s sorted. */
static int containment(span *s, size_t n, long *parent_of) {
    qsort(s, n, sizeof *s, span_cmp);
    long *stack = malloc((n + 1) * sizeof *stack);
    if (!stack) return -1;
    size_t top = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && (s[i].thread != s[i - 1].thread || s[i].rank != s[i - 1].rank)) top = 0;
        while (top > 0 && !(s[stack[top - 1]].end >= s[i].end && s[stack[top - 1]].start <= s[i].start)) top--;
        parent_of[s[i].index] = top > 0 ? s[stack[top - 1]].index : -1;
        stack[top++] = (long)i;
    }
    free(stack);
    return 0;
}

static int window_cmp(const void *a, const void *b) {
    const wb_window *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

int wb_range_name_cmp(const char *a, const char *b) {
    size_t la = strcspn(a, ","), lb = strcspn(b, ",");
    int c = strncmp(a, b, la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

static int range_name_cmp(const void *a, const void *b, void *ctx) {
    const wb_capture *c = ctx;
    const wb_range *x = &c->ranges[*(const long *)a], *y = &c->ranges[*(const long *)b];
    int by_name = wb_range_name_cmp(x->name, y->name);
    if (by_name) return by_name;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return (*(const long *)a > *(const long *)b) - (*(const long *)a < *(const long *)b);
}

/* ---- the links ---------------------------------------------------------------------------- */

void wb_capture_index_free(wb_capture_index *x) {
    free(x->api_by_time);
    free(x->launch_first);
    free(x->launched);
    free(x->ranges_by_name);
    free(x->window_reach);
    free(x->window_first);
    memset(x, 0, sizeof *x);
}

/* kernel/memcpy/memset -> launching API call. Where several calls share a correlation id, the
 * outermost wins. */
static int link_launches(wb_capture *c) {
    corr_entry *corr = malloc((c->n_api + 1) * sizeof *corr);
    if (!corr) return -1;
    for (size_t i = 0; i < c->n_api; i++) corr[i] = (corr_entry){(uint64_t)c->api[i].rank << 32 | c->api[i].correlation_id, (long)i};
    qsort(corr, c->n_api, sizeof *corr, corr_cmp);
    for (size_t i = 0; i < c->n_kernels + c->n_ops; i++) {
        uint64_t id = i < c->n_kernels ? (uint64_t)c->kernels[i].rank << 32 | c->kernels[i].correlation_id
                                       : (uint64_t)c->ops[i - c->n_kernels].rank << 32 | c->ops[i - c->n_kernels].correlation_id;
        /* the first entry with this id: lower bound */
        size_t lo = 0, hi = c->n_api;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (corr[mid].key < id) lo = mid + 1;
            else hi = mid;
        }
        long api = -1;
        for (size_t j = lo; j < c->n_api && corr[j].key == id; j++)
            if (api < 0 || (c->api[api].nested && !c->api[corr[j].index].nested)) api = corr[j].index;
        if (i < c->n_kernels) c->kernels[i].api = api;
        else c->ops[i - c->n_kernels].api = api;
    }
    free(corr);

    /* the inverse, as offsets (a counting sort keeps each call's work in index order) */
    wb_capture_index *x = &c->index;
    size_t n_work = c->n_kernels + c->n_ops;
    x->launch_first = calloc(c->n_api + 2, sizeof *x->launch_first);
    x->launched = malloc((n_work + 1) * sizeof *x->launched);
    if (!x->launch_first || !x->launched) return -1;
    for (size_t i = 0; i < n_work; i++) {
        long api = i < c->n_kernels ? c->kernels[i].api : c->ops[i - c->n_kernels].api;
        if (api >= 0) x->launch_first[api + 2]++;
    }
    for (size_t i = 2; i < c->n_api + 2; i++) x->launch_first[i] += x->launch_first[i - 1];
    for (size_t i = 0; i < n_work; i++) {
        long api = i < c->n_kernels ? c->kernels[i].api : c->ops[i - c->n_kernels].api;
        if (api >= 0) x->launched[x->launch_first[api + 1]++] = (long)i;
    }
    return 0;
}

static int link_api(wb_capture *c, span *spans, long *parent) {
    /* API calls made inside another API call on the same thread were made by the library itself
     * (the runtime calling the driver): counted as part of the outer call, not on their own. */
    for (size_t i = 0; i < c->n_api; i++) spans[i] = (span){c->api[i].rank, c->api[i].thread, c->api[i].start, c->api[i].end, (long)i};
    if (containment(spans, c->n_api, parent)) return -1;
    for (size_t i = 0; i < c->n_api; i++) c->api[i].nested = parent[i] >= 0;
    /* the walk left spans in (rank, thread, start) order: that is the time index */
    c->index.api_by_time = malloc((c->n_api + 1) * sizeof *c->index.api_by_time);
    if (!c->index.api_by_time) return -1;
    for (size_t i = 0; i < c->n_api; i++) c->index.api_by_time[i] = spans[i].index;
    return link_launches(c);
}

static int link_ranges(wb_capture *c, span *spans, long *parent) {
    for (size_t i = 0; i < c->n_ranges; i++)
        spans[i] = (span){c->ranges[i].rank, c->ranges[i].thread, c->ranges[i].start, c->ranges[i].end, (long)i};
    if (containment(spans, c->n_ranges, parent)) return -1;
    for (size_t i = 0; i < c->n_ranges; i++) c->ranges[i].parent = c->ranges[i].is_mark ? -1 : parent[i];
    /* in the sorted walk parents come first, so each depth is its parent's plus one */
    for (size_t i = 0; i < c->n_ranges; i++) {
        wb_range *r = &c->ranges[spans[i].index];
        r->depth = r->parent >= 0 ? c->ranges[r->parent].depth + 1 : 0;
    }
    long *by_name = malloc((c->n_ranges + 1) * sizeof *by_name);
    if (!by_name) return -1;
    for (size_t i = 0; i < c->n_ranges; i++) by_name[i] = (long)i;
    qsort_r(by_name, c->n_ranges, sizeof *by_name, range_name_cmp, c);
    c->index.ranges_by_name = by_name;
    return 0;
}

/* Windows sorted by (rank, start); the reach runs within each rank's windows. */
static int link_windows(wb_capture *c) {
    qsort(c->windows, c->n_windows, sizeof *c->windows, window_cmp);
    wb_capture_index *x = &c->index;
    x->window_reach = malloc((c->n_windows + 1) * sizeof *x->window_reach);
    x->window_first = calloc((size_t)c->world_size + 1, sizeof *x->window_first);
    if (!x->window_reach || !x->window_first) return -1;
    for (size_t i = 0; i < c->n_windows; i++) {
        int first_of_rank = i == 0 || c->windows[i].rank != c->windows[i - 1].rank;
        x->window_reach[i] = first_of_rank || c->windows[i].end > x->window_reach[i - 1] ? c->windows[i].end : x->window_reach[i - 1];
        x->window_first[c->windows[i].rank + 1]++;
    }
    for (int r = 1; r <= c->world_size; r++) x->window_first[r] += x->window_first[r - 1];
    return 0;
}

int wb_capture_settle_ranks(wb_capture *c, int fallback) {
    int highest = -1;
#define SETTLE(arr, n)                                                   \
    for (size_t i = 0; i < (n); i++) {                                   \
        if ((arr)[i].rank < 0) (arr)[i].rank = fallback;                 \
        if ((arr)[i].rank > highest) highest = (arr)[i].rank;            \
    }
    SETTLE(c->api, c->n_api)
    SETTLE(c->kernels, c->n_kernels)
    SETTLE(c->ops, c->n_ops)
    SETTLE(c->ranges, c->n_ranges)
    SETTLE(c->windows, c->n_windows)
#undef SETTLE
    return highest;
}

/* At least one process, and room for every rank a record names (hand-made captures set ranks
 * without world_size). */
static void settle_world_size(wb_capture *c) {
    int highest = wb_capture_settle_ranks(c, 0);
    if (c->world_size <= highest) c->world_size = highest + 1;
    if (c->world_size < 1) c->world_size = 1;
}

int wb_capture_link(wb_capture *c) {
    wb_capture_index_free(&c->index);
    settle_world_size(c);
    size_t n = c->n_api > c->n_ranges ? c->n_api : c->n_ranges;
    span *spans = malloc((n + 1) * sizeof *spans);
    long *parent = malloc((n + 1) * sizeof *parent);
    int rc = spans && parent && !link_windows(c) && !link_api(c, spans, parent) && !link_ranges(c, spans, parent) ? 0 : -1;
    free(spans);
    free(parent);
    if (rc) {
        /* never half linked: a kernel with no launch call is counted nowhere, so refuse instead */
        wb_capture_index_free(&c->index);
        return -1;
    }
    uint64_t t0 = UINT64_MAX;
    for (size_t i = 0; i < c->n_api; i++) if (c->api[i].start < t0) t0 = c->api[i].start;
    for (size_t i = 0; i < c->n_kernels; i++) if (c->kernels[i].start < t0) t0 = c->kernels[i].start;
    for (size_t i = 0; i < c->n_ops; i++) if (c->ops[i].start < t0) t0 = c->ops[i].start;
    for (size_t i = 0; i < c->n_ranges; i++) if (c->ranges[i].start < t0) t0 = c->ranges[i].start;
    c->t0 = t0 == UINT64_MAX ? 0 : t0;
    return 0;
}

/* ---- lookups -------------------------------------------------------------------------------- */

/* (rank, thread, start) of a against (rank, thread, t): negative when a sorts before. */
static int api_order(const wb_api_call *a, int rank, uint32_t thread, uint64_t t) {
    if (a->rank != rank) return a->rank < rank ? -1 : 1;
    if (a->thread != thread) return a->thread < thread ? -1 : 1;
    return (a->start > t) - (a->start < t);
}

size_t wb_capture_api_between(const wb_capture *c, int rank, uint32_t thread, uint64_t from, uint64_t to, const long **out) {
    const long *v = c->index.api_by_time;
    *out = v;
    if (!v || from > to) return 0;
    /* first call at or after (rank, thread, from) */
    size_t lo = 0, hi = c->n_api;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (api_order(&c->api[v[mid]], rank, thread, from) < 0) lo = mid + 1;
        else hi = mid;
    }
    size_t first = lo;
    hi = c->n_api;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (api_order(&c->api[v[mid]], rank, thread, to) <= 0) lo = mid + 1;
        else hi = mid;
    }
    *out = v + first;
    return lo - first;
}

size_t wb_capture_launched_by(const wb_capture *c, long api, const long **out) {
    const wb_capture_index *x = &c->index;
    *out = x->launched;
    if (!x->launch_first || api < 0 || (size_t)api >= c->n_api) return 0;
    *out = x->launched + x->launch_first[api];
    return x->launch_first[api + 1] - x->launch_first[api];
}

size_t wb_capture_ranges_named(const wb_capture *c, const char *name, const long **out) {
    const long *v = c->index.ranges_by_name;
    *out = v;
    if (!v) return 0;
    size_t lo = 0, hi = c->n_ranges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (wb_range_name_cmp(c->ranges[v[mid]].name, name) < 0) lo = mid + 1;
        else hi = mid;
    }
    size_t first = lo;
    while (lo < c->n_ranges && !wb_range_name_cmp(c->ranges[v[lo]].name, name)) lo++;
    *out = v + first;
    return lo - first;
}
