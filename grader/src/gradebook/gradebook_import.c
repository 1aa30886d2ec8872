/* gradebook_import.c: see gradebook_import.h. */
#define _GNU_SOURCE
#include "gradebook_import.h"
#include "gradebook_db.h"
#include "wb_grade.h"
#include "wb_base.h"
#include "submission.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- regrading, before anything is written ---------------------------------------------------- */

typedef struct {
    json_t *json;
    wb_regraded first, latest;
} lesson_regrade;

static void regrades_free(lesson_regrade *l, size_t n) {
    for (size_t i = 0; l && i < n; i++) wb_regraded_free(&l[i].first), wb_regraded_free(&l[i].latest);
    free(l);
}

/* A replay is deterministic: the same predictions against the same recording give the same
 * result on any machine, so a submitted result that differs was edited. */
static int check_untampered(const char *path, const char *lesson, const char *try, const wb_regraded *g, wb_import_result *res,
                            wb_error *err) {
    for (size_t i = 0; i < g->n; i++) {
        const wb_regraded_fact *x = &g->facts[i];
        if (x->right == x->submitted_right) continue;
        if (!strcmp(x->source, "replay") && x->against == WB_AGAINST_RECORDING)
            return wb_fail(err, WB_EXIT_INPUT,
                           _("%s: lesson %s, question %s, fact %s: the %s try is submitted as %s, but its prediction (%s) "
                           "replayed against the course's recording %s is %s. The file was changed after grader submit "
                           "wrote it: nothing of it was imported; ask the learner to run grader submit again"),
                           path, lesson, x->question, x->label, try, x->submitted_right ? "right" : "wrong", x->predicted,
                           x->arch, x->right ? "right" : "wrong");
        if (x->against != WB_AGAINST_NOTHING) res->differ++;
    }
    return 0;
}

static int regrade_all(wb_regrader *r, const char *path, json_t *sub, lesson_regrade **out, size_t *n, wb_import_result *res,
                       wb_error *err) {
    json_t *lessons = json_object_get(sub, "lessons");
    *n = json_array_size(lessons);
    *out = calloc(*n + 1, sizeof **out);
    if (!*out) return wb_fail(err, WB_EXIT_INPUT, _("out of memory"));
    for (size_t i = 0; i < *n; i++) {
        lesson_regrade *l = &(*out)[i];
        l->json = json_array_get(lessons, i);
        const char *name = json_string_value(json_object_get(l->json, "lesson"));
        if (wb_regrade(r, path, l->json, "first", &l->first, err) || wb_regrade(r, path, l->json, "latest", &l->latest, err) ||
            check_untampered(path, name, "first", &l->first, res, err) ||
            check_untampered(path, name, "latest", &l->latest, res, err))
            return err->code;
        res->facts += l->first.n;
        for (size_t k = 0; k < l->first.n; k++) res->unverified += l->first.facts[k].against == WB_AGAINST_NOTHING;
    }
    res->lessons = *n;
    return 0;
}

/* ---- writing ----------------------------------------------------------------------------------- */

typedef struct {
    sqlite3 *db;
    wb_error *err;
    int rc;
} writer;

/* Runs sql with its parameters: "s" text (NULL binds NULL), "i" a long long, "d" a double (NAN binds
 * NULL). Returns the first column of the first row as an integer when want_row is set and there is
 * one (else -1), or -2 on failure (w->rc set). */
static long long run(writer *w, int want_row, const char *sql, const char *types, ...) {
    if (w->rc) return -2;
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(w->db, sql, -1, &s, NULL) != SQLITE_OK) {
        w->rc = wb_gradebook_fail(w->db, _("%s: cannot prepare a statement: %s"), w->err);
        return -2;
    }
    va_list ap;
    va_start(ap, types);
    for (int i = 0; types[i]; i++) {
        if (types[i] == 's') {
            const char *v = va_arg(ap, const char *);
            if (v) sqlite3_bind_text(s, i + 1, v, -1, SQLITE_TRANSIENT);
            else sqlite3_bind_null(s, i + 1);
        } else if (types[i] == 'i') {
            sqlite3_bind_int64(s, i + 1, va_arg(ap, long long));
        } else {
            double d = va_arg(ap, double);
            if (isnan(d)) sqlite3_bind_null(s, i + 1);
            else sqlite3_bind_double(s, i + 1, d);
        }
    }
    va_end(ap);
    int step = sqlite3_step(s);
    long long v = -1;
    if (step == SQLITE_ROW && want_row) v = sqlite3_column_int64(s, 0);
    else if (step != SQLITE_ROW && step != SQLITE_DONE) {
        w->rc = wb_gradebook_fail(w->db, _("%s: cannot write the gradebook: %s"), w->err);
        v = -2;
    }
    sqlite3_finalize(s);
    return v;
}

