/*
 * test_time_facts.c: the time facts gpu_us, wall_us and bound (time_facts.h, docs/predictions.md)
 * on captures built by hand, so every right answer is known by construction: a kernel finishing
 * after its range ended, several occurrences (the median), a zero-duration range, the bound rule
 * on each side of its thresholds, the question's tolerance, a missing work declaration, and the
 * readers of lesson.yaml's work and of predictions' time values.
 */
#include "capture_builder.h"
#include "course_fixture.h"
#include "grade.h"
#include "lesson.h"
#include "predictions.h"
#include "report.h"
#include "time_facts.h"
#include "work_expr.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>

/* ---- a lesson folder written to /tmp --------------------------------------------------------- */

static const char LESSON_HEAD[] =
    "lesson: 09_time\n"
    "title: time facts\n"
    "binary: none\n"
    "variants:\n"
    "  - name: eager\n"
    "    args: [--size, \"64\"]\n"
    "    params: {n: 64}\n"
    "ranges: [step, late, empty, copy]\n"
    "questions:\n"
    "  - id: step-time\n"
    "    range: step\n"
    "    facts: [gpu_us, wall_us, bound]\n"
    "    ask: how long?\n"
    "    tolerance: 10%\n"
    "  - id: late-time\n"
    "    range: late\n"
    "    facts: [gpu_us]\n"
    "    ask: how long?\n";

typedef struct {
    char dir[256], lesson_dir[512];
    wb_lesson lesson;
} lesson_fixture;

static void lesson_with(lesson_fixture *fx, const char *work) {
    fixture_temp_dir(fx->dir, sizeof fx->dir);
    snprintf(fx->lesson_dir, sizeof fx->lesson_dir, "%s/09_time", fx->dir);
    fixture_mkdir(fx->lesson_dir);
    char path[600], *text = malloc(strlen(LESSON_HEAD) + strlen(work) + 1);
    strcpy(text, LESSON_HEAD);
    strcat(text, work);
    snprintf(path, sizeof path, "%s/lesson.yaml", fx->lesson_dir);
    fixture_write(path, text);
    free(text);
}

static int load(lesson_fixture *fx, wb_error *err) { return wb_lesson_load(fx->lesson_dir, &fx->lesson, err); }

static void lesson_done(lesson_fixture *fx) {
    wb_lesson_free(&fx->lesson);
    fixture_remove(fx->dir);
}

/* step: 2n^3 FLOPs for 3 n^2 bf16 values: at n = 64, 524288 FLOPs and 24576 bytes */
static const char WORK[] =
    "work:\n"
    "  - range: step\n"
    "    flops: 2*n*n*n\n"
    "    bytes: 2 * (3*n*n)\n"
    "  - range: copy\n"
    "    flops: 0\n"
    "    bytes: 1e9\n";

/* ---- captures --------------------------------------------------------------------------------- */

/* Three steps, 1000 ns apart in wall time by construction:
 *   step k: wall (10 + k) us; one kernel of 4, 6, 5 us (k = 0, 1, 2) and a 1 us memset.
 *   late:   a 1 us range whose kernel starts after the range ended and runs 30 us.
 *   empty:  a zero-duration range with no work.
 *   copy:   a 2 us range launching a 100 us memcpy. */
