/*
 * course.h: the lessons of a checkout in course order (the NN_ prefix of their folders), and
 * where the checkout is: $WB_ROOT, else the current folder if it holds lessons/, else the folder
 * the grader was built under (build/bin/../..). A lesson whose lesson.yaml says draft: true is in
 * the course for instructors (lint, verify) but out of the learners' order (list, check's next).
 */
#ifndef WB_COURSE_H
#define WB_COURSE_H

#include "wb_base.h"

#include <stddef.h>

typedef struct {
    char **dirs;   /* "<root>/lessons/01_matmul_add", ... */
    char **names;  /* "01_matmul_add", ... */
    int *draft;    /* 1: lesson.yaml says draft: true (or cannot be read as saying otherwise: 0) */
    size_t n;
} wb_course;

int wb_find_root(char *buf, size_t cap, wb_error *err);
int wb_course_load(const char *root, wb_course *out, wb_error *err);
void wb_course_free(wb_course *c);
/* Leaves the learners' course: drops the draft lessons; returns how many. */
size_t wb_course_drop_drafts(wb_course *c);

#endif
