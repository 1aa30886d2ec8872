/* grade.c: see grade.h. */
#include "grade.h"
#include "facts.h"
#include "tolerance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *wb_prediction_variant(const wb_prediction *p, const wb_lesson *l) {
    if (p->variant) return p->variant;
    return l && l->n_variants == 1 ? l->variants[0].name : NULL;
}

int wb_predictions_check_lesson(const wb_prediction_set *p, const wb_lesson *l, wb_error *err) {
    char list[1024];
    if (strcmp(p->lesson, l->lesson) != 0)
        return wb_fail_at(err, WB_EXIT_INPUT, p->path, 1, 0, "'lesson: %s' but this is lesson %s; are these the right predictions?",
                          p->lesson, l->lesson);
    for (size_t i = 0; i < p->n; i++) {
        const wb_prediction *q = &p->items[i];
        if (q->variant && !wb_lesson_variant(l, q->variant))
            return wb_fail_at(err, WB_EXIT_INPUT, p->path, q->line, 0, "prediction '%s': unknown variant '%s' (lesson %s has: %s)",
                              q->id, q->variant, l->lesson, wb_lesson_variant_list(l, list, sizeof list));
        if (!q->variant && l->n_variants > 1)
            return wb_fail_at(err, WB_EXIT_INPUT, p->path, q->line, 0,
                              "prediction '%s' needs 'variant:' because lesson %s runs several (%s)", q->id, l->lesson,
                              wb_lesson_variant_list(l, list, sizeof list));
        if (!wb_lesson_has_range(l, q->range))
            return wb_fail_at(err, WB_EXIT_INPUT, p->path, q->line, 0, "prediction '%s': unknown range '%s' (lesson %s has: %s)",
                              q->id, q->range, l->lesson, wb_lesson_range_list(l, list, sizeof list));
    }
    return 0;
}

void wb_grade_free(wb_grade *g) {
    for (size_t i = 0; i < g->n; i++) free(g->facts[i].per_occurrence);
    free(g->facts);
    memset(g, 0, sizeof *g);
}

int wb_grade_predictions(const wb_prediction_set *p, const wb_lesson *l, const wb_recording *rec, wb_grade *out,
                         wb_error *err) {
    memset(out, 0, sizeof *out);
    size_t total = 0;
    for (size_t i = 0; i < p->n; i++) total += p->items[i].n_facts;
    out->facts = calloc(total + 1, sizeof *out->facts);
    if (!out->facts) return wb_fail(err, WB_EXIT_INPUT, "out of memory");

    for (size_t i = 0; i < p->n; i++) {
        const wb_prediction *q = &p->items[i];
        const char *variant = wb_prediction_variant(q, l);
        const wb_run *run = variant ? wb_recording_run(rec, variant) : (rec->n_runs == 1 ? &rec->runs[0] : NULL);
        if (!run)
            return wb_fail(err, WB_EXIT_CAPTURE, "%s: no capture of variant '%s', which prediction '%s' needs; re-record the lesson "
                           "(grader record) or run live", rec->path ? rec->path : "the capture", variant ? variant : "?", q->id);
        wb_occurrences occ;
        if (wb_find_occurrences(&run->capture, q->range, &occ)) return wb_fail(err, WB_EXIT_INPUT, "out of memory");
        for (size_t j = 0; j < q->n_facts; j++) {
            const wb_fact *f = &q->facts[j];
            if (f->predicted < 0) continue;
            wb_graded_fact *g = &out->facts[out->n++];
            g->prediction = q;
            g->fact = f;
            g->variant = run->variant;
            g->predicted = f->predicted;
            g->n_occurrences = occ.n;
            g->per_occurrence = calloc(occ.n + 1, sizeof *g->per_occurrence);
            int agree = occ.n > 0;
            for (size_t k = 0; k < occ.n && g->per_occurrence; k++) {
                g->per_occurrence[k] = wb_count_fact(&run->capture, &occ.items[k], f);
                if (g->per_occurrence[k] != g->per_occurrence[0]) agree = 0;
            }
            if (wb_fact_is_time(f->kind) && g->per_occurrence && occ.n > 0) {
                /* times differ between occurrences by nature: the median one is graded */
                g->actual = wb_median_long(g->per_occurrence, occ.n);
                g->right = wb_within_tolerance(g->predicted, g->actual, WB_TIME_TOLERANCE);
            } else {
                g->actual = agree ? g->per_occurrence[0] : -1;
                g->right = agree && g->actual == g->predicted;
            }
            out->right += (size_t)g->right;
        }
        wb_occurrences_free(&occ);
    }
    return 0;
}
