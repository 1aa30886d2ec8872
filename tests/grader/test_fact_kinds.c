/*
 * test_fact_kinds.c: the table of fact kinds (fact_kinds.h) holds one row per kind, with a unique
 * name and every function its value needs, and the facts a predictions file holds come out in the
 * table's order whatever order the file writes them in.
 */
#include "wb_predict.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

Test(fact_kinds, one_row_per_kind) {
    size_t n;
    const wb_fact_kind_info *k = wb_fact_kinds(&n);
    cr_assert_eq(n, (size_t)WB_FACT_BOUND + 1, "a row for every wb_fact_kind");
    for (int kind = 0; kind <= WB_FACT_BOUND; kind++) {
        size_t rows = 0;
        for (size_t i = 0; i < n; i++) rows += k[i].kind == (wb_fact_kind)kind;
        cr_assert_eq(rows, 1, "kind %d has %zu rows", kind, rows);
        cr_assert_eq(wb_fact_kind_get((wb_fact_kind)kind)->kind, (wb_fact_kind)kind);
    }
    for (size_t i = 0; i < n; i++) {
        cr_assert(k[i].name && k[i].name[0] && k[i].describe, "row %zu", i);
        for (size_t j = 0; j < i; j++) cr_assert_str_neq(k[i].name, k[j].name);
        const wb_fact_value_type *v = k[i].value;
        cr_assert(v && v->name && v->read && v->text && v->to_json && v->from_json && v->answer && v->ask_again && v->make_wrong,
                  "%s: its type of value lacks a function", k[i].name);
        cr_assert_eq(wb_fact_value_named(v->name), v, "%s: value type '%s' is not the one of that name", k[i].name, v->name);
        if (!v->banded && !v->judged) cr_assert(k[i].count, "%s is a count with nothing to count it", k[i].name);
        if (v->banded) cr_assert(k[i].count || k[i].time_of, "%s is a time with neither a count nor a range time", k[i].name);
        if (k[i].time_of) cr_assert(v->banded && !k[i].count, "%s: time_of is for times with no count", k[i].name);
        if (k[i].check_key || k[i].ready_key || k[i].in_source)
            cr_assert(k[i].keyed, "%s checks keys it does not have", k[i].name);
        cr_assert_eq(!k[i].in_source, !k[i].in_capture, "%s: lint looks for a key in both the source and the captures", k[i].name);
        cr_assert_eq(wb_fact_is_time(k[i].kind), v->banded);
        char label[64];
        const char *key = NULL;
        snprintf(label, sizeof label, "%s%s", k[i].name, k[i].keyed ? ".x" : "");
        cr_assert_eq(wb_fact_kind_of_label(label, &key), &k[i], "%s", label);
        cr_assert(k[i].keyed ? key && !strcmp(key, "x") : !key);
        if (k[i].keyed) cr_assert_null(wb_fact_kind_of_label(k[i].name, NULL), "a keyed kind's label has a key");
        else cr_assert_null(wb_fact_kind_of_label(label + 1, NULL), "%s", label + 1);
    }
}

/* Each type of value writes, reads back and answers its values the same way everywhere: the
 * report's JSON and a submission's grading read back by the gradebook, the prompt's answer. */
