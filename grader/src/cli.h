/*
 * cli.h: the small pieces of argument handling that the course commands (list, hint, explain,
 * diff, new, template, lint) share, so that every one of them reads options, reports usage
 * errors and prints JSON the same way as check and verify do.
 */
#ifndef WB_CLI_H
#define WB_CLI_H

#include <jansson.h>
#include <stddef.h>

/* "-h" or "--help". */
int wb_cli_is_help(const char *arg);

/* "--name VALUE" or "--name=VALUE" at argv[*i]: returns 1 and sets *value (NULL when VALUE is
 * missing), advancing *i past a separate VALUE; 0 when argv[*i] is another argument. */
int wb_cli_value(int argc, char **argv, int *i, const char *name, const char **value);

/* Prints "grader COMMAND: MESSAGE", a blank line and the usage to stderr; returns WB_EXIT_INPUT. */
int wb_cli_usage_error(const char *command, const char *usage, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prints "grader COMMAND: MESSAGE" to stderr, wrapped to the terminal's width (term.h) at
 * spaces; a "file:line:column:" that opens the message stays on the first line. */
void wb_cli_error(const char *command, const char *message);

/* 1 when format is "text" or "json". */
int wb_cli_format_ok(const char *format);

/* path relative to the current folder when it lies under it (lessons/01_matmul_add), else path;
 * into buf. Messages read better, and paths stay usable, when the grader runs in the checkout. */
const char *wb_cli_display_path(const char *path, char *buf, size_t cap);

/* Prints a JSON value on stdout, indented, with a final newline, and drops the reference. */
void wb_cli_print_json(json_t *value);

#endif
