/* report.c: see report.h. Text fits the terminal (term.h's wb_term_width); words never split. */
#define _GNU_SOURCE
#include "report.h"
#include "wb_base.h"
#include "wb_grade.h"
#include "versions.h"

#include <stdlib.h>
#include <string.h>

const char *wb_cuda_version_string(long long v, char *buf, size_t cap) {
    if (v < 0) snprintf(buf, cap, "unknown");
    else snprintf(buf, cap, "%lld.%lld", v / 1000, (v % 1000) / 10);
    return buf;
}

const char *wb_capture_describe(const wb_capture *c, char *buf, size_t cap) {
    char drv[16], rt[16], gpu[256];
    snprintf(buf, cap, _("%s (%s), driver supports CUDA %s, runtime %s, cuBLAS %s"), wb_term_clean(c->gpu, gpu, sizeof gpu), c->arch,
             wb_cuda_version_string(c->driver_version, drv, sizeof drv), wb_cuda_version_string(c->runtime_version, rt, sizeof rt),
             c->cublas_version[0] ? c->cublas_version : _("not loaded"));
    return buf;
}

/* An explanation from the answer key, reflowed to the width and indented under "Why:". */
static void print_why(FILE *f, const char *why, int width) {
    const char *label = _("Why:");
    fprintf(f, "  %s%s%s ", wb_dim(f), label, wb_reset(f));
    int col = 2 + (int)wb_columns(label) + 1;
    wb_wrap(f, why, col, col, width);
}

static void print_occurrences(FILE *f, const wb_graded_fact *g) {
    if (g->n_occurrences == 0) {
        fputs(_("the range never occurred in the profiled window"), f);
        return;
    }
    fputs(_("differs by occurrence:"), f);
    size_t shown = g->n_occurrences < 12 ? g->n_occurrences : 12;
    for (size_t i = 0; i < shown; i++) {
        char value[64];
        wb_fact_value_of(g->fact)->text((double)g->per_occurrence[i], value, sizeof value);
        fprintf(f, "%s %s", i ? "," : "", value);
    }
    if (shown < g->n_occurrences) fprintf(f, _(", ... (%zu occurrences)"), g->n_occurrences);
}

/* The columns of a fact line: "  right  <label> predicted N     actual M"; a label wider than
 * the room left for it goes on a line of its own. */
#define FACT_PREFIX fact_prefix() /* "  right  ": 9 in English */
#define FACT_PREDICTED 16 /* "predicted 12345 " */

/* The verdict's column: as wide as the wider of "right" and "WRONG" in the language, at least 5. */
static int verdict_width(void) {
    int w = 5, r = (int)wb_columns(_("right")), x = (int)wb_columns(_("WRONG"));
    if (r > w) w = r;
    return x > w ? x : w;
}

static int fact_prefix(void) { return 2 + verdict_width() + 2; }

static int label_width(const wb_grade *g, int width) {
    /* at most 3/8 of the width: a longer label goes on its own line, so that the verdict after it
     * keeps room to be read (lesson 03's 40-column occupancy query squeezed it to 10 columns) */
    int room = width - FACT_PREFIX - 1 - FACT_PREDICTED - 14, w = 7;
    if (room > width * 3 / 8) room = width * 3 / 8;
    for (size_t i = 0; i < g->n; i++) {
        int n = (int)wb_columns(g->facts[i].fact->label);
        if (n > w && n <= room) w = n;
    }
    return w;
}

