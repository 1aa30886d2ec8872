/*
 * test_grade.c: grading every kind of fact, partial credit, occurrences that disagree, ranges
 * that never occurred, and the JSON report's fields. Captures are built by hand, so each right
 * answer is known without running the grader.
 */
#include "capture_builder.h"
#include "grade.h"
#include "report.h"

#include <criterion/criterion.h>
#include <jansson.h>

/* A one-variant lesson with ranges step and gemm. */
static void make_lesson(wb_lesson *l) {
    memset(l, 0, sizeof *l);
    l->lesson = strdup("09_test");
    l->n_variants = 1;
    l->variants = calloc(1, sizeof *l->variants);
    l->variants[0].name = strdup("eager");
    l->n_ranges = 3;
    l->ranges = calloc(3, sizeof *l->ranges);
    l->ranges[0] = strdup("step");
    l->ranges[1] = strdup("gemm");
    l->ranges[2] = strdup("absent");
}

/* Three steps. Each: a GEMM through cuBLAS (memset + nvjet kernel via cuLaunchKernelEx) and a
 * gelu kernel through cudaLaunchKernel; step 2 launches gelu twice (disagreeing occurrences);
 * one HtoD copy in step 0 only. */
static void make_recording(wb_recording *rec) {
    memset(rec, 0, sizeof *rec);
    rec->lesson = strdup("09_test");
    rec->recorded_at = strdup("2026-11-29T00:00:00Z");
    rec->n_runs = 1;
    rec->runs = calloc(1, sizeof *rec->runs);
    rec->runs[0].variant = strdup("eager");
    wb_capture *c = &rec->runs[0].capture;
    build_start(c);
    uint32_t corr = 1;
    for (uint64_t s = 0; s < 3; s++) {
        uint64_t t = 10000 * (s + 1);
        add_range(c, "step", t, t + 5000, 1);
        add_range(c, "gemm", t + 100, t + 900, 1);
        add_api(c, "cudaMemsetAsync", t + 110, t + 120, corr, 1);
        add_op(c, WB_GPU_MEMSET, t + 130, t + 140, corr++, 7);
        add_api(c, "cuLaunchKernelEx", t + 200, t + 210, corr, 1);
        add_kernel(c, "nvjet_sm90_tst_64x8_64x16_1x2_h_bz_NNT", t + 300, t + 800, corr++, 7);
        for (uint64_t g = 0; g < (s == 2 ? 2u : 1u); g++) {
            add_api(c, "cudaLaunchKernel", t + 1000 + g * 100, t + 1010 + g * 100, corr, 1);
            add_kernel(c, "k_gelu(float*)", t + 1100 + g * 100, t + 1150 + g * 100, corr++, 7);
        }
        if (s == 0) {
            add_api(c, "cudaMemcpyAsync", t + 2000, t + 2010, corr, 1);
            add_op(c, WB_GPU_MEMCPY, t + 2020, t + 2030, corr++, 7);
        }
    }
    build_finish(c);
}

static const char PREDICTIONS[] =
    "lesson: 09_test\n"
    "predictions:\n"
    "  - id: gemm\n"
    "    range: gemm\n"
    "    kernels: 1\n"           /* right */
    "    gemms: 1\n"             /* right */
    "    memsets: 0\n"           /* wrong: cuBLAS's memset */
    "    memcpys: 0\n"           /* right */
    "    kernels_named: {nvjet: 1, \"re:_NNT$\": 1, gelu: 1}\n" /* right, right, wrong */
    "    api_calls: {cuLaunchKernelEx: 1, cudaLaunchKernel: 1, cudaMemsetAsync: 1}\n" /* right, wrong, right */
    "  - id: step\n"
    "    range: step\n"
    "    kernels: 2\n"           /* wrong in step 2 (3 there): occurrences disagree */
    "    memcpys: ~\n"           /* not graded */
    "  - id: absent\n"
    "    range: absent\n"
    "    kernels: 0\n";          /* the range never occurs: wrong, not a crash */

typedef struct {
    wb_lesson lesson;
    wb_prediction_set preds;
    wb_recording rec;
    wb_grade grade;
} fixture;

static void grade_fixture(fixture *f) {
    wb_error err = {0};
    make_lesson(&f->lesson);
    make_recording(&f->rec);
    cr_assert_eq(wb_predictions_load_buffer("p.yaml", PREDICTIONS, strlen(PREDICTIONS), &f->preds, &err), 0, "%s", err.message);
    cr_assert_eq(wb_predictions_check_lesson(&f->preds, &f->lesson, &err), 0, "%s", err.message);
    cr_assert_eq(wb_grade_predictions(&f->preds, &f->lesson, &f->rec, &f->grade, &err), 0, "%s", err.message);
}

static void free_fixture(fixture *f) {
    wb_grade_free(&f->grade);
    wb_predictions_free(&f->preds);
    wb_recording_free(&f->rec);
    wb_lesson_free(&f->lesson);
}

static const wb_graded_fact *find(const wb_grade *g, const char *id, const char *label) {
    for (size_t i = 0; i < g->n; i++)
        if (!strcmp(g->facts[i].prediction->id, id) && !strcmp(g->facts[i].fact->label, label)) return &g->facts[i];
    cr_assert_fail("no graded fact %s/%s", id, label);
    return NULL;
}

