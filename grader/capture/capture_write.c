/*
 * capture_write.c: the capture file, built with jansson (no hand-made JSON).
 *
 * Also reads what the process itself can say about its software: the driver version (libcuda),
 * and the runtime, cuBLAS and cuBLASLt versions of the copies the program actually loaded, found
 * with dlsym (in the global scope, else in the loaded library itself) so that the capture library
 * depends on none of them. Demangling uses the C++ ABI's
 * __cxa_demangle from libstdc++, once per distinct kernel name.
 */
#define _GNU_SOURCE
#include "capture_write.h"
#include "capture_store.h"

#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <jansson.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WB_CAPTURE_FORMAT "gpu-workbench-capture"
#define WB_CAPTURE_VERSION 1

/* From libstdc++'s <cxxabi.h>, which is C++ only; the function itself has C linkage. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* ---- versions of the loaded libraries --------------------------------------------------- */

static json_t *int_or_null(int ok, long long v) { return ok ? json_integer(v) : json_null(); }

/* Where a library the process loaded is, found by the start of its file name ("libcublas.so"),
 * into buf; dl_iterate_phdr's callback. */
typedef struct {
    const char *stem;
    char path[4096];
} loaded_search;

static int find_loaded(struct dl_phdr_info *info, size_t size, void *data) {
    loaded_search *s = data;
    const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    base = base ? base + 1 : info->dlpi_name;
    if (!base || strncmp(base, s->stem, strlen(s->stem)) != 0) return 0;
    snprintf(s->path, sizeof s->path, "%s", info->dlpi_name);
    return 1;
}

/* A function of a library the process loaded: from the global scope, else from the library
 * itself. PyTorch loads cuBLAS as a dependency of an extension module opened RTLD_LOCAL, where
 * dlsym(RTLD_DEFAULT) cannot see it. NULL when the library is not loaded. */
static void *loaded_symbol(const char *symbol, const char *library_stem) {
    void *f = dlsym(RTLD_DEFAULT, symbol);
    if (f) return f;
    loaded_search s = {library_stem, ""};
    if (!dl_iterate_phdr(find_loaded, &s)) return NULL;
    void *lib = dlopen(s.path, RTLD_NOW | RTLD_NOLOAD); /* never loads a library the program did not */
    if (!lib) return NULL;
    f = dlsym(lib, symbol);
    dlclose(lib);
    return f;
}

static json_t *library_version_triplet(const char *symbol, const char *library_stem) {
    /* cublasGetProperty / cublasLtGetProperty(libraryPropertyType, int*) : 0 major, 1 minor, 2 patch */
    typedef int (*get_property_fn)(int, int *);
    get_property_fn get = (get_property_fn)loaded_symbol(symbol, library_stem);
    int v[3];
    if (!get) return json_null();
    for (int i = 0; i < 3; i++)
        if (get(i, &v[i]) != 0) return json_null();
    char buf[64];
    snprintf(buf, sizeof buf, "%d.%d.%d", v[0], v[1], v[2]);
    return json_string(buf);
}

static json_t *versions_json(void) {
    json_t *v = json_object();
    /* Each call is made before its value is read: argument evaluation order is unspecified. */
    int driver = 0;
    int driver_ok = cuDriverGetVersion(&driver) == CUDA_SUCCESS;
    json_object_set_new(v, "driver", int_or_null(driver_ok, driver));

    typedef int (*runtime_version_fn)(int *);
    runtime_version_fn rt = (runtime_version_fn)loaded_symbol("cudaRuntimeGetVersion", "libcudart.so");
    int runtime = 0;
    int runtime_ok = rt && rt(&runtime) == 0;
    json_object_set_new(v, "runtime", int_or_null(runtime_ok, runtime));

    uint32_t cupti = 0;
    int cupti_ok_ = cuptiGetVersion(&cupti) == CUPTI_SUCCESS;
    json_object_set_new(v, "cupti", int_or_null(cupti_ok_, cupti));
    json_object_set_new(v, "cublas", library_version_triplet("cublasGetProperty", "libcublas.so"));
    json_object_set_new(v, "cublaslt", library_version_triplet("cublasLtGetProperty", "libcublasLt.so"));
    json_object_set_new(v, "cupti_headers", json_integer(CUPTI_API_VERSION));
    return v;
}

/* ---- process ---------------------------------------------------------------------------- */

