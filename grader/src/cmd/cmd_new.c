/*
 * cmd_new.c: the instructor's commands that write lesson files: `grader new` (a new lesson folder,
 * new_lesson.h) and `grader template` (the predictions template made from lesson.yaml,
 * template.h).
 */
#define _GNU_SOURCE
#include "wb_base.h"
#include "commands.h"
#include "wb_course.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char NEW_USAGE[] = N_(
    "usage: grader new NAME [--number NN] [--title TEXT]\n"
    "\n"
    "Creates lessons/NN_NAME/ for a new lesson: main.cu (a program skeleton with NVTX ranges and a\n"
    "profiled window), CMakeLists.txt, lesson.yaml, predictions.template.yaml (made from it)\n"
    "and a README.md outline, plus expectations/NN_NAME.yaml, an answer key with no answers yet,\n"
    "marked unverified. NN is the next free number unless NAME starts with one (05_attention) or\n"
    "--number gives it. The build picks the folder up by itself (lessons/CMakeLists.txt globs NN_*\n"
    "folders). Nothing that exists is overwritten.\n"
    "\n"
    "  --number NN   the lesson's place in the course (1 to 99; refused when taken)\n"
    "  --title TEXT  the one-line title (default: a TODO, which grader lint reports)\n"
    "\n"
    "exit: 0 created, 2 bad usage, a bad name, or a lesson by that name or number exists\n");

const char TEMPLATE_USAGE[] = N_(
    "usage: grader template LESSON [--write]\n"
    "\n"
    "Prints the predictions template made from the lesson's lesson.yaml: every question as a\n"
    "prediction with each asked value ~ and the question as a comment above it. grader lint checks\n"
    "the shipped predictions.template.yaml against the same rules (learners answer in a copy of it,\n"
    "predictions.yaml, that grader check makes). LESSON is a lesson folder, name or number.\n"
    "\n"
    "  --write  write it to LESSON/predictions.template.yaml (refused when that file exists)\n"
    "\n"
    "exit: 0 printed or written, 2 bad usage or input\n");

int cmd_new(int argc, char **argv) {
    const char *name = NULL, *title = NULL; /* the lesson's name; its title (NULL: a TODO) */
    int number = -1;                        /* -1: the next free one */
    const wb_cli_option options[] = {
        {"--number", WB_CLI_COUNT, .count = &number, .min = 1, .max = 99, .bad = N_("--number takes 1 to 99")},
        {"--title", WB_CLI_TEXT, .text = &title, .bad = N_("--title needs a text")},
    };
    size_t n_names = 0;
    wb_cli_spec spec = {.command = "new", .usage = NEW_USAGE, .options = options, .n_options = 2, .operands = &name,
                        .n_operands = &n_names, .max_operands = 1, .min_operands = 1,
                        .missing = N_("give the lesson a name, e.g. grader new attention"),
                        .too_many = N_("one lesson at a time (also got %s)")};
    int parsed = wb_cli_parse(&spec, argc, argv);
    if (parsed) return parsed == WB_CLI_HELP ? WB_EXIT_OK : parsed;
    wb_error err = {0};
    char root[4096], dir[4600];
    if (wb_find_root(root, sizeof root, &err)) {
        wb_cli_error("new", err.message);
        return err.code;
    }
    wb_new_lesson req = {root, name, number, title};
    if (wb_new_lesson_create(&req, dir, sizeof dir, &err)) {
        wb_cli_error("new", err.message);
        return err.code;
    }
    char lesson[256], path[512];
    wb_lesson_dir_name(dir, lesson, sizeof lesson);
    int w = (int)strlen(lesson) + 35; /* "lessons/NAME/predictions.template.yaml" */
    static const struct { const char *file, *what; } files[] = {
        {"main.cu", N_("program skeleton: replace the computation, keep the structure")},
        {"CMakeLists.txt", N_("builds the program (wb_add_lesson)")},
        {"lesson.yaml", N_("variants, NVTX ranges, questions and hints")},
        {WB_TEMPLATE_FILE, N_("the predictions template (grader template remakes it from lesson.yaml)")},
        {"README.md", N_("the lesson text, with its <!-- reveal --> line")},
    };
    printf(_("Created lesson %s in %s:\n"), lesson, root);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "lessons/%s/%s", lesson, files[i].file);
        printf("  %-*s ", w, path);
        wb_cli_print_line(stdout, _(files[i].what), w + 3, w + 3);
    }
    snprintf(path, sizeof path, "expectations/%s.yaml", lesson);
    printf("  %-*s ", w, path);
    wb_cli_print_line(stdout, _("the answer key: no answers yet, marked unverified"), w + 3, w + 3);
    printf(_("Next:\n"
           "  1. cmake --build build && build/bin/lesson_%s\n"
           "     builds it (the build picks the new folder up) and runs it: it checks its own result\n"
           "  2. on a GPU: grader record lessons/%s\n"
           "     the recording that learners without a GPU (and grader lint) replay\n"
           "  3. write the answers into expectations/%s.yaml, check them with\n"
           "     grader verify lessons/%s --replay, mark them verified, and run\n"
           "     grader lint lessons/%s until it is clean\n"),
           lesson, lesson, lesson, lesson, lesson);
    return WB_EXIT_OK;
}

int cmd_template(int argc, char **argv) {
    const char *lesson_arg = NULL; /* folder, name or number */
    int write = 0;                 /* --write: into LESSON/predictions.template.yaml */
    const wb_cli_option options[] = {{"--write", WB_CLI_FLAG, .flag = &write}};
    size_t n_lessons = 0;
    wb_cli_spec spec = {.command = "template", .usage = TEMPLATE_USAGE, .options = options, .n_options = 1, .operands = &lesson_arg,
                        .n_operands = &n_lessons, .max_operands = 1, .min_operands = 1,
                        .missing = N_("which lesson? e.g. grader template 01_matmul_add"),
                        .too_many = N_("one lesson at a time (also got %s)")};
    int parsed = wb_cli_parse(&spec, argc, argv);
    if (parsed) return parsed == WB_CLI_HELP ? WB_EXIT_OK : parsed;
    wb_error err = {0};
    char dir[4096];
    wb_lesson l;
    if (wb_resolve_lesson(lesson_arg, dir, sizeof dir, &err) || wb_lesson_load(dir, &l, &err)) {
        wb_cli_error("template", err.message);
        return err.code;
    }
    char *text = wb_predictions_template(&l);
    int rc = WB_EXIT_OK;
    if (!text) {
        fputs(_("grader template: out of memory\n"), stderr);
        rc = WB_EXIT_INPUT;
    } else if (!write) {
        fputs(text, stdout);
    } else {
        char path[4200];
        wb_template_path(l.dir, path, sizeof path);
        FILE *f = fopen(path, "wx"); /* never replaces a file: it may hold an instructor's edits */
        if (!f) {
            fprintf(stderr, "grader template: %s: %s\n", path,
                    errno == EEXIST ? _("exists already; remove it first or print the template without --write")
                                    : strerror(errno));
            rc = WB_EXIT_INPUT;
        } else {
            size_t n = strlen(text);
            int ok = fwrite(text, 1, n, f) == n;
            if (fclose(f) != 0 || !ok) {
                fprintf(stderr, _("grader template: %s: cannot write it\n"), path);
                rc = WB_EXIT_INPUT;
            } else {
                printf(_("Wrote %s\n"), path);
            }
        }
    }
    free(text);
    wb_lesson_free(&l);
    return rc;
}
