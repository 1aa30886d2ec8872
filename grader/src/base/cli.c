#define _GNU_SOURCE
/* cli.c: see cli.h. */
#include "cli.h"
#include "error.h"
#include "i18n.h"
#include "paths.h"
#include "term.h"
#include "text_fit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int wb_cli_usage_error(const char *command, const char *usage, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "grader %s: ", command);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n\n%s", _(usage));
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

int wb_cli_finish(const char *command, int rc, const char *message) {
    if (rc != WB_STOPPED) {
        wb_cli_error(command, message);
        return rc;
    }
    fputc('\n', stdout);
    wb_wrap(stdout, message, 0, 2, wb_term_width(stdout));
    return WB_EXIT_OK;
}

void wb_cli_print_line(FILE *f, const char *text, int col, int indent) {
    if (wb_i18n_is_ja()) {
        wb_wrap(f, text, col, indent, wb_term_width(f));
    } else {
        fputs(text, f);
        fputc('\n', f);
    }
}

void wb_cli_print_linef(FILE *f, const char *format, ...) {
    char *text = NULL;
    va_list ap;
    va_start(ap, format);
    int n = vasprintf(&text, format, ap);
    va_end(ap);
    if (n < 0) { /* out of memory: the format itself, which names what happened */
        fputs(format, f);
        return;
    }
    if (n > 0 && text[n - 1] == '\n') text[n - 1] = '\0';
    wb_cli_print_line(f, text, 0, 2);
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

/* ---- the parser ------------------------------------------------------------------------------ */

/* "--name VALUE" or "--name=VALUE" at argv[*i]: 1 with *value (NULL when VALUE is missing),
 * advancing *i past a separate VALUE; 0 when argv[*i] is another word. */
static int take_value(int argc, char **argv, int *i, const char *name, const char **value) {
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

/* --replay, --replay=TRACE, or --replay TRACE where TRACE is a file or ends in .json. */
static int take_replay(int argc, char **argv, int *i, const wb_cli_option *o) {
    size_t n = strlen(o->name);
    if (strncmp(argv[*i], o->name, n) != 0 || (argv[*i][n] != '\0' && argv[*i][n] != '=')) return 0;
    *o->flag = 1;
    if (argv[*i][n] == '=') {
        *o->text = argv[*i] + n + 1;
        return 1;
    }
    if (*i + 1 < argc) {
        const char *next = argv[*i + 1];
        size_t len = strlen(next);
        if (next[0] != '-' && (wb_exists_not_dir(next) || (len > 5 && !strcmp(next + len - 5, ".json")))) {
            *o->text = next;
            ++*i;
        }
    }
    return 1;
}

/* The value of a valued option into its place; 0, or the usage error. */
static int take(const wb_cli_spec *s, const wb_cli_option *o, const char *v) {
    switch (o->kind) {
    case WB_CLI_TEXT:
        if (!v || !*v) {
            if (o->bad) return wb_cli_usage_error(s->command, s->usage, "%s", _(o->bad));
            return wb_cli_usage_error(s->command, s->usage, _("%s needs a value"), o->name);
        }
        *o->text = v;
        return 0;
    case WB_CLI_FORMAT:
        if (!wb_cli_format_ok(v)) {
            if (o->bad) return wb_cli_usage_error(s->command, s->usage, "%s", _(o->bad));
            return v ? wb_cli_usage_error(s->command, s->usage, _("%s is text or json, not %s"), o->name, v)
                     : wb_cli_usage_error(s->command, s->usage, _("%s is text or json"), o->name);
        }
        *o->text = v;
        return 0;
    case WB_CLI_COUNT: {
        char *end;
        long n = v && *v ? strtol(v, &end, 10) : 0;
        if (!v || !*v || *end || n < o->min || n > o->max) {
            if (o->bad) return wb_cli_usage_error(s->command, s->usage, "%s", _(o->bad));
            return wb_cli_usage_error(s->command, s->usage, _("%s takes a count from %d to %d"), o->name, o->min, o->max);
        }
        *o->count = (int)n;
        return 0;
    }
    case WB_CLI_FLAG:
    case WB_CLI_REPLAY: break;
    }
    return 0;
}

int wb_cli_parse(const wb_cli_spec *s, int argc, char **argv) {
    if (s->n_operands) *s->n_operands = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(_(s->usage), stdout);
            return WB_CLI_HELP;
        }
        int matched = 0;
        for (size_t k = 0; k < s->n_options && !matched; k++) {
            const wb_cli_option *o = &s->options[k];
            const char *v = NULL;
            if (o->kind == WB_CLI_FLAG) {
                if ((matched = !strcmp(a, o->name))) *o->flag = 1;
            } else if (o->kind == WB_CLI_REPLAY) {
                matched = take_replay(argc, argv, &i, o);
            } else if ((matched = take_value(argc, argv, &i, o->name, &v))) {
                int rc = take(s, o, v);
                if (rc) return rc;
            }
        }
        if (matched) continue;
        if (a[0] == '-' && (!s->dash_operands || a[1] == '-'))
            return wb_cli_usage_error(s->command, s->usage, s->unknown ? _(s->unknown) : _("unknown option %s"), a);
        if (!s->n_operands || *s->n_operands >= s->max_operands)
            return wb_cli_usage_error(s->command, s->usage, s->too_many ? _(s->too_many) : _("unexpected argument %s"), a);
        s->operands[(*s->n_operands)++] = a;
    }
    if ((s->n_operands ? *s->n_operands : 0) < s->min_operands) return wb_cli_usage_error(s->command, s->usage, "%s", _(s->missing));
    return 0;
}

int wb_cli_global_options(int *argc, char **argv, const char **lang) {
    *lang = NULL;
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        if (!strcmp(argv[i], "--")) { /* the rest belongs to the command */
            while (i < *argc) argv[out++] = argv[i++];
            break;
        }
        const char *v = NULL;
        if (take_value(*argc, argv, &i, "--lang", &v)) {
            if (!v || (strcmp(v, "ja") && strcmp(v, "en"))) {
                wb_i18n_init(NULL); /* no language given: the environment's says it */
                if (v) fprintf(stderr, _("grader: --lang is ja or en, not %s\n"), v);
                else fputs(_("grader: --lang is ja or en\n"), stderr);
                return WB_EXIT_INPUT;
            }
            *lang = v;
            continue;
        }
        argv[out++] = argv[i];
    }
    argv[out] = NULL;
    *argc = out;
    return 0;
}
