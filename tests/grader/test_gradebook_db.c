/*
 * test_gradebook_db.c: the gradebook's schema and its migrations. A new file gets the latest
 * schema; a version-1 file (made by migrating only that far) keeps every row when it is brought
 * to the latest; a migration that fails leaves the file at its version, unchanged; a file of a
 * newer grader, or no database at all, is refused naming it; two processes opening a new file at
 * once both succeed and migrate it once.
 */
#include "course_fixture.h"
#include "gradebook_db.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[4200], path[4400];

static void setup(void) {
    fixture_temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/gb.db", dir);
}
static void teardown(void) { fixture_remove(dir); }
TestSuite(gradebook_db, .init = setup, .fini = teardown);

static long long scalar(sqlite3 *db, const char *sql) {
    sqlite3_stmt *s;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(db));
    long long v = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
    sqlite3_finalize(s);
    return v;
}

static void exec(sqlite3 *db, const char *sql) {
    char *msg = NULL;
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK, "%s: %s", sql, msg ? msg : "");
}

/* One row in every table of version 1. */
static const char V1_ROWS[] =
    "INSERT INTO learners(id, name) VALUES (1, 'Ada');"
    "INSERT INTO submissions VALUES (1, 'sha256:aa', 1, 'ada.json', '0.1.0', '2026-12-01T10:00:00Z');"
    "INSERT INTO lessons VALUES ('01_matmul_add', 0, 'y = x @ w + b', 'sha256:bb');"
    "INSERT INTO questions VALUES ('01_matmul_add', 'eager-step-kernels', 'eager', 'step', 'How many?', 0);"
    "INSERT INTO facts(id, lesson, question, label, kind, position) VALUES (1, '01_matmul_add', 'eager-step-kernels', 'kernels', 'count', 0);"
    "INSERT INTO learner_lessons VALUES (1, '01_matmul_add', 1, 'regraded', 0, 2);"
    "INSERT INTO attempts VALUES (1, 1, 'first', '3', '2', 0, NULL, 0, 'recording sm_90', 'replay', 'sm_90', 'NVIDIA H200', "
    "'2026-12-01T09:00:00Z', 1);";

Test(gradebook_db, a_new_file_gets_the_latest_schema) {
    sqlite3 *db;
    wb_error err = {0};
    cr_assert_eq(wb_gradebook_open(path, 1, &db, &err), 0, "%s", err.message);
    cr_expect_eq(wb_gradebook_version(db), WB_GRADEBOOK_SCHEMA);
    cr_expect_eq(scalar(db, "SELECT count(*) FROM sqlite_master WHERE name IN ('learners', 'submissions', 'lessons', "
                            "'questions', 'facts', 'learner_lessons', 'attempts', 'course', 'attempts_by_fact')"), 9);
    wb_gradebook_close(db);
}

Test(gradebook_db, version_1_keeps_its_rows_through_the_migrations) {
    sqlite3 *db;
    wb_error err = {0};
    cr_assert_eq(wb_gradebook_open_at(path, 1, 1, &db, &err), 0, "%s", err.message);
    cr_assert_eq(wb_gradebook_version(db), 1);
    cr_expect_eq(scalar(db, "SELECT count(*) FROM sqlite_master WHERE name = 'course'"), 0);
    exec(db, V1_ROWS);
    wb_gradebook_close(db);

    cr_assert_eq(wb_gradebook_open(path, 0, &db, &err), 0, "%s", err.message);
    cr_expect_eq(wb_gradebook_version(db), WB_GRADEBOOK_SCHEMA);
    const char *tables[] = {"learners", "submissions", "lessons", "questions", "facts", "learner_lessons", "attempts"};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", tables[i]);
        cr_expect_eq(scalar(db, sql), 1, "table %s lost its row", tables[i]);
    }
    cr_expect_eq(scalar(db, "SELECT right FROM attempts WHERE learner_id = 1 AND try = 'first'"), 0);
    /* version 2: the course table, empty until the next import sets it, and the index */
    cr_expect_eq(scalar(db, "SELECT count(*) FROM course"), 0);
    cr_expect_eq(scalar(db, "SELECT count(*) FROM sqlite_master WHERE name = 'attempts_by_fact'"), 1);
    exec(db, "INSERT INTO course VALUES (1, 'sha256:cc', '2026-12-02T00:00:00Z')");
    wb_gradebook_close(db);
}

Test(gradebook_db, a_failed_migration_leaves_the_file_at_its_version) {
    sqlite3 *db;
    wb_error err = {0};
    cr_assert_eq(wb_gradebook_open_at(path, 1, 1, &db, &err), 0, "%s", err.message);
    exec(db, V1_ROWS);
    exec(db, "CREATE TABLE course(x)"); /* migration 2 cannot create its table now */
    wb_gradebook_close(db);
    cr_assert_eq(wb_gradebook_open(path, 0, &db, &err), WB_EXIT_INPUT);
    cr_expect(strstr(err.message, path), "the message does not name the file: %s", err.message);
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_expect_eq(wb_gradebook_version(db), 1);
    cr_expect_eq(scalar(db, "SELECT count(*) FROM sqlite_master WHERE name = 'attempts_by_fact'"), 0);
    cr_expect_eq(scalar(db, "SELECT count(*) FROM attempts"), 1);
    sqlite3_close(db);
}

Test(gradebook_db, refuses_a_newer_schema_and_files_that_are_no_gradebook) {
    sqlite3 *db;
    wb_error err = {0};
    cr_assert_eq(wb_gradebook_open(path, 1, &db, &err), 0, "%s", err.message);
    exec(db, "PRAGMA user_version = 99");
    wb_gradebook_close(db);
    cr_expect_eq(wb_gradebook_open(path, 0, &db, &err), WB_EXIT_INPUT);
    cr_expect(strstr(err.message, path) && strstr(err.message, "newer"), "%s", err.message);

    char junk[4500];
    snprintf(junk, sizeof junk, "%s/junk.db", dir);
    FILE *f = fopen(junk, "w");
    fputs("this is not a database, but it is long enough to have a header of sorts..........................\n", f);
    fclose(f);
    wb_error err2 = {0};
    cr_expect_eq(wb_gradebook_open(junk, 1, &db, &err2), WB_EXIT_INPUT);
    cr_expect(strstr(err2.message, junk), "%s", err2.message);

    char missing[4500];
    snprintf(missing, sizeof missing, "%s/missing.db", dir);
    wb_error err3 = {0};
    cr_expect_eq(wb_gradebook_open(missing, 0, &db, &err3), WB_EXIT_INPUT);
    cr_expect(strstr(err3.message, missing) && strstr(err3.message, "import"), "%s", err3.message);
    cr_expect(access(missing, F_OK) != 0, "opening without create made the file");
}

Test(gradebook_db, two_processes_open_a_new_file_at_once) {
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            sqlite3 *db;
            wb_error err = {0};
            int rc = wb_gradebook_open(path, 1, &db, &err);
            if (!rc) wb_gradebook_close(db);
            _exit(rc);
        }
    }
    for (int k = 0; k < 2; k++) {
        int status;
        waitpid(kids[k], &status, 0);
        cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "opener %d failed", k);
    }
    sqlite3 *db;
    wb_error err = {0};
    cr_assert_eq(wb_gradebook_open(path, 0, &db, &err), 0, "%s", err.message);
    cr_expect_eq(wb_gradebook_version(db), WB_GRADEBOOK_SCHEMA);
    wb_gradebook_close(db);
}
