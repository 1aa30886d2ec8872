/*
 * cmd_lint.c: `grader lint`: lesson files checked against each other (lint.h), for one lesson or
 * the whole course. CI runs it over every lesson.
 */
#define _GNU_SOURCE
#include "wb_base.h"
#include "commands.h"
#include "wb_course.h"
#include "wb_grade.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char LINT_USAGE[] = N_(
    "usage: grader lint [LESSON...] [--format text|json]\n"
    "\n"
    "Checks lessons for instructors (every lesson of the course when none is given): lesson.yaml,\n"
    "the predictions template, the answer key and the recordings against each other. Every question\n"
    "in the template and answered for each verified architecture; template values all ~; the NVTX\n"
    "ranges of lesson.yaml exactly those the recordings hold; an explanation for every question; the\n"
    "key holds against the recordings (as grader verify --replay); and, graded against answers off by\n"
    "one, every question can be failed. docs/commands/lint.md lists every check.\n"
    "\n"
    "  --format text|json  json: one JSON object on stdout\n"
    "\n"
    "exit: 0 clean (warnings allowed), 1 problems found, 2 bad usage or a LESSON that is not a lesson\n");

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every lessons/NN_* folder, with or without lesson.yaml (the course itself skips the latter). */
static size_t lesson_folders(const char *root, char ***out) {
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/lessons", root);
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        const char *s = e->d_name;
        char path[4600];
        snprintf(path, sizeof path, "%s/%s", dir, s);
        if (!(s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9' && s[2] == '_') || !wb_is_dir(path)) continue;
        char **p = realloc(names, (n + 1) * sizeof *p);
        if (!p) break;
        names = p;
        char shown[4600];
        names[n++] = strdup(wb_cli_display_path(path, shown, sizeof shown));
    }
    if (d) closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str);
    *out = names;
    return n;
}

int cmd_lint(int argc, char **argv) {
    const char *format = "text"; /* text | json */
    char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    size_t n = 0;
    int rc = WB_EXIT_OK;
    wb_error err = {0};
    if (!dirs) return WB_EXIT_INPUT;
    const char **lessons = calloc((size_t)argc + 1, sizeof *lessons); /* folders, names or numbers */
    size_t n_lessons = 0;
    const wb_cli_option options[] = {{"--format", WB_CLI_FORMAT, .text = &format}};
    wb_cli_spec spec = {.command = "lint", .usage = LINT_USAGE, .options = options, .n_options = 1, .operands = lessons,
                        .n_operands = &n_lessons, .max_operands = (size_t)argc};
    rc = lessons ? wb_cli_parse(&spec, argc, argv) : WB_EXIT_INPUT;
    for (size_t i = 0; i < n_lessons && !rc; i++) {
        char dir[4096], shown[4200];
        if (wb_resolve_lesson(lessons[i], dir, sizeof dir, &err)) {
            wb_cli_error("lint", err.message);
            rc = err.code;
        } else {
            dirs[n++] = strdup(wb_cli_display_path(dir, shown, sizeof shown));
        }
    }
    free(lessons);
    if (!rc && n == 0) {
        char root[4096];
        free(dirs);
        dirs = NULL;
        if (wb_find_root(root, sizeof root, &err)) {
            wb_cli_error("lint", err.message);
            return err.code;
        }
        n = lesson_folders(root, &dirs);
        if (n == 0) wb_cli_print_linef(stderr, _("grader lint: %s/lessons holds no lesson folders (NN_name)\n"), root);
    }
    int json = !strcmp(format, "json");
    json_t *reports = json_array();
    size_t errors = 0, warnings = 0, pending = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        wb_lint_report r;
        char yaml[4200];
        snprintf(yaml, sizeof yaml, "%s/lesson.yaml", dirs[i]);
        int failed = wb_file_exists(yaml) ? wb_lint_lesson(dirs[i], &r) : wb_lint_not_a_lesson(dirs[i], &r);
        if (failed) {
            fprintf(stderr, "%s", _("grader lint: out of memory\n"));
            rc = WB_EXIT_INPUT;
        }
        errors += r.errors;
        warnings += r.warnings;
        pending += r.pending;
        if (json) {
            json_array_append_new(reports, wb_lint_report_json(&r));
        } else {
            wb_lint_report_print(stdout, &r);
            printf("%s%s: %s%s", r.errors ? wb_red(stdout) : wb_green(stdout), r.lesson, r.errors ? "" : _("clean"), wb_reset(stdout));
            if (r.errors) printf(wb_ngettext("%zu error", "%zu errors", r.errors), r.errors);
            if (r.warnings) printf("%s", r.errors ? _(", ") : " ("), printf(wb_ngettext("%zu warning", "%zu warnings", r.warnings), r.warnings);
            if (r.pending)
                printf("%s", r.errors || r.warnings ? _(", ") : " ("), printf(_("%zu pending (a draft: it needs a GPU for them)"), r.pending);
            printf("%s\n", (r.warnings || r.pending) && !r.errors ? ")" : "");
        }
        wb_lint_report_free(&r);
    }
    if (!rc) {
        if (json) {
            wb_cli_print_json(json_pack("{s:b, s:I, s:I, s:I, s:o}", "clean", errors == 0, "errors", (json_int_t)errors,
                                        "warnings", (json_int_t)warnings, "pending", (json_int_t)pending, "lessons", reports));
            reports = NULL;
        } else if (n > 1) {
            printf(_("\nlint: %zu lessons, "), n);
            printf(wb_ngettext("%zu error", "%zu errors", errors), errors);
            printf("%s", _(", "));
            printf(wb_ngettext("%zu warning", "%zu warnings", warnings), warnings);
            printf(_(", %zu pending\n"), pending);
        }
        rc = errors ? WB_EXIT_WRONG : WB_EXIT_OK;
    }
    json_decref(reports);
    for (size_t i = 0; dirs && i < n; i++) free(dirs[i]);
    free(dirs);
    return rc < 0 ? WB_EXIT_OK : rc;
}
