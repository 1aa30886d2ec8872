/*
 * cmd_check.c: `grader check`, predict then verify.
 *
 *   1. read the lesson and the learner's predictions (bad input: exit 2, nothing shown);
 *   2. while any value is ~, show nothing: on a terminal ask, write the answers into the file
 *      (comments kept, backup made); elsewhere list what is missing and exit 2;
 *   3. capture live (each needed variant under CUPTI) or replay a recording when there is no GPU;
 *      refuse (exit 3) a capture that failed, dropped records or lacks NVTX;
 *   4. grade each fact, print the report, the explanations and the score;
 *   5. only then reveal: kernel summary, range breakdown, and the Perfetto trace file's path.
 */
#define _GNU_SOURCE
#include "wb_course.h"
#include "wb_predict.h"
#include "wb_show.h"
#include "commands.h"
#include "wb_base.h"
#include "wb_grade.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char CHECK_USAGE[] = N_(
    "usage: grader check [LESSON] [--part NAME] [--predictions FILE] [--variant NAME]\n"
    "                    [--replay [TRACE]] [--format text|json] [--reveal] [--long-names]\n"
    "\n"
    "Runs the lesson under CUPTI, grades your predictions against what ran, and only then shows the\n"
    "trace. LESSON is a lesson folder, name or number (lessons/03_mlp, 03_mlp, 3); without it, the\n"
    "next lesson (or part) you have not graded yet.\n"
    "\n"
    "  --part NAME         a lesson's other part, graded on its own (e.g. pytorch: its PyTorch\n"
    "                      questions); default: the lesson's main part. grader list shows them\n"
    "  --predictions FILE  your predictions (default: the lesson's predictions.yaml, made from its\n"
    "                      predictions.template.yaml on first use)\n"
    "  --variant NAME      only this variant's predictions (and runs)\n"
    "  --replay [TRACE]    grade a recording instead of a live run: TRACE, or the lesson's recording\n"
    "                      for this GPU, else its newest one. Automatic where no CUDA device exists.\n"
    "  --format text|json  json: one JSON object on stdout (docs/grader.md lists its fields)\n"
    "  --reveal            show the trace without grading (recorded in your progress)\n"
    "  --long-names        full kernel names in the tables (else shortened to fit the terminal's width:\n"
    "                      COLUMNS, or the terminal's own, or 80)\n"
    "\n"
    "exit: 0 every fact right (or you stopped at a question: nothing graded), 1 some fact wrong, 2 bad\n"
    "usage or input, 3 lesson failed or capture incomplete\n");

typedef struct {
    const char *lesson_dir, *predictions, *variant, *trace, *format, *part;
    int replay, reveal, long_names;
} check_options;

static int parse(int argc, char **argv, check_options *o) {
    memset(o, 0, sizeof *o);
    o->format = "text";
    const wb_cli_option options[] = {
        {"--replay", WB_CLI_REPLAY, .flag = &o->replay, .text = &o->trace},
        {"--reveal", WB_CLI_FLAG, .flag = &o->reveal},
        {"--long-names", WB_CLI_FLAG, .flag = &o->long_names},
        {"--predictions", WB_CLI_TEXT, .text = &o->predictions},
        {"--variant", WB_CLI_TEXT, .text = &o->variant},
        {"--part", WB_CLI_TEXT, .text = &o->part},
        {"--format", WB_CLI_FORMAT, .text = &o->format},
    };
    size_t n = 0; /* the lesson, or none: the next one not graded */
    wb_cli_spec s = {.command = "check", .usage = CHECK_USAGE, .options = options, .n_options = sizeof options / sizeof options[0],
                     .operands = &o->lesson_dir, .n_operands = &n, .max_operands = 1, .too_many = N_("one lesson at a time (also got %s)")};
    return wb_cli_parse(&s, argc, argv);
}

/* ---- which lesson ------------------------------------------------------------------------ */

/* The first lesson (or part of one) in course order that is not graded yet, as grader list
 * shows it: its folder into buf, its part ("" for the main part) into part. With after (a
 * lesson's name) the search starts past that lesson's part after_part, and wraps around. With
 * every lesson graded, buf is "". */
static int next_unfinished_after(const char *after, const char *after_part, char *buf, size_t cap, char *part, size_t part_cap,
                                 wb_error *err) {
    char root[4096], state[4096];
    wb_course course;
    if (wb_find_root(root, sizeof root, err) || wb_course_load(root, &course, err)) return err->code;
    wb_course_drop_drafts(&course);
    json_t *progress = NULL;
    int rc = wb_state_dir(root, state, sizeof state, err);
    if (!rc) rc = wb_progress_load(state, &progress, err);
    wb_lesson_status *s = NULL;
    size_t n = 0;
    if (!rc && wb_course_statuses((const char *const *)course.dirs, course.n, progress, &s, &n))
        rc = wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory"));
    long next = -1;
    size_t from = 0;
    for (size_t i = 0; !rc && after && i < n; i++)
        if (!strcmp(s[i].name, after) && !strcmp(s[i].part, !strcmp(after_part, WB_MAIN_PART) ? "" : after_part)) from = i + 1;
    for (size_t k = 0; !rc && k < n && next < 0; k++) {
        size_t i = (from + k) % n;
        if (wb_next_lesson(&s[i], 1) == 0) next = (long)i;
    }
    buf[0] = part[0] = '\0';
    if (next >= 0) {
        snprintf(buf, cap, "%s", s[next].dir);
        snprintf(part, part_cap, "%s", s[next].part);
    }
    free(s);
    json_decref(progress);
    wb_course_free(&course);
    return rc;
}