static void make_recording(wb_recording *rec, double copy_bw, double matrix_rate) {
    memset(rec, 0, sizeof *rec);
    rec->lesson = strdup("09_time");
    rec->recorded_at = strdup("2026-12-01T00:00:00Z");
    rec->n_runs = 1;
    rec->runs = calloc(1, sizeof *rec->runs);
    rec->runs[0].variant = strdup("eager");
    rec->calibration.present = 1;
    rec->calibration.copy_bytes_per_s = copy_bw;
    rec->calibration.matrix_flops_per_s = matrix_rate;
    wb_capture *c = &rec->runs[0].capture;
    build_start(c);
    uint32_t corr = 1;
    const uint64_t kernel_ns[3] = {4000, 6000, 5000};
    for (uint64_t k = 0; k < 3; k++) {
        uint64_t t = 100000 * (k + 1);
        add_range(c, "step", t, t + 10000 + 1000 * k, 1);
        add_api(c, "cudaLaunchKernel", t + 100, t + 200, corr, 1);
        add_kernel(c, "work_kernel", t + 300, t + 300 + kernel_ns[k], corr++, 7);
        add_api(c, "cudaMemsetAsync", t + 400, t + 500, corr, 1);
        add_op(c, WB_GPU_MEMSET, t + 5000, t + 6000, corr++, 7);
    }
    add_range(c, "late", 500000, 501000, 1);
    add_api(c, "cudaLaunchKernel", 500100, 500200, corr, 1);
    add_kernel(c, "late_kernel", 502000, 532000, corr++, 7);
    add_range(c, "empty", 600000, 600000, 1);
    add_range(c, "copy", 700000, 702000, 1);
    add_api(c, "cudaMemcpyAsync", 700100, 700200, corr, 1);
    add_op(c, WB_GPU_MEMCPY, 701000, 801000, corr++, 7);
    build_finish(c);
}

static const char *grade_text(const char *predictions, const wb_lesson *l, const wb_recording *rec, wb_grade *g,
                              wb_prediction_set *p, wb_error *err) {
    cr_assert_eq(wb_predictions_load_buffer("p.yaml", predictions, strlen(predictions), p, err), 0, "%s", err->message);
    if (wb_grade_predictions(p, l, rec, g, err)) return err->message;
    return NULL;
}

static const wb_graded_fact *graded(const wb_grade *g, const char *id, const char *label) {
    for (size_t i = 0; i < g->n; i++)
        if (!strcmp(g->facts[i].prediction->id, id) && !strcmp(g->facts[i].fact->label, label)) return &g->facts[i];
    cr_assert_fail("no graded fact %s of %s", label, id);
    return NULL;
}

/* A lesson, a recording and graded predictions: the usual shape of a test here. */
typedef struct {
    lesson_fixture fx;
    wb_recording rec;
    wb_prediction_set p;
    wb_grade g;
    wb_error err;
} graded_case;

/* Grades predictions against the lesson with `work` and the recording with these ceilings; NULL,
 * or the grader's error message. */
static const char *case_grade(graded_case *c, const char *work, double copy_bw, double matrix_rate, const char *predictions) {
    memset(c, 0, sizeof *c);
    lesson_with(&c->fx, work);
    cr_assert_eq(load(&c->fx, &c->err), 0, "%s", c->err.message);
    make_recording(&c->rec, copy_bw, matrix_rate);
    return grade_text(predictions, &c->fx.lesson, &c->rec, &c->g, &c->p, &c->err);
}

static void case_done(graded_case *c) {
    wb_grade_free(&c->g);
    wb_predictions_free(&c->p);
    wb_recording_free(&c->rec);
    lesson_done(&c->fx);
}

/* ---- attribution of time ----------------------------------------------------------------------- */

Test(time_facts, gpu_time_is_the_median_of_each_occurrences_summed_work) {
    graded_case c;
    /* per step: kernel + memset = 5, 7, 6 us; median 6. wall 10, 11, 12: median 11. */
    const char *msg = case_grade(&c, WORK, 1e12, 1e15, "lesson: 09_time\npredictions:\n  - id: step-time\n    range: step\n"
                                 "    gpu_us: 6.5\n    wall_us: 12.5\n");
    cr_assert_null(msg, "%s", msg);
    const wb_graded_fact *gpu = graded(&c.g, "step-time", "gpu_us"), *wall = graded(&c.g, "step-time", "wall_us");
    cr_assert_eq(gpu->n_occurrences, 3);
    cr_assert_float_eq(gpu->gpu_us[0], 5.0, 1e-9);
    cr_assert_float_eq(gpu->gpu_us[1], 7.0, 1e-9);
    cr_assert_float_eq(gpu->gpu_us[2], 6.0, 1e-9);
    cr_assert_float_eq(gpu->actual_us, 6.0, 1e-9);
    cr_assert_float_eq(gpu->tolerance, 0.10, 1e-12, "the question's own tolerance");
    cr_assert(gpu->right, "6.5 is within 10%% of 6");
    cr_assert_float_eq(wall->actual_us, 11.0, 1e-9);
    cr_assert_not(wall->right, "12.5 is 13.6%% off 11, outside 10%%");
    case_done(&c);
}

