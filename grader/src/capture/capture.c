/*
 * capture.c: reads captures and recordings one record at a time (json_stream.h), checking every
 * field it uses, into the compact structs of capture.h. The links and lookups are made in
 * capture_link.c; recordings are written in recording_write.c.
 */
#define _GNU_SOURCE
#include "capture.h"
#include "capture_record.h"
#include "wb_base.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAPTURE_FORMAT "gpu-workbench-capture"
#define RECORDING_FORMAT "gpu-workbench-recording"
#define FORMAT_VERSION 1

/* ---- names: each distinct string stored once ------------------------------------------------ */

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    char data[];
} chunk;

struct wb_strings {
    char **slots;        /* open addressing; NULL is empty */
    size_t n_slots, used;
    chunk *chunks;
};

static uint64_t hash_bytes(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static int grow_slots(wb_strings *p) {
    size_t n = p->n_slots ? p->n_slots * 2 : 1024;
    char **slots = calloc(n, sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < p->n_slots; i++) {
        char *s = p->slots[i];
        if (!s) continue;
        size_t j = hash_bytes(s, strlen(s)) & (n - 1);
        while (slots[j]) j = (j + 1) & (n - 1);
        slots[j] = s;
    }
    free(p->slots);
    p->slots = slots;
    p->n_slots = n;
    return 0;
}

static char *store(wb_strings *p, const char *s, size_t n) {
    chunk *c = p->chunks;
    if (!c || c->cap - c->used < n + 1) {
        size_t cap = n + 1 > 65536 ? n + 1 : 65536;
        c = malloc(sizeof *c + cap);
        if (!c) return NULL;
        c->next = p->chunks;
        c->used = 0;
        c->cap = cap;
        p->chunks = c;
    }
    char *out = c->data + c->used;
    memcpy(out, s, n);
    out[n] = '\0';
    c->used += n + 1;
    return out;
}

char *wb_capture_intern(wb_capture *cap, const char *s, size_t n) {
    if (!cap->strings && !(cap->strings = calloc(1, sizeof *cap->strings))) return NULL;
    wb_strings *p = cap->strings;
    if ((p->used + 1) * 2 > p->n_slots && grow_slots(p)) return NULL;
    size_t j = hash_bytes(s, n) & (p->n_slots - 1);
    for (; p->slots[j]; j = (j + 1) & (p->n_slots - 1))
        if (!strncmp(p->slots[j], s, n) && p->slots[j][n] == '\0') return p->slots[j];
    char *copy = store(p, s, n);
    if (!copy) return NULL;
    p->slots[j] = copy;
    p->used++;
    return copy;
}

static void strings_free(wb_strings *p) {
    if (!p) return;
    for (chunk *c = p->chunks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(p->slots);
    free(p);
}

/* ---- field readers: every missing or mistyped field is one clear error ------------------ */

typedef struct {
    const char *what;   /* the file (and run), for messages */
    wb_error *err;
    wb_capture *c;      /* where names are interned */
} reader;

static int corrupt(reader *r, const char *where, const char *field, const char *expected) {
    if (!*where)
        return wb_fail(r->err, WB_EXIT_INPUT,
                       _("%s: corrupt capture: field '%s' is missing or not %s. Re-record it (grader record) or "
                         "re-run grader check"), r->what, field, _(expected));
    return wb_fail(r->err, WB_EXIT_INPUT,
                   _("%s: corrupt capture: %s field '%s' is missing or not %s. Re-record it (grader record) or "
                     "re-run grader check"), r->what, where, field, _(expected));
}

static int out_of_memory(reader *r) {
    return wb_fail(r->err, WB_EXIT_INPUT, _("%s: out of memory while reading it; nothing was graded. Free some memory, or "
                   "record fewer steps"), r->what);
}

static int get_u64(reader *r, const wb_record *o, const char *where, const char *key, uint64_t *out) {
    wb_val v = wb_record_get(o, key);
    if (v.kind != WB_V_INT || v.i < 0) return corrupt(r, where, key, N_("a non-negative integer"));
    *out = (uint64_t)v.i;
    return 0;
}

static int get_u32(reader *r, const wb_record *o, const char *where, const char *key, uint32_t *out) {
    uint64_t v = 0;
    if (get_u64(r, o, where, key, &v)) return r->err->code;
    if (v > UINT32_MAX) return corrupt(r, where, key, N_("a 32-bit integer"));
    *out = (uint32_t)v;
    return 0;
}

/* A name, interned in the capture. */
static int get_name(reader *r, const wb_record *o, const char *where, const char *key, char **out) {
    wb_val v = wb_record_get(o, key);
    if (v.kind != WB_V_STR) return corrupt(r, where, key, N_("a string"));
    *out = wb_capture_intern(r->c, v.s, v.n);
    return *out ? 0 : out_of_memory(r);
}

/* A multi-process capture tags every record with its process's rank (docs/capture-format.md);
 * -1 when the record has none, resolved once the capture's head is read (resolve_ranks). */
#define WB_MAX_WORLD_SIZE 4096

static int get_rank(reader *r, const wb_record *o, const char *where, int *out) {
    wb_val v = wb_record_get(o, "rank");
    *out = -1;
    if (v.kind == WB_V_MISSING) return 0;
    if (v.kind != WB_V_INT || v.i < 0 || v.i >= WB_MAX_WORLD_SIZE) return corrupt(r, where, "rank", N_("a rank number (0 to 4095)"));
    *out = (int)v.i;
    return 0;
}

static int get_str(reader *r, json_t *o, const char *where, const char *key, char **out) {
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v)) return corrupt(r, where, key, N_("a string"));
    *out = strdup(json_string_value(v));
    return *out ? 0 : out_of_memory(r);
}

