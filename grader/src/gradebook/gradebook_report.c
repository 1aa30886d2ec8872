/* gradebook_report.c: see gradebook_report.h (text, CSV, JSON; the HTML page is gradebook_html.c). */
#define _GNU_SOURCE
#include "gradebook_report.h"
#include "wb_base.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char WB_GB_DISCRIMINATION_RULE[] = N_(
    "corrected point-biserial correlation: Pearson's r between a fact being right at the first try and "
    "the share right of the learner's other facts in the lesson (a question: its share of facts right "
    "against the facts outside it)");

static json_t *num(double v) { return isnan(v) ? json_null() : json_real(v); }

static json_t *flags_json(wb_gb_flags f) {
    json_t *a = json_array();
    if (f.most_missed) json_array_append_new(a, json_string("most-missed"));
    if (f.not_discriminating) json_array_append_new(a, json_string("not-discriminating"));
    return a;
}

/* ---- JSON ---------------------------------------------------------------------------------- */

static json_t *fact_json(const wb_gb_fact *f) {
    json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:o, s:o, s:o}", "fact", f->label, "kind", f->kind, "learners",
                          (json_int_t)f->learners, "right", (json_int_t)f->right, "right_share", num(f->right_share),
                          "discrimination", num(f->discrimination), "flags", flags_json(f->flags));
    if (!strcmp(f->kind, "time")) {
        json_object_set_new(o, "error_share", json_pack("{s:I, s:o, s:o, s:o}", "n", (json_int_t)f->error_n, "q1",
                                                        num(f->error_q1), "median", num(f->error_median), "q3",
                                                        num(f->error_q3)));
    } else {
        json_t *w = json_array();
        for (size_t i = 0; i < f->n_wrong; i++)
            json_array_append_new(w, json_pack("{s:s, s:I}", "answer", f->wrong[i].answer, "count", (json_int_t)f->wrong[i].count));
        json_object_set_new(o, "wrong_answers", w);
    }
    return o;
}

json_t *wb_gb_report_json(const wb_gb_report *r) {
    json_t *lessons = json_array();
    for (size_t i = 0; i < r->n_lessons; i++) {
        const wb_gb_lesson *l = &r->lessons[i];
        json_t *learners = json_array(), *questions = json_array();
        for (size_t j = 0; j < l->n_learners; j++) {
            const wb_gb_learner *x = &l->learners[j];
            json_array_append_new(learners, json_pack("{s:s, s:s, s:b, s:b, s:s, s:{s:I, s:I}, s:{s:I, s:I}}", "name", x->name,
                                                      "status", x->status, "revealed_before_grading", x->revealed_first,
                                                      "in_statistics", x->in_cohort, "graded_against", x->against, "first",
                                                      "right", (json_int_t)x->first_right, "total", (json_int_t)x->first_total,
                                                      "latest", "right", (json_int_t)x->latest_right, "total",
                                                      (json_int_t)x->latest_total));
        }
        for (size_t q = 0; q < l->n_questions; q++) {
            const wb_gb_question *x = &l->questions[q];
            json_t *facts = json_array();
            for (size_t f = 0; f < x->n_facts; f++) json_array_append_new(facts, fact_json(&x->facts[f]));
            json_array_append_new(questions, json_pack("{s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:o}", "id", x->id, "ask", x->ask,
                                                       "learners", (json_int_t)x->learners, "all_right_share",
                                                       num(x->all_right_share), "mean_share", num(x->mean_share),
                                                       "discrimination", num(x->discrimination), "flags",
                                                       flags_json(x->flags), "facts", facts));
        }
        json_array_append_new(lessons, json_pack("{s:s, s:s, s:I, s:o, s:o}", "lesson", l->name, "title", l->title, "cohort",
                                                 (json_int_t)l->cohort, "learners", learners, "questions", questions));
    }
    return json_pack("{s:s, s:i, s:s?, s:I, s:I, s:{s:s, s:i, s:f, s:f, s:i}, s:o}", "format", "gpu-workbench-gradebook-report",
                     "version", 1, "course", r->course && *r->course ? r->course : NULL, "learners", (json_int_t)r->learners,
                     "submissions", (json_int_t)r->submissions, "rules", "discrimination", _(WB_GB_DISCRIMINATION_RULE),
                     "min_learners", WB_GB_MIN_LEARNERS, "most_missed_below", WB_GB_MOST_MISSED, "not_discriminating_below",
                     WB_GB_LOW_DISCRIMINATION, "wrong_answers", WB_GB_WRONG_ANSWERS, "lessons", lessons);
}

/* ---- text ---------------------------------------------------------------------------------- */

static const char *pct(double v, char *buf, size_t cap) {
    if (isnan(v)) snprintf(buf, cap, "-");
    else snprintf(buf, cap, "%.0f%%", 100 * v);
    return buf;
}

