/*
 * test_ranks.c: captures of several processes (docs/capture-format.md, "Several processes").
 *
 * Two synthetic rank files, written the way the capture library writes them (its head with
 * "rank" and "world_size", no rank on the records), whose right answers are known by
 * construction. Both ranks reuse the same thread id, correlation ids and stream id, as two real
 * processes may: every link must keep to its own rank.
 *
 *   rank 0: window [900, 2500]; "work" [1000, 2000] launches 2 kernels (corr 1, 2);
 *           a second "work" [2600, 2700] (1 kernel) lies outside rank 0's window but inside
 *           rank 1's, so it must not count;
 *   rank 1: window [1000, 3000]; "work" [1050, 2100] launches 3 kernels (corr 1, 2, 3) that
 *           run at the same time as rank 0's.
 */
#include "acquire.h"
#include "capture.h"
#include "capture_merge.h"
#include "chrome_trace.h"
#include "facts.h"
#include "grade.h"
#include "lesson.h"
#include "overlap.h"
#include "predictions.h"
#include "speak.h"
#include "timeline_html.h"
#include "time_facts.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREAD 100
#define STREAM 7

static json_t *api(uint32_t corr, uint64_t start) {
    return json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I}", "name", "cudaLaunchKernel", "domain", "runtime", "start",
                     (json_int_t)start, "end", (json_int_t)start + 20, "correlation_id", (json_int_t)corr, "thread",
                     (json_int_t)THREAD, "return", (json_int_t)0);
}

static json_t *kernel(uint32_t corr, uint64_t start, const char *name) {
    return json_pack("{s:s, s:s, s:[i,i,i], s:[i,i,i], s:[i,i,i], s:i, s:i, s:i, s:i, s:i, s:I, s:I, s:I, s:i, s:i}", "name", name,
                     "mangled", name, "grid", 16, 1, 1, "block", 256, 1, 1, "cluster", 0, 0, 0, "registers_per_thread", 16,
                     "static_shared_bytes", 0, "dynamic_shared_bytes", 0, "device", 0, "stream", STREAM, "start",
                     (json_int_t)start, "end", (json_int_t)start + 300, "correlation_id", (json_int_t)corr, "graph_id", 0,
                     "graph_node_id", 0);
}

static json_t *range(const char *name, uint64_t start, uint64_t end, int id) {
    return json_pack("{s:s, s:s, s:n, s:I, s:I, s:I, s:i}", "kind", "range", "name", name, "domain", "start", (json_int_t)start,
                     "end", (json_int_t)end, "thread", (json_int_t)THREAD, "id", id);
}

static int dying_rank = -1; /* this rank's capture is written from a signal handler (complete false, signal 11) */

/* A rank's file as the capture library writes it; world_size < 0 leaves it null (WB_WORLD_SIZE unset). */
static void write_rank(const char *base, int rank, int world_size) {
    json_t *calls = json_array(), *kernels = json_array(), *ranges = json_array(), *windows = json_array();
    if (rank == 0) {
        json_array_append_new(windows, json_pack("{s:I, s:I}", "start", (json_int_t)900, "end", (json_int_t)2500));
        json_array_append_new(ranges, range("work", 1000, 2000, 1));
        json_array_append_new(ranges, range("work", 2600, 2700, 2));
        for (uint32_t c = 1; c <= 2; c++) json_array_append_new(calls, api(c, 1000 + 100 * c));
        json_array_append_new(calls, api(3, 2610));
        for (uint32_t c = 1; c <= 2; c++) json_array_append_new(kernels, kernel(c, 1100 + 300 * c, "rank0_kernel"));
        json_array_append_new(kernels, kernel(3, 2620, "rank0_kernel"));
    } else {
        json_array_append_new(windows, json_pack("{s:I, s:I}", "start", (json_int_t)1000, "end", (json_int_t)3000));
        json_array_append_new(ranges, range("work", 1050, 2100, 1));
        for (uint32_t c = 1; c <= 3; c++) json_array_append_new(calls, api(c, 1050 + 100 * c));
        for (uint32_t c = 1; c <= 3; c++) json_array_append_new(kernels, kernel(c, 1150 + 300 * c, "rank1_kernel"));
    }
    json_t *root = json_pack("{s:s, s:i, s:b, s:b, s:s, s:i, s:o, s:{s:s, s:I}, s:{s:i, s:[s], s:s, s:n}, s:{s:i, s:i}, "
                             "s:[{s:i, s:s, s:s, s:s, s:i, s:I}], s:i, s:i, s:o, s:o, s:o, s:[], s:[], s:o}",
                             "format", "gpu-workbench-capture", "version", 1, "complete", 1, "cupti_enabled", 1,
                             "nvtx_injection", "/usr/lib/libcupti.so", "rank", rank, "world_size",
                             world_size >= 0 ? json_integer(world_size) : json_null(), "clock", "unit", "ns", "cupti_start",
                             (json_int_t)500, "process", "pid", 4000 + rank, "argv", "wb_ranks", "written_at",
                             rank ? "2026-12-01T12:00:02Z" : "2026-12-01T12:00:01Z", "signal", "versions", "driver", 13000,
                             "runtime", 13000, "devices", "id", 0, "name", "NVIDIA H200", "compute_capability", "9.0", "arch",
                             "sm_90", "multiprocessors", 132, "memory_bytes", (json_int_t)150000000000, "dropped_records", 0,
                             "lost_records", 0, "profiler_windows", windows, "api_calls", calls, "kernels", kernels, "memcpys",
                             "memsets", "ranges", ranges);
    cr_assert_not_null(root);
    if (rank == dying_rank) {
        json_object_set_new(root, "complete", json_false());
        json_object_set_new(json_object_get(root, "process"), "signal", json_integer(11));
    }
    char path[4200];
    snprintf(path, sizeof path, "%s.rank%d", base, rank);
    cr_assert_eq(json_dump_file(root, path, JSON_COMPACT), 0);
    json_decref(root);
}

