/*
 * test_predictions.c: the predictions reader, on valid input and on every kind of bad input the
 * issue lists. Each bad input must give exit code 2 and a message naming the file and, for YAML
 * problems, the line and column.
 */
#include "lesson.h"
#include "grade.h"
#include "predictions.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int load(const char *text, wb_prediction_set *out, wb_error *err) {
    memset(err, 0, sizeof *err);
    return wb_predictions_load_buffer("p.yaml", text, strlen(text), out, err);
}

/* Loads text that must be rejected; checks code 2 and that the message contains want. */
static void rejects(const char *text, const char *want) {
    wb_prediction_set p;
    wb_error err;
    int rc = load(text, &p, &err);
    cr_assert_eq(rc, WB_EXIT_INPUT, "accepted bad input:\n%s", text);
    cr_assert_eq(err.code, WB_EXIT_INPUT);
    cr_assert(strstr(err.message, "p.yaml") == err.message, "message does not start with the file: %s", err.message);
    cr_assert(strstr(err.message, want), "message '%s' lacks '%s'", err.message, want);
}

static const char VALID[] =
    "lesson: 03_mlp\n"
    "predictions:\n"
    "  # a comment\n"
    "  - id: eager-kernels\n"
    "    variant: eager\n"
    "    range: mlp_fwd\n"
    "    kernels: 5\n"
    "    gemms: 3\n"
    "    kernels_named:\n"
    "      gelu: 1\n"
    "      \"re:^nvjet\": 3\n"
    "    api_calls:\n"
    "      cudaLaunchKernel: 2\n"
    "      cuLaunchKernelEx: 3\n"
    "    memsets: 2\n"
    "    memcpys: 0\n"
    "  - id: fused\n"
    "    variant: fused\n"
    "    range: mlp_fwd\n"
    "    kernels: ~\n"
    "    gemms: null\n"
    "    memsets:\n";

Test(predictions, reads_the_core_schema) {
    wb_prediction_set p;
    wb_error err;
    cr_assert_eq(load(VALID, &p, &err), 0, "%s", err.message);
    cr_assert_str_eq(p.lesson, "03_mlp");
    cr_assert_eq(p.n, 2);
    const wb_prediction *a = &p.items[0];
    cr_assert_str_eq(a->id, "eager-kernels");
    cr_assert_str_eq(a->variant, "eager");
    cr_assert_str_eq(a->range, "mlp_fwd");
    cr_assert_eq(a->n_facts, 8);
    /* fixed order: kernels, gemms, memsets, memcpys, kernels_named..., api_calls... */
    cr_assert_str_eq(a->facts[0].label, "kernels");
    cr_assert_eq(a->facts[0].predicted, 5);
    cr_assert_eq(a->facts[0].line, 7);
    cr_assert_eq(a->facts[0].column, 14);
    cr_assert_str_eq(a->facts[1].label, "gemms");
    cr_assert_eq(a->facts[1].predicted, 3);
    cr_assert_str_eq(a->facts[2].label, "memsets");
    cr_assert_eq(a->facts[2].predicted, 2);
    cr_assert_str_eq(a->facts[3].label, "memcpys");
    cr_assert_eq(a->facts[3].predicted, 0);
    cr_assert_str_eq(a->facts[4].label, "kernels_named.gelu");
    cr_assert_eq(a->facts[4].kind, WB_FACT_KERNELS_NAMED);
    cr_assert_str_eq(a->facts[5].label, "kernels_named.re:^nvjet");
    cr_assert(a->facts[5].has_regex);
    cr_assert_str_eq(a->facts[6].label, "api_calls.cudaLaunchKernel");
    cr_assert_str_eq(a->facts[6].key, "cudaLaunchKernel");
    cr_assert_eq(a->facts[7].predicted, 3);
    /* ~, null and an empty value are all "not predicted yet" */
    cr_assert_eq(p.items[1].n_facts, 3);
    for (size_t i = 0; i < 3; i++) cr_assert_eq(p.items[1].facts[i].predicted, -1);
    cr_assert_eq(wb_predictions_open(&p), 3);
    wb_predictions_free(&p);
}

