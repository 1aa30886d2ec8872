/*
 * cli.h: the small pieces of argument handling that the course commands (list, hint, explain,
 * diff, new, template, lint) share, so that every one of them reads options, reports usage
 * errors and prints JSON the same way as check and verify do.
 */
#ifndef WB_CLI_H
#define WB_CLI_H

#include <jansson.h>
#include <stddef.h>

/*
 * One option parser for every command: a command lists its options in a table and says what its
 * operands are; wb_cli_parse reads argv against it and reports every usage error the same way.
 *
 *     int reveal = 0;                 // --reveal
 *     const char *format = "text";    // text | json
 *     const char *spec[2];            // the two captures
 *     size_t n = 0;
 *     const wb_cli_option options[] = {
 *         {"--reveal", WB_CLI_FLAG, .flag = &reveal},
 *         {"--format", WB_CLI_FORMAT, .text = &format},
 *     };
 *     wb_cli_spec s = {.command = "diff", .usage = DIFF_USAGE, .options = options, .n_options = 2,
 *                      .operands = spec, .n_operands = &n, .max_operands = 2, .min_operands = 2,
 *                      .missing = "give two captures to compare"};
 *     int rc = wb_cli_parse(&s, argc, argv);
 *     if (rc) return rc == WB_CLI_HELP ? WB_EXIT_OK : rc;
 *
 * A value is given as "--name VALUE" or "--name=VALUE". The usage text itself stays the command's
 * (docs/commands/NAME.md opens with it; tests/grader/cli/test_docs.sh compares the two).
 */
typedef enum {
    WB_CLI_FLAG,   /* --name: *flag = 1 */
    WB_CLI_TEXT,   /* --name VALUE, VALUE not empty: *text */
    WB_CLI_FORMAT, /* --format text|json: *text */
    WB_CLI_COUNT,  /* --name N, a whole number from min to max: *count */
    WB_CLI_REPLAY, /* --replay [TRACE]: *flag = 1, and *text = TRACE when the next word is a file or
                      ends in .json (a FIFO or device is taken too, so that the reader refuses it by name) */
} wb_cli_kind;

typedef struct {
    const char *name; /* "--format" */
    wb_cli_kind kind;
    int *flag;        /* FLAG, REPLAY */
    const char **text;/* TEXT, FORMAT, REPLAY */
    int *count;       /* COUNT */
    int min, max;     /* COUNT's range */
    const char *bad;  /* the usage error when the value is missing or wrong; NULL: the kind's own words */
} wb_cli_option;

typedef struct {
    const char *command, *usage;       /* "check", and what --help prints */
    const wb_cli_option *options;
    size_t n_options;
    const char **operands;             /* the words that are no option, in order (room for max_operands) */
    size_t *n_operands;
    size_t max_operands, min_operands;
    const char *missing;               /* the usage error when fewer than min_operands */
    const char *too_many;              /* the usage error for one more than max_operands, with %s for it */
    const char *unknown;               /* for an option not in the table, with %s; NULL: "unknown option %s" */
    int dash_operands;                 /* 1: a word starting with a single '-' is an operand (a kernel name),
                                          only "--" starts an option */
} wb_cli_spec;

#define WB_CLI_HELP (-1) /* wb_cli_parse printed the usage for -h or --help: the command exits 0 */

/* Reads argv[1..argc) against the spec: 0, WB_CLI_HELP, or WB_EXIT_INPUT after a usage error on
 * stderr (wb_cli_usage_error). Options take effect in order; the last of a repeated one wins. */
int wb_cli_parse(const wb_cli_spec *spec, int argc, char **argv);

/* The options of every command, taken out of argv wherever they stand before a "--" (grader
 * --lang ja check, grader check 3 --lang=ja): --lang ja|en, the language of messages (i18n.h).
 * *lang is NULL when not given. 0, or WB_EXIT_INPUT after a usage error on stderr. */
int wb_cli_global_options(int *argc, char **argv, const char **lang);

/* Prints "grader COMMAND: MESSAGE", a blank line and the usage to stderr; returns WB_EXIT_INPUT. */
int wb_cli_usage_error(const char *command, const char *usage, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prints "grader COMMAND: MESSAGE" to stderr, wrapped to the terminal's width (term.h) at
 * spaces; a "file:line:column:" that opens the message stays on the first line. */
void wb_cli_error(const char *command, const char *message);

/* How a command ends after rc with err set: an error goes to wb_cli_error and rc is returned; a
 * learner who declined at a prompt (rc WB_STOPPED) gets err's message on stdout, wrapped, as a
 * plain note, and WB_EXIT_OK. */
int wb_cli_finish(const char *command, int rc, const char *message);

/* Prints text and a newline. English as it is, one line however long: logs and scripts grep such
 * lines (lint's findings, release's summary), and tests compare them byte for byte. Japanese has
 * no spaces to break at and no such readers: it is wrapped to the terminal's width (term.h) from
 * column col, continuation lines indented by indent. */
void wb_cli_print_line(FILE *f, const char *text, int col, int indent);
/* The same for a printf format (one final newline of it dropped), from column 0, continuation
 * lines indented by 2: a note or an error line of a command. */
void wb_cli_print_linef(FILE *f, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* 1 when format is "text" or "json". */
int wb_cli_format_ok(const char *format);

/* path relative to the current folder when it lies under it (lessons/01_matmul_add), else path;
 * into buf. Messages read better, and paths stay usable, when the grader runs in the checkout. */
const char *wb_cli_display_path(const char *path, char *buf, size_t cap);

/* Prints a JSON value on stdout, indented, with a final newline, and drops the reference. */
void wb_cli_print_json(json_t *value);

#endif