static const char *fixed2(double v, char *buf, size_t cap) {
    if (isnan(v)) snprintf(buf, cap, "-");
    else snprintf(buf, cap, "%.2f", v);
    return buf;
}

static const char *flags_text(wb_gb_flags f) {
    return f.most_missed && f.not_discriminating ? "MISSED FLAT" : f.most_missed ? "MISSED" : f.not_discriminating ? "FLAT" : "";
}

/* One row of the questions table: name, learners, right share, r, flags, then what is left of
 * the width for the wrong answers or the error. */
static void row(FILE *f, int indent, const char *name, long n, double share, double r, wb_gb_flags flags, const char *rest,
                int width) {
    char fit[128], a[16], b[16], tail[512];
    wb_fit_name_start(name, (size_t)(30 - indent), fit, sizeof fit);
    int used = fprintf(f, "%*s%-*s %4ld %5s %5s  %-11s", indent, "", 30 - indent, fit, n, pct(share, a, sizeof a),
                       fixed2(r, b, sizeof b), flags_text(flags));
    int room = width - used - 1;
    if (rest[0] && room > 8) fprintf(f, " %s", wb_fit_name_start(rest, (size_t)room, tail, sizeof tail));
    fputc('\n', f);
}

void wb_gb_report_text(FILE *f, const wb_gb_report *r, int width) {
    if (width < 72) width = 72;
    char line[2048];
    char learners[64], submissions[64];
    snprintf(learners, sizeof learners, wb_ngettext("%ld learner", "%ld learners", (unsigned long)r->learners), r->learners);
    snprintf(submissions, sizeof submissions, wb_ngettext("%ld submission", "%ld submissions", (unsigned long)r->submissions),
             r->submissions);
    snprintf(line, sizeof line, _("Gradebook: %s, %s, course %.19s..."), learners, submissions,
             r->course && *r->course ? r->course : _("(none yet)"));
    wb_wrap(f, line, 0, 2, width);
    snprintf(line, sizeof line, _("r: the discrimination index, the %s. Flags, with %d learners or more: MISSED, under %.0f%% right at "
             "the first try (a question: every fact right); FLAT, r under %.2f or undefined."),
             _(WB_GB_DISCRIMINATION_RULE), WB_GB_MIN_LEARNERS, 100 * WB_GB_MOST_MISSED, WB_GB_LOW_DISCRIMINATION);
    wb_wrap(f, line, 0, 2, width);
    for (size_t i = 0; i < r->n_lessons; i++) {
        const wb_gb_lesson *l = &r->lessons[i];
        snprintf(line, sizeof line, _("Lesson %s: %s"), l->name, l->title);
        fputc('\n', f);
        wb_wrap(f, line, 0, 2, width);
        snprintf(line, sizeof line,
                 wb_ngettext("%zu learner, %ld in the statistics (the others: unverified, or revealed before grading)",
                             "%zu learners, %ld in the statistics (the others: unverified, or revealed before grading)", l->n_learners),
                 l->n_learners, l->cohort);
        wb_wrap(f, line, 0, 2, width);
        fputs("\n  ", f); /* headings padded by display width: they may be Japanese */
        wb_pad(f, _("learner"), 29), wb_pad(f, _("first try"), 16), wb_pad(f, _("latest"), 16);
        fprintf(f, "%s\n", _("note"));
        for (size_t j = 0; j < l->n_learners; j++) {
            const wb_gb_learner *x = &l->learners[j];
            char name[128], a[16], b[16];
            const char *note = x->revealed_first ? _("revealed first") : strcmp(x->status, "regraded") ? _("unverified") : "";
            fprintf(f, "  %-28s %4ld/%-4ld%5s  %4ld/%-4ld%5s  %s\n", wb_fit_name_start(x->name, 28, name, sizeof name),
                    x->first_right, x->first_total,
                    pct(x->first_total ? (double)x->first_right / (double)x->first_total : NAN, a, sizeof a),
                    x->latest_right, x->latest_total,
                    pct(x->latest_total ? (double)x->latest_right / (double)x->latest_total : NAN, b, sizeof b), note);
        }
        fputc('\n', f);
        wb_pad(f, _("question / fact"), 31);
        fprintf(f, "%4s ", "n");
        for (int pad = 5 - (int)wb_columns(_("right")); pad > 0; pad--) fputc(' ', f); /* right-aligned like %5s */
        fprintf(f, "%s %5s  ", _("right"), "r");
        wb_pad(f, _("flags"), 12);
        fprintf(f, "%s\n", _("wrong / error"));
        for (size_t q = 0; q < l->n_questions; q++) {
            const wb_gb_question *x = &l->questions[q];
            row(f, 0, x->id, x->learners, x->all_right_share, x->discrimination, x->flags, "", width);
            for (size_t k = 0; k < x->n_facts; k++) {
                const wb_gb_fact *y = &x->facts[k];
                char rest[512] = "";
                size_t used = 0;
                if (!strcmp(y->kind, "time") && y->error_n)
                    snprintf(rest, sizeof rest, "%+.0f%% %+.0f%% %+.0f%%", 100 * y->error_q1, 100 * y->error_median,
                             100 * y->error_q3);
                for (size_t w = 0; w < y->n_wrong && used < sizeof rest; w++)
                    used += (size_t)snprintf(rest + used, sizeof rest - used, "%s%s x%ld", w ? ", " : "", y->wrong[w].answer,
                                             y->wrong[w].count);
                row(f, 2, y->label, y->learners, y->right_share, y->discrimination, y->flags, rest, width);
            }
        }
    }
    wb_wrap(f, _("\nA question's right: the share with every fact right. Wrong / error: the most common wrong first answers "
                 "(xN learners); for times, the quartiles of the error, (predicted - actual) / actual."), 0, 2, width);
}

