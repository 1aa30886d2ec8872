/*
 * cmd_gradebook.c: `grader gradebook import|report`, the instructor's side of a cohort
 * (docs/gradebook.md). import reads learners' submissions (submission.h), regrades them against
 * the checkout's course (regrade.h) and stores them (gradebook_import.h); report computes the
 * per-question figures (gradebook_stats.h) and writes them (gradebook_report.h).
 */
#define _GNU_SOURCE
#include "wb_base.h"
#include "commands.h"
#include "wb_course.h"
#include "wb_gradebook.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char GRADEBOOK_USAGE[] = N_(
    "usage: grader gradebook import FILE_OR_DIR... --db FILE\n"
    "       grader gradebook report --db FILE [--format text|csv|json|html]\n"
    "                               [--table facts|questions|learners] [--out FILE]\n"
    "\n"
    "For instructors, in the checkout the learners' release was made from.\n"
    "\n"
    "import  reads learners' submissions (grader submit; a folder: its *.json files), checks each is\n"
    "        whole and of this course, regrades its predictions against the course's recordings (a\n"
    "        submitted score is never trusted) and stores it in the SQLite gradebook FILE (made if\n"
    "        missing). Each submission goes in whole or not at all; the same file twice changes\n"
    "        nothing; several imports may run at once.\n"
    "report  per lesson, the learners' first-try scores; per question and fact, the share right at\n"
    "        the first try, the most common wrong answers (times: the spread of the error), the\n"
    "        discrimination index and flags for questions most miss or that do not discriminate.\n"
    "\n"
    "  --db FILE        the gradebook\n"
    "  --format F       text (80 columns; the default), csv, json or html (one offline page)\n"
    "  --table T        csv only: one row per fact (default), question, or learner and lesson\n"
    "  --out FILE       write the report there instead of to standard output\n"
    "\n"
    "exit: 0 done, 2 bad usage, or a submission refused (each is named; the others are imported)\n");

/* ---- import ---------------------------------------------------------------------------------- */

static int is_json(const struct dirent *e) {
    size_t n = strlen(e->d_name);
    return e->d_name[0] != '.' && n > 5 && !strcmp(e->d_name + n - 5, ".json");
}

typedef struct {
    size_t imported, duplicates, refused;
} import_totals;

static void import_one(sqlite3 *db, wb_regrader *r, const char *path, import_totals *t) {
    wb_import_result res;
    wb_error err = {0};
    if (wb_gradebook_import(db, r, path, &res, &err)) {
        wb_cli_print_linef(stderr, "grader gradebook: %s", err.message);
        t->refused++;
        return;
    }
    if (res.duplicate) {
        printf(_("%s: already in the gradebook (the same file), nothing changed\n"), path);
        t->duplicates++;
        return;
    }
    t->imported++;
    char line[12000];
    size_t len = (size_t)snprintf(line, sizeof line, wb_ngettext("%s: %s, %zu lesson, %zu facts regraded", "%s: %s, %zu lessons, %zu facts regraded",
                                                                 res.lessons),
                                  path, res.learner, res.lessons, res.facts);
    if (res.kept_first && len < sizeof line)
        len += (size_t)snprintf(line + len, sizeof line - len,
                                wb_ngettext("; %zu lesson already held: first try kept, latest updated",
                                            "; %zu lessons already held: first try kept, latest updated", res.kept_first),
                                res.kept_first);
    if (res.differ && len < sizeof line)
        len += (size_t)snprintf(line + len, sizeof line - len,
                                wb_ngettext("; %zu live grading differ from the course's recording",
                                            "; %zu live gradings differ from the course's recording", res.differ),
                                res.differ);
    if (res.unverified && len < sizeof line)
        snprintf(line + len, sizeof line - len,
                 wb_ngettext("; %zu fact unverified (no recording or key for the learner's GPU)",
                             "; %zu facts unverified (no recording or key for the learner's GPU)", res.unverified),
                 res.unverified);
    wb_cli_print_line(stdout, line, 0, 2);
}

static int run_import(const char *const *inputs, size_t n, const char *db_path) {
    char root[4096];
    wb_error err = {0};
    wb_regrader r;
    sqlite3 *db = NULL;
    if (wb_find_root(root, sizeof root, &err) || wb_regrader_init(&r, root, &err)) {
        wb_cli_print_linef(stderr, "grader gradebook: %s", err.message);
        return err.code;
    }
    if (wb_gradebook_open(db_path, 1, &db, &err)) {
        wb_cli_print_linef(stderr, "grader gradebook: %s", err.message);
        wb_regrader_free(&r);
        return err.code;
    }
    import_totals t = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        if (!wb_is_dir(inputs[i])) {
            import_one(db, &r, inputs[i], &t);
            continue;
        }
        struct dirent **names = NULL;
        int k = scandir(inputs[i], &names, is_json, alphasort);
        if (k < 0) {
            wb_cli_print_linef(stderr, _("grader gradebook: %s: cannot list the folder (%s)\n"), inputs[i], strerror(errno));
            t.refused++;
            continue;
        }
        if (k == 0) wb_cli_print_linef(stderr, _("grader gradebook: note: %s holds no *.json file\n"), inputs[i]);
        for (int j = 0; j < k; j++) {
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", inputs[i], names[j]->d_name);
            import_one(db, &r, path, &t);
            free(names[j]);
        }
        free(names);
    }
    printf(_("%zu imported, %zu already there, %zu refused; gradebook %s\n"), t.imported, t.duplicates, t.refused, db_path);
    wb_gradebook_close(db);
    wb_regrader_free(&r);
    return t.refused ? WB_EXIT_INPUT : WB_EXIT_OK;
}

