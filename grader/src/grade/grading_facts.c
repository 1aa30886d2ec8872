/* grading_facts.c: see grading_facts.h. */
#include "grading_facts.h"

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
    static const char *const COUNTS[] = {"kernels", "gemms", "memsets", "memcpys", "streams", NULL};
    static const char *const KEYED[] = {"kernels_named.", "api_calls.", "memcpys_named.", NULL};
    for (int i = 0; COUNTS[i]; i++)
        if (!strcmp(label, COUNTS[i])) return "count";
    for (int i = 0; KEYED[i]; i++)
        if (!strncmp(label, KEYED[i], strlen(KEYED[i])) && label[strlen(KEYED[i])]) return "count";
    if (!strcmp(label, "overlap_us") || !strcmp(label, "gpu_us") || !strcmp(label, "wall_us")) return "time";
    if (!strcmp(label, "bound")) return "bound";
    return NULL;
}