static json_t *argv_json(void) {
    json_t *argv = json_array();
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f) return argv;
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    for (size_t i = 0; i < n; i += strlen(buf + i) + 1) json_array_append_new(argv, json_string(buf + i));
    return argv;
}

static json_t *process_json(const wb_capture_meta *meta) {
    json_t *p = json_object();
    json_object_set_new(p, "pid", json_integer(getpid()));
    json_object_set_new(p, "argv", argv_json());
    char when[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_object_set_new(p, "written_at", json_string(when));
    json_object_set_new(p, "signal", meta->signal_number ? json_integer(meta->signal_number) : json_null());
    return p;
}

/* ---- devices ---------------------------------------------------------------------------- */

static json_t *devices_json(const wb_store *s) {
    json_t *arr = json_array();
    for (size_t i = 0; i < s->n_devices; i++) {
        const wb_rec_device *d = &s->devices[i];
        char cc[16], arch[16];
        snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
        snprintf(arch, sizeof arch, "sm_%d%d", d->cc_major, d->cc_minor);
        json_array_append_new(arr, json_pack("{s:i, s:s, s:s, s:s, s:i, s:I}", "id", (int)d->id,
                                             "name", d->name, "compute_capability", cc, "arch", arch,
                                             "multiprocessors", (int)d->multiprocessors,
                                             "memory_bytes", (json_int_t)d->global_memory_bytes));
    }
    return arr;
}

/* ---- records ---------------------------------------------------------------------------- */

static const char *api_domain_name(wb_api_domain d) { return d == WB_API_DRIVER ? "driver" : "runtime"; }

static json_t *api_json(const wb_store *s) {
    json_t *arr = json_array();
    for (size_t i = 0; i < s->n_api; i++) {
        const wb_rec_api *a = &s->api[i];
        json_array_append_new(arr, json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I}",
                                             "name", a->name ? a->name : "?",
                                             "domain", api_domain_name(a->domain),
                                             "start", (json_int_t)a->start, "end", (json_int_t)a->end,
                                             "correlation_id", (json_int_t)a->correlation_id,
                                             "thread", (json_int_t)a->thread_id,
                                             "return", (json_int_t)a->return_value));
    }
    return arr;
}

/* One demangled copy per distinct (interned) mangled pointer. */
typedef struct { const char *mangled; char *demangled; } demangle_entry;
typedef struct { demangle_entry *items; size_t n, cap; } demangle_cache;

static const char *demangle_cached(demangle_cache *c, const char *mangled) {
    for (size_t i = 0; i < c->n; i++)
        if (c->items[i].mangled == mangled) return c->items[i].demangled ? c->items[i].demangled : mangled;
    int status = 0;
    char *d = __cxa_demangle(mangled, NULL, NULL, &status);
    if (status != 0) d = NULL; /* not a C++ name (extern "C" kernel, nvjet): keep it as is */
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        demangle_entry *p = realloc(c->items, cap * sizeof *p);
        if (!p) { free(d); return mangled; }
        c->items = p;
        c->cap = cap;
    }
    c->items[c->n++] = (demangle_entry){mangled, d};
    return d ? d : mangled;
}

static void demangle_cache_free(demangle_cache *c) {
    for (size_t i = 0; i < c->n; i++) free(c->items[i].demangled);
    free(c->items);
}

static json_t *triple(long long a, long long b, long long c) { return json_pack("[I,I,I]", a, b, c); }

static json_t *kernels_json(const wb_store *s) {
    json_t *arr = json_array();
    demangle_cache cache = {0};
    for (size_t i = 0; i < s->n_kernels; i++) {
        const wb_rec_kernel *k = &s->kernels[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(demangle_cached(&cache, k->mangled)));
        json_object_set_new(o, "mangled", json_string(k->mangled));
        json_object_set_new(o, "grid", triple(k->grid[0], k->grid[1], k->grid[2]));
        json_object_set_new(o, "block", triple(k->block[0], k->block[1], k->block[2]));
        json_object_set_new(o, "cluster", triple(k->cluster[0], k->cluster[1], k->cluster[2]));
        json_object_set_new(o, "registers_per_thread", json_integer(k->registers_per_thread));
        json_object_set_new(o, "static_shared_bytes", json_integer(k->static_shared));
        json_object_set_new(o, "dynamic_shared_bytes", json_integer(k->dynamic_shared));
        json_object_set_new(o, "device", json_integer(k->device_id));
        json_object_set_new(o, "stream", json_integer(k->stream_id));
        json_object_set_new(o, "start", json_integer((json_int_t)k->start));
        json_object_set_new(o, "end", json_integer((json_int_t)k->end));
        json_object_set_new(o, "correlation_id", json_integer(k->correlation_id));
        json_object_set_new(o, "graph_id", json_integer(k->graph_id));
        json_object_set_new(o, "graph_node_id", json_integer((json_int_t)k->graph_node_id));
        json_array_append_new(arr, o);
    }
    demangle_cache_free(&cache);
    return arr;
}

