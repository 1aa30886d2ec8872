/*
 * test_trace_diff.c: grader diff on hand-made captures whose differences are known by
 * construction (renamed, added, removed kernels; API counts; ranges on one side only), on the
 * probe's H200 recording (eager against graph), and how it reads and pairs its two sides.
 */
#include "capture_builder.h"
#include "course_fixture.h"
#include "trace_diff.h"

#include <criterion/criterion.h>

/* One thread (7), one window [0, 10000]; a "step" range at [100*s, 100*s+90] per step s (1..3),
 * launching the given kernels through cudaLaunchKernel, plus an optional "extra" range. */
static void build(wb_capture *c, const char *const *kernels, size_t n, int extra_range, int memset_in_step) {
    build_start(c);
    add_window(c, 0, 10000);
    uint32_t corr = 1;
    for (uint64_t s = 1; s <= 3; s++) {
        uint64_t t = 100 * s * 10;
        add_range(c, "step", t, t + 90, 7);
        for (size_t i = 0; i < n; i++) {
            add_api(c, "cudaLaunchKernel", t + 1 + 10 * i, t + 5 + 10 * i, corr, 7);
            add_kernel(c, kernels[i], t + 200 + 10 * i, t + 205 + 10 * i, corr, 1);
            corr++;
        }
        if (memset_in_step) {
            add_api(c, "cudaMemsetAsync", t + 80, t + 85, corr, 7);
            add_op(c, WB_GPU_MEMSET, t + 300, t + 301, corr, 1);
            corr++;
        }
        add_api(c, "cudaStreamSynchronize", t + 86, t + 89, corr++, 7);
    }
    if (extra_range) {
        add_range(c, "extra", 9000, 9100, 7);
        add_api(c, "cudaLaunchKernel", 9001, 9002, corr, 7);
        add_kernel(c, "extra_kernel", 9200, 9210, corr, 1);
    }
    build_finish(c);
}

static const wb_range_diff *range(const wb_capture_diff *d, const char *name) {
    for (size_t i = 0; i < d->n_ranges; i++)
        if (!strcmp(d->ranges[i].name, name)) return &d->ranges[i];
    cr_assert_fail("no range %s in the diff", name);
    return NULL;
}

Test(diff, identical_captures_do_not_differ) {
    const char *k[] = {"gemm_a", "bias_add"};
    wb_capture a, b;
    build(&a, k, 2, 0, 0);
    build(&b, k, 2, 0, 0);
    wb_capture_diff d;
    cr_assert_eq(wb_diff_captures(&a, &b, &d), 0);
    cr_expect(!d.differs);
    cr_expect_eq(d.kernels_a, 6);
    cr_expect_eq(d.kernels_b, 6);
    cr_expect_eq(range(&d, "step")->n_changes, 0);
    cr_expect_eq(range(&d, "step")->occ_a, 3);
    wb_capture_diff_free(&d);
    wb_capture_free(&a);
    wb_capture_free(&b);
}

Test(diff, renamed_added_and_removed_kernels) {
    const char *ka[] = {"gemm_a", "bias_add", "gelu", "copy_out"};
    const char *kb[] = {"gemm_a", "gemm_bias_epilogue", "gelu", "extra_1", "extra_2"};
    wb_capture a, b;
    build(&a, ka, 4, 0, 0);
    build(&b, kb, 5, 0, 0);
    wb_capture_diff d;
    cr_assert_eq(wb_diff_captures(&a, &b, &d), 0);
    cr_expect(d.differs);
    const wb_range_diff *r = range(&d, "step");
    cr_assert_eq(r->n_changes, 3);
    /* bias_add at position 1 became gemm_bias_epilogue: renamed, not removed + added */
    cr_expect_eq(r->changes[0].kind, WB_SEQ_RENAMED);
    cr_expect_eq(r->changes[0].pos_a, 1);
    cr_expect_str_eq(r->changes[0].a, "bias_add");
    cr_expect_str_eq(r->changes[0].b, "gemm_bias_epilogue");
    /* after gelu: copy_out -> extra_1 renamed, extra_2 added */
    cr_expect_eq(r->changes[1].kind, WB_SEQ_RENAMED);
    cr_expect_str_eq(r->changes[1].a, "copy_out");
    cr_expect_eq(r->changes[2].kind, WB_SEQ_ADDED);
    cr_expect_str_eq(r->changes[2].b, "extra_2");
    cr_expect_eq(r->changes[2].pos_b, 4);
    cr_expect_eq(r->kernels_a, 4);
    cr_expect_eq(r->kernels_b, 5);
    /* launches: one cudaLaunchKernel more per step */
    cr_assert_eq(r->n_api, 1);
    cr_expect_str_eq(r->api[0].name, "cudaLaunchKernel");
    cr_expect_eq(r->api[0].a, 4);
    cr_expect_eq(r->api[0].b, 5);
    wb_capture_diff_free(&d);
    wb_capture_free(&a);
    wb_capture_free(&b);
}

