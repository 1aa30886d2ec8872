/*
 * test_attribution.c: which work belongs to which occurrence of a range (occurrences.h), on captures
 * built by hand so that the right answer is known: nested ranges, several occurrences, kernels
 * that finish after their range, the profiled window, other threads, graph launches, and API
 * calls nested inside other API calls.
 */
#include "capture_builder.h"
#include "facts.h"
#include "predictions.h"

#include <criterion/criterion.h>

static wb_fact fact(wb_fact_kind kind, const char *key) {
    wb_fact f;
    memset(&f, 0, sizeof f);
    f.kind = kind;
    f.key = (char *)key;
    return f;
}

static long count(const wb_capture *c, const char *range, size_t occurrence, wb_fact f) {
    wb_occurrences o;
    cr_assert_eq(wb_find_occurrences(c, range, &o), 0);
    cr_assert(occurrence < o.n, "range %s has %zu occurrences, wanted #%zu", range, o.n, occurrence);
    long n = wb_count_fact(c, &o.items[occurrence], &f);
    wb_occurrences_free(&o);
    return n;
}

static size_t occurrences(const wb_capture *c, const char *range) {
    wb_occurrences o;
    cr_assert_eq(wb_find_occurrences(c, range, &o), 0);
    size_t n = o.n;
    wb_occurrences_free(&o);
    return n;
}

/* Two steps on thread 1; in each, range "outer" holds "inner". A kernel launched at the very end
 * of step 0 runs long after the step has ended. */
static void two_steps(wb_capture *c) {
    build_start(c);
    for (uint32_t s = 0; s < 2; s++) {
        uint64_t t = 1000 + s * 1000;
        add_range(c, "step", t, t + 500, 1);
        add_range(c, "outer", t + 10, t + 200, 1);
        add_range(c, "inner", t + 20, t + 100, 1);
        add_api(c, "cudaLaunchKernel", t + 30, t + 40, 100 + s * 10, 1);      /* in inner */
        add_kernel(c, "k_gelu", t + 50, t + 60, 100 + s * 10, 7);
        add_api(c, "cuLaunchKernelEx", t + 150, t + 160, 101 + s * 10, 1);    /* in outer only */
        add_kernel(c, "nvjet_sm90_tst_128x64_TNT", t + 170, t + 400, 101 + s * 10, 7);
        add_api(c, "cudaMemsetAsync", t + 300, t + 310, 102 + s * 10, 1);     /* in step only */
        add_op(c, WB_GPU_MEMSET, t + 320, t + 330, 102 + s * 10, 7);
        add_api(c, "cudaLaunchKernel", t + 490, t + 499, 103 + s * 10, 1);    /* last thing in step */
        add_kernel(c, "late_kernel", t + 2600, t + 2700, 103 + s * 10, 7);   /* runs after the step ended */
    }
    build_finish(c);
}

Test(attribution, nested_ranges_share_their_inner_work) {
    wb_capture c;
    two_steps(&c);
    cr_assert_eq(count(&c, "inner", 0, fact(WB_FACT_KERNELS, NULL)), 1);
    cr_assert_eq(count(&c, "outer", 0, fact(WB_FACT_KERNELS, NULL)), 2);
    cr_assert_eq(count(&c, "step", 0, fact(WB_FACT_KERNELS, NULL)), 3);
    cr_assert_eq(count(&c, "outer", 0, fact(WB_FACT_GEMMS, NULL)), 1);
    cr_assert_eq(count(&c, "inner", 0, fact(WB_FACT_GEMMS, NULL)), 0);
    cr_assert_eq(c.ranges[2].parent, 1, "inner's parent is outer");
    cr_assert_eq(c.ranges[1].parent, 0, "outer's parent is step");
    cr_assert_eq(c.ranges[0].parent, -1);
    cr_assert_eq(c.ranges[2].depth, 2);
    wb_capture_free(&c);
}

Test(attribution, every_occurrence_is_counted_separately) {
    wb_capture c;
    two_steps(&c);
    cr_assert_eq(occurrences(&c, "step"), 2);
    for (size_t s = 0; s < 2; s++) {
        cr_assert_eq(count(&c, "step", s, fact(WB_FACT_MEMSETS, NULL)), 1);
        cr_assert_eq(count(&c, "step", s, fact(WB_FACT_API_CALLS, "cudaLaunchKernel")), 2);
        cr_assert_eq(count(&c, "step", s, fact(WB_FACT_API_CALLS, "cuLaunchKernelEx")), 1);
        cr_assert_eq(count(&c, "step", s, fact(WB_FACT_MEMCPYS, NULL)), 0);
    }
    wb_capture_free(&c);
}

