/*
 * test_learner_files.c: the learner's predictions.yaml beside the tracked template: made from the
 * template on first use and never touched after; `grader reset` keeps a backup of every earlier
 * file (never replacing one) and changes nothing when the lesson has no template.
 */
#include "course_fixture.h"
#include "learner_files.h"

#include <criterion/criterion.h>
#include <unistd.h>

static char root[4200], dir[4400], tmpl[4600], mine[4600];

static void setup(void) {
    fixture_temp_dir(root, sizeof root);
    fixture_probe_course(root);
    snprintf(dir, sizeof dir, "%s/lessons/00_probe", root);
    wb_template_path(dir, tmpl, sizeof tmpl);
    wb_learner_predictions_path(dir, mine, sizeof mine);
}

static void teardown(void) { fixture_remove(root); }

TestSuite(learner_files, .init = setup, .fini = teardown);

Test(learner_files, first_use_copies_the_template) {
    char path[4600];
    int created = 0;
    wb_error err = {0};
    cr_assert(access(mine, F_OK) != 0);
    cr_assert_eq(wb_learner_predictions(dir, path, sizeof path, &created, &err), 0, "%s", err.message);
    cr_expect_str_eq(path, mine);
    cr_expect(created);
    char *a = fixture_read(tmpl), *b = fixture_read(mine);
    cr_expect_str_eq(a, b);
    free(a);
    free(b);
    char partial[4700];
    snprintf(partial, sizeof partial, "%s.partial", mine);
    cr_expect(access(partial, F_OK) != 0, "a .partial file was left behind");
}

Test(learner_files, an_existing_file_is_never_touched) {
    fixture_write(mine, "lesson: 00_probe\npredictions: []\n# mine\n");
    char path[4600];
    int created = 1;
    wb_error err = {0};
    cr_assert_eq(wb_learner_predictions(dir, path, sizeof path, &created, &err), 0, "%s", err.message);
    cr_expect(!created);
    char *b = fixture_read(mine);
    cr_expect_str_eq(b, "lesson: 00_probe\npredictions: []\n# mine\n");
    free(b);
}

Test(learner_files, reading_prefers_the_learners_file_and_creates_nothing) {
    char path[4600];
    cr_assert_eq(wb_predictions_to_read(dir, path, sizeof path), 0);
    cr_expect_str_eq(path, tmpl);
    cr_expect(access(mine, F_OK) != 0);
    fixture_write(mine, "x");
    cr_assert_eq(wb_predictions_to_read(dir, path, sizeof path), 0);
    cr_expect_str_eq(path, mine);
    cr_assert_eq(remove(mine), 0);
    cr_assert_eq(remove(tmpl), 0);
    cr_expect_eq(wb_predictions_to_read(dir, path, sizeof path), -1);
}

Test(learner_files, no_template_is_an_error_naming_it) {
    cr_assert_eq(remove(tmpl), 0);
    char path[4600];
    int created = 0;
    wb_error err = {0};
    cr_expect_eq(wb_learner_predictions(dir, path, sizeof path, &created, &err), WB_EXIT_INPUT);
    cr_expect(strstr(err.message, "predictions.template.yaml"), "%s", err.message);
    cr_expect(access(mine, F_OK) != 0);
}

Test(learner_files, reset_keeps_every_earlier_file) {
    char backup[4600], want[4700];
    wb_error err = {0};
    fixture_write(mine, "first answers\n");
    cr_assert_eq(wb_learner_reset(dir, backup, sizeof backup, &err), 0, "%s", err.message);
    snprintf(want, sizeof want, "%s.bak", mine);
    cr_expect_str_eq(backup, want);
    char *t = fixture_read(tmpl), *m = fixture_read(mine), *b = fixture_read(backup);
    cr_expect_str_eq(m, t, "the learner's file is a fresh template");
    cr_expect_str_eq(b, "first answers\n");
    free(m);
    free(b);
    /* again: a new backup, the first one untouched */
    fixture_write(mine, "second answers\n");
    cr_assert_eq(wb_learner_reset(dir, backup, sizeof backup, &err), 0, "%s", err.message);
    snprintf(want, sizeof want, "%s.bak.2", mine);
    cr_expect_str_eq(backup, want);
    b = fixture_read(backup);
    cr_expect_str_eq(b, "second answers\n");
    free(b);
    snprintf(want, sizeof want, "%s.bak", mine);
    b = fixture_read(want);
    cr_expect_str_eq(b, "first answers\n");
    free(b);
    free(t);
}

Test(learner_files, reset_without_a_file_only_copies) {
    char backup[4600];
    wb_error err = {0};
    cr_assert_eq(wb_learner_reset(dir, backup, sizeof backup, &err), 0, "%s", err.message);
    cr_expect_str_eq(backup, "");
    cr_expect(access(mine, F_OK) == 0);
}

Test(learner_files, reset_without_a_template_changes_nothing) {
    fixture_write(mine, "answers\n");
    cr_assert_eq(remove(tmpl), 0);
    char backup[4600], bak[4700];
    wb_error err = {0};
    cr_expect_eq(wb_learner_reset(dir, backup, sizeof backup, &err), WB_EXIT_INPUT);
    char *m = fixture_read(mine);
    cr_expect_str_eq(m, "answers\n");
    free(m);
    snprintf(bak, sizeof bak, "%s.bak", mine);
    cr_expect(access(bak, F_OK) != 0, "a backup was made although nothing changed");
}
