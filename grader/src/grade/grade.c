/* grade.c: see grade.h. */
#include "grade.h"
#include "facts.h"
#include "time_facts.h"

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
        return wb_fail_at(err, WB_EXIT_INPUT, p->path, 1, 0, _("'lesson: %s' but this is lesson %s; are these the right predictions?"),
                          p->lesson, l->lesson);
    for (size_t i = 0; i < p->n; i++) {
        const wb_prediction *q = &p->items[i];
        if (q->variant && !wb_lesson_variant(l, q->variant))
            return wb_fail_at(err, WB_EXIT_INPUT, p->path, q->line, 0, _("prediction '%s': unknown variant '%s' (lesson %s has: %s)"),
                              q->id, q->variant, l->lesson, wb_lesson_variant_list(l, list, sizeof list));
        if (!q->variant && l->n_variants > 1)
            return wb_fail_at(err, WB_EXIT_INPUT, p->path, q->line, 0,
                              _("prediction '%s' needs 'variant:' because lesson %s runs several (%s)"), q->id, l->lesson,
                              wb_lesson_variant_list(l, list, sizeof list));
        if (!wb_lesson_has_range(l, q->range))
            return wb_fail_at(err, WB_EXIT_INPUT, p->path, q->line, 0, _("prediction '%s': unknown range '%s' (lesson %s has: %s)"),
                              q->id, q->range, l->lesson, wb_lesson_range_list(l, list, sizeof list));
        const char *variant = wb_prediction_variant(q, l);
        int ranks = wb_lesson_world_size(l, variant);
        if (q->rank >= ranks)
            return wb_fail_at(err, WB_EXIT_INPUT, p->path, q->line, 0,
                              wb_ngettext("prediction '%s': rank %d, but variant %s runs %d process (ranks 0 to %d); remove "
                                          "'rank:' to count over all of them",
                                          "prediction '%s': rank %d, but variant %s runs %d processes (ranks 0 to %d); remove "
                                          "'rank:' to count over all of them", (unsigned long)ranks),
                              q->id, q->rank, variant ? variant : "?", ranks, ranks - 1);
    }
    return 0;
}

void wb_grade_free(wb_grade *g) {
    for (size_t i = 0; i < g->n; i++) {
        free(g->facts[i].per_occurrence);
        free(g->facts[i].gpu_us);
        free(g->facts[i].wall_us);
        free(g->facts[i].per_us);
    }
    free(g->facts);
    memset(g, 0, sizeof *g);
}

int wb_grade_time_values(wb_graded_fact *g, const double *values, const double *gpu_us, const double *wall_us, size_t n,
                         const wb_work *work, const wb_calibration *cal) {
    const wb_fact *f = g->fact;
    g->n_occurrences = n;
    g->is_time = wb_fact_is_time(f->kind);
    g->predicted_us = f->value;
    g->per_occurrence = calloc(n + 1, sizeof *g->per_occurrence);
    g->gpu_us = calloc(n + 1, sizeof *g->gpu_us);
    g->wall_us = calloc(n + 1, sizeof *g->wall_us);
    if (!g->per_occurrence || !g->gpu_us || !g->wall_us) return -1;
    memcpy(g->gpu_us, gpu_us, n * sizeof *gpu_us);
    memcpy(g->wall_us, wall_us, n * sizeof *wall_us);
    const wb_fact_kind_info *kind = wb_fact_kind_get(f->kind);
    if (g->is_time) {
        /* each occurrence's own value, which the report shows: counted (overlap_us), or one of the
         * range's times (gpu_us, wall_us) */
        g->per_us = calloc(n + 1, sizeof *g->per_us);
        if (!g->per_us) return -1;
        for (size_t k = 0; k < n; k++) g->per_us[k] = values ? values[k] : kind->time_of ? kind->time_of(gpu_us[k], wall_us[k]) : 0;
        g->actual_us = wb_median(g->per_us, n);
        g->actual = n ? 0 : -1;
        g->right = n > 0 && wb_time_within(g->predicted_us, g->actual_us, g->tolerance);
        return 0;
    }
    /* bound: the rule applied to the medians of the occurrences' GPU and wall times, the same
     * medians gpu_us and wall_us grade. One occurrence the host held up (a CUPTI buffer flush, the
     * scheduler) doubles that occurrence's wall time and would make it "overhead"; judging every
     * occurrence apart graded such a run wrong by chance (lesson 03's gate_proj: 1 run in 3 live on
     * the H200, 2026-12-01). Each occurrence's own bound stays in per_occurrence for the report. */
    wb_bound_inputs in;
    for (size_t k = 0; k < n; k++) g->per_occurrence[k] = wb_bound_of(gpu_us[k], wall_us[k], work, cal, &in);
    int median_bound = wb_bound_of(wb_median(gpu_us, n), wb_median(wall_us, n), work, cal, &g->bound);
    g->actual = n ? median_bound : -1;
    g->right = n > 0 && g->actual == g->predicted;
    return 0;
}