typedef struct {
    char dir[64], base[128];
} scratch;

static void scratch_open(scratch *s) {
    snprintf(s->dir, sizeof s->dir, "/tmp/wb-ranks-XXXXXX");
    cr_assert_not_null(mkdtemp(s->dir));
    snprintf(s->base, sizeof s->base, "%s/capture-two.json", s->dir);
}

static void scratch_close(scratch *s) {
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", s->dir);
    cr_assert_eq(system(cmd), 0);
}

static int exists(const char *path) { return access(path, F_OK) == 0; }

/* Both ranks written and merged; the merged capture loaded into c. */
static void merged(scratch *s, wb_capture *c) {
    scratch_open(s);
    write_rank(s->base, 0, 2);
    write_rank(s->base, 1, 2);
    wb_error err = {0};
    cr_assert_eq(wb_rank_captures_merge(s->base, 2, "wb_ranks (variant two)", &err), 0, "%s", err.message);
    cr_assert_eq(wb_capture_load(s->base, c, &err), 0, "%s", err.message);
}

static size_t count_kernels_of(const wb_capture *c, int rank) {
    size_t n = 0;
    for (size_t i = 0; i < c->n_kernels; i++) n += c->kernels[i].rank == rank;
    return n;
}

Test(ranks, merge_tags_every_record_and_removes_the_rank_files) {
    scratch s;
    wb_capture c;
    merged(&s, &c);
    cr_assert_eq(c.world_size, 2);
    cr_assert_eq(c.n_kernels, 6);
    cr_assert_eq(count_kernels_of(&c, 0), 3);
    cr_assert_eq(count_kernels_of(&c, 1), 3);
    cr_assert_eq(c.n_api, 6);
    cr_assert_eq(c.n_ranges, 3);
    cr_assert_eq(c.n_windows, 2);
    cr_assert(c.complete && c.cupti_enabled && c.nvtx_injected);
    /* each kernel is linked to its own rank's call with the same correlation id, never the other's */
    for (size_t i = 0; i < c.n_kernels; i++) {
        cr_assert_geq(c.kernels[i].api, 0, "kernel %zu has no launch", i);
        const wb_api_call *a = &c.api[c.kernels[i].api];
        cr_assert_eq(a->rank, c.kernels[i].rank);
        cr_assert_eq(a->correlation_id, c.kernels[i].correlation_id);
    }
    char path[200];
    snprintf(path, sizeof path, "%s.rank0", s.base);
    cr_assert(!exists(path), "rank 0's file is kept after the merge");
    wb_capture_free(&c);
    scratch_close(&s);
}

