/* hints.c: see hints.h. */
#include "hints.h"

#include <string.h>

long wb_hints_shown(json_t *entry, const char *question) {
    json_t *v = json_object_get(json_object_get(entry, "hints_shown"), question);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (long)json_integer_value(v) : 0;
}

static int is_open(const wb_prediction_set *p, const char *id) {
    if (!p) return 1;
    const wb_prediction *x = wb_predictions_find(p, id);
    if (!x) return 1;
    for (size_t i = 0; i < x->n_facts; i++)
        if (x->facts[i].predicted < 0) return 1;
    return 0;
}

const wb_question *wb_hint_pick(const wb_lesson *l, const wb_prediction_set *p, json_t *entry) {
    const wb_question *first = NULL;
    for (size_t i = 0; i < l->n_questions; i++) {
        const wb_question *q = &l->questions[i];
        if ((size_t)wb_hints_shown(entry, q->id) >= q->n_hints) continue;
        if (is_open(p, q->id)) return q;
        if (!first) first = q;
    }
    return first;
}

long wb_hint_take(json_t *entry, const wb_question *q) {
    long shown = wb_hints_shown(entry, q->id);
    if ((size_t)shown >= q->n_hints) return -1;
    json_t *h = json_object_get(entry, "hints_shown");
    if (!json_is_object(h)) {
        h = json_object();
        json_object_set_new(entry, "hints_shown", h);
    }
    json_object_set_new(h, q->id, json_integer(shown + 1));
    return shown;
}