Test(attribution, a_kernel_that_finishes_after_its_range_still_counts) {
    wb_capture c;
    two_steps(&c);
    wb_fact late = fact(WB_FACT_KERNELS_NAMED, "late");
    cr_assert_eq(count(&c, "step", 0, late), 1, "launched in step 0, ran during step 1: belongs to step 0");
    cr_assert_eq(count(&c, "step", 1, late), 1);
    wb_capture_free(&c);
}

Test(attribution, only_ranges_inside_the_profiled_window_count) {
    wb_capture c;
    two_steps(&c);
    add_window(&c, 1900, 2600); /* holds step 1 only */
    cr_assert_eq(occurrences(&c, "step"), 1);
    cr_assert_eq(occurrences(&c, "inner"), 1);
    wb_occurrences o;
    cr_assert_eq(wb_find_occurrences(&c, "step", &o), 0);
    cr_assert_eq(c.ranges[o.items[0].range].start, 2000);
    wb_occurrences_free(&o);
    add_window(&c, 900, 1600); /* a second window brings step 0 back */
    cr_assert_eq(wb_capture_link(&c), 0);
    cr_assert_eq(occurrences(&c, "step"), 2);
    wb_capture_free(&c);
}

Test(attribution, api_calls_of_other_threads_do_not_count) {
    wb_capture c;
    build_start(&c);
    add_range(&c, "step", 100, 500, 1);
    add_api(&c, "cudaLaunchKernel", 150, 160, 1, 1);
    add_kernel(&c, "mine", 170, 180, 1, 7);
    add_api(&c, "cudaLaunchKernel", 200, 210, 2, 2); /* another thread, same time */
    add_kernel(&c, "theirs", 220, 230, 2, 7);
    build_finish(&c);
    cr_assert_eq(count(&c, "step", 0, fact(WB_FACT_KERNELS, NULL)), 1);
    cr_assert_eq(count(&c, "step", 0, fact(WB_FACT_KERNELS_NAMED, "mine")), 1);
    cr_assert_eq(count(&c, "step", 0, fact(WB_FACT_API_CALLS, "cudaLaunchKernel")), 1);
    wb_capture_free(&c);
}

Test(attribution, graph_launch_kernels_belong_to_the_launch) {
    wb_capture c;
    build_start(&c);
    add_range(&c, "step", 100, 500, 1);
    add_api(&c, "cudaGraphLaunch", 150, 190, 9, 1);
    add_kernel(&c, "a", 200, 210, 9, 3);
    add_kernel(&c, "b", 210, 220, 9, 3);
    add_kernel(&c, "c", 220, 230, 9, 3);
    build_finish(&c);
    cr_assert_eq(count(&c, "step", 0, fact(WB_FACT_KERNELS, NULL)), 3);
    cr_assert_eq(count(&c, "step", 0, fact(WB_FACT_API_CALLS, "cudaGraphLaunch")), 1);
    cr_assert_eq(count(&c, "step", 0, fact(WB_FACT_API_CALLS, "cudaLaunchKernel")), 0);
    wb_capture_free(&c);
}

Test(attribution, calls_nested_in_another_call_are_not_counted_on_their_own) {
    wb_capture c;
    build_start(&c);
    add_range(&c, "step", 100, 500, 1);
    add_api(&c, "cudaLaunchKernel", 150, 190, 5, 1);
    add_api(&c, "cuLaunchKernel", 160, 180, 6, 1); /* made by the runtime inside cudaLaunchKernel */
    add_kernel(&c, "k", 200, 210, 5, 3);
    build_finish(&c);
    cr_assert(c.api[1].nested);
    cr_assert(!c.api[0].nested);
    cr_assert_eq(count(&c, "step", 0, fact(WB_FACT_API_CALLS, "cuLaunchKernel")), 0);
    cr_assert_eq(count(&c, "step", 0, fact(WB_FACT_API_CALLS, "cudaLaunchKernel")), 1);
    cr_assert_eq(count(&c, "step", 0, fact(WB_FACT_KERNELS, NULL)), 1);
    wb_capture_free(&c);
}

