/*
 * capture.c: reads captures and recordings with jansson, checking every field it uses, and
 * derives the links the grader needs (see capture.h).
 */
#define _GNU_SOURCE
#include "capture.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAPTURE_FORMAT "gpu-workbench-capture"
#define RECORDING_FORMAT "gpu-workbench-recording"
#define FORMAT_VERSION 1

/* ---- field readers: every missing or mistyped field is one clear error ------------------ */

typedef struct {
    const char *what;   /* the file, for messages */
    wb_error *err;
} reader;

static int corrupt(reader *r, const char *where, const char *field, const char *expected) {
    return wb_fail(r->err, WB_EXIT_INPUT,
                   "%s: corrupt capture: %s%s'%s' is missing or not %s. Re-record it (grader record) or "
                   "re-run grader check", r->what, where, *where ? " field " : "field ", field, expected);
}

static int get_u64(reader *r, json_t *o, const char *where, const char *key, uint64_t *out) {
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0) return corrupt(r, where, key, "a non-negative integer");
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static int get_u32(reader *r, json_t *o, const char *where, const char *key, uint32_t *out) {
    uint64_t v;
    if (get_u64(r, o, where, key, &v)) return r->err->code;
    if (v > UINT32_MAX) return corrupt(r, where, key, "a 32-bit integer");
    *out = (uint32_t)v;
    return 0;
}

static int get_str(reader *r, json_t *o, const char *where, const char *key, char **out) {
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v)) return corrupt(r, where, key, "a string");
    *out = strdup(json_string_value(v));
    return 0;
}

static int get_triple(reader *r, json_t *o, const char *where, const char *key, int out[3]) {
    json_t *v = json_object_get(o, key);
    if (!json_is_array(v) || json_array_size(v) != 3) return corrupt(r, where, key, "a list of 3 integers");
    for (int i = 0; i < 3; i++) {
        json_t *x = json_array_get(v, (size_t)i);
        if (!json_is_integer(x)) return corrupt(r, where, key, "a list of 3 integers");
        out[i] = (int)json_integer_value(x);
    }
    return 0;
}

static json_t *get_array(reader *r, json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    if (!json_is_array(v)) {
        corrupt(r, "", key, "a list");
        return NULL;
    }
    return v;
}

/* ---- sections ---------------------------------------------------------------------------- */

static int read_api(reader *r, json_t *arr, wb_capture *c) {
    c->n_api = json_array_size(arr);
    c->api = calloc(c->n_api ? c->n_api : 1, sizeof *c->api);
    for (size_t i = 0; i < c->n_api; i++) {
        json_t *o = json_array_get(arr, i);
        wb_api_call *a = &c->api[i];
        char where[64];
        snprintf(where, sizeof where, "api_calls[%zu]", i);
        const char *domain = json_string_value(json_object_get(o, "domain"));
        if (!json_is_object(o) || get_str(r, o, where, "name", &a->name) || get_u64(r, o, where, "start", &a->start) ||
            get_u64(r, o, where, "end", &a->end) || get_u32(r, o, where, "correlation_id", &a->correlation_id) ||
            get_u32(r, o, where, "thread", &a->thread))
            return corrupt(r, where, "name/start/end/correlation_id/thread", "present");
        if (!domain || (strcmp(domain, "runtime") && strcmp(domain, "driver")))
            return corrupt(r, where, "domain", "\"runtime\" or \"driver\"");
        a->driver = !strcmp(domain, "driver");
        json_t *ret = json_object_get(o, "return");
        a->return_value = json_is_integer(ret) ? (uint32_t)json_integer_value(ret) : 0;
        if (a->end < a->start) return corrupt(r, where, "end", "at or after start");
    }
    return 0;
}

