/* course_status.c: see course_status.h. */
#include "course_status.h"
#include "learner_files.h"
#include "lesson.h"
#include "wb_predict.h"
#include "progress.h"

#include <stdio.h>
#include <string.h>

const char *wb_lesson_state_name(wb_lesson_state s) {
    switch (s) {
    case WB_STATE_NOT_STARTED: return N_("not started");
    case WB_STATE_IN_PROGRESS: return N_("in progress");
    case WB_STATE_PREDICTED: return N_("predicted");
    case WB_STATE_GRADED: return N_("graded");
    case WB_STATE_REGRADED: return N_("regraded");
    case WB_STATE_REVEALED: return N_("revealed");
    case WB_STATE_BROKEN: return N_("broken");
    }
    return "?";
}

static long get_long(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (long)json_integer_value(v) : -1;
}

static long hints_total(json_t *entry) {
    json_t *h = json_object_get(entry, "hints_shown");
    const char *key;
    json_t *v;
    long n = 0;
    json_object_foreach(h, key, v) if (json_is_integer(v)) n += (long)json_integer_value(v);
    return n;
}

void wb_lesson_status_get(const char *lesson_dir, json_t *progress, wb_lesson_status *s) {
    memset(s, 0, sizeof *s);
    s->right = s->total = s->first_right = s->first_total = s->filled = s->facts = -1;
    snprintf(s->dir, sizeof s->dir, "%s", lesson_dir);
    wb_lesson_dir_name(lesson_dir, s->name, sizeof s->name);

    wb_lesson lesson;
    wb_error err = {0};
    if (wb_lesson_load(lesson_dir, &lesson, &err)) {
        s->state = WB_STATE_BROKEN;
        snprintf(s->note, sizeof s->note, "%s", err.message);
        return;
    }
    snprintf(s->title, sizeof s->title, "%s", wb_lesson_title_text(&lesson));
    wb_lesson_free(&lesson);

    /* the predictions file as it is now */
    char path[4200], hash[64] = "";
    wb_prediction_set p;
    wb_error perr = {0};
    int have_file = wb_predictions_to_read(lesson_dir, path, sizeof path) == 0 && wb_hash_file(path, hash, sizeof hash) == 0;
    if (have_file && wb_predictions_load(path, &p, &perr) == 0) {
        s->facts = 0;
        for (size_t i = 0; i < p.n; i++) s->facts += (long)p.items[i].n_facts;
        s->filled = s->facts - (long)wb_predictions_open(&p);
        wb_predictions_free(&p);
    } else if (have_file) {
        snprintf(s->note, sizeof s->note, "%s", perr.message);
    }

    json_t *entry = json_object_get(json_object_get(progress, "lessons"), s->name);
    const char *state = json_string_value(json_object_get(entry, "state"));
    s->hints_shown = hints_total(entry);
    s->attempts = get_long(entry, "attempts");
    s->revealed_first = json_is_true(json_object_get(entry, "revealed_without_predictions"));
    if (state && !strcmp(state, "graded")) {
        s->right = get_long(entry, "right");
        s->total = get_long(entry, "total");
        s->first_right = get_long(entry, "first_right");
        s->first_total = get_long(entry, "first_total");
        const char *first_hash = json_string_value(json_object_get(entry, "first_hash"));
        const char *last_hash = json_string_value(json_object_get(entry, "predictions_hash"));
        /* The lock: a file that is not the one first graded cannot hold a first-try score. A
         * missing file says nothing either way: the recorded scores stand as recorded. */
        int changed = have_file && first_hash && *first_hash && strcmp(hash, first_hash) != 0;
        if (!changed && first_hash && last_hash && strcmp(first_hash, last_hash) != 0) changed = 1;
        s->state = changed ? WB_STATE_REGRADED : WB_STATE_GRADED;
        s->edited_since_grading = have_file && last_hash && strcmp(hash, last_hash) != 0;
        /* graded from another file (check --predictions): the lesson's own file says nothing about
         * edits since; that file does */
        const char *other = json_string_value(json_object_get(entry, "predictions_file"));
        if (other && *other) {
            char other_hash[64] = "";
            snprintf(s->graded_from, sizeof s->graded_from, "%s", other);
            s->edited_since_grading = last_hash && wb_hash_file(other, other_hash, sizeof other_hash) == 0 &&
                                      strcmp(other_hash, last_hash) != 0;
            if (s->state == WB_STATE_REGRADED && first_hash && last_hash && !strcmp(first_hash, last_hash) && !s->edited_since_grading)
                s->state = WB_STATE_GRADED;
        }
        return;
    }
    if (state && !strcmp(state, "reset")) { /* started again: the file says where, the first try stays */
        s->first_right = get_long(entry, "first_right");
        s->first_total = get_long(entry, "first_total");
    }
    if (state && !strcmp(state, "revealed")) {
        s->state = WB_STATE_REVEALED;
        return;
    }
    if (s->facts > 0 && s->filled == s->facts) s->state = WB_STATE_PREDICTED;
    else if (s->filled > 0) s->state = WB_STATE_IN_PROGRESS;
    else s->state = WB_STATE_NOT_STARTED;
}

long wb_next_lesson(const wb_lesson_status *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (s[i].state != WB_STATE_GRADED && s[i].state != WB_STATE_REGRADED) return (long)i;
    return -1;
}
