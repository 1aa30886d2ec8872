/*
 * regrade.h: a submission's gradings graded again, by the instructor's grader, against the
 * course's own files: a submitted score is never trusted. For each fact the submission's grading
 * names the GPU architecture it was graded on; the facts of one architecture are graded
 *
 *   1. against the lesson's recording of that architecture (traces/sm_90.json), with the same
 *      code as grader check: what a replay on the learner's machine gave, and, for a live
 *      grading, what the course recorded on that GPU;
 *   2. else against the answer key's verified answers for that architecture (expectations/, the
 *      instructor's checkout): exact facts equal, times within the question's tolerance;
 *   3. else not at all: the fact keeps the submitted result, marked unverified.
 *
 * The predictions are rebuilt as a predictions file and read by the grader's own reader, so a
 * submission can hold nothing a learner's predictions.yaml could not.
 */
#ifndef WB_REGRADE_H
#define WB_REGRADE_H

#include "wb_course.h"
#include "wb_base.h"

#include <jansson.h>

typedef enum { WB_AGAINST_RECORDING, WB_AGAINST_KEY, WB_AGAINST_NOTHING } wb_against;

typedef struct {
    const char *question, *label, *kind;          /* borrowed from the submission; kind: count, time, bound */
    const char *source, *arch, *gpu, *graded_at;  /* the submitted grading's, borrowed */
    char predicted[64], actual[64];               /* as text: "5", "180.5", "memory"; actual "" when none */
    int right, submitted_right;
    double error_share;                           /* times: (predicted - actual) / actual; NAN otherwise */
    wb_against against;
    char against_text[96];                        /* "recording sm_90", "key sm_80", "nothing for sm_80" */
} wb_regraded_fact;

typedef struct {
    wb_regraded_fact *facts;
    size_t n;
} wb_regraded;

typedef struct wb_regrade_lesson wb_regrade_lesson;

/* The course, its lessons, recordings and keys loaded once (by need) for many submissions. */
typedef struct {
    char root[4096];
    wb_course_identity identity;
    wb_regrade_lesson *lessons; /* as identity.lessons */
} wb_regrader;

int wb_regrader_init(wb_regrader *r, const char *root, wb_error *err);
void wb_regrader_free(wb_regrader *r);
/* The lesson (loaded on first use); NULL with err set when it cannot be read. */
const wb_lesson *wb_regrader_lesson(wb_regrader *r, const char *name, wb_error *err);

/* Regrades one lesson of the submission at path (lesson: its JSON object, validated by
 * submission.h), the gradings of one try ("first" or "latest"). Errors (exit 2) name path. */
int wb_regrade(wb_regrader *r, const char *path, json_t *lesson, const char *try, wb_regraded *out, wb_error *err);
void wb_regraded_free(wb_regraded *g);

#endif