/* ---- report ---------------------------------------------------------------------------------- */

static int write_report(const wb_gb_report *r, const char *format, wb_gb_table table, FILE *f) {
    if (!strcmp(format, "json")) {
        json_t *j = wb_gb_report_json(r);
        char *text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
        json_decref(j);
        if (!text) return -1;
        fprintf(f, "%s\n", text);
        free(text);
    } else if (!strcmp(format, "csv")) {
        wb_gb_report_csv(f, r, table);
    } else if (!strcmp(format, "html")) {
        wb_gb_report_html(f, r);
    } else {
        wb_gb_report_text(f, r, f == stdout ? wb_term_width(stdout) : 80);
    }
    return 0;
}

static int run_report(const char *db_path, const char *format, wb_gb_table table, const char *out) {
    wb_error err = {0};
    sqlite3 *db = NULL;
    wb_gb_report r;
    if (wb_gradebook_open(db_path, 0, &db, &err) || wb_gb_report_build(db, &r, &err)) {
        wb_gradebook_close(db);
        wb_cli_print_linef(stderr, "grader gradebook: %s", err.message);
        return err.code;
    }
    wb_gradebook_close(db);
    int rc = 0;
    if (!out) {
        rc = write_report(&r, format, table, stdout);
    } else {
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.partial.%ld", out, (long)getpid());
        FILE *f = fopen(tmp, "w");
        rc = f ? write_report(&r, format, table, f) : -1;
        if (f && fclose(f) != 0) rc = -1;
        if (!rc && rename(tmp, out) != 0) rc = -1;
        if (rc) {
            unlink(tmp);
            wb_cli_print_linef(stderr, _("grader gradebook: %s: cannot write the report (%s): give another --out FILE\n"), out, strerror(errno));
        }
    }
    wb_gb_report_free(&r);
    return rc ? WB_EXIT_INPUT : WB_EXIT_OK;
}

int cmd_gradebook(int argc, char **argv) {
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) return fputs(_(GRADEBOOK_USAGE), stdout), WB_EXIT_OK;
    if (argc < 2 || (strcmp(argv[1], "import") && strcmp(argv[1], "report")))
        return wb_cli_usage_error("gradebook", GRADEBOOK_USAGE, argc < 2 ? _("import or report?%s") : _("unknown action %s (import or report)"),
                                  argc < 2 ? "" : argv[1]);
    int is_import = !strcmp(argv[1], "import");
    const char *db = NULL, *format = "text", *out = NULL, *table = "facts"; /* --db, --format, --out, --table */
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    size_t n = 0;
    if (!inputs) return fputs(_("grader gradebook: out of memory\n"), stderr), WB_EXIT_INPUT;
    const wb_cli_option options[] = {{"--db", WB_CLI_TEXT, .text = &db},
                                     {"--format", WB_CLI_TEXT, .text = &format},
                                     {"--out", WB_CLI_TEXT, .text = &out},
                                     {"--table", WB_CLI_TEXT, .text = &table}};
    wb_cli_spec spec = {.command = "gradebook", .usage = GRADEBOOK_USAGE, .options = options, .n_options = 4, .operands = inputs,
                        .n_operands = &n, .max_operands = is_import ? (size_t)argc : 0, .min_operands = is_import ? 1 : 0,
                        .missing = N_("import which submissions? give files or folders"),
                        .too_many = N_("report takes no files (got %s)")};
    int rc = wb_cli_parse(&spec, argc - 1, argv + 1);
    if (rc == WB_CLI_HELP) rc = WB_EXIT_OK;
    else if (!rc && !db) rc = wb_cli_usage_error("gradebook", GRADEBOOK_USAGE, "%s", _("which gradebook? give --db FILE"));
    else if (!rc && strcmp(format, "text") && strcmp(format, "csv") && strcmp(format, "json") && strcmp(format, "html"))
        rc = wb_cli_usage_error("gradebook", GRADEBOOK_USAGE, _("--format is text, csv, json or html, not %s"), format);
    else if (!rc && strcmp(table, "facts") && strcmp(table, "questions") && strcmp(table, "learners"))
        rc = wb_cli_usage_error("gradebook", GRADEBOOK_USAGE, _("--table is facts, questions or learners, not %s"), table);
    else if (!rc) {
        wb_gb_table t = !strcmp(table, "questions") ? WB_GB_TABLE_QUESTIONS
                        : !strcmp(table, "learners") ? WB_GB_TABLE_LEARNERS
                                                     : WB_GB_TABLE_FACTS;
        rc = is_import ? run_import(inputs, n, db) : run_report(db, format, t, out);
    }
    free(inputs);
    return rc;
}
