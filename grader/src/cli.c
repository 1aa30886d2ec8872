#define _GNU_SOURCE
/* cli.c: see cli.h. */
#include "cli.h"
#include "error.h"
#include "term.h"
#include "text_fit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int wb_cli_is_help(const char *arg) { return !strcmp(arg, "-h") || !strcmp(arg, "--help"); }

int wb_cli_value(int argc, char **argv, int *i, const char *name, const char **value) {
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0) return 0;
    if (argv[*i][n] == '=') {
        *value = argv[*i] + n + 1;
        return 1;
    }
    if (argv[*i][n] != '\0') return 0;
    *value = *i + 1 < argc ? argv[++*i] : NULL;
    return 1;
}

int wb_cli_usage_error(const char *command, const char *usage, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "grader %s: ", command);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n\n%s", usage);
    return WB_EXIT_INPUT;
}

void wb_cli_error(const char *command, const char *message) {
    char *text = NULL;
    if (asprintf(&text, "grader %s: %s", command, message) < 0) {
        fprintf(stderr, "grader %s: %s\n", command, message);
        return;
    }
    wb_wrap(stderr, text, 0, 2, wb_term_width(stderr));
    free(text);
}

int wb_cli_format_ok(const char *format) { return format && (!strcmp(format, "text") || !strcmp(format, "json")); }

void wb_cli_print_json(json_t *value) {
    char *text = json_dumps(value, JSON_INDENT(2));
    puts(text ? text : "{}");
    free(text);
    json_decref(value);
}

const char *wb_cli_display_path(const char *path, char *buf, size_t cap) {
    char cwd[4096];
    size_t n;
    if (path[0] == '/' && getcwd(cwd, sizeof cwd) && (n = strlen(cwd)) > 1 && !strncmp(path, cwd, n) && path[n] == '/')
        snprintf(buf, cap, "%s", path + n + 1);
    else
        snprintf(buf, cap, "%s", path);
    return buf;
}
