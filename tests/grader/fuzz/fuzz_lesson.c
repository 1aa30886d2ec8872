/*
 * fuzz_lesson.c: fuzz target for the lesson.yaml reader. Any input gives either a lesson or an
 * exit-2 error whose message names the file, never a crash, a leak, a hang or a memory blow-up.
 * The folder is "fuzz", so seeds say `lesson: fuzz`.
 */
#include "lesson.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    wb_lesson l;
    wb_error err = {0};
    int rc = wb_lesson_load_buffer("fuzz", (const char *)data, size, &l, &err);
    if (rc == 0) {
        char buf[1024];
        (void)wb_lesson_variant_list(&l, buf, sizeof buf);
        (void)wb_lesson_range_list(&l, buf, sizeof buf);
        for (size_t i = 0; i < l.n_questions; i++) (void)wb_lesson_question(&l, l.questions[i].id);
    } else if (rc != WB_EXIT_INPUT || strncmp(err.message, "fuzz/lesson.yaml", 16) != 0) {
        abort(); /* every rejection is exit 2 with a message naming the file */
    }
    wb_lesson_free(&l);
    return 0;
}