static int read_kernels(reader *r, json_t *arr, wb_capture *c) {
    c->n_kernels = json_array_size(arr);
    c->kernels = calloc(c->n_kernels ? c->n_kernels : 1, sizeof *c->kernels);
    for (size_t i = 0; i < c->n_kernels; i++) {
        json_t *o = json_array_get(arr, i);
        wb_kernel *k = &c->kernels[i];
        char where[64];
        snprintf(where, sizeof where, "kernels[%zu]", i);
        uint64_t regs = 0, ss = 0, ds = 0;
        if (!json_is_object(o)) return corrupt(r, where, "", "an object");
        if (get_str(r, o, where, "name", &k->name) || get_str(r, o, where, "mangled", &k->mangled) ||
            get_triple(r, o, where, "grid", k->grid) || get_triple(r, o, where, "block", k->block) ||
            get_u64(r, o, where, "start", &k->start) || get_u64(r, o, where, "end", &k->end) ||
            get_u32(r, o, where, "correlation_id", &k->correlation_id) || get_u32(r, o, where, "stream", &k->stream) ||
            get_u32(r, o, where, "graph_id", &k->graph_id) || get_u64(r, o, where, "registers_per_thread", &regs) ||
            get_u64(r, o, where, "static_shared_bytes", &ss) || get_u64(r, o, where, "dynamic_shared_bytes", &ds))
            return r->err->code;
        if (json_object_get(o, "cluster") && get_triple(r, o, where, "cluster", k->cluster)) return r->err->code;
        json_t *dev = json_object_get(o, "device");
        k->device = json_is_integer(dev) ? (uint32_t)json_integer_value(dev) : 0;
        k->registers_per_thread = (int)regs;
        k->static_shared = (int)ss;
        k->dynamic_shared = (int)ds;
        if (k->end < k->start) return corrupt(r, where, "end", "at or after start");
    }
    return 0;
}

static int read_ops(reader *r, json_t *copies, json_t *sets, wb_capture *c) {
    size_t nc = json_array_size(copies), ns = json_array_size(sets);
    c->n_ops = nc + ns;
    c->ops = calloc(c->n_ops ? c->n_ops : 1, sizeof *c->ops);
    for (size_t i = 0; i < c->n_ops; i++) {
        int is_copy = i < nc;
        json_t *o = is_copy ? json_array_get(copies, i) : json_array_get(sets, i - nc);
        wb_gpu_op *op = &c->ops[i];
        char where[64];
        snprintf(where, sizeof where, is_copy ? "memcpys[%zu]" : "memsets[%zu]", is_copy ? i : i - nc);
        if (!json_is_object(o)) return corrupt(r, where, "", "an object");
        op->kind = is_copy ? WB_GPU_MEMCPY : WB_GPU_MEMSET;
        if (get_u64(r, o, where, "bytes", &op->bytes) || get_u64(r, o, where, "start", &op->start) ||
            get_u64(r, o, where, "end", &op->end) || get_u32(r, o, where, "correlation_id", &op->correlation_id) ||
            get_u32(r, o, where, "stream", &op->stream) || get_u32(r, o, where, "graph_id", &op->graph_id))
            return r->err->code;
        if (is_copy) {
            const char *kind = json_string_value(json_object_get(o, "kind"));
            snprintf(op->copy_kind, sizeof op->copy_kind, "%s", kind ? kind : "?");
            /* Absent from captures older than the fields: unknown, never an error. */
            const char *src = json_string_value(json_object_get(o, "src_kind"));
            const char *dst = json_string_value(json_object_get(o, "dst_kind"));
            snprintf(op->src_kind, sizeof op->src_kind, "%s", src ? src : "");
            snprintf(op->dst_kind, sizeof op->dst_kind, "%s", dst ? dst : "");
            json_t *async = json_object_get(o, "async");
            op->async = json_is_boolean(async) ? json_is_true(async) : -1;
        }
    }
    return 0;
}

