/*
 * template.h: the predictions template of a lesson, made from its lesson.yaml.
 *
 * Every question becomes one prediction with its id, variant and range and each asked fact set
 * to ~, the question's text above it as a comment. `grader new` writes it, `grader template`
 * prints it, and `grader lint` checks the shipped predictions.template.yaml against the same
 * rules with wb_template_compare, so a template can never drift from its lesson.yaml.
 */
#ifndef WB_TEMPLATE_H
#define WB_TEMPLATE_H

#include "lesson.h"
#include "wb_predict.h"

#include <stddef.h>

/* The rule a question's times are graded by, from its tolerance in lesson.yaml (the one source of
 * it): "Times are right within 40% of the measured value (the median occurrence)." into buf, or
 * "" when the question asks no time (gpu_us, wall_us, overlap_us). The template writes it under
 * the question and `grader check` prints it with the question, so no text states it by hand. */
const char *wb_question_tolerance_note(const wb_question *q, char *buf, size_t cap);
/* The same in the learner's language (the question as `grader check` asks it). */
const char *wb_question_tolerance_note_localized(const wb_question *q, char *buf, size_t cap);

/* The template's text (malloc'd), or NULL when out of memory. */
char *wb_predictions_template(const wb_lesson *l);
/* The same YAML with its comments (the header, each question, its note) in the learner's
 * language: the learner's copy of a template that is wb_predictions_template's own text. */
char *wb_predictions_template_localized(const wb_lesson *l);

typedef struct {
    int line;           /* in the predictions file, or 0 */
    char message[512];
} wb_template_issue;

/* Compares a predictions file read as a template with the lesson: the same questions (ids,
 * variants, ranges, facts) and every value ~. Writes up to cap issues; returns how many there
 * are in all. */
size_t wb_template_compare(const wb_lesson *l, const wb_prediction_set *p, wb_template_issue *issues, size_t cap);

/* A YAML scalar for s: as it is when it is a plain word, else double-quoted with escapes. */
const char *wb_yaml_quote(const char *s, char *buf, size_t cap);

#endif
