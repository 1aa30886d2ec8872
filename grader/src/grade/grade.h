/*
 * grade.h: predictions against captured facts. Each fact is graded on its own (partial credit):
 * it is right when every occurrence of its range in the profiled window has the predicted value.
 */
#ifndef WB_GRADE_H
#define WB_GRADE_H

#include "wb_capture.h"
#include "wb_base.h"
#include "wb_course.h"
#include "wb_predict.h"
#include "time_facts.h"

typedef struct {
    const wb_prediction *prediction;
    const wb_fact *fact;
    const char *variant;       /* resolved: the lesson's only variant when the prediction names none */
    long predicted;            /* -1 when ~ */
    long actual;               /* the value all occurrences share, or -1 when they differ or none occurred */
    long *per_occurrence;      /* each occurrence's value, in time order (bound: a wb_bound) */
    size_t n_occurrences;
    int right;
    /* time facts (gpu_us, wall_us) and bound */
    int is_time;               /* gpu_us or wall_us: the values below, not the longs above */
    double predicted_us, actual_us; /* actual: the median over occurrences */
    double tolerance;          /* right when |predicted - actual| <= tolerance x actual */
    double *gpu_us, *wall_us;  /* each occurrence's, in time order (time facts and bound) */
    double *per_us;            /* time facts: each occurrence's value (wb_graded_time_at) */
    wb_bound_inputs bound;     /* judged facts (bound): what the rule used, with the medians of gpu_us and wall_us */
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

/* Grades a time fact or bound g (fact, prediction and tolerance set) from each occurrence's
 * values (overlap_us; NULL for gpu_us and wall_us, which are the next two), GPU and wall time:
 * grading a capture, or a repeat's range times (lint). work and cal may be NULL but for bound. */
int wb_grade_time_values(wb_graded_fact *g, const double *values, const double *gpu_us, const double *wall_us, size_t n,
                         const wb_work *work, const wb_calibration *cal);

/* A time fact's value in occurrence k. */
double wb_graded_time_at(const wb_graded_fact *g, size_t k);

/* The predicted and actual values as text, in the fact's unit: "5", "180.5", "memory"; for an
 * actual that differs by occurrence (counts, bound) or a range that never occurred: "-". */
const char *wb_graded_predicted_text(const wb_graded_fact *g, char *buf, size_t cap);
const char *wb_graded_actual_text(const wb_graded_fact *g, char *buf, size_t cap);
/* The band of predictions that are right, "82.5 to 137.5" (time facts); "" otherwise. */
const char *wb_graded_band_text(const wb_graded_fact *g, char *buf, size_t cap);

/* Grades every fact whose value is not ~. Time facts use the tolerance of the lesson's question
 * with the prediction's id (WB_DEFAULT_TOLERANCE for others); bound needs the range's declared
 * work (exit 2 when lesson.yaml has none) and the recording's calibration (exit 3 without). Fails with exit 3 when the recording has no run for a
 * variant the predictions need. */
int wb_grade_predictions(const wb_prediction_set *p, const wb_lesson *l, const wb_recording *rec, wb_grade *out,
                         wb_error *err);
void wb_grade_free(wb_grade *g);

#endif