Test(diff, removed_kernel) {
    const char *ka[] = {"gemm_a", "bias_add"};
    const char *kb[] = {"gemm_a"};
    wb_capture a, b;
    build(&a, ka, 2, 0, 0);
    build(&b, kb, 1, 0, 0);
    wb_capture_diff d;
    cr_assert_eq(wb_diff_captures(&a, &b, &d), 0);
    const wb_range_diff *r = range(&d, "step");
    cr_assert_eq(r->n_changes, 1);
    cr_expect_eq(r->changes[0].kind, WB_SEQ_REMOVED);
    cr_expect_str_eq(r->changes[0].a, "bias_add");
    /* whole window: names and counts */
    cr_expect_eq(d.kernels_a, 6);
    cr_expect_eq(d.kernels_b, 3);
    int seen = 0;
    for (size_t i = 0; i < d.n_kernel_names; i++)
        if (!strcmp(d.kernel_names[i].name, "bias_add")) {
            seen = 1;
            cr_expect_eq(d.kernel_names[i].a, 3);
            cr_expect_eq(d.kernel_names[i].b, 0);
        }
    cr_expect(seen);
    wb_capture_diff_free(&d);
    wb_capture_free(&a);
    wb_capture_free(&b);
}

Test(diff, ranges_on_one_side_and_gpu_ops) {
    const char *k[] = {"gemm_a"};
    wb_capture a, b;
    build(&a, k, 1, 1, 0);
    build(&b, k, 1, 0, 1);
    wb_capture_diff d;
    cr_assert_eq(wb_diff_captures(&a, &b, &d), 0);
    cr_expect(d.differs);
    const wb_range_diff *x = range(&d, "extra");
    cr_expect_eq(x->occ_a, 1);
    cr_expect_eq(x->occ_b, 0);
    const wb_range_diff *s = range(&d, "step");
    cr_expect_eq(s->memsets_a, 0);
    cr_expect_eq(s->memsets_b, 1);
    cr_expect_eq(d.memsets_b, 3);
    cr_expect_eq(s->n_changes, 0, "same kernels");
    json_t *j = wb_capture_diff_json(&d);
    cr_expect(json_is_true(json_object_get(j, "differs")));
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(json_object_get(j, "window"), "memsets"), "b")), 3);
    json_decref(j);
    wb_capture_diff_free(&d);
    wb_capture_free(&a);
    wb_capture_free(&b);
}

/* Only the profiled window counts: work launched after it is not compared. */
Test(diff, outside_the_window_is_ignored) {
    const char *k[] = {"gemm_a"};
    wb_capture a, b;
    build(&a, k, 1, 0, 0);
    build(&b, k, 1, 0, 0);
    add_range(&b, "after", 20000, 20100, 7);
    add_api(&b, "cudaLaunchKernel", 20001, 20002, 999, 7);
    add_kernel(&b, "late_kernel", 20200, 20210, 999, 1);
    wb_capture_link(&b);
    wb_capture_diff d;
    cr_assert_eq(wb_diff_captures(&a, &b, &d), 0);
    cr_expect(!d.differs);
    cr_expect_eq(d.kernels_b, 3);
    for (size_t i = 0; i < d.n_ranges; i++) cr_expect(strcmp(d.ranges[i].name, "after"), "a range outside the window");
    wb_capture_diff_free(&d);
    wb_capture_free(&a);
    wb_capture_free(&b);
}

/* ---- the H200 recording ----------------------------------------------------------------------- */

Test(diff, probe_eager_against_graph) {
    char path[4200], spec_a[4300], spec_b[4300];
    fixture_probe_recording(path, sizeof path);
    snprintf(spec_a, sizeof spec_a, "%s:eager", path);
    snprintf(spec_b, sizeof spec_b, "%s:graph", path);
    wb_diff_side a, b;
    wb_error err = {0};
    cr_assert_eq(wb_diff_side_load(spec_a, &a, &err), 0, "%s", err.message);
    cr_assert_eq(wb_diff_side_load(spec_b, &b, &err), 0, "%s", err.message);
    const wb_run *ra[8], *rb[8];
    const char *oa[8], *ob[8];
    size_t n;
    cr_assert_eq(wb_diff_pair_runs(&a, &b, ra, rb, 8, &n, oa, ob, &err), 0, "%s", err.message);
    cr_assert_eq(n, 1);
    cr_expect_str_eq(ra[0]->variant, "eager");
    cr_expect_str_eq(rb[0]->variant, "graph");
    wb_capture_diff d;
    cr_assert_eq(wb_diff_captures(&ra[0]->capture, &rb[0]->capture, &d), 0);
    cr_expect(d.differs);
    const wb_range_diff *r = range(&d, "two_kernels");
    cr_expect_eq(r->kernels_a, 2);
    cr_expect_eq(r->kernels_b, 2);
    cr_expect_eq(r->n_changes, 0, "a graph replays the same kernels");
    double launch_a = -1, launch_b = -1, graph_b = -1;
    for (size_t i = 0; i < r->n_api; i++) {
        if (!strcmp(r->api[i].name, "cudaLaunchKernel")) launch_a = r->api[i].a, launch_b = r->api[i].b;
        if (!strcmp(r->api[i].name, "cudaGraphLaunch")) graph_b = r->api[i].b;
    }
    cr_expect_eq(launch_a, 2);
    cr_expect_eq(launch_b, 0);
    cr_expect_eq(graph_b, 1);
    wb_capture_diff_free(&d);
    wb_diff_side_free(&a);
    wb_diff_side_free(&b);
}

