/* term.c: see term.h. */
#include "term.h"

#include <stdlib.h>
#include <unistd.h>

int wb_use_color(FILE *f) {
    const char *no = getenv("NO_COLOR");
    if (no && *no) return 0;
    const char *term = getenv("TERM");
    if (term && !*term) return 0;
    return isatty(fileno(f));
}

const char *wb_green(FILE *f) { return wb_use_color(f) ? "\033[32m" : ""; }
const char *wb_red(FILE *f) { return wb_use_color(f) ? "\033[31m" : ""; }
const char *wb_bold(FILE *f) { return wb_use_color(f) ? "\033[1m" : ""; }
const char *wb_dim(FILE *f) { return wb_use_color(f) ? "\033[2m" : ""; }
const char *wb_reset(FILE *f) { return wb_use_color(f) ? "\033[0m" : ""; }
