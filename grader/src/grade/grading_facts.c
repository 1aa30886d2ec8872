/* grading_facts.c: see grading_facts.h. */
#include "grading_facts.h"
#include "wb_predict.h"

#include <string.h>

static json_t *actual_json(const wb_graded_fact *x) {
    if (x->actual < 0) return json_null();
    if (x->is_time) return json_real(x->actual_us);
    if (x->fact->kind == WB_FACT_BOUND) return json_string(wb_bound_name((int)x->actual));
    return json_integer(x->actual);
}

static json_t *predicted_json(const wb_graded_fact *x) {
    if (x->is_time) return json_real(x->predicted_us);
    if (x->fact->kind == WB_FACT_BOUND) return json_string(wb_bound_name(x->fact->predicted));
    return json_integer(x->predicted);
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
    static const char *const VALUE[] = {[WB_FACT_VALUE_COUNT] = "count", [WB_FACT_VALUE_TIME] = "time", [WB_FACT_VALUE_BOUND] = "bound"};
    size_t n;
    const wb_fact_kind_info *rows = wb_fact_kinds(&n);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(rows[i].name);
        if (!rows[i].keyed ? !strcmp(label, rows[i].name) : !strncmp(label, rows[i].name, len) && label[len] == '.' && label[len + 1])
            return VALUE[rows[i].value];
    }
    return NULL;
}