static int read_ranges(reader *r, json_t *arr, wb_capture *c) {
    c->n_ranges = json_array_size(arr);
    c->ranges = calloc(c->n_ranges ? c->n_ranges : 1, sizeof *c->ranges);
    for (size_t i = 0; i < c->n_ranges; i++) {
        json_t *o = json_array_get(arr, i);
        wb_range *g = &c->ranges[i];
        char where[64];
        snprintf(where, sizeof where, "ranges[%zu]", i);
        if (!json_is_object(o)) return corrupt(r, where, "", "an object");
        const char *kind = json_string_value(json_object_get(o, "kind"));
        if (!kind || (strcmp(kind, "range") && strcmp(kind, "mark"))) return corrupt(r, where, "kind", "\"range\" or \"mark\"");
        g->is_mark = !strcmp(kind, "mark");
        const char *name = json_string_value(json_object_get(o, "name"));
        g->name = strdup(name ? name : "");
        const char *domain = json_string_value(json_object_get(o, "domain"));
        g->domain = domain ? strdup(domain) : NULL;
        if (get_u64(r, o, where, "start", &g->start) || get_u32(r, o, where, "thread", &g->thread)) return r->err->code;
        json_t *end = json_object_get(o, "end");
        if (json_is_null(end)) g->end = WB_OPEN_END;
        else if (get_u64(r, o, where, "end", &g->end)) return r->err->code;
        if (g->end < g->start) return corrupt(r, where, "end", "at or after start");
    }
    return 0;
}

static int read_windows(reader *r, json_t *arr, wb_capture *c) {
    c->n_windows = json_array_size(arr);
    c->windows = calloc(c->n_windows ? c->n_windows : 1, sizeof *c->windows);
    for (size_t i = 0; i < c->n_windows; i++) {
        json_t *o = json_array_get(arr, i);
        char where[64];
        snprintf(where, sizeof where, "profiler_windows[%zu]", i);
        if (!json_is_object(o) || get_u64(r, o, where, "start", &c->windows[i].start)) return r->err->code ? r->err->code : corrupt(r, where, "", "an object");
        json_t *end = json_object_get(o, "end");
        if (json_is_null(end)) c->windows[i].end = WB_OPEN_END;
        else if (get_u64(r, o, where, "end", &c->windows[i].end)) return r->err->code;
    }
    return 0;
}

