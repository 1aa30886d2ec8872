/*
 * test_capture_oom.c: running out of memory while reading, linking or grading a capture is an
 * error (exit 2 or 3, "out of memory"), never a grade. The grader's own allocations go through
 * the wrappers below (this test links with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc); the
 * test makes the k-th one fail, for every k until a run needs no more, and jansson's at spread
 * points (json_set_alloc_funcs). Whatever fails, the result is either the answer key's grade
 * (every fact right: the probe's key is true by construction) or an out-of-memory error.
 *
 * Before the fix, a failed allocation in the API-call index left every kernel attributed to API
 * call 0, and the grade came back wrong with exit 1.
 */
#include "answer_key.h"
#include "capture.h"
#include "capture_record.h"
#include "grade.h"
#include "lesson.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- failing allocations ---------------------------------------------------------------------- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);

static long countdown = -1; /* fail when it reaches 0; -1: never */
static long calls;          /* allocations seen while armed */
static int failed;          /* an allocation was refused */

static int refuse(void) {
    if (countdown < 0) return 0;
    calls++;
    if (countdown-- == 0) {
        failed = 1;
        return 1;
    }
    return 0;
}

void *__wrap_malloc(size_t n) { return refuse() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return refuse() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return refuse() ? NULL : __real_realloc(p, n); }

static long jansson_countdown = -1, jansson_calls;
static void *jansson_malloc(size_t n) {
    jansson_calls++;
    if (jansson_countdown >= 0 && jansson_countdown-- == 0) {
        failed = 1;
        return NULL;
    }
    return __real_malloc(n);
}

/* ---- the probe ------------------------------------------------------------------------------- */

static char *probe_path(const char *rel) {
    static char buf[4][4096];
    static int k;
    char *b = buf[k++ % 4];
    snprintf(b, 4096, "%s/tests/grader/probe/%s", getenv("WB_SOURCE_DIR"), rel);
    return b;
}

typedef struct {
    wb_lesson lesson;
    wb_answer_key key;
    const wb_arch_answers *answers;
} probe;

static void probe_open(probe *p) {
    wb_error err = {0};
    cr_assert_eq(wb_lesson_load(probe_path("lessons/00_probe"), &p->lesson, &err), 0, "%s", err.message);
    cr_assert_eq(wb_answer_key_load(probe_path("expectations/00_probe.yaml"), &p->key, &err), 0, "%s", err.message);
    p->answers = wb_answer_key_arch(&p->key, "sm_90");
    cr_assert_not_null(p->answers);
}

/* Load the recording and grade the key with allocations failing as armed. Returns 1 when some
 * allocation was refused. */
static int load_and_grade(probe *p) {
    wb_recording rec;
    wb_grade g = {0};
    wb_error err = {0};
    failed = 0;
    int rc = wb_recording_load(probe_path("lessons/00_probe/traces/sm_90.json"), &rec, &err);
    if (!rc) rc = wb_grade_predictions(&p->answers->answers, &p->lesson, &rec, &g, &err);
    long seen = calls;
    countdown = jansson_countdown = -1; /* Criterion allocates too */
    int refused = failed;
    if (rc == 0) {
        cr_assert_eq(g.right, g.n, "a grade after a refused allocation (at %ld): %zu of %zu right", seen, g.right, g.n);
        cr_assert_geq(g.n, 25);
    } else {
        cr_assert(refused, "failed with no allocation refused: %s", err.message);
        cr_assert(rc == WB_EXIT_INPUT || rc == WB_EXIT_CAPTURE, "exit %d: %s", rc, err.message);
        cr_assert(strstr(err.message, "out of memory"), "not an out-of-memory message: %s", err.message);
    }
    wb_grade_free(&g);
    wb_recording_free(&rec);
    return refused;
}

Test(capture_oom, every_failing_allocation_of_the_grader_is_an_error) {
    probe p;
    probe_open(&p);
    long k = 0;
    for (;; k++) {
        countdown = k;
        calls = 0;
        if (!load_and_grade(&p)) break; /* the k-th allocation never came: all were tried */
    }
    cr_assert_gt(k, 50, "only %ld allocations: are the wrappers linked?", k);
    wb_answer_key_free(&p.key);
    wb_lesson_free(&p.lesson);
}

Test(capture_oom, failing_allocations_inside_jansson_are_errors_too) {
    probe p;
    probe_open(&p);
    json_set_alloc_funcs(jansson_malloc, free);
    wb_record_fast_scan(0); /* every record through jansson, so that its allocations are the ones failing */
    /* how many jansson makes, then 64 points spread over them */
    jansson_calls = 0;
    load_and_grade(&p);
    long total = jansson_calls;
    cr_assert_gt(total, 1000);
    for (long i = 0; i < 64; i++) {
        jansson_countdown = total * i / 64 + i;
        load_and_grade(&p);
    }
    json_set_alloc_funcs(malloc, free);
    wb_record_fast_scan(1);
    wb_answer_key_free(&p.key);
    wb_lesson_free(&p.lesson);
}
