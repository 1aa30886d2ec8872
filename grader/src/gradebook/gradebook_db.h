/*
 * gradebook_db.h: the instructor's gradebook, one SQLite file (Debian's libsqlite3). Its schema
 * is versioned by SQLite's user_version and brought up to date by migrations, each applied in its
 * own transaction when the file is opened (docs/gradebook.md lists the tables):
 *
 *   learners         a name each
 *   submissions      each file imported: its SHA-256 (so the same file twice changes nothing)
 *   lessons          the course's lessons and their identity (course_identity.h)
 *   questions, facts what each lesson asks
 *   learner_lessons  per learner and lesson: regraded or unverified, revealed before grading
 *   attempts         per learner, fact and try (first, latest): predicted, actual, right as
 *                    regraded, right as submitted, and what it was graded against
 *   course           (version 2) the one course the gradebook holds
 *
 * Several importers may run at once: the file is in WAL mode, writers wait for each other (busy
 * timeout) and each import is one BEGIN IMMEDIATE transaction.
 */
#ifndef WB_GRADEBOOK_DB_H
#define WB_GRADEBOOK_DB_H

#include "wb_base.h"

#include <sqlite3.h>

#define WB_GRADEBOOK_SCHEMA 2

/* Opens (creating it when create is set) the gradebook at path and migrates it to
 * WB_GRADEBOOK_SCHEMA; a file made by a newer grader, or that is no SQLite database, is refused
 * (exit 2, naming it). */
int wb_gradebook_open(const char *path, int create, sqlite3 **out, wb_error *err);
/* The same, migrating only up to version target (tests of the migrations). */
int wb_gradebook_open_at(const char *path, int create, int target, sqlite3 **out, wb_error *err);
void wb_gradebook_close(sqlite3 *db);

/* The schema version of an open gradebook. */
int wb_gradebook_version(sqlite3 *db);

/* Runs sql (statements without results); exit 2 with the gradebook's path and SQLite's message. */
int wb_gradebook_exec(sqlite3 *db, const char *sql, wb_error *err);

/* Exit 2 naming the gradebook's file, with SQLite's message for what failed. fmt is the whole
 * sentence, translated, with two %s: the file, then SQLite's message, as in
 * _("%s: cannot read the gradebook: %s"); a sentence per failure, never a fragment pasted into
 * one, so that each language can order its words. */
int wb_gradebook_fail(sqlite3 *db, const char *fmt, wb_error *err) __attribute__((format(printf, 2, 0)));

#endif
