/*
 * test_overlap.c: the streams, overlap_us and memcpys_named facts (overlap.h) and the tolerance
 * that grades times (time_facts.h), on captures built by hand, where each right answer follows
 * from the intervals drawn in the comments. The capture reader's copy fields are tested in
 * test_capture_reader.c.
 */
#include "capture_builder.h"
#include "facts.h"
#include "grade.h"
#include "overlap.h"
#include "speak.h"
#include "time_facts.h"

#include <criterion/criterion.h>

/* One range "r" on thread 1 holding every operation the test adds after it. */
static uint32_t next_corr;

static void start(wb_capture *c) {
    build_start(c);
    add_range(c, "r", 0, 1000000, 1);
    next_corr = 1;
}

static void kernel(wb_capture *c, uint64_t start, uint64_t end, uint32_t stream) {
    add_api(c, "cudaLaunchKernel", 10, 11, next_corr, 1);
    add_kernel(c, "k", start, end, next_corr++, stream);
}

static wb_gpu_op *copy(wb_capture *c, uint64_t start, uint64_t end, uint32_t stream, const char *dir, const char *src,
                       const char *dst, int async) {
    add_api(c, "cudaMemcpyAsync", 10, 11, next_corr, 1);
    add_op(c, WB_GPU_MEMCPY, start, end, next_corr++, stream);
    wb_gpu_op *o = &c->ops[c->n_ops - 1];
    strcpy(o->copy_kind, dir);
    strcpy(o->src_kind, src);
    strcpy(o->dst_kind, dst);
    o->async = async;
    return o;
}

/* The fact's value in the first (only) occurrence of "r". */
static long value(wb_capture *c, wb_fact_kind kind, const char *key) {
    build_finish(c);
    wb_fact f;
    memset(&f, 0, sizeof f);
    f.kind = kind;
    f.key = (char *)key;
    wb_occurrences o;
    cr_assert_eq(wb_find_occurrences(c, "r", &o), 0);
    cr_assert_eq(o.n, 1);
    long v = wb_count_fact(c, &o.items[0], &f);
    wb_occurrences_free(&o);
    return v;
}

/* ---- streams -------------------------------------------------------------------------------- */

Test(streams, counts_distinct_streams_of_kernels_and_copies) {
    wb_capture c;
    start(&c);
    kernel(&c, 100, 200, 13);
    kernel(&c, 300, 400, 13);
    copy(&c, 100, 200, 14, "HtoD", "pinned", "device", 1);
    copy(&c, 500, 600, 15, "DtoH", "device", "pinned", 1);
    cr_assert_eq(value(&c, WB_FACT_STREAMS, NULL), 3);
    wb_capture_free(&c);
}

Test(streams, same_stream_number_on_two_devices_is_two_streams) {
    wb_capture c;
    start(&c);
    kernel(&c, 100, 200, 13);
    kernel(&c, 100, 200, 13);
    c.kernels[1].device = 1;
    cr_assert_eq(value(&c, WB_FACT_STREAMS, NULL), 2);
    wb_capture_free(&c);
}

Test(streams, a_range_without_gpu_work_has_none) {
    wb_capture c;
    start(&c);
    add_api(&c, "cudaEventRecord", 10, 11, 99, 1);
    cr_assert_eq(value(&c, WB_FACT_STREAMS, NULL), 0);
    wb_capture_free(&c);
}

/* ---- overlap -------------------------------------------------------------------------------- */

/*  stream 13  [0 ............ 4000)
 *  stream 14          [2000 ............ 7000)
 *  overlap            [2000 .. 4000)  = 2000 ns = 2 us */
Test(overlap, two_operations_overlap_by_their_intersection) {
    wb_capture c;
    start(&c);
    kernel(&c, 1000, 5000, 13);
    copy(&c, 3000, 8000, 14, "HtoD", "pinned", "device", 1);
    cr_assert_eq(value(&c, WB_FACT_OVERLAP_US, NULL), 2);
    wb_capture_free(&c);
}

/* Three operations over the same 10 us count 10 us, not 20 or 30: an instant counts once. */
Test(overlap, three_at_once_count_once) {
    wb_capture c;
    start(&c);
    kernel(&c, 0, 10000, 13);
    copy(&c, 0, 10000, 14, "HtoD", "pinned", "device", 1);
    copy(&c, 0, 10000, 15, "DtoH", "device", "pinned", 1);
    build_finish(&c);
    wb_occurrences o;
    cr_assert_eq(wb_find_occurrences(&c, "r", &o), 0);
    cr_assert_eq(wb_occurrence_overlap_ns(&c, &o.items[0]), 10000);
    wb_occurrences_free(&o);
    wb_capture_free(&c);
}