static void print_fact(FILE *f, const wb_graded_fact *x, int label_w, int width) {
    char pred[64], act[64], band[128];
    const char *verdict = x->right ? _("right") : _("WRONG");
    fprintf(f, "  %s", x->right ? wb_green(f) : wb_red(f));
    wb_pad(f, verdict, verdict_width());
    fprintf(f, "%s  ", wb_reset(f));
    if ((int)wb_columns(x->fact->label) > label_w) fprintf(f, "%s\n%*s", x->fact->label, FACT_PREFIX + label_w + 1, "");
    else fprintf(f, "%-*s ", label_w, x->fact->label);
    const char *predicted = _("predicted");
    fprintf(f, "%s ", predicted);
    wb_pad(f, wb_graded_predicted_text(x, pred, sizeof pred), 5);
    fputc(' ', f);
    int n = (int)(wb_columns(predicted) + 1 + (strlen(pred) > 5 ? strlen(pred) : 5) + 1);
    char *text = NULL;
    size_t size = 0;
    FILE *m = open_memstream(&text, &size);
    if (!m) return;
    fprintf(m, "%s ", _("actual"));
    if (x->actual >= 0) fputs(wb_graded_actual_text(x, act, sizeof act), m);
    else print_occurrences(m, x);
    if (x->is_time && x->actual >= 0)
        fprintf(m, _("  (right from %s us: within %.0f%%, median of %zu)"), wb_graded_band_text(x, band, sizeof band),
                100 * x->tolerance, x->n_occurrences);
    if (wb_fact_value_of(x->fact)->judged && x->n_occurrences) {
        /* GPU time sums the durations of the work the range launched, which runs on after the
         * host leaves the range and may run on several streams at once: it can pass the wall */
        const char *why = x->bound.gpu_us < WB_OVERHEAD_SHARE * x->bound.wall_us ? _(": GPU under half the wall")
                          : x->bound.gpu_us > x->bound.wall_us ? _(": more than the wall, as the launched work ran on after the host "
                                                                   "left the range, or on several streams at once")
                                                               : "";
        fprintf(m, _("  (GPU time of the work it launched %.1f us, wall time on the host %.1f us%s; compute floor %.2f us, "
                     "memory floor %.2f us)"), x->bound.gpu_us, x->bound.wall_us, why, x->bound.compute_us, x->bound.memory_us);
    }
    fclose(m);
    int col = FACT_PREFIX + label_w + 1 + (n > 0 ? n : FACT_PREDICTED);
    wb_wrap(f, text, col, FACT_PREFIX + 2, width); /* the rest of a verdict under the label, not at its right */
    free(text);
}

void wb_report_text(FILE *f, const wb_report_context *ctx, const wb_grade *g) {
    const wb_recording *rec = ctx->recording;
    const wb_capture *first = rec->n_runs ? &rec->runs[0].capture : NULL;
    int width = wb_term_width(f), label_w = label_width(g, width);
    char desc[512], line[4600];
    fprintf(f, "%s", wb_bold(f));
    fprintf(f, _("Lesson %s%s: graded against a %s capture\n"), ctx->lesson, wb_reset(f),
            !strcmp(ctx->source, "live") ? _("live") : _("recorded"));
    if (first) {
        fputs("  GPU: ", f);
        wb_wrap(f, wb_capture_describe(first, desc, sizeof desc), 7, 4, width);
    }
    if (wb_recording_pytorch(rec, desc, sizeof desc)) {
        fputs("  ", f);
        wb_wrap(f, desc, 2, 4, width);
    }
    if (ctx->versions_differ && ctx->versions_differ[0]) {
        snprintf(line, sizeof line, _("Not the answer key's software: %s. %s"), ctx->versions_differ, _(WB_VERSIONS_MAY_DIFFER));
        fputs("  ", f);
        wb_wrap(f, line, 2, 4, width);
    }
    if (!strcmp(ctx->source, "replay") && rec->path) {
        snprintf(line, sizeof line, _("Recording: %s, recorded %s"), rec->path, rec->recorded_at ? rec->recorded_at : "?");
        fputs("  ", f);
        wb_wrap(f, line, 2, 4, width);
    }

    const wb_prediction *current = NULL;
    for (size_t i = 0; i < g->n; i++) {
        const wb_graded_fact *x = &g->facts[i];
        if (x->prediction != current) {
            if (current && ctx->key) {
                const char *why = wb_answer_key_explanation(ctx->key, current->id);
                if (why) print_why(f, why, width);
            }
            current = x->prediction;
            fprintf(f, "\n%s%s%s  ", wb_bold(f), current->id, wb_reset(f));
            char rank[32] = "";
            if (current->rank >= 0) snprintf(rank, sizeof rank, _(", rank %d"), current->rank);
            snprintf(line, sizeof line, wb_ngettext("(variant %s, range %s%s, %zu occurrence)", "(variant %s, range %s%s, %zu occurrences)",
                                                    x->n_occurrences),
                     x->variant, current->range, rank, x->n_occurrences);
            wb_wrap(f, line, (int)wb_columns(current->id) + 2, 4, width);
        }
        print_fact(f, x, label_w, width);
    }
    if (current && ctx->key) {
        const char *why = wb_answer_key_explanation(ctx->key, current->id);
        if (why) print_why(f, why, width);
    }
    fprintf(f, "\n%s", wb_bold(f));
    fprintf(f, _("Score: %zu of %zu facts right"), g->right, g->n);
    fprintf(f, "%s\n", wb_reset(f));
    wb_report_work_text(f, ctx, g);
}

