/*
 * test_cli.c: the one option parser every command uses (cli.h): values as "--name VALUE" and
 * "--name=VALUE", --replay's optional trace, counts within their range, operands within their
 * number, single-dash operands where a command allows them, help, and the usage errors.
 */
#include "cli.h"
#include "error.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    int flag, replay, count;
    const char *text, *format, *trace;
    const char *operands[3];
    size_t n;
} parsed;

/* Parses a space-separated command line (the first word is the command) with a table of each kind. */
static int parse(const char *line, parsed *p, size_t max_operands, size_t min_operands, int dash_operands) {
    static char buf[512];
    static char *argv[32];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *w = strtok(buf, " "); w && argc < 31; w = strtok(NULL, " ")) argv[argc++] = w;
    memset(p, 0, sizeof *p);
    p->format = "text";
    p->count = 1;
    const wb_cli_option options[] = {
        {"--flag", WB_CLI_FLAG, .flag = &p->flag},
        {"--text", WB_CLI_TEXT, .text = &p->text},
        {"--format", WB_CLI_FORMAT, .text = &p->format},
        {"--count", WB_CLI_COUNT, .count = &p->count, .min = 1, .max = 100},
        {"--replay", WB_CLI_REPLAY, .flag = &p->replay, .text = &p->trace},
    };
    wb_cli_spec s = {.command = "test", .usage = "usage: grader test\n", .options = options, .n_options = 5,
                     .operands = p->operands, .n_operands = &p->n, .max_operands = max_operands, .min_operands = min_operands,
                     .missing = "which lesson?", .dash_operands = dash_operands};
    /* usage errors go to stderr: keep the test's output quiet */
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    int rc = wb_cli_parse(&s, argc, argv);
    fclose(stderr);
    stderr = saved;
    return rc;
}

Test(cli, values_flags_and_operands) {
    parsed p;
    cr_assert_eq(parse("test --flag --text a --format=json --count 7 lesson", &p, 1, 0, 0), 0);
    cr_assert_eq(p.flag, 1);
    cr_assert_str_eq(p.text, "a");
    cr_assert_str_eq(p.format, "json");
    cr_assert_eq(p.count, 7);
    cr_assert_eq(p.n, 1);
    cr_assert_str_eq(p.operands[0], "lesson");
    cr_assert_eq(parse("test --text=b --text c", &p, 1, 0, 0), 0);
    cr_assert_str_eq(p.text, "c", "the last of a repeated option wins");
    cr_assert_eq(p.n, 0);
}

Test(cli, usage_errors) {
    parsed p;
    cr_assert_eq(parse("test --bogus", &p, 1, 0, 0), WB_EXIT_INPUT);
    cr_assert_eq(parse("test a b", &p, 1, 0, 0), WB_EXIT_INPUT, "one operand more than allowed");
    cr_assert_eq(parse("test", &p, 1, 1, 0), WB_EXIT_INPUT, "an operand missing");
    cr_assert_eq(parse("test --text", &p, 1, 0, 0), WB_EXIT_INPUT, "a value missing");
    cr_assert_eq(parse("test --text=", &p, 1, 0, 0), WB_EXIT_INPUT, "an empty value");
    cr_assert_eq(parse("test --format xml", &p, 1, 0, 0), WB_EXIT_INPUT);
    cr_assert_eq(parse("test --count 0", &p, 1, 0, 0), WB_EXIT_INPUT);
    cr_assert_eq(parse("test --count 101", &p, 1, 0, 0), WB_EXIT_INPUT);
    cr_assert_eq(parse("test --count 5x", &p, 1, 0, 0), WB_EXIT_INPUT);
    cr_assert_eq(parse("test --count 100", &p, 1, 0, 0), 0);
    cr_assert_eq(p.count, 100);
    cr_assert_eq(parse("test --flagged", &p, 1, 0, 0), WB_EXIT_INPUT, "a flag matches its whole name only");
}

Test(cli, help_first) {
    parsed p;
    FILE *saved = stdout;
    stdout = fopen("/dev/null", "w");
    int rc = parse("test --bogus -h", &p, 1, 0, 0);
    int rc2 = parse("test --help", &p, 1, 0, 0);
    fclose(stdout);
    stdout = saved;
    cr_assert_eq(rc, WB_EXIT_INPUT, "an error before --help is reported");
    cr_assert_eq(rc2, WB_CLI_HELP);
}

Test(cli, dash_operands) {
    parsed p;
    cr_assert_eq(parse("test -x", &p, 2, 0, 0), WB_EXIT_INPUT);
    cr_assert_eq(parse("test -x --flag y", &p, 2, 0, 1), 0);
    cr_assert_eq(p.n, 2);
    cr_assert_str_eq(p.operands[0], "-x");
    cr_assert_eq(parse("test --x", &p, 2, 0, 1), WB_EXIT_INPUT, "-- still starts an option");
}

Test(cli, replay_trace) {
    parsed p;
    cr_assert_eq(parse("test --replay lesson", &p, 1, 0, 0), 0);
    cr_assert_eq(p.replay, 1);
    cr_assert_null(p.trace, "a word that is no file and no .json is the operand");
    cr_assert_str_eq(p.operands[0], "lesson");
    cr_assert_eq(parse("test lesson --replay t.json", &p, 1, 0, 0), 0);
    cr_assert_str_eq(p.trace, "t.json");
    cr_assert_eq(parse("test --replay=x lesson", &p, 1, 0, 0), 0);
    cr_assert_str_eq(p.trace, "x");
    cr_assert_eq(parse("test --replay /dev/null", &p, 1, 0, 0), 0);
    cr_assert_str_eq(p.trace, "/dev/null", "a device is taken as the trace, for the reader to refuse by name");
    cr_assert_eq(parse("test --replay --flag", &p, 1, 0, 0), 0);
    cr_assert_null(p.trace);
    cr_assert_eq(p.flag, 1);
}