Test(ranks, merged_head_keeps_each_rank) {
    scratch s;
    wb_capture c;
    merged(&s, &c);
    wb_capture_free(&c);
    json_error_t jerr;
    json_t *root = json_load_file(s.base, 0, &jerr);
    cr_assert_not_null(root, "%s", jerr.text);
    cr_assert_eq(json_integer_value(json_object_get(root, "world_size")), 2);
    json_t *ranks = json_object_get(root, "ranks");
    cr_assert_eq(json_array_size(ranks), 2);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(json_array_get(ranks, 1), "process"), "pid")), 4001);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(root, "process"), "written_at")), "2026-12-01T12:00:02Z");
    cr_assert_eq(json_array_size(json_object_get(root, "devices")), 1, "the one GPU both ranks share is listed once");
    json_t *k = json_array_get(json_object_get(root, "kernels"), 5);
    cr_assert_eq(json_integer_value(json_object_get(k, "rank")), 1);
    json_decref(root);
    scratch_close(&s);
}

Test(ranks, facts_per_rank_and_over_all_ranks) {
    scratch s;
    wb_capture c;
    merged(&s, &c);
    wb_occurrences all, r0, r1;
    cr_assert_eq(wb_find_occurrences(&c, "work", &all), 0);
    cr_assert_eq(wb_find_occurrences_on(&c, "work", 0, &r0), 0);
    cr_assert_eq(wb_find_occurrences_on(&c, "work", 1, &r1), 0);
    /* rank 0's second "work" lies in rank 1's window only: it is no occurrence */
    cr_assert_eq(r0.n, 1);
    cr_assert_eq(r1.n, 1);
    cr_assert_eq(all.n, 1);
    cr_assert_eq(r0.items[0].n_kernels, 2);
    cr_assert_eq(r1.items[0].n_kernels, 3);
    cr_assert_eq(all.items[0].n_kernels, 5);
    cr_assert_eq(all.items[0].n_api, 5);
    cr_assert_eq(all.items[0].n_ranks, 2);
    cr_assert_eq(all.items[0].rank, WB_ALL_RANKS);
    cr_assert_eq(r1.items[0].rank, 1);
    /* the same stream id in two processes is two streams */
    cr_assert_eq(wb_occurrence_streams(&c, &all.items[0]), 2);
    cr_assert_eq(wb_occurrence_streams(&c, &r1.items[0]), 1);
    /* joined: from the earliest start (rank 0's 1000) to the latest end (rank 1's 2100) */
    cr_assert_float_eq(wb_occurrence_wall_us(&c, &all.items[0]), 1.1, 1e-9);
    cr_assert_float_eq(wb_occurrence_wall_us(&c, &r1.items[0]), 1.05, 1e-9);
    cr_assert_float_eq(wb_occurrence_gpu_us(&c, &all.items[0]), 1.5, 1e-9);
    /* rank 0's and rank 1's kernels run at the same time, but on their own processes: no overlap */
    cr_assert_eq(wb_occurrence_overlap_ns(&c, &all.items[0]), 0);
    wb_occurrences_free(&all);
    wb_occurrences_free(&r0);
    wb_occurrences_free(&r1);
    wb_capture_free(&c);
    scratch_close(&s);
}

static const char LESSON[] = "lesson: 00_ranks\ntitle: t\nbinary: wb_ranks\nworld_size: 2\n"
                             "variants:\n  - name: two\n    args: []\n"
                             "ranges: [work]\n"
                             "questions:\n  - id: all\n    range: work\n    facts: [kernels]\n    ask: a\n"
                             "  - id: one\n    range: work\n    rank: 1\n    facts: [kernels]\n    ask: b\n";