/* ---- declared work against the measured ceilings ------------------------------------------ */

typedef struct {
    const wb_work *work;
    const char *variant;
    size_t n;                 /* occurrences */
    double gpu_us, wall_us;   /* medians */
    wb_bound_inputs in;
    int bound;                /* of the medians; -1 when the range never occurred */
} work_row;

/* 1 when some graded fact is about this variant. */
static int variant_graded(const wb_grade *g, const char *variant) {
    for (size_t i = 0; i < g->n; i++)
        if (!strcmp(g->facts[i].variant, variant)) return 1;
    return 0;
}

static int work_row_of(const wb_report_context *ctx, const wb_work *w, work_row *row) {
    const wb_lesson *l = ctx->lesson_yaml;
    memset(row, 0, sizeof *row);
    row->work = w;
    row->variant = w->variant ? w->variant : l->variants[0].name;
    row->bound = -1;
    const wb_run *run = wb_recording_run(ctx->recording, row->variant);
    if (!run) return -1;
    wb_range_times t;
    if (wb_range_times_of(&run->capture, row->variant, w->range, WB_ALL_RANKS, &t)) return -1;
    row->n = t.n;
    row->gpu_us = wb_median(t.gpu_us, t.n);
    row->wall_us = wb_median(t.wall_us, t.n);
    row->bound = t.n ? wb_bound_of(row->gpu_us, row->wall_us, w, &ctx->recording->calibration, &row->in) : -1;
    free(t.variant), free(t.range), free(t.gpu_us), free(t.wall_us);
    return 0;
}

static double per_s(double amount, double us) { return us > 0 ? amount / (us * 1e-6) : 0; }

