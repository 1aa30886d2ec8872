/*
 * test_capture_reader.c: captures and recordings as files: the real H200 recording of the probe
 * (its answer key, written by construction, must hold on it), and corrupt files, each of which
 * must give one clear message and exit code 2, never a crash.
 */
#include "answer_key.h"
#include "capture.h"
#include "capture_record.h"
#include "grade.h"
#include "lesson.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *probe_path(const char *rel) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/tests/grader/probe/%s", getenv("WB_SOURCE_DIR"), rel);
    return buf;
}

Test(capture_reader, reads_the_h200_recording_of_the_probe) {
    wb_recording rec;
    wb_error err = {0};
    cr_assert_eq(wb_recording_load(probe_path("lessons/00_probe/traces/sm_90.json"), &rec, &err), 0, "%s", err.message);
    cr_assert_str_eq(rec.lesson, "00_probe");
    cr_assert_eq(rec.n_runs, 2);
    const wb_capture *c = &wb_recording_run(&rec, "eager")->capture;
    cr_assert_str_eq(c->arch, "sm_90");
    cr_assert_str_eq(c->gpu, "NVIDIA H200");
    cr_assert(c->complete);
    cr_assert_eq(c->dropped_records, 0);
    cr_assert_eq(c->n_windows, 1);
    cr_assert_gt(c->n_kernels, 0);
    /* every kernel was launched by a recorded API call */
    for (size_t i = 0; i < c->n_kernels; i++) cr_assert_geq(c->kernels[i].api, 0, "kernel %s has no launch call", c->kernels[i].name);
    /* the NVTX nesting made it through: in the profiled window, inner inside outer inside step
     * (push/pop ranges) inside measured (a start/end range) */
    int checked = 0;
    for (size_t i = 0; i < c->n_ranges; i++) {
        const wb_range *r = &c->ranges[i];
        if (strcmp(r->name, "inner") || c->n_windows == 0 || r->start < c->windows[0].start) continue;
        const char *chain[] = {"outer", "step", "measured"};
        long p = r->parent;
        for (int d = 0; d < 3; d++) {
            cr_assert_geq(p, 0, "inner has no ancestor %s", chain[d]);
            cr_assert_str_eq(c->ranges[p].name, chain[d]);
            p = c->ranges[p].parent;
        }
        cr_assert_eq(r->depth, 3);
        checked++;
    }
    cr_assert_eq(checked, 3, "three measured steps");
    wb_recording_free(&rec);
}

Test(capture_reader, the_answer_key_known_by_construction_holds_on_the_recording) {
    wb_recording rec;
    wb_lesson lesson;
    wb_answer_key key;
    wb_error err = {0};
    cr_assert_eq(wb_recording_load(probe_path("lessons/00_probe/traces/sm_90.json"), &rec, &err), 0, "%s", err.message);
    cr_assert_eq(wb_lesson_load(probe_path("lessons/00_probe"), &lesson, &err), 0, "%s", err.message);
    cr_assert_eq(wb_answer_key_load(probe_path("expectations/00_probe.yaml"), &key, &err), 0, "%s", err.message);
    const wb_arch_answers *a = wb_answer_key_arch(&key, "sm_90");
    cr_assert_not_null(a);
    wb_grade g;
    cr_assert_eq(wb_grade_predictions(&a->answers, &lesson, &rec, &g, &err), 0, "%s", err.message);
    for (size_t i = 0; i < g.n; i++)
        cr_expect(g.facts[i].right, "%s %s: answer %ld, captured %ld", g.facts[i].prediction->id, g.facts[i].fact->label,
                  g.facts[i].predicted, g.facts[i].actual);
    cr_assert_eq(g.right, g.n);
    cr_assert_geq(g.n, 25);
    wb_grade_free(&g);
    wb_answer_key_free(&key);
    wb_lesson_free(&lesson);
    wb_recording_free(&rec);
}

/* The probe's eager capture as text, for corruption. */
static char *probe_capture_text(void) {
    wb_error err = {0};
    FILE *f = fopen(probe_path("lessons/00_probe/traces/sm_90.json"), "rb");
    cr_assert_not_null(f);
    static char buf[1 << 21];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    (void)err;
    /* the first run's capture object */
    char *start = strstr(buf, "\"capture\":");
    cr_assert_not_null(start);
    start += strlen("\"capture\":");
    int depth = 0;
    char *p = start;
    for (; *p; p++) {
        if (*p == '{') depth++;
        if (*p == '}' && --depth == 0) break;
    }
    p[1] = '\0';
    return strdup(start);
}

