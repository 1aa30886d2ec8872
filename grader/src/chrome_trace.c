/* chrome_trace.c: see chrome_trace.h. Built with jansson; every event is an object. */
#include "chrome_trace.h"
#include "gemm_families.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one run's part of the trace shows: records overlapping [lo, hi], times in us from lo. */
typedef struct {
    uint64_t lo, hi;
} span;

/* The profiled window (first start to last end) with 5% of its length on each side, so that
 * cudaProfilerStart/Stop and the first and last launches stay in view; the whole run when the
 * capture has no window or the caller asks for it. */
static span run_span(const wb_capture *c, int whole_run) {
    span s = {c->t0, UINT64_MAX};
    if (whole_run || c->n_windows == 0) return s;
    uint64_t start = UINT64_MAX, end = 0;
    for (size_t i = 0; i < c->n_windows; i++) {
        uint64_t e = c->windows[i].end == WB_OPEN_END ? c->windows[i].start : c->windows[i].end;
        if (c->windows[i].start < start) start = c->windows[i].start;
        if (e > end) end = e;
    }
    uint64_t margin = (end - start) / 20;
    s.lo = start > margin ? start - margin : 0;
    s.hi = end + margin;
    return s;
}

static int shown(span s, uint64_t start, uint64_t end) { return end >= s.lo && start <= s.hi; }

/* Time from the start of the shown span, in us; records straddling its edges are clipped. */
static double us(span s, uint64_t t) {
    if (t < s.lo) t = s.lo;
    if (t > s.hi) t = s.hi;
    return (double)(t - s.lo) / 1000.0;
}

static double dur_us(span s, uint64_t start, uint64_t end) { return us(s, end) - us(s, start); }

/* Lane ids are 32-bit OS thread ids and stream ids: kept whole (an int would turn ids above 2^31
 * negative, and the viewer would then name a lane that no event is on). */
static void metadata(json_t *events, int pid, long long tid, const char *what, const char *name) {
    json_t *e = json_pack("{s:s, s:s, s:i, s:{s:s}}", "ph", "M", "name", what, "pid", pid, "args", "name", name);
    if (tid >= 0) json_object_set_new(e, "tid", json_integer((json_int_t)tid));
    json_array_append_new(events, e);
}

static void sort_index(json_t *events, int pid, int index) {
    json_array_append_new(events, json_pack("{s:s, s:s, s:i, s:{s:i}}", "ph", "M", "name", "process_sort_index", "pid", pid,
                                            "args", "sort_index", index));
}

static json_t *complete(const char *name, const char *cat, int pid, long long tid, double ts, double dur) {
    return json_pack("{s:s, s:s, s:s, s:i, s:I, s:f, s:f}", "name", name, "cat", cat, "ph", "X", "pid", pid, "tid",
                     (json_int_t)tid, "ts", ts, "dur", dur);
}