static int next_unfinished(char *buf, size_t cap, char *part, size_t part_cap, wb_error *err) {
    if (next_unfinished_after(NULL, NULL, buf, cap, part, part_cap, err)) return err->code;
    if (!buf[0]) return wb_fail(err, WB_EXIT_INPUT, "%s", _("every lesson is graded; give a lesson folder to check one again"));
    return 0;
}

/* The lesson's program: main.cu or main.c, else its first .cu or .c file (lesson 04's train.c). */
static void program_file(const char *lesson_dir, char *buf, size_t cap) {
    static const char *const preferred[] = {"main.cu", "main.c"};
    buf[0] = '\0';
    for (size_t i = 0; i < 2 && !buf[0]; i++) {
        snprintf(buf, cap, "%s/%s", lesson_dir, preferred[i]);
        if (!wb_file_exists(buf)) buf[0] = '\0';
    }
    struct dirent **names = NULL;
    int n = buf[0] ? 0 : scandir(lesson_dir, &names, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        size_t len = strlen(names[i]->d_name);
        int source = (len > 3 && !strcmp(names[i]->d_name + len - 3, ".cu")) || (len > 2 && !strcmp(names[i]->d_name + len - 2, ".c"));
        if (source && !buf[0]) snprintf(buf, cap, "%s/%s", lesson_dir, names[i]->d_name);
        free(names[i]);
    }
    free(names);
}

/* check without a lesson: say which lesson comes next and what to read before its questions. */
static void name_next_lesson(FILE *f, const char *lesson_dir, const char *part) {
    char readme[4200], program[4400], text[9000], shown[4200];
    snprintf(readme, sizeof readme, "%s/README.%s.md", lesson_dir, wb_i18n_lang()); /* the lesson text in the language */
    if (!wb_i18n_is_ja() || !wb_file_exists(readme)) snprintf(readme, sizeof readme, "%s/README.md", lesson_dir);
    program_file(lesson_dir, program, sizeof program);
    if (part && *part)
        snprintf(text, sizeof text, _("Next: lesson %s, its part %s (grader check %s --part %s). Before answering its questions, "
                                      "read that part of %s down to the line <!-- reveal --> (past it are the answers)."),
                 lesson_dir, part, wb_cli_display_path(lesson_dir, shown, sizeof shown), part, readme);
    else if (program[0])
        snprintf(text, sizeof text, _("Next lesson: %s. Before answering its questions, read %s down to the line <!-- reveal --> "
                                      "(past it are the answers) and %s, the program the questions are about."),
                 lesson_dir, readme, program);
    else
        snprintf(text, sizeof text, _("Next lesson: %s. Before answering its questions, read %s down to the line <!-- reveal --> "
                                      "(past it are the answers)."), lesson_dir, readme);
    wb_wrap(f, text, 0, 2, wb_term_width(f));
}

/* After grading a lesson's part: what comes next, the first part not graded after it (grader
 * list names the first one in the course). */
static void say_next(FILE *f, const char *lesson, const char *graded_part) {
    char dir[4096], part[64], shown[4200];
    wb_error ignored = {0};
    if (next_unfinished_after(lesson, graded_part, dir, sizeof dir, part, sizeof part, &ignored) != 0) return;
    if (!dir[0]) {
        fprintf(f, "\n%s\n", _("Every lesson is graded."));
        return;
    }
    fprintf(f, _("\nNext: grader check %s%s%s\n"), wb_cli_display_path(dir, shown, sizeof shown), part[0] ? " --part " : "", part);
}

/* On a terminal, before the questions of a lesson named by check itself: 1 to go on, 0 to stop. */
static int ready_to_answer(void) {
    fputs(_("Press Enter when you have read them (q stops here): "), stdout);
    fflush(stdout);
    char *line = NULL;
    size_t cap = 0;
    int go = getline(&line, &cap, stdin) >= 0 && strncmp(line + strspn(line, " \t"), "q", 1) != 0;
    free(line);
    return go;
}

/* ---- open predictions (~) ----------------------------------------------------------------- */

static void describe_fact(const wb_fact *f, const wb_prediction *p, char *buf, size_t cap) {
    wb_fact_kind_get(f->kind)->describe(f, p->range, buf, cap);
}

static void list_open(FILE *f, const wb_prediction_set *p) {
    int width = wb_term_width(f);
    char text[5000];
    snprintf(text, sizeof text,
             wb_ngettext("%s: %zu value is still ~ (not predicted yet). Nothing is shown until every value is filled in:",
                         "%s: %zu values are still ~ (not predicted yet). Nothing is shown until every value is filled in:",
                         wb_predictions_open(p)),
             p->path, wb_predictions_open(p));
    wb_wrap(f, text, 0, 2, width);
    /* one line each, as compilers write them, so that editors and grep can jump to them */
    for (size_t i = 0; i < p->n; i++)
        for (size_t j = 0; j < p->items[i].n_facts; j++) {
            const wb_fact *x = &p->items[i].facts[j];
            if (x->predicted < 0) fprintf(f, "  %s:%d:%d: %s: %s\n", p->path, x->line, x->column, p->items[i].id, x->label);
        }
    wb_wrap(f, _("Write a number in place of each ~ (or run grader check on a terminal to be asked), then run grader check again."),
            0, 2, width);
}

/* The learner stopped asking (q) or skipped the rest on a terminal: a choice, not an error. */
static void say_stopped(FILE *f, const wb_prediction_set *p) {
    char text[5000];
    size_t open = wb_predictions_open(p);
    snprintf(text, sizeof text,
             wb_ngettext("Stopped: %zu value is still open in %s, so nothing is graded or shown. Run grader check again "
                         "to answer them, or write a number in place of each ~.",
                         "Stopped: %zu values are still open in %s, so nothing is graded or shown. Run grader check again "
                         "to answer them, or write a number in place of each ~.", open),
             open, p->path);
    fputc('\n', f);
    wb_wrap(f, text, 0, 2, wb_term_width(f));
}

