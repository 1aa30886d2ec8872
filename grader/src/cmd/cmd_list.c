/*
 * cmd_list.c: `grader list` (the course and where the learner stands) and `grader hint` (the
 * lesson's hints, one at a time). Both read the learner's progress file; hint also writes it.
 */
#define _GNU_SOURCE
#include "wb_base.h"
#include "commands.h"
#include "wb_course.h"
#include "wb_predict.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char LIST_USAGE[] = N_(
    "usage: grader list [--format text|json]\n"
    "\n"
    "Lists the course's lessons in course order with where you stand in each: not started, in\n"
    "progress, predicted (every value filled in, not graded yet), graded with its score, regraded\n"
    "(the predictions changed after their first grading: the first-try score is kept and shown\n"
    "beside the latest one), or revealed (the trace was shown before any grading). A lesson with\n"
    "parts (its PyTorch questions, say) has a row for each other part, checked with --part NAME.\n"
    "Progress is read from .workbench/progress.json (safe to delete: it only forgets scores).\n"
    "\n"
    "  --format text|json  json: one JSON object on stdout\n"
    "\n"
    "exit: 0 listed, 2 bad usage, or a lesson.yaml that cannot be read (the others are still listed)\n");

const char HINT_USAGE[] = N_(
    "usage: grader hint LESSON [QUESTION]\n"
    "\n"
    "Shows the lesson's next hint, one per call: for QUESTION (a question id of the lesson), or else\n"
    "for the first question you have not predicted yet that still has hints. Your progress file\n"
    "remembers how many you have seen; grader list shows the count. LESSON is a lesson folder, its\n"
    "name (01_matmul_add) or its number (01).\n"
    "\n"
    "exit: 0 a hint was shown (or none is left, which it says), 2 bad usage or input\n");

/* ---- list ------------------------------------------------------------------------------------- */

static void score_text(const wb_lesson_status *s, char *buf, size_t cap) {
    buf[0] = '\0';
    switch (s->state) {
    case WB_STATE_GRADED:
        snprintf(buf, cap, "%ld/%ld", s->right, s->total);
        if (s->first_total >= 0 && (s->first_right != s->right || s->first_total != s->total))
            snprintf(buf + strlen(buf), cap - strlen(buf), _(" (first try %ld/%ld)"), s->first_right, s->first_total);
        else if (!s->revealed_first)
            snprintf(buf + strlen(buf), cap - strlen(buf), "%s", _(" first try"));
        if (s->revealed_first) snprintf(buf + strlen(buf), cap - strlen(buf), "%s", _(", after seeing the trace"));
        break;
    case WB_STATE_REGRADED:
        snprintf(buf, cap, _("%ld/%ld now, first try %ld/%ld%s"), s->right, s->total, s->first_right, s->first_total,
                 s->edited_since_grading ? _(" (edited since the last grading)") : "");
        break;
    case WB_STATE_IN_PROGRESS: snprintf(buf, cap, _("%ld of %ld values predicted"), s->filled, s->facts); break;
    case WB_STATE_PREDICTED: snprintf(buf, cap, "%s", _("ready to check")); break;
    case WB_STATE_REVEALED: snprintf(buf, cap, "%s", _("trace seen before predicting")); break;
    case WB_STATE_NOT_STARTED:
        if (s->facts < 0 && !s->note[0]) snprintf(buf, cap, "%s", _("no predictions template"));
        break;
    case WB_STATE_BROKEN: snprintf(buf, cap, "%s", s->note); break;
    }
    if (s->state == WB_STATE_GRADED && s->edited_since_grading)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s", _(" (edited since the last grading)"));
    if (s->graded_from[0] && (s->state == WB_STATE_GRADED || s->state == WB_STATE_REGRADED)) {
        const char *base = strrchr(s->graded_from, '/');
        snprintf(buf + strlen(buf), cap - strlen(buf), _(", graded from %s"), base ? base + 1 : s->graded_from);
    }
    const char *sep = buf[0] ? _(", ") : "";
    if (s->first_total >= 0 && s->state == WB_STATE_NOT_STARTED)
        snprintf(buf + strlen(buf), cap - strlen(buf), _("%sfirst try %ld/%ld kept"), sep, s->first_right, s->first_total);
    else if (s->first_total >= 0 && (s->state == WB_STATE_IN_PROGRESS || s->state == WB_STATE_PREDICTED))
        snprintf(buf + strlen(buf), cap - strlen(buf), _("%sstarted again; first try %ld/%ld kept"), sep, s->first_right,
                 s->first_total);
    if (s->hints_shown > 0)
        snprintf(buf + strlen(buf), cap - strlen(buf), wb_ngettext("%s%ld hint", "%s%ld hints", (unsigned long)s->hints_shown),
                 buf[0] ? _(", ") : "", s->hints_shown);
}

