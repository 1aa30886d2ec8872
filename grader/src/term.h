/*
 * term.h: colour only on a terminal, and never with NO_COLOR set (https://no-color.org).
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

#endif
