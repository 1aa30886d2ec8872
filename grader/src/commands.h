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

/* Shared by commands: "--replay [TRACE]" where TRACE is optional. Returns 1 when argv[*i] is
 * --replay or --replay=TRACE, advancing *i past a separate TRACE argument. */
int wb_take_replay_option(int argc, char **argv, int *i, int *replay, const char **trace);

/* The list of commands, for help and dispatch. */
const wb_command *wb_commands(int *count);

#endif