double wb_graded_time_at(const wb_graded_fact *g, size_t k) { return g->per_us ? g->per_us[k] : 0; }

const char *wb_graded_predicted_text(const wb_graded_fact *g, char *buf, size_t cap) {
    return wb_fact_value_text(g->fact, buf, cap);
}

const char *wb_graded_actual_text(const wb_graded_fact *g, char *buf, size_t cap) {
    if (g->actual < 0) snprintf(buf, cap, "-");
    else if (g->is_time) snprintf(buf, cap, "%.1f", g->actual_us);
    else wb_fact_value_of(g->fact)->text((double)g->actual, buf, cap);
    return buf;
}

/* v at the band's precision, without trailing zeros: "5.4", "2.14", "300". */
static const char *decimals_text(double v, double actual, char *buf, size_t cap) {
    snprintf(buf, cap, "%.*f", wb_time_band_decimals(actual), v);
    char *dot = strchr(buf, '.');
    if (dot) {
        char *end = buf + strlen(buf);
        while (end > dot + 1 && end[-1] == '0') *--end = '\0';
        if (end[-1] == '.') end[-1] = '\0';
    }
    return buf;
}

const char *wb_graded_band_text(const wb_graded_fact *g, char *buf, size_t cap) {
    if (!g->is_time || g->actual < 0) snprintf(buf, cap, "%s", "");
    else {
        double from, to;
        char a[48], b[48];
        wb_time_band(g->actual_us, g->tolerance, &from, &to);
        snprintf(buf, cap, "%s to %s", decimals_text(from, g->actual_us, a, sizeof a), decimals_text(to, g->actual_us, b, sizeof b));
    }
    return buf;
}

/* A bound can be judged only with the range's declared work and the GPU's measured ceilings. */
static int check_bound_inputs(const wb_prediction_set *p, const wb_prediction *q, const wb_lesson *l, const char *variant,
                              const wb_recording *rec, wb_error *err) {
    for (size_t j = 0; j < q->n_facts; j++) {
        if (!wb_fact_value_of(&q->facts[j])->judged || q->facts[j].predicted < 0) continue;
        if (!l || !wb_lesson_work(l, variant, q->range))
            return wb_fail_at(err, WB_EXIT_INPUT, p->path, q->facts[j].line, q->facts[j].column,
                              _("prediction '%s' asks the bound of range '%s' (variant %s), but %s declares no work for it, so "
                                "its bound cannot be judged. Instructors: add {variant: %s, range: %s, flops: ..., bytes: ...} "
                                "under 'work:' (docs/lesson-format.md); learners: remove 'bound' from this prediction"),
                              q->id, q->range, variant ? variant : "?", l ? l->path : "lesson.yaml", variant ? variant : "?", q->range);
        /* a recording read from a file has its path; one without gets its own sentence, not a
         * fragment pasted where the path goes (Japanese orders the words otherwise) */
        if (!rec->calibration.present && rec->path)
            return wb_fail(err, WB_EXIT_CAPTURE, _("%s holds no calibration of the GPU (copy bandwidth, matrix rate), which "
                           "prediction '%s' needs for its bound; re-record the lesson with grader record, or check live"),
                           rec->path, q->id);
        if (!rec->calibration.present)
            return wb_fail(err, WB_EXIT_CAPTURE, _("the capture holds no calibration of the GPU (copy bandwidth, matrix rate), "
                           "which prediction '%s' needs for its bound; re-record the lesson with grader record, or check live"),
                           q->id);
    }
    return 0;
}