Test(time_facts, a_kernel_finishing_after_its_range_counts_in_full) {
    graded_case c;
    const char *msg = case_grade(&c, WORK, 1e12, 1e15, "lesson: 09_time\npredictions:\n  - id: late-time\n    range: late\n    gpu_us: 30\n"
                                 "    wall_us: 1\n");
    cr_assert_null(msg, "%s", msg);
    cr_assert_float_eq(graded(&c.g, "late-time", "gpu_us")->actual_us, 30.0, 1e-9);
    cr_assert(graded(&c.g, "late-time", "gpu_us")->right);
    cr_assert_float_eq(graded(&c.g, "late-time", "wall_us")->actual_us, 1.0, 1e-9);
    cr_assert_float_eq(graded(&c.g, "late-time", "gpu_us")->tolerance, WB_DEFAULT_TOLERANCE, 1e-12, "no tolerance: the default");
    case_done(&c);
}

Test(time_facts, a_zero_duration_range_has_zero_times) {
    graded_case c;
    const char *msg = case_grade(&c, WORK, 1e12, 1e15, "lesson: 09_time\npredictions:\n  - id: e\n    range: empty\n    gpu_us: 0\n    wall_us: 0\n"
                                 "  - id: f\n    range: empty\n    wall_us: 0.1\n");
    cr_assert_null(msg, "%s", msg);
    cr_assert_eq(graded(&c.g, "e", "gpu_us")->n_occurrences, 1);
    cr_assert(graded(&c.g, "e", "gpu_us")->right, "0 is exactly 0");
    cr_assert(graded(&c.g, "e", "wall_us")->right);
    cr_assert_not(graded(&c.g, "f", "wall_us")->right, "any tolerance of 0 is 0: 0.1 is wrong");
    case_done(&c);
}

/* ---- the bound rule ---------------------------------------------------------------------------- */

Test(time_facts, bound_follows_the_documented_rule) {
    wb_work w = {.flops = 1e9, .bytes = 1e6};
    wb_calibration cal = {.present = 1, .copy_bytes_per_s = 1e12, .matrix_flops_per_s = 1e15};
    wb_bound_inputs in;
    /* compute floor 1 us, memory floor 1 us: equal is memory (compute only when strictly longer) */
    cr_assert_eq(wb_bound_of(10, 10, &w, &cal, &in), WB_BOUND_MEMORY);
    cr_assert_float_eq(in.compute_us, 1.0, 1e-9);
    cr_assert_float_eq(in.memory_us, 1.0, 1e-9);
    w.flops = 2e9;
    cr_assert_eq(wb_bound_of(10, 10, &w, &cal, &in), WB_BOUND_COMPUTE);
    cr_assert_float_eq(in.floor_us, 2.0, 1e-9);
    /* GPU time under half the wall time: overhead, whatever the work */
    cr_assert_eq(wb_bound_of(4.99, 10, &w, &cal, &in), WB_BOUND_OVERHEAD);
    cr_assert_eq(wb_bound_of(5.0, 10, &w, &cal, &in), WB_BOUND_COMPUTE, "exactly half is not under half");
    /* a zero-duration range with GPU work: never overhead */
    cr_assert_eq(wb_bound_of(3, 0, &w, &cal, &in), WB_BOUND_COMPUTE);
}

