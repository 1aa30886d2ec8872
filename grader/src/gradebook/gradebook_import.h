/*
 * gradebook_import.h: one submission into the gradebook. The file is read and validated
 * (submission.h), checked to be of this course, regraded (regrade.h), and only then written, in
 * one transaction: a submission is in the gradebook whole or not at all.
 *
 *   - the same file again (same SHA-256): nothing changes; *duplicate is set
 *   - a replayed grading whose submitted result differs from its regrade against the same
 *     recording: refused (the file was changed after grader submit wrote it)
 *   - a live grading whose submitted result differs: the regrade is stored, the difference counted
 *   - a learner already in the gradebook: the lessons already there keep their first try (the
 *     earliest import's); their latest grading, and lessons new to the gradebook, come from this one
 */
#ifndef WB_GRADEBOOK_IMPORT_H
#define WB_GRADEBOOK_IMPORT_H

#include "wb_base.h"
#include "regrade.h"

#include <sqlite3.h>
#include <stddef.h>

typedef struct {
    int duplicate;          /* the same file was imported before: nothing changed */
    char learner[256];
    size_t lessons, facts;  /* lessons and facts (first tries) in the submission */
    size_t kept_first;      /* lessons whose first try the gradebook already held */
    size_t differ;          /* live gradings whose regrade differs from the submitted result */
    size_t unverified;      /* facts with neither a recording nor a key for their GPU */
} wb_import_result;

int wb_gradebook_import(sqlite3 *db, wb_regrader *r, const char *path, wb_import_result *res, wb_error *err);

#endif
