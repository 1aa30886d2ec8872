/*
 * commands.h: the grader's subcommands. Each takes the arguments after its name and returns an
 * exit code (error.h); main() only dispatches. docs/grader.md documents each one, and
 * `grader SUBCOMMAND --help` prints the same usage text.
 */
#ifndef WB_COMMANDS_H
#define WB_COMMANDS_H

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary; /* one line for `grader --help` */
    const char *usage;   /* the full usage text for `grader NAME --help` */
} wb_command;

int cmd_check(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_record(int argc, char **argv);

extern const char CHECK_USAGE[], VERIFY_USAGE[], RECORD_USAGE[];

/* The course around the lessons (issue 5): cmd_list.c (list, hint), cmd_explain.c, cmd_diff.c,
 * cmd_new.c (new, template), cmd_lint.c. docs/commands/<name>.md documents each one. */
int cmd_list(int argc, char **argv);
int cmd_hint(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_new(int argc, char **argv);
int cmd_template(int argc, char **argv);
int cmd_lint(int argc, char **argv);

extern const char LIST_USAGE[], HINT_USAGE[], EXPLAIN_USAGE[], DIFF_USAGE[], NEW_USAGE[], TEMPLATE_USAGE[], LINT_USAGE[];

/* The learner's side (issue 9): cmd_reset.c, cmd_release.c. */
int cmd_reset(int argc, char **argv);
int cmd_release(int argc, char **argv);
extern const char RESET_USAGE[], RELEASE_USAGE[];

/* The list of commands, for help and dispatch. */
const wb_command *wb_commands(int *count);

#endif
