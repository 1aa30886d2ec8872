/*
 * test_term_clean.c: names from a recording that hold escape sequences (a kernel named with ESC ]
 * 0; ... BEL, a range with ESC [ 2 J) reach the text tables as visible \xNN, never as control
 * bytes; JSON keeps them exact.
 */
#include "capture_builder.h"
#include "summary.h"
#include "term_clean.h"
#include "text_fit.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVIL_KERNEL "gemm_\x1b]0;pwned\x07kernel"
#define EVIL_RANGE "step\x1b[2J"

static int has_control(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\n') || c == 0x7F || (c == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] < 0xA0 &&
                                                     (unsigned char)s[i + 1] >= 0x80))
            return 1;
    }
    return 0;
}

Test(term_clean, names_with_escape_sequences_are_shown_not_obeyed) {
    wb_capture c;
    build_start(&c);
    add_range(&c, EVIL_RANGE, 100, 500, 1);
    add_api(&c, "cudaLaunchKernel", 150, 160, 1, 1);
    add_kernel(&c, EVIL_KERNEL, 170, 180, 1, 7);
    add_api(&c, "cudaLaunchKernel", 200, 210, 2, 1);
    add_kernel(&c, "ok_\xc2\x9b" "31m_kernel", 220, 230, 2, 7); /* a C1 control (CSI) in UTF-8 */
    build_finish(&c);
    wb_summary s;
    cr_assert_eq(wb_summary_build(&c, &s), 0);
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    wb_table_style narrow = {15, 80, 0}, whole = {15, 200, 1};
    wb_summary_print(f, "eager", &c, &s, &narrow);
    wb_summary_print(f, "eager", &c, &s, &whole);
    fclose(f);
    cr_assert(!has_control(text, n), "control bytes in the text tables:\n%s", text);
    cr_assert(strstr(text, "gemm_\\x1B]0;pwned\\x07kernel"), "%s", text);
    cr_assert(strstr(text, "ok_\\x9B31m_kernel"), "%s", text);
    cr_assert(strstr(text, "step\\x1B[2J"), "%s", text);
    json_t *j = wb_summary_json(&s);
    int exact = 0;
    json_t *kernels = json_object_get(j, "kernels");
    for (size_t i = 0; i < json_array_size(kernels); i++)
        exact |= !strcmp(json_string_value(json_object_get(json_array_get(kernels, i), "name")), EVIL_KERNEL);
    cr_assert(exact, "JSON must keep the name exactly");
    json_decref(j);
    char buf[256];
    wb_fit_name(EVIL_KERNEL, 80, buf, sizeof buf);
    cr_assert(!has_control(buf, strlen(buf)), "%s", buf);
    free(text);
    wb_summary_free(&s);
    wb_capture_free(&c);
}