/* Lesson 03's gate_proj live on the H200 (2026-12-01): three occurrences of a compute-bound GEMM,
 * one of them held up on the host (its wall time doubled). The bound is that of the medians, so
 * the held-up occurrence is reported but does not decide the fact; a majority of held-up
 * occurrences does. */
Test(time_facts, bound_is_judged_on_the_medians_not_on_one_held_up_occurrence) {
    wb_work w = {.flops = 38.7e9, .bytes = 67e6}; /* compute floor 48.4 us, memory floor 16 us */
    wb_calibration cal = {.present = 1, .copy_bytes_per_s = 4.2e12, .matrix_flops_per_s = 800e12};
    wb_fact f = {.kind = WB_FACT_BOUND, .label = "bound", .predicted = WB_BOUND_COMPUTE};
    const double gpu[3] = {56.6, 57.0, 56.9};
    const struct { double wall[3]; int median_bound; } cases[] = {
        {{61.0, 130.0, 60.5}, WB_BOUND_COMPUTE},  /* one occurrence held up: median wall 61 */
        {{130.0, 61.0, 125.0}, WB_BOUND_OVERHEAD}, /* two of three: median wall 125, GPU under half */
    };
    for (size_t i = 0; i < 2; i++) {
        wb_graded_fact g = {.fact = &f, .predicted = f.predicted};
        cr_assert_eq(wb_grade_time_values(&g, NULL, gpu, cases[i].wall, 3, &w, &cal), 0);
        cr_assert_eq(g.actual, cases[i].median_bound, "case %zu: got %s", i, wb_bound_name((int)g.actual));
        cr_assert_eq(g.right, cases[i].median_bound == WB_BOUND_COMPUTE);
        cr_assert_eq(g.per_occurrence[i == 0 ? 1 : 0], WB_BOUND_OVERHEAD, "each occurrence keeps its own bound");
        cr_assert_eq(g.per_occurrence[i == 0 ? 0 : 1], WB_BOUND_COMPUTE);
        cr_assert_float_eq(g.bound.wall_us, cases[i].wall[i == 0 ? 0 : 2], 1e-9, "the rule's numbers are the medians");
        free(g.per_occurrence);
        free(g.gpu_us);
        free(g.wall_us);
    }
}