Test(ranks, grading_with_rank) {
    scratch s;
    wb_capture c;
    merged(&s, &c);
    wb_capture_free(&c);
    wb_error err = {0};
    wb_lesson l;
    cr_assert_eq(wb_lesson_load_buffer("00_ranks", LESSON, strlen(LESSON), &l, &err), 0, "%s", err.message);
    cr_assert_eq(l.world_size, 2);
    cr_assert_eq(wb_lesson_world_size(&l, "two"), 2);
    cr_assert_eq(l.questions[0].rank, -1);
    cr_assert_eq(l.questions[1].rank, 1);
    char rec_path[200];
    snprintf(rec_path, sizeof rec_path, "%s/recording.json", s.dir);
    char *args[1] = {NULL};
    wb_run run = {.variant = "two", .args = args, .n_args = 0, .exit_code = 0};
    const char *paths[1] = {s.base};
    cr_assert_eq(wb_recording_write(rec_path, "00_ranks", "2026-12-01T12:00:03Z", &run, paths, 1, NULL, &err), 0, "%s", err.message);
    wb_recording rec;
    cr_assert_eq(wb_recording_load(rec_path, &rec, &err), 0, "%s", err.message);
    const char *yaml = "lesson: 00_ranks\npredictions:\n"
                       "  - {id: all, range: work, kernels: 5, api_calls: {cudaLaunchKernel: 5}, streams: 2}\n"
                       "  - {id: zero, range: work, rank: 0, kernels: 2}\n"
                       "  - {id: one, range: work, rank: 1, kernels: 3, streams: 1}\n"
                       "  - {id: wrong, range: work, rank: 1, kernels: 5}\n";
    wb_prediction_set p;
    cr_assert_eq(wb_predictions_load_buffer("p.yaml", yaml, strlen(yaml), &p, &err), 0, "%s", err.message);
    cr_assert_eq(p.items[1].rank, 0);
    cr_assert_eq(wb_predictions_check_lesson(&p, &l, &err), 0, "%s", err.message);
    wb_grade g;
    cr_assert_eq(wb_grade_predictions(&p, &l, &rec, &g, &err), 0, "%s", err.message);
    cr_assert_eq(g.n, 7);
    cr_assert_eq(g.right, 6, "right: %zu", g.right);
    cr_assert(!g.facts[6].right);
    cr_assert_eq(g.facts[6].actual, 3);
    wb_grade_free(&g);
    wb_predictions_free(&p);

    /* a rank the variant does not run: exit 2, naming the file and the ranks there are */
    const char *bad = "lesson: 00_ranks\npredictions:\n  - {id: x, range: work, rank: 2, kernels: 1}\n";
    cr_assert_eq(wb_predictions_load_buffer("p.yaml", bad, strlen(bad), &p, &err), 0, "%s", err.message);
    wb_error e2 = {0};
    cr_assert_eq(wb_predictions_check_lesson(&p, &l, &e2), WB_EXIT_INPUT);
    cr_assert(strstr(e2.message, "p.yaml") && strstr(e2.message, "rank 2") && strstr(e2.message, "ranks 0 to 1"), "%s", e2.message);
    wb_predictions_free(&p);
    wb_recording_free(&rec);
    wb_lesson_free(&l);
    scratch_close(&s);
}

Test(ranks, repeats_keep_times_per_rank) {
    scratch s;
    wb_capture c;
    merged(&s, &c);
    wb_range_times t[3];
    cr_assert_eq(wb_range_times_of(&c, "two", "work", WB_ALL_RANKS, &t[0]), 0);
    cr_assert_eq(wb_range_times_of(&c, "two", "work", 0, &t[1]), 0);
    cr_assert_eq(wb_range_times_of(&c, "two", "work", 1, &t[2]), 0);
    cr_assert(!t[0].per_rank && t[1].per_rank && t[2].per_rank && t[2].rank == 1);
    cr_assert_float_eq(t[0].wall_us[0], 1.1, 1e-9);
    cr_assert_float_eq(t[1].wall_us[0], 1.0, 1e-9);
    cr_assert_float_eq(t[2].gpu_us[0], 0.9, 1e-9);
    wb_repeat rep = {t, 3};
    wb_recording_extras extras = {NULL, &rep, 1, NULL};
    char rec_path[200];
    snprintf(rec_path, sizeof rec_path, "%s/recording.json", s.dir);
    char *args[1] = {NULL};
    wb_run run = {.variant = "two", .args = args};
    const char *paths[1] = {s.base};
    wb_error err = {0};
    cr_assert_eq(wb_recording_write(rec_path, "00_ranks", "2026-12-01T12:00:03Z", &run, paths, 1, &extras, &err), 0, "%s", err.message);
    wb_recording rec;
    cr_assert_eq(wb_recording_load(rec_path, &rec, &err), 0, "%s", err.message);
    cr_assert_eq(rec.n_repeats, 1);
    cr_assert_eq(rec.repeats[0].n, 3);
    cr_assert(!rec.repeats[0].items[0].per_rank, "no rank written: over all ranks");
    cr_assert(rec.repeats[0].items[2].per_rank && rec.repeats[0].items[2].rank == 1);
    cr_assert_float_eq(rec.repeats[0].items[2].gpu_us[0], 0.9, 1e-9);
    wb_recording_free(&rec);
    for (int i = 0; i < 3; i++) free(t[i].variant), free(t[i].range), free(t[i].gpu_us), free(t[i].wall_us);
    wb_capture_free(&c);
    scratch_close(&s);
}