/* A row's name: the lesson's, or for its other parts the option that checks them. */
static const char *row_name(const wb_lesson_status *s, char *buf, size_t cap) {
    if (s->part[0]) snprintf(buf, cap, "  --part %s", s->part);
    else snprintf(buf, cap, "%s", s->name);
    return buf;
}

static const char *state_color(FILE *f, const wb_lesson_status *s) {
    if (s->state == WB_STATE_GRADED && s->right == s->total) return wb_green(f);
    if (s->state == WB_STATE_BROKEN) return wb_red(f);
    if (s->state == WB_STATE_NOT_STARTED) return wb_dim(f);
    return "";
}

static json_t *status_json(const wb_lesson_status *s) {
    json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "lesson", s->name, "title", s->title, "dir", s->dir, "state",
                          wb_lesson_state_name(s->state));
#define SET_INT(key, v) json_object_set_new(o, key, (v) >= 0 ? json_integer(v) : json_null())
    SET_INT("right", s->right);
    SET_INT("total", s->total);
    SET_INT("first_right", s->first_right);
    SET_INT("first_total", s->first_total);
    SET_INT("attempts", s->attempts);
    SET_INT("predicted", s->filled);
    SET_INT("facts", s->facts);
#undef SET_INT
    json_object_set_new(o, "hints_shown", json_integer(s->hints_shown));
    json_object_set_new(o, "revealed_before_grading", json_boolean(s->revealed_first));
    json_object_set_new(o, "edited_since_grading", json_boolean(s->edited_since_grading));
    if (s->note[0]) json_object_set_new(o, "note", json_string(s->note));
    return o;
}

