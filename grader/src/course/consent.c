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

/* The lesson's parts a reveal of variant shows (NULL or "": all of them) into parts; the lesson
 * read from its folder under root (a lesson that does not read has its main part only). */
static size_t parts_shown(const char *root, const char *lesson_dir, const char *lesson, const char *variant, const char **parts,
                          size_t cap, wb_lesson *l, int *loaded) {
    char dir[4400];
    wb_error ignored = {0};
    if (lesson_dir) snprintf(dir, sizeof dir, "%s", lesson_dir);
    else snprintf(dir, sizeof dir, "%s/lessons/%s", root, lesson);
    *loaded = wb_lesson_load(dir, l, &ignored) == 0;
    if (!*loaded) {
        parts[0] = WB_MAIN_PART;
        return 1;
    }
    if (variant && *variant && wb_lesson_variant(l, variant)) {
        parts[0] = wb_lesson_variant_part(l, variant);
        return 1;
    }
    size_t n = wb_lesson_parts(l, parts, cap);
    return n < cap ? n : cap;
}

/* 1 when the part's captured facts would be news: neither graded nor revealed before. */
static int part_is_news(json_t *lesson_entry, const char *part) {
    json_t *e = wb_progress_part(lesson_entry, part);
    const char *s = json_string_value(json_object_get(e, "state"));
    int graded = json_object_get(e, "first_total") != NULL;
    int revealed = json_is_true(json_object_get(e, "revealed_without_predictions")) || (s && !strcmp(s, "revealed"));
    return !graded && !revealed;
}

/* The news parts among those variant shows into news (names borrowed from l); their count, or
 * -1 with err set. */
static int news_parts(const char *lesson, const char *lesson_dir, const char *recording, const char *variant, char *state,
                      size_t cap, wb_lesson *l, int *loaded, const char **news, wb_error *err) {
    char root[4096];
    *loaded = 0;
    if (!lesson || !lesson[0] || find_lesson_root(lesson, lesson_dir, recording, root, sizeof root) != 0) return 0;
    json_t *progress = NULL;
    if (wb_state_dir(root, state, cap, err) || wb_progress_load(state, &progress, err)) return -1;
    const char *parts[WB_MAX_PARTS];
    size_t n = parts_shown(root, lesson_dir, lesson, variant, parts, WB_MAX_PARTS, l, loaded);
    json_t *e = json_object_get(json_object_get(progress, "lessons"), lesson);
    int k = 0;
    for (size_t i = 0; i < n; i++)
        if (part_is_news(e, parts[i])) news[k++] = parts[i];
    json_decref(progress);
    return k;
}

int wb_reveal_is_news(const char *lesson, const char *lesson_dir, const char *recording, char *state, size_t cap,
                      wb_error *err) {
    return wb_reveal_is_news_variant(lesson, lesson_dir, recording, NULL, state, cap, err);
}

int wb_reveal_is_news_variant(const char *lesson, const char *lesson_dir, const char *recording, const char *variant, char *state,
                              size_t cap, wb_error *err) {
    wb_lesson l;
    int loaded;
    const char *news[WB_MAX_PARTS];
    int n = news_parts(lesson, lesson_dir, recording, variant, state, cap, &l, &loaded, news, err);
    if (loaded) wb_lesson_free(&l);
    return n < 0 ? -1 : n > 0;
}

int wb_reveal_gate(const char *lesson, const char *recording, const char *command, const char *what, int consent,
                   wb_error *err) {
    return wb_reveal_gate_variant(lesson, NULL, recording, NULL, command, what, consent, err);
}

int wb_reveal_gate_at(const char *lesson, const char *lesson_dir, const char *recording, const char *command, const char *what,
                      int consent, wb_error *err) {
    return wb_reveal_gate_variant(lesson, lesson_dir, recording, NULL, command, what, consent, err);
}

int wb_reveal_gate_variant(const char *lesson, const char *lesson_dir, const char *recording, const char *variant,
                           const char *command, const char *what, int consent, wb_error *err) {
    char state[4200];
    wb_lesson l;
    int loaded;
    const char *news[WB_MAX_PARTS];
    int n = news_parts(lesson, lesson_dir, recording, variant, state, sizeof state, &l, &loaded, news, err);
    int rc = n < 0 ? err->code : 0;
    char which[300] = ""; /* "" for the main part alone, else " (its part pytorch)" */
    if (n == 1 && strcmp(news[0], WB_MAIN_PART)) /* TRANSLATORS: after a lesson's number, "Lesson 03_linear (its part pytorch) is not graded yet" */
        snprintf(which, sizeof which, _(" (its part %s)"), news[0]);
    if (n > 0 && !consent && wb_can_ask()) {
        char text[1024];
        snprintf(text, sizeof text, _("Lesson %s%s is not graded yet: %s shows %s, which its questions ask you to predict. "
                 "Seeing them first is recorded in your progress, and a later score is then not a first try."), lesson, which,
                 command, what);
        wb_wrap(stderr, text, 0, 0, wb_term_width(stderr));
        consent = wb_confirm(_("Show them anyway?"));
        if (!consent)
            rc = wb_fail(err, WB_STOPPED, _("Nothing shown. Predict lesson %s%s first (grader check %s%s%s), then look again."),
                         lesson, which, lesson, which[0] ? " --part " : "", which[0] ? news[0] : "");
    }
    if (n > 0 && !rc && !consent)
        rc = wb_fail(err, WB_EXIT_INPUT, _("lesson %s%s is not graded yet, and %s would show %s before you predict them. "
                     "Run grader check %s%s%s first, or add --reveal to see them now (recorded in your progress: a later "
                     "score is then not a first try)"), lesson, which, command, what, lesson, which[0] ? " --part " : "",
                     which[0] ? news[0] : "");
    for (int i = 0; n > 0 && !rc && i < n; i++) rc = wb_progress_record_reveal_part(state, lesson, news[i], "recording", command, err);
    if (loaded) wb_lesson_free(&l);
    return rc;
}
