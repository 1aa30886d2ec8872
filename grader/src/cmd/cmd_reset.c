/*
 * cmd_reset.c: `grader reset LESSON`, start a lesson again from its template. The learner's
 * predictions.yaml is kept as a backup (never deleted), a fresh copy of the template takes its
 * place, and the progress file notes the reset: the scores stay, the first try above all, since
 * a first try cannot be taken twice.
 */
#include "wb_base.h"
#include "commands.h"
#include "wb_course.h"

#include <stdio.h>
#include <string.h>

const char RESET_USAGE[] = N_(
    "usage: grader reset LESSON\n"
    "\n"
    "Starts a lesson again: your predictions.yaml is kept as a backup (predictions.yaml.bak, .bak.2,\n"
    "...) and a fresh copy of the lesson's predictions.template.yaml takes its place, every value ~.\n"
    "Your progress keeps its scores: a first-try score stays the first try (grader list shows it).\n"
    "LESSON is a lesson folder, name or number.\n"
    "\n"
    "exit: 0 reset, 2 bad usage or input (nothing is changed)\n");

static int run_reset(const char *arg, wb_error *err) {
    char dir[4096], root[4096], state[4096], backup[4400], shown[4400], path[4200];
    wb_lesson l;
    if (wb_resolve_lesson(arg, dir, sizeof dir, err) || wb_lesson_load(dir, &l, err)) return err->code;
    wb_root_dir(l.dir, root, sizeof root);
    int rc = wb_state_dir(root, state, sizeof state, err);
    if (!rc) rc = wb_learner_reset(l.dir, backup, sizeof backup, err);
    if (!rc) rc = wb_progress_record_reset(state, l.lesson, err);
    if (!rc) {
        wb_learner_predictions_path(l.dir, path, sizeof path);
        printf(_("Lesson %s starts again: %s is a fresh copy of the template.\n"), l.lesson,
               wb_cli_display_path(path, shown, sizeof shown));
        if (backup[0]) printf(_("Your previous predictions are kept in %s.\n"), wb_cli_display_path(backup, shown, sizeof shown));
        printf(_("Next: grader check %s\n"), wb_cli_display_path(l.dir, shown, sizeof shown));
    }
    wb_lesson_free(&l);
    return rc;
}

int cmd_reset(int argc, char **argv) {
    const char *lesson = NULL; /* folder, name or number */
    size_t n = 0;
    wb_cli_spec spec = {.command = "reset", .usage = RESET_USAGE, .operands = &lesson, .n_operands = &n, .max_operands = 1,
                        .min_operands = 1, .missing = N_("which lesson? e.g. grader reset 01_matmul_add"),
                        .too_many = N_("one lesson at a time (also got %s)")};
    int parsed = wb_cli_parse(&spec, argc, argv);
    if (parsed) return parsed == WB_CLI_HELP ? WB_EXIT_OK : parsed;
    wb_error err = {0};
    int rc = run_reset(lesson, &err);
    if (err.code) wb_cli_error("reset", err.message);
    return rc;
}
