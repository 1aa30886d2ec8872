/*
 * text_fit.h: text that fits a width: paragraphs wrapped at word boundaries, and long kernel names
 * shortened for tables (the full name stays in JSON, in the trace and with --long-names).
 *
 * Widths count display columns: two for an East Asian wide character (kanji, kana, fullwidth
 * forms), none for a combining mark, one for any other character; no character is ever cut. A
 * line breaks at spaces, and also between Japanese characters (which have no spaces between
 * words), never before closing punctuation or after an opening bracket. An English word wider
 * than the line is never split: it gets a line of its own.
 */
#ifndef WB_TEXT_FIT_H
#define WB_TEXT_FIT_H

#include <stddef.h>
#include <stdio.h>

/* Columns the UTF-8 string s takes. */
size_t wb_columns(const char *s);
/* Columns one code point takes: 0, 1 or 2. */
int wb_char_columns(unsigned code_point);
/* Writes text, then spaces up to width columns: printf's "%-*s" counts bytes, this counts columns. */
void wb_pad(FILE *f, const char *text, int width);

/* Writes text from column col (what the caller printed before it on this line), wrapped so that
 * no line passes width, continuation lines indented by indent spaces; ends with a newline.
 * Single newlines in text join lines (it is reflowed); a blank line starts a new paragraph, and a
 * line that starts with a space, "- " or "* " keeps its own line (lists and code). */
void wb_wrap(FILE *f, const char *text, int col, int indent, int width);
/* The same without the final newline (a prompt); returns the column where it stopped. */
int wb_wrap_open(FILE *f, const char *text, int col, int indent, int width);

/* text cut to at most width columns, ending in "..." when cut (never inside a character): a
 * title on one line. Returns buf. */
const char *wb_truncate(const char *text, size_t width, char *buf, size_t cap);

/* name shortened to at most width columns, into buf: the return type and the parameter list of a
 * demangled name go first ("void k<T>(float*, int)" -> "k<T>(...)"), then its middle gives way to
 * "..." (nvjet_sm90_tst_2...coopA_TNT keeps the family and the layout letters). A name that fits
 * is copied as it is. Returns buf. */
const char *wb_fit_name(const char *name, size_t width, char *buf, size_t cap);
/* The same, but keeping the start ("cudaMemcpy..."): for labels inside small boxes, where a
 * name's first letters are what a reader recognizes. */
const char *wb_fit_name_start(const char *name, size_t width, char *buf, size_t cap);

#endif