/* Back to back on one stream: each starts when the one before ends. Nothing overlaps. */
Test(overlap, touching_operations_do_not_overlap) {
    wb_capture c;
    start(&c);
    copy(&c, 1000, 2000, 13, "HtoD", "pageable", "device", 0);
    kernel(&c, 2000, 3000, 13);
    copy(&c, 3000, 4000, 13, "DtoH", "device", "pageable", 0);
    cr_assert_eq(value(&c, WB_FACT_OVERLAP_US, NULL), 0);
    wb_capture_free(&c);
}

/*  a  [0 ...................... 10000)
 *  b      [1000 .. 2000)   [5000 .. 6000)  (two operations inside a)
 *  c                  [1500 ........ 5500)
 *  instants with two or more: [1000, 6000) = 5000 ns, rounded to 5 us */
Test(overlap, is_the_union_of_pairwise_intersections) {
    wb_capture c;
    start(&c);
    kernel(&c, 0, 10000, 13);
    copy(&c, 1000, 2000, 14, "HtoD", "pinned", "device", 1);
    copy(&c, 5000, 6000, 14, "HtoD", "pinned", "device", 1);
    kernel(&c, 1500, 5500, 15);
    build_finish(&c);
    wb_occurrences o;
    cr_assert_eq(wb_find_occurrences(&c, "r", &o), 0);
    cr_assert_eq(wb_occurrence_overlap_ns(&c, &o.items[0]), 5000);
    wb_occurrences_free(&o);
    wb_capture_free(&c);
}

/* Work of another range (or launched outside every range) never counts, however it overlaps. */
Test(overlap, only_the_ranges_own_operations_count) {
    wb_capture c;
    build_start(&c);
    add_range(&c, "r", 0, 100, 1);
    add_range(&c, "other", 200, 300, 1);
    add_api(&c, "cudaLaunchKernel", 10, 11, 1, 1);
    add_kernel(&c, "k", 1000, 9000, 1, 13);
    add_api(&c, "cudaMemcpyAsync", 210, 211, 2, 1);
    add_op(&c, WB_GPU_MEMCPY, 1000, 9000, 2, 14);
    cr_assert_eq(value(&c, WB_FACT_OVERLAP_US, NULL), 0);
    wb_capture_free(&c);
}

/* Rounding to whole microseconds: 1499 ns is 1 us, 1500 ns is 2 us. */
Test(overlap, rounds_to_the_nearest_microsecond) {
    for (int extra = 0; extra < 2; extra++) {
        wb_capture c;
        start(&c);
        kernel(&c, 0, 10000, 13);
        kernel(&c, 5000, 6499 + (uint64_t)extra, 14);
        cr_assert_eq(value(&c, WB_FACT_OVERLAP_US, NULL), 1 + extra);
        wb_capture_free(&c);
    }
}

/* ---- memcpys_named -------------------------------------------------------------------------- */

Test(memcpys_named, words_select_direction_memory_and_issue) {
    wb_capture c;
    start(&c);
    copy(&c, 0, 10, 13, "HtoD", "pageable", "device", 1);
    copy(&c, 0, 10, 13, "HtoD", "pinned", "device", 1);
    copy(&c, 0, 10, 13, "DtoH", "device", "pageable", 0);
    copy(&c, 0, 10, 13, "DtoD", "device", "device", 1);
    copy(&c, 0, 10, 13, "DtoH", "", "", -1); /* an old capture: no memory kinds, issue unknown */
    add_api(&c, "cudaMemsetAsync", 10, 11, next_corr, 1);
    add_op(&c, WB_GPU_MEMSET, 0, 10, next_corr++, 13);
    struct { const char *key; long want; } cases[] = {
        {"HtoD", 2},          {"dtoh", 2},           {"pageable", 2},  {"HtoD pageable", 1}, {"DtoH pageable", 1},
        {"pinned", 1},        {"device", 4},         {"async", 3},     {"sync", 1},          {"HtoD sync", 0},
        {"  DtoD   async ", 1}, {"DtoH pinned", 0},
    };
    build_finish(&c);
    wb_occurrences o;
    cr_assert_eq(wb_find_occurrences(&c, "r", &o), 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[256];
        cr_assert_eq(wb_memcpy_key_check(cases[i].key, why, sizeof why), 0, "'%s': %s", cases[i].key, why);
        wb_fact f = {.kind = WB_FACT_MEMCPYS_NAMED, .key = (char *)cases[i].key};
        long got = wb_count_fact(&c, &o.items[0], &f);
        cr_assert_eq(got, cases[i].want, "'%s': %ld copies, want %ld", cases[i].key, got, cases[i].want);
    }
    wb_occurrences_free(&o);
    wb_capture_free(&c);
}