Test(grade, grades_each_fact_on_its_own) {
    fixture f;
    grade_fixture(&f);
    struct { const char *id, *label; long actual; int right; } want[] = {
        {"gemm", "kernels", 1, 1},
        {"gemm", "gemms", 1, 1},
        {"gemm", "memsets", 1, 0},
        {"gemm", "memcpys", 0, 1},
        {"gemm", "kernels_named.nvjet", 1, 1},
        {"gemm", "kernels_named.re:_NNT$", 1, 1},
        {"gemm", "kernels_named.gelu", 0, 0},
        {"gemm", "api_calls.cuLaunchKernelEx", 1, 1},
        {"gemm", "api_calls.cudaLaunchKernel", 0, 0},
        {"gemm", "api_calls.cudaMemsetAsync", 1, 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const wb_graded_fact *x = find(&f.grade, want[i].id, want[i].label);
        cr_assert_eq(x->actual, want[i].actual, "%s: actual %ld, want %ld", want[i].label, x->actual, want[i].actual);
        cr_assert_eq(x->right, want[i].right, "%s graded %d", want[i].label, x->right);
        cr_assert_eq(x->n_occurrences, 3);
        cr_assert_str_eq(x->variant, "eager", "the only variant is used when none is named");
    }
    free_fixture(&f);
}

Test(grade, disagreeing_occurrences_are_wrong_and_reported_each) {
    fixture f;
    grade_fixture(&f);
    const wb_graded_fact *x = find(&f.grade, "step", "kernels");
    cr_assert_eq(x->right, 0);
    cr_assert_eq(x->actual, -1);
    cr_assert_eq(x->n_occurrences, 3);
    cr_assert_eq(x->per_occurrence[0], 2);
    cr_assert_eq(x->per_occurrence[1], 2);
    cr_assert_eq(x->per_occurrence[2], 3);
    free_fixture(&f);
}

Test(grade, unpredicted_facts_are_not_graded_and_absent_ranges_are_wrong) {
    fixture f;
    grade_fixture(&f);

    size_t step_facts = 0;
    for (size_t i = 0; i < f.grade.n; i++) step_facts += !strcmp(f.grade.facts[i].prediction->id, "step");
    cr_assert_eq(step_facts, 1, "the ~ fact is skipped");
    const wb_graded_fact *x = find(&f.grade, "absent", "kernels");
    cr_assert_eq(x->n_occurrences, 0);
    cr_assert_eq(x->right, 0);
    cr_assert_eq(f.grade.n, 12);
    cr_assert_eq(f.grade.right, 7);
    free_fixture(&f);
}

Test(grade, a_missing_variant_is_a_capture_error) {
    fixture f;
    grade_fixture(&f);
    free(f.rec.runs[0].variant);
    f.rec.runs[0].variant = strdup("other");
    wb_grade g;
    wb_error err = {0};
    cr_assert_eq(wb_grade_predictions(&f.preds, &f.lesson, &f.rec, &g, &err), WB_EXIT_CAPTURE);
    cr_assert(strstr(err.message, "no capture of variant 'eager'"), "%s", err.message);
    free_fixture(&f);
}

Test(grade, json_report_has_the_documented_fields) {
    fixture f;
    grade_fixture(&f);
    wb_report_context ctx = {"09_test", "replay", &f.rec, NULL, NULL, NULL};
    json_t *j = wb_report_json(&ctx, &f.grade);
    /* through text and back, as a tool would read it */
    char *text = json_dumps(j, 0);
    json_error_t jerr;
    json_t *r = json_loads(text, 0, &jerr);
    cr_assert_not_null(r, "%s", jerr.text);
    cr_assert_str_eq(json_string_value(json_object_get(r, "lesson")), "09_test");
    cr_assert_str_eq(json_string_value(json_object_get(r, "source")), "replay");
    cr_assert_str_eq(json_string_value(json_object_get(r, "arch")), "sm_90");
    json_t *score = json_object_get(r, "score");
    cr_assert_eq(json_integer_value(json_object_get(score, "right")), 7);
    cr_assert_eq(json_integer_value(json_object_get(score, "total")), 12);
    json_t *facts = json_object_get(r, "facts");
    cr_assert_eq(json_array_size(facts), 12);
    int found = 0;
    for (size_t i = 0; i < json_array_size(facts); i++) {
        json_t *x = json_array_get(facts, i);
        cr_assert(json_is_string(json_object_get(x, "id")));
        cr_assert(json_is_string(json_object_get(x, "fact")));
        cr_assert(json_is_integer(json_object_get(x, "predicted")));
        cr_assert(json_is_boolean(json_object_get(x, "right")));
        if (!strcmp(json_string_value(json_object_get(x, "fact")), "kernels") &&
            !strcmp(json_string_value(json_object_get(x, "id")), "step")) {
            found = 1;
            cr_assert(json_is_null(json_object_get(x, "actual")), "occurrences disagree: actual is null");
            cr_assert_eq(json_array_size(json_object_get(x, "per_occurrence")), 3);
            cr_assert(json_is_false(json_object_get(x, "right")));
        }
        if (!strcmp(json_string_value(json_object_get(x, "fact")), "api_calls.cuLaunchKernelEx")) {
            cr_assert_eq(json_integer_value(json_object_get(x, "actual")), 1);
            cr_assert(json_is_true(json_object_get(x, "right")));
        }
    }
    cr_assert(found);
    free(text);
    json_decref(r);
    json_decref(j);
    free_fixture(&f);
}