int cmd_list(int argc, char **argv) {
    const char *format = "text"; /* text | json */
    const wb_cli_option options[] = {{"--format", WB_CLI_FORMAT, .text = &format}};
    wb_cli_spec spec = {.command = "list", .usage = LIST_USAGE, .options = options, .n_options = 1, .unknown = N_("unexpected argument %s")};
    int parsed = wb_cli_parse(&spec, argc, argv);
    if (parsed) return parsed == WB_CLI_HELP ? WB_EXIT_OK : parsed;
    wb_error err = {0};
    char root[4096], state[4096];
    wb_course course;
    json_t *progress = NULL;
    if (wb_find_root(root, sizeof root, &err) || wb_course_load(root, &course, &err)) {
        wb_cli_error("list", err.message);
        return err.code;
    }
    if (wb_state_dir(root, state, sizeof state, &err) || wb_progress_load(state, &progress, &err)) {
        wb_cli_error("list", err.message);
        wb_course_free(&course);
        return err.code;
    }
    size_t drafts = wb_course_drop_drafts(&course); /* for instructors: grader lint lists them */
    wb_lesson_status *s = NULL;
    size_t n = 0; /* rows: each lesson's main part, then its other parts */
    if (wb_course_statuses((const char *const *)course.dirs, course.n, progress, &s, &n)) {
        fprintf(stderr, "grader list: %s\n", _("out of memory"));
        free(s);
        json_decref(progress);
        wb_course_free(&course);
        return WB_EXIT_INPUT;
    }
    size_t broken = 0;
    for (size_t i = 0; i < n; i++) broken += s[i].state == WB_STATE_BROKEN;
    long next = wb_next_lesson(s, n);
    char shown[4200];
    if (!strcmp(format, "json")) {
        json_t *lessons = json_array(), *last = NULL;
        for (size_t i = 0; i < n; i++) {
            if (!s[i].part[0]) {
                json_array_append_new(lessons, last = status_json(&s[i]));
                continue;
            }
            json_t *parts = json_object_get(last, "parts"), *p = status_json(&s[i]);
            if (!parts) json_object_set_new(last, "parts", parts = json_array());
            json_object_set_new(p, "part", json_string(s[i].part));
            json_array_append_new(parts, p);
        }
        wb_cli_print_json(json_pack("{s:s, s:o, s:o, s:o}", "root", root, "lessons", lessons, "next",
                                    next >= 0 ? json_string(s[next].dir) : json_null(), "next_part",
                                    next >= 0 && s[next].part[0] ? json_string(s[next].part) : json_null()));
    } else {
        char head[4400];
        snprintf(head, sizeof head, wb_ngettext("Course in %s: %zu lesson", "Course in %s: %zu lessons", course.n), root, course.n);
        fputs(wb_bold(stdout), stdout);
        wb_wrap_open(stdout, head, 0, 2, wb_term_width(stdout));
        printf("%s\n", wb_reset(stdout));
        /* two lines a lesson, both within the terminal's width: name, state and score, then the title */
        /* a lesson's other parts: a row of their own under its title, named as check takes them */
        int width = wb_term_width(stdout), name_w = 4;
        char name[300];
        for (size_t i = 0; i < n; i++)
            if ((int)strlen(row_name(&s[i], name, sizeof name)) > name_w) name_w = (int)strlen(name) < 24 ? (int)strlen(name) : 24;
        for (size_t i = 0; i < n; i++) {
            char score[1200], title[1024];
            row_name(&s[i], name, sizeof name);
            score_text(&s[i], score, sizeof score);
            const char *state_name = s[i].state == WB_STATE_NOT_STARTED && s[i].first_total >= 0 ? _("started again")
                                                                                                  : C_("lesson state", wb_lesson_state_name(s[i].state));
            int state_w = (int)wb_columns(state_name) > 13 ? (int)wb_columns(state_name) : 13;
            printf("%s %-*s %s", (long)i == next ? ">" : " ", name_w, name, state_color(stdout, &s[i]));
            wb_pad(stdout, state_name, 13);
            printf("%s ", wb_reset(stdout));
            int col = 1 + 1 + (name_w > (int)strlen(name) ? name_w : (int)strlen(name)) + 1 + state_w + 1;
            wb_wrap(stdout, score[0] ? score : "-", col, col, width);
            if (s[i].part[0]) continue;
            wb_truncate(s[i].title, (size_t)(width - 4), title, sizeof title);
            printf("    %s%s%s\n", wb_dim(stdout), title, wb_reset(stdout));
        }
        if (course.n == 0) printf("  %s\n", _("(no lessons: folders lessons/NN_name with a lesson.yaml)"));
        if (drafts)
            printf(wb_ngettext("  (%zu draft lesson not listed: lesson.yaml says draft: true)\n",
                               "  (%zu draft lessons not listed: lesson.yaml says draft: true)\n", drafts), drafts);
        if (next >= 0) printf(_("\nNext: grader check %s%s%s\n"), wb_cli_display_path(s[next].dir, shown, sizeof shown),
                              s[next].part[0] ? " --part " : "", s[next].part);
        else if (course.n) printf("\n%s\n", _("Every lesson is graded."));
    }
    for (size_t i = 0; i < n; i++)
        if (s[i].state == WB_STATE_BROKEN && !s[i].part[0]) wb_cli_error("list", s[i].note);
    free(s);
    json_decref(progress);
    wb_course_free(&course);
    return broken ? WB_EXIT_INPUT : WB_EXIT_OK;
}

/* ---- hint ------------------------------------------------------------------------------------- */

