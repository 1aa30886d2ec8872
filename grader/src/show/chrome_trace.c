/*
 * chrome_trace.c: see chrome_trace.h. Events are printed straight to the file, one at a time: a
 * capture of a million records never becomes one JSON tree (which cost 2 GB for a 200 MB
 * capture). Numbers and strings are formatted by hand into the sink's own 64 KiB buffer, written
 * out whole: jansson (one object built, dumped and freed per event) took 6.9 s CPU for a 200 MB
 * capture's trace, fprintf and stdio's per-call overhead (15 calls an event) 1.3 s, this 0.4 s
 * (docs/capture-format.md). Strings go through json_string_out (JSON's escapes); times are exact
 * decimals of integer nanoseconds. The names Perfetto shows (processes, lanes, the window, a cut) are
 * in the learner's language; categories and otherData are ids, the same in every language.
 */
#define _GNU_SOURCE
#include "chrome_trace.h"
#include "wb_base.h"
#include "wb_capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    FILE *out;
    size_t n;          /* events written */
    size_t len;        /* bytes waiting in buf */
    char buf[1 << 16];
} sink;

static void flush(sink *s) {
    if (s->len) fwrite(s->buf, 1, s->len, s->out);
    s->len = 0;
}

static void put(sink *s, const char *p, size_t n) {
    if (n > sizeof s->buf - s->len) {
        flush(s);
        if (n > sizeof s->buf) {
            fwrite(p, 1, n, s->out);
            return;
        }
    }
    memcpy(s->buf + s->len, p, n);
    s->len += n;
}

static void put_char(sink *s, char c) {
    if (s->len == sizeof s->buf) flush(s);
    s->buf[s->len++] = c;
}

static void lit(sink *s, const char *text) { put(s, text, strlen(text)); }

/* A decimal integer, as %llu and %lld write it. */
static void unum_out(sink *s, unsigned long long u, int negative) {
    char buf[24];
    size_t i = sizeof buf;
    do buf[--i] = (char)('0' + u % 10);
    while ((u /= 10));
    if (negative) buf[--i] = '-';
    put(s, buf + i, sizeof buf - i);
}

static void num_out(sink *s, long long v) { unum_out(s, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v, v < 0); }

/* A JSON string: quotes, backslashes and control bytes escaped; other bytes as they are (names
 * come from jansson-read captures, so they are UTF-8). Runs of plain bytes are written whole. */
static void json_string_out(sink *f, const char *s) {
    put_char(f, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        const unsigned char *run = p;
        while (*p && *p != '"' && *p != '\\' && *p >= 0x20) p++;
        put(f, (const char *)run, (size_t)(p - run));
        if (!*p) break;
        if (*p < 0x20) {
            char u[6] = {'\\', 'u', '0', '0', "0123456789abcdef"[*p >> 4], "0123456789abcdef"[*p & 15]};
            put(f, u, sizeof u);
        } else {
            put_char(f, '\\'), put_char(f, (char)*p);
        }
        p++;
    }
    put_char(f, '"');
}

