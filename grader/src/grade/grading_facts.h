/*
 * grading_facts.h: a grading's facts as the learner's progress keeps them (progress.h) and a
 * submission hands them in (submission.h): per question its variant, range and rank, per fact the
 * value predicted, the value captured and whether it was right.
 *
 *   {"eager-kernels": {"variant": "eager", "range": "mm", "rank": -1,
 *                      "facts": {"kernels": {"predicted": 5, "actual": 5, "right": true}}}}
 *
 * Values: counts are integers, times (overlap_us, gpu_us, wall_us) numbers of microseconds, a
 * bound its name; an actual that differs by occurrence, or a range that never ran, is null.
 */
#ifndef WB_GRADING_FACTS_H
#define WB_GRADING_FACTS_H

#include "grade.h"
#include "wb_course.h"

#include <jansson.h>

/* The facts of g (a new reference; NULL when out of memory). */
json_t *wb_grading_facts_json(const wb_grade *g, const wb_lesson *l);

/* "count", "time" or "bound": how a fact's label (kernels, gpu_us, bound...) is graded; NULL for
 * a label that is no fact of the predictions schema. */
const char *wb_fact_label_kind(const char *label);

#endif