Test(attribution, unclosed_ranges_and_marks_are_not_occurrences) {
    wb_capture c;
    build_start(&c);
    add_range(&c, "step", 100, 500, 1);
    add_range(&c, "step", 600, WB_OPEN_END, 1); /* the program crashed inside it */
    add_range(&c, "step", 700, 700, 1);
    c.ranges[2].is_mark = 1;
    build_finish(&c);
    cr_assert_eq(occurrences(&c, "step"), 1);
    wb_capture_free(&c);
}

Test(attribution, a_range_with_no_work_has_zero_of_everything) {
    wb_capture c;
    two_steps(&c);
    add_range(&c, "empty", 1450, 1460, 1);
    add_range(&c, "never", 5000, 5001, 99);
    build_finish(&c);
    cr_assert_eq(count(&c, "empty", 0, fact(WB_FACT_KERNELS, NULL)), 0);
    cr_assert_eq(count(&c, "empty", 0, fact(WB_FACT_API_CALLS, "cudaLaunchKernel")), 0);
    cr_assert_eq(occurrences(&c, "no-such-range"), 0);
    wb_capture_free(&c);
}

/* One range's occurrence (the timeline's bars, range by range) is the one wb_find_occurrences_on
 * lists for it on its rank, and none where that lists none: in and out of the window, marks, open
 * ranges, a second rank. */
static int same(const long *a, size_t na, const long *b, size_t nb) { return na == nb && (na == 0 || !memcmp(a, b, na * sizeof *a)); }

static void each_range_alone_matches(const wb_capture *c) {
    for (size_t i = 0; i < c->n_ranges; i++) {
        wb_occurrences all, one;
        cr_assert_eq(wb_find_occurrences_on(c, c->ranges[i].name, c->ranges[i].rank, &all), 0);
        cr_assert_eq(wb_find_occurrence_of(c, (long)i, &one), 0);
        const wb_occurrence *want = NULL;
        for (size_t k = 0; k < all.n; k++)
            if (all.items[k].range == (long)i) want = &all.items[k];
        cr_assert_eq(one.n, want ? 1u : 0u, "range %zu (%s)", i, c->ranges[i].name);
        if (want) {
            const wb_occurrence *got = &one.items[0];
            cr_assert_eq(got->range, (long)i);
            cr_assert(same(got->api, got->n_api, want->api, want->n_api), "range %zu: API calls", i);
            cr_assert(same(got->kernels, got->n_kernels, want->kernels, want->n_kernels), "range %zu: kernels", i);
            cr_assert(same(got->ops, got->n_ops, want->ops, want->n_ops), "range %zu: memcpys and memsets", i);
        }
        wb_occurrences_free(&all);
        wb_occurrences_free(&one);
    }
}

Test(attribution, one_range_alone_is_its_occurrence) {
    wb_capture c;
    two_steps(&c);
    add_range(&c, "open", 2100, WB_OPEN_END, 1);
    add_range(&c, "step", 2050, 2050, 1);
    c.ranges[c.n_ranges - 1].is_mark = 1;
    cr_assert_eq(wb_capture_link(&c), 0);
    each_range_alone_matches(&c);
    add_window(&c, 1900, 2600); /* step 0 leaves the window */
    cr_assert_eq(wb_capture_link(&c), 0);
    each_range_alone_matches(&c);
    /* step 1 on a second process (its window too): each rank's ranges hold their own rank's work */
    c.world_size = 2;
    for (size_t i = 0; i < c.n_ranges; i++) c.ranges[i].rank = c.ranges[i].start >= 2000;
    for (size_t i = 0; i < c.n_api; i++) c.api[i].rank = c.api[i].start >= 2000;
    for (size_t i = 0; i < c.n_kernels; i++) c.kernels[i].rank = c.kernels[i].correlation_id >= 110;
    for (size_t i = 0; i < c.n_ops; i++) c.ops[i].rank = c.ops[i].correlation_id >= 110;
    c.windows[0].rank = 1;
    add_window(&c, 900, 1600);
    cr_assert_eq(wb_capture_link(&c), 0);
    each_range_alone_matches(&c);
    wb_capture_free(&c);
}