/* Microseconds from ns, exactly: "1234.567". */
static void us_out(sink *f, uint64_t ns) {
    unsigned frac = (unsigned)(ns % 1000);
    unum_out(f, ns / 1000, 0);
    char tail[4] = {'.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10), (char)('0' + frac % 10)};
    put(f, tail, sizeof tail);
}

static void bool_out(sink *f, int b) { lit(f, b ? "true" : "false"); }

static sink *event(sink *s) {
    if (s->n++) put_char(s, ',');
    return s;
}

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

/* Time from the start of the shown span, in ns; records straddling its edges are clipped. */
static uint64_t at(span s, uint64_t t) {
    if (t < s.lo) t = s.lo;
    if (t > s.hi) t = s.hi;
    return t - s.lo;
}

/* Lane ids are 32-bit OS thread ids and stream ids: kept whole (an int would turn ids above 2^31
 * negative, and the viewer would then name a lane that no event is on). */
static void metadata(sink *events, int pid, long long tid, const char *what, const char *name) {
    sink *f = event(events);
    lit(f, "{\"ph\":\"M\",\"name\":\"");
    lit(f, what);
    lit(f, "\",\"pid\":");
    num_out(f, pid);
    lit(f, ",");
    if (tid >= 0) lit(f, "\"tid\":"), num_out(f, tid), lit(f, ",");
    lit(f, "\"args\":{\"name\":");
    json_string_out(f, name);
    lit(f, "}}");
}

static void sort_index(sink *events, int pid, int index) {
    sink *f = event(events);
    lit(f, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":");
    num_out(f, pid);
    lit(f, ",\"args\":{\"sort_index\":");
    num_out(f, index);
    lit(f, "}}");
}

/* A complete ("X") event up to its args, which the caller writes and closes with "}}". */
static sink *complete(sink *events, const char *name, const char *cat, int pid, long long tid, span sp, uint64_t start,
                      uint64_t end) {
    sink *f = event(events);
    lit(f, "{\"name\":");
    json_string_out(f, name);
    lit(f, ",\"cat\":\"");
    lit(f, cat);
    lit(f, "\",\"ph\":\"X\",\"pid\":");
    num_out(f, pid);
    lit(f, ",\"tid\":");
    num_out(f, tid);
    lit(f, ",\"ts\":");
    us_out(f, at(sp, start));
    lit(f, ",\"dur\":");
    us_out(f, at(sp, end) - at(sp, start));
    lit(f, ",\"args\":{");
    return f;
}

/* One end of a launch arrow (ph is the phase and what goes with it). */
static void flow_end(sink *f, const char *ph, unsigned long long id, int pid, uint32_t tid, uint64_t ts) {
    lit(f, "{\"name\":\"launch\",\"cat\":\"launch\",\"ph\":");
    lit(f, ph);
    lit(f, ",\"id\":");
    unum_out(f, id, 0);
    lit(f, ",\"pid\":");
    num_out(f, pid);
    lit(f, ",\"tid\":");
    num_out(f, tid);
    lit(f, ",\"ts\":");
    us_out(f, ts);
    put_char(f, '}');
}

static int u64_cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Distinct ids from a sorted list of lane ids. */
static int u32_cmp(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static size_t unique_sorted(uint32_t *v, size_t n) {
    /* a lane's records come in runs: dropping repeats first leaves a few ids to sort, not a
     * million (4 sorts of 0.9 M ids cost 0.2 s of a 200 MB capture's traces) */
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[m - 1] != v[i]) v[m++] = v[i];
    n = m;
    qsort(v, n, sizeof *v, u32_cmp);
    m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[m - 1] != v[i]) v[m++] = v[i];
    return m;
}

/* One process of a run (rank `rank`; the run itself for one process): its three trace processes
 * from pid `host` on. */
/* Ends sp before the (cap + 1)-th record (API call, kernel, memset or memcpy, NVTX range) of rank
 * that it shows, so that at most cap are written. Returns how many are left out after the new
 * end; 0 when all fit. */
static size_t cap_span(const wb_capture *c, int rank, span *sp, size_t cap) {
    size_t n = 0, total = c->n_api + c->n_kernels + c->n_ops + c->n_ranges;
    uint64_t *starts = malloc((total + 1) * sizeof *starts);
    if (!starts) return 0;
#define TAKE(arr, count, END)                                                                      \
    for (size_t i = 0; i < (count); i++)                                                           \
        if (arr[i].rank == rank && shown(*sp, arr[i].start, END)) starts[n++] = arr[i].start < sp->lo ? sp->lo : arr[i].start;
    TAKE(c->api, c->n_api, c->api[i].end)
    TAKE(c->kernels, c->n_kernels, c->kernels[i].end)
    TAKE(c->ops, c->n_ops, c->ops[i].end)
    TAKE(c->ranges, c->n_ranges, c->ranges[i].end == WB_OPEN_END ? c->ranges[i].start : c->ranges[i].end)
#undef TAKE
    size_t left_out = 0;
    if (n > cap) {
        qsort(starts, n, sizeof *starts, u64_cmp);
        uint64_t first_out = starts[cap]; /* records starting at it or later are not written */
        sp->hi = first_out > sp->lo ? first_out - 1 : sp->lo;
        for (size_t i = 0; i < n; i++) left_out += starts[i] > sp->hi;
    }
    free(starts);
    return left_out;
}

