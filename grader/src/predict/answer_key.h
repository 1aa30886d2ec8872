/*
 * answer_key.h: an instructor's answer key, expectations/NN_name.yaml (docs/lesson-format.md):
 * per GPU architecture, a predictions list with every value filled in, whether it was verified
 * on that GPU, and one explanation per question shown after grading.
 */
#ifndef WB_ANSWER_KEY_H
#define WB_ANSWER_KEY_H

#include "wb_base.h"
#include "predictions.h"
#include "translation.h"

typedef struct {
    char *arch;         /* "sm_90" */
    int verified;
    char *verified_on;  /* may be NULL */
    wb_prediction_set answers;
} wb_arch_answers;

typedef struct {
    char *path;
    char *lesson;
    wb_arch_answers *archs;
    size_t n_archs;
    char **explanation_ids, **explanations;
    size_t n_explanations;
    wb_translation *ja;      /* expectations/NN_name.ja.yaml (translation.h); NULL when there is none */
    char ja_error[1024];     /* why that file could not be read ("" when it could): lint reports it */
} wb_answer_key;

int wb_answer_key_load(const char *path, wb_answer_key *out, wb_error *err);
/* Same from the key's bytes in memory (tests, fuzzing); path is used in messages. */
int wb_answer_key_load_buffer(const char *path, const char *data, size_t length, wb_answer_key *out, wb_error *err);
void wb_answer_key_free(wb_answer_key *k);
const wb_arch_answers *wb_answer_key_arch(const wb_answer_key *k, const char *arch);
/* The explanation of question id in the language chosen (i18n.h): the translation when there is
 * one of the English text as it is now, else the English; NULL when the key has none. */
const char *wb_answer_key_explanation(const wb_answer_key *k, const char *id);
/* The English explanation, whatever the language. */
const char *wb_answer_key_explanation_en(const wb_answer_key *k, const char *id);

/* "<root>/expectations/<lesson>.yaml" into buf, root being the folder above lessons/. */
const char *wb_answer_key_path(const char *lesson_dir, const char *lesson, char *buf, size_t cap);

#endif
