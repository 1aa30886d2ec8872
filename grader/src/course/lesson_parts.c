/* lesson_parts.c: see lesson_parts.h. */
#include "lesson_parts.h"
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANSWERS_HASH "answers-fnv1a64:"

/* The variant a prediction is about: its own, or the lesson's only one. */
static const char *variant_of(const wb_prediction *p, const wb_lesson *l) {
    if (p->variant) return p->variant;
    return l->n_variants == 1 ? l->variants[0].name : NULL;
}

int wb_predictions_of_part(const wb_prediction_set *all, const wb_lesson *l, const char *part, wb_prediction_set *view) {
    *view = *all;
    view->items = calloc(all->n + 1, sizeof *view->items);
    view->n = 0;
    if (!view->items) return -1;
    for (size_t i = 0; i < all->n; i++)
        if (!strcmp(wb_lesson_variant_part(l, variant_of(&all->items[i], l)), part)) view->items[view->n++] = all->items[i];
    return 0;
}

static unsigned long long fnv(unsigned long long h, const char *s) {
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void answers_hash(const wb_prediction_set *view, char *out, size_t cap) {
    unsigned long long h = 1469598103934665603ull;
    char value[64];
    for (size_t i = 0; i < view->n; i++)
        for (size_t j = 0; j < view->items[i].n_facts; j++) {
            const wb_fact *f = &view->items[i].facts[j];
            h = fnv(fnv(fnv(fnv(fnv(fnv(h, view->items[i].id), " "), f->label), " "), wb_fact_value_text(f, value, sizeof value)), "\n");
        }
    snprintf(out, cap, ANSWERS_HASH "%016llx", h);
}

void wb_part_predictions_hash(const wb_lesson *l, const wb_prediction_set *view, char *out, size_t cap) {
    const char *parts[2];
    out[0] = '\0';
    if (wb_lesson_parts(l, parts, 2) > 1) answers_hash(view, out, cap);
    else if (wb_hash_file(view->path, out, cap) != 0) out[0] = '\0';
}

int wb_part_hash_matches(const char *recorded, const wb_prediction_set *view, const char *file_hash) {
    if (!recorded || !*recorded) return 1; /* nothing recorded says nothing either way */
    if (strncmp(recorded, ANSWERS_HASH, strlen(ANSWERS_HASH)) != 0) return file_hash && !strcmp(recorded, file_hash);
    if (!view) return 0;
    char now[64];
    answers_hash(view, now, sizeof now);
    return !strcmp(recorded, now);
}