static int get_triple(reader *r, const wb_record *o, const char *where, const char *key, int out[3]) {
    wb_val v = wb_record_get(o, key);
    if (v.kind != WB_V_TRIPLE) return corrupt(r, where, key, N_("a list of 3 integers"));
    memcpy(out, v.t, sizeof v.t);
    return 0;
}

/* A short string field into a fixed buffer ("" when absent or not a string). */
static void copy_short(const wb_record *o, const char *key, char *buf, size_t cap, const char *otherwise) {
    wb_val v = wb_record_get(o, key);
    if (v.kind == WB_V_STR) snprintf(buf, cap, "%.*s", (int)v.n, v.s);
    else snprintf(buf, cap, "%s", otherwise);
}

/* ---- records: one JSON object each, decoded into the capture's arrays -------------------- */

/* Room for one more element in *v (n used of *cap); doubling keeps appends linear. */
static int reserve(reader *r, void **v, size_t n, size_t *cap, size_t size) {
    if (n < *cap) return 0;
    size_t want = *cap ? *cap * 2 : 256;
    void *p = realloc(*v, want * size);
    if (!p) return out_of_memory(r);
    *v = p;
    *cap = want;
    return 0;
}

static int read_api(reader *r, const wb_record *o, size_t i, wb_capture *c) {
    wb_api_call *a = &c->api[i];
    memset(a, 0, sizeof *a);
    char where[64];
    snprintf(where, sizeof where, "api_calls[%zu]", i);
    if (!wb_record_is_object(o)) return corrupt(r, where, "", N_("an object"));
    if (get_name(r, o, where, "name", &a->name) || get_u64(r, o, where, "start", &a->start) ||
        get_u64(r, o, where, "end", &a->end) || get_u32(r, o, where, "correlation_id", &a->correlation_id) ||
        get_u32(r, o, where, "thread", &a->thread) || get_rank(r, o, where, &a->rank))
        return r->err->code;
    wb_val domain = wb_record_get(o, "domain");
    if (!wb_val_is(&domain, "runtime") && !wb_val_is(&domain, "driver"))
        return corrupt(r, where, "domain", N_("\"runtime\" or \"driver\""));
    a->driver = wb_val_is(&domain, "driver");
    wb_val ret = wb_record_get(o, "return");
    a->return_value = ret.kind == WB_V_INT ? (uint32_t)ret.i : 0;
    if (a->end < a->start) return corrupt(r, where, "end", N_("at or after start"));
    return 0;
}

static int read_kernel(reader *r, const wb_record *o, size_t i, wb_capture *c) {
    wb_kernel *k = &c->kernels[i];
    memset(k, 0, sizeof *k);
    char where[64];
    snprintf(where, sizeof where, "kernels[%zu]", i);
    uint64_t regs = 0, ss = 0, ds = 0;
    if (!wb_record_is_object(o)) return corrupt(r, where, "", N_("an object"));
    if (get_name(r, o, where, "name", &k->name) || get_name(r, o, where, "mangled", &k->mangled) ||
        get_triple(r, o, where, "grid", k->grid) || get_triple(r, o, where, "block", k->block) ||
        get_u64(r, o, where, "start", &k->start) || get_u64(r, o, where, "end", &k->end) ||
        get_u32(r, o, where, "correlation_id", &k->correlation_id) || get_u32(r, o, where, "stream", &k->stream) ||
        get_u32(r, o, where, "graph_id", &k->graph_id) || get_u64(r, o, where, "registers_per_thread", &regs) ||
        get_u64(r, o, where, "static_shared_bytes", &ss) || get_u64(r, o, where, "dynamic_shared_bytes", &ds) ||
        get_rank(r, o, where, &k->rank))
        return r->err->code;
    if (wb_record_get(o, "cluster").kind != WB_V_MISSING && get_triple(r, o, where, "cluster", k->cluster)) return r->err->code;
    wb_val dev = wb_record_get(o, "device");
    k->device = dev.kind == WB_V_INT ? (uint32_t)dev.i : 0;
    k->registers_per_thread = (int)regs;
    k->static_shared = (int)ss;
    k->dynamic_shared = (int)ds;
    k->api = -1;
    if (k->end < k->start) return corrupt(r, where, "end", N_("at or after start"));
    return 0;
}