Test(ranks, trace_has_lanes_per_rank) {
    scratch s;
    wb_capture c;
    merged(&s, &c);
    wb_recording rec = {0};
    rec.lesson = "00_ranks";
    rec.n_runs = 1;
    wb_run run = {.variant = "two", .capture = c};
    rec.runs = &run;
    json_t *trace = wb_chrome_trace(&rec);
    cr_assert_not_null(trace);
    json_t *events = json_object_get(trace, "traceEvents");
    json_int_t gpu_pid[2] = {-1, -1};
    int host_lanes = 0;
    for (size_t i = 0; i < json_array_size(events); i++) {
        json_t *e = json_array_get(events, i);
        const char *ph = json_string_value(json_object_get(e, "ph")), *name = json_string_value(json_object_get(e, "name"));
        if (strcmp(ph, "M") || strcmp(name, "process_name")) continue;
        const char *title = json_string_value(json_object_get(json_object_get(e, "args"), "name"));
        if (!strcmp(title, "two rank 0: GPU (NVIDIA H200)")) gpu_pid[0] = json_integer_value(json_object_get(e, "pid"));
        if (!strcmp(title, "two rank 1: GPU (NVIDIA H200)")) gpu_pid[1] = json_integer_value(json_object_get(e, "pid"));
        host_lanes += !strcmp(title, "two rank 0: host API") || !strcmp(title, "two rank 1: host API");
    }
    cr_assert(gpu_pid[0] > 0 && gpu_pid[1] > 0 && gpu_pid[0] != gpu_pid[1], "%lld %lld", (long long)gpu_pid[0], (long long)gpu_pid[1]);
    cr_assert_eq(host_lanes, 2);
    int kernels[2] = {0, 0};
    for (size_t i = 0; i < json_array_size(events); i++) {
        json_t *e = json_array_get(events, i);
        const char *cat = json_string_value(json_object_get(e, "cat"));
        if (!cat || strcmp(cat, "kernel")) continue;
        json_int_t pid = json_integer_value(json_object_get(e, "pid"));
        const char *name = json_string_value(json_object_get(e, "name"));
        for (int r = 0; r < 2; r++)
            if (pid == gpu_pid[r]) {
                kernels[r]++;
                cr_assert_str_eq(name, r ? "rank1_kernel" : "rank0_kernel");
            }
    }
    cr_assert_eq(kernels[0], 3);
    cr_assert_eq(kernels[1], 3);
    json_decref(trace);

    char *html = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&html, &n);
    wb_timeline_context ctx = {"00_ranks", "replay", NULL, 0};
    wb_error err = {0};
    cr_assert_eq(wb_timeline_html(f, &ctx, &rec, &err), 0, "%s", err.message);
    fclose(f);
    cr_assert(strstr(html, "Rank 0 of 2") && strstr(html, "Rank 1 of 2"));
    cr_assert(strstr(html, "rank 1 stream 7") && strstr(html, "rank 0, thread 100"));
    free(html);
    wb_capture_free(&c);
    scratch_close(&s);
}

Test(ranks, one_rank_of_world_size_1) {
    /* a launcher that always starts its ranks, at world size 1: one rank0 file, merged alone */
    scratch s;
    scratch_open(&s);
    write_rank(s.base, 0, 1);
    wb_error err = {0};
    cr_assert_eq(wb_rank_captures_merge(s.base, 1, "wb_ranks", &err), 0, "%s", err.message);
    wb_capture c;
    cr_assert_eq(wb_capture_load(s.base, &c, &err), 0, "%s", err.message);
    cr_assert_eq(c.world_size, 1);
    cr_assert_eq(c.n_kernels, 3);
    wb_occurrences o;
    cr_assert_eq(wb_find_occurrences(&c, "work", &o), 0);
    cr_assert_eq(o.n, 1);
    cr_assert_eq(o.items[0].n_kernels, 2);
    wb_occurrences_free(&o);
    wb_capture_free(&c);
    scratch_close(&s);
}

