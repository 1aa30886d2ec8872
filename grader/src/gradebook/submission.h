/*
 * submission.h: a learner's submission, one JSON file (docs/gradebook.md has the schema):
 *
 *   {"format": "gpu-workbench-submission", "version": 1, "grader_version": "0.6.0",
 *    "learner": "Ada Lovelace",
 *    "course": {"id": "sha256:...", "lessons": {"01_matmul_add": "sha256:...", ...}},
 *    "lessons": [{"lesson": "01_matmul_add", "state": "graded", "attempts": 2,
 *                 "revealed_before_grading": false,
 *                 "questions": [{"id": "eager-kernels", "variant": "eager", "range": "step", "rank": -1,
 *                                "facts": [{"fact": "kernels",
 *                                           "first":  {"predicted": 5, "actual": 4, "right": false,
 *                                                      "graded_at": "...", "source": "replay",
 *                                                      "arch": "sm_90", "gpu": "NVIDIA H200"},
 *                                           "latest": {...}}]}]}]}
 *
 * Made from the learner's progress (progress.h) by `grader submit`: the same progress gives the
 * same bytes (no time of submission; lessons in course order, questions by id, facts by label,
 * keys sorted). Read back by `grader gradebook import`, which validates every field it uses
 * before using it: a submission is input from another machine.
 */
#ifndef WB_SUBMISSION_H
#define WB_SUBMISSION_H

#include "wb_course.h"
#include "wb_base.h"

#include <jansson.h>

#define WB_SUBMISSION_FORMAT "gpu-workbench-submission"
#define WB_SUBMISSION_VERSION 1
/* A whole course's submission is about 100 KB (six lessons, ~150 facts, two gradings each). */
#define WB_SUBMISSION_MAX_BYTES ((size_t)4 << 20)

/* The submission of the lessons named (names; all graded learners' lessons when n_lessons is 0)
 * from progress (the whole progress object). Lessons never graded are left out; one asked for by
 * name is an error. notes, when not NULL, gets one line per lesson left out and why. */
int wb_submission_build(const wb_course_identity *course, json_t *progress, const char *const *lessons, size_t n_lessons,
                        const char *learner, const char *grader_version, FILE *notes, json_t **out, wb_error *err);

/* Reads the submission at path (at most WB_SUBMISSION_MAX_BYTES), checks its schema, and gives
 * its JSON and the SHA-256 of its bytes ("sha256:<hex>"). Errors (exit 2) name the file and the
 * field. It does not check the course: wb_submission_check_course does. */
int wb_submission_load(const char *path, json_t **out, char sha256[WB_IDENTITY_CAP], wb_error *err);

/* Exit 2 unless the submission was made against this course: the same course id, and each lesson
 * it holds is one of the course's. */
int wb_submission_check_course(const char *path, json_t *submission, const wb_course_identity *course, wb_error *err);

#endif
