/*
 * cmd_submit.c: `grader submit`, the learner's side of the gradebook (docs/gradebook.md). It
 * writes one JSON file from the learner's progress: the course's identity, and per lesson the
 * first and latest grading of every fact (submission.h). The same progress gives the same file.
 */
#define _GNU_SOURCE
#include "wb_base.h"
#include "commands.h"
#include "wb_course.h"
#include "wb_gradebook.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char SUBMIT_USAGE[] = N_(
    "usage: grader submit [LESSON...] [--name NAME] [--out FILE]\n"
    "\n"
    "Writes your submission for the instructor: one JSON file with the course's identity and, per\n"
    "lesson you graded, each fact's first and latest grading (what you predicted, what ran, right or\n"
    "wrong, live or replayed, on which GPU, when). LESSON: only these lessons (default: every lesson\n"
    "you graded). The same progress always gives the same file.\n"
    "\n"
    "  --name NAME  your name as the instructor knows it (default: $WB_LEARNER, else your login)\n"
    "  --out FILE   where to write it (default: submission.json in the current folder)\n"
    "\n"
    "exit: 0 written, 2 bad usage, a lesson not graded yet, or a file that cannot be written\n");

#ifndef WB_VERSION
#define WB_VERSION "unknown"
#endif

static int name_ok(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > 200) return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) return 0;
    return 1;
}

/* Writes text to path through a temporary file and a rename: never half a submission. */
static int write_whole(const char *path, const char *text, wb_error *err) {
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.partial.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    size_t n = strlen(text);
    int ok = fd >= 0 && write(fd, text, n) == (ssize_t)n && fsync(fd) == 0;
    if (fd >= 0) ok = close(fd) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) {
        int e = errno;
        unlink(tmp);
        return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot write the submission (%s): give another --out FILE"), path, strerror(e));
    }
    return 0;
}

static int run_submit(const char *const *args, size_t n_args, const char *name, const char *out_path, wb_error *err) {
    char root[4096], state[4096];
    if (wb_find_root(root, sizeof root, err) || wb_state_dir(root, state, sizeof state, err)) return err->code;
    char **names = calloc(n_args + 1, sizeof *names);
    if (!names) return wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory"));
    int rc = 0;
    for (size_t i = 0; i < n_args && !rc; i++) {
        char dir[4096], lesson[256];
        if (!(rc = wb_resolve_lesson(args[i], dir, sizeof dir, err)))
            names[i] = strdup(wb_lesson_dir_name(dir, lesson, sizeof lesson));
    }
    wb_course_identity course = {0};
    json_t *progress = NULL, *submission = NULL;
    if (!rc) rc = wb_course_identity_get(root, &course, err);
    if (!rc) rc = wb_progress_load(state, &progress, err);
    if (!rc) rc = wb_submission_build(&course, progress, (const char *const *)names, n_args, name, WB_VERSION, stderr,
                                      &submission, err);
    if (!rc) {
        char *text = json_dumps(submission, JSON_INDENT(1) | JSON_SORT_KEYS);
        rc = text ? write_whole(out_path, text, err) : wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory"));
        if (text) {
            size_t facts = 0, i, j;
            json_t *l, *q;
            json_array_foreach(json_object_get(submission, "lessons"), i, l)
                json_array_foreach(json_object_get(l, "questions"), j, q) facts += json_array_size(json_object_get(q, "facts"));
            if (!rc)
                printf(wb_ngettext("Wrote %s: %zu lesson, %zu facts, for %s. Hand this file to your instructor as it is.\n",
                                   "Wrote %s: %zu lessons, %zu facts, for %s. Hand this file to your instructor as it is.\n",
                                   json_array_size(json_object_get(submission, "lessons"))),
                       out_path, json_array_size(json_object_get(submission, "lessons")), facts, name);
        }
        free(text);
    }
    json_decref(submission);
    json_decref(progress);
    wb_course_identity_free(&course);
    for (size_t i = 0; i < n_args; i++) free(names[i]);
    free(names);
    return rc;
}

int cmd_submit(int argc, char **argv) {
    const char *name = getenv("WB_LEARNER"); /* --name; else the login name below */
    const char *out = "submission.json";     /* --out */
    const char **lessons = calloc((size_t)argc + 1, sizeof *lessons);
    size_t n = 0;
    if (!lessons) return fprintf(stderr, "grader submit: %s\n", _("out of memory")), WB_EXIT_INPUT;
    const wb_cli_option options[] = {{"--name", WB_CLI_TEXT, .text = &name}, {"--out", WB_CLI_TEXT, .text = &out}};
    wb_cli_spec spec = {.command = "submit", .usage = SUBMIT_USAGE, .options = options, .n_options = 2, .operands = lessons,
                        .n_operands = &n, .max_operands = (size_t)argc};
    int rc = wb_cli_parse(&spec, argc, argv);
    if (rc == WB_CLI_HELP) rc = WB_EXIT_OK;
    else if (!rc) {
        if (!name || !*name) {
            struct passwd *pw = getpwuid(getuid());
            name = pw ? pw->pw_name : NULL;
        }
        if (!name || !name_ok(name)) {
            rc = wb_cli_usage_error("submit", SUBMIT_USAGE, "%s",
                                    _("give your name with --name NAME (1 to 200 characters, no control characters)"));
        } else {
            wb_error err = {0};
            rc = run_submit(lessons, n, name, out, &err);
            if (err.code) fprintf(stderr, "grader submit: %s\n", err.message);
        }
    }
    free(lessons);
    return rc;
}
