/* course_status.c: see course_status.h. */
#include "course_status.h"
#include "learner_files.h"
#include "lesson.h"
#include "lesson_parts.h"
#include "wb_predict.h"
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *wb_lesson_state_name(wb_lesson_state s) {
    switch (s) {
    case WB_STATE_NOT_STARTED: return NC_("lesson state", "not started");
    case WB_STATE_IN_PROGRESS: return NC_("lesson state", "in progress");
    case WB_STATE_PREDICTED: return NC_("lesson state", "predicted");
    case WB_STATE_GRADED: return NC_("lesson state", "graded");
    case WB_STATE_REGRADED: return NC_("lesson state", "regraded");
    case WB_STATE_REVEALED: return NC_("lesson state", "revealed");
    case WB_STATE_BROKEN: return NC_("lesson state", "broken");
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

static void part_state(wb_lesson_status *s, const wb_lesson *lesson, json_t *lesson_entry, int have_file, const char *hash,
                       const wb_prediction_set *view);

void wb_lesson_status_get(const char *lesson_dir, json_t *progress, wb_lesson_status *s) {
    wb_lesson_status_get_part(lesson_dir, NULL, progress, s);
}

void wb_lesson_status_get_part(const char *lesson_dir, const char *part, json_t *progress, wb_lesson_status *s) {
    memset(s, 0, sizeof *s);
    s->right = s->total = s->first_right = s->first_total = s->filled = s->facts = -1;
    s->parts = 1;
    snprintf(s->dir, sizeof s->dir, "%s", lesson_dir);
    if (part && strcmp(part, WB_MAIN_PART)) snprintf(s->part, sizeof s->part, "%s", part);
    wb_lesson_dir_name(lesson_dir, s->name, sizeof s->name);

    wb_lesson lesson;
    wb_error err = {0};
    if (wb_lesson_load(lesson_dir, &lesson, &err)) {
        s->state = WB_STATE_BROKEN;
        snprintf(s->note, sizeof s->note, "%s", err.message);
        return;
    }
    snprintf(s->title, sizeof s->title, "%s", wb_lesson_title_text(&lesson));
    const char *parts[WB_MAX_PARTS];
    s->parts = (long)wb_lesson_parts(&lesson, parts, WB_MAX_PARTS);

    /* the predictions file as it is now: of a lesson with parts, this part's predictions */
    char path[4200], hash[64] = "";
    wb_prediction_set p, view = {0};
    wb_error perr = {0};
    int have_file = wb_predictions_to_read(lesson_dir, path, sizeof path) == 0 && wb_hash_file(path, hash, sizeof hash) == 0;
    int have_view = 0;
    if (have_file && wb_predictions_load(path, &p, &perr) == 0) {
        have_view = wb_predictions_of_part(&p, &lesson, part ? part : WB_MAIN_PART, &view) == 0;
        s->facts = 0;
        for (size_t i = 0; have_view && i < view.n; i++) s->facts += (long)view.items[i].n_facts;
        s->filled = have_view ? s->facts - (long)wb_predictions_open(&view) : -1;
    } else if (have_file) {
        snprintf(s->note, sizeof s->note, "%s", perr.message);
    }
    part_state(s, &lesson, json_object_get(json_object_get(progress, "lessons"), s->name), have_file, hash, have_view ? &view : NULL);
    if (have_view) free(view.items);
    if (have_file && !perr.code) wb_predictions_free(&p);
    wb_lesson_free(&lesson);
}

/* 1 when the predictions file at path (graded with --predictions) still matches recorded. */
static int other_file_matches(const char *path, const wb_lesson *lesson, const char *part, const char *recorded) {
    char hash[64] = "";
    if (wb_hash_file(path, hash, sizeof hash) != 0) return 0;
    wb_prediction_set p, view;
    wb_error ignored = {0};
    if (wb_predictions_load(path, &p, &ignored)) return wb_part_hash_matches(recorded, NULL, hash);
    int matches = wb_predictions_of_part(&p, lesson, part, &view) == 0 && wb_part_hash_matches(recorded, &view, hash);
    free(view.items);
    wb_predictions_free(&p);
    return matches;
}

/* The state of one part from its progress and the predictions as they are now. */
static void part_state(wb_lesson_status *s, const wb_lesson *lesson, json_t *lesson_entry, int have_file, const char *hash,
                       const wb_prediction_set *view) {
    json_t *entry = wb_progress_part(lesson_entry, s->part[0] ? s->part : NULL);
    const char *state = json_string_value(json_object_get(entry, "state"));
    s->hints_shown = s->part[0] ? 0 : hints_total(lesson_entry); /* hints are the lesson's: shown on its first row */
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
         * missing file says nothing either way: the recorded scores stand as recorded. (A
         * part's lock is its own answers: lesson_parts.h.) */
        int changed = have_file && first_hash && *first_hash && !wb_part_hash_matches(first_hash, view, hash);
        if (!changed && first_hash && last_hash && strcmp(first_hash, last_hash) != 0) changed = 1;
        s->state = changed ? WB_STATE_REGRADED : WB_STATE_GRADED;
        s->edited_since_grading = have_file && last_hash && !wb_part_hash_matches(last_hash, view, hash);
        /* graded from another file (check --predictions): the lesson's own file says nothing about
         * edits since; that file does */
        const char *other = json_string_value(json_object_get(entry, "predictions_file"));
        if (other && *other) {
            snprintf(s->graded_from, sizeof s->graded_from, "%s", other);
            s->edited_since_grading = last_hash && wb_file_exists(other) &&
                                      !other_file_matches(other, lesson, s->part[0] ? s->part : WB_MAIN_PART, last_hash);
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

int wb_course_statuses(const char *const *lesson_dirs, size_t n_lessons, json_t *progress, wb_lesson_status **out, size_t *n) {
    size_t cap = n_lessons + 1;
    *n = 0;
    *out = calloc(cap, sizeof **out);
    if (!*out) return -1;
    for (size_t i = 0; i < n_lessons; i++) {
        wb_lesson_status main_part;
        wb_lesson_status_get(lesson_dirs[i], progress, &main_part);
        wb_lesson lesson;
        wb_error ignored = {0};
        const char *parts[WB_MAX_PARTS];
        size_t n_parts = main_part.parts > 1 && wb_lesson_load(lesson_dirs[i], &lesson, &ignored) == 0
                             ? wb_lesson_parts(&lesson, parts, WB_MAX_PARTS) : 1;
        wb_lesson_status *more = realloc(*out, (cap += n_parts) * sizeof **out);
        if (!more) {
            if (n_parts > 1) wb_lesson_free(&lesson);
            return -1;
        }
        *out = more;
        (*out)[(*n)++] = main_part;
        for (size_t k = 1; k < n_parts && k < WB_MAX_PARTS; k++) wb_lesson_status_get_part(lesson_dirs[i], parts[k], progress, &(*out)[(*n)++]);
        if (n_parts > 1) wb_lesson_free(&lesson);
    }
    return 0;
}

long wb_next_lesson(const wb_lesson_status *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (s[i].state != WB_STATE_GRADED && s[i].state != WB_STATE_REGRADED) return (long)i;
    return -1;
}
