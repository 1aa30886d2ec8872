/*
 * cmd_verify.c: `grader verify` (does the instructor's answer key hold?) and `grader record`
 * (remake the lesson's recording on this GPU).
 *
 * verify grades the answer key for the capture's GPU architecture exactly as a learner's
 * predictions are graded, so a key that verifies is a key a learner can match. With --repeat N
 * it runs the lesson N times and reports every fact whose value varies between runs: a flaky
 * question cannot be graded fairly.
 */
#define _GNU_SOURCE
#include "wb_course.h"
#include "wb_predict.h"
#include "commands.h"
#include "wb_base.h"
#include "wb_grade.h"
#include "wb_show.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char VERIFY_USAGE[] = N_(
    "usage: grader verify LESSON [--replay [TRACE]] [--repeat N] [--format text|json] [--reveal]\n"
    "\n"
    "Checks the lesson's answer key (expectations/NN_name.yaml) against a live capture on this GPU,\n"
    "or against a recording with --replay (automatic without a GPU). --repeat N runs the lesson N\n"
    "times live and reports facts whose value varies between runs. LESSON is a lesson folder, name\n"
    "or number. On a terminal, a lesson you have not graded yet is verified only after you confirm\n"
    "(its answers would be shown; recorded in your progress); --reveal does not ask.\n"
    "\n"
    "exit: 0 the key holds, 1 some fact differs (or no answers for this GPU), 2 bad usage or input,\n"
    "3 lesson failed or capture incomplete\n");

const char RECORD_USAGE[] = N_(
    "usage: grader record LESSON [--repeat N]\n"
    "\n"
    "Runs every variant of the lesson live under CUPTI and saves the captures as the lesson's\n"
    "recording for this GPU: traces/sm_NN.json in the lesson folder (replayed where there is no\n"
    "GPU), with the GPU's measured copy bandwidth and matrix rate and each run's output. --repeat N\n"
    "runs every variant N - 1 more times and keeps the times of their ranges, so that grader lint\n"
    "can check that every time fact of the key holds in every run. LESSON is a lesson folder, name\n"
    "or number.\n"
    "Needs a CUDA device.\n"
    "\n"
    "exit: 0 recorded, 2 bad usage or input, 3 no GPU, lesson failed or capture incomplete\n");

typedef struct {
    const char *lesson_dir, *trace, *format;
    int replay, repeat, reveal;
} verify_options;

/* verify and record: record takes --repeat only. */
static int parse(int argc, char **argv, verify_options *o, const char *command, const char *usage, int allow_verify_options) {
    memset(o, 0, sizeof *o);
    o->format = "text";
    o->repeat = 1;
    const wb_cli_option options[] = {
        {"--repeat", WB_CLI_COUNT, .count = &o->repeat, .min = 1, .max = 100},
        {"--replay", WB_CLI_REPLAY, .flag = &o->replay, .text = &o->trace},
        {"--format", WB_CLI_FORMAT, .text = &o->format},
        {"--reveal", WB_CLI_FLAG, .flag = &o->reveal},
    };
    size_t n = 0;
    wb_cli_spec s = {.command = command, .usage = usage, .options = options, .n_options = allow_verify_options ? 4 : 1,
                     .operands = &o->lesson_dir, .n_operands = &n, .max_operands = 1, .min_operands = 1,
                     .missing = N_("which lesson? Give its folder, e.g. lessons/01_matmul_add"),
                     .too_many = N_("unexpected argument %s"), .unknown = N_("unexpected argument %s")};
    int rc = wb_cli_parse(&s, argc, argv);
    if (!rc && o->replay && o->repeat > 1) {
        wb_cli_print_linef(stderr, _("grader %s: --repeat needs live runs; it cannot be combined with --replay\n"), command);
        return WB_EXIT_INPUT;
    }
    return rc;
}

/* "  differs  ": a verdict word in color, padded to 9 display columns so the ids after it line up
 * in either language. */