Test(time_facts, bound_is_graded_per_occurrence_against_the_recordings_ceilings) {
    lesson_fixture fx;
    lesson_with(&fx, WORK);
    wb_error err = {0};
    cr_assert_eq(load(&fx, &err), 0, "%s", err.message);
    cr_assert_eq(fx.lesson.n_work, 2);
    cr_assert_float_eq(fx.lesson.work[0].flops, 524288.0, 1e-6);
    cr_assert_float_eq(fx.lesson.work[0].bytes, 24576.0, 1e-6);
    /* steps: GPU 5-7 us of 10-12 us wall: not overhead. At 1e12 B/s the bytes take 0.025 us; the
     * FLOPs take 0.52 us at 1e12 FLOP/s (compute), 0.0005 us at 1e15 (memory). */
    const struct { double rate; const char *expected; } cases[] = {{1e12, "compute"}, {1e15, "memory"}};
    for (size_t i = 0; i < 2; i++) {
        wb_recording rec;
        make_recording(&rec, 1e12, cases[i].rate);
        wb_prediction_set p;
        wb_grade g;
        char text[256];
        snprintf(text, sizeof text, "lesson: 09_time\npredictions:\n  - id: step-time\n    range: step\n    bound: %s\n"
                 "  - id: c\n    range: copy\n    bound: memory\n", cases[i].expected);
        const char *msg = grade_text(text, &fx.lesson, &rec, &g, &p, &err);
        cr_assert_null(msg, "%s", msg);
        const wb_graded_fact *b = graded(&g, "step-time", "bound");
        cr_assert(b->right, "expected %s, got %s", cases[i].expected, wb_bound_name((int)b->actual));
        cr_assert_float_eq(b->bound.flops, 524288.0, 1e-6);
        cr_assert_float_eq(b->bound.gpu_us, 6.0, 1e-9, "the report's numbers are the medians");
        /* copy: a 100 us memcpy launched from a 2 us range, 1e9 bytes: memory */
        cr_assert(graded(&g, "c", "bound")->right);
        json_t *j = wb_report_json(&(wb_report_context){"09_time", "replay", &rec, NULL, &fx.lesson, NULL}, &g);
        json_t *fact = NULL;
        for (size_t k = 0; k < json_array_size(json_object_get(j, "facts")) && !fact; k++) {
            json_t *f = json_array_get(json_object_get(j, "facts"), k);
            if (!strcmp(json_string_value(json_object_get(f, "fact")), "bound")) fact = f;
        }
        cr_assert(fact);
        cr_assert_str_eq(json_string_value(json_object_get(fact, "actual")), cases[i].expected);
        json_t *rule = json_object_get(fact, "rule");
        cr_assert_float_eq(json_real_value(json_object_get(rule, "matrix_flops_per_s")), cases[i].rate, 1);
        cr_assert_float_eq(json_real_value(json_object_get(rule, "bytes")), 24576.0, 1e-6);
        cr_assert_eq(json_array_size(json_object_get(rule, "gpu_us")), 3);
        cr_assert_eq(json_array_size(json_object_get(j, "work")), 2, "the time table: both declared ranges");
        json_decref(j);
        wb_grade_free(&g);
        wb_predictions_free(&p);
        wb_recording_free(&rec);
    }
    lesson_done(&fx);
}

Test(time_facts, the_report_shows_the_band) {
    graded_case c;
    const char *msg = case_grade(&c, WORK, 1e12, 1e15, "lesson: 09_time\npredictions:\n  - id: step-time\n    range: step\n"
                                 "    gpu_us: 6\n");
    cr_assert_null(msg, "%s", msg);
    wb_report_context ctx = {"09_time", "replay", &c.rec, NULL, &c.fx.lesson, NULL};
    json_t *j = wb_report_json(&ctx, &c.g);
    json_t *f = json_array_get(json_object_get(j, "facts"), 0);
    cr_assert_float_eq(json_real_value(json_object_get(f, "actual")), 6.0, 1e-9);
    cr_assert_float_eq(json_real_value(json_object_get(json_object_get(f, "band"), "from")), 5.4, 1e-9);
    cr_assert_float_eq(json_real_value(json_object_get(json_object_get(f, "band"), "to")), 6.6, 1e-9);
    cr_assert_float_eq(json_real_value(json_object_get(f, "tolerance")), 0.1, 1e-12);
    cr_assert_eq(json_array_size(json_object_get(f, "per_occurrence")), 3);
    json_decref(j);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    wb_report_text(out, &ctx, &c.g);
    fclose(out);
    cr_assert(strstr(buf, "right from 5.4 to 6.6 us"), "%s", buf);
    cr_assert(strstr(buf, "Where the time goes"), "%s", buf);
    free(buf);
    case_done(&c);
}

/* The band the report prints is the band graded: both printed ends are right, and the next value
 * past either end, at the printed precision, is wrong. */
