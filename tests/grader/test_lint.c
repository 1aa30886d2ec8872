/*
 * test_lint.c: grader lint on a clean lesson built around the probe's H200 recording, then with
 * one thing broken at a time: each break must be found, under its own check id, naming its file.
 */
#include "course_fixture.h"
#include "lint.h"

#include <criterion/criterion.h>

static char root[4200], dir[4400], yaml[4600], preds[4600], key[4600], readme[4600], cmake[4600];

static void setup(void) {
    fixture_temp_dir(root, sizeof root);
    fixture_probe_course(root);
    snprintf(dir, sizeof dir, "%s/lessons/00_probe", root);
    snprintf(yaml, sizeof yaml, "%s/lesson.yaml", dir);
    snprintf(preds, sizeof preds, "%s/predictions.template.yaml", dir);
    snprintf(key, sizeof key, "%s/expectations/00_probe.yaml", root);
    snprintf(readme, sizeof readme, "%s/README.md", dir);
    snprintf(cmake, sizeof cmake, "%s/CMakeLists.txt", dir);
}

static void teardown(void) { fixture_remove(root); }

TestSuite(lint, .init = setup, .fini = teardown);

static void lint(wb_lint_report *r) { cr_assert_eq(wb_lint_lesson(dir, r), 0, "out of memory"); }

static void print_issues(const wb_lint_report *r) {
    for (size_t i = 0; i < r->n; i++) fprintf(stderr, "  [%s] %s:%d %s\n", r->items[i].check, r->items[i].path, r->items[i].line,
                                              r->items[i].message);
}

/* Exactly the given check fires (at least once), as an error, and nothing else errs. */
static void expect_only(const char *check) {
    wb_lint_report r;
    lint(&r);
    size_t hits = wb_lint_count(&r, check), other = 0;
    for (size_t i = 0; i < r.n; i++)
        if (r.items[i].severity == WB_LINT_ERROR && strcmp(r.items[i].check, check)) other++;
    if (!hits || other) print_issues(&r);
    cr_expect(hits > 0, "lint did not report %s", check);
    cr_expect_eq(other, 0, "lint reported other errors than %s", check);
    cr_expect(r.errors > 0);
    wb_lint_report_free(&r);
}

Test(lint, clean_lesson_has_no_issue) {
    wb_lint_report r;
    lint(&r);
    if (r.n) print_issues(&r);
    cr_expect_eq(r.errors, 0);
    cr_expect_eq(r.warnings, 0);
    wb_lint_report_free(&r);
}

Test(lint, template_value_filled) {
    fixture_replace(preds, "kernels: ~", "kernels: 2");
    wb_lint_report r;
    lint(&r);
    cr_expect(wb_lint_count(&r, "template") > 0);
    int named = 0;
    for (size_t i = 0; i < r.n; i++) named |= !strcmp(r.items[i].path, preds) && r.items[i].line > 0;
    cr_expect(named, "the issue names the template and its line");
    wb_lint_report_free(&r);
}

Test(lint, template_missing_a_question) {
    fixture_replace(preds, "  - id: gemm\n    variant: eager\n    range: gemm\n    gemms: ~\n", "");
    expect_only("template");
}

Test(lint, template_with_an_extra_question) {
    char *s = fixture_read(preds);
    size_t n = strlen(s) + 200;
    char *t = malloc(n);
    snprintf(t, n, "%s  - id: extra\n    variant: eager\n    range: gemm\n    kernels: ~\n", s);
    fixture_write(preds, t);
    free(s);
    free(t);
    expect_only("template");
}

Test(lint, template_missing) {
    cr_assert_eq(remove(preds), 0);
    expect_only("template-missing");
}

Test(lint, listed_range_never_emitted) {
    fixture_replace(yaml, "ranges: [", "ranges: [no_such_range, ");
    expect_only("range-not-emitted");
}