static void corrupt_is_rejected(const char *text, const char *want) {
    wb_capture c;
    wb_error err = {0};
    int rc = wb_capture_load_buffer("cap.json", text, strlen(text), &c, &err);
    cr_assert_eq(rc, WB_EXIT_INPUT, "accepted a corrupt capture (want '%s')", want);
    cr_assert(strstr(err.message, "cap.json") == err.message, "%s", err.message);
    cr_assert(strstr(err.message, want), "message '%s' lacks '%s'", err.message, want);
    wb_capture_free(&c);
}

static char *replace_once(const char *text, const char *from, const char *to) {
    const char *at = strstr(text, from);
    cr_assert_not_null(at, "fixture lacks %s", from);
    size_t n = strlen(text) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    size_t head = (size_t)(at - text);
    memcpy(out, text, head);
    strcpy(out + head, to);
    strcat(out, at + strlen(from));
    return out;
}

Test(capture_reader, reads_the_capture_alone) {
    char *text = probe_capture_text();
    wb_capture c;
    wb_error err = {0};
    cr_assert_eq(wb_capture_load_buffer("cap.json", text, strlen(text), &c, &err), 0, "%s", err.message);
    cr_assert_gt(c.n_api, 100);
    wb_capture_free(&c);
    free(text);
}

Test(capture_reader, rejects_corrupt_captures) {
    char *text = probe_capture_text();
    char *t;
    corrupt_is_rejected("", "empty");
    corrupt_is_rejected("{", "not valid JSON");
    corrupt_is_rejected("[1,2]", "not a capture");
    corrupt_is_rejected("{\"format\": \"something-else\"}", "not a gpu-workbench capture");
    corrupt_is_rejected("{\"format\": \"gpu-workbench-capture\", \"version\": 99}", "format version 99");
    /* truncated in the middle */
    t = strndup(text, strlen(text) / 2);
    corrupt_is_rejected(t, "not valid JSON");
    free(t);
    t = replace_once(text, "\"kernels\":[", "\"kernels\":7,\"x\":[");
    corrupt_is_rejected(t, "'kernels' is missing or not a list");
    free(t);
    t = replace_once(text, "\"start\":", "\"start\":\"soon\",\"was\":");
    corrupt_is_rejected(t, "'start' is missing or not a non-negative integer");
    free(t);
    t = replace_once(text, "\"grid\":[", "\"grid\":[1,");
    corrupt_is_rejected(t, "'grid' is missing or not a list of 3 integers");
    free(t);
    t = replace_once(text, "\"domain\":\"runtime\"", "\"domain\":\"userland\"");
    corrupt_is_rejected(t, "'domain'");
    free(t);
    t = replace_once(text, "\"dropped_records\":0", "\"dropped_records\":-4");
    corrupt_is_rejected(t, "dropped_records");
    free(t);
    free(text);
}

Test(capture_reader, rejects_corrupt_recordings) {
    wb_recording rec;
    wb_error err = {0};
    const char *bad[][2] = {
        {"{\"format\":\"gpu-workbench-recording\",\"version\":1,\"lesson\":\"x\",\"recorded_at\":\"t\",\"runs\":[]}", "'runs'"},
        {"{\"format\":\"gpu-workbench-recording\",\"version\":2}", "version"},
        {"{\"format\":\"gpu-workbench-capture\",\"version\":1}", "not a gpu-workbench recording"},
        {"{\"format\":\"gpu-workbench-recording\",\"version\":1,\"lesson\":\"x\",\"recorded_at\":\"t\",\"runs\":[{\"variant\":\"a\",\"capture\":{}}]}",
         "not a gpu-workbench capture"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&err, 0, sizeof err);
        cr_assert_eq(wb_recording_load_buffer("rec.json", bad[i][0], strlen(bad[i][0]), &rec, &err), WB_EXIT_INPUT);
        cr_assert(strstr(err.message, bad[i][1]), "'%s' lacks '%s'", err.message, bad[i][1]);
        wb_recording_free(&rec);
    }
    memset(&err, 0, sizeof err);
    cr_assert_eq(wb_recording_load("/nonexistent/sm_90.json", &rec, &err), WB_EXIT_INPUT);
    cr_assert(strstr(err.message, "/nonexistent/sm_90.json"));
}

/* A memcpy's memory kinds and async flag (CUPTI's srcKind, dstKind, flags) are read when present;
 * captures written before they existed read as unknown, never as an error. */
