/*
 * test_timing_table.c: the lesson programs' timing table and RESULT line name the CUDA events'
 * measure so that it cannot be taken for the grader's gpu_us. The events span the step from
 * before its first launch to after its last, idle waits for the host included (29.9 us for lesson
 * 01's eager step), while gpu_us sums the work's own durations (2.9 us): a row "gpu time per
 * step" or a RESULT key "gpu_us" beside a graded gpu_us of a tenth of it reads as a contradiction.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wb_lesson.h"
#include "wb_steps.h"

static char *printed_table(void) {
    double span[] = {29.89, 30.5, 29.1}, launch[] = {24, 25, 23}, sync[] = {5.3, 5.1, 5.5}, wall[] = {34, 35, 33};
    wb_steps m = {0};
    m.n = 3, m.span_us = span, m.launch_us = launch, m.sync_us = sync, m.wall_us = wall;
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    FILE *saved = stdout;
    stdout = f;
    wb_steps_print(&m);
    stdout = saved;
    fclose(f);
    return text;
}

Test(timing_table, names_the_event_span_apart_from_gpu_us) {
    char *text = printed_table();
    cr_assert(text);
    for (char *line = text; *line;) {
        size_t n = strcspn(line, "\n");
        cr_expect(strncasecmp(line, "gpu time", 8) != 0, "a row named like the graded GPU time: %.*s", (int)n, line);
        cr_expect(n <= 80, "a line over 80 columns: %.*s", (int)n, line);
        line += n + (line[n] == '\n');
    }
    cr_expect(strstr(text, "GPU span per step (events)"), "no event-span row:\n%s", text);
    cr_expect(strstr(text, "idle waits for the host included") && strstr(text, "gpu_us"),
              "the table does not say how the span differs from gpu_us:\n%s", text);
    free(text);
}

Test(timing_table, result_line_says_span) {
    double span[] = {29.89}, wall[] = {34};
    wb_steps m = {0};
    m.n = 1, m.span_us = span, m.wall_us = wall;
    wb_result r = {0};
    wb_result_steps(&r, &m);
    cr_expect(strstr(r.text, "gpu_span_us=29.89"), "RESULT: %s", r.text);
    cr_expect(!strstr(r.text, " gpu_us="), "RESULT names the span as the graded gpu_us: %s", r.text);
}
