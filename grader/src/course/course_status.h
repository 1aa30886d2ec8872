/*
 * course_status.h: where a learner stands in one lesson, for `grader list`. It combines the
 * progress file (progress.h) with the learner's predictions file as it is now.
 *
 * The prediction lock: progress keeps the hash of the predictions file at its first grading
 * (first_hash). When the file now differs from it, the lesson shows as "regraded": its latest
 * score is not a first try, and the first-try score is shown beside it, never in its place.
 */
#ifndef WB_COURSE_STATUS_H
#define WB_COURSE_STATUS_H

#include <jansson.h>
#include <stddef.h>

typedef enum {
    WB_STATE_NOT_STARTED, /* no predictions yet (the template, or no file) */
    WB_STATE_IN_PROGRESS, /* some values predicted, some still ~ */
    WB_STATE_PREDICTED,   /* every value predicted, not graded yet */
    WB_STATE_GRADED,      /* graded; the file is the one first graded */
    WB_STATE_REGRADED,    /* graded, and the file changed since its first grading */
    WB_STATE_REVEALED,    /* trace shown with --reveal, never graded */
    WB_STATE_BROKEN,      /* lesson.yaml cannot be read */
} wb_lesson_state;

typedef struct {
    char name[256];               /* folder name, 01_matmul_add */
    char part[40];                /* the lesson's part this is about (lesson.h); "" for the main part */
    long parts;                   /* the lesson's parts, the main one included (1: no parts) */
    char title[256];
    char dir[4096];
    wb_lesson_state state;
    long right, total;             /* latest grading; -1 when never graded */
    long first_right, first_total; /* first grading; -1 when never graded (kept after grader reset) */
    long attempts;
    int revealed_first;            /* the trace was shown before any grading: no first try */
    int edited_since_grading;      /* the file differs from the one last graded */
    char graded_from[4096];        /* the file last graded when it is not the lesson's own ("" else) */
    long filled, facts;            /* values predicted / asked in the predictions file; -1 unknown */
    long hints_shown;              /* over all questions */
    char note[1024];               /* why BROKEN, or a problem with the predictions file */
} wb_lesson_status;

/* Fills out for the lesson in lesson_dir from progress (the whole progress object): its main part. */
void wb_lesson_status_get(const char *lesson_dir, json_t *progress, wb_lesson_status *out);
/* The same for one part of the lesson (NULL: the main part). A lesson with parts counts, and
 * locks the first try of, only that part's predictions (lesson_parts.h). */
void wb_lesson_status_get_part(const char *lesson_dir, const char *part, json_t *progress, wb_lesson_status *out);

/* Every lesson's parts in course order (each lesson's main part, then its other parts): *out, to
 * free, holds *n statuses. -1 when out of memory. */
int wb_course_statuses(const char *const *lesson_dirs, size_t n_lessons, json_t *progress, wb_lesson_status **out, size_t *n);

/* "not started", "in progress", "predicted", "graded", "regraded", "revealed", "broken": English,
 * as JSON writes it; C_("lesson state", name) is the word in the learner's language (the context
 * keeps the state "predicted" apart from the heading "predicted" of a report). */
const char *wb_lesson_state_name(wb_lesson_state s);

/* The lesson (part) a learner should do next, as `grader check` without a lesson picks it: the
 * first not graded (a broken one included: checking it shows what is wrong); -1 when none. */
long wb_next_lesson(const wb_lesson_status *s, size_t n);

#endif