static int read_op(reader *r, const wb_record *o, size_t i, int is_copy, wb_gpu_op *op) {
    memset(op, 0, sizeof *op);
    char where[64];
    snprintf(where, sizeof where, is_copy ? "memcpys[%zu]" : "memsets[%zu]", i);
    if (!wb_record_is_object(o)) return corrupt(r, where, "", N_("an object"));
    op->kind = is_copy ? WB_GPU_MEMCPY : WB_GPU_MEMSET;
    op->api = -1;
    if (get_u64(r, o, where, "bytes", &op->bytes) || get_u64(r, o, where, "start", &op->start) ||
        get_u64(r, o, where, "end", &op->end) || get_u32(r, o, where, "correlation_id", &op->correlation_id) ||
        get_u32(r, o, where, "stream", &op->stream) || get_u32(r, o, where, "graph_id", &op->graph_id) ||
        get_rank(r, o, where, &op->rank))
        return r->err->code;
    if (is_copy) {
        copy_short(o, "kind", op->copy_kind, sizeof op->copy_kind, "?");
        /* Absent from captures older than the fields: unknown, never an error. */
        copy_short(o, "src_kind", op->src_kind, sizeof op->src_kind, "");
        copy_short(o, "dst_kind", op->dst_kind, sizeof op->dst_kind, "");
        wb_val async = wb_record_get(o, "async");
        op->async = async.kind == WB_V_TRUE ? 1 : async.kind == WB_V_FALSE ? 0 : -1;
    }
    return 0;
}

static int read_range(reader *r, const wb_record *o, size_t i, wb_capture *c) {
    wb_range *g = &c->ranges[i];
    memset(g, 0, sizeof *g);
    g->parent = -1;
    char where[64];
    snprintf(where, sizeof where, "ranges[%zu]", i);
    if (!wb_record_is_object(o)) return corrupt(r, where, "", N_("an object"));
    wb_val kind = wb_record_get(o, "kind");
    if (!wb_val_is(&kind, "range") && !wb_val_is(&kind, "mark")) return corrupt(r, where, "kind", N_("\"range\" or \"mark\""));
    g->is_mark = wb_val_is(&kind, "mark");
    wb_val name = wb_record_get(o, "name"), domain = wb_record_get(o, "domain");
    g->name = wb_capture_intern(c, name.kind == WB_V_STR ? name.s : "", name.kind == WB_V_STR ? name.n : 0);
    if (!g->name) return out_of_memory(r);
    if (domain.kind == WB_V_STR && !(g->domain = wb_capture_intern(c, domain.s, domain.n))) return out_of_memory(r);
    if (get_u64(r, o, where, "start", &g->start) || get_u32(r, o, where, "thread", &g->thread) || get_rank(r, o, where, &g->rank))
        return r->err->code;
    if (wb_record_get(o, "end").kind == WB_V_NULL) g->end = WB_OPEN_END;
    else if (get_u64(r, o, where, "end", &g->end)) return r->err->code;
    if (g->end < g->start) return corrupt(r, where, "end", N_("at or after start"));
    return 0;
}

static int read_window(reader *r, const wb_record *o, size_t i, wb_capture *c) {
    char where[64];
    snprintf(where, sizeof where, "profiler_windows[%zu]", i);
    if (!wb_record_is_object(o)) return corrupt(r, where, "", N_("an object"));
    if (get_u64(r, o, where, "start", &c->windows[i].start) || get_rank(r, o, where, &c->windows[i].rank)) return r->err->code;
    if (wb_record_get(o, "end").kind == WB_V_NULL) c->windows[i].end = WB_OPEN_END;
    else if (get_u64(r, o, where, "end", &c->windows[i].end)) return r->err->code;
    return 0;
}

/* ---- a capture, walked member by member ------------------------------------------------------ */

enum { SEC_API, SEC_KERNELS, SEC_MEMCPYS, SEC_MEMSETS, SEC_RANGES, SEC_WINDOWS, N_SECTIONS };
static const char *const SECTIONS[N_SECTIONS] = {"api_calls", "kernels", "memcpys", "memsets", "ranges", "profiler_windows"};

typedef struct {
    reader r;
    json_t *head;        /* the small members (format, versions, devices, ...) as jansson values */
    int seen[N_SECTIONS];
    size_t cap_api, cap_kernels, cap_ranges, cap_windows, cap_copies, cap_sets;
    wb_gpu_op *copies, *sets; size_t n_copies, n_sets;  /* joined into ops (copies first) at the end */
    int section;
} capture_walk;

