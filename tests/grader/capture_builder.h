/*
 * capture_builder.h: hand-made captures for tests, where the right answer is known by
 * construction. Times are in ns; every add_* copies its strings into the capture. Call
 * build_finish() before use and wb_capture_free() after.
 */
#ifndef WB_CAPTURE_BUILDER_H
#define WB_CAPTURE_BUILDER_H

#include "capture.h"

#include <stdlib.h>
#include <string.h>

#define BUILDER_MAX 256

static inline void build_start(wb_capture *c) {
    memset(c, 0, sizeof *c);
    c->api = calloc(BUILDER_MAX, sizeof *c->api);
    c->kernels = calloc(BUILDER_MAX, sizeof *c->kernels);
    c->ops = calloc(BUILDER_MAX, sizeof *c->ops);
    c->ranges = calloc(BUILDER_MAX, sizeof *c->ranges);
    c->windows = calloc(8, sizeof *c->windows);
    c->complete = c->cupti_enabled = 1;
    strcpy(c->gpu, "Test GPU");
    strcpy(c->arch, "sm_90");
}

static inline void add_api(wb_capture *c, const char *name, uint64_t start, uint64_t end, uint32_t corr, uint32_t thread) {
    wb_api_call *a = &c->api[c->n_api++];
    a->name = wb_capture_intern(c, name, strlen(name));
    a->driver = name[0] == 'c' && name[1] == 'u' && name[2] != 'd';
    a->start = start;
    a->end = end;
    a->correlation_id = corr;
    a->thread = thread;
}

static inline void add_kernel(wb_capture *c, const char *name, uint64_t start, uint64_t end, uint32_t corr, uint32_t stream) {
    wb_kernel *k = &c->kernels[c->n_kernels++];
    k->name = k->mangled = wb_capture_intern(c, name, strlen(name));
    k->start = start;
    k->end = end;
    k->correlation_id = corr;
    k->stream = stream;
    k->grid[0] = k->grid[1] = k->grid[2] = 1;
    k->block[0] = 128;
    k->block[1] = k->block[2] = 1;
}

static inline void add_op(wb_capture *c, wb_gpu_op_kind kind, uint64_t start, uint64_t end, uint32_t corr, uint32_t stream) {
    wb_gpu_op *o = &c->ops[c->n_ops++];
    o->kind = kind;
    if (kind == WB_GPU_MEMCPY) strcpy(o->copy_kind, "DtoD");
    o->bytes = 4096;
    o->start = start;
    o->end = end;
    o->correlation_id = corr;
    o->stream = stream;
}

static inline void add_range(wb_capture *c, const char *name, uint64_t start, uint64_t end, uint32_t thread) {
    wb_range *r = &c->ranges[c->n_ranges++];
    r->name = wb_capture_intern(c, name, strlen(name));
    r->start = start;
    r->end = end;
    r->thread = thread;
}

static inline void add_window(wb_capture *c, uint64_t start, uint64_t end) {
    c->windows[c->n_windows].start = start;
    c->windows[c->n_windows].end = end;
    c->n_windows++;
}

static inline void build_finish(wb_capture *c) {
    if (wb_capture_link(c)) abort();
}

/* A recording of lesson 09_test with one run, variant eager, whose capture build_start() began;
 * free it with wb_recording_free(). */
static inline wb_capture *build_recording(wb_recording *rec) {
    memset(rec, 0, sizeof *rec);
    rec->lesson = strdup("09_test");
    rec->recorded_at = strdup("2026-11-29T00:00:00Z");
    rec->n_runs = 1;
    rec->runs = calloc(1, sizeof *rec->runs);
    rec->runs[0].variant = strdup("eager");
    build_start(&rec->runs[0].capture);
    return &rec->runs[0].capture;
}

#endif
