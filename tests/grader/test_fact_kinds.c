/*
 * test_fact_kinds.c: the table of fact kinds (fact_kinds.h) holds one row per kind, with a unique
 * name and every function its value needs, and the facts a predictions file holds come out in the
 * table's order whatever order the file writes them in.
 */
#include "wb_predict.h"

#include <criterion/criterion.h>
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
        if (k[i].value == WB_FACT_VALUE_COUNT) cr_assert(k[i].count, "%s is a count with nothing to count it", k[i].name);
        if (k[i].check_key) cr_assert(k[i].keyed, "%s checks keys it does not have", k[i].name);
        cr_assert_eq(wb_fact_is_time(k[i].kind), k[i].value == WB_FACT_VALUE_TIME);
    }
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
