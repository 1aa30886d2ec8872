/* grading_facts.c: see grading_facts.h. */
#include "grading_facts.h"
#include "wb_predict.h"

#include <string.h>

/* Values as the fact's type writes them: counts as integers, times in microseconds, a bound by name. */
static json_t *actual_json(const wb_graded_fact *x) {
    if (x->actual < 0) return json_null();
    return wb_fact_value_of(x->fact)->to_json(x->is_time ? x->actual_us : (double)x->actual);
}

static json_t *predicted_json(const wb_graded_fact *x) {
    return wb_fact_value_of(x->fact)->to_json(x->is_time ? x->predicted_us : (double)x->predicted);
}

json_t *wb_grading_facts_json(const wb_grade *g, const wb_lesson *l) {
    json_t *out = json_object();
    for (size_t i = 0; out && i < g->n; i++) {
        const wb_graded_fact *x = &g->facts[i];
        const wb_prediction *p = x->prediction;
        json_t *q = json_object_get(out, p->id);
        if (!q) {
            const char *v = wb_prediction_variant(p, l);
            q = json_pack("{s:s?, s:s, s:i, s:{}}", "variant", v, "range", p->range, "rank", p->rank, "facts");
            if (!q || json_object_set_new(out, p->id, q)) {
                json_decref(out);
                return NULL;
            }
        }
        json_t *f = json_pack("{s:o, s:o, s:b}", "predicted", predicted_json(x), "actual", actual_json(x), "right", x->right);
        if (!f || json_object_set_new(json_object_get(q, "facts"), x->fact->label, f)) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

const char *wb_fact_label_kind(const char *label) {
    const wb_fact_kind_info *row = wb_fact_kind_of_label(label, NULL);
    return row ? row->value->name : NULL;
}