static long long int_or_minus_one(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

static int capture_from_json(reader *r, json_t *root, wb_capture *c) {
    memset(c, 0, sizeof *c);
    if (!json_is_object(root)) return wb_fail(r->err, WB_EXIT_INPUT, "%s: not a capture (the top level is not a JSON object)", r->what);
    const char *format = json_string_value(json_object_get(root, "format"));
    if (!format || strcmp(format, CAPTURE_FORMAT))
        return wb_fail(r->err, WB_EXIT_INPUT, "%s: not a gpu-workbench capture (format is %s%s%s)", r->what,
                       format ? "\"" : "", format ? format : "missing", format ? "\"" : "");
    json_t *version = json_object_get(root, "version");
    if (!json_is_integer(version) || json_integer_value(version) != FORMAT_VERSION)
        return wb_fail(r->err, WB_EXIT_INPUT, "%s: capture format version %lld, this grader reads version %d. Re-record it",
                       r->what, json_is_integer(version) ? (long long)json_integer_value(version) : -1LL, FORMAT_VERSION);

    c->complete = json_is_true(json_object_get(root, "complete"));
    c->cupti_enabled = json_is_true(json_object_get(root, "cupti_enabled"));
    c->nvtx_injected = json_is_string(json_object_get(root, "nvtx_injection"));
    json_t *process = json_object_get(root, "process");
    json_t *sig = json_object_get(process, "signal");
    c->signal = json_is_integer(sig) ? (int)json_integer_value(sig) : 0;
    const char *written = json_string_value(json_object_get(process, "written_at"));
    snprintf(c->written_at, sizeof c->written_at, "%s", written ? written : "");

    json_t *versions = json_object_get(root, "versions");
    c->driver_version = int_or_minus_one(versions, "driver");
    c->runtime_version = int_or_minus_one(versions, "runtime");
    c->cupti_version = int_or_minus_one(versions, "cupti");
    const char *cublas = json_string_value(json_object_get(versions, "cublas"));
    snprintf(c->cublas_version, sizeof c->cublas_version, "%s", cublas ? cublas : "");

    json_t *devices = json_object_get(root, "devices");
    json_t *dev0 = json_array_get(devices, 0);
    const char *gpu = json_string_value(json_object_get(dev0, "name"));
    const char *arch = json_string_value(json_object_get(dev0, "arch"));
    const char *cc = json_string_value(json_object_get(dev0, "compute_capability"));
    snprintf(c->gpu, sizeof c->gpu, "%s", gpu ? gpu : "unknown GPU");
    snprintf(c->arch, sizeof c->arch, "%s", arch ? arch : "unknown");
    snprintf(c->compute_capability, sizeof c->compute_capability, "%s", cc ? cc : "?");
    c->multiprocessors = (int)int_or_minus_one(dev0, "multiprocessors");

    uint64_t dropped = 0, lost = 0;
    if (get_u64(r, root, "", "dropped_records", &dropped)) return r->err->code;
    json_t *lost_v = json_object_get(root, "lost_records");
    if (json_is_integer(lost_v)) lost = (uint64_t)json_integer_value(lost_v);
    c->dropped_records = dropped;
    c->lost_records = lost;

    json_t *api = get_array(r, root, "api_calls"), *kernels = get_array(r, root, "kernels"),
           *memcpys = get_array(r, root, "memcpys"), *memsets = get_array(r, root, "memsets"),
           *ranges = get_array(r, root, "ranges"), *windows = get_array(r, root, "profiler_windows");
    if (!api || !kernels || !memcpys || !memsets || !ranges || !windows) return r->err->code;
    if (read_api(r, api, c) || read_kernels(r, kernels, c) || read_ops(r, memcpys, memsets, c) ||
        read_ranges(r, ranges, c) || read_windows(r, windows, c))
        return r->err->code;
    wb_capture_link(c);
    return 0;
}

/* ---- derived links ------------------------------------------------------------------------ */

typedef struct { uint32_t key; long index; } corr_entry;

static int corr_cmp(const void *a, const void *b) {
    uint32_t x = ((const corr_entry *)a)->key, y = ((const corr_entry *)b)->key;
    return (x > y) - (x < y);
}

/* Sorting by (thread, start, longest first) makes containment a stack walk. */
typedef struct { uint32_t thread; uint64_t start, end; long index; } span;

static int span_cmp(const void *a, const void *b) {
    const span *x = a, *y = b;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* For each span, the innermost earlier span on its thread that contains it (-1 if none). */
static void containment(span *s, size_t n, long *parent_of) {
    qsort(s, n, sizeof *s, span_cmp);
    long *stack = malloc((n + 1) * sizeof *stack);
    size_t top = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && s[i].thread != s[i - 1].thread) top = 0;
        while (top > 0 && !(s[stack[top - 1]].end >= s[i].end && s[stack[top - 1]].start <= s[i].start)) top--;
        parent_of[s[i].index] = top > 0 ? s[stack[top - 1]].index : -1;
        if (stack) stack[top++] = (long)i;
    }
    free(stack);
}

