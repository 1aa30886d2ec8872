/*
 * grade.h: predictions against captured facts. Each fact is graded on its own (partial credit):
 * it is right when every occurrence of its range in the profiled window has the predicted value.
 */
#ifndef WB_GRADE_H
#define WB_GRADE_H

#include "capture.h"
#include "error.h"
#include "lesson.h"
#include "predictions.h"

typedef struct {
    const wb_prediction *prediction;
    const wb_fact *fact;
    const char *variant;       /* resolved: the lesson's only variant when the prediction names none */
    long predicted;            /* -1 when ~ */
    long actual;               /* the value all occurrences share, or -1 when they differ or none occurred */
    long *per_occurrence;      /* each occurrence's value, in time order */
    size_t n_occurrences;
    int right;
} wb_graded_fact;

typedef struct {
    wb_graded_fact *facts;
    size_t n, right;
} wb_grade;

/* Checks predictions against the lesson: lesson name, known variants and ranges. Exit 2 with
 * file:line:column on the first problem. */
int wb_predictions_check_lesson(const wb_prediction_set *p, const wb_lesson *l, wb_error *err);

/* The variant a prediction is about (its own, or the lesson's only one). */
const char *wb_prediction_variant(const wb_prediction *p, const wb_lesson *l);

/* Grades every fact whose value is not ~. Fails with exit 3 when the recording has no run for a
 * variant the predictions need. */
int wb_grade_predictions(const wb_prediction_set *p, const wb_lesson *l, const wb_recording *rec, wb_grade *out,
                         wb_error *err);
void wb_grade_free(wb_grade *g);

#endif