static int capture_item(json_cursor *cur, size_t i, void *ctx) {
    capture_walk *w = ctx;
    wb_capture *c = w->r.c;
    /* a flat record is scanned in place; anything else (and every error) goes through jansson */
    wb_fast_record fast;
    json_t *j = NULL;
    json_peek(cur);
    if (!wb_record_scan(cur->data, cur->length, &cur->pos, &fast) && !(j = json_next_value(cur))) return cur->err->code;
    wb_record rec = {j, j ? NULL : &fast}, *o = &rec;
    int rc = 0;
    switch (w->section) {
    case SEC_API:
        if (!(rc = reserve(&w->r, (void **)&c->api, c->n_api, &w->cap_api, sizeof *c->api)) && !(rc = read_api(&w->r, o, i, c)))
            c->n_api++;
        break;
    case SEC_KERNELS:
        if (!(rc = reserve(&w->r, (void **)&c->kernels, c->n_kernels, &w->cap_kernels, sizeof *c->kernels)) &&
            !(rc = read_kernel(&w->r, o, i, c)))
            c->n_kernels++;
        break;
    case SEC_MEMCPYS:
        if (!(rc = reserve(&w->r, (void **)&w->copies, w->n_copies, &w->cap_copies, sizeof *w->copies)) &&
            !(rc = read_op(&w->r, o, i, 1, &w->copies[i])))
            w->n_copies++;
        break;
    case SEC_MEMSETS:
        if (!(rc = reserve(&w->r, (void **)&w->sets, w->n_sets, &w->cap_sets, sizeof *w->sets)) &&
            !(rc = read_op(&w->r, o, i, 0, &w->sets[i])))
            w->n_sets++;
        break;
    case SEC_RANGES:
        if (!(rc = reserve(&w->r, (void **)&c->ranges, c->n_ranges, &w->cap_ranges, sizeof *c->ranges)) &&
            !(rc = read_range(&w->r, o, i, c)))
            c->n_ranges++;
        break;
    case SEC_WINDOWS:
        if (!(rc = reserve(&w->r, (void **)&c->windows, c->n_windows, &w->cap_windows, sizeof *c->windows)) &&
            !(rc = read_window(&w->r, o, i, c)))
            c->n_windows++;
        break;
    }
    json_decref(j);
    return rc;
}

static int not_a_capture(reader *r, json_t *format) {
    const char *f = json_string_value(format);
    if (!f) return wb_fail(r->err, WB_EXIT_INPUT, _("%s: not a gpu-workbench capture (format is missing)"), r->what);
    return wb_fail(r->err, WB_EXIT_INPUT, _("%s: not a gpu-workbench capture (format is \"%s\")"), r->what, f);
}

/* format and version are checked as soon as they arrive, so that another file is named as such
 * before any of its records is read. */
static int check_format(reader *r, json_t *head, int final) {
    json_t *format = json_object_get(head, "format"), *version = json_object_get(head, "version");
    if ((format || final) && (!json_is_string(format) || strcmp(json_string_value(format), CAPTURE_FORMAT)))
        return not_a_capture(r, format);
    if ((version || final) && (!json_is_integer(version) || json_integer_value(version) != FORMAT_VERSION))
        return wb_fail(r->err, WB_EXIT_INPUT, _("%s: capture format version %lld, this grader reads version %d. Re-record it"),
                       r->what, json_is_integer(version) ? (long long)json_integer_value(version) : -1LL, FORMAT_VERSION);
    return 0;
}

static int capture_member(json_cursor *cur, const char *key, void *ctx) {
    capture_walk *w = ctx;
    for (int s = 0; s < N_SECTIONS; s++) {
        if (strcmp(key, SECTIONS[s])) continue;
        /* TRANSLATORS: the reason in "not valid JSON: %s (the file is truncated or corrupt; re-record it)" */
        if (w->seen[s]) return json_syntax_error(cur, cur->pos, _("duplicate object key"));
        w->seen[s] = 1;
        if (json_peek(cur) != '[') return corrupt(&w->r, "", key, N_("a list"));
        w->section = s;
        return json_walk_array(cur, capture_item, w);
    }
    if (json_object_get(w->head, key)) return json_syntax_error(cur, cur->pos, _("duplicate object key"));
    json_t *v = json_next_value(cur);
    if (!v) return cur->err->code;
    if (json_object_set_new(w->head, key, v)) return out_of_memory(&w->r);
    return !strcmp(key, "format") || !strcmp(key, "version") ? check_format(&w->r, w->head, 0) : 0;
}

