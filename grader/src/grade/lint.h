/*
 * lint.h: `grader lint`: a lesson's files checked against each other, the way CI needs them to
 * hold before a learner ever sees the lesson.
 *
 *   lesson.yaml        readable; no TODO left in its title and questions; each fact asked once;
 *                      its binary is the one CMakeLists.txt builds
 *   predictions.template.yaml   the template: exactly lesson.yaml's questions, every value ~
 *                      (template.h); the learner's predictions.yaml beside it is never read
 *   answer key         readable, for this lesson; at least one verified architecture; every
 *                      question and asked fact answered for each verified one (warnings for
 *                      unverified ones); an explanation for every question, none left TODO
 *   recordings         readable, for this lesson, named after their architecture, made with the
 *                      variants and arguments lesson.yaml has now, usable for grading; the NVTX
 *                      ranges they hold are exactly lesson.yaml's ranges (every listed range
 *                      occurs, every range that occurs is listed); every question's range occurs
 *                      in the profiled window of its variant
 *   the key vs the recordings (what `grader verify --replay` does): every answer holds; and,
 *                      graded against answers off by one, every question can be failed
 *   README.md          present, with the <!-- reveal --> line (warnings); no TODO left (error)
 *   the program        every range a question asks about appears in its source (the lesson's
 *                      files and common/) as a string; every API name a question counts appears
 *                      in the source or in a recording (a warning: libraries make calls the
 *                      source never names)
 *   title              names no count ("five kernels", "one GEMM"): grader list shows it before
 *                      the learner predicts (warning)
 *   names              no listed range, question range or ask spells out a kernel name another
 *                      question asks to be predicted (name_leaks.h)
 *   draft lessons      (draft: true) the checks that need a GPU (a recording, a verified key) are
 *                      pending instead of errors
 *
 * Errors fail the lint (exit 1); warnings are shown but do not. Every issue names its file, and
 * its line where there is one.
 */
#ifndef WB_LINT_H
#define WB_LINT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* Pending: a check a draft lesson cannot pass without a GPU yet (no recording, nothing verified):
 * reported, never failing. */
typedef enum { WB_LINT_ERROR, WB_LINT_WARNING, WB_LINT_PENDING } wb_lint_severity;

typedef struct {
    wb_lint_severity severity;
    char check[40];        /* a stable id, e.g. "range-not-emitted" (docs/commands/lint.md lists them) */
    char path[4200];
    int line;              /* 0 when none */
    char message[1024];
} wb_lint_issue;

typedef struct {
    char lesson_dir[4096];
    char lesson[256];      /* the folder name */
    wb_lint_issue *items;
    size_t n, errors, warnings, pending;
    int draft;             /* lesson.yaml says draft: true */
    int out_of_memory;
} wb_lint_report;

/* Lints one lesson folder. Returns 0, or -1 when out of memory. */
int wb_lint_lesson(const char *lesson_dir, wb_lint_report *out);
/* A lessons/NN_* folder the course skips because it has no lesson.yaml: one error. */
int wb_lint_not_a_lesson(const char *dir, wb_lint_report *out);
void wb_lint_report_free(wb_lint_report *r);

/* How many issues with this check id (tests). */
size_t wb_lint_count(const wb_lint_report *r, const char *check);

void wb_lint_report_print(FILE *f, const wb_lint_report *r);
json_t *wb_lint_report_json(const wb_lint_report *r);

#endif
