/*
 * lesson.h: a lesson folder's lesson.yaml (docs/lesson-format.md): the program, its variants and
 * their flags, the NVTX ranges it emits, and the questions (with hints) the template asks.
 */
#ifndef WB_LESSON_H
#define WB_LESSON_H

#include "error.h"

#include <stddef.h>

typedef struct {
    char *name;
    char **args;
    size_t n_args;
    char *about; /* may be NULL */
} wb_variant;

typedef struct {
    char *id, *variant, *range; /* variant NULL when the lesson has one */
    char **facts;               /* "kernels", "kernels_named.gelu", ... */
    size_t n_facts;
    char *ask;
    char **hints;
    size_t n_hints;
    int line;
} wb_question;

typedef struct {
    char *dir;        /* the lesson folder as given */
    char *path;       /* its lesson.yaml */
    char *lesson, *title, *binary;
    wb_variant *variants;
    size_t n_variants;
    char **ranges;
    size_t n_ranges;
    wb_question *questions;
    size_t n_questions;
} wb_lesson;

int wb_lesson_load(const char *lesson_dir, wb_lesson *out, wb_error *err);
void wb_lesson_free(wb_lesson *l);

const wb_variant *wb_lesson_variant(const wb_lesson *l, const char *name);
const wb_question *wb_lesson_question(const wb_lesson *l, const char *id);
int wb_lesson_has_range(const wb_lesson *l, const char *range);
/* "a, b, c" into buf: for "expected one of" messages. */
const char *wb_lesson_variant_list(const wb_lesson *l, char *buf, size_t cap);
const char *wb_lesson_range_list(const wb_lesson *l, char *buf, size_t cap);

/* The folder name of a lesson path: "lessons/03_mlp/" -> "03_mlp". Into buf. */
const char *wb_lesson_dir_name(const char *lesson_dir, char *buf, size_t cap);

#endif