void wb_capture_link(wb_capture *c) {
    size_t n = c->n_api > c->n_ranges ? c->n_api : c->n_ranges;
    span *spans = malloc((n + 1) * sizeof *spans);
    long *parent = malloc((n + 1) * sizeof *parent);
    corr_entry *corr = malloc((c->n_api + 1) * sizeof *corr);
    if (!spans || !parent || !corr) goto out;

    /* API calls made inside another API call on the same thread were made by the library itself
     * (the runtime calling the driver): counted as part of the outer call, not on their own. */
    for (size_t i = 0; i < c->n_api; i++)
        spans[i] = (span){c->api[i].thread, c->api[i].start, c->api[i].end, (long)i};
    containment(spans, c->n_api, parent);
    for (size_t i = 0; i < c->n_api; i++) c->api[i].nested = parent[i] >= 0;

    /* kernel/memcpy/memset -> launching API call. Where several calls share a correlation id, the
     * outermost wins. */
    for (size_t i = 0; i < c->n_api; i++) corr[i] = (corr_entry){c->api[i].correlation_id, (long)i};
    qsort(corr, c->n_api, sizeof *corr, corr_cmp);
    for (size_t i = 0; i < c->n_kernels + c->n_ops; i++) {
        uint32_t id = i < c->n_kernels ? c->kernels[i].correlation_id : c->ops[i - c->n_kernels].correlation_id;
        corr_entry key = {id, 0};
        corr_entry *hit = c->n_api ? bsearch(&key, corr, c->n_api, sizeof *corr, corr_cmp) : NULL;
        long api = -1;
        if (hit) {
            while (hit > corr && hit[-1].key == id) hit--;
            for (; hit < corr + c->n_api && hit->key == id; hit++)
                if (api < 0 || (c->api[api].nested && !c->api[hit->index].nested)) api = hit->index;
        }
        if (i < c->n_kernels) c->kernels[i].api = api;
        else c->ops[i - c->n_kernels].api = api;
    }

    for (size_t i = 0; i < c->n_ranges; i++)
        spans[i] = (span){c->ranges[i].thread, c->ranges[i].start, c->ranges[i].end, (long)i};
    containment(spans, c->n_ranges, parent);
    for (size_t i = 0; i < c->n_ranges; i++) c->ranges[i].parent = c->ranges[i].is_mark ? -1 : parent[i];
    /* parents come earlier in the sorted walk, so depths resolve through the parent chain */
    for (size_t i = 0; i < c->n_ranges; i++) {
        int depth = 0;
        for (long p = c->ranges[i].parent; p >= 0 && depth < 1000; p = c->ranges[p].parent) depth++;
        c->ranges[i].depth = depth;
    }

out:
    free(spans);
    free(parent);
    free(corr);
    uint64_t t0 = UINT64_MAX;
    for (size_t i = 0; i < c->n_api; i++) if (c->api[i].start < t0) t0 = c->api[i].start;
    for (size_t i = 0; i < c->n_kernels; i++) if (c->kernels[i].start < t0) t0 = c->kernels[i].start;
    for (size_t i = 0; i < c->n_ops; i++) if (c->ops[i].start < t0) t0 = c->ops[i].start;
    for (size_t i = 0; i < c->n_ranges; i++) if (c->ranges[i].start < t0) t0 = c->ranges[i].start;
    c->t0 = t0 == UINT64_MAX ? 0 : t0;
}

/* ---- loading --------------------------------------------------------------------------------- */

static json_t *parse_json(const char *what, const char *data, size_t length, wb_error *err) {
    json_error_t jerr;
    if (length == 0) {
        wb_fail(err, WB_EXIT_INPUT, "%s: the capture file is empty (the lesson may have been killed before it could write)", what);
        return NULL;
    }
    json_t *root = json_loadb(data, length, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        wb_fail_at(err, WB_EXIT_INPUT, what, jerr.line, jerr.column, "not valid JSON: %s (the file is truncated or corrupt; "
                   "re-record it)", jerr.text);
    return root;
}

static char *slurp(const char *path, size_t *length, wb_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        wb_fail(err, WB_EXIT_INPUT, "%s: cannot open the capture file", path);
        return NULL;
    }
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *p = realloc(buf, cap *= 2);
            if (!p) { free(buf); buf = NULL; }
            else buf = p;
        }
    }
    fclose(f);
    if (!buf) wb_fail(err, WB_EXIT_INPUT, "%s: out of memory reading it", path);
    *length = n;
    return buf;
}

int wb_capture_load_buffer(const char *what, const char *data, size_t length, wb_capture *out, wb_error *err) {
    memset(out, 0, sizeof *out);
    json_t *root = parse_json(what, data, length, err);
    if (!root) return err->code;
    reader r = {what, err};
    int rc = capture_from_json(&r, root, out);
    json_decref(root);
    return rc;
}

int wb_capture_load(const char *path, wb_capture *out, wb_error *err) {
    size_t n = 0;
    memset(out, 0, sizeof *out);
    char *data = slurp(path, &n, err);
    if (!data) return err->code;
    int rc = wb_capture_load_buffer(path, data, n, out, err);
    free(data);
    return rc;
}

