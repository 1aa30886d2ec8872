/*
 * test_course_status.c: the state `grader list` shows for a lesson, from the progress file (as
 * the grader's own progress.c writes it) and the learner's predictions file; above all the
 * prediction lock: once graded, a changed predictions file shows as "regraded" with the first-try
 * score kept apart, never as a first try.
 */
#include "course_fixture.h"
#include "course_status.h"
#include "learner_files.h"
#include "progress.h"

#include <criterion/criterion.h>
#include <unistd.h>

static char root[4200], dir[4400], state[4400], preds[4600];

static void setup(void) {
    fixture_temp_dir(root, sizeof root);
    fixture_probe_course(root);
    snprintf(dir, sizeof dir, "%s/lessons/00_probe", root);
    snprintf(state, sizeof state, "%s/.workbench", root);
    fixture_mkdir(state);
    /* the learner's file as grader check makes it on first use */
    int created = 0;
    wb_error err = {0};
    cr_assert_eq(wb_learner_predictions(dir, preds, sizeof preds, &created, &err), 0, "%s", err.message);
    cr_assert(created);
}

static void teardown(void) { fixture_remove(root); }

TestSuite(course_status, .init = setup, .fini = teardown);

static void status(wb_lesson_status *s) {
    json_t *progress;
    wb_error err = {0};
    cr_assert_eq(wb_progress_load(state, &progress, &err), 0, "%s", err.message);
    wb_lesson_status_get(dir, progress, s);
    json_decref(progress);
}

/* Fills every ~ of the template with n. */
static void fill_all(int n) {
    char *s = fixture_read(preds);
    char *out = malloc(strlen(s) * 2 + 1), *o = out;
    char num[16];
    snprintf(num, sizeof num, "%d", n);
    for (const char *p = s; *p; p++) {
        if (*p == '~') o += sprintf(o, "%s", num);
        else *o++ = *p;
    }
    *o = '\0';
    fixture_write(preds, out);
    free(out);
    free(s);
}

static void record_grade(size_t right, size_t total) {
    char hash[64];
    wb_error err = {0};
    cr_assert_eq(wb_hash_file(preds, hash, sizeof hash), 0);
    cr_assert_eq(wb_progress_record_grade(state, "00_probe", right, total, hash, "replay", &err), 0, "%s", err.message);
}

Test(course_status, template_is_not_started) {
    wb_lesson_status s;
    status(&s);
    cr_expect_eq(s.state, WB_STATE_NOT_STARTED);
    cr_expect_str_eq(s.name, "00_probe");
    cr_expect_str_eq(s.title, "probe: a program with a known trace");
    cr_expect_eq(s.filled, 0);
    cr_expect(s.facts > 0);
    cr_expect_eq(s.right, -1);
}

/* Before the first check only the template exists: it is read, nothing is made. */
Test(course_status, template_alone_is_not_started) {
    cr_assert_eq(remove(preds), 0);
    wb_lesson_status s;
    status(&s);
    cr_expect_eq(s.state, WB_STATE_NOT_STARTED);
    cr_expect(s.facts > 0, "the template's questions are counted");
    cr_expect_eq(s.filled, 0);
    cr_expect(access(preds, F_OK) != 0, "reading the status made the learner's file");
}

Test(course_status, no_predictions_file_is_not_started) {
    char tmpl[4600];
    cr_assert_eq(remove(preds), 0);
    wb_template_path(dir, tmpl, sizeof tmpl);
    cr_assert_eq(remove(tmpl), 0);
    wb_lesson_status s;
    status(&s);
    cr_expect_eq(s.state, WB_STATE_NOT_STARTED);
    cr_expect_eq(s.facts, -1);
}

Test(course_status, some_values_is_in_progress) {
    fixture_replace(preds, "gemms: ~", "gemms: 1");
    wb_lesson_status s;
    status(&s);
    cr_expect_eq(s.state, WB_STATE_IN_PROGRESS);
    cr_expect_eq(s.filled, 1);
}

Test(course_status, every_value_is_predicted) {
    fill_all(2);
    wb_lesson_status s;
    status(&s);
    cr_expect_eq(s.state, WB_STATE_PREDICTED);
    cr_expect_eq(s.filled, s.facts);
}

Test(course_status, graded_first_try) {
    fill_all(2);
    record_grade(5, 8);
    wb_lesson_status s;
    status(&s);
    cr_expect_eq(s.state, WB_STATE_GRADED);
    cr_expect_eq(s.right, 5);
    cr_expect_eq(s.total, 8);
    cr_expect_eq(s.first_right, 5);
    cr_expect_eq(s.first_total, 8);
    cr_expect_eq(s.attempts, 1);
    cr_expect(!s.edited_since_grading);
    cr_expect(!s.revealed_first);
}

