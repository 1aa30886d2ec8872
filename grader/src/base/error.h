/*
 * error.h: how the grader reports failure.
 *
 * Library functions return an exit-code category (one of wb_exit) and fill a wb_error with one
 * message for the user; only main() turns it into an exit. Every message about an input names
 * the file, and the line and column where there is one, and says what to do.
 */
#ifndef WB_ERROR_H
#define WB_ERROR_H

#include <stddef.h>

/* The documented exit codes (docs/grader.md). */
typedef enum {
    WB_EXIT_OK = 0,        /* every fact right (or the command did what it was asked) */
    WB_EXIT_WRONG = 1,     /* some fact wrong, or (verify) the answer key does not hold */
    WB_EXIT_INPUT = 2,     /* bad usage or bad input: the message names the file */
    WB_EXIT_CAPTURE = 3,   /* the lesson program failed, or the capture is incomplete */
} wb_exit;

/* Not an exit code: the learner declined at a prompt. Stopping on request is not an error, so a
 * command that gets it prints err's message (what was kept, what to do next) as a plain note and
 * exits WB_EXIT_OK (wb_cli_stopped). */
#define WB_STOPPED (-1)

typedef struct {
    int code;              /* a wb_exit value; 0 while no error was set */
    char message[2048];
} wb_error;

/* Sets err (first error wins) and returns code, so that `return wb_fail(err, ...)` reads well. */
int wb_fail(wb_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Same, prefixed "path:line:column: " (line and column 1-based; 0 leaves them out). */
int wb_fail_at(wb_error *err, int code, const char *path, int line, int column, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

#endif