Test(lint, emitted_range_not_listed) {
    /* 'empty' occurs in the probe but no question asks about it */
    char *s = fixture_read(yaml);
    cr_assert(strstr(s, ", empty") || strstr(s, "empty, "), "the probe emits 'empty'");
    const char *listed = strstr(s, ", empty") ? ", empty" : "empty, ";
    fixture_replace(yaml, listed, "");
    free(s);
    expect_only("range-not-listed");
}

Test(lint, key_answer_wrong) {
    fixture_replace(key, "        gemms: 1\n", "        gemms: 2\n");
    wb_lint_report r;
    lint(&r);
    cr_expect(wb_lint_count(&r, "key-differs") == 1);
    for (size_t i = 0; i < r.n; i++)
        if (!strcmp(r.items[i].check, "key-differs")) {
            cr_expect_str_eq(r.items[i].path, key);
            cr_expect(r.items[i].line > 0);
            cr_expect(strstr(r.items[i].message, "gemms") && strstr(r.items[i].message, "2"), "%s", r.items[i].message);
        }
    wb_lint_report_free(&r);
}

/* An answer one below the truth: the key differs, and the off-by-one "wrong" prediction is right,
 * so the question cannot be failed: both are reported. */
Test(lint, question_that_cannot_be_failed) {
    fixture_replace(key, "        gemms: 1\n", "        gemms: 0\n");
    wb_lint_report r;
    lint(&r);
    cr_expect_eq(wb_lint_count(&r, "cannot-fail"), 1);
    cr_expect_eq(wb_lint_count(&r, "key-differs"), 1);
    wb_lint_report_free(&r);
}

Test(lint, verified_key_missing_a_question) {
    fixture_replace(key, "      - id: gemm\n        variant: eager\n        range: gemm\n        gemms: 1\n", "");
    expect_only("key-unanswered");
}

Test(lint, verified_key_missing_an_asked_fact) {
    fixture_replace(key, "        kernels_named: {wb_probe_scale: 2}\n", "");
    expect_only("key-unanswered");
}

Test(lint, unverified_key_missing_a_question_warns) {
    fixture_replace(key, "status: verified", "status: unverified");
    fixture_replace(key, "      - id: gemm\n        variant: eager\n        range: gemm\n        gemms: 1\n", "");
    wb_lint_report r;
    lint(&r);
    cr_expect(wb_lint_count(&r, "key-no-verified") == 1);
    int warned = 0;
    for (size_t i = 0; i < r.n; i++)
        warned |= !strcmp(r.items[i].check, "key-unanswered") && r.items[i].severity == WB_LINT_WARNING;
    cr_expect(warned, "a missing answer of an unverified architecture is a warning");
    wb_lint_report_free(&r);
}

Test(lint, no_verified_architecture) {
    fixture_replace(key, "status: verified", "status: unverified");
    expect_only("key-no-verified");
}

Test(lint, explanation_missing) {
    fixture_replace(key, "  gemm: \"cuBLAS runs one nvjet kernel.\"\n", "");
    expect_only("explanation-missing");
}

Test(lint, explanation_todo) {
    fixture_replace(key, "cuBLAS runs one nvjet kernel.", "TODO");
    expect_only("explanation-todo");
}

Test(lint, answer_key_missing) {
    cr_assert_eq(remove(key), 0);
    expect_only("key-missing");
}

Test(lint, answer_key_unreadable_names_line) {
    fixture_replace(key, "        gemms: 1\n", "        gemms: one\n");
    wb_lint_report r;
    lint(&r);
    cr_expect_eq(wb_lint_count(&r, "key-unreadable"), 1);
    for (size_t i = 0; i < r.n; i++)
        if (!strcmp(r.items[i].check, "key-unreadable")) cr_expect(r.items[i].line > 0, "%s", r.items[i].message);
    wb_lint_report_free(&r);
}

Test(lint, recording_made_with_other_arguments) {
    fixture_replace(yaml, "\"--graph\"", "\"--graph\", \"--extra\"");
    expect_only("recording-args");
}

Test(lint, recording_missing) {
    char path[4800];
    snprintf(path, sizeof path, "%s/traces/sm_90.json", dir);
    cr_assert_eq(remove(path), 0);
    expect_only("recording-missing");
}