static void verdict(const char *color, const char *word) {
    printf("  %s%s%s", color, word, wb_reset(stdout));
    for (size_t c = wb_columns(word); c < 9; c++) putchar(' ');
}

/* Variants the answers need, in the lesson's order. */
static size_t answer_variants(const wb_prediction_set *answers, const wb_lesson *l, const char **out) {
    size_t n = 0;
    for (size_t v = 0; v < l->n_variants; v++)
        for (size_t i = 0; i < answers->n; i++) {
            const char *pv = wb_prediction_variant(&answers->items[i], l);
            if (pv && !strcmp(pv, l->variants[v].name)) {
                out[n++] = l->variants[v].name;
                break;
            }
        }
    return n;
}

static int get_recording(const verify_options *o, const wb_lesson *l, const char **variants, size_t n_variants, int live,
                         wb_recording *rec, wb_error *err) {
    if (live) {
        char run_dir[4096];
        if (wb_make_run_dir(l->dir, l->lesson, "verify", run_dir, sizeof run_dir, err)) return err->code;
        wb_live_request req = {l, variants, n_variants, run_dir, strcmp(o->format, "json") ? stderr : NULL, 1, NULL};
        if (wb_capture_live(&req, rec, err)) return err->code;
        return wb_check_usable(rec, l, variants, n_variants, run_dir, err);
    }
    char path[4096];
    if (o->trace) snprintf(path, sizeof path, "%s", o->trace);
    else if (wb_find_recording(l, NULL, path, sizeof path, err)) return err->code;
    if (wb_recording_load(path, rec, err)) return err->code;
    return wb_check_usable(rec, l, variants, n_variants, NULL, err);
}