static const char *copy_kind_name(uint8_t kind) {
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "unknown";
    }
}

/* Where a copy's source or destination lives. "pageable" host memory makes the driver stage the
 * copy through a pinned buffer of its own, which is what keeps an "async" copy from overlapping. */
static const char *memory_kind_name(uint8_t kind) {
    switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return "pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return "pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return "device";
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return "array";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return "managed";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return "device_static";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return "managed_static";
    default: return "unknown";
    }
}

static json_t *memcpys_json(const wb_store *s) {
    json_t *arr = json_array();
    for (size_t i = 0; i < s->n_memcpys; i++) {
        const wb_rec_memcpy *m = &s->memcpys[i];
        json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:b, s:I, s:i, s:i, s:I, s:I, s:I, s:I}",
                                             "kind", copy_kind_name(m->copy_kind),
                                             "src_kind", memory_kind_name(m->src_kind),
                                             "dst_kind", memory_kind_name(m->dst_kind), "async", (int)m->async,
                                             "bytes", (json_int_t)m->bytes, "device", (int)m->device_id,
                                             "stream", (int)m->stream_id, "start", (json_int_t)m->start,
                                             "end", (json_int_t)m->end,
                                             "correlation_id", (json_int_t)m->correlation_id,
                                             "graph_id", (json_int_t)m->graph_id));
    }
    return arr;
}

static json_t *memsets_json(const wb_store *s) {
    json_t *arr = json_array();
    for (size_t i = 0; i < s->n_memsets; i++) {
        const wb_rec_memset *m = &s->memsets[i];
        json_array_append_new(arr, json_pack("{s:I, s:I, s:i, s:i, s:I, s:I, s:I, s:I}",
                                             "bytes", (json_int_t)m->bytes, "value", (json_int_t)m->value,
                                             "device", (int)m->device_id, "stream", (int)m->stream_id,
                                             "start", (json_int_t)m->start, "end", (json_int_t)m->end,
                                             "correlation_id", (json_int_t)m->correlation_id,
                                             "graph_id", (json_int_t)m->graph_id));
    }
    return arr;
}

/* NVTX: pair each range's start and end record by id. Ranges still open at exit get end null
 * (a crash inside a range); instantaneous marks become kind "mark". Ends are sorted by id and
 * found by binary search: a training step emits thousands of ranges. */
typedef struct { uint32_t id; uint64_t timestamp; } marker_end;

static int marker_end_cmp(const void *a, const void *b) {
    uint32_t x = ((const marker_end *)a)->id, y = ((const marker_end *)b)->id;
    return (x > y) - (x < y);
}

static json_t *ranges_json(const wb_store *s) {
    json_t *arr = json_array();
    marker_end *ends = malloc((s->n_markers + 1) * sizeof *ends);
    size_t n_ends = 0;
    for (size_t i = 0; ends && i < s->n_markers; i++)
        if (s->markers[i].flags & CUPTI_ACTIVITY_FLAG_MARKER_END)
            ends[n_ends++] = (marker_end){s->markers[i].id, s->markers[i].timestamp};
    if (ends) qsort(ends, n_ends, sizeof *ends, marker_end_cmp);

    for (size_t i = 0; i < s->n_markers; i++) {
        const wb_rec_marker *m = &s->markers[i];
        if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
            json_array_append_new(arr, json_pack("{s:s, s:s?, s:s?, s:I, s:I, s:I}", "kind", "mark",
                                                 "name", m->name, "domain", m->domain,
                                                 "start", (json_int_t)m->timestamp,
                                                 "end", (json_int_t)m->timestamp,
                                                 "thread", (json_int_t)m->thread_id));
            continue;
        }
        if (!(m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START)) continue;
        marker_end key = {m->id, 0};
        const marker_end *e = ends ? bsearch(&key, ends, n_ends, sizeof *ends, marker_end_cmp) : NULL;
        json_t *end = e ? json_integer((json_int_t)e->timestamp) : json_null();
        json_array_append_new(arr, json_pack("{s:s, s:s?, s:s?, s:I, s:o, s:I, s:I}", "kind", "range",
                                             "name", m->name, "domain", m->domain,
                                             "start", (json_int_t)m->timestamp, "end", end,
                                             "thread", (json_int_t)m->thread_id, "id", (json_int_t)m->id));
    }
    free(ends);
    return arr;
}

