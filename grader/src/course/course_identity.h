/*
 * course_identity.h: which course a submission was graded against. A lesson's identity is a
 * SHA-256 over what grading it depends on: its lesson.yaml (the questions, tolerances, declared
 * work) and every recording in its traces/ (the captured facts replays grade against):
 *
 *   lesson  = sha256("lesson.yaml <sha256 hex of the file>\n"
 *                    "traces/sm_90.json <sha256 hex>\n" ...)      recordings in name order
 *   course  = sha256("01_matmul_add <lesson hex>\n" "02_linear <lesson hex>\n" ...)
 *
 * over the learners' lessons (drafts left out) in course order; written "sha256:<64 hex>". A
 * release (grader release) has the same identity as the checkout it was made from: it copies
 * lesson.yaml and the recordings as they are. Answer keys are not part of it (a release seals them).
 */
#ifndef WB_COURSE_IDENTITY_H
#define WB_COURSE_IDENTITY_H

#include "course.h"
#include "wb_base.h"

#include <stddef.h>

#define WB_IDENTITY_CAP 72 /* "sha256:" + 64 hex + NUL */

typedef struct {
    char id[WB_IDENTITY_CAP];
    char **lessons;      /* names, course order */
    char (*lesson_ids)[WB_IDENTITY_CAP];
    size_t n;
} wb_course_identity;

/* The identity of the learners' lessons of the checkout at root. */
int wb_course_identity_get(const char *root, wb_course_identity *out, wb_error *err);
void wb_course_identity_free(wb_course_identity *c);
/* The identity of one lesson in it, or NULL when the course has no such lesson. */
const char *wb_course_identity_lesson(const wb_course_identity *c, const char *lesson);

#endif