static int run_verify(const verify_options *o, wb_error *err) {
    int json = !strcmp(o->format, "json");
    wb_lesson lesson;
    wb_answer_key key = {0};
    wb_recording rec = {0};
    const char **variants = NULL; /* as many as the lesson has (a fixed array overflowed at 65) */
    int rc;
    char dir[4096];
    if ((rc = wb_resolve_lesson(o->lesson_dir, dir, sizeof dir, err))) return rc;
    if ((rc = wb_lesson_load(dir, &lesson, err))) return rc;
    variants = calloc(lesson.n_variants + 1, sizeof *variants);
    if (!variants) {
        rc = wb_fail(err, WB_EXIT_INPUT, _("out of memory"));
        goto out;
    }
    char key_path[4200];
    wb_answer_key_path(lesson.dir, lesson.lesson, key_path, sizeof key_path);
    if ((rc = wb_answer_key_load(key_path, &key, err))) goto out;
    /* The key's answers are a lesson's answers: a learner at a terminal confirms first, like diff.
     * A script (an instructor's, CI) is not asked, and nothing is recorded for it. */
    if ((o->reveal || wb_can_ask()) &&
        (rc = wb_reveal_gate_at(lesson.lesson, lesson.dir, NULL, "grader verify", _("the answer key's answers"), o->reveal, err)))
        goto out;

    char arch[16] = "", gpu[256] = "", no_torch[1200] = "";
    int live = !o->replay && wb_probe_device(arch, sizeof arch, gpu, sizeof gpu) > 0;
    if (live) { /* the variants the key asks about are known only below: any PyTorch variant of the lesson counts */
        for (size_t v = 0; v < lesson.n_variants; v++) variants[v] = lesson.variants[v].name;
        if (!wb_python_variants_ready(&lesson, variants, lesson.n_variants, no_torch, sizeof no_torch)) live = 0;
    }
    if (o->repeat > 1 && !live) {
        rc = no_torch[0] ? wb_fail(err, WB_EXIT_CAPTURE, _("--repeat needs a CUDA device and PyTorch; %s: it runs the lesson live"), no_torch)
                         : wb_fail(err, WB_EXIT_CAPTURE, _("--repeat needs a CUDA device: it runs the lesson live"));
        goto out;
    }
    if (no_torch[0] && !json) wb_cli_print_linef(stderr, _("PyTorch cannot run here: %s. Verifying against the recording instead.\n"), no_torch);
    /* Which architecture's answers: the live GPU's, or (replay) the recording's. The variants to
     * capture come from those answers. */
    const wb_arch_answers *answers = NULL;
    size_t n_variants = 0;
    if (live) {
        answers = wb_answer_key_arch(&key, arch);
        if (!answers) {
            rc = wb_fail(err, WB_EXIT_WRONG, _("%s has no answers for %s (%s); add them (grader record, then write the key)"), key_path, arch, gpu);
            goto out;
        }
        n_variants = answer_variants(&answers->answers, &lesson, variants);
    } else {
        for (size_t v = 0; v < lesson.n_variants; v++) variants[n_variants++] = lesson.variants[v].name;
    }
    if (live && (rc = wb_predictions_check_lesson(&answers->answers, &lesson, err))) goto out;

    json_t *runs_json = json_array();
    /* per fact: the actual value of each repetition (counts and bound), or its microseconds */
    long *first_actual = NULL;
    double *time_values = NULL;  /* (fact, run) */
    int *time_right = NULL;      /* (fact, run) */
    size_t n_facts = 0, flaky = 0, wrong = 0;
    wb_grade first = {0};
    for (int rep = 0; rep < o->repeat; rep++) {
        wb_recording_free(&rec);
        if ((rc = get_recording(o, &lesson, variants, n_variants, live, &rec, err))) break;
        const char *rec_arch = rec.runs[0].capture.arch;
        if (!answers) {
            answers = wb_answer_key_arch(&key, rec_arch);
            if (!answers) {
                rc = wb_fail(err, WB_EXIT_WRONG, _("%s has no answers for %s, the architecture of the recording %s"), key_path, rec_arch,
                             rec.path ? rec.path : "");
                break;
            }
            if ((rc = wb_predictions_check_lesson(&answers->answers, &lesson, err))) break;
        }
        wb_grade g;
        if ((rc = wb_grade_predictions(&answers->answers, &lesson, &rec, &g, err))) break;
        if (rep == 0) {
            n_facts = g.n;
            first_actual = calloc(n_facts + 1, sizeof *first_actual);
            time_values = calloc((n_facts + 1) * (size_t)o->repeat, sizeof *time_values);
            time_right = calloc((n_facts + 1) * (size_t)o->repeat, sizeof *time_right);
            if (!first_actual || !time_values || !time_right) {
                wb_grade_free(&g);
                rc = wb_fail(err, WB_EXIT_INPUT, _("out of memory"));
                break;
            }
            char desc[512];
            if (!json) {
                char line[9000];
                const char *status = answers->verified ? _("verified") : _("unverified");
                if (live) snprintf(line, sizeof line, _("Verifying %s (%s answers, %s) against a live capture"), key_path, answers->arch, status);
                else snprintf(line, sizeof line, _("Verifying %s (%s answers, %s) against the recording %s"), key_path, answers->arch, status,
                              rec.path);
                wb_wrap(stdout, line, 0, 2, wb_term_width(stdout));
                fputs("  GPU: ", stdout);
                wb_wrap(stdout, wb_capture_describe(&rec.runs[0].capture, desc, sizeof desc), 7, 4, wb_term_width(stdout));
                if (wb_recording_pytorch(&rec, desc, sizeof desc)) fputs("  ", stdout), wb_wrap(stdout, desc, 2, 4, wb_term_width(stdout));
                char ref_path[4200], differ[2048] = "";
                wb_recording reference = {0};
                wb_error ignored = {0};
                snprintf(ref_path, sizeof ref_path, "%s/traces/%s.json", lesson.dir, rec_arch);
                if (live && wb_file_exists(ref_path) && !wb_recording_load(ref_path, &reference, &ignored) &&
                    wb_versions_differ(&rec, &reference, differ, sizeof differ)) {
                    char note[4096];
                    snprintf(note, sizeof note, _("Not the recording's software: %s. %s"), differ, _(WB_VERSIONS_MAY_DIFFER));
                    fputs("  ", stdout);
                    wb_wrap(stdout, note, 2, 4, wb_term_width(stdout));
                }
                wb_recording_free(&reference);
            }
            if (!json && rec.calibration.present) {
                char line[1200];
                snprintf(line, sizeof line, _("Ceilings: copy %.3f TB/s, bf16 matrix %.1f TFLOP/s (%s)"),
                         rec.calibration.copy_bytes_per_s / 1e12, rec.calibration.matrix_flops_per_s / 1e12, rec.calibration.method);
                fputs("  ", stdout);
                wb_wrap(stdout, line, 2, 4, wb_term_width(stdout));
            }
        }
        json_t *diffs = json_array();
        for (size_t i = 0; i < g.n && i < n_facts; i++) {
            const wb_graded_fact *x = &g.facts[i];
            char pred[64], act[64];
            time_values[i * (size_t)o->repeat + (size_t)rep] = x->actual_us;
            time_right[i * (size_t)o->repeat + (size_t)rep] = x->right;
            if (!x->right) wrong += rep == 0 || x->is_time; /* a time fact counts once per run it misses */
            if (!x->right && !json && (rep == 0 || x->is_time)) {
                verdict(wb_red(stdout), _("differs"));
                printf("%s %-32s ", x->prediction->id, x->fact->label);
                printf(_("answer %s, captured "), wb_graded_predicted_text(x, pred, sizeof pred));
                if (x->actual >= 0) printf("%s", wb_graded_actual_text(x, act, sizeof act));
                else {
                    printf("%s", _("per occurrence:"));
                    for (size_t k = 0; k < x->n_occurrences && k < 12; k++) {
                        wb_fact_value_of(x->fact)->text((double)x->per_occurrence[k], act, sizeof act);
                        printf(" %s", act);
                    }
                    printf("%s", x->n_occurrences ? "" : _(" (range never occurred)"));
                }
                if (x->is_time && x->actual >= 0) printf(_(" (run %d; right from %s us)"), rep + 1, wb_graded_band_text(x, act, sizeof act));
                printf("\n");
            }
            if (rep == 0) {
                first_actual[i] = x->actual;
            } else if (!x->is_time && x->actual != first_actual[i]) {
                flaky++;
                if (!json) {
                    wb_graded_fact was = *x;
                    was.actual = first_actual[i];
                    verdict(wb_red(stdout), _("flaky"));
                    printf("%s %-32s ", x->prediction->id, x->fact->label);
                    printf(_("run 1: %s, run %d: %s\n"), wb_graded_actual_text(&was, pred, sizeof pred), rep + 1,
                           wb_graded_actual_text(x, act, sizeof act));
                }
            }
            if (!x->right) {
                json_t *d = json_pack("{s:s, s:s}", "id", x->prediction->id, "fact", x->fact->label);
                json_object_set_new(d, "answer", json_string(wb_graded_predicted_text(x, pred, sizeof pred)));
                json_object_set_new(d, "actual", x->actual >= 0 ? json_string(wb_graded_actual_text(x, act, sizeof act)) : json_null());
                json_array_append_new(diffs, d);
            }
        }
        json_array_append_new(runs_json, json_pack("{s:i, s:I, s:I, s:o}", "run", rep + 1, "right", (json_int_t)g.right, "total",
                                                   (json_int_t)g.n, "differences", diffs));
        if (rep == 0) first = g;
        else wb_grade_free(&g);
    }
    /* time facts: their spread over the runs, and whether they held in every one */
    json_t *times_json = json_array();
    for (size_t i = 0; !rc && i < first.n && i < n_facts; i++) {
        const wb_graded_fact *x = &first.facts[i];
        if (!x->is_time) continue;
        const double *v = &time_values[i * (size_t)o->repeat];
        double lo = v[0], hi = v[0];
        int held = 0;
        for (int r = 0; r < o->repeat; r++) {
            lo = v[r] < lo ? v[r] : lo;
            hi = v[r] > hi ? v[r] : hi;
            held += time_right[i * (size_t)o->repeat + (size_t)r];
        }
        double mid = wb_median(v, (size_t)o->repeat), spread = mid > 0 ? (hi - lo) / mid : 0;
        json_t *vals = json_array();
        for (int r = 0; r < o->repeat; r++) json_array_append_new(vals, json_real(v[r]));
        json_array_append_new(times_json, json_pack("{s:s, s:s, s:f, s:f, s:o, s:f, s:f, s:f, s:i, s:i}", "id", x->prediction->id,
                                                    "fact", x->fact->label, "answer", x->predicted_us, "tolerance", x->tolerance,
                                                    "per_run", vals, "min", lo, "max", hi, "spread", spread, "held", held, "runs",
                                                    o->repeat));
        if (json) continue;
        char pred[64];
        char line[2048];
        int n = snprintf(line, sizeof line, _("%s %s: answer %s us, runs:"), x->prediction->id, x->fact->label,
                         wb_graded_predicted_text(x, pred, sizeof pred));
        for (int r = 0; r < o->repeat && n > 0 && (size_t)n < sizeof line; r++) n += snprintf(line + n, sizeof line - (size_t)n, " %.1f", v[r]);
        if (n > 0 && (size_t)n < sizeof line)
            snprintf(line + n, sizeof line - (size_t)n, _(" (spread %.1f%%; within %.0f%% in %d of %d)"), 100 * spread, 100 * x->tolerance,
                     held, o->repeat);
        verdict(held == o->repeat ? wb_green(stdout) : wb_red(stdout), _("time"));
        wb_wrap(stdout, line, 11, 13, wb_term_width(stdout));
    }
    wb_grade_free(&first);
    free(first_actual);
    free(time_values);
    free(time_right);
    if (!rc) {
        int holds = wrong == 0 && flaky == 0;
        if (json) {
            json_t *o_json = json_pack("{s:s, s:s, s:s, s:b, s:I, s:I, s:I, s:o, s:o}", "lesson", lesson.lesson, "source",
                                       live ? "live" : "replay", "arch", answers->arch, "holds", holds, "facts", (json_int_t)n_facts,
                                       "differing", (json_int_t)wrong, "flaky", (json_int_t)flaky, "runs", runs_json, "time_facts",
                                       times_json);
            runs_json = times_json = NULL;
            char *text = json_dumps(o_json, JSON_INDENT(2));
            puts(text ? text : "{}");
            free(text);
            json_decref(o_json);
        } else {
            fputs(holds ? wb_green(stdout) : wb_red(stdout), stdout);
            printf(_("%s: %zu facts, %zu differ"), holds ? _("holds") : _("does not hold"), n_facts, wrong);
            printf("%s\n", wb_reset(stdout));
            if (o->repeat > 1)
                printf(wb_ngettext("  %d runs, %zu flaky fact value\n", "  %d runs, %zu flaky fact values\n", flaky), o->repeat, flaky);
        }
        rc = holds ? WB_EXIT_OK : WB_EXIT_WRONG;
    }
    json_decref(times_json);
    json_decref(runs_json);
out:
    free(variants);
    wb_recording_free(&rec);
    wb_answer_key_free(&key);
    wb_lesson_free(&lesson);
    return rc;
}

