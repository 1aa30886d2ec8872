/*
 * gradebook_html.c: the gradebook's report as one HTML page that works offline: inline CSS, no
 * script, nothing fetched. Per lesson, a table of questions and facts with the first-try share as
 * a bar, the discrimination index and the flags, then the learners' scores (folded: <details>).
 * Each fact's row carries its figures as data- attributes, which the test reads back from the page
 * Chromium rendered.
 */
#define _GNU_SOURCE
#include "gradebook_report.h"
#include "wb_base.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void esc(FILE *f, const char *s) {
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* A figure for a data- attribute: full precision, "" when undefined. */
static void attr_num(FILE *f, const char *name, double v) {
    if (isnan(v)) fprintf(f, " data-%s=\"\"", name);
    else fprintf(f, " data-%s=\"%.17g\"", name, v);
}

static void share_cell(FILE *f, double v) {
    if (isnan(v)) {
        fputs("<td class=\"num\">-</td>", f);
        return;
    }
    fprintf(f, "<td class=\"share\"><span class=\"bar\" style=\"width:%.0fpx\"></span> %.0f%%</td>", 80 * v, 100 * v);
}

static void disc_cell(FILE *f, double v) {
    if (isnan(v)) fputs("<td class=\"num\">-</td>", f);
    else fprintf(f, "<td class=\"num\">%.2f</td>", v);
}

static void flags_cell(FILE *f, wb_gb_flags g) {
    fputs("<td>", f);
    if (g.most_missed) fprintf(f, "<span class=\"flag missed\">%s</span> ", _("most missed"));
    if (g.not_discriminating) fprintf(f, "<span class=\"flag flat\">%s</span>", _("not discriminating"));
    fputs("</td>", f);
}

/* The cells a question and a fact share: learners, the first-try share, the index, the flags. */
static void figure_cells(FILE *f, long learners, double share, double discrimination, wb_gb_flags flags) {
    fprintf(f, "<td class=\"num\">%ld</td>", learners);
    share_cell(f, share);
    disc_cell(f, discrimination);
    flags_cell(f, flags);
}

static void fact_row(FILE *f, const wb_gb_lesson *l, const wb_gb_question *q, const wb_gb_fact *x) {
    fputs("<tr class=\"fact\" data-lesson=\"", f);
    esc(f, l->name);
    fputs("\" data-question=\"", f);
    esc(f, q->id);
    fputs("\" data-fact=\"", f);
    esc(f, x->label);
    fprintf(f, "\" data-learners=\"%ld\"", x->learners);
    attr_num(f, "right-share", x->right_share);
    attr_num(f, "discrimination", x->discrimination);
    fprintf(f, " data-flags=\"%s%s%s\">", x->flags.most_missed ? "most-missed" : "",
            x->flags.most_missed && x->flags.not_discriminating ? " " : "", x->flags.not_discriminating ? "not-discriminating" : "");
    fputs("<td class=\"label\">", f);
    esc(f, x->label);
    fputs("</td>", f);
    figure_cells(f, x->learners, x->right_share, x->discrimination, x->flags);
    fputs("<td>", f);
    if (!strcmp(x->kind, "time") && x->error_n)
        fprintf(f, _("error %+.0f%% / %+.0f%% / %+.0f%% (quartiles)"), 100 * x->error_q1, 100 * x->error_median, 100 * x->error_q3);
    for (size_t w = 0; w < x->n_wrong; w++) {
        fputs(w ? ", " : "", f);
        fputs("<code>", f);
        esc(f, x->wrong[w].answer);
        fprintf(f, "</code>&nbsp;&times;%ld", x->wrong[w].count);
    }
    fputs("</td></tr>\n", f);
}