/* Ctrl-C (or the terminal closing) while the learner answers: stop asking and save what was typed
 * so far. The handler only sets a flag; without SA_RESTART the pending read returns EINTR. */
static volatile sig_atomic_t interrupted;
static void on_interrupt(int sig) { interrupted = sig; }
/* The learner's typed answer for f, as an edit; 0 when it is no valid answer. The same rules as
 * the file's (fact_kinds.h: its type of value says). */
static int answer_of(const wb_fact *f, const char *s, wb_answer_edit *e) {
    *e = (wb_answer_edit){f->line, f->column, 0, ""};
    return wb_fact_value_of(f)->answer(s, e);
}

/* Asks each open fact on the terminal; writes the answers into the file. Returns 0 when the file
 * was updated (or nothing was answered), else an error code (after saving what was answered
 * when the learner interrupted). */
static int ask_open(const wb_prediction_set *p, const wb_lesson *l, wb_error *err) {
    size_t n_open = wb_predictions_open(p), n = 0;
    wb_answer_edit *edits = calloc(n_open + 1, sizeof *edits);
    if (!edits) return wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory"));
    struct sigaction sa, old_int, old_term, old_hup;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    char head[4600];
    snprintf(head, sizeof head, wb_ngettext("%zu prediction is still open in %s.", "%zu predictions are still open in %s.", n_open),
             n_open, p->path);
    fputs(wb_bold(stdout), stdout);
    int col = wb_wrap_open(stdout, head, 0, 2, wb_term_width(stdout));
    fputs(wb_reset(stdout), stdout);
    fputc(' ', stdout);
    wb_wrap(stdout, _("Answer each with a number (microseconds for times; overhead, memory or compute for a bound); Enter skips, q stops."), col + 1, 2, wb_term_width(stdout));
    int stop = 0;
    char *line = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < p->n && !stop; i++) {
        const wb_prediction *q = &p->items[i];
        const wb_question *question = wb_lesson_question(l, q->id);
        int header = 0;
        for (size_t j = 0; j < q->n_facts && !stop; j++) {
            const wb_fact *f = &q->facts[j];
            if (f->predicted >= 0) continue;
            if (!header) {
                printf("\n%s%s%s ", wb_bold(stdout), q->id, wb_reset(stdout));
                char where[400]; /* long ids and range names reach the margin: wrapped after the id */
                snprintf(where, sizeof where, _("(variant %s, range %s)"),
                         wb_prediction_variant(q, l) ? wb_prediction_variant(q, l) : "-", q->range);
                wb_wrap(stdout, where, (int)wb_columns(q->id) + 1, 2, wb_term_width(stdout));
                if (question) {
                    fputs("  ", stdout);
                    wb_wrap(stdout, wb_question_ask(l, question), 2, 2, wb_term_width(stdout));
                    char note[240]; /* the question's own tolerance, from lesson.yaml */
                    if (wb_question_tolerance_note_localized(question, note, sizeof note)[0])
                        fputs("  ", stdout), wb_wrap(stdout, note, 2, 2, wb_term_width(stdout));
                }
                header = 1;
            }
            char what[512];
            describe_fact(f, q, what, sizeof what);
            for (;;) {
                char prompt[700];
                snprintf(prompt, sizeof prompt, "%s: %s?", f->label, what);
                fputs("  ", stdout);
                /* the answer is typed on the prompt's last line: leave it room ("overhead") */
                wb_wrap_open(stdout, prompt, 2, 4, wb_term_width(stdout) - 10);
                fputs(" ", stdout);
                fflush(stdout);
                if (interrupted || getline(&line, &cap, stdin) < 0 || interrupted) {
                    stop = 1;
                    break;
                }
                line[strcspn(line, "\r\n")] = '\0';
                char *s = line;
                while (*s == ' ') s++;
                if (!*s) break;
                if (!strcmp(s, "q")) {
                    stop = 1;
                    break;
                }
                if (answer_of(f, s, &edits[n])) {
                    n++;
                    break;
                }
                char again[300];
                wb_fact_value_of(f)->ask_again(again, sizeof again);
                fputs(again, stdout);
            }
        }
    }
    free(line);
    int rc = 0;
    if (n > 0) {
        char backup[4200];
        rc = wb_predictions_fill(p->path, edits, n, !wb_is_untouched_template(p->path), backup, sizeof backup, err);
        if (!rc) {
            char text[9000];
            if (backup[0])
                snprintf(text, sizeof text, wb_ngettext("Saved %zu answer into %s (your previous file is kept as %s).",
                                                        "Saved %zu answers into %s (your previous file is kept as %s).", n),
                         n, p->path, backup);
            else snprintf(text, sizeof text, wb_ngettext("Saved %zu answer into %s.", "Saved %zu answers into %s.", n), n, p->path);
            fputc('\n', stdout);
            wb_wrap(stdout, text, 0, 2, wb_term_width(stdout));
        }
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    free(edits);
    if (!rc && interrupted) {
        clearerr(stdin);
        /* Ctrl-C is the learner stopping (not an error); a signal from elsewhere is not theirs */
        rc = wb_fail(err, interrupted == SIGINT ? WB_STOPPED : WB_EXIT_INPUT, _("Interrupted: %s. Run grader check again to go on."),
                     n ? _("the answers typed so far are saved (above)") : _("nothing was answered yet, nothing changed"));
    }
    return rc;
}

/* ---- before the first grading ------------------------------------------------------------- */

