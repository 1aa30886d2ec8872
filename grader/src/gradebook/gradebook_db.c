/*
 * gradebook_db.c: see gradebook_db.h. Each migration takes the schema from version i to i + 1 in
 * one BEGIN IMMEDIATE transaction that re-reads user_version first, so two importers opening a
 * new file at once apply each migration exactly once.
 */
#include "gradebook_db.h"

#include <stdio.h>
#include <string.h>

static const char *const MIGRATIONS[WB_GRADEBOOK_SCHEMA] = {
    /* 0 -> 1: the gradebook */
    "CREATE TABLE learners(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
    "CREATE TABLE submissions(id INTEGER PRIMARY KEY, sha256 TEXT NOT NULL UNIQUE,"
    "  learner_id INTEGER NOT NULL REFERENCES learners(id), file TEXT NOT NULL, grader_version TEXT NOT NULL,"
    "  imported_at TEXT NOT NULL);"
    "CREATE TABLE lessons(name TEXT PRIMARY KEY, position INTEGER NOT NULL, title TEXT NOT NULL, identity TEXT NOT NULL);"
    "CREATE TABLE questions(lesson TEXT NOT NULL REFERENCES lessons(name), id TEXT NOT NULL, variant TEXT,"
    "  range TEXT NOT NULL, ask TEXT NOT NULL, position INTEGER NOT NULL, PRIMARY KEY(lesson, id));"
    "CREATE TABLE facts(id INTEGER PRIMARY KEY, lesson TEXT NOT NULL, question TEXT NOT NULL, label TEXT NOT NULL,"
    "  kind TEXT NOT NULL CHECK(kind IN ('count', 'time', 'bound')), position INTEGER NOT NULL,"
    "  UNIQUE(lesson, question, label), FOREIGN KEY(lesson, question) REFERENCES questions(lesson, id));"
    "CREATE TABLE learner_lessons(learner_id INTEGER NOT NULL REFERENCES learners(id),"
    "  lesson TEXT NOT NULL REFERENCES lessons(name), submission_id INTEGER NOT NULL REFERENCES submissions(id),"
    "  status TEXT NOT NULL CHECK(status IN ('regraded', 'unverified')), revealed_first INTEGER NOT NULL,"
    "  attempts INTEGER NOT NULL, PRIMARY KEY(learner_id, lesson));"
    "CREATE TABLE attempts(learner_id INTEGER NOT NULL REFERENCES learners(id), fact_id INTEGER NOT NULL REFERENCES facts(id),"
    "  try TEXT NOT NULL CHECK(try IN ('first', 'latest')), predicted TEXT NOT NULL, actual TEXT, right INTEGER NOT NULL,"
    "  error_share REAL, submitted_right INTEGER NOT NULL, graded_against TEXT NOT NULL, source TEXT NOT NULL,"
    "  arch TEXT NOT NULL, gpu TEXT NOT NULL, graded_at TEXT NOT NULL,"
    "  submission_id INTEGER NOT NULL REFERENCES submissions(id), PRIMARY KEY(learner_id, fact_id, try));",
    /* 1 -> 2: one course per gradebook (submissions of another course are refused); a version-1
     * file gets its course at its next import (its lessons' identities are checked as before),
     * and the report reads attempts by fact */
    "CREATE TABLE course(one INTEGER PRIMARY KEY CHECK(one = 1), id TEXT NOT NULL, since TEXT NOT NULL);"
    "CREATE INDEX attempts_by_fact ON attempts(fact_id, try);",
};

int wb_gradebook_fail(sqlite3 *db, const char *fmt, wb_error *err) {
    const char *file = db ? sqlite3_db_filename(db, "main") : NULL;
    return wb_fail(err, WB_EXIT_INPUT, fmt, file && *file ? file : "gradebook", db ? sqlite3_errmsg(db) : _("out of memory"));
}

int wb_gradebook_exec(sqlite3 *db, const char *sql, wb_error *err) {
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK) return 0;
    const char *file = sqlite3_db_filename(db, "main");
    int rc = wb_fail(err, WB_EXIT_INPUT, "%s: %s", file && *file ? file : "gradebook", msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return rc;
}