Test(time_facts, the_band_printed_is_the_band_graded) {
    const struct { double actual, tolerance; } cases[] = {{3.552, 0.4}, {56.31, 0.25}, {1931.4, 0.25}, {0.37, 0.25}, {171.72, 0.25},
                                                          {2.9, 0.4}, {400, 0.25}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wb_graded_fact g = {.is_time = 1, .actual = 0, .actual_us = cases[i].actual, .tolerance = cases[i].tolerance};
        char text[128], from_s[64], to_s[64];
        wb_graded_band_text(&g, text, sizeof text);
        cr_assert_eq(sscanf(text, "%63s to %63s", from_s, to_s), 2, "%s", text);
        double from = strtod(from_s, NULL), to = strtod(to_s, NULL);
        const char *dot = strchr(to_s, '.');
        double step = pow(10, -(dot ? (int)strlen(dot + 1) : 0));
        cr_assert(wb_time_within(from, g.actual_us, g.tolerance), "%g: printed %s, its lower end is graded wrong", g.actual_us, text);
        cr_assert(wb_time_within(to, g.actual_us, g.tolerance), "%g: printed %s, its upper end is graded wrong", g.actual_us, text);
        cr_assert(!wb_time_within(from - step, g.actual_us, g.tolerance), "%g: printed %s, below it is graded right", g.actual_us, text);
        cr_assert(!wb_time_within(to + step, g.actual_us, g.tolerance), "%g: printed %s, above it is graded right", g.actual_us, text);
    }
}

Test(time_facts, a_bound_without_declared_work_is_a_clear_error) {
    lesson_fixture fx;
    lesson_with(&fx, "");
    wb_error err = {0};
    cr_assert_eq(load(&fx, &err), 0, "%s", err.message);
    wb_recording rec;
    make_recording(&rec, 1e12, 1e15);
    wb_prediction_set p;
    wb_grade g;
    const char *msg = grade_text("lesson: 09_time\npredictions:\n  - id: step-time\n    range: step\n    bound: memory\n",
                                 &fx.lesson, &rec, &g, &p, &err);
    cr_assert_not_null(msg, "grading must fail");
    cr_assert_eq(err.code, WB_EXIT_INPUT);
    cr_assert(strstr(msg, "p.yaml:5:12"), "names the prediction's position: %s", msg);
    cr_assert(strstr(msg, "declares no work") && strstr(msg, "'step'"), "%s", msg);
    wb_predictions_free(&p);
    /* without the recording's calibration: exit 3, re-record */
    wb_recording_free(&rec);
    lesson_done(&fx);

    lesson_with(&fx, WORK);
    cr_assert_eq(load(&fx, &err), 0, "%s", err.message);
    make_recording(&rec, 1e12, 1e15);
    rec.calibration.present = 0;
    memset(&err, 0, sizeof err);
    msg = grade_text("lesson: 09_time\npredictions:\n  - id: step-time\n    range: step\n    bound: memory\n", &fx.lesson, &rec, &g,
                     &p, &err);
    cr_assert_not_null(msg);
    cr_assert_eq(err.code, WB_EXIT_CAPTURE);
    cr_assert(strstr(msg, "calibration"), "%s", msg);
    wb_predictions_free(&p);
    wb_recording_free(&rec);
    lesson_done(&fx);
}

/* ---- readers ----------------------------------------------------------------------------------- */

Test(time_facts, predictions_read_decimal_times_and_bound_names) {
    wb_prediction_set p;
    wb_error err = {0};
    const char *ok = "lesson: x\npredictions:\n  - id: a\n    range: r\n    gpu_us: 180.25\n    wall_us: ~\n    bound: compute\n";
    cr_assert_eq(wb_predictions_load_buffer("p.yaml", ok, strlen(ok), &p, &err), 0, "%s", err.message);
    cr_assert_eq(p.items[0].n_facts, 3);
    cr_assert_eq(p.items[0].facts[0].kind, WB_FACT_GPU_US);
    cr_assert_float_eq(p.items[0].facts[0].value, 180.25, 1e-12);
    cr_assert_eq(p.items[0].facts[1].predicted, -1, "~ stays open");
    cr_assert_eq(p.items[0].facts[2].predicted, WB_BOUND_COMPUTE);
    cr_assert_eq(wb_predictions_open(&p), 1);
    wb_predictions_free(&p);
    const struct { const char *value, *message; } bad[] = {
        {"gpu_us: fast", "must be a number"},        {"gpu_us: -3", "cannot be negative"},
        {"gpu_us: \"180\"", "remove the quotes"},    {"gpu_us: 1.2.3", "must be a number"},
        {"gpu_us: 1e5", "must be a number"},         {"wall_us: 99999999", "more than"},
        {"bound: latency", "overhead, memory or compute"}, {"bound: [memory]", "overhead, memory or compute"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "lesson: x\npredictions:\n  - id: a\n    range: r\n    %s\n", bad[i].value);
        memset(&err, 0, sizeof err);
        cr_assert_neq(wb_predictions_load_buffer("p.yaml", text, strlen(text), &p, &err), 0, "%s accepted", bad[i].value);
        cr_assert_eq(err.code, WB_EXIT_INPUT);
        cr_assert(strstr(err.message, "p.yaml:5:") && strstr(err.message, bad[i].message), "%s: %s", bad[i].value, err.message);
    }
}