/* 1 when this check would be the first grading of what it grades: the lesson's part (with
 * --variant: that variant) has no first score yet. */
static int first_grading(const char *state, const char *lesson, const char *part, const char *variant) {
    json_t *progress = NULL;
    wb_error ignored = {0};
    if (wb_progress_load(state, &progress, &ignored)) return 0;
    json_t *e = json_object_get(json_object_get(progress, "lessons"), lesson);
    int first = !json_object_get(wb_progress_part(e, part), "first_total") &&
                (!variant || !json_object_get(json_object_get(e, "first_by_variant"), variant));
    json_decref(progress);
    return first;
}

/* Shows the answers about to be graded and asks to go on: the first grading is the score, and
 * it reveals the trace, so neither can be taken back. */
static int confirm_first_grading(const wb_prediction_set *p, const wb_lesson *l, wb_error *err) {
    int width = wb_term_width(stdout);
    char line[8192], value[64];
    const char *yours = _("Your answers"), *from = _(", from ");
    printf("\n%s%s%s%s", wb_bold(stdout), yours, wb_reset(stdout), from);
    snprintf(line, sizeof line, "%s:", p->path);
    wb_wrap(stdout, line, (int)(wb_columns(yours) + wb_columns(from)), 2, width);
    for (size_t i = 0; i < p->n; i++) {
        const wb_prediction *q = &p->items[i];
        const char *v = wb_prediction_variant(q, l);
        size_t len = (size_t)snprintf(line, sizeof line, "%s (%s%s%s):", q->id, v ? v : "", v ? ", " : "", q->range);
        for (size_t j = 0; j < q->n_facts && len < sizeof line; j++)
            len += (size_t)snprintf(line + len, sizeof line - len, "%s %s %s", j ? "," : "", q->facts[j].label,
                                    wb_fact_value_text(&q->facts[j], value, sizeof value));
        fputs("  ", stdout);
        wb_wrap(stdout, line, 2, 6, width);
    }
    fflush(stdout);
    if (wb_confirm(_("Grade them now? Your first grading is your score, and the trace is shown after it"))) return 0;
    return wb_fail(err, WB_STOPPED, _("Not graded, nothing shown: your answers stay in %s as they are. Change them if you like, "
                   "then run grader check %s again to grade them."), p->path, l->lesson);
}

/* ---- the variants a check needs ----------------------------------------------------------- */

static size_t needed_variants(const wb_prediction_set *p, const wb_lesson *l, const char *part, const char *only, const char **out) {
    size_t n = 0;
    for (size_t v = 0; v < l->n_variants; v++) {
        const char *name = l->variants[v].name;
        if (only && strcmp(only, name)) continue;
        if (strcmp(wb_variant_part(&l->variants[v]), part)) continue;
        int used = !p; /* reveal: all */
        for (size_t i = 0; p && i < p->n && !used; i++) {
            const char *pv = wb_prediction_variant(&p->items[i], l);
            used = pv && !strcmp(pv, name);
        }
        if (used) out[n++] = name;
    }
    return n;
}

/* Keeps only the predictions about one variant (a view: items are shared, not copied). */
static int filter_variant(wb_prediction_set *view, const wb_prediction_set *all, const wb_lesson *l, const char *variant) {
    *view = *all;
    view->items = calloc(all->n + 1, sizeof *view->items);
    view->n = 0;
    if (!view->items) return -1;
    for (size_t i = 0; i < all->n; i++) {
        const char *v = wb_prediction_variant(&all->items[i], l);
        if (v && !strcmp(v, variant)) view->items[view->n++] = all->items[i];
    }
    return 0;
}

/* ---- obtaining captures --------------------------------------------------------------------- */

/* Live: what differs from the software of the lesson's recording for this GPU's architecture,
 * which its answer key was verified against (versions.h); "" when nothing or no such recording. */
static void versions_against_key(const wb_lesson *l, const char *arch, const wb_recording *live, char *buf, size_t cap) {
    char path[4096];
    wb_recording reference = {0};
    wb_error ignored = {0};
    buf[0] = '\0';
    snprintf(path, sizeof path, "%s/traces/%s.json", l->dir, arch);
    if (!wb_file_exists(path) || wb_recording_load(path, &reference, &ignored)) return;
    wb_versions_differ(live, &reference, buf, cap);
    wb_recording_free(&reference);
}