Test(ranks, an_incomplete_rank_is_named) {
    scratch s;
    scratch_open(&s);
    dying_rank = 1;
    write_rank(s.base, 0, 2);
    write_rank(s.base, 1, 2);
    dying_rank = -1;
    wb_error err = {0};
    cr_assert_eq(wb_rank_captures_merge(s.base, 2, "wb_ranks", &err), 0, "%s", err.message);
    char rec_path[200];
    snprintf(rec_path, sizeof rec_path, "%s/recording.json", s.dir);
    char *args[1] = {NULL};
    wb_run run = {.variant = "two", .args = args};
    const char *paths[1] = {s.base};
    cr_assert_eq(wb_recording_write(rec_path, "00_ranks", "2026-12-01T12:00:03Z", &run, paths, 1, NULL, &err), 0, "%s", err.message);
    wb_recording rec;
    cr_assert_eq(wb_recording_load(rec_path, &rec, &err), 0, "%s", err.message);
    const wb_capture *c = &rec.runs[0].capture;
    cr_assert(!c->complete);
    cr_assert_str_eq(c->rank_problems, "rank 1: incomplete (signal 11)");
    wb_lesson l;
    cr_assert_eq(wb_lesson_load_buffer("00_ranks", LESSON, strlen(LESSON), &l, &err), 0, "%s", err.message);
    const char *variants[1] = {"two"};
    wb_error e2 = {0};
    cr_assert_eq(wb_check_usable(&rec, &l, variants, 1, NULL, &e2), WB_EXIT_CAPTURE);
    cr_assert(strstr(e2.message, "of its 2 processes: rank 1: incomplete (signal 11)"), "%s", e2.message);
    wb_lesson_free(&l);
    wb_recording_free(&rec);
    scratch_close(&s);
}

Test(ranks, world_size_disagreeing_or_extra_rank_is_exit_3) {
    scratch s;
    scratch_open(&s);
    write_rank(s.base, 0, 2);
    write_rank(s.base, 1, -1); /* WB_WORLD_SIZE unset in rank 1 */
    wb_error err = {0};
    cr_assert_eq(wb_rank_captures_merge(s.base, 2, "wb_ranks", &err), WB_EXIT_CAPTURE);
    cr_assert(strstr(err.message, "rank 1 ran with WB_WORLD_SIZE nothing") && strstr(err.message, "world_size 2"), "%s", err.message);
    write_rank(s.base, 1, 2);
    write_rank(s.base, 2, 2);
    wb_error err2 = {0};
    cr_assert_eq(wb_rank_captures_merge(s.base, 2, "wb_ranks", &err2), WB_EXIT_CAPTURE);
    cr_assert(strstr(err2.message, "rank 2, but lesson.yaml declares world_size 2"), "%s", err2.message);
    scratch_close(&s);
}

/* ---- the merge's errors, whole, in English and in Japanese ------------------------------------ */

/* One member of a rank's file set to value (taken), the rest as write_rank wrote it. */
static void set_member(const char *base, int rank, const char *key, json_t *value) {
    char path[4200];
    snprintf(path, sizeof path, "%s.rank%d", base, rank);
    json_t *root = json_load_file(path, 0, NULL);
    cr_assert_not_null(root);
    cr_assert_eq(json_object_set_new(root, key, value), 0);
    cr_assert_eq(json_dump_file(root, path, JSON_COMPACT), 0);
    json_decref(root);
}

/* The merge of world_size ranks fails with exit 3 and exactly this message, in both languages;
 * en and ja are formats whose %1$s is the capture's path (each rank file is <path>.rank<r>). */
static void expect_merge_error(const scratch *s, int world_size, const char *en, const char *ja) {
    const char *langs[2] = {"en", "ja"}, *formats[2] = {en, ja};
    for (int i = 0; i < 2; i++) {
        speak(langs[i]);
        char expected[2048];
        snprintf(expected, sizeof expected, formats[i], s->base);
        wb_error err = {0};
        cr_assert_eq(wb_rank_captures_merge(s->base, world_size, "wb_ranks", &err), WB_EXIT_CAPTURE, "%s", langs[i]);
        cr_assert_str_eq(err.message, expected, "%s", langs[i]);
        cr_assert(!exists(s->base), "a failed merge writes no capture");
    }
}

#define MISSING_EN_TAIL                                                                                                         \
    "so the run is incomplete and not graded. Each rank must set WB_RANK and WB_WORLD_SIZE before its first CUDA call and make " \
    "at least one; a rank that never started or was killed (SIGKILL) writes nothing"