Test(time_facts, work_expressions_evaluate_with_the_variants_params) {
    const char *names[] = {"n", "batch"};
    const double values[] = {4096, 8};
    wb_expr_params params = {names, values, 2};
    const struct { const char *text; double value; } good[] = {
        {"2*n*n*n", 2.0 * 4096 * 4096 * 4096}, {"2 * (3*n*n + n)", 2.0 * (3.0 * 4096 * 4096 + 4096)},
        {"n / 2 - 1", 2047}, {"1e9", 1e9}, {"-n + batch*2", -4080}, {"((n))", 4096}, {"10 - 2 - 3", 5}, {"64 / 4 / 2", 8},
    };
    char msg[256];
    size_t at;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        double v;
        cr_assert_eq(wb_expr_eval(good[i].text, &params, &v, msg, sizeof msg, &at), 0, "%s: %s", good[i].text, msg);
        cr_assert_float_eq(v, good[i].value, 1e-6 * fabs(good[i].value) + 1e-9, "%s = %g", good[i].text, v);
    }
    const struct { const char *text, *message; } bad[] = {
        {"2*m", "'m' is not a parameter"}, {"n/0", "division by zero"}, {"(n", "')' is missing"},
        {"n n", "unexpected 'n'"},          {"", "expected a number"},  {"n ^ 2", "unexpected '^'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v;
        cr_assert_neq(wb_expr_eval(bad[i].text, &params, &v, msg, sizeof msg, &at), 0, "%s accepted", bad[i].text);
        cr_assert(strstr(msg, bad[i].message), "%s: %s", bad[i].text, msg);
    }
}