static int grade(const wb_prediction_set *p, const wb_lesson *l, const wb_recording *rec, wb_grade *out, wb_error *err) {
    size_t total = 0;
    for (size_t i = 0; i < p->n; i++) total += p->items[i].n_facts;
    out->facts = calloc(total + 1, sizeof *out->facts);
    if (!out->facts) return wb_fail(err, WB_EXIT_INPUT, _("out of memory"));

    for (size_t i = 0; i < p->n; i++) {
        const wb_prediction *q = &p->items[i];
        const char *variant = wb_prediction_variant(q, l);
        const wb_run *run = variant ? wb_recording_run(rec, variant) : (rec->n_runs == 1 ? &rec->runs[0] : NULL);
        if (!run && rec->path)
            return wb_fail(err, WB_EXIT_CAPTURE, _("%s: no capture of variant '%s', which prediction '%s' needs; re-record the "
                           "lesson (grader record) or run live"), rec->path, variant ? variant : "?", q->id);
        if (!run)
            return wb_fail(err, WB_EXIT_CAPTURE, _("the capture: no capture of variant '%s', which prediction '%s' needs; "
                           "re-record the lesson (grader record) or run live"), variant ? variant : "?", q->id);
        if (check_bound_inputs(p, q, l, run->variant, rec, err)) return err->code;
        int ranks = wb_capture_ranks(&run->capture);
        if (q->rank >= ranks && rec->path)
            return wb_fail(err, WB_EXIT_CAPTURE,
                           wb_ngettext("%s: the capture of variant '%s' holds %d process, but prediction '%s' asks about rank %d; "
                                       "re-record the lesson (grader record) or run live",
                                       "%s: the capture of variant '%s' holds %d processes, but prediction '%s' asks about rank "
                                       "%d; re-record the lesson (grader record) or run live", (unsigned long)ranks),
                           rec->path, run->variant, ranks, q->id, q->rank);
        if (q->rank >= ranks)
            return wb_fail(err, WB_EXIT_CAPTURE,
                           wb_ngettext("the capture: the capture of variant '%s' holds %d process, but prediction '%s' asks about "
                                       "rank %d; re-record the lesson (grader record) or run live",
                                       "the capture: the capture of variant '%s' holds %d processes, but prediction '%s' asks "
                                       "about rank %d; re-record the lesson (grader record) or run live", (unsigned long)ranks),
                           run->variant, ranks, q->id, q->rank);
        wb_occurrences occ;
        if (wb_find_occurrences_on(&run->capture, q->range, q->rank < 0 ? WB_ALL_RANKS : q->rank, &occ))
            return wb_fail(err, WB_EXIT_INPUT, _("out of memory"));
        double *gpu = calloc(occ.n + 1, sizeof *gpu), *wall = calloc(occ.n + 1, sizeof *wall);
        for (size_t k = 0; k < occ.n && gpu && wall; k++) {
            gpu[k] = wb_occurrence_gpu_us(&run->capture, &occ.items[k]);
            wall[k] = wb_occurrence_wall_us(&run->capture, &occ.items[k]);
        }
        for (size_t j = 0; j < q->n_facts; j++) {
            const wb_fact *f = &q->facts[j];
            if (f->predicted < 0) continue;
            wb_graded_fact *g = &out->facts[out->n++];
            g->prediction = q;
            g->fact = f;
            g->variant = run->variant;
            g->predicted = f->predicted;
            g->tolerance = wb_lesson_tolerance(l, q->id);
            const wb_fact_kind_info *kind = wb_fact_kind_get(f->kind);
            if (kind->value->banded || kind->value->judged) {
                /* a time the table counts itself (overlap_us: whole microseconds per occurrence, overlap.h);
                 * else from the range's times (gpu_us and wall_us by time_of, bound by its rule) */
                double *own = kind->count ? calloc(occ.n + 1, sizeof *own) : NULL;
                for (size_t k = 0; own && k < occ.n; k++) own[k] = (double)kind->count(&run->capture, &occ.items[k], f);
                int failed = !gpu || !wall || (kind->count && !own) ||
                             wb_grade_time_values(g, own, gpu, wall, occ.n, l ? wb_lesson_work(l, run->variant, q->range) : NULL,
                                                  &rec->calibration);
                free(own);
                if (failed) {
                    free(gpu), free(wall), wb_occurrences_free(&occ);
                    return wb_fail(err, WB_EXIT_INPUT, _("out of memory"));
                }
                out->right += (size_t)g->right;
                continue;
            }
            g->n_occurrences = occ.n;
            g->per_occurrence = calloc(occ.n + 1, sizeof *g->per_occurrence);
            if (!g->per_occurrence) {
                free(gpu), free(wall), wb_occurrences_free(&occ);
                return wb_fail(err, WB_EXIT_INPUT, _("out of memory while grading; nothing was graded"));
            }
            int agree = occ.n > 0;
            for (size_t k = 0; k < occ.n && g->per_occurrence; k++) {
                g->per_occurrence[k] = wb_count_fact(&run->capture, &occ.items[k], f);
                if (g->per_occurrence[k] != g->per_occurrence[0]) agree = 0;
            }
            g->actual = agree ? g->per_occurrence[0] : -1;
            g->right = agree && g->actual == g->predicted;
            out->right += (size_t)g->right;
        }
        free(gpu);
        free(wall);
        wb_occurrences_free(&occ);
    }
    return 0;
}

int wb_grade_predictions(const wb_prediction_set *p, const wb_lesson *l, const wb_recording *rec, wb_grade *out,
                         wb_error *err) {
    memset(out, 0, sizeof *out);
    int rc = grade(p, l, rec, out, err);
    if (rc) wb_grade_free(out); /* a failed grading leaves nothing to free (the sanitizer job found leaks here) */
    return rc;
}