#define MISSING_JA_TAIL                                                                                                       \
    "実行が不完全なので採点していません。各ランクは最初の CUDA 呼び出しより前に WB_RANK と WB_WORLD_SIZE を設定し、CUDA " \
    "呼び出しを少なくとも 1 回行う必要があります。起動しなかったランクや強制終了された (SIGKILL) ランクは何も書きません"

Test(ranks, missing_ranks_are_exit_3_and_said_whole_in_english_and_japanese) {
    scratch s;
    scratch_open(&s);
    write_rank(s.base, 0, 3);
    expect_merge_error(&s, 3, "wb_ranks wrote no capture for ranks 1, 2 of its 3 (expected %1$s.rank0 to .rank2), " MISSING_EN_TAIL,
                       "wb_ranks は全 3 ランクのうちランク 1, 2 のキャプチャを書きませんでした (%1$s.rank0 から .rank2 までが必要で"
                       "す)。" MISSING_JA_TAIL);
    write_rank(s.base, 1, 3);
    expect_merge_error(&s, 3, "wb_ranks wrote no capture for rank 2 of its 3 (expected %1$s.rank0 to .rank2), " MISSING_EN_TAIL,
                       "wb_ranks は全 3 ランクのうちランク 2 のキャプチャを書きませんでした (%1$s.rank0 から .rank2 までが必要です)。"
                       MISSING_JA_TAIL);
    scratch_close(&s);
}

Test(ranks, a_rank_file_that_disagrees_is_said_whole_in_english_and_japanese) {
    scratch s;
    scratch_open(&s);
    write_rank(s.base, 0, 2);
    write_rank(s.base, 1, 2);
    set_member(s.base, 1, "world_size", json_null()); /* WB_WORLD_SIZE unset in rank 1 */
    expect_merge_error(&s, 2,
                       "%1$s.rank1: rank 1 ran with WB_WORLD_SIZE nothing, but lesson.yaml declares world_size 2 for wb_ranks. "
                       "Set WB_WORLD_SIZE=2 in every rank before its first CUDA call, or correct world_size",
                       "%1$s.rank1: ランク 1 は WB_WORLD_SIZE なしで実行されましたが、lesson.yaml は wb_ranks の world_size を 2 "
                       "と宣言しています。すべてのランクで最初の CUDA 呼び出しより前に WB_WORLD_SIZE=2 を設定するか、world_size "
                       "を直してください");
    set_member(s.base, 1, "world_size", json_integer(4));
    expect_merge_error(&s, 2,
                       "%1$s.rank1: rank 1 ran with WB_WORLD_SIZE 4, but lesson.yaml declares world_size 2 for wb_ranks. Set "
                       "WB_WORLD_SIZE=2 in every rank before its first CUDA call, or correct world_size",
                       "%1$s.rank1: ランク 1 は WB_WORLD_SIZE 4 で実行されましたが、lesson.yaml は wb_ranks の world_size を 2 と"
                       "宣言しています。すべてのランクで最初の CUDA 呼び出しより前に WB_WORLD_SIZE=2 を設定するか、world_size を"
                       "直してください");
    set_member(s.base, 0, "rank", json_integer(1));
    expect_merge_error(&s, 2,
                       "%1$s.rank0: the file of rank 0 says rank another; the capture library names each file by the WB_RANK it "
                       "saw, so this file was not written by wb_ranks",
                       "%1$s.rank0: ランク 0 のファイルには別のランクが書かれています。キャプチャライブラリは受け取った WB_RANK "
                       "でファイルに名前を付けるため、このファイルは wb_ranks が書いたものではありません");
    set_member(s.base, 0, "rank", json_null());
    expect_merge_error(&s, 2,
                       "%1$s.rank0: the file of rank 0 says rank none; the capture library names each file by the WB_RANK it "
                       "saw, so this file was not written by wb_ranks",
                       "%1$s.rank0: ランク 0 のファイルにはランクが書かれていません。キャプチャライブラリは受け取った WB_RANK でフ"
                       "ァイルに名前を付けるため、このファイルは wb_ranks が書いたものではありません");
    char rank0[200];
    snprintf(rank0, sizeof rank0, "%s.rank0", s.base);
    FILE *f = fopen(rank0, "w");
    cr_assert_not_null(f);
    fclose(f);
    expect_merge_error(&s, 2, "%1$s.rank0: rank 0's capture is empty", "%1$s.rank0: ランク 0 のキャプチャが空です");
    scratch_close(&s);
}