int wb_gradebook_version(sqlite3 *db) {
    sqlite3_stmt *s;
    int v = -1;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    return v;
}

static int migrate(sqlite3 *db, const char *path, int target, wb_error *err) {
    for (;;) {
        if (wb_gradebook_exec(db, "BEGIN IMMEDIATE", err)) return err->code;
        int v = wb_gradebook_version(db);
        if (v < 0 || v > WB_GRADEBOOK_SCHEMA) {
            wb_gradebook_exec(db, "ROLLBACK", err);
            if (v < 0) return wb_gradebook_fail(db, _("%s: cannot read its schema version: %s"), err);
            return wb_fail(err, WB_EXIT_INPUT, _("%s: gradebook schema version %d, newer than this grader's %d: use the grader "
                           "that made it"), path, v, WB_GRADEBOOK_SCHEMA);
        }
        if (v >= target) return wb_gradebook_exec(db, "COMMIT", err);
        char bump[64];
        snprintf(bump, sizeof bump, "PRAGMA user_version = %d", v + 1);
        if (wb_gradebook_exec(db, MIGRATIONS[v], err) || wb_gradebook_exec(db, bump, err) ||
            wb_gradebook_exec(db, "COMMIT", err)) {
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
            return err->code;
        }
    }
}

/* WAL: readers (a report) never block the importers, and a crash leaves the last commit. WAL is a
 * property of the file, so only the first importer of a new gradebook converts it, and SQLite runs
 * no busy handler for that conversion: while another importer of the same new file holds its first
 * write, PRAGMA journal_mode = WAL answers SQLITE_BUSY at once. It is retried here, within the same
 * minute as the busy timeout; each try costs one statement. */
static int use_wal(sqlite3 *db, wb_error *err) {
    const int budget_ms = 60000;
    int waited_ms = 0, pause_ms = 1;
    for (;;) {
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &s, NULL) != SQLITE_OK)
            return wb_gradebook_fail(db, _("%s: not a gradebook (grader gradebook import makes one), or it cannot be written: "
                                           "%s"), err);
        int step = sqlite3_step(s);
        int wal = step == SQLITE_ROW && sqlite3_stricmp((const char *)sqlite3_column_text(s, 0), "wal") == 0;
        sqlite3_finalize(s);
        if (wal) return 0;
        if ((step != SQLITE_BUSY && step != SQLITE_LOCKED) || waited_ms >= budget_ms)
            return wb_gradebook_fail(db, _("%s: not a gradebook (grader gradebook import makes one), or it cannot be written: "
                                           "%s"), err);
        sqlite3_sleep(pause_ms);
        waited_ms += pause_ms;
        if (pause_ms < 100) pause_ms *= 2;
    }
}

int wb_gradebook_open_at(const char *path, int create, int target, sqlite3 **out, wb_error *err) {
    *out = NULL;
    sqlite3 *db = NULL;
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
        int rc = create ? wb_gradebook_fail(db, _("%s: cannot open or create the gradebook: %s"), err)
                        : wb_fail(err, WB_EXIT_INPUT, _("%s: no gradebook there (%s): import submissions into it first "
                                  "(grader gradebook import FILE... --db %s)"), path, db ? sqlite3_errmsg(db) : "?", path);
        sqlite3_close(db);
        return rc;
    }
    /* other importers hold the write lock for one submission at a time (milliseconds); a minute
     * of waiting is far beyond any import's transaction */
    sqlite3_busy_timeout(db, 60000);
    int rc = wb_gradebook_exec(db, "PRAGMA foreign_keys = ON", err);
    if (!rc) rc = use_wal(db, err);
    if (!rc) rc = wb_gradebook_exec(db, "PRAGMA synchronous = NORMAL", err);
    if (!rc) rc = migrate(db, path, target, err);
    if (rc) {
        sqlite3_close(db);
        return rc;
    }
    *out = db;
    return 0;
}

int wb_gradebook_open(const char *path, int create, sqlite3 **out, wb_error *err) {
    return wb_gradebook_open_at(path, create, WB_GRADEBOOK_SCHEMA, out, err);
}

void wb_gradebook_close(sqlite3 *db) { sqlite3_close(db); }
