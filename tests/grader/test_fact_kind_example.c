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
    cr_assert_eq(syncs->value, WB_FACT_VALUE_COUNT);
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
