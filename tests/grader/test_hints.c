/*
 * test_hints.c: hints one at a time: the count per question lives in the lesson's progress entry,
 * each take gives the next hint, none past the last; a bare `grader hint` picks the first
 * question still open that has hints left.
 */
#include "course_fixture.h"
#include "hints.h"
#include "learner_files.h"
#include "progress.h"

#include <criterion/criterion.h>

static char root[4200], dir[4400];
static wb_lesson lesson;

static void setup(void) {
    fixture_temp_dir(root, sizeof root);
    fixture_probe_course(root);
    snprintf(dir, sizeof dir, "%s/lessons/00_probe", root);
    wb_error err = {0};
    cr_assert_eq(wb_lesson_load(dir, &lesson, &err), 0, "%s", err.message);
}

static void teardown(void) {
    wb_lesson_free(&lesson);
    fixture_remove(root);
}

TestSuite(hints, .init = setup, .fini = teardown);

/* In the fixture: two-kernels has 2 hints, graph-kernels none, memset 1, gemm none. */

Test(hints, one_at_a_time_then_none) {
    json_t *entry = json_object();
    const wb_question *q = wb_lesson_question(&lesson, "two-kernels");
    cr_assert(q);
    cr_expect_eq(wb_hints_shown(entry, "two-kernels"), 0);
    cr_expect_eq(wb_hint_take(entry, q), 0);
    cr_expect_eq(wb_hints_shown(entry, "two-kernels"), 1);
    cr_expect_eq(wb_hint_take(entry, q), 1);
    cr_expect_eq(wb_hint_take(entry, q), -1, "no third hint");
    cr_expect_eq(wb_hints_shown(entry, "two-kernels"), 2, "a refused take changes nothing");
    json_decref(entry);
}

Test(hints, counts_survive_the_progress_file) {
    char state[4600];
    snprintf(state, sizeof state, "%s/.workbench", root);
    fixture_mkdir(state);
    json_t *progress;
    wb_error err = {0};
    cr_assert_eq(wb_progress_load(state, &progress, &err), 0);
    cr_expect_eq(wb_hint_take(wb_progress_lesson(progress, "00_probe"), wb_lesson_question(&lesson, "memset")), 0);
    cr_assert_eq(wb_progress_save(state, progress, &err), 0);
    json_decref(progress);
    cr_assert_eq(wb_progress_load(state, &progress, &err), 0);
    json_t *entry = json_object_get(json_object_get(progress, "lessons"), "00_probe");
    cr_expect_eq(wb_hints_shown(entry, "memset"), 1);
    cr_expect_eq(wb_hint_take(entry, wb_lesson_question(&lesson, "memset")), -1);
    json_decref(progress);
}

Test(hints, pick_without_predictions_is_the_first_with_hints) {
    json_t *entry = json_object();
    const wb_question *q = wb_hint_pick(&lesson, NULL, entry);
    cr_assert(q);
    cr_expect_str_eq(q->id, "two-kernels");
    wb_hint_take(entry, q);
    wb_hint_take(entry, q);
    q = wb_hint_pick(&lesson, NULL, entry);
    cr_assert(q);
    cr_expect_str_eq(q->id, "memset", "graph-kernels has no hints");
    wb_hint_take(entry, q);
    cr_expect_null(wb_hint_pick(&lesson, NULL, entry), "every hint shown");
    json_decref(entry);
}

Test(hints, pick_prefers_questions_still_open) {
    char path[4600];
    int created = 0;
    wb_error made = {0};
    cr_assert_eq(wb_learner_predictions(dir, path, sizeof path, &created, &made), 0, "%s", made.message);
    /* two-kernels answered, memset still open */
    fixture_replace(path, "    kernels: ~\n", "    kernels: 2\n");
    fixture_replace(path, "      wb_probe_scale: ~\n", "      wb_probe_scale: 2\n");
    fixture_replace(path, "      cudaLaunchKernel: ~\n", "      cudaLaunchKernel: 2\n");
    wb_prediction_set p;
    wb_error err = {0};
    cr_assert_eq(wb_predictions_load(path, &p, &err), 0, "%s", err.message);
    json_t *entry = json_object();
    const wb_question *q = wb_hint_pick(&lesson, &p, entry);
    cr_assert(q);
    cr_expect_str_eq(q->id, "memset");
    wb_hint_take(entry, q);
    q = wb_hint_pick(&lesson, &p, entry);
    cr_assert(q);
    cr_expect_str_eq(q->id, "two-kernels", "answered questions still give their hints when no open one has any left");
    json_decref(entry);
    wb_predictions_free(&p);
}