Test(lint, recording_named_after_another_architecture) {
    char from[4800], to[4800];
    snprintf(from, sizeof from, "%s/traces/sm_90.json", dir);
    snprintf(to, sizeof to, "%s/traces/sm_80.json", dir);
    cr_assert_eq(rename(from, to), 0);
    wb_lint_report r;
    lint(&r);
    cr_expect_eq(wb_lint_count(&r, "recording-name"), 1);
    cr_expect_eq(r.errors, 0);
    wb_lint_report_free(&r);
}

Test(lint, title_todo) {
    fixture_replace(yaml, "title: \"probe", "title: \"TODO probe");
    expect_only("lesson-todo");
}

Test(lint, fact_asked_twice) {
    fixture_replace(yaml, "facts: [gemms]", "facts: [gemms, gemms]");
    wb_lint_report r;
    lint(&r);
    cr_expect_eq(wb_lint_count(&r, "lesson-facts-duplicate"), 1);
    wb_lint_report_free(&r);
}

Test(lint, cmake_builds_another_binary) {
    fixture_write(cmake, "wb_add_lesson(lesson_other SOURCES main.cu)\n");
    expect_only("cmake-binary");
}

Test(lint, readme_without_reveal_line_warns) {
    fixture_write(readme, "# Probe\n");
    wb_lint_report r;
    lint(&r);
    cr_expect_eq(wb_lint_count(&r, "readme-reveal"), 1);
    cr_expect_eq(r.errors, 0);
    cr_expect_eq(r.warnings, 1);
    wb_lint_report_free(&r);
}

Test(lint, unreadable_lesson_yaml_is_one_error_with_its_line) {
    fixture_replace(yaml, "binary: wb_probe", "binary: wb_probe\nbinray: typo");
    wb_lint_report r;
    lint(&r);
    cr_expect_eq(r.errors, 1);
    cr_expect_eq(wb_lint_count(&r, "lesson-yaml"), 1);
    cr_expect(r.n == 1 && r.items[0].line > 0 && !strcmp(r.items[0].path, yaml));
    wb_lint_report_free(&r);
}

Test(lint, folder_without_lesson_yaml) {
    wb_lint_report r;
    cr_assert_eq(wb_lint_not_a_lesson(dir, &r), 0);
    cr_expect_eq(wb_lint_count(&r, "lesson-missing"), 1);
    wb_lint_report_free(&r);
}

Test(lint, json_report_lists_issues) {
    fixture_replace(key, "status: verified", "status: unverified");
    wb_lint_report r;
    lint(&r);
    json_t *j = wb_lint_report_json(&r);
    cr_expect_str_eq(json_string_value(json_object_get(j, "lesson")), "00_probe");
    cr_expect_eq(json_integer_value(json_object_get(j, "errors")), (json_int_t)r.errors);
    json_t *first = json_array_get(json_object_get(j, "issues"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(first, "check")), "key-no-verified");
    json_decref(j);
    wb_lint_report_free(&r);
}

/* The eager run keeps its one 'gemm' range outside the profiled window (warm-up) and loses those
 * inside: the range is emitted, but the question about it can never be graded. */