Test(ranks, launcher_capture_is_kept_aside_and_stale_ranks_cleared) {
    scratch s;
    scratch_open(&s);
    FILE *f = fopen(s.base, "w");
    fputs("{}", f);
    fclose(f);
    write_rank(s.base, 0, 2);
    write_rank(s.base, 1, 2);
    wb_error err = {0};
    cr_assert_eq(wb_rank_captures_merge(s.base, 2, "wb_ranks", &err), 0, "%s", err.message);
    char launcher[200];
    snprintf(launcher, sizeof launcher, "%s.launcher", s.base);
    cr_assert(exists(launcher));
    write_rank(s.base, 1, 2);
    wb_rank_captures_clear(s.base);
    char stale[200];
    snprintf(stale, sizeof stale, "%s.rank1", s.base);
    cr_assert(!exists(stale) && !exists(launcher));
    cr_assert(exists(s.base), "clearing removes only the ranks' and the launcher's files");
    scratch_close(&s);
}

Test(ranks, one_rank_file_read_alone_and_bad_ranks) {
    scratch s;
    scratch_open(&s);
    write_rank(s.base, 1, 2);
    char path[200];
    snprintf(path, sizeof path, "%s.rank1", s.base);
    wb_capture c;
    wb_error err = {0};
    cr_assert_eq(wb_capture_load(path, &c, &err), 0, "%s", err.message);
    cr_assert_eq(c.world_size, 2);
    cr_assert_eq(c.kernels[0].rank, 1, "records of a rank's own file are that rank's");
    wb_capture_free(&c);
    const char *bad = "{\"format\":\"gpu-workbench-capture\",\"version\":1,\"world_size\":2,\"dropped_records\":0,"
                      "\"profiler_windows\":[],\"api_calls\":[],\"kernels\":[],\"memcpys\":[],\"memsets\":[],"
                      "\"ranges\":[{\"rank\":2,\"kind\":\"mark\",\"name\":\"m\",\"start\":1,\"end\":1,\"thread\":1}]}";
    wb_error e2 = {0};
    cr_assert_eq(wb_capture_load_buffer("bad.json", bad, strlen(bad), &c, &e2), WB_EXIT_CAPTURE); /* incomplete: refused */
    cr_assert(strstr(e2.message, "bad.json") && strstr(e2.message, "rank"), "%s", e2.message);
    wb_capture_free(&c);
    scratch_close(&s);
}

Test(ranks, lesson_world_size_is_checked) {
    wb_lesson l;
    wb_error err = {0};
    const char *zero = "lesson: 00_ranks\ntitle: t\nbinary: b\nworld_size: 0\nvariants:\n  - name: a\n    args: []\n"
                       "ranges: [w]\nquestions:\n  - id: q\n    range: w\n    facts: [kernels]\n    ask: a\n";
    cr_assert_eq(wb_lesson_load_buffer("00_ranks", zero, strlen(zero), &l, &err), WB_EXIT_INPUT);
    cr_assert(strstr(err.message, "world_size") && strstr(err.message, ":4:"), "%s", err.message);
    const char *per_variant = "lesson: 00_ranks\ntitle: t\nbinary: b\nvariants:\n  - name: one\n    args: []\n"
                              "  - name: four\n    args: []\n    world_size: 4\n"
                              "ranges: [w]\nquestions:\n  - id: q\n    variant: one\n    range: w\n    rank: 1\n"
                              "    facts: [kernels]\n    ask: a\n";
    wb_error e2 = {0};
    cr_assert_eq(wb_lesson_load_buffer("00_ranks", per_variant, strlen(per_variant), &l, &e2), WB_EXIT_INPUT);
    cr_assert(strstr(e2.message, "rank 1, but variant one runs 1 process"), "%s", e2.message);
    const char *ok = "lesson: 00_ranks\ntitle: t\nbinary: b\nvariants:\n  - name: one\n    args: []\n"
                     "  - name: four\n    args: []\n    world_size: 4\n"
                     "ranges: [w]\nquestions:\n  - id: q\n    variant: four\n    range: w\n    rank: 3\n"
                     "    facts: [kernels]\n    ask: a\n";
    wb_error e3 = {0};
    cr_assert_eq(wb_lesson_load_buffer("00_ranks", ok, strlen(ok), &l, &e3), 0, "%s", e3.message);
    cr_assert_eq(wb_lesson_world_size(&l, "one"), 1);
    cr_assert_eq(wb_lesson_world_size(&l, "four"), 4);
    wb_lesson_free(&l);
}