/* Distinct ids from a sorted list of lane ids. */
static int u32_cmp(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static size_t unique_sorted(uint32_t *v, size_t n) {
    qsort(v, n, sizeof *v, u32_cmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[m - 1] != v[i]) v[m++] = v[i];
    return m;
}

static void add_run(json_t *events, const wb_run *run, size_t run_index, int whole_run) {
    const wb_capture *c = &run->capture;
    span sp = run_span(c, whole_run);
    int host = (int)(run_index * 3 + 1), gpu = host + 1, nvtx = host + 2;
    char name[320];
    snprintf(name, sizeof name, "%s: host API", run->variant);
    metadata(events, host, -1, "process_name", name);
    snprintf(name, sizeof name, "%s: GPU (%s)", run->variant, c->gpu);
    metadata(events, gpu, -1, "process_name", name);
    snprintf(name, sizeof name, "%s: NVTX ranges", run->variant);
    metadata(events, nvtx, -1, "process_name", name);
    sort_index(events, nvtx, host * 10);
    sort_index(events, host, host * 10 + 1);
    sort_index(events, gpu, host * 10 + 2);

    /* lane names: threads and streams, each once */
    size_t n_lanes = c->n_api + c->n_ranges + c->n_kernels + c->n_ops;
    uint32_t *lanes = malloc((n_lanes + 1) * sizeof *lanes);
    if (lanes) {
        size_t n = 0;
        for (size_t i = 0; i < c->n_api; i++) lanes[n++] = c->api[i].thread;
        for (size_t i = 0; i < c->n_ranges; i++) lanes[n++] = c->ranges[i].thread;
        n = unique_sorted(lanes, n);
        for (size_t i = 0; i < n; i++) {
            snprintf(name, sizeof name, "thread %u", lanes[i]);
            metadata(events, host, lanes[i], "thread_name", name);
            metadata(events, nvtx, lanes[i], "thread_name", name);
        }
        n = 0;
        for (size_t i = 0; i < c->n_kernels; i++) lanes[n++] = c->kernels[i].stream;
        for (size_t i = 0; i < c->n_ops; i++) lanes[n++] = c->ops[i].stream;
        n = unique_sorted(lanes, n);
        for (size_t i = 0; i < n; i++) {
            snprintf(name, sizeof name, "stream %u", lanes[i]);
            metadata(events, gpu, lanes[i], "thread_name", name);
        }
        free(lanes);
    }

    for (size_t i = 0; i < c->n_api; i++) {
        const wb_api_call *a = &c->api[i];
        if (!shown(sp, a->start, a->end)) continue;
        json_t *e = complete(a->name, a->driver ? "driver API" : "runtime API", host, a->thread, us(sp, a->start),
                             dur_us(sp, a->start, a->end));
        json_object_set_new(e, "args", json_pack("{s:I, s:b}", "correlation_id", (json_int_t)a->correlation_id,
                                                 "nested_in_another_call", a->nested));
        json_array_append_new(events, e);
    }
    for (size_t i = 0; i < c->n_kernels; i++) {
        const wb_kernel *k = &c->kernels[i];
        if (!shown(sp, k->start, k->end)) continue;
        json_t *e = complete(k->name, "kernel", gpu, k->stream, us(sp, k->start), dur_us(sp, k->start, k->end));
        json_object_set_new(e, "args", json_pack("{s:s, s:[i,i,i], s:[i,i,i], s:i, s:i, s:i, s:I, s:I, s:b}", "mangled",
                                                 k->mangled, "grid", k->grid[0], k->grid[1], k->grid[2], "block",
                                                 k->block[0], k->block[1], k->block[2], "registers_per_thread",
                                                 k->registers_per_thread, "static_shared_bytes", k->static_shared,
                                                 "dynamic_shared_bytes", k->dynamic_shared, "correlation_id",
                                                 (json_int_t)k->correlation_id, "graph_id", (json_int_t)k->graph_id,
                                                 "gemm", wb_is_gemm(k->name, NULL)));
        json_array_append_new(events, e);
    }
    for (size_t i = 0; i < c->n_ops; i++) {
        const wb_gpu_op *o = &c->ops[i];
        if (!shown(sp, o->start, o->end)) continue;
        /* the host side's memory kind, where the capture has it: a pageable copy is the slow one */
        const char *host_kind = !strcmp(o->copy_kind, "HtoD") ? o->src_kind : !strcmp(o->copy_kind, "DtoH") ? o->dst_kind : "";
        if (o->kind == WB_GPU_MEMCPY)
            snprintf(name, sizeof name, "memcpy %s%s%s%s %llu B", o->copy_kind, *host_kind ? " (" : "", host_kind,
                     *host_kind ? ")" : "", (unsigned long long)o->bytes);
        else snprintf(name, sizeof name, "memset %llu B", (unsigned long long)o->bytes);
        json_t *e = complete(name, o->kind == WB_GPU_MEMCPY ? "memcpy" : "memset", gpu, o->stream, us(sp, o->start),
                             dur_us(sp, o->start, o->end));
        json_object_set_new(e, "args", json_pack("{s:I, s:I}", "bytes", (json_int_t)o->bytes, "correlation_id",
                                                 (json_int_t)o->correlation_id));
        if (o->kind == WB_GPU_MEMCPY && o->src_kind[0]) {
            json_t *args = json_object_get(e, "args");
            json_object_set_new(args, "src_kind", json_string(o->src_kind));
            json_object_set_new(args, "dst_kind", json_string(o->dst_kind));
            if (o->async >= 0) json_object_set_new(args, "async", json_boolean(o->async));
        }
        json_array_append_new(events, e);
    }
    /* flow arrows: launch call -> GPU work */
    for (size_t i = 0; i < c->n_kernels + c->n_ops; i++) {
        int is_kernel = i < c->n_kernels;
        long api = is_kernel ? c->kernels[i].api : c->ops[i - c->n_kernels].api;
        if (api < 0) continue;
        const wb_api_call *a = &c->api[api];
        uint64_t start = is_kernel ? c->kernels[i].start : c->ops[i - c->n_kernels].start;
        uint64_t end = is_kernel ? c->kernels[i].end : c->ops[i - c->n_kernels].end;
        if (!shown(sp, a->start, a->end) || !shown(sp, start, end)) continue;
        uint32_t stream = is_kernel ? c->kernels[i].stream : c->ops[i - c->n_kernels].stream;
        json_int_t id = (json_int_t)((run_index << 32) | i); /* one arrow per piece of GPU work */
        json_array_append_new(events, json_pack("{s:s, s:s, s:s, s:I, s:i, s:I, s:f}", "name", "launch", "cat", "launch", "ph",
                                                "s", "id", id, "pid", host, "tid", (json_int_t)a->thread, "ts", us(sp, a->start)));
        json_array_append_new(events, json_pack("{s:s, s:s, s:s, s:s, s:I, s:i, s:I, s:f}", "name", "launch", "cat", "launch",
                                                "ph", "f", "bp", "e", "id", id, "pid", gpu, "tid", (json_int_t)stream, "ts",
                                                us(sp, start)));
    }
    for (size_t i = 0; i < c->n_ranges; i++) {
        const wb_range *r = &c->ranges[i];
        uint64_t end = r->end == WB_OPEN_END ? r->start : r->end;
        if (!shown(sp, r->start, end)) continue;
        json_t *e;
        if (r->is_mark)
            e = json_pack("{s:s, s:s, s:s, s:s, s:i, s:I, s:f}", "name", r->name, "cat", "nvtx", "ph", "i", "s", "t", "pid", nvtx,
                          "tid", (json_int_t)r->thread, "ts", us(sp, r->start));
        else
            e = complete(r->name, "nvtx", nvtx, r->thread, us(sp, r->start), dur_us(sp, r->start, end));
        json_object_set_new(e, "args", json_pack("{s:i, s:b, s:s?, s:b}", "depth", r->depth, "never_closed", r->end == WB_OPEN_END,
                                                 "domain", r->domain, "clipped_to_the_shown_span",
                                                 r->start < sp.lo || end > sp.hi));
        json_array_append_new(events, e);
    }
    for (size_t i = 0; i < c->n_windows; i++) {
        uint64_t end = c->windows[i].end == WB_OPEN_END ? c->windows[i].start : c->windows[i].end;
        json_array_append_new(events, complete("profiled window (cudaProfilerStart..Stop)", "window", nvtx, 0,
                                               us(sp, c->windows[i].start), dur_us(sp, c->windows[i].start, end)));
    }
}

json_t *wb_chrome_trace(const wb_recording *rec) { return wb_chrome_trace_of(rec, 0); }

json_t *wb_chrome_trace_of(const wb_recording *rec, int whole_run) {
    json_t *events = json_array();
    for (size_t i = 0; i < rec->n_runs; i++) add_run(events, &rec->runs[i], i, whole_run);
    json_t *root = json_pack("{s:o, s:s}", "traceEvents", events, "displayTimeUnit", "ns");
    json_object_set_new(root, "otherData", json_pack("{s:s, s:s?, s:s, s:s}", "lesson", rec->lesson ? rec->lesson : "",
                                                     "recorded_at", rec->recorded_at, "made_by", "gpu-workbench grader",
                                                     "shows", whole_run ? "the whole run" : "the profiled window"));
    return root;
}

int wb_chrome_trace_write(const wb_recording *rec, const char *path, wb_error *err) {
    return wb_chrome_trace_write_of(rec, 0, path, err);
}

int wb_chrome_trace_write_of(const wb_recording *rec, int whole_run, const char *path, wb_error *err) {
    json_t *root = wb_chrome_trace_of(rec, whole_run);
    int rc = json_dump_file(root, path, JSON_COMPACT);
    json_decref(root);
    if (rc != 0) return wb_fail(err, WB_EXIT_INPUT, "%s: cannot write the trace file (is the folder writable?)", path);
    return 0;
}