static int obtain(const check_options *o, const wb_lesson *l, const char **variants, size_t n_variants, int json,
                  const char *state, wb_recording *rec, const char **source, char *run_dir, size_t run_dir_cap, char *differ,
                  size_t differ_cap, wb_error *err) {
    char arch[16] = "", gpu[256] = "", no_torch[1200] = "";
    int have_gpu = !o->replay && wb_probe_device(arch, sizeof arch, gpu, sizeof gpu) > 0;
    wb_timing_mark("device probe (CUDA driver start)");
    if (have_gpu && !wb_python_variants_ready(l, variants, n_variants, no_torch, sizeof no_torch)) have_gpu = 0;
    const char *suffix = have_gpu ? NULL : "replay";
    if (wb_make_run_dir(l->dir, l->lesson, suffix, run_dir, run_dir_cap, err)) return err->code;
    wb_timing_mark("run folder made");
    if (have_gpu) {
        *source = "live";
        char cache[4200]; /* the calibration measured on this GPU, reused (acquire.h) */
        snprintf(cache, sizeof cache, "%s/calibration", state);
        wb_live_request req = {l, variants, n_variants, run_dir, json ? NULL : stderr, 1, cache};
        if (wb_capture_live(&req, rec, err)) return err->code;
        versions_against_key(l, arch, rec, differ, differ_cap);
        return wb_check_usable(rec, l, variants, n_variants, run_dir, err);
    }
    *source = "replay";
    char path[4096];
    if (o->trace) snprintf(path, sizeof path, "%s", o->trace);
    else if (wb_find_recording(l, NULL, path, sizeof path, err)) return err->code;
    if (wb_recording_load(path, rec, err)) return err->code;
    if (strcmp(rec->lesson, l->lesson) != 0)
        return wb_fail(err, WB_EXIT_INPUT, _("%s is a recording of lesson %s, not %s"), path, rec->lesson, l->lesson);
    if (!json && !o->replay) {
        char desc[512];
        char line[7000];
        if (no_torch[0])
            snprintf(line, sizeof line, _("PyTorch cannot run here: %s. Grading these variants from the recording %s instead (%s, "
                     "recorded %s)"), no_torch, path,
                     rec->n_runs ? wb_capture_describe(&rec->runs[0].capture, desc, sizeof desc) : "?", rec->recorded_at);
        else
            snprintf(line, sizeof line, _("No CUDA device here: replaying the recording %s (%s, recorded %s)"), path,
                     rec->n_runs ? wb_capture_describe(&rec->runs[0].capture, desc, sizeof desc) : "?", rec->recorded_at);
        wb_wrap(stderr, line, 0, 2, wb_term_width(stderr));
    }
    return wb_check_usable(rec, l, variants, n_variants, NULL, err);
}

/* ---- the reveal --------------------------------------------------------------------------- */

/* One line the lesson program printed, after "  | ", folded to the width at spaces (a word
 * longer than a line is cut); continuations are marked "  |   ". The lesson's log file keeps
 * the line whole for scripts. */
static void print_output_line(FILE *f, const char *line, size_t len, int width) {
    const char *prefix = "  | ";
    size_t room = width > 24 ? (size_t)width - 4 : 20;
    do {
        size_t n = len;
        if (n > room) {
            n = room;
            while (n > room / 2 && line[n] != ' ') n--;
            if (line[n] != ' ') n = room;
        }
        fprintf(f, "%s%.*s\n", prefix, (int)n, line);
        line += n, len -= n;
        while (len && *line == ' ') line++, len--;
        prefix = "  |   ";
        room = width > 24 ? (size_t)width - 6 : 18;
    } while (len);
}

static int reveal(FILE *f, const wb_timeline_context *tl, int long_names, const wb_recording *rec, const char **variants,
                  size_t n_variants, const char *run_dir, int json, json_t *out, wb_error *err) {
    wb_table_style style = {15, wb_term_width(f), long_names};
    char trace[4200], whole[4200], timeline[4200];
    snprintf(trace, sizeof trace, "%s/trace.json", run_dir);
    snprintf(whole, sizeof whole, "%s/trace-whole-run.json", run_dir);
    snprintf(timeline, sizeof timeline, "%s/timeline.html", run_dir);
    /* the trace holds exactly the variants graded */
    wb_recording view = *rec;
    view.runs = calloc(n_variants + 1, sizeof *view.runs);
    view.n_runs = 0;
    if (!view.runs) return wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory"));
    for (size_t i = 0; i < n_variants; i++) {
        const wb_run *r = wb_recording_run(rec, variants[i]);
        if (r) view.runs[view.n_runs++] = *r;
    }
    size_t trace_left_out = 0, whole_left_out = 0; /* records past the files' bound (docs/limits.md) */
    int rc = wb_chrome_trace_write_of(&view, 0, trace, &trace_left_out, err);
    if (!rc) rc = wb_chrome_trace_write_of(&view, 1, whole, &whole_left_out, err);
    wb_timing_mark("traces written");
    if (!rc) rc = wb_timeline_html_write(timeline, tl, &view, err);
    wb_timing_mark("timeline page written");
    json_t *summaries = json_object();
    for (size_t i = 0; i < view.n_runs && !rc; i++) {
        wb_summary s;
        if (wb_summary_build(&view.runs[i].capture, &s)) {
            rc = wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory"));
            break;
        }
        if (json) json_object_set_new(summaries, view.runs[i].variant, wb_summary_json(&s));
        else wb_summary_print(f, view.runs[i].variant, &view.runs[i].capture, &s, &style);
        wb_summary_free(&s);
    }
    /* what the program printed (its timing table): shown in replay too, where it cannot run */
    json_t *outputs = json_object();
    for (size_t i = 0; i < view.n_runs && !rc; i++) {
        const wb_run *run = &view.runs[i];
        if (!run->output) continue;
        if (json) {
            json_object_set_new(outputs, run->variant, json_string(run->output));
            continue;
        }
        char head[700];
        snprintf(head, sizeof head, _("(as it printed it under the capture, %s, %s):"), run->capture.gpu,
                 rec->recorded_at ? rec->recorded_at : "");
        char title[600];
        snprintf(title, sizeof title, _("Output of variant %s"), run->variant);
        fprintf(f, "\n%s%s%s ", wb_bold(f), title, wb_reset(f));
        int col = (int)wb_columns(title) + 1;
        wb_wrap(f, head, col, 2, style.width); /* the program's own lines below stay as it printed them */
        for (const char *p = run->output; *p;) {
            size_t len = strcspn(p, "\n");
            print_output_line(f, p, len, style.width);
            p += len + (p[len] == '\n');
        }
    }
    if (json) json_object_set_new(out, "output", outputs);
    else json_decref(outputs);
    free(view.runs);
    wb_timing_mark("kernel summary and program output");
    if (json) {
        json_object_set_new(out, "summary", summaries);
        json_object_set_new(out, "trace_file", json_string(trace));
        json_object_set_new(out, "whole_run_trace_file", json_string(whole));
        json_object_set_new(out, "timeline_file", json_string(timeline));
        json_object_set_new(out, "trace_records_left_out", json_integer((json_int_t)trace_left_out));
        json_object_set_new(out, "whole_run_trace_records_left_out", json_integer((json_int_t)whole_left_out));
    } else {
        json_decref(summaries);
        if (!rc)
            fprintf(f, _("\nTimeline of one step, a picture for any browser (no network needed):\n  %s\n"
                         "Trace of the profiled window, for https://ui.perfetto.dev (Open trace file):\n  %s\n"
                         "  (trace-whole-run.json beside it holds the whole run, start-up included)\n"),
                    timeline, trace);
        if (!rc && (trace_left_out || whole_left_out)) {
            char note[600];
            snprintf(note, sizeof note, _("The traces stop at %zu records a file (docs/limits.md): %zu later records are left "
                     "out of trace.json, %zu of trace-whole-run.json; each says where it stops."), wb_trace_max_records(),
                     trace_left_out, whole_left_out);
            fputs("  ", f);
            wb_wrap(f, note, 2, 2, style.width);
        }
    }
    return rc;
}