static long long int_or_minus_one(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

/* The small members, once the walk is done. */
static int read_head(reader *r, json_t *root, wb_capture *c) {
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

    /* a merged capture's ranks: which of them made it incomplete */
    json_t *ranks = json_object_get(root, "ranks");
    for (size_t i = 0; i < json_array_size(ranks); i++) {
        json_t *rk = json_array_get(ranks, i), *rsig = json_object_get(json_object_get(rk, "process"), "signal");
        int done = json_is_true(json_object_get(rk, "complete")), cupti = json_is_true(json_object_get(rk, "cupti_enabled"));
        if (done && cupti) continue;
        size_t used = strlen(c->rank_problems);
        char one[96];
        snprintf(one, sizeof one, _("%srank %zu: %s"), used ? "; " : "", i, !cupti ? _("CUPTI refused to start") : _("incomplete"));
        if (done == 0 && json_is_integer(rsig))
            snprintf(one + strlen(one), sizeof one - strlen(one), _(" (signal %lld)"), (long long)json_integer_value(rsig));
        snprintf(c->rank_problems + used, sizeof c->rank_problems - used, "%s", one);
    }

    uint64_t dropped = 0;
    wb_record head = {root, NULL};
    if (get_u64(r, &head, "", "dropped_records", &dropped)) return r->err->code;
    json_t *lost_v = json_object_get(root, "lost_records");
    c->dropped_records = dropped;
    c->lost_records = json_is_integer(lost_v) ? (uint64_t)json_integer_value(lost_v) : 0;
    return 0;
}

/* world_size (absent: one process) and the rank of records that carry none: the file's own
 * "rank" (one rank's file, read before merging) or 0. Every rank must lie below world_size. */
static int resolve_ranks(reader *r, json_t *root, wb_capture *c) {
    json_t *ws = json_object_get(root, "world_size"), *own = json_object_get(root, "rank");
    if (ws && !json_is_null(ws) && (!json_is_integer(ws) || json_integer_value(ws) < 1 || json_integer_value(ws) > WB_MAX_WORLD_SIZE))
        return corrupt(r, "", "world_size", N_("a number of processes (1 to 4096)"));
    if (own && (!json_is_integer(own) || json_integer_value(own) < 0 || json_integer_value(own) >= WB_MAX_WORLD_SIZE))
        return corrupt(r, "", "rank", N_("a rank number (0 to 4095)"));
    int fallback = own ? (int)json_integer_value(own) : 0;
    c->world_size = json_is_integer(ws) ? (int)json_integer_value(ws) : fallback + 1;
    /* A merged capture (several ranks, no own rank) must account for each record and rank: a
     * record without rank cannot be given one, and a rank without its head is a process whose
     * file never arrived. Refused as an incomplete capture (exit 3), naming what is missing. */
    if (c->world_size > 1 && !own) {
        for (size_t i = 0; i < c->n_ranges; i++)
            if (c->ranges[i].rank < 0)
                return wb_fail(r->err, WB_EXIT_CAPTURE,
                               _("%s: incomplete capture: range '%s' (record %zu of ranges) carries no rank, in a capture "
                               "of %d ranks; re-record it (grader record)"), r->what, c->ranges[i].name ? c->ranges[i].name : "?",
                               i + 1, c->world_size);
        size_t headed = json_array_size(json_object_get(root, "ranks"));
        if (headed < (size_t)c->world_size)
            return wb_fail(r->err, WB_EXIT_CAPTURE,
                           _("%s: incomplete capture: rank %zu of world_size %d has no header under \"ranks\": that "
                           "rank's capture is missing; re-record it (grader record)"), r->what, headed, c->world_size);
    }
    int highest = wb_capture_settle_ranks(c, fallback);
    if (highest >= c->world_size)
        return wb_fail(r->err, WB_EXIT_CAPTURE,
                       _("%s: incomplete capture: a record of rank %d, but the capture says world_size %d (ranks 0 to %d); "
                       "re-record it (grader record)"), r->what, highest, c->world_size, c->world_size - 1);
    return 0;
}

/* Reads the capture object at the cursor into c; what names it in messages. */
static int read_capture(json_cursor *cur, const char *what, wb_capture *c) {
    memset(c, 0, sizeof *c);
    capture_walk w = {{what, cur->err, c}, json_object(), {0}, 0, 0, 0, 0, 0, 0, NULL, NULL, 0, 0, 0};
    if (!w.head) return out_of_memory(&w.r);
    int rc;
    if (json_peek(cur) != '{') {
        /* valid JSON that is no object, or not JSON at all */
        rc = json_skip_value(cur);
        if (!rc) rc = wb_fail(cur->err, WB_EXIT_INPUT, _("%s: not a capture (the top level is not a JSON object)"), what);
        goto out;
    }
    if ((rc = json_walk_object(cur, capture_member, &w)) || (rc = check_format(&w.r, w.head, 1))) goto out;
    for (int s = 0; s < N_SECTIONS && !rc; s++)
        if (!w.seen[s]) rc = corrupt(&w.r, "", SECTIONS[s], N_("a list"));
    if (rc || (rc = read_head(&w.r, w.head, c))) goto out;
    /* memcpys then memsets, in one array */
    c->n_ops = w.n_copies + w.n_sets;
    c->ops = malloc((c->n_ops + 1) * sizeof *c->ops);
    if (!c->ops) {
        rc = out_of_memory(&w.r);
        goto out;
    }
    if (w.n_copies) memcpy(c->ops, w.copies, w.n_copies * sizeof *c->ops);
    if (w.n_sets) memcpy(c->ops + w.n_copies, w.sets, w.n_sets * sizeof *c->ops);
    if ((rc = resolve_ranks(&w.r, w.head, c))) goto out;
    if (wb_capture_link(c)) rc = out_of_memory(&w.r);
out:
    free(w.copies);
    free(w.sets);
    json_decref(w.head);
    return rc;
}

/* ---- loading --------------------------------------------------------------------------------- */

/* The whole capture or recording (read_file.c: a regular file of at most 2 GiB). */
static char *slurp(const char *path, size_t *length, wb_error *err) {
    char *text = NULL;
    if (wb_read_file(path, N_("capture file"), WB_CAPTURE_MAX_BYTES, &text, length, err)) return NULL;
    return text;
}

static int empty_file(const char *what, wb_error *err) {
    return wb_fail(err, WB_EXIT_INPUT, _("%s: the capture file is empty (the lesson may have been killed before it could write)"), what);
}

int wb_capture_load_buffer(const char *what, const char *data, size_t length, wb_capture *out, wb_error *err) {
    memset(out, 0, sizeof *out);
    if (length == 0) return empty_file(what, err);
    json_cursor cur = {data, length, 0, what, err};
    int rc = read_capture(&cur, what, out);
    if (!rc) rc = json_expect_end(&cur);
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
    free(c->api);
    free(c->kernels);
    free(c->ops);
    free(c->ranges);
    free(c->windows);
    wb_capture_index_free(&c->index);
    strings_free(c->strings);
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
    if (!json_is_number(bw) || json_number_value(bw) <= 0) return corrupt(r, "calibration", "copy_bytes_per_s", N_("a positive number"));
    if (!json_is_number(mm) || json_number_value(mm) <= 0) return corrupt(r, "calibration", "matrix_flops_per_s", N_("a positive number"));
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
    if (length == 0) return empty_file(what, err);
    json_cursor cur = {data, length, 0, what, err};
    json_t *root = json_next_value(&cur);
    if (!root) return err->code;
    reader r = {what, err, NULL};
    int rc = calibration_from(&r, root, out);
    json_decref(root);
    return rc;
}

static int doubles_from(reader *r, json_t *arr, const char *where, const char *key, double **out, size_t n) {
    if (!json_is_array(arr) || json_array_size(arr) != n) return corrupt(r, where, key, N_("a list as long as the other"));
    *out = calloc(n + 1, sizeof **out);
    if (!*out) return wb_fail(r->err, WB_EXIT_INPUT, _("out of memory"));
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(arr, i);
        if (!json_is_number(v) || json_number_value(v) < 0) return corrupt(r, where, key, N_("a list of non-negative numbers"));
        (*out)[i] = json_number_value(v);
    }
    return 0;
}

