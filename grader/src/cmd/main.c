/*
 * main.c: `grader`, the workbench's command line. Predict what a GPU program launches, then
 * check it: main only dispatches to a subcommand (commands.h) and turns its result into the
 * exit code.
 */
#include "commands.h"
#include "wb_base.h"

#include <stdio.h>
#include <string.h>

static const wb_command COMMANDS[] = {
    {"check", cmd_check, N_("grade your predictions for a lesson against a capture, then show the trace"), CHECK_USAGE},
    {"verify", cmd_verify, N_("check a lesson's answer key against a live capture or its recording"), VERIFY_USAGE},
    {"record", cmd_record, N_("remake a lesson's recording on this GPU (traces/sm_NN.json)"), RECORD_USAGE},
    {"list", cmd_list, N_("the lessons in course order, with your progress and scores"), LIST_USAGE},
    {"reset", cmd_reset, N_("start a lesson again from its template (your predictions kept as a backup)"), RESET_USAGE},
    {"hint", cmd_hint, N_("the next hint for a lesson's question, one at a time"), HINT_USAGE},
    {"explain", cmd_explain, N_("decode a kernel name: library, tiles, types, layout, epilogue"), EXPLAIN_USAGE},
    {"diff", cmd_diff, N_("what changed between two captures (variants, lessons or GPUs)"), DIFF_USAGE},
    {"new", cmd_new, N_("start a new lesson: program skeleton, lesson.yaml, template, answer key"), NEW_USAGE},
    {"template", cmd_template, N_("print a lesson's predictions template, made from its lesson.yaml"), TEMPLATE_USAGE},
    {"release", cmd_release, N_("write a learner's copy of the course: answer keys sealed, drafts left out"), RELEASE_USAGE},
    {"submit", cmd_submit, N_("your submission for the instructor: each fact's first and latest grading"), SUBMIT_USAGE},
    {"gradebook", cmd_gradebook, N_("instructors: import submissions, regrade them, report per question"), GRADEBOOK_USAGE},
    {"lint", cmd_lint, N_("check lessons: lesson.yaml, template, answer key and recordings agree"), LINT_USAGE},
};

const wb_command *wb_commands(int *count) {
    *count = (int)(sizeof COMMANDS / sizeof COMMANDS[0]);
    return COMMANDS;
}

static void usage(FILE *f) {
    fputs(_("usage: grader [--lang ja|en] COMMAND [ARGS...]\n\n"
             "Predict what a lesson's GPU program launches, then check it under CUPTI.\n\ncommands:\n"), f);
    int n;
    const wb_command *c = wb_commands(&n);
    for (int i = 0; i < n; i++) fprintf(f, "  %-9s %s\n", c[i].name, _(c[i].summary));
    fputs(_("\n`grader COMMAND --help` shows a command's options; docs/grader.md has the details.\n"
            "--lang ja|en: the language of messages (default: LANGUAGE, LC_ALL, LC_MESSAGES, LANG).\n"
            "exit codes: 0 all right, 1 some fact wrong, 2 bad usage or input, 3 lesson failed or capture\n"
            "incomplete\n"), f);
}

int main(int argc, char **argv) {
    const char *lang = NULL;
    if (wb_cli_global_options(&argc, argv, &lang)) return WB_EXIT_INPUT;
    wb_i18n_init(lang);
    if (argc < 2) {
        usage(stderr);
        return WB_EXIT_INPUT;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        if (argc > 2 && strcmp(argv[1], "help") == 0) {
            int n;
            const wb_command *c = wb_commands(&n);
            for (int i = 0; i < n; i++)
                if (!strcmp(c[i].name, argv[2])) return fputs(_(c[i].usage), stdout), WB_EXIT_OK;
        }
        usage(stdout);
        return WB_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("grader (gpu-workbench) %s\n", WB_VERSION);
        return WB_EXIT_OK;
    }
    int n;
    const wb_command *c = wb_commands(&n);
    for (int i = 0; i < n; i++)
        if (!strcmp(c[i].name, argv[1])) return c[i].run(argc - 1, argv + 1);
    fprintf(stderr, _("grader: unknown command '%s'\n\n"), argv[1]);
    usage(stderr);
    return WB_EXIT_INPUT;
}
