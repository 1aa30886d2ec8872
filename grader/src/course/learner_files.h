/*
 * learner_files.h: the learner's predictions file and the lesson's template beside it.
 *
 *   lessons/NN_name/predictions.template.yaml   tracked: every value ~ (template.h, grader lint)
 *   lessons/NN_name/predictions.yaml            the learner's answers: never tracked (.gitignore),
 *                                               made from the template on first use
 *
 * The split keeps a learner's answers out of git (the test suite lints the template, so answering
 * never breaks it, and a pull never fights a learner's edits) while `grader check lessons/03_mlp`
 * reads the same path it always did.
 */
#ifndef WB_LEARNER_FILES_H
#define WB_LEARNER_FILES_H

#include "wb_base.h"

#include <stddef.h>

#define WB_TEMPLATE_FILE "predictions.template.yaml"
#define WB_PREDICTIONS_FILE "predictions.yaml"

/* <lesson_dir>/predictions.template.yaml and <lesson_dir>/predictions.yaml. */
void wb_template_path(const char *lesson_dir, char *buf, size_t cap);
void wb_learner_predictions_path(const char *lesson_dir, char *buf, size_t cap);

/* The learner's file, made from the template when it does not exist yet (*created = 1 then).
 * Never touches an existing file. Error (exit 2) when neither file exists. */
int wb_learner_predictions(const char *lesson_dir, char *buf, size_t cap, int *created, wb_error *err);

/* The file that says what the learner has answered: theirs when it exists, else the template
 * (nothing answered yet); reading it creates nothing. Returns 0, or -1 when neither exists. */
int wb_predictions_to_read(const char *lesson_dir, char *buf, size_t cap);

/* 1 when path holds exactly the bytes of the template beside it (the same folder's
 * predictions.template.yaml): nothing in it is the learner's, so it needs no backup. */
int wb_is_untouched_template(const char *path);

/* The next free backup name of path: path.bak, then path.bak.2, .bak.3, ... (never overwritten). */
int wb_backup_path(const char *path, char *buf, size_t cap);

/* Starts a lesson again: the learner's file moves to a backup (its path in backup, "" when there
 * was no file) and a fresh copy of the template takes its place. */
int wb_learner_reset(const char *lesson_dir, char *backup, size_t backup_cap, wb_error *err);

#endif