static void add_rank(sink *events, const wb_run *run, size_t run_index, int rank, int host, int whole_run, size_t cap,
                     size_t *left_out) {
    const wb_capture *c = &run->capture;
    span sp = run_span(c, whole_run);
    size_t cut = cap_span(c, rank, &sp, cap);
    *left_out += cut;
    int gpu = host + 1, nvtx = host + 2;
    char name[320], who[160];
    if (c->world_size > 1) snprintf(who, sizeof who, _("%s rank %d"), run->variant, rank);
    else snprintf(who, sizeof who, "%s", run->variant);
    snprintf(name, sizeof name, _("%s: host API"), who);
    metadata(events, host, -1, "process_name", name);
    snprintf(name, sizeof name, "%s: GPU (%s)", who, c->gpu);
    metadata(events, gpu, -1, "process_name", name);
    snprintf(name, sizeof name, _("%s: NVTX ranges"), who);
    metadata(events, nvtx, -1, "process_name", name);
    sort_index(events, nvtx, host * 10);
    sort_index(events, host, host * 10 + 1);
    sort_index(events, gpu, host * 10 + 2);

    /* lane names: threads and streams, each once */
    size_t n_lanes = c->n_api + c->n_ranges + c->n_kernels + c->n_ops;
    uint32_t *lanes = malloc((n_lanes + 1) * sizeof *lanes);
    if (lanes) {
        size_t n = 0;
        for (size_t i = 0; i < c->n_api; i++) if (c->api[i].rank == rank) lanes[n++] = c->api[i].thread;
        for (size_t i = 0; i < c->n_ranges; i++) if (c->ranges[i].rank == rank) lanes[n++] = c->ranges[i].thread;
        n = unique_sorted(lanes, n);
        for (size_t i = 0; i < n; i++) {
            snprintf(name, sizeof name, _("thread %u"), lanes[i]);
            metadata(events, host, lanes[i], "thread_name", name);
            metadata(events, nvtx, lanes[i], "thread_name", name);
        }
        n = 0;
        for (size_t i = 0; i < c->n_kernels; i++) if (c->kernels[i].rank == rank) lanes[n++] = c->kernels[i].stream;
        for (size_t i = 0; i < c->n_ops; i++) if (c->ops[i].rank == rank) lanes[n++] = c->ops[i].stream;
        n = unique_sorted(lanes, n);
        for (size_t i = 0; i < n; i++) {
            snprintf(name, sizeof name, _("stream %u"), lanes[i]);
            metadata(events, gpu, lanes[i], "thread_name", name);
        }
        free(lanes);
    }

    for (size_t i = 0; i < c->n_api; i++) {
        const wb_api_call *a = &c->api[i];
        if (a->rank != rank || !shown(sp, a->start, a->end)) continue;
        sink *f = complete(events, a->name, a->driver ? "driver API" : "runtime API", host, a->thread, sp, a->start, a->end);
        lit(f, "\"correlation_id\":");
        num_out(f, a->correlation_id);
        lit(f, ",\"nested_in_another_call\":");
        bool_out(f, a->nested);
        lit(f, "}}");
    }
    for (size_t i = 0; i < c->n_kernels; i++) {
        const wb_kernel *k = &c->kernels[i];
        if (k->rank != rank || !shown(sp, k->start, k->end)) continue;
        sink *f = complete(events, k->name, "kernel", gpu, k->stream, sp, k->start, k->end);
        lit(f, "\"mangled\":");
        json_string_out(f, k->mangled);
        const char *keys[] = {",\"grid\":[", ",", ",", "],\"block\":[", ",", ",", "],\"registers_per_thread\":",
                              ",\"static_shared_bytes\":", ",\"dynamic_shared_bytes\":", ",\"correlation_id\":", ",\"graph_id\":"};
        const long long values[] = {k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2],
                                    k->registers_per_thread, k->static_shared, k->dynamic_shared, k->correlation_id, k->graph_id};
        for (size_t j = 0; j < sizeof values / sizeof values[0]; j++) lit(f, keys[j]), num_out(f, values[j]);
        lit(f, ",\"gemm\":");
        bool_out(f, wb_is_gemm(k->name, NULL));
        lit(f, "}}");
    }
    for (size_t i = 0; i < c->n_ops; i++) {
        const wb_gpu_op *o = &c->ops[i];
        if (o->rank != rank || !shown(sp, o->start, o->end)) continue;
        /* the host side's memory kind, where the capture has it: a pageable copy is the slow one */
        const char *host_kind = !strcmp(o->copy_kind, "HtoD") ? o->src_kind : !strcmp(o->copy_kind, "DtoH") ? o->dst_kind : "";
        if (o->kind == WB_GPU_MEMCPY)
            snprintf(name, sizeof name, "memcpy %s%s%s%s %llu B", o->copy_kind, *host_kind ? " (" : "", host_kind,
                     *host_kind ? ")" : "", (unsigned long long)o->bytes);
        else snprintf(name, sizeof name, "memset %llu B", (unsigned long long)o->bytes);
        sink *f = complete(events, name, o->kind == WB_GPU_MEMCPY ? "memcpy" : "memset", gpu, o->stream, sp, o->start, o->end);
        lit(f, "\"bytes\":");
        unum_out(f, o->bytes, 0);
        lit(f, ",\"correlation_id\":");
        num_out(f, o->correlation_id);
        if (o->kind == WB_GPU_MEMCPY && o->src_kind[0]) {
            lit(f, ",\"src_kind\":");
            json_string_out(f, o->src_kind);
            lit(f, ",\"dst_kind\":");
            json_string_out(f, o->dst_kind);
            if (o->async >= 0) lit(f, ",\"async\":"), bool_out(f, o->async);
        }
        lit(f, "}}");
    }
    /* flow arrows: launch call -> GPU work */
    for (size_t i = 0; i < c->n_kernels + c->n_ops; i++) {
        int is_kernel = i < c->n_kernels;
        long api = is_kernel ? c->kernels[i].api : c->ops[i - c->n_kernels].api;
        if (api < 0 || c->api[api].rank != rank) continue;
        const wb_api_call *a = &c->api[api];
        uint64_t start = is_kernel ? c->kernels[i].start : c->ops[i - c->n_kernels].start;
        uint64_t end = is_kernel ? c->kernels[i].end : c->ops[i - c->n_kernels].end;
        if (!shown(sp, a->start, a->end) || !shown(sp, start, end)) continue;
        uint32_t stream = is_kernel ? c->kernels[i].stream : c->ops[i - c->n_kernels].stream;
        unsigned long long id = ((unsigned long long)run_index << 32) | i; /* one arrow per piece of GPU work */
        flow_end(event(events), "\"s\"", id, host, a->thread, at(sp, a->start));
        flow_end(event(events), "\"f\",\"bp\":\"e\"", id, gpu, stream, at(sp, start));
    }
    for (size_t i = 0; i < c->n_ranges; i++) {
        const wb_range *r = &c->ranges[i];
        uint64_t end = r->end == WB_OPEN_END ? r->start : r->end;
        if (r->rank != rank || !shown(sp, r->start, end)) continue;
        sink *f;
        if (r->is_mark) {
            f = event(events);
            lit(f, "{\"name\":");
            json_string_out(f, r->name);
            lit(f, ",\"cat\":\"nvtx\",\"ph\":\"i\",\"s\":\"t\",\"pid\":");
            num_out(f, nvtx);
            lit(f, ",\"tid\":");
            num_out(f, r->thread);
            lit(f, ",\"ts\":");
            us_out(f, at(sp, r->start));
            lit(f, ",\"args\":{");
        } else {
            f = complete(events, r->name, "nvtx", nvtx, r->thread, sp, r->start, end);
        }
        lit(f, "\"depth\":");
        num_out(f, r->depth);
        lit(f, ",\"never_closed\":");
        bool_out(f, r->end == WB_OPEN_END);
        lit(f, ",");
        if (r->domain) lit(f, "\"domain\":"), json_string_out(f, r->domain), put_char(f, ',');
        lit(f, "\"clipped_to_the_shown_span\":");
        bool_out(f, r->start < sp.lo || end > sp.hi);
        lit(f, "}}");
    }
    for (size_t i = 0; i < c->n_windows; i++) {
        if (c->windows[i].rank != rank) continue;
        uint64_t end = c->windows[i].end == WB_OPEN_END ? c->windows[i].start : c->windows[i].end;
        lit(complete(events, _("profiled window (cudaProfilerStart..Stop)"), "window", nvtx, 0, sp, c->windows[i].start, end), "}}");
    }
    if (cut) { /* where the trace stops, on the NVTX lanes, with what it leaves out */
        sink *f = event(events);
        snprintf(name, sizeof name, _("trace cut here: the %zu records after this point are not written (at most %zu a "
                                      "process; docs/limits.md)"), cut, cap);
        lit(f, "{\"name\":");
        json_string_out(f, name);
        lit(f, ",\"cat\":\"cut\",\"ph\":\"i\",\"s\":\"g\",\"pid\":");
        num_out(f, nvtx);
        lit(f, ",\"tid\":0,\"ts\":");
        us_out(f, at(sp, sp.hi));
        lit(f, ",\"args\":{\"records_left_out\":");
        unum_out(f, cut, 0);
        lit(f, "}}");
    }
}