Test(lint, question_range_outside_the_window) {
    char path[4800];
    snprintf(path, sizeof path, "%s/traces/sm_90.json", dir);
    json_error_t jerr;
    json_t *rec = json_load_file(path, 0, &jerr);
    cr_assert(rec, "%s", jerr.text);
    json_t *runs = json_object_get(rec, "runs");
    for (size_t i = 0; i < json_array_size(runs); i++) {
        json_t *run = json_array_get(runs, i);
        if (strcmp(json_string_value(json_object_get(run, "variant")), "eager")) continue;
        json_t *cap = json_object_get(run, "capture");
        json_t *windows = json_object_get(cap, "profiler_windows"), *ranges = json_object_get(cap, "ranges");
        json_int_t w0 = json_integer_value(json_object_get(json_array_get(windows, 0), "start"));
        for (size_t j = json_array_size(ranges); j-- > 0;) {
            json_t *r = json_array_get(ranges, j);
            if (!strcmp(json_string_value(json_object_get(r, "name")), "gemm") &&
                json_integer_value(json_object_get(r, "start")) >= w0)
                json_array_remove(ranges, j);
        }
    }
    cr_assert_eq(json_dump_file(rec, path, JSON_COMPACT), 0);
    json_decref(rec);
    wb_lint_report r;
    lint(&r);
    cr_expect_eq(wb_lint_count(&r, "question-range-absent"), 1);
    cr_expect_eq(wb_lint_count(&r, "range-not-emitted"), 0, "the range is still emitted, outside the window");
    cr_expect(wb_lint_count(&r, "key-differs") >= 1, "and the key's answer cannot hold");
    wb_lint_report_free(&r);
}

/* ---- the program's source, the README's TODOs, the title, drafts (issue 9) ------------------- */

Test(lint, range_missing_from_the_source) {
    char source[4600];
    snprintf(source, sizeof source, "%s/probe.cu", dir);
    fixture_replace(source, "nvtxRangePushA(\"memset\")", "nvtxRangePushA(\"memset_renamed\")");
    fixture_replace(source, " *   \"memset\"", " *   memset"); /* the header comment names it too */
    expect_only("range-not-in-source");
}

Test(lint, api_named_nowhere_is_a_warning) {
    /* in lesson.yaml, the template and the key alike: only the name is unknown */
    fixture_replace(yaml, "api_calls.cudaGraphLaunch", "api_calls.cudaGraphLaunchh");
    fixture_replace(preds, "cudaGraphLaunch: ~", "cudaGraphLaunchh: ~");
    fixture_replace(key, "cudaGraphLaunch: 1", "cudaGraphLaunchh: 0");
    wb_lint_report r;
    lint(&r);
    cr_expect_eq(wb_lint_count(&r, "api-not-in-source"), 1);
    for (size_t i = 0; i < r.n; i++)
        if (!strcmp(r.items[i].check, "api-not-in-source")) cr_expect_eq(r.items[i].severity, WB_LINT_WARNING);
    wb_lint_report_free(&r);
    /* cudaLaunchKernel is never written in probe.cu (<<<>>> compiles to it) but the recording has it */
}

Test(lint, todo_in_the_readme) {
    fixture_write(readme, "# Probe\n\nPredict.\n\nTODO: say why\n\n<!-- reveal -->\n\nWhy.\n");
    expect_only("readme-todo");
    wb_lint_report r;
    lint(&r);
    cr_expect_eq(r.items[0].line, 5, "the TODO's line");
    wb_lint_report_free(&r);
}

Test(lint, a_title_that_gives_a_count_away) {
    fixture_replace(yaml, "title: \"probe: a program with a known trace\"", "title: \"probe: two kernels and one memset\"");
    wb_lint_report r;
    lint(&r);
    cr_expect_eq(wb_lint_count(&r, "title-count"), 1);
    cr_expect_eq(r.errors, 0);
    wb_lint_report_free(&r);
}

/* A draft without a recording or verified answers: those checks are pending, not failing. */
Test(lint, a_draft_without_a_gpu_passes_with_pending_checks) {
    char rec[4600];
    snprintf(rec, sizeof rec, "%s/traces/sm_90.json", dir);
    cr_assert_eq(remove(rec), 0);
    fixture_replace(key, "status: verified", "status: unverified");
    wb_lint_report r;
    lint(&r);
    cr_expect(r.errors > 0, "not a draft yet: the missing recording is an error");
    wb_lint_report_free(&r);
    fixture_replace(yaml, "binary: wb_probe", "binary: wb_probe\ndraft: true");
    lint(&r);
    if (r.errors) print_issues(&r);
    cr_expect_eq(r.errors, 0);
    cr_expect_eq(r.pending, 2, "recording-missing and key-no-verified");
    cr_expect(r.draft);
    for (size_t i = 0; i < r.n; i++)
        if (!strcmp(r.items[i].check, "recording-missing") || !strcmp(r.items[i].check, "key-no-verified"))
            cr_expect_eq(r.items[i].severity, WB_LINT_PENDING);
    wb_lint_report_free(&r);
}