void wb_gb_report_html(FILE *f, const wb_gb_report *r) {
    /* the page's language is the messages' (a browser picks its fonts and line breaking by it) */
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"%s\"><head><meta charset=\"utf-8\"><title>%s</title>\n<style>\n", wb_i18n_lang(),
            _("Gradebook"));
    fputs(
          "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1b1b1b;background:#fff}\n"
          "h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}\n"
          "table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 8px;text-align:left;vertical-align:top}\n"
          "tr.question td{font-weight:600;border-top:1px solid #ddd;background:#f6f6f6}tr.fact td.label{padding-left:24px}\n"
          "td.num{text-align:right;font-variant-numeric:tabular-nums}td.share{white-space:nowrap}\n"
          ".bar{display:inline-block;height:10px;background:#3a7bd5;vertical-align:middle}\n"
          ".flag{font-size:12px;padding:1px 5px;border-radius:3px;color:#fff;white-space:nowrap}.missed{background:#c0392b}.flat{background:#8e6c00}\n"
          "p.rule{max-width:60em;color:#444}\n</style></head><body>\n", f);
    fprintf(f, "<h1>%s</h1>\n", _("Gradebook"));
    fprintf(f, "<p id=\"summary\" data-learners=\"%ld\" data-submissions=\"%ld\">", r->learners, r->submissions);
    fprintf(f, _("%ld learners, %ld submissions; course <code>"), r->learners, r->submissions);
    esc(f, r->course && *r->course ? r->course : _("(none yet)"));
    fprintf(f, "</code></p>\n<p class=\"rule\">%s", _("Discrimination index: the "));
    esc(f, _(WB_GB_DISCRIMINATION_RULE));
    fprintf(f, _(". Flags, with %d learners or more: <span class=\"flag missed\">most missed</span> under %.0f%% right at the "
                 "first try (a question: every fact right); <span class=\"flag flat\">not discriminating</span> index under "
                 "%.2f or undefined. Times: quartiles of the error (predicted &minus; actual) / actual.</p>\n"),
            WB_GB_MIN_LEARNERS, 100 * WB_GB_MOST_MISSED, WB_GB_LOW_DISCRIMINATION);
    for (size_t i = 0; i < r->n_lessons; i++) {
        const wb_gb_lesson *l = &r->lessons[i];
        fputs("<section class=\"lesson\" data-lesson=\"", f);
        esc(f, l->name);
        fprintf(f, "\" data-cohort=\"%ld\"><h2>", l->cohort);
        esc(f, l->name);
        fputs(": ", f);
        esc(f, l->title);
        fputs("</h2>\n<p>", f);
        fprintf(f, _("%zu learners, %ld in the statistics (the others: unverified, or revealed before grading)."), l->n_learners,
                l->cohort);
        fprintf(f, "</p>\n<table class=\"questions\"><tr><th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th></tr>\n",
                _("question / fact"), _("learners"), _("right at first try"), _("discrimination"), _("flags"),
                _("wrong answers / error"));
        for (size_t q = 0; q < l->n_questions; q++) {
            const wb_gb_question *x = &l->questions[q];
            fputs("<tr class=\"question\" data-question=\"", f);
            esc(f, x->id);
            fputs("\"><td title=\"", f);
            esc(f, x->ask);
            fputs("\">", f);
            esc(f, x->id);
            fputs("</td>", f);
            figure_cells(f, x->learners, x->all_right_share, x->discrimination, x->flags);
            fprintf(f, "<td class=\"note\">%s</td></tr>\n", _("share: every fact right"));
            for (size_t k = 0; k < x->n_facts; k++) fact_row(f, l, x, &x->facts[k]);
        }
        fprintf(f, "</table>\n<details><summary>%s</summary>\n<table class=\"learners\"><tr><th>%s</th><th>%s</th><th>%s</th>"
                   "<th>%s</th></tr>\n", _("Learners' scores"), _("learner"), _("first try"), _("latest"), _("note"));
        for (size_t j = 0; j < l->n_learners; j++) {
            const wb_gb_learner *x = &l->learners[j];
            fputs("<tr class=\"learner\"><td>", f);
            esc(f, x->name);
            fprintf(f, "</td><td class=\"num\">%ld/%ld</td><td class=\"num\">%ld/%ld</td><td>%s</td></tr>\n", x->first_right,
                    x->first_total, x->latest_right, x->latest_total,
                    x->revealed_first ? _("revealed first") : strcmp(x->status, "regraded") ? _("unverified") : "");
        }
        fputs("</table></details></section>\n", f);
    }
    fputs("</body></html>\n", f);
}
