/* consent.c: see consent.h. */
#define _GNU_SOURCE
#include "consent.h"
#include "course.h"
#include "lesson.h"
#include "wb_base.h"
#include "progress.h"

#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int wb_can_ask(void) { return isatty(STDIN_FILENO) && isatty(STDERR_FILENO); }

int wb_confirm(const char *question) {
    char prompt[1024];
    snprintf(prompt, sizeof prompt, "%s [y/N]", question);
    wb_wrap_open(stderr, prompt, 0, 0, wb_term_width(stderr));
    fputc(' ', stderr);
    fflush(stderr);
    char *line = NULL;
    size_t cap = 0;
    int yes = 0;
    if (getline(&line, &cap, stdin) >= 0) {
        char *s = line + strspn(line, " \t");
        s[strcspn(s, " \t\r\n")] = '\0';
        yes = !strcasecmp(s, "y") || !strcasecmp(s, "yes");
    } else {
        fputc('\n', stderr);
    }
    free(line);
    return yes;
}

/* The root of the course that lesson belongs to, or -1 when it is no course's lesson. */
static int find_lesson_root(const char *lesson, const char *lesson_dir, const char *recording, char *root, size_t cap) {
    char dir[4400], yaml[4500];
    if (!lesson_dir && recording) { /* <lesson>/traces/sm_NN.json */
        char *real = realpath(recording, NULL);
        if (real) {
            snprintf(dir, sizeof dir, "%s", dirname(dirname(real)));
            free(real);
            snprintf(yaml, sizeof yaml, "%s/lesson.yaml", dir);
            char name[256];
            if (wb_file_exists(yaml) && !strcmp(wb_lesson_dir_name(dir, name, sizeof name), lesson)) lesson_dir = dir;
        }
    }
    if (lesson_dir) {
        wb_root_dir(lesson_dir, root, cap);
        return 0;
    }
    wb_error ignored = {0};
    if (wb_find_root(root, cap, &ignored)) return -1;
    snprintf(yaml, sizeof yaml, "%s/lessons/%s/lesson.yaml", root, lesson);
    return wb_file_exists(yaml) ? 0 : -1;
}

int wb_reveal_is_news(const char *lesson, const char *lesson_dir, const char *recording, char *state, size_t cap,
                      wb_error *err) {
    char root[4096];
    if (!lesson || !lesson[0] || find_lesson_root(lesson, lesson_dir, recording, root, sizeof root) != 0) return 0;
    json_t *progress = NULL;
    if (wb_state_dir(root, state, cap, err) || wb_progress_load(state, &progress, err)) return -1;
    json_t *e = json_object_get(json_object_get(progress, "lessons"), lesson);
    const char *s = json_string_value(json_object_get(e, "state"));
    int graded = json_object_get(e, "first_total") != NULL;
    int revealed = json_is_true(json_object_get(e, "revealed_without_predictions")) || (s && !strcmp(s, "revealed"));
    json_decref(progress);
    return !graded && !revealed;
}

int wb_reveal_gate(const char *lesson, const char *recording, const char *command, const char *what, int consent,
                   wb_error *err) {
    return wb_reveal_gate_at(lesson, NULL, recording, command, what, consent, err);
}

int wb_reveal_gate_at(const char *lesson, const char *lesson_dir, const char *recording, const char *command, const char *what,
                      int consent, wb_error *err) {
    char state[4200];
    int news = wb_reveal_is_news(lesson, lesson_dir, recording, state, sizeof state, err);
    if (news < 0) return err->code;
    if (!news) return 0;
    if (!consent && wb_can_ask()) {
        char text[1024];
        snprintf(text, sizeof text, _("Lesson %s is not graded yet: %s shows %s, which its questions ask you to predict. "
                 "Seeing them first is recorded in your progress, and a later score is then not a first try."), lesson, command,
                 what);
        wb_wrap(stderr, text, 0, 0, wb_term_width(stderr));
        consent = wb_confirm(_("Show them anyway?"));
        if (!consent)
            return wb_fail(err, WB_STOPPED, _("Nothing shown. Predict lesson %s first (grader check %s), then look again."),
                           lesson, lesson);
    }
    if (!consent)
        return wb_fail(err, WB_EXIT_INPUT, _("lesson %s is not graded yet, and %s would show %s before you predict them. "
                       "Run grader check %s first, or add --reveal to see them now (recorded in your progress: a later "
                       "score is then not a first try)"), lesson, command, what, lesson);
    return wb_progress_record_reveal(state, lesson, "recording", command, err);
}