/* ---- progress ---------------------------------------------------------------------------------- */

/* Each variant's score in this grading (variants in order of first appearance). */
static size_t scores_by_variant(const wb_grade *g, wb_variant_score *out, size_t cap) {
    size_t n = 0;
    for (size_t i = 0; i < g->n; i++) {
        const char *v = g->facts[i].variant ? g->facts[i].variant : "";
        size_t k = 0;
        while (k < n && strcmp(out[k].variant, v)) k++;
        if (k == n) {
            if (n == cap) continue;
            out[n++] = (wb_variant_score){v, 0, 0};
        }
        out[k].total++;
        out[k].right += g->facts[i].right != 0;
    }
    return n;
}

/* 1 when the learner's predictions (file, else the lesson's predictions.yaml) exist with every
 * value filled in: a reveal then comes before grading, not instead of predicting. */
static int predictions_complete(const char *file, const char *lesson_dir) {
    char path[4200];
    if (file) snprintf(path, sizeof path, "%s", file);
    else wb_learner_predictions_path(lesson_dir, path, sizeof path);
    wb_prediction_set p;
    wb_error ignored = {0};
    if (!wb_file_exists(path) || wb_predictions_load(path, &p, &ignored)) return 0;
    int complete = p.n > 0 && wb_predictions_open(&p) == 0;
    wb_predictions_free(&p);
    return complete;
}

/* The grading or reveal could not be recorded: nothing captured is shown, and a live run's
 * captures are removed with their folder, so that this try stays the learner's first. */
static int nothing_shown(wb_error *err, const char *run_dir, int live) {
    char why[sizeof err->message];
    snprintf(why, sizeof why, "%s", err->message);
    if (live) wb_remove_run_dir(run_dir);
    else rmdir(run_dir);
    err->code = 0; /* the message says more than the progress file's own error */
    return wb_fail(err, WB_EXIT_INPUT, _("%s. Nothing of the capture was shown, since this try could not be recorded: "
                   "fix the progress file (or move it away) and check again"), why);
}

/* ---- the command ---------------------------------------------------------------------------- */