/* The cudaProfilerStart/cudaProfilerStop pairs, from the API records: a window opens when a
 * start call returns and closes when a stop call begins. */
static json_t *profiler_windows_json(const wb_store *s) {
    json_t *arr = json_array();
    int open = 0;
    uint64_t open_at = 0;
    /* API records arrive per buffer, roughly but not strictly in time order: scan in time order. */
    for (;;) {
        const wb_rec_api *next = NULL;
        for (size_t i = 0; i < s->n_api; i++) {
            const wb_rec_api *a = &s->api[i];
            if (!a->name) continue;
            int is_start = strcmp(a->name, "cudaProfilerStart") == 0 || strcmp(a->name, "cuProfilerStart") == 0;
            int is_stop = strcmp(a->name, "cudaProfilerStop") == 0 || strcmp(a->name, "cuProfilerStop") == 0;
            if (!(open ? is_stop : is_start)) continue;
            uint64_t t = open ? a->start : a->end;
            if (t < open_at) continue;
            if (!next || (open ? next->start : next->end) > t) next = a;
        }
        if (!next) break;
        if (open) {
            json_array_append_new(arr, json_pack("{s:I, s:I}", "start", (json_int_t)open_at, "end", (json_int_t)next->start));
            open_at = next->start + 1;
        } else {
            open_at = next->end;
        }
        open = !open;
    }
    if (open) json_array_append_new(arr, json_pack("{s:I, s:n}", "start", (json_int_t)open_at, "end"));
    return arr;
}

int wb_capture_write(const char *path, const wb_capture_meta *meta, char *err, size_t err_cap) {
    json_t *root = json_object();
    json_object_set_new(root, "format", json_string(WB_CAPTURE_FORMAT));
    json_object_set_new(root, "version", json_integer(WB_CAPTURE_VERSION));
    json_object_set_new(root, "complete", json_boolean(meta->signal_number == 0));
    json_object_set_new(root, "cupti_enabled", json_boolean(meta->cupti_enabled));
    json_object_set_new(root, "nvtx_injection", meta->nvtx_injection ? json_string(meta->nvtx_injection) : json_null());
    if (meta->rank >= 0) { /* a rank of a multi-process lesson: the grader merges the ranks' files */
        json_object_set_new(root, "rank", json_integer(meta->rank));
        json_object_set_new(root, "world_size", meta->world_size >= 0 ? json_integer(meta->world_size) : json_null());
    }
    json_object_set_new(root, "clock", json_pack("{s:s, s:I}", "unit", "ns", "cupti_start", (json_int_t)meta->cupti_start_ns));
    json_object_set_new(root, "process", process_json(meta));
    json_object_set_new(root, "versions", versions_json());

    wb_store_lock();
    const wb_store *s = wb_store_get();
    json_object_set_new(root, "devices", devices_json(s));
    json_object_set_new(root, "dropped_records", json_integer((json_int_t)s->dropped_records));
    json_object_set_new(root, "lost_records", json_integer((json_int_t)s->out_of_memory));
    json_object_set_new(root, "profiler_windows", profiler_windows_json(s));
    json_object_set_new(root, "api_calls", api_json(s));
    json_object_set_new(root, "kernels", kernels_json(s));
    json_object_set_new(root, "memcpys", memcpys_json(s));
    json_object_set_new(root, "memsets", memsets_json(s));
    json_object_set_new(root, "ranges", ranges_json(s));
    wb_store_unlock();

    /* Write beside the target and rename, so a reader never sees half a file. */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    int rc = json_dump_file(root, tmp, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(root);
    if (rc != 0) {
        snprintf(err, err_cap, "writing %s failed", tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, err_cap, "renaming %s to %s failed", tmp, path);
        return -1;
    }
    return 0;
}
