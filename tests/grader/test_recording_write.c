/*
 * test_recording_write.c: recordings written from capture files (the probe's H200 captures), as
 * they are and trimmed the way `grader record` trims them: without the API records outside the
 * profiled window, the grade of the probe's answer key (true by construction), every kernel's
 * launch call and the device and version fields are unchanged, and the file is smaller; a folder
 * that is not there and an empty capture are refused with whole messages in English and Japanese.
 */
#include "answer_key.h"
#include "capture.h"
#include "facts.h"
#include "grade.h"
#include "lesson.h"
#include "speak.h"
#include "summary.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *probe_path(const char *rel) {
    static char buf[4][4096];
    static int k;
    char *b = buf[k++ % 4];
    snprintf(b, 4096, "%s/tests/grader/probe/%s", getenv("WB_SOURCE_DIR"), rel);
    return b;
}

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

typedef struct {
    char dir[64];
    char captures[2][128];
    const char *paths[2];
    wb_recording rec; /* the probe's recording, decoded */
} fixture;

/* The probe's two captures as the capture library wrote them: one file each. */
static void fixture_open(fixture *f) {
    wb_error err = {0};
    snprintf(f->dir, sizeof f->dir, "/tmp/wb-recwrite-XXXXXX");
    cr_assert_not_null(mkdtemp(f->dir));
    cr_assert_eq(wb_recording_load(probe_path("lessons/00_probe/traces/sm_90.json"), &f->rec, &err), 0, "%s", err.message);
    cr_assert_eq(f->rec.n_runs, 2);
    json_error_t jerr;
    json_t *root = json_load_file(probe_path("lessons/00_probe/traces/sm_90.json"), 0, &jerr);
    cr_assert_not_null(root);
    for (size_t i = 0; i < 2; i++) {
        snprintf(f->captures[i], sizeof f->captures[i], "%s/capture-%zu.json", f->dir, i);
        json_t *cap = json_object_get(json_array_get(json_object_get(root, "runs"), i), "capture");
        cr_assert_eq(json_dump_file(cap, f->captures[i], JSON_COMPACT), 0);
        f->paths[i] = f->captures[i];
    }
    json_decref(root);
}

static void fixture_close(fixture *f) {
    for (size_t i = 0; i < 2; i++) unlink(f->captures[i]);
    char path[256];
    snprintf(path, sizeof path, "%s/out.json", f->dir);
    unlink(path);
    rmdir(f->dir);
    wb_recording_free(&f->rec);
}

static void grade_key(const wb_recording *rec) {
    wb_lesson lesson;
    wb_answer_key key;
    wb_error err = {0};
    cr_assert_eq(wb_lesson_load(probe_path("lessons/00_probe"), &lesson, &err), 0, "%s", err.message);
    cr_assert_eq(wb_answer_key_load(probe_path("expectations/00_probe.yaml"), &key, &err), 0, "%s", err.message);
    wb_grade g;
    cr_assert_eq(wb_grade_predictions(&wb_answer_key_arch(&key, "sm_90")->answers, &lesson, rec, &g, &err), 0, "%s", err.message);
    cr_assert_eq(g.right, g.n, "%zu of %zu", g.right, g.n);
    cr_assert_geq(g.n, 25);
    wb_grade_free(&g);
    wb_answer_key_free(&key);
    wb_lesson_free(&lesson);
}

Test(recording_write, as_it_is) {
    fixture f;
    fixture_open(&f);
    char out[256];
    snprintf(out, sizeof out, "%s/out.json", f.dir);
    wb_error err = {0};
    cr_assert_eq(wb_recording_write(out, "00_probe", "2026-12-01T00:00:00Z", f.rec.runs, f.paths, 2, NULL, &err), 0, "%s", err.message);
    wb_recording back;
    cr_assert_eq(wb_recording_load(out, &back, &err), 0, "%s", err.message);
    cr_assert_str_eq(back.recorded_at, "2026-12-01T00:00:00Z");
    for (size_t i = 0; i < 2; i++) {
        cr_assert_str_eq(back.runs[i].variant, f.rec.runs[i].variant);
        cr_assert_eq(back.runs[i].capture.n_api, f.rec.runs[i].capture.n_api);
        cr_assert_eq(back.runs[i].capture.api_dropped_outside_window, 0);
    }
    grade_key(&back);
    wb_recording_free(&back);
    fixture_close(&f);
}