/* ---- CSV ----------------------------------------------------------------------------------- */

static void csv_text(FILE *f, const char *s, int last) {
    int formula = s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@';
    if (formula || strpbrk(s, ",\"\r\n")) {
        fputc('"', f);
        if (formula) fputc('\'', f);
        for (const char *p = s; *p; p++) {
            if (*p == '"') fputc('"', f);
            fputc(*p, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
    fputs(last ? "\r\n" : ",", f);
}

static void csv_num(FILE *f, double v, int last) {
    if (!isnan(v)) fprintf(f, "%.6f", v);
    fputs(last ? "\r\n" : ",", f);
}

static void csv_int(FILE *f, long v, int last) { fprintf(f, "%ld%s", v, last ? "\r\n" : ","); }

void wb_gb_report_csv(FILE *f, const wb_gb_report *r, wb_gb_table table) {
    if (table == WB_GB_TABLE_LEARNERS)
        fputs("lesson,learner,status,revealed_before_grading,in_statistics,first_right,first_total,latest_right,latest_total,"
              "graded_against\r\n", f);
    else if (table == WB_GB_TABLE_QUESTIONS)
        fputs("lesson,question,learners,all_right_share,mean_share,discrimination,most_missed,not_discriminating\r\n", f);
    else
        fputs("lesson,question,fact,kind,learners,right,right_share,discrimination,most_missed,not_discriminating,"
              "wrong_answers,error_n,error_q1,error_median,error_q3\r\n", f);
    for (size_t i = 0; i < r->n_lessons; i++) {
        const wb_gb_lesson *l = &r->lessons[i];
        for (size_t j = 0; table == WB_GB_TABLE_LEARNERS && j < l->n_learners; j++) {
            const wb_gb_learner *x = &l->learners[j];
            csv_text(f, l->name, 0), csv_text(f, x->name, 0), csv_text(f, x->status, 0);
            csv_int(f, x->revealed_first, 0), csv_int(f, x->in_cohort, 0), csv_int(f, x->first_right, 0);
            csv_int(f, x->first_total, 0), csv_int(f, x->latest_right, 0), csv_int(f, x->latest_total, 0);
            csv_text(f, x->against, 1);
        }
        for (size_t q = 0; table != WB_GB_TABLE_LEARNERS && q < l->n_questions; q++) {
            const wb_gb_question *x = &l->questions[q];
            if (table == WB_GB_TABLE_QUESTIONS) {
                csv_text(f, l->name, 0), csv_text(f, x->id, 0), csv_int(f, x->learners, 0);
                csv_num(f, x->all_right_share, 0), csv_num(f, x->mean_share, 0), csv_num(f, x->discrimination, 0);
                csv_int(f, x->flags.most_missed, 0), csv_int(f, x->flags.not_discriminating, 1);
                continue;
            }
            for (size_t k = 0; k < x->n_facts; k++) {
                const wb_gb_fact *y = &x->facts[k];
                char wrong[512] = "";
                size_t used = 0;
                for (size_t w = 0; w < y->n_wrong && used < sizeof wrong; w++)
                    used += (size_t)snprintf(wrong + used, sizeof wrong - used, "%s%s x%ld", w ? "; " : "", y->wrong[w].answer,
                                             y->wrong[w].count);
                csv_text(f, l->name, 0), csv_text(f, x->id, 0), csv_text(f, y->label, 0), csv_text(f, y->kind, 0);
                csv_int(f, y->learners, 0), csv_int(f, y->right, 0), csv_num(f, y->right_share, 0);
                csv_num(f, y->discrimination, 0), csv_int(f, y->flags.most_missed, 0), csv_int(f, y->flags.not_discriminating, 0);
                csv_text(f, wrong, 0);
                int time = !strcmp(y->kind, "time");
                if (time) csv_int(f, y->error_n, 0);
                else fputc(',', f);
                csv_num(f, time ? y->error_q1 : NAN, 0), csv_num(f, time ? y->error_median : NAN, 0);
                csv_num(f, time ? y->error_q3 : NAN, 1);
            }
        }
    }
}