Test(predictions, matches_names_case_insensitively_and_by_regex) {
    wb_prediction_set p;
    wb_error err;
    cr_assert_eq(load(VALID, &p, &err), 0);
    const wb_fact *gelu = &p.items[0].facts[4], *nvjet = &p.items[0].facts[5];
    cr_assert(wb_fact_name_matches(gelu, "void GeluKernel<bf16>(...)"));
    cr_assert(!wb_fact_name_matches(gelu, "k_mul"));
    cr_assert(wb_fact_name_matches(nvjet, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT"));
    cr_assert(!wb_fact_name_matches(nvjet, "void my_nvjet_lookalike()"), "regex is anchored with ^");
    wb_predictions_free(&p);
}

Test(predictions, rejects_malformed_yaml_with_line_and_column) {
    rejects("lesson: 03_mlp\npredictions:\n  - id: a\n    range: [unclosed\n", "p.yaml:");
    rejects("lesson: 03_mlp\npredictions:\n  - id: a\n   range: x\n", "YAML syntax error");
}

Test(predictions, rejects_a_truncated_file) { rejects("lesson: 03_mlp\npredictions:\n  - id: \"eager", "YAML syntax error"); }

Test(predictions, rejects_wrong_types) {
    rejects("lesson: x\npredictions:\n  - id: a\n    range: r\n    kernels: five\n", "p.yaml:5:14: 'kernels' of prediction 'a' must be a whole number or ~, found 'five'");
    rejects("lesson: x\npredictions:\n  - id: a\n    range: r\n    kernels: \"5\"\n", "quoted string");
    rejects("lesson: x\npredictions:\n  - id: a\n    range: r\n    kernels: 2.5\n", "whole number");
    rejects("lesson: x\npredictions:\n  - id: a\n    range: r\n    kernels: [1]\n", "found a list");
    rejects("lesson: x\npredictions:\n  - id: a\n    range: r\n    api_calls: 3\n", "must be a mapping");
    rejects("lesson: x\npredictions: {a: 1}\n", "must be a list");
    rejects("- just\n- a list\n", "must be a mapping");
}

Test(predictions, rejects_negative_and_huge_numbers) {
    rejects("lesson: x\npredictions:\n  - id: a\n    range: r\n    kernels: -1\n", "cannot be negative");
    rejects("lesson: x\npredictions:\n  - id: a\n    range: r\n    gemms: 99999999999999999999\n", "more than 1000000");
    rejects("lesson: x\npredictions:\n  - id: a\n    range: r\n    memsets: 1000001\n", "more than 1000000");
}

Test(predictions, accepts_the_largest_count) {
    wb_prediction_set p;
    wb_error err;
    cr_assert_eq(load("lesson: x\npredictions:\n  - id: a\n    range: r\n    kernels: 1000000\n", &p, &err), 0, "%s", err.message);
    cr_assert_eq(p.items[0].facts[0].predicted, 1000000);
    wb_predictions_free(&p);
}

Test(predictions, rejects_unknown_keys) {
    rejects("lesson: x\npredictions:\n  - id: a\n    range: r\n    kernel: 2\n", "p.yaml:5:5: entry 1 of 'predictions': unknown key 'kernel'");
    rejects("lesson: x\nlessons: y\npredictions:\n  - id: a\n    range: r\n    kernels: 2\n", "unknown key 'lessons'");
}

Test(predictions, rejects_duplicates) {
    rejects("lesson: x\npredictions:\n  - id: a\n    range: r\n    kernels: 1\n  - id: a\n    range: r\n    kernels: 2\n",
            "id 'a' is used twice (first at line 3)");
    rejects("lesson: x\npredictions:\n  - id: a\n    range: r\n    kernels: 1\n    kernels: 2\n", "key 'kernels' appears twice");
}

Test(predictions, rejects_bad_ids_and_missing_fields) {
    rejects("lesson: x\npredictions:\n  - id: Eager_Kernels\n    range: r\n    kernels: 1\n", "may use only a-z, 0-9 and '-'");
    rejects("lesson: x\npredictions:\n  - range: r\n    kernels: 1\n", "has no 'id'");
    rejects("lesson: x\npredictions:\n  - id: a\n    kernels: 1\n", "has no 'range'");
    rejects("lesson: x\npredictions:\n  - id: a\n    range: r\n", "predicts nothing");
    rejects("predictions:\n  - id: a\n    range: r\n    kernels: 1\n", "missing 'lesson:'");
    rejects("lesson: x\n", "missing 'predictions:'");
    rejects("lesson: x\npredictions: []\n", "is empty");
}

Test(predictions, rejects_bad_keys_in_fact_maps) {
    rejects("lesson: x\npredictions:\n  - id: a\n    range: r\n    api_calls: {cudaLaunchKernel_v7000: 1}\n", "without its _vNNNN suffix, e.g. 'cudaLaunchKernel'");
    rejects("lesson: x\npredictions:\n  - id: a\n    range: r\n    api_calls: {\"cuda launch\": 1}\n", "is not an API name");
    rejects("lesson: x\npredictions:\n  - id: a\n    range: r\n    kernels_named: {\"re:([\": 1}\n", "not a valid POSIX extended regex");
}

Test(predictions, rejects_empty_and_binary_files) {
    rejects("", "is empty");
    rejects("   \n# only a comment\n\n", "is empty");
    wb_prediction_set p;
    wb_error err = {0};
    const char binary[] = "lesson: x\n\x00\x01\x02\xff";
    cr_assert_eq(wb_predictions_load_buffer("p.yaml", binary, sizeof binary - 1, &p, &err), WB_EXIT_INPUT);
    cr_assert(strstr(err.message, "not a text file"), "%s", err.message);
    rejects("lesson: x\npredictions:\n  - id: a\xff\xfe\n    range: r\n    kernels: 1\n", "p.yaml:");
}

Test(predictions, rejects_a_missing_file_and_a_directory) {
    wb_prediction_set p;
    wb_error err = {0};
    cr_assert_eq(wb_predictions_load("/nonexistent/predictions.yaml", &p, &err), WB_EXIT_INPUT);
    cr_assert(strstr(err.message, "/nonexistent/predictions.yaml: no such predictions file"), "%s", err.message);
    memset(&err, 0, sizeof err);
    cr_assert_eq(wb_predictions_load("/tmp", &p, &err), WB_EXIT_INPUT);
    cr_assert(strstr(err.message, "/tmp"), "%s", err.message);
}

Test(predictions, rejects_a_second_document) {
    rejects("lesson: x\npredictions:\n  - id: a\n    range: r\n    kernels: 1\n---\nlesson: y\n", "second YAML document");
}

/* ---- against the lesson: unknown ranges and variants ---------------------------------------- */

static void load_probe_lesson(wb_lesson *l) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/grader/probe/lessons/00_probe", getenv("WB_SOURCE_DIR"));
    wb_error err = {0};
    cr_assert_eq(wb_lesson_load(dir, l, &err), 0, "%s", err.message);
}

static int check_against_lesson(const char *text, wb_error *err) {
    wb_lesson l;
    wb_prediction_set p;
    load_probe_lesson(&l);
    memset(err, 0, sizeof *err);
    cr_assert_eq(wb_predictions_load_buffer("p.yaml", text, strlen(text), &p, err), 0, "%s", err->message);
    int rc = wb_predictions_check_lesson(&p, &l, err);
    wb_predictions_free(&p);
    wb_lesson_free(&l);
    return rc;
}

Test(predictions, rejects_unknown_range_and_variant) {
    wb_error err;
    cr_assert_eq(check_against_lesson("lesson: 00_probe\npredictions:\n  - id: a\n    variant: eager\n    range: nope\n    kernels: 1\n", &err), WB_EXIT_INPUT);
    cr_assert(strstr(err.message, "p.yaml:3: prediction 'a': unknown range 'nope' (lesson 00_probe has: setup, measured, step,"), "%s", err.message);
    cr_assert_eq(check_against_lesson("lesson: 00_probe\npredictions:\n  - id: a\n    variant: lazy\n    range: step\n    kernels: 1\n", &err), WB_EXIT_INPUT);
    cr_assert(strstr(err.message, "unknown variant 'lazy' (lesson 00_probe has: eager, graph)"), "%s", err.message);
    cr_assert_eq(check_against_lesson("lesson: 00_probe\npredictions:\n  - id: a\n    range: step\n    kernels: 1\n", &err), WB_EXIT_INPUT);
    cr_assert(strstr(err.message, "needs 'variant:'"), "%s", err.message);
    cr_assert_eq(check_against_lesson("lesson: 01_other\npredictions:\n  - id: a\n    variant: eager\n    range: step\n    kernels: 1\n", &err), WB_EXIT_INPUT);
    cr_assert(strstr(err.message, "this is lesson 00_probe"), "%s", err.message);
    cr_assert_eq(check_against_lesson("lesson: 00_probe\npredictions:\n  - id: a\n    variant: eager\n    range: step\n    kernels: 1\n", &err), 0);
}
