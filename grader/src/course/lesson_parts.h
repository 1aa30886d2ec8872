/*
 * lesson_parts.h: a lesson's parts, seen through the learner's predictions (lesson.h says what a
 * part is). The predictions file holds every part's questions; each part is graded on its own, so
 * its first try is locked by the hash of its own answers, not of the whole file: filling in the
 * PyTorch part after grading the main part does not make the main part's score a second try.
 */
#ifndef WB_LESSON_PARTS_H
#define WB_LESSON_PARTS_H

#include "lesson.h"
#include "wb_predict.h"

/* The predictions about one part of l: a view (items shared with all, not copied; free view->items
 * only). -1 when out of memory. */
int wb_predictions_of_part(const wb_prediction_set *all, const wb_lesson *l, const char *part, wb_prediction_set *view);

/* What a grading of these predictions records as their hash: for a lesson with one part, the
 * file's bytes (progress.h: "fnv1a64:..."); for a lesson with parts, the answers of the view, one
 * "id label value" line each ("answers-fnv1a64:..."). "" when the file cannot be read. */
void wb_part_predictions_hash(const wb_lesson *l, const wb_prediction_set *view, char *out, size_t cap);

/* 1 when a recorded hash still matches the predictions: compared as it was made (a file hash
 * with the file, an answers hash with the view's answers). */
int wb_part_hash_matches(const char *recorded, const wb_prediction_set *view, const char *file_hash);

#endif