Test(diff, sides_pair_by_variant) {
    char path[4200];
    fixture_probe_recording(path, sizeof path);
    wb_diff_side a, b;
    wb_error err = {0};
    cr_assert_eq(wb_diff_side_load(path, &a, &err), 0, "%s", err.message);
    cr_assert_eq(wb_diff_side_load(path, &b, &err), 0, "%s", err.message);
    const wb_run *ra[8], *rb[8];
    const char *oa[8], *ob[8];
    size_t n;
    cr_assert_eq(wb_diff_pair_runs(&a, &b, ra, rb, 8, &n, oa, ob, &err), 0);
    cr_expect_eq(n, a.rec.n_runs, "every variant against itself");
    cr_expect_null(oa[0]);
    for (size_t i = 0; i < n; i++) {
        wb_capture_diff d;
        cr_assert_eq(wb_diff_captures(&ra[i]->capture, &rb[i]->capture, &d), 0);
        cr_expect(!d.differs, "a recording does not differ from itself");
        wb_capture_diff_free(&d);
    }
    /* one side names a variant, the other holds several: ambiguous, exit 2 */
    wb_diff_side c;
    char spec[4300];
    snprintf(spec, sizeof spec, "%s:graph", path);
    cr_assert_eq(wb_diff_side_load(spec, &c, &err), 0);
    cr_expect_eq(wb_diff_pair_runs(&c, &b, ra, rb, 8, &n, oa, ob, &err), 0, "graph pairs with graph");
    cr_expect_str_eq(rb[0]->variant, "graph");
    wb_diff_side_free(&a);
    wb_diff_side_free(&b);
    wb_diff_side_free(&c);
}

Test(diff, bad_sides_are_input_errors) {
    char path[4200], spec[4300];
    fixture_probe_recording(path, sizeof path);
    wb_diff_side s;
    wb_error err = {0};
    snprintf(spec, sizeof spec, "%s:nope", path);
    cr_expect_eq(wb_diff_side_load(spec, &s, &err), WB_EXIT_INPUT);
    cr_expect(strstr(err.message, "no variant 'nope'") && strstr(err.message, "eager"), "%s", err.message);
    wb_diff_side_free(&s);
    memset(&err, 0, sizeof err);
    cr_expect_eq(wb_diff_side_load("/tmp/no/such/file.json", &s, &err), WB_EXIT_INPUT);
    wb_diff_side_free(&s);
    /* a file that is JSON but neither a recording nor a capture */
    char root[4200], junk[4400];
    fixture_temp_dir(root, sizeof root);
    snprintf(junk, sizeof junk, "%s/junk.json", root);
    fixture_write(junk, "{\"format\": \"something-else\"}");
    memset(&err, 0, sizeof err);
    cr_expect_eq(wb_diff_side_load(junk, &s, &err), WB_EXIT_INPUT);
    cr_expect(strstr(err.message, junk), "names the file: %s", err.message);
    wb_diff_side_free(&s);
    fixture_remove(root);
}

Test(diff, capture_files_are_one_run) {
    /* a capture file: the probe recording's first run, written out as a capture */
    char path[4200], root[4200], cap[4400];
    fixture_probe_recording(path, sizeof path);
    fixture_temp_dir(root, sizeof root);
    snprintf(cap, sizeof cap, "%s/capture.json", root);
    json_error_t jerr;
    json_t *rec = json_load_file(path, 0, &jerr);
    cr_assert(rec);
    cr_assert_eq(json_dump_file(json_object_get(json_array_get(json_object_get(rec, "runs"), 0), "capture"), cap, 0), 0);
    json_decref(rec);
    wb_diff_side a, b;
    wb_error err = {0};
    cr_assert_eq(wb_diff_side_load(cap, &a, &err), 0, "%s", err.message);
    cr_expect(a.is_capture);
    cr_expect_eq(a.rec.n_runs, 1);
    char spec[4300];
    snprintf(spec, sizeof spec, "%s:eager", path);
    cr_assert_eq(wb_diff_side_load(spec, &b, &err), 0);
    const wb_run *ra[8], *rb[8];
    const char *oa[8], *ob[8];
    size_t n;
    cr_assert_eq(wb_diff_pair_runs(&a, &b, ra, rb, 8, &n, oa, ob, &err), 0, "%s", err.message);
    wb_capture_diff d;
    cr_assert_eq(wb_diff_captures(&ra[0]->capture, &rb[0]->capture, &d), 0);
    cr_expect(!d.differs, "the capture is the eager run");
    wb_capture_diff_free(&d);
    wb_diff_side_free(&a);
    wb_diff_side_free(&b);
    fixture_remove(root);
}
