/*
 * test_text_fit.c: wrapping at word boundaries, kernel names fitted to a column, and the
 * terminal width from COLUMNS. Wrapped text is checked against its own words: every line within
 * the width (but a word wider than a line), and the words, joined again, exactly the input's.
 */
#include "term.h"
#include "text_fit.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char out[8192];

static const char *wrap(const char *text, int col, int indent, int width) {
    FILE *f = fmemopen(out, sizeof out, "w");
    wb_wrap(f, text, col, indent, width);
    fclose(f);
    return out;
}

/* The words of s, single-spaced, into buf. */
static const char *words(const char *s, char *buf, size_t cap) {
    size_t n = 0;
    for (const char *p = s; *p && n + 2 < cap;) {
        while (*p == ' ' || *p == '\n') p++;
        if (!*p) break;
        if (n) buf[n++] = ' ';
        while (*p && *p != ' ' && *p != '\n' && n + 1 < cap) buf[n++] = *p++;
    }
    buf[n] = '\0';
    return buf;
}

static int widest_line(const char *s) {
    int w = 0, cur = 0;
    for (; *s; s++) {
        if (*s == '\n') cur = 0;
        else if (++cur > w) w = cur;
    }
    return w;
}

static const char WHY[] = "The three GEMMs are launched by cuBLAS through the driver API (cuLaunchKernelEx), our two\n"
                          "pointwise kernels through the runtime (cudaLaunchKernel, what <<<...>>> compiles to).\n";

Test(wrap, lines_fit_and_no_word_is_split) {
    char a[2048], b[2048];
    for (int width = 30; width <= 100; width += 7) {
        wrap(WHY, 7, 7, width);
        cr_assert_leq(widest_line(out), width, "width %d:\n%s", width, out);
        cr_assert_str_eq(words(out, a, sizeof a), words(WHY, b, sizeof b), "width %d", width);
        cr_assert_eq(out[strlen(out) - 1], '\n');
        cr_assert_eq(out[strlen(out) - 2] != ' ', 1, "no trailing space");
    }
    wrap(WHY, 7, 7, 60);
    cr_assert(strstr(out, "\n       "), "continuation lines are indented:\n%s", out);
}

Test(wrap, a_word_wider_than_the_line_stands_alone_whole) {
    wrap("see cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags here", 0, 2, 20);
    cr_assert_str_eq(out, "see\n  cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags\n  here\n");
}

Test(wrap, paragraphs_and_list_items_keep_their_breaks) {
    wrap("one two\nthree\n\nfour\n- five six\n- seven", 0, 0, 40);
    cr_assert_str_eq(out, "one two three\n\nfour\n- five six\n- seven\n");
}

Test(wrap, continues_from_the_callers_column) {
    wrap("alpha beta gamma", 15, 4, 26);
    cr_assert_str_eq(out, "alpha beta\n    gamma\n", "15 + 'alpha beta' = 25 columns fits 26");
}

Test(fit_name, drops_the_return_type_and_parameters_first) {
    char buf[256];
    const char *name = "void k_gather_rows<__nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16 const*, long, int const*, long, long)";
    cr_assert_str_eq(wb_fit_name(name, 40, buf, sizeof buf), "k_gather_rows<__nv_bfloat16>(...)");
    cr_assert_str_eq(wb_fit_name("k_mul(float*, int)", 80, buf, sizeof buf), "k_mul(float*, int)", "fits: as it is");
}

Test(fit_name, cuts_the_middle_keeping_family_and_layout) {
    char buf[256];
    const char *name = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT";
    wb_fit_name(name, 30, buf, sizeof buf);
    cr_assert_eq(wb_columns(buf), 30, "%s", buf);
    cr_assert(!strncmp(buf, "nvjet_sm90_tst", 14), "%s", buf);
    cr_assert(strstr(buf, "bias_TNT") && strstr(buf, "..."), "%s", buf);
    cr_assert_str_eq(wb_fit_name_start("cudaMemcpyAsync", 8, buf, sizeof buf), "cudaM...", "box labels keep the start");
    wb_fit_name("gelu_\xce\xbc\xce\xbc\xce\xbc\xce\xbc_kernel_with_a_long_tail", 12, buf, sizeof buf);
    cr_assert_eq(wb_columns(buf), 12, "UTF-8 is cut at character boundaries: %s", buf);
}

Test(term_width, follows_columns_else_80) {
    FILE *f = tmpfile(); /* not a terminal */
    setenv("COLUMNS", "132", 1);
    cr_assert_eq(wb_term_width(f), 132);
    setenv("COLUMNS", "12", 1);
    cr_assert_eq(wb_term_width(f), 40, "narrower than 40 is clamped");
    setenv("COLUMNS", "wide", 1);
    cr_assert_eq(wb_term_width(f), 80, "not a number: ignored");
    unsetenv("COLUMNS");
    cr_assert_eq(wb_term_width(f), 80, "not a terminal: 80");
    fclose(f);
}