int cmd_verify(int argc, char **argv) {
    verify_options o;
    int p = parse(argc, argv, &o, "verify", VERIFY_USAGE, 1);
    if (p < 0) return WB_EXIT_OK;
    if (p > 0) return p;
    wb_error err = {0};
    int rc = run_verify(&o, &err);
    if (err.code) {
        if (!strcmp(o.format, "json")) wb_report_json_error(stdout, rc, err.message);
        rc = wb_cli_finish("verify", rc, err.message);
    }
    return rc;
}

int cmd_record(int argc, char **argv) {
    verify_options o;
    int p = parse(argc, argv, &o, "record", RECORD_USAGE, 0);
    if (p < 0) return WB_EXIT_OK;
    if (p > 0) return p;
    wb_error err = {0};
    wb_lesson lesson;
    wb_recording rec = {0};
    const char **variants = NULL;
    char dir[4096];
    int rc = wb_resolve_lesson(o.lesson_dir, dir, sizeof dir, &err);
    if (rc) goto done;
    if ((rc = wb_lesson_load(dir, &lesson, &err))) goto lesson_out;
    char arch[16], gpu[256], no_torch[1200];
    if (wb_probe_device(arch, sizeof arch, gpu, sizeof gpu) <= 0) {
        rc = wb_fail(&err, WB_EXIT_CAPTURE, _("no CUDA device here: recordings are made on a GPU machine"));
        goto lesson_out;
    }
    variants = calloc(lesson.n_variants + 1, sizeof *variants);
    if (!variants) {
        rc = wb_fail(&err, WB_EXIT_INPUT, _("out of memory"));
        goto lesson_out;
    }
    for (size_t v = 0; v < lesson.n_variants; v++) variants[v] = lesson.variants[v].name;
    /* the recording holds every variant: one that cannot run here would be lost from it */
    if (!wb_python_variants_ready(&lesson, variants, lesson.n_variants, no_torch, sizeof no_torch)) {
        rc = wb_fail(&err, WB_EXIT_CAPTURE, _("cannot record %s here: %s"), lesson.lesson, no_torch);
        goto lesson_out;
    }
    char run_dir[4096];
    if ((rc = wb_make_run_dir(lesson.dir, lesson.lesson, "record", run_dir, sizeof run_dir, &err))) goto lesson_out;
    wb_live_request req = {&lesson, variants, lesson.n_variants, run_dir, stderr, o.repeat, NULL}; /* a recording: always measured */
    if ((rc = wb_capture_live(&req, &rec, &err))) goto lesson_out;
    if ((rc = wb_check_usable(&rec, &lesson, variants, lesson.n_variants, run_dir, &err))) goto lesson_out;
    char traces[4200], target[4300], captures[64][4200];
    const char *capture_paths[64];
    snprintf(traces, sizeof traces, "%s/traces", lesson.dir);
    snprintf(target, sizeof target, "%s/%s.json", traces, rec.runs[0].capture.arch);
    if (rec.n_runs > 64) {
        rc = wb_fail(&err, WB_EXIT_INPUT, _("%s: more than 64 variants"), lesson.path);
        goto lesson_out;
    }
    for (size_t i = 0; i < rec.n_runs; i++) {
        snprintf(captures[i], sizeof captures[i], "%s/capture-%s.json", run_dir, rec.runs[i].variant);
        capture_paths[i] = captures[i];
    }
    if (wb_mkdir_p(traces) != 0) {
        rc = wb_fail(&err, WB_EXIT_INPUT, _("%s: cannot create the folder"), traces);
        goto lesson_out;
    }
    /* the lesson's copy: the run folder's recording without the initialisation calls outside the
     * profiled window */
    wb_recording_extras extras = {&rec.calibration, rec.repeats, rec.n_repeats, &rec};
    if ((rc = wb_recording_write(target, lesson.lesson, rec.recorded_at, rec.runs, capture_paths, rec.n_runs, &extras, &err)))
        goto lesson_out;
    char desc[512];
    printf(wb_ngettext("Recorded %zu variant of %s on %s\n  -> %s\n", "Recorded %zu variants of %s on %s\n  -> %s\n", rec.n_runs), rec.n_runs,
           lesson.lesson,
           wb_capture_describe(&rec.runs[0].capture, desc, sizeof desc), target);
lesson_out:
    free(variants);
    wb_recording_free(&rec);
    wb_lesson_free(&lesson);
done:
    if (err.code) wb_cli_error("record", err.message);
    return rc;
}
