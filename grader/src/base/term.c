/* term.c: see term.h. */
#include "term.h"

#include <stdlib.h>
#include <sys/ioctl.h>
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

int wb_term_width(FILE *f) {
    int width = 0;
    const char *env = getenv("COLUMNS");
    if (env && *env) {
        char *end;
        long v = strtol(env, &end, 10);
        if (*end == '\0' && v > 0 && v < 100000) width = (int)v;
    }
    struct winsize ws;
    if (width == 0 && isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) width = ws.ws_col;
    if (width == 0) width = 80;
    return width < 40 ? 40 : width > 400 ? 400 : width;
}
