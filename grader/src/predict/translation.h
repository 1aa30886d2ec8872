/*
 * translation.h: a translation of a lesson's English text into another language (docs/i18n.md).
 *
 *   lessons/NN_name/i18n/ja.yaml          the title, and each question's ask and hints
 *   expectations/NN_name.ja.yaml          each question's explanation, beside the answer key
 *
 * Each entry records en_sha, the SHA-256 of the English text it translates (for a question: its
 * ask, then each hint, joined by newlines). An entry whose English changed since is stale: it is
 * not shown (the English is, as for an entry that is missing), and `grader lint` warns of it.
 * `translates:` records the commit of the English file the translator worked from, for people.
 */
#ifndef WB_TRANSLATION_H
#define WB_TRANSLATION_H

#include "wb_base.h"

#include <stddef.h>

typedef struct {
    char *id;        /* a question id; "title" for the lesson's title */
    char *en_sha;
    char *text;      /* the ask, the title or the explanation */
    char **hints;    /* questions only; NULL when the entry gives none */
    size_t n_hints;
    int line;
} wb_translated;

typedef struct {
    char *path;
    char *translates; /* the English file's commit; may be NULL */
    wb_translated *title; /* NULL when none */
    wb_translated *items;
    size_t n;
} wb_translation;

typedef enum { WB_TRANSLATION_LESSON, WB_TRANSLATION_KEY } wb_translation_kind;

/* Reads a translation file of a lesson (title, questions) or of an answer key (explanations). */
int wb_translation_load(const char *path, wb_translation_kind kind, wb_translation *out, wb_error *err);
void wb_translation_free(wb_translation *t);
/* The translation at path, malloc'd, when the file exists and reads; NULL otherwise, with why it
 * could not be read in error ("" when there is no such file): the English it translates is still
 * good, so a caller goes on without it and lint reports the error. Free with wb_translation_drop. */
wb_translation *wb_translation_load_beside(const char *path, wb_translation_kind kind, char *error, size_t cap);
void wb_translation_drop(wb_translation *t);
/* The entry for id, or NULL. */
const wb_translated *wb_translation_find(const wb_translation *t, const char *id);

/* 1 when en_sha is the SHA-256 of english: the translation is of the English text as it is now. */
int wb_translation_fresh(const char *en_sha, const char *english);

/* "<lesson_dir>/i18n/<lang>.yaml"; "<root>/expectations/<lesson>.<lang>.yaml" from the key's path. */
const char *wb_lesson_translation_path(const char *lesson_dir, const char *lang, char *buf, size_t cap);
const char *wb_key_translation_path(const char *key_path, const char *lang, char *buf, size_t cap);

#endif