void wb_report_work_text(FILE *f, const wb_report_context *ctx, const wb_grade *g) {
    const wb_lesson *l = ctx->lesson_yaml;
    const wb_calibration *cal = &ctx->recording->calibration;
    if (!l || !l->n_work || !cal->present) return;
    int header = 0;
    for (size_t i = 0; i < l->n_work; i++) {
        work_row row;
        const char *v = l->work[i].variant ? l->work[i].variant : l->variants[0].name;
        if (!variant_graded(g, v) || work_row_of(ctx, &l->work[i], &row) || row.bound < 0) continue;
        if (!header) {
            char line[1024];
            fprintf(f, "\n%s%s%s\n", wb_bold(f), _("Where the time goes"), wb_reset(f));
            snprintf(line, sizeof line, _("Each declared range's work against this GPU's measured ceilings: copy %.2f TB/s, bf16 "
                     "matrix %.0f TFLOP/s. floor = max(FLOPs / matrix rate, bytes / copy bandwidth); x floor = GPU time / "
                     "floor; medians over the occurrences."), cal->copy_bytes_per_s / 1e12, cal->matrix_flops_per_s / 1e12);
            fputs("  ", f);
            wb_wrap(f, line, 2, 2, wb_term_width(f));
            fprintf(f, "  %-14s %-12s %8s %8s %7s %7s %5s  %s\n", "variant", "range", "floor us", "GPU us", "x floor", "TFLOP/s",
                    "TB/s", "bound");
            header = 1;
        }
        const char *variant_cell = row.variant, *range_cell = row.work->range;
        if (strlen(row.variant) > 14 || strlen(row.work->range) > 12) { /* names on a line of their own */
            char fitted[256];
            fprintf(f, "  %s %s\n", row.variant, wb_fit_name(row.work->range, (size_t)(wb_term_width(f) > 40 ? wb_term_width(f) - 4 : 36) -
                                                                              strlen(row.variant), fitted, sizeof fitted));
            variant_cell = range_cell = "";
        }
        fprintf(f, "  %-14s %-12s %8.2f %8.2f %7.2f %7.1f %5.2f  %s\n", variant_cell, range_cell, row.in.floor_us, row.gpu_us,
                row.in.floor_us > 0 ? row.gpu_us / row.in.floor_us : 0, per_s(row.work->flops, row.gpu_us) / 1e12,
                per_s(row.work->bytes, row.gpu_us) / 1e12, wb_bound_name(row.bound));
    }
}

static json_t *work_json(const wb_report_context *ctx, const wb_grade *g) {
    const wb_lesson *l = ctx->lesson_yaml;
    json_t *arr = json_array();
    if (!l || !ctx->recording->calibration.present) return arr;
    for (size_t i = 0; i < l->n_work; i++) {
        work_row row;
        const char *v = l->work[i].variant ? l->work[i].variant : l->variants[0].name;
        if (!variant_graded(g, v) || work_row_of(ctx, &l->work[i], &row) || row.bound < 0) continue;
        json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:s}", "variant",
                                             row.variant, "range", row.work->range, "flops_expr", row.work->flops_text,
                                             "bytes_expr", row.work->bytes_text, "flops", row.work->flops, "bytes",
                                             row.work->bytes, "compute_floor_us", row.in.compute_us, "memory_floor_us",
                                             row.in.memory_us, "floor_us", row.in.floor_us, "gpu_us", row.gpu_us, "wall_us",
                                             row.wall_us, "tflops_per_s", per_s(row.work->flops, row.gpu_us) / 1e12,
                                             "tb_per_s", per_s(row.work->bytes, row.gpu_us) / 1e12, "bound",
                                             wb_bound_name(row.bound)));
    }
    return arr;
}

static json_t *doubles(const double *v, size_t n) {
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, json_real(v[i]));
    return a;
}

/* One graded fact in JSON, each value as its type writes it (counts as integers, times in
 * microseconds, a bound by name); times with their band, a judged fact with the numbers its rule used. */
static json_t *fact_json(const wb_graded_fact *x) {
    const wb_fact_value_type *type = wb_fact_value_of(x->fact);
    json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "id", x->prediction->id, "fact", x->fact->label, "variant", x->variant, "range",
                          x->prediction->range);
    json_t *per = json_array();
    json_object_set_new(o, "predicted", type->to_json(x->is_time ? x->predicted_us : (double)x->predicted));
    json_object_set_new(o, "actual", x->actual < 0 ? json_null() : type->to_json(x->is_time ? x->actual_us : (double)x->actual));
    for (size_t k = 0; k < x->n_occurrences; k++)
        json_array_append_new(per, type->to_json(x->is_time ? wb_graded_time_at(x, k) : (double)x->per_occurrence[k]));
    if (x->is_time) {
        json_object_set_new(o, "tolerance", json_real(x->tolerance));
        if (x->actual >= 0) {
            double from, to;
            wb_time_band(x->actual_us, x->tolerance, &from, &to);
            json_object_set_new(o, "band", json_pack("{s:f, s:f}", "from", from, "to", to));
        }
    }
    if (type->judged) {
        const wb_bound_inputs *b = &x->bound;
        json_object_set_new(o, "rule", json_pack("{s:f, s:o, s:o, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "overhead_share",
                                                 WB_OVERHEAD_SHARE, "gpu_us", doubles(x->gpu_us, x->n_occurrences), "wall_us",
                                                 doubles(x->wall_us, x->n_occurrences), "gpu_us_median", b->gpu_us,
                                                 "wall_us_median", b->wall_us, "flops", b->flops, "bytes", b->bytes,
                                                 "matrix_flops_per_s", b->matrix_flops_per_s, "copy_bytes_per_s",
                                                 b->copy_bytes_per_s, "compute_floor_us", b->compute_us, "memory_floor_us",
                                                 b->memory_us));
    }
    json_object_set_new(o, "per_occurrence", per);
    json_object_set_new(o, "right", json_boolean(x->right));
    return o;
}