void wb_capture_free(wb_capture *c) {
    for (size_t i = 0; i < c->n_api; i++) free(c->api[i].name);
    for (size_t i = 0; i < c->n_kernels; i++) {
        free(c->kernels[i].name);
        free(c->kernels[i].mangled);
    }
    for (size_t i = 0; i < c->n_ranges; i++) {
        free(c->ranges[i].name);
        free(c->ranges[i].domain);
    }
    free(c->api);
    free(c->kernels);
    free(c->ops);
    free(c->ranges);
    free(c->windows);
    memset(c, 0, sizeof *c);
}

/* ---- recordings ------------------------------------------------------------------------------- */

void wb_repeat_free(wb_repeat *r) {
    for (size_t i = 0; i < r->n; i++) {
        free(r->items[i].variant);
        free(r->items[i].range);
        free(r->items[i].gpu_us);
        free(r->items[i].wall_us);
    }
    free(r->items);
    memset(r, 0, sizeof *r);
}

static int calibration_from(reader *r, json_t *o, wb_calibration *c) {
    memset(c, 0, sizeof *c);
    json_t *bw = json_object_get(o, "copy_bytes_per_s"), *mm = json_object_get(o, "matrix_flops_per_s");
    if (!json_is_number(bw) || json_number_value(bw) <= 0) return corrupt(r, "calibration", "copy_bytes_per_s", "a positive number");
    if (!json_is_number(mm) || json_number_value(mm) <= 0) return corrupt(r, "calibration", "matrix_flops_per_s", "a positive number");
    c->copy_bytes_per_s = json_number_value(bw);
    c->matrix_flops_per_s = json_number_value(mm);
    const char *gpu = json_string_value(json_object_get(o, "gpu")), *method = json_string_value(json_object_get(o, "method"));
    snprintf(c->gpu, sizeof c->gpu, "%s", gpu ? gpu : "");
    snprintf(c->method, sizeof c->method, "%s", method ? method : "");
    c->present = 1;
    return 0;
}

int wb_calibration_from_json(const char *what, const char *data, size_t length, wb_calibration *out, wb_error *err) {
    memset(out, 0, sizeof *out);
    json_t *root = parse_json(what, data, length, err);
    if (!root) return err->code;
    reader r = {what, err};
    int rc = calibration_from(&r, root, out);
    json_decref(root);
    return rc;
}

static int doubles_from(reader *r, json_t *arr, const char *where, const char *key, double **out, size_t n) {
    if (!json_is_array(arr) || json_array_size(arr) != n) return corrupt(r, where, key, "a list as long as the other");
    *out = calloc(n + 1, sizeof **out);
    if (!*out) return wb_fail(r->err, WB_EXIT_INPUT, "out of memory");
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(arr, i);
        if (!json_is_number(v) || json_number_value(v) < 0) return corrupt(r, where, key, "a list of non-negative numbers");
        (*out)[i] = json_number_value(v);
    }
    return 0;
}

/* "repeats": [{"ranges": [{"variant", "range", "gpu_us": [...], "wall_us": [...]}]}] */
static int repeats_from(reader *r, json_t *arr, wb_recording *rec) {
    if (!arr) return 0;
    if (!json_is_array(arr)) return corrupt(r, "", "repeats", "a list");
    rec->repeats = calloc(json_array_size(arr) + 1, sizeof *rec->repeats);
    if (!rec->repeats) return wb_fail(r->err, WB_EXIT_INPUT, "out of memory");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        wb_repeat *rep = &rec->repeats[i];
        rec->n_repeats = i + 1;
        json_t *ranges = json_object_get(json_array_get(arr, i), "ranges");
        char where[64];
        snprintf(where, sizeof where, "repeats[%zu]", i);
        if (!json_is_array(ranges)) return corrupt(r, where, "ranges", "a list");
        rep->items = calloc(json_array_size(ranges) + 1, sizeof *rep->items);
        if (!rep->items) return wb_fail(r->err, WB_EXIT_INPUT, "out of memory");
        for (size_t j = 0; j < json_array_size(ranges); j++) {
            json_t *o = json_array_get(ranges, j);
            wb_range_times *t = &rep->items[j];
            rep->n = j + 1;
            snprintf(where, sizeof where, "repeats[%zu].ranges[%zu]", i, j);
            if (get_str(r, o, where, "variant", &t->variant) || get_str(r, o, where, "range", &t->range)) return r->err->code;
            json_t *gpu = json_object_get(o, "gpu_us");
            t->n = json_array_size(gpu);
            if (doubles_from(r, gpu, where, "gpu_us", &t->gpu_us, t->n) ||
                doubles_from(r, json_object_get(o, "wall_us"), where, "wall_us", &t->wall_us, t->n))
                return r->err->code;
        }
    }
    return 0;
}

