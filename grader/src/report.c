/* report.c: see report.h. */
#include "report.h"
#include "tolerance.h"
#include "term.h"

#include <stdlib.h>
#include <string.h>

const char *wb_cuda_version_string(long long v, char *buf, size_t cap) {
    if (v < 0) snprintf(buf, cap, "unknown");
    else snprintf(buf, cap, "%lld.%lld", v / 1000, (v % 1000) / 10);
    return buf;
}

const char *wb_capture_describe(const wb_capture *c, char *buf, size_t cap) {
    char drv[16], rt[16];
    snprintf(buf, cap, "%s (%s), driver supports CUDA %s, runtime %s, cuBLAS %s", c->gpu, c->arch,
             wb_cuda_version_string(c->driver_version, drv, sizeof drv), wb_cuda_version_string(c->runtime_version, rt, sizeof rt),
             c->cublas_version[0] ? c->cublas_version : "not loaded");
    return buf;
}

/* An explanation from the answer key, its lines indented under "Why:". */
static void print_why(FILE *f, const char *why) {
    fprintf(f, "  %sWhy:%s ", wb_dim(f), wb_reset(f));
    for (const char *p = why; *p; p++) {
        if (*p == '\n') {
            if (p[1] == '\0') break;
            fputs("\n       ", f);
            continue;
        }
        fputc(*p, f);
    }
    fputc('\n', f);
}

static void print_occurrences(FILE *f, const wb_graded_fact *g) {
    if (g->n_occurrences == 0) {
        fprintf(f, "the range never occurred in the profiled window");
        return;
    }
    fprintf(f, "differs by occurrence:");
    size_t shown = g->n_occurrences < 12 ? g->n_occurrences : 12;
    for (size_t i = 0; i < shown; i++) fprintf(f, "%s %ld", i ? "," : "", g->per_occurrence[i]);
    if (shown < g->n_occurrences) fprintf(f, ", ... (%zu occurrences)", g->n_occurrences);
}

void wb_report_text(FILE *f, const wb_report_context *ctx, const wb_grade *g) {
    const wb_recording *rec = ctx->recording;
    const wb_capture *first = rec->n_runs ? &rec->runs[0].capture : NULL;
    char desc[512];
    fprintf(f, "%sLesson %s%s: graded against a %s capture\n", wb_bold(f), ctx->lesson, wb_reset(f),
            !strcmp(ctx->source, "live") ? "live" : "recorded");
    if (first) fprintf(f, "  GPU: %s\n", wb_capture_describe(first, desc, sizeof desc));
    if (!strcmp(ctx->source, "replay") && rec->path)
        fprintf(f, "  Recording: %s, recorded %s\n", rec->path, rec->recorded_at ? rec->recorded_at : "?");

    const wb_prediction *current = NULL;
    for (size_t i = 0; i < g->n; i++) {
        const wb_graded_fact *x = &g->facts[i];
        if (x->prediction != current) {
            if (current && ctx->key) {
                const char *why = wb_answer_key_explanation(ctx->key, current->id);
                if (why) print_why(f, why);
            }
            current = x->prediction;
            fprintf(f, "\n%s%s%s  (variant %s, range %s, %zu occurrence%s)\n", wb_bold(f), current->id, wb_reset(f), x->variant,
                    current->range, x->n_occurrences, x->n_occurrences == 1 ? "" : "s");
        }
        fprintf(f, "  %s%-5s%s  %-36s predicted %-5ld actual ", x->right ? wb_green(f) : wb_red(f), x->right ? "right" : "WRONG",
                wb_reset(f), x->fact->label, x->predicted);
        if (wb_fact_is_time(x->fact->kind) && x->actual >= 0)
            fprintf(f, "%ld (median of %zu occurrence%s; right within %.0f%%)", x->actual, x->n_occurrences,
                    x->n_occurrences == 1 ? "" : "s", 100 * WB_TIME_TOLERANCE);
        else if (x->actual >= 0) fprintf(f, "%ld", x->actual);
        else print_occurrences(f, x);
        fputc('\n', f);
    }
    if (current && ctx->key) {
        const char *why = wb_answer_key_explanation(ctx->key, current->id);
        if (why) print_why(f, why);
    }
    fprintf(f, "\n%sScore: %zu of %zu facts right%s\n", wb_bold(f), g->right, g->n, wb_reset(f));
}

json_t *wb_report_json(const wb_report_context *ctx, const wb_grade *g) {
    const wb_recording *rec = ctx->recording;
    const wb_capture *first = rec->n_runs ? &rec->runs[0].capture : NULL;
    json_t *facts = json_array();
    for (size_t i = 0; i < g->n; i++) {
        const wb_graded_fact *x = &g->facts[i];
        json_t *per = json_array();
        for (size_t k = 0; k < x->n_occurrences; k++) json_array_append_new(per, json_integer(x->per_occurrence[k]));
        json_array_append_new(facts, json_pack("{s:s, s:s, s:s, s:s, s:I, s:o, s:o, s:b}", "id", x->prediction->id, "fact",
                                               x->fact->label, "variant", x->variant, "range", x->prediction->range,
                                               "predicted", (json_int_t)x->predicted, "actual",
                                               x->actual >= 0 ? json_integer(x->actual) : json_null(), "per_occurrence", per,
                                               "right", x->right));
    }
    char drv[16], rt[16];
    json_t *root = json_pack("{s:s, s:s, s:s, s:s, s:{s:I, s:I}, s:o}", "lesson", ctx->lesson, "source", ctx->source, "arch",
                             first ? first->arch : "unknown", "gpu", first ? first->gpu : "unknown", "score", "right",
                             (json_int_t)g->right, "total", (json_int_t)g->n, "facts", facts);
    if (first)
        json_object_set_new(root, "versions", json_pack("{s:s, s:s, s:s}", "driver_cuda",
                                                        wb_cuda_version_string(first->driver_version, drv, sizeof drv), "runtime",
                                                        wb_cuda_version_string(first->runtime_version, rt, sizeof rt), "cublas",
                                                        first->cublas_version));
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
