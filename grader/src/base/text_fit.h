/*
 * text_fit.h: text that fits a width: paragraphs wrapped at word boundaries, and long kernel names
 * shortened for tables (the full name stays in JSON, in the trace and with --long-names).
 *
 * Widths count columns, one per UTF-8 character (no wide characters are expected in names or in
 * the course's texts). A word wider than the line is never split: it gets a line of its own.
 */
#ifndef WB_TEXT_FIT_H
#define WB_TEXT_FIT_H

#include <stddef.h>
#include <stdio.h>

/* Columns the UTF-8 string s takes. */
size_t wb_columns(const char *s);

/* Writes text from column col (what the caller printed before it on this line), wrapped so that
 * no line passes width, continuation lines indented by indent spaces; ends with a newline.
 * Single newlines in text join lines (it is reflowed); a blank line starts a new paragraph, and a
 * line that starts with a space, "- " or "* " keeps its own line (lists and code). */
void wb_wrap(FILE *f, const char *text, int col, int indent, int width);
/* The same without the final newline (a prompt); returns the column where it stopped. */
int wb_wrap_open(FILE *f, const char *text, int col, int indent, int width);

/* name shortened to at most width columns, into buf: the return type and the parameter list of a
 * demangled name go first ("void k<T>(float*, int)" -> "k<T>(...)"), then its middle gives way to
 * "..." (nvjet_sm90_tst_2...coopA_TNT keeps the family and the layout letters). A name that fits
 * is copied as it is. Returns buf. */
const char *wb_fit_name(const char *name, size_t width, char *buf, size_t cap);
/* The same, but keeping the start ("cudaMemcpy..."): for labels inside small boxes, where a
 * name's first letters are what a reader recognizes. */
const char *wb_fit_name_start(const char *name, size_t width, char *buf, size_t cap);

#endif
