/* error.c: see error.h. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

int wb_fail(wb_error *err, int code, const char *fmt, ...) {
    if (err && err->code == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

int wb_fail_at(wb_error *err, int code, const char *path, int line, int column, const char *fmt, ...) {
    if (err && err->code == 0) {
        int n;
        if (line > 0 && column > 0) n = snprintf(err->message, sizeof err->message, "%s:%d:%d: ", path, line, column);
        else if (line > 0) n = snprintf(err->message, sizeof err->message, "%s:%d: ", path, line);
        else n = snprintf(err->message, sizeof err->message, "%s: ", path);
        if (n < 0) n = 0;
        if ((size_t)n < sizeof err->message) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err->message + n, sizeof err->message - (size_t)n, fmt, ap);
            va_end(ap);
        }
        err->code = code;
    }
    return code;
}
