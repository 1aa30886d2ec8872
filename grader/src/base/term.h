/*
 * term.h: colour only on a terminal, and never with NO_COLOR set (https://no-color.org); the
 * width that tables and wrapped text fit.
 */
#ifndef WB_TERM_H
#define WB_TERM_H

#include <stdio.h>

int wb_use_color(FILE *f);
const char *wb_green(FILE *f);
const char *wb_red(FILE *f);
const char *wb_bold(FILE *f);
const char *wb_dim(FILE *f);
const char *wb_reset(FILE *f);

/* Columns to fit output to f: COLUMNS when it holds a number (as shells and `COLUMNS=100 grader
 * ...` set it), else the terminal's own width (ioctl TIOCGWINSZ) when f is a terminal, else 80,
 * the width of a terminal nobody resized, also when piped into a file or less. Clamped to 40..400:
 * narrower than 40 no table is readable. */
int wb_term_width(FILE *f);

#endif