/* ---- names shown before they are predicted ------------------------------------------------------ */

/* The gemm question asks how many kernels have nvjet in their name; the memset question's ask,
 * read before it is predicted (the same part), spells out the GEMM kernel's whole name. */
static void ask_nvjet_and_name_it(void) {
    fixture_replace(yaml, "    facts: [gemms]\n", "    facts: [gemms, kernels_named.nvjet]\n");
    fixture_replace(yaml, "What does one cudaMemsetAsync put on the GPU?",
                    "What does one cudaMemsetAsync put on the GPU, before nvjet_sm90_tst_64x8_64x16_1x2_h_bz_NNT runs?");
}

static size_t name_leaks(wb_lint_report *r, const char **message) {
    lint(r);
    *message = NULL;
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->items[i].check, "question-names-kernel")) {
            cr_expect_eq(r->items[i].severity, WB_LINT_ERROR);
            cr_expect_str_eq(r->items[i].path, yaml);
            *message = r->items[i].message;
        }
    return wb_lint_count(r, "question-names-kernel");
}

Test(lint, a_question_that_names_a_kernel_another_asks_to_predict) {
    ask_nvjet_and_name_it();
    wb_lint_report r;
    const char *message;
    cr_expect_eq(name_leaks(&r, &message), 1);
    cr_assert(message);
    cr_expect(strstr(message, "question 'memset' names nvjet_sm90_tst_64x8_64x16_1x2_h_bz_NNT in its ask"), "%s", message);
    cr_expect(strstr(message, "question 'gemm'") && strstr(message, "kernels_named.nvjet"), "%s", message);
    wb_lint_report_free(&r);
}

Test(lint, a_listed_range_named_after_a_kernel_leaks_it_too) {
    fixture_replace(yaml, "    facts: [gemms]\n", "    facts: [gemms, kernels_named.nvjet]\n");
    fixture_replace(yaml, "ranges: [", "ranges: [\"re:^nvjet_sm90_tst_64x8_64x16_1x2_h_bz_NNT\", ");
    wb_lint_report r;
    const char *message;
    cr_expect_eq(name_leaks(&r, &message), 1);
    cr_expect(message && strstr(message, "'ranges' names nvjet_sm90_tst_64x8_64x16_1x2_h_bz_NNT"), "%s", message);
    wb_lint_report_free(&r);
}

/* The README names the kernel in place of text: shown before the reveal line, a spoiler after it. */
static void readme_names_it(const char *text, size_t leaks) {
    ask_nvjet_and_name_it();
    fixture_replace(readme, text, "cuBLAS runs nvjet_sm90_tst_64x8_64x16_1x2_h_bz_NNT.");
    wb_lint_report r;
    const char *message;
    cr_expect_eq(name_leaks(&r, &message), leaks, "%s", message ? message : "");
    wb_lint_report_free(&r);
}

Test(lint, a_kernel_name_the_readme_shows_before_the_reveal_is_no_leak) { readme_names_it("Predict.", 0); }

Test(lint, a_kernel_name_after_the_reveal_line_is_still_a_leak) { readme_names_it("What the trace shows.", 1); }

Test(lint, the_key_itself_or_a_name_that_does_not_match_it_is_no_leak) {
    fixture_replace(yaml, "    facts: [gemms]\n", "    facts: [gemms, kernels_named.nvjet]\n");
    /* the key as written (the template shows it anyway), and a kernel name the key does not match */
    fixture_replace(yaml, "What does one cudaMemsetAsync put on the GPU?",
                    "What does one cudaMemsetAsync put on the GPU, beside nvjet kernels and wb_probe_scale?");
    wb_lint_report r;
    const char *message;
    cr_expect_eq(name_leaks(&r, &message), 0, "%s", message ? message : "");
    wb_lint_report_free(&r);
}