static int run_hint(const char *lesson_arg, const char *question_id, wb_error *err) {
    char dir[4096], root[4096], state[4096];
    if (wb_resolve_lesson(lesson_arg, dir, sizeof dir, err)) return err->code;
    wb_lesson l;
    if (wb_lesson_load(dir, &l, err)) return err->code;
    json_t *progress = NULL;
    int rc = 0, lock = -1; /* concurrent hints and checks take turns on the progress file */
    wb_root_dir(l.dir, root, sizeof root);
    if ((rc = wb_state_dir(root, state, sizeof state, err))) goto out;
    if ((lock = wb_progress_lock(state, err)) < 0) {
        rc = err->code;
        goto out;
    }
    if ((rc = wb_progress_load(state, &progress, err))) goto out;
    json_t *entry = wb_progress_lesson(progress, l.lesson);

    char path[4200];
    wb_prediction_set p;
    wb_error perr = {0};
    int have_p = wb_predictions_to_read(l.dir, path, sizeof path) == 0 && wb_predictions_load(path, &p, &perr) == 0;

    const wb_question *q = NULL;
    if (question_id) {
        q = wb_lesson_question(&l, question_id);
        if (!q) {
            char ids[2048] = "";
            for (size_t i = 0; i < l.n_questions; i++)
                snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "%s%s", i ? ", " : "", l.questions[i].id);
            rc = wb_fail_at(err, WB_EXIT_INPUT, l.path, 0, 0, _("lesson %s has no question '%s' (its questions: %s)"), l.lesson,
                            question_id, ids);
            goto out_p;
        }
    } else {
        q = wb_hint_pick(&l, have_p ? &p : NULL, entry);
        if (!q) {
            size_t total = 0;
            for (size_t i = 0; i < l.n_questions; i++) total += l.questions[i].n_hints;
            if (total == 0) printf(_("Lesson %s has no hints.\n"), l.lesson);
            else printf(_("No hints left in lesson %s: you have seen all %zu. grader hint %s QUESTION shows a question's "
                          "hints again.\n"), l.lesson, total, l.lesson);
            goto out_p;
        }
    }
    if (q->n_hints == 0) {
        printf(_("Question '%s' of lesson %s has no hints.\n"), q->id, l.lesson);
        goto out_p;
    }
    long index = wb_hint_take(entry, q);
    if (index < 0) {
        printf(_("No more hints for '%s': you have seen all %zu.\n"), q->id, q->n_hints);
        for (size_t i = 0; i < q->n_hints; i++)
            printf("  %zu. ", i + 1), wb_wrap(stdout, wb_question_hint(&l, q, i), 5, 5, wb_term_width(stdout));
        goto out_p;
    }
    if ((rc = wb_progress_save(state, progress, err))) goto out_p;
    printf("%s", wb_bold(stdout));
    printf(_("Hint %ld of %zu%s for '%s' (range %s%s%s):\n"), index + 1, q->n_hints, wb_reset(stdout), q->id, q->range,
           q->variant ? _(", variant ") : "", q->variant ? q->variant : "");
    fputs("  Q: ", stdout);
    wb_wrap(stdout, wb_question_ask(&l, q), 5, 5, wb_term_width(stdout)); /* questions and hints wrap at word boundaries */
    fputs("  ", stdout);
    wb_wrap(stdout, wb_question_hint(&l, q, (size_t)index), 2, 2, wb_term_width(stdout));
    if ((size_t)index + 1 < q->n_hints)
        printf(_("%zu more: grader hint %s %s\n"), q->n_hints - (size_t)index - 1, l.lesson, q->id);
    else
        printf(_("That was the last hint for '%s'.\n"), q->id);
out_p:
    if (have_p) wb_predictions_free(&p);
out:
    wb_progress_unlock(lock);
    json_decref(progress);
    wb_lesson_free(&l);
    return rc;
}

int cmd_hint(int argc, char **argv) {
    const char *words[2] = {NULL, NULL}; /* the lesson, and the question (NULL: the next one) */
    size_t n = 0;
    wb_cli_spec spec = {.command = "hint", .usage = HINT_USAGE, .operands = words, .n_operands = &n, .max_operands = 2, .min_operands = 1,
                        .missing = N_("which lesson? e.g. grader hint 01_matmul_add")};
    int parsed = wb_cli_parse(&spec, argc, argv);
    if (parsed) return parsed == WB_CLI_HELP ? WB_EXIT_OK : parsed;
    const char *lesson = words[0], *question = words[1];
    wb_error err = {0};
    int rc = run_hint(lesson, question, &err);
    if (err.code) wb_cli_error("hint", err.message);
    return rc;
}