json_t *wb_report_json(const wb_report_context *ctx, const wb_grade *g) {
    const wb_recording *rec = ctx->recording;
    const wb_capture *first = rec->n_runs ? &rec->runs[0].capture : NULL;
    json_t *facts = json_array();
    for (size_t i = 0; i < g->n; i++) json_array_append_new(facts, fact_json(&g->facts[i]));
    char drv[16], rt[16];
    json_t *root = json_pack("{s:s, s:s, s:s, s:s, s:{s:I, s:I}, s:o}", "lesson", ctx->lesson, "source", ctx->source, "arch",
                             first ? first->arch : "unknown", "gpu", first ? first->gpu : "unknown", "score", "right",
                             (json_int_t)g->right, "total", (json_int_t)g->n, "facts", facts);
    if (first)
        json_object_set_new(root, "versions", json_pack("{s:s, s:s, s:s}", "driver_cuda",
                                                        wb_cuda_version_string(first->driver_version, drv, sizeof drv), "runtime",
                                                        wb_cuda_version_string(first->runtime_version, rt, sizeof rt), "cublas",
                                                        first->cublas_version));
    json_t *versions = json_object_get(root, "versions");
    const wb_run *py = NULL;
    for (size_t i = 0; i < rec->n_runs && !py; i++) py = rec->runs[i].python ? &rec->runs[i] : NULL;
    if (versions && py)
        json_object_set_new(versions, "torch", json_string(py->torch)), json_object_set_new(versions, "triton", json_string(py->triton));
    if (ctx->versions_differ && ctx->versions_differ[0])
        json_object_set_new(root, "versions_differ", json_pack("{s:s, s:s}", "what", ctx->versions_differ, "may_differ",
                                                               _(WB_VERSIONS_MAY_DIFFER)));
    const wb_calibration *cal = &rec->calibration;
    if (cal->present)
        json_object_set_new(root, "calibration", json_pack("{s:f, s:f, s:s, s:s}", "copy_bytes_per_s", cal->copy_bytes_per_s,
                                                           "matrix_flops_per_s", cal->matrix_flops_per_s, "gpu", cal->gpu,
                                                           "method", cal->method));
    json_object_set_new(root, "work", work_json(ctx, g));
    if (!strcmp(ctx->source, "replay"))
        json_object_set_new(root, "recording", json_pack("{s:s?, s:s?}", "path", rec->path, "recorded_at", rec->recorded_at));
    if (ctx->key) {
        json_t *why = json_object();
        for (size_t i = 0; i < g->n; i++) {
            const char *e = wb_answer_key_explanation(ctx->key, g->facts[i].prediction->id);
            if (e) json_object_set_new(why, g->facts[i].prediction->id, json_string(e));
        }
        json_object_set_new(root, "explanations", why);
    }
    return root;
}

void wb_report_json_error(FILE *f, int exit_code, const char *message) {
    json_t *e = json_pack("{s:{s:i, s:s}}", "error", "exit_code", exit_code, "message", message);
    char *text = json_dumps(e, JSON_INDENT(2));
    if (text) fprintf(f, "%s\n", text);
    free(text);
    json_decref(e);
}