Test(recording_write, trimmed_keeps_every_graded_fact) {
    fixture f;
    fixture_open(&f);
    char out[256];
    snprintf(out, sizeof out, "%s/out.json", f.dir);
    wb_error err = {0};
    cr_assert_eq(wb_recording_write(out, "00_probe", f.rec.recorded_at, f.rec.runs, f.paths, 2, &(wb_recording_extras){NULL, NULL, 0, &f.rec}, &err), 0, "%s", err.message);
    wb_recording back;
    cr_assert_eq(wb_recording_load(out, &back, &err), 0, "%s", err.message);
    long whole = file_size(f.captures[0]) + file_size(f.captures[1]), trimmed = file_size(out);
    cr_assert_lt(trimmed * 2, whole, "trimmed %ld bytes of %ld: the initialisation calls are most of it", trimmed, whole);
    for (size_t i = 0; i < 2; i++) {
        const wb_capture *a = &f.rec.runs[i].capture, *b = &back.runs[i].capture;
        /* an independent count of the calls outside the window: neither overlapping it nor a launch */
        size_t outside = 0;
        for (size_t j = 0; j < a->n_api; j++) {
            int launches = 0;
            for (size_t k = 0; k < a->n_kernels; k++) launches |= a->kernels[k].api == (long)j;
            for (size_t k = 0; k < a->n_ops; k++) launches |= a->ops[k].api == (long)j;
            int overlaps = 0;
            for (size_t w = 0; w < a->n_windows; w++) overlaps |= a->api[j].end >= a->windows[w].start && a->api[j].start <= a->windows[w].end;
            outside += !launches && !overlaps;
        }
        cr_assert_gt(outside, 1000, "the probe's run %zu has %zu calls outside its window", i, outside);
        cr_assert_eq(b->n_api, a->n_api - outside);
        cr_assert_eq(b->api_dropped_outside_window, outside);
        cr_assert_eq(b->n_kernels, a->n_kernels);
        cr_assert_eq(b->n_ops, a->n_ops);
        for (size_t k = 0; k < a->n_kernels; k++) {
            cr_assert_geq(b->kernels[k].api, 0);
            cr_assert_str_eq(b->api[b->kernels[k].api].name, a->api[a->kernels[k].api].name);
            cr_assert_eq(b->api[b->kernels[k].api].start, a->api[a->kernels[k].api].start);
        }
        cr_assert_str_eq(b->gpu, a->gpu);
        cr_assert_str_eq(b->cublas_version, a->cublas_version);
        cr_assert_eq(b->driver_version, a->driver_version);
        wb_summary sa, sb;
        cr_assert_eq(wb_summary_build(a, &sa), 0);
        cr_assert_eq(wb_summary_build(b, &sb), 0);
        cr_assert_eq(sa.n_kernels, sb.n_kernels);
        cr_assert_eq(sa.kernel_total_ns, sb.kernel_total_ns);
        cr_assert_eq(sa.n_ranges, sb.n_ranges);
        for (size_t r = 0; r < sa.n_ranges; r++) cr_assert_float_eq(sa.ranges[r].api_calls, sb.ranges[r].api_calls, 1e-9);
        wb_summary_free(&sa);
        wb_summary_free(&sb);
    }
    grade_key(&back);
    /* trimming a trimmed recording changes nothing but keeps the count */
    wb_recording again;
    const char *paths_again[2];
    char again_caps[2][160];
    json_error_t jerr;
    json_t *root = json_load_file(out, 0, &jerr);
    cr_assert_not_null(root);
    for (size_t i = 0; i < 2; i++) {
        snprintf(again_caps[i], sizeof again_caps[i], "%s/again-%zu.json", f.dir, i);
        cr_assert_eq(json_dump_file(json_object_get(json_array_get(json_object_get(root, "runs"), i), "capture"), again_caps[i], 0), 0);
        paths_again[i] = again_caps[i];
    }
    json_decref(root);
    char out2[256];
    snprintf(out2, sizeof out2, "%s/out2.json", f.dir);
    cr_assert_eq(wb_recording_write(out2, "00_probe", back.recorded_at, back.runs, paths_again, 2, &(wb_recording_extras){NULL, NULL, 0, &back}, &err), 0, "%s", err.message);
    cr_assert_eq(wb_recording_load(out2, &again, &err), 0, "%s", err.message);
    for (size_t i = 0; i < 2; i++) {
        cr_assert_eq(again.runs[i].capture.n_api, back.runs[i].capture.n_api);
        cr_assert_eq(again.runs[i].capture.api_dropped_outside_window, back.runs[i].capture.api_dropped_outside_window);
    }
    wb_recording_free(&again);
    for (size_t i = 0; i < 2; i++) unlink(again_caps[i]);
    unlink(out2);
    wb_recording_free(&back);
    fixture_close(&f);
}

/* A folder that is not there and an empty capture: exit 2 and exit 3, the messages compared whole
 * in English and in Japanese. */
static void expect_write_errors(const char *lang, const char *unwritable, const char *empty) {
    speak(lang);
    fixture f;
    fixture_open(&f);
    char out[256], nowhere[256], empty_path[256], expected[1024];
    snprintf(out, sizeof out, "%s/out.json", f.dir);
    snprintf(nowhere, sizeof nowhere, "%s/not-there/out.json", f.dir);
    wb_error err = {0};
    cr_assert_eq(wb_recording_write(nowhere, "00_probe", f.rec.recorded_at, f.rec.runs, f.paths, 2, NULL, &err), WB_EXIT_INPUT);
    snprintf(expected, sizeof expected, unwritable, nowhere);
    cr_assert_str_eq(err.message, expected, "%s", lang);
    snprintf(empty_path, sizeof empty_path, "%s/empty.json", f.dir);
    FILE *e = fopen(empty_path, "w");
    cr_assert_not_null(e);
    fclose(e);
    const char *paths[2] = {f.paths[0], empty_path};
    wb_error err2 = {0};
    cr_assert_eq(wb_recording_write(out, "00_probe", f.rec.recorded_at, f.rec.runs, paths, 2, NULL, &err2), WB_EXIT_CAPTURE);
    snprintf(expected, sizeof expected, empty, empty_path);
    cr_assert_str_eq(err2.message, expected, "%s", lang);
    cr_assert_eq(file_size(out), -1, "a failed write leaves no recording");
    unlink(empty_path);
    fixture_close(&f);
}

Test(recording_write, its_errors_are_said_whole_in_english_and_japanese) {
    expect_write_errors("en", "%s: cannot write the recording (is the folder writable?)", "%s: the capture is empty");
    expect_write_errors("ja", "%s: 記録を書き込めません (フォルダに書き込めますか?)", "%s: キャプチャが空です");
}
