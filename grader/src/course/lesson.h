/*
 * lesson.h: a lesson folder's lesson.yaml (docs/lesson-format.md): the program, its variants and
 * their flags, the NVTX ranges it emits, and the questions (with hints) the template asks.
 */
#ifndef WB_LESSON_H
#define WB_LESSON_H

#include "wb_base.h"
#include "wb_predict.h"

#include <stddef.h>

typedef struct {
    char *name;
    double value;
} wb_param;

typedef struct {
    char *name;
    char **program;   /* program: [python3, torch/linear.py]: a Python script of the lesson folder run
                         by the interpreter (python_probe.h); NULL: the lesson's binary */
    size_t n_program;
    char **args;
    size_t n_args;
    char *about; /* may be NULL */
    wb_param *params; /* the size parameters work expressions use: params: {n: 4096} */
    size_t n_params;
    int world_size;   /* processes the program starts (its ranks); 0: the lesson's world_size */
    char *part;       /* part: pytorch: the part of the lesson it belongs to; NULL: the main part */
} wb_variant;

/* A lesson's parts (docs/lesson-format.md, "Parts"): each variant, and so each question about it,
 * belongs to one. `grader check LESSON` grades the main part, `--part NAME` another; each part
 * has its own score and first try. A lesson whose variants name no part has the main part only. */
#define WB_MAIN_PART "main"
#define WB_MAX_PARTS 8

/* The work a range does per occurrence, declared by the lesson (not measured): FLOPs, and the
 * minimum bytes through device memory (each input read once, each output written once). */
typedef struct {
    char *variant, *range;      /* variant NULL when the lesson has one */
    char *flops_text, *bytes_text; /* as written: "2*n*n*n" */
    double flops, bytes;        /* evaluated with the variant's params */
    int line;
} wb_work;

typedef struct {
    char *id, *variant, *range; /* variant NULL when the lesson has one */
    char **facts;               /* "kernels", "kernels_named.gelu", ... */
    size_t n_facts;
    char *ask;
    char **hints;
    size_t n_hints;
    double tolerance;           /* time facts: right when |predicted - actual| <= tolerance x actual */
    int rank;                   /* the one rank its facts are about, or -1: all ranks (WB_ALL_RANKS) */
    int line;
} wb_question;

#define WB_DEFAULT_TOLERANCE 0.25

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
    wb_work *work;
    size_t n_work;
    int draft;        /* draft: true: out of the learners' course, its GPU-only lint checks pending */
    int world_size;   /* world_size: N: a multi-process lesson (docs/lesson-format.md); 1 by default */
    wb_translation *ja; /* i18n/ja.yaml (translation.h), read by wb_lesson_load; NULL when there is none */
    char ja_error[1024]; /* why i18n/ja.yaml could not be read ("" when it could): lint reports it */
} wb_lesson;

/* On failure *out holds nothing to free. */
int wb_lesson_load(const char *lesson_dir, wb_lesson *out, wb_error *err);
/* Same with lesson.yaml's bytes in memory (tests, fuzzing); lesson_dir is used for its name. */
int wb_lesson_load_buffer(const char *lesson_dir, const char *data, size_t length, wb_lesson *out, wb_error *err);
void wb_lesson_free(wb_lesson *l);

const wb_variant *wb_lesson_variant(const wb_lesson *l, const char *name);
/* The part a variant belongs to: its part, or WB_MAIN_PART (also for NULL). */
const char *wb_variant_part(const wb_variant *v);
/* The lesson's parts in order of first appearance, the main part first; returns how many. */
size_t wb_lesson_parts(const wb_lesson *l, const char **out, size_t cap);
/* 1 when the lesson has a part of that name. */
int wb_lesson_has_part(const wb_lesson *l, const char *part);
/* "main, pytorch" into buf: for "expected one of" messages. */
const char *wb_lesson_part_list(const wb_lesson *l, char *buf, size_t cap);
/* The part the questions about a variant belong to (WB_MAIN_PART for an unknown variant). */
const char *wb_lesson_variant_part(const wb_lesson *l, const char *variant);

/* 1 when the variant runs a Python script (program: [python3, SCRIPT]) rather than the binary. */
int wb_variant_is_python(const wb_variant *v);
/* The processes a variant runs (its world_size, else the lesson's); 1 for an unknown variant. */
int wb_lesson_world_size(const wb_lesson *l, const char *variant);
const wb_question *wb_lesson_question(const wb_lesson *l, const char *id);
int wb_lesson_has_range(const wb_lesson *l, const char *range);
/* 1 when a range a program emitted is one lesson.yaml lists: by its name, or matched by a listed
 * "re:" pattern (docs/predictions.md, "Range names"). */
int wb_lesson_lists_range(const wb_lesson *l, const char *emitted);
/* The declared work of a range in a variant, or NULL. */
const wb_work *wb_lesson_work(const wb_lesson *l, const char *variant, const char *range);
/* The tolerance of the question with this id, or the default for predictions the lesson does not ask. */
double wb_lesson_tolerance(const wb_lesson *l, const char *question_id);
/* "a, b, c" into buf: for "expected one of" messages. */
const char *wb_lesson_variant_list(const wb_lesson *l, char *buf, size_t cap);
const char *wb_lesson_range_list(const wb_lesson *l, char *buf, size_t cap);

/* The English source of a question's translation: its ask, then each hint, joined by "\n"
 * (malloc'd; NULL when out of memory). Its SHA-256 is the translation's en_sha. */
char *wb_question_source(const wb_question *q);

/* The texts in the language chosen (i18n.h): the translation where there is one of the English
 * as it is now, else the English. A question's hints are translated together with its ask. */
const char *wb_lesson_title_text(const wb_lesson *l);
const char *wb_question_ask(const wb_lesson *l, const wb_question *q);
const char *wb_question_hint(const wb_lesson *l, const wb_question *q, size_t i);

/* The folder name of a lesson path: "lessons/03_mlp/" -> "03_mlp". Into buf. */
const char *wb_lesson_dir_name(const char *lesson_dir, char *buf, size_t cap);

#endif