/* "repeats": [{"ranges": [{"variant", "range", "gpu_us": [...], "wall_us": [...]}]}] */
static int repeats_from(reader *r, json_t *arr, wb_recording *rec) {
    if (!arr) return 0;
    if (!json_is_array(arr)) return corrupt(r, "", "repeats", N_("a list"));
    rec->repeats = calloc(json_array_size(arr) + 1, sizeof *rec->repeats);
    if (!rec->repeats) return wb_fail(r->err, WB_EXIT_INPUT, _("out of memory"));
    for (size_t i = 0; i < json_array_size(arr); i++) {
        wb_repeat *rep = &rec->repeats[i];
        rec->n_repeats = i + 1;
        json_t *ranges = json_object_get(json_array_get(arr, i), "ranges");
        char where[64];
        snprintf(where, sizeof where, "repeats[%zu]", i);
        if (!json_is_array(ranges)) return corrupt(r, where, "ranges", N_("a list"));
        rep->items = calloc(json_array_size(ranges) + 1, sizeof *rep->items);
        if (!rep->items) return wb_fail(r->err, WB_EXIT_INPUT, _("out of memory"));
        for (size_t j = 0; j < json_array_size(ranges); j++) {
            json_t *o = json_array_get(ranges, j);
            wb_range_times *t = &rep->items[j];
            rep->n = j + 1;
            snprintf(where, sizeof where, "repeats[%zu].ranges[%zu]", i, j);
            if (get_str(r, o, where, "variant", &t->variant) || get_str(r, o, where, "range", &t->range)) return r->err->code;
            json_t *rank = json_object_get(o, "rank");
            if (rank && (!json_is_integer(rank) || json_integer_value(rank) < 0 || json_integer_value(rank) >= WB_MAX_WORLD_SIZE))
                return corrupt(r, where, "rank", N_("a rank number (0 to 4095)"));
            t->per_rank = rank != NULL;
            t->rank = rank ? (int)json_integer_value(rank) : 0;
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

typedef struct {
    reader r;             /* the file */
    wb_recording *rec;
    json_t *head;         /* the recording's small members */
    int seen_runs;
    size_t cap_runs;
    /* the run being read */
    json_t *run_head;
    int seen_capture;
} recording_walk;

static int check_recording_format(recording_walk *w, int final) {
    json_t *format = json_object_get(w->head, "format"), *version = json_object_get(w->head, "version");
    const char *f = json_string_value(format);
    if ((format || final) && (!f || strcmp(f, RECORDING_FORMAT)))
        return f ? wb_fail(w->r.err, WB_EXIT_INPUT, _("%s: not a gpu-workbench recording (format is %s)"), w->r.what, f)
                 : wb_fail(w->r.err, WB_EXIT_INPUT, _("%s: not a gpu-workbench recording (format is missing)"), w->r.what);
    if ((version || final) && (!json_is_integer(version) || json_integer_value(version) != FORMAT_VERSION))
        return wb_fail(w->r.err, WB_EXIT_INPUT, _("%s: recording format version is not %d; re-record it with grader record"),
                       w->r.what, FORMAT_VERSION);
    return 0;
}

static int run_member(json_cursor *cur, const char *key, void *ctx) {
    recording_walk *w = ctx;
    wb_run *run = &w->rec->runs[w->rec->n_runs - 1];
    if (!strcmp(key, "capture")) {
        if (w->seen_capture) return json_syntax_error(cur, cur->pos, _("duplicate object key"));
        w->seen_capture = 1;
        const char *variant = json_string_value(json_object_get(w->run_head, "variant"));
        char what[512];
        if (variant) snprintf(what, sizeof what, _("%s (run '%s')"), w->r.what, variant);
        else snprintf(what, sizeof what, _("%s (run %zu)"), w->r.what, w->rec->n_runs);
        return read_capture(cur, what, &run->capture);
    }
    if (json_object_get(w->run_head, key)) return json_syntax_error(cur, cur->pos, _("duplicate object key"));
    json_t *v = json_next_value(cur);
    if (!v) return cur->err->code;
    return json_object_set_new(w->run_head, key, v) ? out_of_memory(&w->r) : 0;
}

static int run_item(json_cursor *cur, size_t i, void *ctx) {
    recording_walk *w = ctx;
    wb_recording *rec = w->rec;
    if (reserve(&w->r, (void **)&rec->runs, rec->n_runs, &w->cap_runs, sizeof *rec->runs)) return w->r.err->code;
    wb_run *run = &rec->runs[rec->n_runs++];
    memset(run, 0, sizeof *run);
    char where[64];
    snprintf(where, sizeof where, "runs[%zu]", i);
    if (json_peek(cur) != '{') return corrupt(&w->r, where, "variant", N_("a string"));
    w->run_head = json_object();
    w->seen_capture = 0;
    if (!w->run_head) return out_of_memory(&w->r);
    int rc = json_walk_object(cur, run_member, w);
    json_t *o = w->run_head;
    if (!rc) rc = get_str(&w->r, o, where, "variant", &run->variant);
    if (!rc && !w->seen_capture) rc = corrupt(&w->r, where, "capture", N_("an object"));
    if (!rc) {
        json_t *args = json_object_get(o, "args");
        size_t n_args = json_array_size(args);
        run->args = calloc(n_args + 1, sizeof *run->args);
        if (!run->args) rc = out_of_memory(&w->r);
        for (size_t j = 0; !rc && j < n_args; j++, run->n_args++) {
            const char *a = json_string_value(json_array_get(args, j));
            if (!(run->args[j] = strdup(a ? a : ""))) rc = out_of_memory(&w->r);
        }
        json_t *code = json_object_get(o, "exit_code"), *sig = json_object_get(o, "signal");
        run->exit_code = json_is_integer(code) ? (int)json_integer_value(code) : -1;
        run->signal = json_is_integer(sig) ? (int)json_integer_value(sig) : 0;
        run->timed_out = json_is_true(json_object_get(o, "timed_out"));
        const char *output = json_string_value(json_object_get(o, "output"));
        if (output && !(run->output = strdup(output))) rc = out_of_memory(&w->r);
        json_t *python = json_object_get(o, "python");
        if (json_is_object(python)) {
            const char *torch = json_string_value(json_object_get(python, "torch"));
            const char *torch_cuda = json_string_value(json_object_get(python, "torch_cuda"));
            const char *triton = json_string_value(json_object_get(python, "triton"));
            run->python = 1;
            snprintf(run->torch, sizeof run->torch, "%s", torch ? torch : "");
            snprintf(run->torch_cuda, sizeof run->torch_cuda, "%s", torch_cuda ? torch_cuda : "");
            snprintf(run->triton, sizeof run->triton, "%s", triton ? triton : "");
        }
        json_t *trimmed = json_object_get(o, "api_dropped_outside_window");
        run->capture.api_dropped_outside_window = json_is_integer(trimmed) ? (uint64_t)json_integer_value(trimmed) : 0;
    }
    json_decref(o);
    w->run_head = NULL;
    return rc;
}

static int recording_member(json_cursor *cur, const char *key, void *ctx) {
    recording_walk *w = ctx;
    if (!strcmp(key, "runs")) {
        if (w->seen_runs) return json_syntax_error(cur, cur->pos, _("duplicate object key"));
        w->seen_runs = 1;
        if (json_peek(cur) != '[') return corrupt(&w->r, "", "runs", N_("a non-empty list"));
        return json_walk_array(cur, run_item, w);
    }
    if (json_object_get(w->head, key)) return json_syntax_error(cur, cur->pos, _("duplicate object key"));
    json_t *v = json_next_value(cur);
    if (!v) return cur->err->code;
    if (json_object_set_new(w->head, key, v)) return out_of_memory(&w->r);
    return !strcmp(key, "format") || !strcmp(key, "version") ? check_recording_format(w, 0) : 0;
}

int wb_recording_load_buffer(const char *what, const char *data, size_t length, wb_recording *rec, wb_error *err) {
    memset(rec, 0, sizeof *rec);
    if (length == 0) return empty_file(what, err);
    json_cursor cur = {data, length, 0, what, err};
    recording_walk w = {{what, err, NULL}, rec, json_object(), 0, 0, NULL, 0};
    int rc = 0;
    if (!w.head) return out_of_memory(&w.r);
    if (json_peek(&cur) != '{') {
        rc = json_skip_value(&cur);
        if (!rc) rc = wb_fail(err, WB_EXIT_INPUT, _("%s: not a gpu-workbench recording (format is missing)"), what);
    } else if (!(rc = json_walk_object(&cur, recording_member, &w)) && !(rc = json_expect_end(&cur)) &&
               !(rc = check_recording_format(&w, 1)) && !(rc = get_str(&w.r, w.head, "", "lesson", &rec->lesson)) &&
               !(rc = get_str(&w.r, w.head, "", "recorded_at", &rec->recorded_at))) {
        json_t *cal = json_object_get(w.head, "calibration");
        if (rec->n_runs == 0) rc = corrupt(&w.r, "", "runs", N_("a non-empty list"));
        else if (cal) rc = calibration_from(&w.r, cal, &rec->calibration);
        if (!rc) rc = repeats_from(&w.r, json_object_get(w.head, "repeats"), rec);
    }
    json_decref(w.head);
    return rc;
}

int wb_recording_load(const char *path, wb_recording *rec, wb_error *err) {
    size_t n = 0;
    memset(rec, 0, sizeof *rec);
    char *data = slurp(path, &n, err);
    if (!data) return err->code;
    int rc = wb_recording_load_buffer(path, data, n, rec, err);
    free(data);
    if (!rc && !(rec->path = strdup(path))) rc = wb_fail(err, WB_EXIT_INPUT, _("%s: out of memory while reading it"), path);
    return rc;
}

/* Stops the walk (with this code) once recorded_at is read: a recording's runs are never needed
 * to rank it. */
#define FOUND_RECORDED_AT 100

typedef struct { char *buf; size_t cap; } recorded_at_walk;

static int recorded_at_member(json_cursor *cur, const char *key, void *ctx) {
    recorded_at_walk *w = ctx;
    if (strcmp(key, "recorded_at")) return json_skip_value(cur);
    json_t *v = json_next_value(cur);
    if (!v) return cur->err->code;
    snprintf(w->buf, w->cap, "%s", json_is_string(v) ? json_string_value(v) : "");
    json_decref(v);
    return FOUND_RECORDED_AT;
}

int wb_recording_recorded_at(const char *path, char *buf, size_t cap) {
    wb_error err = {0};
    size_t n = 0;
    buf[0] = '\0';
    char *data = slurp(path, &n, &err);
    if (!data) return -1;
    json_cursor cur = {data, n, 0, path, &err};
    recorded_at_walk w = {buf, cap};
    int rc = json_peek(&cur) == '{' ? json_walk_object(&cur, recorded_at_member, &w) : -1;
    free(data);
    return rc == FOUND_RECORDED_AT && buf[0] ? 0 : -1;
}

const wb_run *wb_recording_run(const wb_recording *r, const char *variant) {
    for (size_t i = 0; i < r->n_runs; i++)
        if (!strcmp(r->runs[i].variant, variant)) return &r->runs[i];
    return NULL;
}
