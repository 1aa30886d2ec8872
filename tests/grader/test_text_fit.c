/*
 * test_text_fit.c: wrapping at word boundaries, kernel names fitted to a column, and the
 * terminal width from COLUMNS. Wrapped text is checked against its own words: every line within
 * the width (but a word wider than a line), and the words, joined again, exactly the input's.
 */
#define _GNU_SOURCE /* fopencookie */
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

/* An unbuffered stream, like stderr, that counts the writes reaching it. */
static int writes;
static ssize_t count_write(void *cookie, const char *buf, size_t size) {
    (void)cookie, (void)buf;
    writes++;
    return (ssize_t)size;
}

Test(wrap, reaches_an_unbuffered_stream_in_one_write) {
    /* a terminal driver answers a prompt once it sees "? ": a prompt written word by word on
     * stderr shows "Grade them now? " before its end */
    FILE *f = fopencookie(NULL, "w", (cookie_io_functions_t){.write = count_write});
    cr_assert(f);
    setvbuf(f, NULL, _IONBF, 0);
    writes = 0;
    wb_wrap_open(f, "Grade them now? Your first grading is your score, and the trace is shown after it [y/N]", 0, 0, 40);
    cr_expect_eq(writes, 1, "the prompt came in %d writes", writes);
    writes = 0;
    wb_wrap(f, "Lesson 01 is not graded yet? Seeing the trace first is recorded in your progress.", 0, 2, 30);
    cr_expect_eq(writes, 1, "the text and its newline came in %d writes", writes);
    fclose(f);
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

/* ---- Japanese: wide characters take two columns ------------------------------------------------ */

static const char JA[] = "Hopper の GEMM カーネルは nvjet_... という名前です。名前に 'gemm' が含まれていなくても、"
                         "grader はこれを GEMM として数えます。エピローグでバイアスを足すと、カーネルは 1 つ減ります。";

/* s without newlines and spaces: the characters a reader reads, in order. */
static const char *unwrapped(const char *s, char *buf, size_t cap) {
    size_t n = 0;
    for (const char *p = s; *p && n + 1 < cap; p++)
        if (*p != '\n' && *p != ' ') buf[n++] = *p;
    buf[n] = '\0';
    return buf;
}

Test(columns, wide_characters_take_two) {
    cr_assert_eq(wb_columns("カーネル"), 8);
    cr_assert_eq(wb_columns("GEMM"), 4);
    cr_assert_eq(wb_columns("行列積、"), 8);
    cr_assert_eq(wb_columns("ＡＢ"), 4, "fullwidth forms");
    cr_assert_eq(wb_columns("é→x"), 3, "narrow and ambiguous characters take one");
}

Test(wrap, japanese_breaks_between_characters_within_the_width) {
    char a[4096], b[4096];
    for (int width = 40; width <= 90; width += 5) {
        wrap(JA, 7, 7, width);
        for (const char *line = out; *line;) {
            size_t len = strcspn(line, "\n");
            char one[1024];
            snprintf(one, sizeof one, "%.*s", (int)len, line);
            cr_assert_leq(wb_columns(one), (size_t)width, "width %d: '%s'", width, one);
            const char *start = one + strspn(one, " ");
            cr_assert(strncmp(start, "。", 3) && strncmp(start, "、", 3), "a line starts with punctuation: '%s'", one);
            line += len + (line[len] == '\n');
        }
        /* every character kept, in order (breaks at spaces are checked by a_japanese_line_break...) */
        cr_assert_str_eq(unwrapped(out, a, sizeof a), unwrapped(JA, b, sizeof b), "width %d:\n%s", width, out);
    }
}

Test(wrap, a_japanese_line_break_joins_without_a_space) {
    wrap("一行目の文です。\n二行目の文です。\nThen English\nwords.", 0, 0, 80);
    cr_assert_str_eq(out, "一行目の文です。二行目の文です。Then English words.\n");
}

Test(fit_name, never_cuts_a_character) {
    char buf[256];
    for (size_t width = 4; width < 20; width++) {
        wb_fit_name("カーネルの名前がとても長い場合", width, buf, sizeof buf);
        cr_assert_leq(wb_columns(buf), width, "width %zu: %s", width, buf);
        for (const unsigned char *p = (const unsigned char *)buf; *p;) { /* valid UTF-8 throughout */
            int n = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : 4;
            for (int i = 1; i < n; i++) cr_assert_eq(p[i] & 0xC0, 0x80, "width %zu: a cut character in %s", width, buf);
            p += n;
        }
    }
}
