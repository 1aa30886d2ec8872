/*
 * name_leaks.h: text a learner reads before predicting that names a kernel another question asks
 * them to predict. A question that asks about the range Inductor names after its kernel
 * (triton_poi_fused__unsafe_view_gelu_mul_0) tells whoever reads the template that GELU and the
 * multiply fused into one Triton kernel, which the question counting Triton and gelu_mul kernels
 * wanted predicted. `grader lint` reports each such name (check question-names-kernel).
 *
 * The texts read before a question Q' is predicted: lesson.yaml's ranges (the lesson's interface),
 * and the range and ask of every other question of Q's part, or of the main part when Q' is in a
 * later one (the main part is graded first). A word of such a text (letters, digits, _) leaks
 * when it is part of a kernel name of Q' 's variant in the recording, a key of Q' (a keyed fact:
 * kernels_named.gelu_mul) matches it without being all of it, and it is not already shown: the
 * lesson's sources and its README before the reveal line (`shown`), or Q' 's own ask.
 */
#ifndef WB_NAME_LEAKS_H
#define WB_NAME_LEAKS_H

#include "wb_capture.h"
#include "wb_course.h"

typedef struct {
    const wb_question *reader;  /* the question whose range or ask names it; NULL: lesson.yaml's ranges */
    const char *where;          /* "range", "ask" or "ranges" */
    const wb_question *asker;   /* the question that asks it to be predicted */
    const char *key;            /* the asker's fact label it answers: "kernels_named.gelu_mul" */
    char word[256];             /* the name as the text writes it */
} wb_name_leak;

/* Calls found for each leak of lesson l against recording rec (once per reader, text, word and
 * asker); shown is the text the learner has before predicting (may be NULL). */
void wb_find_name_leaks(const wb_lesson *l, const wb_recording *rec, const char *shown,
                        void (*found)(const wb_name_leak *leak, void *ctx), void *ctx);

#endif