Test(fact_kinds, values_round_trip_through_their_type) {
    struct {
        const wb_fact_value_type *type;
        double value;
        const char *text, *json, *typed, *edit;
    } cases[] = {{&wb_fact_count_value, 5, "5", "5", "5", ""},
                 {&wb_fact_time_value, 40.5, "40.5", "40.5", "40.5", "40.5"},
                 {&wb_fact_bound_value, WB_BOUND_MEMORY, "memory", "\"memory\"", "2", "memory"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const wb_fact_value_type *t = cases[i].type;
        char text[64];
        t->text(cases[i].value, text, sizeof text);
        cr_assert_str_eq(text, cases[i].text);
        json_t *j = t->to_json(cases[i].value);
        char *dumped = json_dumps(j, JSON_ENCODE_ANY);
        cr_assert_str_eq(dumped, cases[i].json);
        double back = -1;
        cr_assert_eq(t->from_json(j, &back), 0);
        cr_assert_float_eq(back, cases[i].value, 1e-9);
        free(dumped);
        json_decref(j);
        wb_answer_edit e = {0};
        cr_assert_eq(t->answer(cases[i].typed, &e), 1, "%s: '%s'", t->name, cases[i].typed);
        cr_assert_str_eq(e.text, cases[i].edit);
        cr_assert_eq(t->answer("x", &e), 0, "%s takes no 'x'", t->name);
    }
    json_t *s = json_string("sideways");
    double v;
    cr_assert_eq(wb_fact_bound_value.from_json(s, &v), -1);
    cr_assert_eq(wb_fact_count_value.from_json(s, &v), -1);
    json_decref(s);
    cr_assert_null(wb_fact_value_named("colour"));
}

/* A question's facts in lesson.yaml name the table's kinds, and nothing else. */
Test(fact_kinds, labels_name_the_table) {
    const char *key;
    cr_assert_eq(wb_fact_kind_of_label("api_calls.cudaMemcpy", &key), wb_fact_kind_get(WB_FACT_API_CALLS));
    cr_assert_str_eq(key, "cudaMemcpy");
    cr_assert_eq(wb_fact_kind_of_label("memcpys", &key), wb_fact_kind_get(WB_FACT_MEMCPYS));
    cr_assert_null(wb_fact_kind_of_label("api_calls.", NULL));
    cr_assert_null(wb_fact_kind_of_label("kernels.gelu", NULL));
    cr_assert_null(wb_fact_kind_of_label("bounds", NULL));
}

Test(fact_kinds, read_in_table_order) {
    const char *text = "lesson: x\npredictions:\n  - id: a\n    range: r\n    bound: memory\n    gpu_us: 5\n"
                       "    api_calls: {cudaLaunchKernel: 2}\n    streams: 1\n    kernels: 3\n";
    wb_prediction_set s;
    wb_error err = {0};
    cr_assert_eq(wb_predictions_load_buffer("p.yaml", text, strlen(text), &s, &err), 0, "%s", err.message);
    size_t n;
    const wb_fact_kind_info *k = wb_fact_kinds(&n);
    const wb_prediction *p = &s.items[0];
    cr_assert_eq(p->n_facts, 5);
    size_t row = 0;
    for (size_t i = 0; i < p->n_facts; i++) {
        while (row < n && k[row].kind != p->facts[i].kind) row++;
        cr_assert_lt(row, n, "fact %s out of the table's order", p->facts[i].label);
    }
    cr_assert_str_eq(p->facts[0].label, "kernels");
    cr_assert_str_eq(p->facts[2].label, "api_calls.cudaLaunchKernel");
    wb_predictions_free(&s);
}

Test(fact_kinds, keys_checked_by_their_row) {
    const char *bad[] = {"lesson: x\npredictions:\n  - id: a\n    range: r\n    api_calls: {cudaLaunchKernel_v7000: 1}\n",
                         "lesson: x\npredictions:\n  - id: a\n    range: r\n    api_calls: {'1cuda': 1}\n",
                         "lesson: x\npredictions:\n  - id: a\n    range: r\n    memcpys_named: {sideways: 1}\n"};
    const char *why[] = {"without its _vNNNN suffix, e.g. 'cudaLaunchKernel'", "is not an API name", "sideways"};
    for (size_t i = 0; i < 3; i++) {
        wb_prediction_set s;
        wb_error err = {0};
        cr_assert_neq(wb_predictions_load_buffer("p.yaml", bad[i], strlen(bad[i]), &s, &err), 0);
        cr_assert(strstr(err.message, why[i]), "%s", err.message);
    }
}
