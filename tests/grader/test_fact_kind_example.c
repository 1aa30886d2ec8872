/*
 * test_fact_kind_example.c: docs/fact-kinds.md's example kind (syncs) builds against the grader
 * as the page shows it and counts what it says. CMake copies the page's three C blocks into
 * fact_kind_example/ (the family file, its declarations, its table row); a page that no longer
 * builds, or whose kind counts wrong, fails here.
 */
#include "capture_builder.h"
#include "wb_predict.h"

#include <criterion/criterion.h>

/* step 1 of the page: the enum value, here one past the last kind */
#define WB_FACT_SYNCS ((wb_fact_kind)(WB_FACT_BOUND + 1))
#include "fact_kind_example/declarations.h"

static const wb_fact_kind_info ROWS[] = {
#include "fact_kind_example/row.inc"
};

Test(fact_kind_example, syncs_counts_the_waits_of_its_range) {
    const wb_fact_kind_info *syncs = &ROWS[0];
    cr_assert_str_eq(syncs->name, "syncs");
    cr_assert_eq(syncs->value, &wb_fact_count_value);
    cr_assert(!syncs->keyed && !syncs->ready_key && !syncs->time_of && !syncs->in_source && !syncs->in_capture);
    wb_capture c;
    build_start(&c);
    add_range(&c, "step", 100, 1000, 1);
    add_api(&c, "cudaLaunchKernel", 110, 120, 1, 1);
    add_api(&c, "cudaStreamSynchronize", 200, 300, 2, 1);
    add_api(&c, "cuCtxSynchronize", 400, 500, 3, 1);
    add_api(&c, "cudaDeviceSynchronize", 1100, 1200, 4, 1); /* after the range */
    build_finish(&c);
    wb_occurrences o;
    cr_assert_eq(wb_find_occurrences(&c, "step", &o), 0);
    cr_assert_eq(o.n, 1);
    wb_fact f = {.kind = WB_FACT_SYNCS, .label = "syncs"};
    cr_assert_eq(syncs->count(&c, &o.items[0], &f), 2);
    char text[256];
    syncs->describe(&f, "step", text, sizeof text);
    cr_assert(strstr(text, "'step'"), "%s", text);
    wb_occurrences_free(&o);
    wb_capture_free(&c);
}

/* What the page says its type of value does with it: a report's text, the JSON, the prompt, lint. */
Test(fact_kind_example, syncs_is_written_asked_and_made_wrong_as_a_count) {
    const wb_fact_value_type *count = ROWS[0].value;
    char text[32];
    count->text(3, text, sizeof text);
    cr_assert_str_eq(text, "3");
    json_t *j = count->to_json(3);
    cr_assert(json_is_integer(j) && json_integer_value(j) == 3);
    json_decref(j);
    wb_answer_edit e = {0};
    cr_assert_eq(count->answer("2", &e), 1);
    cr_assert_eq(e.value, 2);
    cr_assert_eq(count->answer("2.5", &e), 0, "a count takes no decimals");
    wb_fact f = {.kind = WB_FACT_SYNCS, .label = "syncs", .predicted = 2};
    count->make_wrong(&f, 1, 1);
    cr_assert_eq(f.predicted, 3);
    cr_assert(!count->banded && !count->judged);
}
