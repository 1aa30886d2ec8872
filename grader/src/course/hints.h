/*
 * hints.h: the hints of lesson.yaml, one at a time. The progress file remembers, per lesson and
 * question, how many were shown ("hints_shown": {"two-kernels": 1}), so each `grader hint` gives
 * the next one and says when none are left. `grader list` shows how many a learner used.
 */
#ifndef WB_HINTS_H
#define WB_HINTS_H

#include "lesson.h"
#include "wb_predict.h"

#include <jansson.h>

/* How many hints of question id were shown; entry is the lesson's progress entry (may be NULL). */
long wb_hints_shown(json_t *entry, const char *question);

/* The question a bare `grader hint LESSON` is about: the first (in lesson order) with hints left
 * whose prediction is still open (a ~ in predictions, or no such prediction, or no file: p NULL);
 * else the first with hints left; NULL when no question has a hint left. */
const wb_question *wb_hint_pick(const wb_lesson *l, const wb_prediction_set *p, json_t *entry);

/* Counts one more hint of q as shown in entry; returns the index of the hint to show, or -1 when
 * all were shown already (entry is then unchanged). */
long wb_hint_take(json_t *entry, const wb_question *q);

#endif
