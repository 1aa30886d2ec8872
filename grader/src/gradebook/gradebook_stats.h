/*
 * gradebook_stats.h: the figures of the gradebook's report, computed from the database
 * (docs/gradebook.md defines each; tests/grader/gradebook/check_report.py computes them again
 * from the submissions alone).
 *
 * The statistics of a lesson count its cohort: the learners whose lesson was regraded (against a
 * recording or a key) and not revealed before grading. For learner i, A_i is the set of the
 * lesson's facts with a first try, r_if 1 when fact f was right at the first try.
 *
 *   fact f      learners: |{i: f in A_i}|; right_share: mean of r_if
 *               discrimination: the corrected point-biserial correlation, Pearson's r between
 *               r_if and the share right of the learner's other facts in A_i, over the learners
 *               with f and at least one other fact; undefined (NAN) under 2 learners or when
 *               either side does not vary
 *               wrong answers (counts, bounds): the wrong first answers, most common first
 *               (ties: answer text in byte order), the first WB_GB_WRONG_ANSWERS
 *               error (times): quartiles (linear interpolation) of (predicted - actual) / actual
 *   question Q  per learner the share right of Q's facts in A_i; all_right_share: the share of
 *               learners with every one right; discrimination: Pearson's r between that share and
 *               the share right of the learner's facts outside Q
 *   flags       with WB_GB_MIN_LEARNERS learners or more: "most-missed" when the right share (a
 *               question: all_right_share) is under 0.5, "not-discriminating" when the
 *               discrimination is under WB_GB_LOW_DISCRIMINATION or undefined
 */
#ifndef WB_GRADEBOOK_STATS_H
#define WB_GRADEBOOK_STATS_H

#include "wb_base.h"

#include <sqlite3.h>
#include <stddef.h>

#define WB_GB_WRONG_ANSWERS 3
#define WB_GB_MIN_LEARNERS 5
#define WB_GB_LOW_DISCRIMINATION 0.2
#define WB_GB_MOST_MISSED 0.5

typedef struct {
    char answer[64];
    long count;
} wb_gb_answer;

typedef struct {
    int most_missed, not_discriminating;
} wb_gb_flags;

typedef struct {
    char *label, *kind;           /* kind: count, time, bound */
    long learners, right;
    double right_share;           /* NAN without learners */
    double discrimination;        /* NAN when undefined */
    wb_gb_flags flags;
    wb_gb_answer wrong[WB_GB_WRONG_ANSWERS];
    size_t n_wrong;
    long error_n;                 /* times: first tries with an error share */
    double error_q1, error_median, error_q3;
} wb_gb_fact;

typedef struct {
    char *id, *ask;
    long learners;
    double all_right_share, mean_share, discrimination;
    wb_gb_flags flags;
    wb_gb_fact *facts;
    size_t n_facts;
} wb_gb_question;

typedef struct {
    char *name, *status, *against; /* status: regraded or unverified; against: what the first try was graded against */
    int revealed_first, in_cohort;
    long first_right, first_total, latest_right, latest_total;
} wb_gb_learner;

typedef struct {
    char *name, *title;
    wb_gb_learner *learners;      /* by name */
    size_t n_learners;
    long cohort;
    wb_gb_question *questions;    /* the lesson's order */
    size_t n_questions;
} wb_gb_lesson;

typedef struct {
    char *course;
    long learners, submissions;
    wb_gb_lesson *lessons;        /* course order */
    size_t n_lessons;
} wb_gb_report;

int wb_gb_report_build(sqlite3 *db, wb_gb_report *out, wb_error *err);
void wb_gb_report_free(wb_gb_report *r);

#endif