Test(capture_reader, reads_copy_memory_kinds_and_treats_old_captures_as_unknown) {
    char *old = probe_capture_text();
    char *new = replace_once(old, "{\"kind\":\"DtoD\",\"bytes\":4194304,",
                             "{\"kind\":\"HtoD\",\"src_kind\":\"pageable\",\"dst_kind\":\"device\",\"async\":true,"
                             "\"bytes\":4194304,");
    wb_capture c;
    wb_error err = {0};
    cr_assert_eq(wb_capture_load_buffer("cap.json", new, strlen(new), &c, &err), 0, "%s", err.message);
    const wb_gpu_op *first = NULL, *second = NULL;
    for (size_t i = 0; i < c.n_ops; i++) {
        if (c.ops[i].kind != WB_GPU_MEMCPY) continue;
        if (!first) first = &c.ops[i];
        else if (!second) second = &c.ops[i];
    }
    cr_assert_not_null(second);
    cr_assert_str_eq(first->copy_kind, "HtoD");
    cr_assert_str_eq(first->src_kind, "pageable");
    cr_assert_str_eq(first->dst_kind, "device");
    cr_assert_eq(first->async, 1);
    cr_assert_str_eq(second->src_kind, "");
    cr_assert_str_eq(second->dst_kind, "");
    cr_assert_eq(second->async, -1);
    wb_capture_free(&c);
    free(new);
    free(old);
}

/* The in-place scan of flat records (capture_record.c) and jansson read every record of the H200
 * recording to the same capture. */
Test(capture_reader, the_fast_scan_and_jansson_agree) {
    wb_recording fast, slow;
    wb_error err = {0};
    wb_record_fast_scan(1);
    cr_assert_eq(wb_recording_load(probe_path("lessons/00_probe/traces/sm_90.json"), &fast, &err), 0, "%s", err.message);
    wb_record_fast_scan(0);
    cr_assert_eq(wb_recording_load(probe_path("lessons/00_probe/traces/sm_90.json"), &slow, &err), 0, "%s", err.message);
    wb_record_fast_scan(1);
    cr_assert_eq(fast.n_runs, slow.n_runs);
    for (size_t r = 0; r < fast.n_runs; r++) {
        const wb_capture *a = &fast.runs[r].capture, *b = &slow.runs[r].capture;
        cr_assert_eq(a->n_api, b->n_api);
        cr_assert_eq(a->n_kernels, b->n_kernels);
        cr_assert_eq(a->n_ops, b->n_ops);
        cr_assert_eq(a->n_ranges, b->n_ranges);
        cr_assert_eq(a->n_windows, b->n_windows);
        for (size_t i = 0; i < a->n_api; i++) {
            cr_assert_str_eq(a->api[i].name, b->api[i].name);
            cr_assert(a->api[i].start == b->api[i].start && a->api[i].end == b->api[i].end &&
                      a->api[i].correlation_id == b->api[i].correlation_id && a->api[i].thread == b->api[i].thread &&
                      a->api[i].driver == b->api[i].driver && a->api[i].return_value == b->api[i].return_value &&
                      a->api[i].nested == b->api[i].nested, "api_calls[%zu] differs", i);
        }
        for (size_t i = 0; i < a->n_kernels; i++) {
            const wb_kernel *x = &a->kernels[i], *y = &b->kernels[i];
            cr_assert_str_eq(x->name, y->name);
            cr_assert_str_eq(x->mangled, y->mangled);
            cr_assert(!memcmp(x->grid, y->grid, sizeof x->grid) && !memcmp(x->block, y->block, sizeof x->block) &&
                      !memcmp(x->cluster, y->cluster, sizeof x->cluster) && x->start == y->start && x->end == y->end &&
                      x->registers_per_thread == y->registers_per_thread && x->static_shared == y->static_shared &&
                      x->dynamic_shared == y->dynamic_shared && x->stream == y->stream && x->api == y->api &&
                      x->correlation_id == y->correlation_id && x->graph_id == y->graph_id, "kernels[%zu] differs", i);
        }
        for (size_t i = 0; i < a->n_ops; i++) {
            const wb_gpu_op *x = &a->ops[i], *y = &b->ops[i];
            cr_assert(x->kind == y->kind && !strcmp(x->copy_kind, y->copy_kind) && !strcmp(x->src_kind, y->src_kind) &&
                      !strcmp(x->dst_kind, y->dst_kind) && x->async == y->async && x->bytes == y->bytes &&
                      x->start == y->start && x->end == y->end && x->api == y->api, "ops[%zu] differs", i);
        }
        for (size_t i = 0; i < a->n_ranges; i++) {
            const wb_range *x = &a->ranges[i], *y = &b->ranges[i];
            cr_assert_str_eq(x->name, y->name);
            cr_assert(x->start == y->start && x->end == y->end && x->is_mark == y->is_mark && x->parent == y->parent &&
                      x->depth == y->depth && x->thread == y->thread && !x->domain == !y->domain, "ranges[%zu] differs", i);
        }
    }
    wb_recording_free(&fast);
    wb_recording_free(&slow);
}
