/*
 * cmd_diff.c: `grader diff A B`: what changed between two captures (trace_diff.h). Lessons use it
 * for "predict what changes" questions: eager against graph, a separate bias kernel against a
 * GEMM epilogue, one GPU against another.
 */
#define _GNU_SOURCE
#include "wb_base.h"
#include "commands.h"
#include "wb_course.h"
#include "wb_show.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

const char DIFF_USAGE[] = N_(
    "usage: grader diff A B [--format text|json] [--reveal]\n"
    "\n"
    "Compares two captures: what changed in the profiled window and in each NVTX range (matched by\n"
    "name): kernels added, removed or renamed (the same position under another name), launch\n"
    "counts, API calls by name, memcpys, memsets and GPU time. A and B are each a recording\n"
    "(lessons/01_matmul_add/traces/sm_90.json), a capture file, or a lesson (folder, name or\n"
    "number: its newest recording), each optionally followed by :VARIANT, e.g.\n"
    "  grader diff lessons/02_linear:separate lessons/02_linear:epilogue\n"
    "Without :VARIANT, two recordings are compared variant by variant.\n"
    "\n"
    "  --format text|json  json: one JSON object on stdout\n"
    "  --reveal            show a lesson you have not graded yet without asking (recorded in your\n"
    "                      progress: a later score is then not a first try). Without it, such a\n"
    "                      lesson is shown only after you confirm on a terminal, and never elsewhere.\n"
    "\n"
    "Times (GPU time of kernels, wall time) are shown as measured, one run each; they vary between\n"
    "runs, so the verdict and exit code never depend on them.\n"
    "\n"
    "exit: 0 the same launches, 1 they differ, 2 bad usage or input\n");

static json_t *side_json(const wb_diff_side *s, const wb_run *run) {
    char desc[512];
    return json_pack("{s:s, s:s, s:s, s:s, s:s}", "spec", s->spec, "path", s->path, "variant", run->variant, "gpu",
                     run->capture.gpu, "describe", wb_capture_describe(&run->capture, desc, sizeof desc));
}

static json_t *names_json(const char **names) {
    json_t *a = json_array();
    for (size_t i = 0; names[i]; i++) json_array_append_new(a, json_string(names[i]));
    return a;
}

int cmd_diff(int argc, char **argv) {
    const char *format = "text", *spec[2] = {NULL, NULL}; /* text | json; the two sides */
    size_t n_specs = 0;
    int reveal = 0; /* --reveal: consent given */
    const wb_cli_option options[] = {
        {"--reveal", WB_CLI_FLAG, .flag = &reveal},
        {"--format", WB_CLI_FORMAT, .text = &format},
    };
    wb_cli_spec s = {.command = "diff", .usage = DIFF_USAGE, .options = options, .n_options = 2, .operands = spec, .n_operands = &n_specs,
                     .max_operands = 2, .min_operands = 2, .missing = N_("give two captures to compare"),
                     .too_many = N_("two captures at a time (also got %s)"), .dash_operands = 1};
    int parsed = wb_cli_parse(&s, argc, argv);
    if (parsed) return parsed == WB_CLI_HELP ? WB_EXIT_OK : parsed;
    int json = !strcmp(format, "json");

    wb_diff_side a, b;
    wb_error err = {0};
    memset(&b, 0, sizeof b);
    int rc = wb_diff_side_load(spec[0], &a, &err);
    if (!rc) rc = wb_diff_side_load(spec[1], &b, &err);
    /* nothing of a lesson not graded yet without consent (consent.h) */
    /* (per lesson part: a side naming a variant shows that variant's part, else every part) */
    if (!rc) rc = wb_reveal_gate_variant(a.rec.lesson, NULL, a.path, a.variant, "grader diff", _("its captured kernels and calls"), reveal, &err);
    if (!rc && (strcmp(a.rec.lesson, b.rec.lesson) || strcmp(a.variant, b.variant)))
        rc = wb_reveal_gate_variant(b.rec.lesson, NULL, b.path, b.variant, "grader diff", _("its captured kernels and calls"), reveal, &err);
    const wb_run *ra[64], *rb[64];
    const char *only_a[64], *only_b[64];
    size_t n = 0;
    if (!rc) rc = wb_diff_pair_runs(&a, &b, ra, rb, 64, &n, only_a, only_b, &err);
    if (rc) {
        rc = wb_cli_finish("diff", rc, err.message);
        wb_diff_side_free(&a);
        wb_diff_side_free(&b);
        return rc;
    }
    int differs = only_a[0] || only_b[0];
    json_t *comparisons = json_array();
    char desc[512];
    for (size_t i = 0; i < n; i++) {
        wb_capture_diff d;
        if (wb_diff_captures(&ra[i]->capture, &rb[i]->capture, &d)) {
            fprintf(stderr, "grader diff: %s\n", _("out of memory"));
            rc = WB_EXIT_INPUT;
            break;
        }
        differs |= d.differs;
        if (json) {
            json_array_append_new(comparisons, json_pack("{s:o, s:o, s:o}", "a", side_json(&a, ra[i]), "b", side_json(&b, rb[i]),
                                                         "diff", wb_capture_diff_json(&d)));
        } else {
            /* each side on one line (its path is one word), its GPU wrapped at the terminal's width
             * (the Japanese words are wider) */
            printf("%s%s", i ? "\n" : "", wb_bold(stdout));
            printf(_("A: %s, variant %s"), a.path, ra[i]->variant);
            printf("%s\n   ", wb_reset(stdout));
            wb_wrap(stdout, wb_capture_describe(&ra[i]->capture, desc, sizeof desc), 3, 3, wb_term_width(stdout));
            printf("%s", wb_bold(stdout));
            printf(_("B: %s, variant %s"), b.path, rb[i]->variant);
            printf("%s\n   ", wb_reset(stdout));
            wb_wrap(stdout, wb_capture_describe(&rb[i]->capture, desc, sizeof desc), 3, 3, wb_term_width(stdout));
            fputc('\n', stdout);
            wb_capture_diff_print(stdout, &d, a.spec, b.spec);
        }
        wb_capture_diff_free(&d);
    }
    if (!rc) {
        if (json) {
            wb_cli_print_json(json_pack("{s:b, s:o, s:o, s:o}", "differs", differs, "comparisons", comparisons, "only_in_a",
                                        names_json(only_a), "only_in_b", names_json(only_b)));
            comparisons = NULL;
        } else {
            for (size_t i = 0; only_a[i]; i++) printf(_("\nVariant %s is only in A (%s)\n"), only_a[i], a.path);
            for (size_t i = 0; only_b[i]; i++) printf(_("\nVariant %s is only in B (%s)\n"), only_b[i], b.path);
        }
        rc = differs ? WB_EXIT_WRONG : WB_EXIT_OK;
    }
    json_decref(comparisons);
    wb_diff_side_free(&a);
    wb_diff_side_free(&b);
    return rc;
}
