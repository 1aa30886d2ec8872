/*
 * lesson_ref.h: what a learner may type for a lesson. A folder (lessons/01_matmul_add, or any
 * folder holding a lesson.yaml) is taken as it is; otherwise the name is looked up in the course
 * (course.h): the folder name (01_matmul_add), its number (01 or 1), or its name without the
 * number (matmul_add).
 */
#ifndef WB_LESSON_REF_H
#define WB_LESSON_REF_H

#include "wb_base.h"

#include <stddef.h>

/* The lesson folder for arg into dir. Errors (exit 2) list the lessons there are. */
int wb_resolve_lesson(const char *arg, char *dir, size_t cap, wb_error *err);

#endif
