/*
 * new_lesson.h: `grader new NAME`: a lesson folder that builds, runs and lints as far as a lesson
 * without answers can:
 *
 *   lessons/NN_name/main.cu          program skeleton in the lessons' style: kernel, CPU reference
 *                                    check, NVTX ranges, measured steps between cudaProfilerStart
 *                                    and cudaProfilerStop
 *   lessons/NN_name/CMakeLists.txt   wb_add_lesson(lesson_NN_name SOURCES main.cu); lessons/
 *                                    CMakeLists.txt globs NN_* folders, so the build picks it up
 *   lessons/NN_name/lesson.yaml      one variant, its ranges, one question
 *   lessons/NN_name/predictions.template.yaml  the template made from lesson.yaml (template.h)
 *   lessons/NN_name/README.md        outline with the <!-- reveal --> line
 *   expectations/NN_name.yaml        an answer key with no answers yet, marked unverified
 *
 * Course order is the NN prefix: the next free number unless one is given. Nothing that exists
 * is ever overwritten: an existing folder, key or number is refused.
 */
#ifndef WB_NEW_LESSON_H
#define WB_NEW_LESSON_H

#include "wb_base.h"

#include <stddef.h>

typedef struct {
    const char *root;   /* the checkout: holds lessons/ (and expectations/, created if missing) */
    const char *name;   /* "attention" or "05_attention" */
    int number;         /* -1: the next free one (or the one in name) */
    const char *title;  /* NULL: made from the name */
} wb_new_lesson;

/* Creates the lesson; its folder goes to dir. Exit 2 for a bad name or anything that exists. */
int wb_new_lesson_create(const wb_new_lesson *req, char *dir, size_t cap, wb_error *err);

/* The next free NN under root/lessons (one more than the highest NN_ folder; 1 when none). */
int wb_next_lesson_number(const char *root);

#endif