void wb_recording_free(wb_recording *rec) {
    for (size_t i = 0; i < rec->n_repeats; i++) wb_repeat_free(&rec->repeats[i]);
    free(rec->repeats);
    for (size_t i = 0; i < rec->n_runs; i++) {
        wb_run *run = &rec->runs[i];
        free(run->output);
        free(run->variant);
        for (size_t j = 0; j < run->n_args; j++) free(run->args[j]);
        free(run->args);
        wb_capture_free(&run->capture);
    }
    free(rec->runs);
    free(rec->path);
    free(rec->lesson);
    free(rec->recorded_at);
    memset(rec, 0, sizeof *rec);
}

int wb_recording_load_buffer(const char *what, const char *data, size_t length, wb_recording *rec, wb_error *err) {
    memset(rec, 0, sizeof *rec);
    json_t *root = parse_json(what, data, length, err);
    if (!root) return err->code;
    reader r = {what, err};
    int rc = 0;
    const char *format = json_string_value(json_object_get(root, "format"));
    json_t *version = json_object_get(root, "version");
    json_t *runs = json_object_get(root, "runs");
    if (!format || strcmp(format, RECORDING_FORMAT)) {
        rc = wb_fail(err, WB_EXIT_INPUT, "%s: not a gpu-workbench recording (format is %s)", what, format ? format : "missing");
        goto out;
    }
    if (!json_is_integer(version) || json_integer_value(version) != FORMAT_VERSION) {
        rc = wb_fail(err, WB_EXIT_INPUT, "%s: recording format version is not %d; re-record it with grader record", what, FORMAT_VERSION);
        goto out;
    }
    if ((rc = get_str(&r, root, "", "lesson", &rec->lesson)) || (rc = get_str(&r, root, "", "recorded_at", &rec->recorded_at)))
        goto out;
    if (!json_is_array(runs) || json_array_size(runs) == 0) {
        rc = corrupt(&r, "", "runs", "a non-empty list");
        goto out;
    }
    rec->runs = calloc(json_array_size(runs), sizeof *rec->runs);
    for (size_t i = 0; i < json_array_size(runs) && rec->runs; i++) {
        json_t *o = json_array_get(runs, i);
        wb_run *run = &rec->runs[i];
        rec->n_runs = i + 1;
        char where[64];
        snprintf(where, sizeof where, "runs[%zu]", i);
        if ((rc = get_str(&r, o, where, "variant", &run->variant))) goto out;
        json_t *args = json_object_get(o, "args");
        run->n_args = json_array_size(args);
        run->args = calloc(run->n_args + 1, sizeof *run->args);
        for (size_t j = 0; j < run->n_args; j++) {
            const char *a = json_string_value(json_array_get(args, j));
            run->args[j] = strdup(a ? a : "");
        }
        json_t *code = json_object_get(o, "exit_code"), *sig = json_object_get(o, "signal");
        run->exit_code = json_is_integer(code) ? (int)json_integer_value(code) : -1;
        run->signal = json_is_integer(sig) ? (int)json_integer_value(sig) : 0;
        const char *output = json_string_value(json_object_get(o, "output"));
        if (output) run->output = strdup(output);
        char capture_what[512];
        snprintf(capture_what, sizeof capture_what, "%s (run '%s')", what, run->variant);
        reader cr = {capture_what, err};
        if ((rc = capture_from_json(&cr, json_object_get(o, "capture"), &run->capture))) goto out;
    }
    json_t *cal = json_object_get(root, "calibration");
    if (cal && (rc = calibration_from(&r, cal, &rec->calibration))) goto out;
    rc = repeats_from(&r, json_object_get(root, "repeats"), rec);
out:
    json_decref(root);
    return rc;
}

