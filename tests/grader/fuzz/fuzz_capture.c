/*
 * fuzz_capture.c: fuzz target for the capture and recording readers, and what runs on a capture
 * once read (attribution, summary, Chrome trace): a corrupt capture must be refused with exit 2
 * and a message, never crash the grader.
 */
#include "capture.h"
#include "chrome_trace.h"
#include "facts.h"
#include "summary.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void exercise(const wb_capture *c) {
    wb_occurrences o;
    for (size_t i = 0; i < c->n_ranges && i < 4; i++)
        if (wb_find_occurrences(c, c->ranges[i].name, &o) == 0) wb_occurrences_free(&o);
    wb_summary s;
    if (wb_summary_build(c, &s) == 0) wb_summary_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    wb_error err = {0};
    wb_capture c;
    int rc = wb_capture_load_buffer("fuzz.json", (const char *)data, size, &c, &err);
    if (rc == 0) exercise(&c);
    else if (rc != WB_EXIT_INPUT || strncmp(err.message, "fuzz.json", 9) != 0) abort();
    wb_capture_free(&c);

    memset(&err, 0, sizeof err);
    wb_recording r;
    rc = wb_recording_load_buffer("fuzz.json", (const char *)data, size, &r, &err);
    if (rc == 0) {
        for (size_t i = 0; i < r.n_runs; i++) exercise(&r.runs[i].capture);
        json_t *t = wb_chrome_trace(&r);
        json_decref(t);
    } else if (rc != WB_EXIT_INPUT || strncmp(err.message, "fuzz.json", 9) != 0) {
        abort();
    }
    wb_recording_free(&r);
    return 0;
}