Test(time_facts, lesson_yaml_errors_name_the_line) {
    const struct { const char *work, *message; } bad[] = {
        {"work:\n  - range: step\n    flops: 2*m\n    bytes: 1\n", "'m' is not a parameter of the variant (it has: n)"},
        {"work:\n  - range: step\n    bytes: 1\n", "'flops' of range 'step' (variant eager) is missing"},
        {"work:\n  - range: nowhere\n    flops: 1\n    bytes: 1\n", "range 'nowhere' is not in 'ranges'"},
        {"work:\n  - range: step\n    flops: 1\n    bytes: 1\n  - range: step\n    flops: 1\n    bytes: 1\n", "declared twice"},
        {"work:\n  - range: step\n    flops: 1 - 2\n    bytes: 1\n", "cannot be negative"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        lesson_fixture fx;
        lesson_with(&fx, bad[i].work);
        wb_error err = {0};
        cr_assert_neq(load(&fx, &err), 0, "accepted: %s", bad[i].work);
        cr_assert(strstr(err.message, "lesson.yaml:") && strstr(err.message, bad[i].message), "%s", err.message);
        lesson_done(&fx);
    }
    lesson_fixture fx;
    fixture_temp_dir(fx.dir, sizeof fx.dir);
    snprintf(fx.lesson_dir, sizeof fx.lesson_dir, "%s/09_time", fx.dir);
    fixture_mkdir(fx.lesson_dir);
    char path[600], text[2048];
    snprintf(path, sizeof path, "%s/lesson.yaml", fx.lesson_dir);
    const char *tolerances[] = {"25", "0", "1.5", "-10%", "x%", "0x1"};
    for (size_t i = 0; i < sizeof tolerances / sizeof tolerances[0]; i++) {
        snprintf(text, sizeof text, "%s", LESSON_HEAD);
        char *t = strstr(text, "tolerance: 10%");
        snprintf(t, sizeof text - (size_t)(t - text), "tolerance: %s\n  - id: late-time\n    range: late\n    facts: [gpu_us]\n"
                 "    ask: how long?\n", tolerances[i]);
        fixture_write(path, text);
        wb_error err = {0};
        cr_assert_neq(wb_lesson_load(fx.lesson_dir, &fx.lesson, &err), 0, "tolerance %s accepted", tolerances[i]);
        cr_assert(strstr(err.message, "'tolerance' is a share"), "%s", err.message);
        wb_lesson_free(&fx.lesson);
    }
    fixture_remove(fx.dir);
}

Test(time_facts, recordings_keep_calibration_output_and_repeats) {
    char dir[256];
    fixture_temp_dir(dir, sizeof dir);
    char capture[400], path[400];
    snprintf(capture, sizeof capture, "%s/capture.json", dir);
    snprintf(path, sizeof path, "%s/recording.json", dir);
    char probe[4096];
    fixture_probe_recording(probe, sizeof probe);
    /* any real capture will do: the probe recording's first run */
    json_error_t jerr;
    json_t *probe_json = json_load_file(probe, 0, &jerr);
    cr_assert(probe_json, "%s", jerr.text);
    json_dump_file(json_object_get(json_array_get(json_object_get(probe_json, "runs"), 0), "capture"), capture, 0);
    json_decref(probe_json);

    char *args[] = {"--size", "64"};
    wb_run run = {.variant = "eager", .args = args, .n_args = 2, .output = "table\n  gpu_us 5.0\n"};
    wb_calibration cal = {.present = 1, .copy_bytes_per_s = 4.2e12, .matrix_flops_per_s = 7.5e14};
    snprintf(cal.gpu, sizeof cal.gpu, "Test GPU");
    snprintf(cal.method, sizeof cal.method, "test");
    double gpu[] = {1.5, 2.5}, wall[] = {10, 11};
    wb_range_times times = {.variant = "eager", .range = "step", .gpu_us = gpu, .wall_us = wall, .n = 2};
    wb_repeat rep = {&times, 1};
    wb_recording_extras extras = {&cal, &rep, 1, NULL};
    const char *paths[] = {capture};
    wb_error err = {0};
    cr_assert_eq(wb_recording_write(path, "00_probe", "2026-12-01T00:00:00Z", &run, paths, 1, &extras, &err), 0, "%s", err.message);
    wb_recording rec;
    cr_assert_eq(wb_recording_load(path, &rec, &err), 0, "%s", err.message);
    cr_assert(rec.calibration.present);
    cr_assert_float_eq(rec.calibration.copy_bytes_per_s, 4.2e12, 1);
    cr_assert_float_eq(rec.calibration.matrix_flops_per_s, 7.5e14, 1);
    cr_assert_str_eq(rec.runs[0].output, "table\n  gpu_us 5.0\n");
    cr_assert_eq(rec.n_repeats, 1);
    cr_assert_eq(rec.repeats[0].n, 1);
    cr_assert_str_eq(rec.repeats[0].items[0].range, "step");
    cr_assert_float_eq(rec.repeats[0].items[0].wall_us[1], 11.0, 1e-12);
    wb_recording_free(&rec);
    fixture_remove(dir);
}