Test(memcpys_named, bad_keys_say_why) {
    struct { const char *key, *why; } bad[] = {
        {"HtoD DtoH", "one direction"}, {"HtoD paged", "'paged' is not a copy word"}, {"   ", "names no copy word"},
        {"", "names no copy word"},     {"HtoDxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "is not a copy word"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char why[256] = "";
        cr_assert_eq(wb_memcpy_key_check(bad[i].key, why, sizeof why), -1, "accepted '%s'", bad[i].key);
        cr_assert(strstr(why, bad[i].why), "'%s': '%s' lacks '%s'", bad[i].key, why, bad[i].why);
    }
}

/* A bad key's reason, whole, in a language. */
static void expect_key_reason(const char *lang, const char *key, const char *expected) {
    char why[512] = "";
    speak(lang);
    cr_assert_eq(wb_memcpy_key_check(key, why, sizeof why), -1, "accepted '%s'", key);
    cr_assert_str_eq(why, expected, "%s", lang);
}

Test(memcpys_named, bad_keys_are_said_whole_in_english_and_japanese) {
    expect_key_reason("en", "HtoD DtoH", "a copy has one direction; 'DtoH' is a second one");
    expect_key_reason("ja", "HtoD DtoH", "コピーの向きは 1 つだけです。'DtoH' は 2 つ目の向きです");
    expect_key_reason("en", "HtoD paged", "'paged' is not a copy word; use HtoD, DtoH, DtoD, HtoH, PtoP, pageable, pinned, device, "
                                          "managed, async or sync, separated by spaces (e.g. 'HtoD pageable')");
    expect_key_reason("ja", "HtoD paged", "'paged' はコピーを表す語ではありません。HtoD、DtoH、DtoD、HtoH、PtoP、pageable、pinned、"
                                          "device、managed、async、sync をスペースで区切って使ってください (例: 'HtoD pageable')");
    expect_key_reason("en", " ", "the key names no copy word (e.g. HtoD, DtoH, pageable, pinned, async)");
    expect_key_reason("ja", " ", "キーにコピーを表す語がありません (例: HtoD、DtoH、pageable、pinned、async)");
}

Test(memcpys_named, the_predictions_reader_checks_keys_with_their_position) {
    const char *text = "lesson: 09_test\n"
                       "predictions:\n"
                       "  - id: p\n"
                       "    range: r\n"
                       "    memcpys_named:\n"
                       "      HtoD pageable: 8\n"
                       "      DtoH paged: 8\n";
    wb_prediction_set p;
    wb_error err = {0};
    cr_assert_eq(wb_predictions_load_buffer("p.yaml", text, strlen(text), &p, &err), WB_EXIT_INPUT);
    cr_assert(strstr(err.message, "p.yaml:7:"), "%s", err.message);
    cr_assert(strstr(err.message, "'paged' is not a copy word"), "%s", err.message);
    wb_predictions_free(&p);
}

/* ---- grading times -------------------------------------------------------------------------- */

Test(tolerance, a_band_of_a_quarter_of_the_measured_value) {
    /* time_facts.h: right when |predicted - actual| <= 0.25 x actual */
    cr_assert(wb_time_within(400, 400, WB_DEFAULT_TOLERANCE));
    cr_assert(wb_time_within(300, 400, WB_DEFAULT_TOLERANCE));
    cr_assert(wb_time_within(500, 400, WB_DEFAULT_TOLERANCE));
    cr_assert(!wb_time_within(299, 400, WB_DEFAULT_TOLERANCE));
    cr_assert(!wb_time_within(501, 400, WB_DEFAULT_TOLERANCE));
    cr_assert(wb_time_within(0, 0, WB_DEFAULT_TOLERANCE), "nothing overlaps: exactly right");
    cr_assert(!wb_time_within(1, 0, WB_DEFAULT_TOLERANCE));
    cr_assert(!wb_time_within(0, 1, WB_DEFAULT_TOLERANCE));
}

Test(tolerance, median_of_the_occurrences) {
    double odd[] = {9, 1, 5};
    double even[] = {40, 10, 30, 20};
    cr_assert_float_eq(wb_median(odd, 3), 5, 1e-12);
    cr_assert_float_eq(wb_median(even, 4), 25, 1e-12, "the mean of the two middle values");
}

/* Three steps whose kernel and copy overlap by 100, 300 and 120 us: the median, 120, is graded;
 * streams and copy counts are still graded exactly on every step. */
Test(tolerance, overlap_us_is_graded_on_the_median_step_within_the_band) {
    wb_lesson l;
    memset(&l, 0, sizeof l);
    l.lesson = strdup("09_test");
    l.n_variants = 1;
    l.variants = calloc(1, sizeof *l.variants);
    l.variants[0].name = strdup("overlapped");
    l.n_ranges = 1;
    l.ranges = calloc(1, sizeof *l.ranges);
    l.ranges[0] = strdup("step");
    wb_recording rec;
    memset(&rec, 0, sizeof rec);
    rec.lesson = strdup("09_test");
    rec.n_runs = 1;
    rec.runs = calloc(1, sizeof *rec.runs);
    rec.runs[0].variant = strdup("overlapped");
    wb_capture *c = &rec.runs[0].capture;
    build_start(c);
    const uint64_t overlap_us[] = {100, 300, 120};
    for (uint32_t s = 0; s < 3; s++) {
        uint64_t t = 10000000ull * (s + 1);
        add_range(c, "step", t, t + 5000000, 1);
        add_api(c, "cudaMemcpyAsync", t + 10, t + 20, 10 * s + 1, 1);
        add_op(c, WB_GPU_MEMCPY, t + 1000, t + 1000 + 500000, 10 * s + 1, 14);
        strcpy(c->ops[c->n_ops - 1].copy_kind, "HtoD");
        add_api(c, "cudaLaunchKernel", t + 30, t + 40, 10 * s + 2, 1);
        uint64_t k0 = t + 1000 + 500000 - overlap_us[s] * 1000; /* starts overlap_us before the copy ends */
        add_kernel(c, "k", k0, k0 + 800000, 10 * s + 2, 13);
    }
    build_finish(c);
    const char *text = "lesson: 09_test\n"
                       "predictions:\n"
                       "  - id: near\n    range: step\n    overlap_us: 100\n    streams: 2\n"   /* 100 within 25% of 120 */
                       "  - id: far\n    range: step\n    overlap_us: 200\n"                    /* 200 is 67% over 120 */
                       "  - id: none\n    range: step\n    overlap_us: 0\n"
                       "  - id: copies\n    range: step\n    memcpys_named: {HtoD: 1, DtoH: 0}\n";
    wb_prediction_set p;
    wb_error err = {0};
    cr_assert_eq(wb_predictions_load_buffer("p.yaml", text, strlen(text), &p, &err), 0, "%s", err.message);
    cr_assert_eq(wb_predictions_check_lesson(&p, &l, &err), 0, "%s", err.message);
    wb_grade g;
    cr_assert_eq(wb_grade_predictions(&p, &l, &rec, &g, &err), 0, "%s", err.message);
    struct { const char *id, *label; long actual; int right; } want[] = {
        {"near", "streams", 2, 1},   {"near", "overlap_us", 120, 1},        {"far", "overlap_us", 120, 0},
        {"none", "overlap_us", 120, 0}, {"copies", "memcpys_named.HtoD", 1, 1}, {"copies", "memcpys_named.DtoH", 0, 1},
    };
    cr_assert_eq(g.n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < g.n; i++) {
        const wb_graded_fact *x = &g.facts[i];
        cr_assert_str_eq(x->prediction->id, want[i].id);
        cr_assert_str_eq(x->fact->label, want[i].label);
        if (x->is_time) cr_assert_float_eq(x->actual_us, (double)want[i].actual, 1e-9, "%s %s: %g", want[i].id, want[i].label, x->actual_us);
        else cr_assert_eq(x->actual, want[i].actual, "%s %s: %ld", want[i].id, want[i].label, x->actual);
        cr_assert_eq(x->right, want[i].right, "%s %s", want[i].id, want[i].label);
    }
    const wb_graded_fact *near = &g.facts[1];
    cr_assert_eq(near->n_occurrences, 3);
    cr_assert_float_eq(wb_graded_time_at(near, 0), 100, 1e-9);
    cr_assert_float_eq(wb_graded_time_at(near, 1), 300, 1e-9);
    cr_assert_float_eq(wb_graded_time_at(near, 2), 120, 1e-9);
    wb_grade_free(&g);
    wb_predictions_free(&p);
    wb_recording_free(&rec);
    wb_lesson_free(&l);
}