Test(course_status, same_file_graded_again_stays_graded) {
    fill_all(2);
    record_grade(5, 8);
    record_grade(5, 8);
    wb_lesson_status s;
    status(&s);
    cr_expect_eq(s.state, WB_STATE_GRADED);
    cr_expect_eq(s.attempts, 2);
}

/* The lock: edited and graded again: the latest score is not a first try. */
Test(course_status, changed_and_regraded_keeps_the_first_score_apart) {
    fill_all(2);
    record_grade(5, 8);
    fill_all(2);
    fixture_replace(preds, "gemms: 2", "gemms: 1");
    record_grade(8, 8);
    wb_lesson_status s;
    status(&s);
    cr_expect_eq(s.state, WB_STATE_REGRADED);
    cr_expect_eq(s.right, 8);
    cr_expect_eq(s.first_right, 5, "the first-try score is kept");
    cr_expect_eq(s.first_total, 8);
    cr_expect(!s.edited_since_grading);
}

/* Edited after grading, not graded again: still not a first try. */
Test(course_status, changed_after_grading_is_regraded) {
    fill_all(2);
    record_grade(5, 8);
    fixture_replace(preds, "gemms: 2", "gemms: 1");
    wb_lesson_status s;
    status(&s);
    cr_expect_eq(s.state, WB_STATE_REGRADED);
    cr_expect(s.edited_since_grading);
    cr_expect_eq(s.first_right, 5);
}

/* Changing the file back to what was first graded is a first-try file again. */
Test(course_status, changed_back_is_graded) {
    fill_all(2);
    record_grade(5, 8);
    fixture_replace(preds, "gemms: 2", "gemms: 1");
    fixture_replace(preds, "gemms: 1", "gemms: 2");
    wb_lesson_status s;
    status(&s);
    cr_expect_eq(s.state, WB_STATE_GRADED);
}

Test(course_status, revealed_without_predicting) {
    wb_error err = {0};
    cr_assert_eq(wb_progress_record_reveal(state, "00_probe", "replay", "grader check --reveal", &err), 0);
    wb_lesson_status s;
    status(&s);
    cr_expect_eq(s.state, WB_STATE_REVEALED);
    cr_expect(s.revealed_first);
}

Test(course_status, revealed_then_graded_is_no_first_try) {
    wb_error err = {0};
    cr_assert_eq(wb_progress_record_reveal(state, "00_probe", "replay", "grader check --reveal", &err), 0);
    fill_all(2);
    record_grade(8, 8);
    wb_lesson_status s;
    status(&s);
    cr_expect_eq(s.state, WB_STATE_GRADED);
    cr_expect(s.revealed_first, "the trace was seen before the grading");
}

Test(course_status, hints_are_counted) {
    json_t *progress;
    wb_error err = {0};
    cr_assert_eq(wb_progress_load(state, &progress, &err), 0);
    json_object_set_new(wb_progress_lesson(progress, "00_probe"), "hints_shown", json_pack("{s:i, s:i}", "a", 2, "b", 1));
    cr_assert_eq(wb_progress_save(state, progress, &err), 0);
    json_decref(progress);
    wb_lesson_status s;
    status(&s);
    cr_expect_eq(s.hints_shown, 3);
    cr_expect_eq(s.state, WB_STATE_NOT_STARTED, "a lesson with only hints seen is still not started");
}

Test(course_status, broken_lesson_yaml) {
    char yaml[4600];
    snprintf(yaml, sizeof yaml, "%s/lesson.yaml", dir);
    fixture_replace(yaml, "binary: wb_probe", "binary: wb_probe\nbinray: typo");
    wb_lesson_status s;
    status(&s);
    cr_expect_eq(s.state, WB_STATE_BROKEN);
    cr_expect(strstr(s.note, "lesson.yaml") && strstr(s.note, "binray"), "%s", s.note);
}

Test(course_status, next_lesson_is_the_first_not_graded) {
    wb_lesson_status s[4];
    memset(s, 0, sizeof s);
    s[0].state = WB_STATE_GRADED;
    s[1].state = WB_STATE_REGRADED;
    s[2].state = WB_STATE_REVEALED;
    s[3].state = WB_STATE_NOT_STARTED;
    cr_expect_eq(wb_next_lesson(s, 4), 2, "a revealed lesson is not graded yet");
    cr_expect_eq(wb_next_lesson(s, 2), -1);
    s[1].state = WB_STATE_PREDICTED;
    cr_expect_eq(wb_next_lesson(s, 4), 1);
}

Test(course_status, state_names) {
    cr_expect_str_eq(wb_lesson_state_name(WB_STATE_NOT_STARTED), "not started");
    cr_expect_str_eq(wb_lesson_state_name(WB_STATE_REGRADED), "regraded");
    cr_expect_str_eq(wb_lesson_state_name(WB_STATE_REVEALED), "revealed");
}