static int run_check(const check_options *o, wb_error *err) {
    int json = !strcmp(o->format, "json");
    char lesson_dir[4096], next_part[64] = "";
    if (o->lesson_dir) {
        if (wb_resolve_lesson(o->lesson_dir, lesson_dir, sizeof lesson_dir, err)) return err->code;
    } else if (next_unfinished(lesson_dir, sizeof lesson_dir, next_part, sizeof next_part, err)) {
        return err->code;
    }
    if (!o->lesson_dir && !json) name_next_lesson(stderr, lesson_dir, next_part);

    wb_lesson lesson;
    wb_prediction_set preds = {0}, part_view = {0}, view = {0}; /* the file; its part; and --variant's */
    wb_recording rec = {0};
    wb_answer_key key = {0};
    int have_key = 0, rc = 0;
    json_t *out = NULL;
    const char **variants = NULL; /* as many as the lesson has */
    char run_dir[4096] = "", root[4096], state[4096];
    const char *source = NULL; /* "live" or "replay", once the captures are obtained */
    if ((rc = wb_lesson_load(lesson_dir, &lesson, err))) return rc;
    variants = calloc(lesson.n_variants + 1, sizeof *variants);
    if (!variants) {
        rc = wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory"));
        goto out;
    }
    if (o->variant && !wb_lesson_variant(&lesson, o->variant)) {
        char list[512];
        rc = wb_fail(err, WB_EXIT_INPUT, _("lesson %s has no variant '%s' (it has: %s)"), lesson.lesson, o->variant,
                     wb_lesson_variant_list(&lesson, list, sizeof list));
        goto out;
    }
    /* the part graded: --part, else --variant's, else the next one named above, else the main part */
    const char *part = o->part ? o->part : o->variant ? wb_lesson_variant_part(&lesson, o->variant)
                                     : next_part[0] ? next_part : WB_MAIN_PART;
    if (!wb_lesson_has_part(&lesson, part)) {
        char list[512];
        rc = wb_fail(err, WB_EXIT_INPUT, _("lesson %s has no part '%s' (its parts: %s)"), lesson.lesson, part,
                     wb_lesson_part_list(&lesson, list, sizeof list));
        goto out;
    }
    if (o->variant && strcmp(wb_lesson_variant_part(&lesson, o->variant), part)) {
        rc = wb_fail(err, WB_EXIT_INPUT, _("variant %s of lesson %s is in part %s, not %s"), o->variant, lesson.lesson,
                     wb_lesson_variant_part(&lesson, o->variant), part);
        goto out;
    }
    wb_root_dir(lesson.dir, root, sizeof root);
    if ((rc = wb_state_dir(root, state, sizeof state, err))) goto out;

    char predictions_path[4096];
    if (o->predictions) snprintf(predictions_path, sizeof predictions_path, "%s", o->predictions);
    else wb_learner_predictions_path(lesson_dir, predictions_path, sizeof predictions_path);

    if (!o->reveal) {
        int created = 0;
        if (!o->predictions && (rc = wb_learner_predictions(lesson_dir, predictions_path, sizeof predictions_path, &created, err)))
            goto out;
        if (created && !json) {
            char made[4400];
            snprintf(made, sizeof made, _("Made your predictions file %s from the lesson's template (git ignores it)."),
                     predictions_path);
            wb_wrap(stderr, made, 0, 2, wb_term_width(stderr));
        }
        if ((rc = wb_predictions_load(predictions_path, &preds, err))) goto out;
        if (wb_predictions_of_part(&preds, &lesson, part, &part_view)) { rc = wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory")); goto out; }
        char leftover[4200];
        if (!json && wb_predictions_leftover(predictions_path, leftover, sizeof leftover))
            wb_cli_print_linef(stderr, _("note: %s was left by a save of your answers that was interrupted; it may hold answers that "
                    "%s lacks. Compare the two, then delete it.\n"), leftover, predictions_path);
        if ((rc = wb_predictions_check_lesson(&preds, &lesson, err))) goto out;
        if (part_view.n == 0) {
            rc = wb_fail(err, WB_EXIT_INPUT, _("%s has no predictions about part %s of lesson %s"), preds.path, part, lesson.lesson);
            goto out;
        }
        /* only this part's values need to be filled in: the other parts are graded on their own */
        if (wb_predictions_open(&part_view) > 0) {
            if (!json && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
                if (!o->lesson_dir && !ready_to_answer()) {
                    say_stopped(stdout, &part_view);
                    rc = WB_EXIT_OK;
                    goto out;
                }
                if ((rc = ask_open(&part_view, &lesson, err))) goto out;
                free(part_view.items);
                part_view.items = NULL;
                wb_predictions_free(&preds);
                if ((rc = wb_predictions_load(predictions_path, &preds, err))) goto out;
                if ((rc = wb_predictions_check_lesson(&preds, &lesson, err))) goto out;
                if (wb_predictions_of_part(&preds, &lesson, part, &part_view)) { rc = wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory")); goto out; }
            }
            if (wb_predictions_open(&part_view) > 0) {
                if (!json && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
                    say_stopped(stdout, &part_view);
                    rc = WB_EXIT_OK;
                    goto out;
                }
                list_open(stderr, &part_view);
                rc = WB_EXIT_INPUT;
                goto out;
            }
        }
        if (o->variant) {
            if (filter_variant(&view, &part_view, &lesson, o->variant)) { rc = wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory")); goto out; }
            if (view.n == 0) {
                rc = wb_fail(err, WB_EXIT_INPUT, _("%s has no predictions about variant '%s'"), preds.path, o->variant);
                goto out;
            }
        } else {
            view = part_view;
        }
        if (!json && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && first_grading(state, lesson.lesson, part, o->variant) &&
            (rc = confirm_first_grading(&view, &lesson, err)))
            goto out;
    } else if (!json && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
        /* --reveal costs the first try: on a terminal, ask (elsewhere the option is the consent) */
        char gate_state[4200];
        const char *shown = NULL; /* a variant of the part revealed */
        for (size_t i = 0; i < lesson.n_variants && !shown; i++)
            if (!strcmp(wb_variant_part(&lesson.variants[i]), part)) shown = lesson.variants[i].name;
        int news = wb_reveal_is_news_variant(lesson.lesson, lesson.dir, NULL, o->variant ? o->variant : shown, gate_state,
                                             sizeof gate_state, err);
        if (news < 0) { rc = err->code; goto out; }
        if (news && !wb_confirm(_("Show the trace before grading? Your progress records it, and a later score is then not a "
                                  "first try"))) {
            rc = wb_fail(err, WB_STOPPED, _("Nothing shown. Predict first: grader check %s asks the lesson's questions."),
                         lesson.lesson);
            goto out;
        }
    }
    size_t n_variants = needed_variants(o->reveal ? NULL : &view, &lesson, part, o->variant, variants);
    char differ[2048] = "";
    wb_timing_mark("lesson and predictions read");
    if ((rc = obtain(o, &lesson, variants, n_variants, json, state, &rec, &source, run_dir, sizeof run_dir, differ, sizeof differ,
                     err)))
        goto out;
    wb_timing_mark("captures ready to grade");

    char key_path[4200];
    wb_answer_key_path(lesson.dir, lesson.lesson, key_path, sizeof key_path);
    if (wb_file_exists(key_path)) {
        wb_error key_err = {0};
        have_key = wb_answer_key_load(key_path, &key, &key_err) == 0;
        if (!have_key && !json) wb_cli_print_linef(stderr, _("note: explanations unavailable: %s\n"), key_err.message);
    }

    out = json ? json_object() : NULL;
    if (o->reveal) {
        /* on disk before anything is shown: a reveal that cannot be recorded shows nothing */
        if ((rc = wb_progress_record_reveal_part(state, lesson.lesson, part, source, "grader check --reveal", err))) {
            rc = nothing_shown(err, run_dir, !strcmp(source, "live"));
            goto out;
        }
        int predicted = predictions_complete(o->predictions ? o->predictions : NULL, lesson.dir);
        if (json) json_object_set_new(out, "lesson", json_string(lesson.lesson)), json_object_set_new(out, "source", json_string(source)),
            json_object_set_new(out, "revealed_without_predictions", json_boolean(!predicted)),
            json_object_set_new(out, "revealed_before_grading", json_true());
        else if (predicted)
            printf(_("Lesson %s: revealed before your predictions were graded (recorded in your progress: a later score is not a "
                     "first try)\n"), lesson.lesson);
        else printf(_("Lesson %s: revealed without predictions (recorded in your progress: a later score is not a first try)\n"),
                    lesson.lesson);
        wb_range_floor floors[256];
        wb_timeline_context tl = {lesson.lesson, source, floors, wb_timeline_floors(&lesson, &rec, floors, 256)};
        rc = reveal(stdout, &tl, o->long_names, &rec, variants, n_variants, run_dir, json, out, err);
    } else {
        wb_grade grade;
        if ((rc = wb_grade_predictions(&view, &lesson, &rec, &grade, err))) goto out;
        wb_timing_mark("grading");
        /* The grading (a first try, when it is one) is written and synced before anything captured
         * is shown; when it cannot be recorded nothing is shown, so that no try goes unrecorded. */
        char hash[64] = "";
        wb_part_predictions_hash(&lesson, &part_view, hash, sizeof hash);
        wb_variant_score scores[64];
        char own[4200], *graded_file = o->predictions ? realpath(predictions_path, NULL) : NULL, *own_real = NULL;
        wb_learner_predictions_path(lesson.dir, own, sizeof own);
        if (graded_file && (own_real = realpath(own, NULL)) && !strcmp(own_real, graded_file)) free(graded_file), graded_file = NULL;
        free(own_real);
        json_t *facts = wb_grading_facts_json(&grade, &lesson);
        const wb_capture *captured = rec.n_runs ? &rec.runs[0].capture : NULL;
        wb_grading g = {grade.right, grade.n, scores, scores_by_variant(&grade, scores, 64), o->variant != NULL, hash, source,
                        graded_file, facts, captured ? captured->arch : NULL, captured ? captured->gpu : NULL, part};
        rc = facts ? wb_progress_record_grading(state, lesson.lesson, &g, err) : wb_fail(err, WB_EXIT_INPUT, "%s", _("out of memory"));
        json_decref(facts);
        free(graded_file);
        if (rc) {
            wb_grade_free(&grade);
            rc = nothing_shown(err, run_dir, !strcmp(source, "live"));
            goto out;
        }
        wb_timing_mark("progress recorded (synced)");
        /* a released course: explanations open with what this grading captured (sealed_key.h) */
        char sealed_path[4400];
        wb_sealed_key_path(lesson.dir, lesson.lesson, sealed_path, sizeof sealed_path);
        if (!have_key && wb_file_exists(sealed_path) && rec.n_runs) {
            wb_error key_err = {0};
            size_t still_sealed = 0;
            have_key = wb_sealed_key_open(sealed_path, &lesson, rec.runs[0].capture.arch, &grade, &key, &still_sealed,
                                          &key_err) == 0;
            if (!have_key && !json) wb_cli_print_linef(stderr, _("note: explanations unavailable: %s\n"), key_err.message);
            if (still_sealed && !json)
                fprintf(stderr, wb_ngettext("note: %zu explanation stay sealed: this capture differs from the verified answers\n",
                                            "note: %zu explanations stay sealed: this capture differs from the verified answers\n",
                                            still_sealed),
                        still_sealed);
        }
        wb_report_context ctx = {lesson.lesson, source, &rec, have_key ? &key : NULL, &lesson, differ};
        if (json) {
            json_decref(out);
            out = wb_report_json(&ctx, &grade);
        } else {
            wb_report_text(stdout, &ctx, &grade);
        }
        wb_timing_mark("report");
        int graded_rc = grade.right == grade.n ? WB_EXIT_OK : WB_EXIT_WRONG;
        wb_range_floor floors[256];
        wb_timeline_context tl = {lesson.lesson, source, floors, wb_timeline_floors(&lesson, &rec, floors, 256)};
        rc = reveal(stdout, &tl, o->long_names, &rec, variants, n_variants, run_dir, json, out, err);
        wb_grade_free(&grade);
        if (!rc && !json) say_next(stdout, lesson.lesson, part);
        if (!rc) rc = graded_rc;
    }
    if (json && (rc == WB_EXIT_OK || rc == WB_EXIT_WRONG)) {
        char *text = json_dumps(out, JSON_INDENT(2));
        if (text) puts(text);
        free(text);
    }
out:
    /* a replay that failed wrote nothing into its run folder: leave none behind */
    if (rc != WB_EXIT_OK && rc != WB_EXIT_WRONG && run_dir[0] && source && !strcmp(source, "replay")) rmdir(run_dir);
    free(variants);
    json_decref(out);
    if (view.items != part_view.items) free(view.items);
    free(part_view.items);
    wb_predictions_free(&preds);
    wb_recording_free(&rec);
    if (have_key) wb_answer_key_free(&key);
    wb_lesson_free(&lesson);
    return rc;
}

int cmd_check(int argc, char **argv) {
    check_options o;
    int p = parse(argc, argv, &o);
    if (p < 0) return WB_EXIT_OK;
    if (p > 0) return p;
    wb_error err = {0};
    wb_timing_mark("start (loading, to the options read)");
    int rc = run_check(&o, &err);
    wb_timing_mark("done");
    if (err.code) {
        /* --format json promises one JSON object on stdout, failures included (it never asks) */
        if (!strcmp(o.format, "json")) wb_report_json_error(stdout, rc, err.message);
        rc = wb_cli_finish("check", rc, err.message);
    }
    return rc;
}