/* The text of the first column of the first row, into buf ("" when none). */
static void run_text(writer *w, const char *sql, const char *arg, char *buf, size_t cap) {
    buf[0] = '\0';
    sqlite3_stmt *s;
    if (w->rc || sqlite3_prepare_v2(w->db, sql, -1, &s, NULL) != SQLITE_OK) return;
    sqlite3_bind_text(s, 1, arg, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
        snprintf(buf, cap, "%s", (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
}

/* The course's lesson, its questions and their facts (what the lesson asks), once. */
static void write_lesson(writer *w, wb_regrader *r, const char *path, const char *name) {
    char have[WB_IDENTITY_CAP + 8];
    const char *identity = wb_course_identity_lesson(&r->identity, name);
    run_text(w, "SELECT identity FROM lessons WHERE name = ?", name, have, sizeof have);
    if (have[0]) {
        if (strcmp(have, identity) && !w->rc)
            w->rc = wb_fail(w->err, WB_EXIT_INPUT, _("%s: the gradebook holds lesson %s of another version of the course: start "
                            "a new gradebook (--db) for this course"), path, name);
        return;
    }
    const wb_lesson *l = wb_regrader_lesson(r, name, w->err);
    if (!l) {
        if (!w->rc) w->rc = w->err->code;
        return;
    }
    long long position = 0;
    for (size_t i = 0; i < r->identity.n; i++)
        if (!strcmp(r->identity.lessons[i], name)) position = (long long)i;
    run(w, 0, "INSERT INTO lessons(name, position, title, identity) VALUES (?, ?, ?, ?)", "siss", name, position,
        l->title ? l->title : "", identity);
    for (size_t q = 0; q < l->n_questions; q++) {
        const wb_question *x = &l->questions[q];
        run(w, 0, "INSERT OR IGNORE INTO questions(lesson, id, variant, range, ask, position) VALUES (?, ?, ?, ?, ?, ?)",
            "sssssi", name, x->id, x->variant, x->range, x->ask ? x->ask : "", (long long)q);
        for (size_t f = 0; f < x->n_facts; f++) {
            const char *kind = wb_fact_label_kind(x->facts[f]);
            run(w, 0, "INSERT OR IGNORE INTO facts(lesson, question, label, kind, position) VALUES (?, ?, ?, ?, ?)", "ssssi",
                name, x->id, x->facts[f], kind ? kind : "count", (long long)f);
        }
    }
}

/* The fact's id; a fact the lesson's questions do not list (the learner's file may ask more) is added. */
static long long fact_id(writer *w, const char *lesson, json_t *q, const wb_regraded_fact *x) {
    const char *sql = "SELECT id FROM facts WHERE lesson = ? AND question = ? AND label = ?";
    long long id = run(w, 1, sql, "sss", lesson, x->question, x->label);
    if (id != -1) return id;
    run(w, 0, "INSERT OR IGNORE INTO questions(lesson, id, variant, range, ask, position) VALUES (?, ?, ?, ?, '', 100000)",
        "ssss", lesson, x->question, json_string_value(json_object_get(q, "variant")),
        json_string_value(json_object_get(q, "range")));
    run(w, 0, "INSERT INTO facts(lesson, question, label, kind, position) VALUES (?, ?, ?, ?, 100000)", "ssss", lesson,
        x->question, x->label, x->kind);
    return run(w, 1, sql, "sss", lesson, x->question, x->label);
}

static void write_attempts(writer *w, long long learner, long long submission, const char *lesson, json_t *lesson_json,
                           const wb_regraded *g, const char *try) {
    size_t k = 0, i, j;
    json_t *q, *f;
    json_array_foreach(json_object_get(lesson_json, "questions"), i, q) json_array_foreach(json_object_get(q, "facts"), j, f) {
        const wb_regraded_fact *x = &g->facts[k++];
        long long fact = fact_id(w, lesson, q, x);
        run(w, 0,
            "INSERT INTO attempts(learner_id, fact_id, try, predicted, actual, right, error_share, submitted_right,"
            " graded_against, source, arch, gpu, graded_at, submission_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            "iisssidisssssi", learner, fact, try, x->predicted, x->actual[0] ? x->actual : NULL, (long long)x->right,
            x->error_share, (long long)x->submitted_right, x->against_text, x->source, x->arch, x->gpu, x->graded_at,
            submission);
    }
}

static int write_submission(writer *w, wb_regrader *r, const char *path, const char *sha, json_t *sub, lesson_regrade *lessons,
                            size_t n, wb_import_result *res) {
    char now[32], have[WB_IDENTITY_CAP + 8];
    wb_utc_now(now, sizeof now, NULL, 0);
    if (wb_gradebook_exec(w->db, "BEGIN IMMEDIATE", w->err)) return w->err->code;
    if (run(w, 1, "SELECT 1 FROM submissions WHERE sha256 = ?", "s", sha) == 1) {
        res->duplicate = 1;
        return wb_gradebook_exec(w->db, "ROLLBACK", w->err);
    }
    run_text(w, "SELECT id FROM course WHERE one = ?", "1", have, sizeof have);
    if (!have[0]) run(w, 0, "INSERT INTO course(one, id, since) VALUES (1, ?, ?)", "ss", r->identity.id, now);
    else if (strcmp(have, r->identity.id) && !w->rc)
        w->rc = wb_fail(w->err, WB_EXIT_INPUT, _("%s: the gradebook holds another course (%.19s...): start a new gradebook (--db) "
                        "for this course"), path, have);
    const char *learner = json_string_value(json_object_get(sub, "learner"));
    run(w, 0, "INSERT OR IGNORE INTO learners(name) VALUES (?)", "s", learner);
    long long learner_id = run(w, 1, "SELECT id FROM learners WHERE name = ?", "s", learner);
    run(w, 0, "INSERT INTO submissions(sha256, learner_id, file, grader_version, imported_at) VALUES (?, ?, ?, ?, ?)", "sisss",
        sha, learner_id, path, json_string_value(json_object_get(sub, "grader_version")), now);
    long long submission = run(w, 1, "SELECT id FROM submissions WHERE sha256 = ?", "s", sha);
    for (size_t i = 0; i < n && !w->rc; i++) {
        json_t *l = lessons[i].json;
        const char *name = json_string_value(json_object_get(l, "lesson"));
        write_lesson(w, r, path, name);
        long long attempts = json_integer_value(json_object_get(l, "attempts"));
        int kept = run(w, 1, "SELECT 1 FROM learner_lessons WHERE learner_id = ? AND lesson = ?", "is", learner_id, name) == 1;
        if (kept) {
            res->kept_first++;
            run(w, 0, "DELETE FROM attempts WHERE learner_id = ? AND try = 'latest' AND fact_id IN (SELECT id FROM facts WHERE lesson = ?)",
                "is", learner_id, name);
            run(w, 0, "UPDATE learner_lessons SET attempts = ? WHERE learner_id = ? AND lesson = ?", "iis", attempts, learner_id,
                name);
        } else {
            int unverified = 0;
            for (size_t k = 0; k < lessons[i].first.n; k++) unverified |= lessons[i].first.facts[k].against == WB_AGAINST_NOTHING;
            run(w, 0,
                "INSERT INTO learner_lessons(learner_id, lesson, submission_id, status, revealed_first, attempts)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                "isisii", learner_id, name, submission, unverified ? "unverified" : "regraded",
                (long long)json_is_true(json_object_get(l, "revealed_before_grading")), attempts);
            write_attempts(w, learner_id, submission, name, l, &lessons[i].first, "first");
        }
        write_attempts(w, learner_id, submission, name, l, &lessons[i].latest, "latest");
    }
    if (w->rc) {
        sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
        return w->rc;
    }
    snprintf(res->learner, sizeof res->learner, "%s", learner);
    return wb_gradebook_exec(w->db, "COMMIT", w->err) ? (sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL), w->err->code) : 0;
}

int wb_gradebook_import(sqlite3 *db, wb_regrader *r, const char *path, wb_import_result *res, wb_error *err) {
    memset(res, 0, sizeof *res);
    json_t *sub = NULL;
    char sha[WB_IDENTITY_CAP];
    lesson_regrade *lessons = NULL;
    size_t n = 0;
    int rc = wb_submission_load(path, &sub, sha, err);
    if (!rc) rc = wb_submission_check_course(path, sub, &r->identity, err);
    if (!rc) { /* the same file again: no need to regrade it (checked again inside the transaction) */
        writer w = {db, err, 0};
        res->duplicate = run(&w, 1, "SELECT 1 FROM submissions WHERE sha256 = ?", "s", sha) == 1;
        rc = w.rc;
        if (res->duplicate || rc) {
            json_decref(sub);
            return rc;
        }
    }
    if (!rc) rc = regrade_all(r, path, sub, &lessons, &n, res, err);
    if (!rc) {
        writer w = {db, err, 0};
        rc = write_submission(&w, r, path, sha, sub, lessons, n, res);
    }
    regrades_free(lessons, n);
    json_decref(sub);
    return rc;
}