int wb_recording_load(const char *path, wb_recording *rec, wb_error *err) {
    size_t n = 0;
    memset(rec, 0, sizeof *rec);
    char *data = slurp(path, &n, err);
    if (!data) return err->code;
    int rc = wb_recording_load_buffer(path, data, n, rec, err);
    free(data);
    if (!rc) rec->path = strdup(path);
    return rc;
}

const wb_run *wb_recording_run(const wb_recording *r, const char *variant) {
    for (size_t i = 0; i < r->n_runs; i++)
        if (!strcmp(r->runs[i].variant, variant)) return &r->runs[i];
    return NULL;
}

static json_t *doubles_json(const double *v, size_t n) {
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, json_real(v[i]));
    return a;
}

static void extras_json(json_t *root, const wb_recording_extras *x) {
    if (!x) return;
    const wb_calibration *c = x->calibration;
    if (c && c->present)
        json_object_set_new(root, "calibration", json_pack("{s:f, s:f, s:s, s:s}", "copy_bytes_per_s", c->copy_bytes_per_s,
                                                           "matrix_flops_per_s", c->matrix_flops_per_s, "gpu", c->gpu,
                                                           "method", c->method));
    if (!x->n_repeats) return;
    json_t *reps = json_array();
    for (size_t i = 0; i < x->n_repeats; i++) {
        json_t *ranges = json_array();
        for (size_t j = 0; j < x->repeats[i].n; j++) {
            const wb_range_times *t = &x->repeats[i].items[j];
            json_array_append_new(ranges, json_pack("{s:s, s:s, s:o, s:o}", "variant", t->variant, "range", t->range, "gpu_us",
                                                    doubles_json(t->gpu_us, t->n), "wall_us", doubles_json(t->wall_us, t->n)));
        }
        json_array_append_new(reps, json_pack("{s:o}", "ranges", ranges));
    }
    json_object_set_new(root, "repeats", reps);
}

int wb_recording_write(const char *path, const char *lesson, const char *recorded_at, const wb_run *runs,
                       const char *const *capture_paths, size_t n_runs, const wb_recording_extras *extras, wb_error *err) {
    json_t *root = json_pack("{s:s, s:i, s:s, s:s}", "format", RECORDING_FORMAT, "version", FORMAT_VERSION,
                             "lesson", lesson, "recorded_at", recorded_at);
    json_t *arr = json_array();
    int rc = 0;
    for (size_t i = 0; i < n_runs; i++) {
        json_error_t jerr;
        json_t *cap = json_load_file(capture_paths[i], 0, &jerr);
        if (!cap) {
            rc = wb_fail_at(err, WB_EXIT_CAPTURE, capture_paths[i], jerr.line, jerr.column, "cannot read the capture: %s", jerr.text);
            break;
        }
        json_t *args = json_array();
        for (size_t j = 0; j < runs[i].n_args; j++) json_array_append_new(args, json_string(runs[i].args[j]));
        json_t *run = json_pack("{s:s, s:o, s:i, s:o, s:o}", "variant", runs[i].variant, "args", args, "exit_code",
                                runs[i].exit_code, "signal", runs[i].signal ? json_integer(runs[i].signal) : json_null(), "capture", cap);
        if (runs[i].output) json_object_set_new(run, "output", json_string(runs[i].output));
        json_array_append_new(arr, run);
    }
    json_object_set_new(root, "runs", arr);
    extras_json(root, extras);
    if (!rc) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.partial", path);
        if (json_dump_file(root, tmp, JSON_COMPACT) != 0 || rename(tmp, path) != 0)
            rc = wb_fail(err, WB_EXIT_INPUT, "%s: cannot write the recording (is the folder writable?)", path);
    }
    json_decref(root);
    return rc;
}
