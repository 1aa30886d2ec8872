/*
 * test_timeline_html.c: the timeline page on hand-made captures whose answer is known by
 * construction: which step it shows (the median wall time of three), the lanes (one per stream),
 * one arrow per launch, names escaped for XML, and a range's floor drawn where one is given.
 * (tests/grader/lessons_replay/test_timeline.sh renders the real lessons in Chromium.)
 */
#include "capture_builder.h"
#include "timeline_html.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char page[1 << 18];

static size_t count(const char *hay, const char *needle) {
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* Three steps of 10, 30 and 20 us wall time; the third (the median) launches a kernel with an
 * awkward C++ name on stream 7 and a memset on stream 13. */
static void make(wb_recording *rec) {
    wb_capture *c = build_recording(rec);
    add_range(c, "step", 100000, 110000, 11);
    add_api(c, "cudaLaunchKernel", 101000, 102000, 1, 11);
    add_kernel(c, "k_gelu", 103000, 104000, 1, 7);
    add_range(c, "step", 200000, 230000, 11);
    add_api(c, "cudaLaunchKernel", 201000, 202000, 2, 11);
    add_kernel(c, "k_gelu", 203000, 204000, 2, 7);
    add_range(c, "step", 300000, 320000, 11);
    add_range(c, "gelu", 300500, 305000, 11);
    add_api(c, "cudaLaunchKernel", 301000, 302000, 3, 11);
    add_kernel(c, "void k<(int)1>(float const*, \"q\" & 'a')", 303000, 306000, 3, 7);
    add_api(c, "cudaMemsetAsync", 306000, 307000, 4, 11);
    add_op(c, WB_GPU_MEMSET, 308000, 309000, 4, 13);
    add_api(c, "cudaDeviceSynchronize", 310000, 319000, 5, 11);
    add_window(c, 50000, 400000);
    build_finish(c);
}

static void render(const wb_timeline_context *ctx, const wb_recording *rec) {
    FILE *f = fmemopen(page, sizeof page, "w");
    wb_error err = {0};
    cr_assert_eq(wb_timeline_html(f, ctx, rec, &err), 0, "%s", err.message);
    fclose(f);
}

Test(timeline, shows_the_median_step_with_its_lanes_and_arrows) {
    wb_recording rec;
    make(&rec);
    wb_timeline_context ctx = {"09_test", "replay", NULL, 0};
    render(&ctx, &rec);
    cr_assert(strstr(page, "occurrence 3 of 3 in the profiled window (the one of median wall time)"), "%s", page);
    cr_assert_eq(count(page, "data-lane=\"host\""), 1);
    cr_assert_eq(count(page, "data-lane=\"nvtx\""), 1);
    cr_assert_eq(count(page, "data-lane=\"gpu\" data-stream=\"7\""), 1);
    cr_assert_eq(count(page, "data-lane=\"gpu\" data-stream=\"13\""), 1);
    cr_assert_eq(count(page, "class=\"arrow\""), 2, "the kernel's and the memset's launch");
    cr_assert_eq(count(page, "class=\"work kernel\""), 1, "the other steps' kernels lie outside the span");
    cr_assert_eq(count(page, "class=\"work memset\""), 1);
    cr_assert(strstr(page, "made 3 API calls"), "cudaLaunchKernel, cudaMemsetAsync, cudaDeviceSynchronize");
    cr_assert(!strstr(page, "<script"), "no script");
    wb_recording_free(&rec);
}

Test(timeline, names_are_escaped_for_xml) {
    wb_recording rec;
    make(&rec);
    wb_timeline_context ctx = {"09_<test>", "replay", NULL, 0};
    render(&ctx, &rec);
    cr_assert(strstr(page, "k&lt;(int)1&gt;(float const*, &quot;q&quot; &amp; &#39;a&#39;)"), "escaped full name in the title");
    cr_assert(!strstr(page, "k<(int)1>"), "no raw < of a name reaches the page");
    cr_assert(strstr(page, "Lesson 09_&lt;test&gt;"));
    wb_recording_free(&rec);
}

Test(timeline, draws_a_floor_where_one_is_given) {
    wb_recording rec;
    make(&rec);
    wb_range_floor floors[] = {{"eager", "gelu", 1500.0, "memory-bound"}, {"other", "step", 9.0, NULL}};
    wb_timeline_context ctx = {"09_test", "replay", floors, 2};
    render(&ctx, &rec);
    cr_assert_eq(count(page, "class=\"floor\""), 1, "gelu's floor; the other variant's is not drawn");
    cr_assert(strstr(page, "floor 1.50 &#181;s (50% of the GPU time)"), "1.5 us of the 3 us the kernel ran");
    cr_assert(!strstr(page, "No floors"), "the no-floor note is gone");
    wb_recording_free(&rec);
}

Test(timeline, a_floor_far_under_the_gpu_time_is_not_rounded_to_zero) {
    wb_recording rec;
    make(&rec);
    wb_range_floor floors[] = {{"eager", "gelu", 10.0, "overhead"}}; /* 10 ns of the 3 us the kernel ran */
    wb_timeline_context ctx = {"09_test", "replay", floors, 1};
    render(&ctx, &rec);
    cr_assert(strstr(page, "floor 0.01 &#181;s (under 1% of the GPU time)"), "%s", page);
    cr_assert(!strstr(page, "(0% of the GPU time)"));
    wb_recording_free(&rec);
}

Test(timeline, floors_come_from_declared_work_and_calibration) {
    wb_recording rec;
    make(&rec);
    wb_work work[] = {{NULL, "gelu", "", "", 2e9, 3e6, 1}};
    wb_lesson lesson = {0};
    lesson.work = work;
    lesson.n_work = 1;
    wb_range_floor out[4];
    cr_assert_eq(wb_timeline_floors(&lesson, &rec, out, 4), 0, "no calibration, no floor");
    rec.calibration.present = 1;
    rec.calibration.matrix_flops_per_s = 1e15; /* 2e9 FLOPs: 2 us */
    rec.calibration.copy_bytes_per_s = 3e12;   /* 3e6 bytes: 1 us */
    cr_assert_eq(wb_timeline_floors(&lesson, &rec, out, 4), 1);
    cr_assert_float_eq(out[0].floor_ns, 2000.0, 1e-6);
    cr_assert(strstr(out[0].bound, "compute"));
    cr_assert_str_eq(out[0].range, "gelu");
    wb_recording_free(&rec);
}