size_t wb_trace_max_records(void) {
    const char *v = getenv("WB_TRACE_MAX_RECORDS");
    char *end;
    unsigned long long n = v && *v ? strtoull(v, &end, 10) : 0;
    return v && *v && !*end && n > 0 ? (size_t)n : WB_TRACE_MAX_RECORDS_DEFAULT;
}

/* The whole file to f; *left_out gets the records not written. Returns 0, or -1 when writing
 * failed. */
static int write_trace(FILE *out, const wb_recording *rec, int whole_run, size_t *left_out) {
    sink *f = malloc(sizeof *f);
    if (!f) return -1;
    f->out = out, f->n = 0, f->len = 0;
    *left_out = 0;
    size_t parts = 0; /* the cap is shared by the processes (each rank of each run) */
    for (size_t i = 0; i < rec->n_runs; i++) parts += (size_t)wb_capture_ranks(&rec->runs[i].capture);
    size_t cap = wb_trace_max_records() / (parts ? parts : 1);
    if (cap < 1) cap = 1;
    lit(f, "{\"traceEvents\":[");
    int pid = 1; /* three trace processes per rank of each run, numbered on */
    for (size_t i = 0; i < rec->n_runs; i++)
        for (int r = 0; r < wb_capture_ranks(&rec->runs[i].capture); r++, pid += 3)
            add_rank(f, &rec->runs[i], i, r, pid, whole_run, cap, left_out);
    lit(f, "],\"displayTimeUnit\":\"ns\",\"otherData\":{\"lesson\":");
    json_string_out(f, rec->lesson ? rec->lesson : "");
    if (rec->recorded_at) lit(f, ",\"recorded_at\":"), json_string_out(f, rec->recorded_at);
    lit(f, ",\"made_by\":\"gpu-workbench grader\",\"shows\":\"");
    lit(f, whole_run ? "the whole run" : "the profiled window");
    lit(f, "\",\"records_per_process_at_most\":");
    unum_out(f, cap, 0);
    lit(f, ",\"records_left_out\":");
    unum_out(f, *left_out, 0);
    lit(f, "}}\n");
    flush(f);
    free(f);
    return ferror(out) ? -1 : 0;
}

json_t *wb_chrome_trace(const wb_recording *rec) { return wb_chrome_trace_of(rec, 0); }

json_t *wb_chrome_trace_of(const wb_recording *rec, int whole_run) {
    char *text = NULL;
    size_t n = 0, left_out;
    FILE *f = open_memstream(&text, &n);
    if (!f) return NULL;
    int rc = write_trace(f, rec, whole_run, &left_out);
    fclose(f);
    json_t *root = rc ? NULL : json_loadb(text, n, 0, NULL);
    free(text);
    return root;
}

int wb_chrome_trace_write(const wb_recording *rec, const char *path, wb_error *err) {
    return wb_chrome_trace_write_of(rec, 0, path, NULL, err);
}

int wb_chrome_trace_write_of(const wb_recording *rec, int whole_run, const char *path, size_t *left_out, wb_error *err) {
    size_t ignored;
    FILE *f = fopen(path, "w");
    int failed = !f || write_trace(f, rec, whole_run, left_out ? left_out : &ignored) != 0;
    if (f) failed |= fclose(f) != 0;
    if (failed) {
        unlink(path); /* no truncated trace left behind */
        return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot write the trace file (is the folder writable, the disk full?)"), path);
    }
    return 0;
}
