/*
 * consent.h: asking the learner before something that cannot be undone.
 *
 * Nothing graded is shown before the learner has predicted it. A command that prints captured
 * facts of a lesson (grader diff, explain --trace, check --reveal, verify) passes through the reveal gate
 * first: a lesson already graded, or already revealed, passes; otherwise a terminal asks to
 * confirm, and elsewhere (a script, CI) only --reveal lets it through. Each reveal that passes is
 * recorded in the progress file, so that a later score is never taken for a first try.
 *
 * The gate protects against accidents, not against a learner who wants to cheat: the recordings
 * and (outside a released copy, docs/releasing.md) the answer keys are readable files.
 */
#ifndef WB_CONSENT_H
#define WB_CONSENT_H

#include "wb_base.h"

#include <stddef.h>

/* 1 when the grader may ask: stdin and stderr are terminals. */
int wb_can_ask(void);

/* Asks question on stderr and reads one line: 1 for y/yes, 0 for anything else (and end of
 * input). The default is no. */
int wb_confirm(const char *question);

/* 1 when captured facts of a lesson would be news to the learner: its first grading has not
 * happened and it was not revealed before. The lesson is found by its folder (lesson_dir; NULL:
 * lessons/<lesson> of the course), or from a recording's path (traces/sm_NN.json inside it); a
 * lesson that is not found is no course's lesson and never news. The state folder goes to state.
 * -1 with err set when the progress file cannot be read. */
int wb_reveal_is_news(const char *lesson, const char *lesson_dir, const char *recording, char *state, size_t cap,
                      wb_error *err);

/* The reveal gate for the lesson a recording (at path recording, may be NULL) holds. command
 * names the caller in messages ("grader diff"), what says what would be shown ("its kernels").
 * consent: --reveal was given. Returns 0 when the facts may be shown (the reveal recorded when
 * it is one); WB_STOPPED when the learner said no at the terminal (not an error: wb_cli_finish);
 * else WB_EXIT_INPUT with err saying how to go on. */
int wb_reveal_gate(const char *lesson, const char *recording, const char *command, const char *what, int consent,
                   wb_error *err);
/* The same gate for a lesson found by its folder (lesson_dir, as wb_reveal_is_news takes it). */
int wb_reveal_gate_at(const char *lesson, const char *lesson_dir, const char *recording, const char *command, const char *what,
                      int consent, wb_error *err);

#endif
