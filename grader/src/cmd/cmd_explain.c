/*
 * cmd_explain.c: `grader explain`: what kernel names say (kernel_names.h). From the command line,
 * or every kernel of a recording or capture file, with the launch configuration CUPTI recorded
 * for it (which is where the "evidence" in nvjet decodes comes from).
 */
#define _GNU_SOURCE
#include "wb_base.h"
#include "commands.h"
#include "wb_course.h"
#include "wb_capture.h"
#include "wb_show.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char EXPLAIN_USAGE[] = N_(
    "usage: grader explain NAME... [--format text|json]\n"
    "       grader explain --trace FILE[:VARIANT] [--format text|json] [--reveal]\n"
    "\n"
    "Decodes kernel names: the library family (cuBLAS nvjet, xmma and architecture-named kernels,\n"
    "CUTLASS 2 and 3, Triton from torch.compile, PyTorch ATen, this project's own kernels), tile\n"
    "and cluster sizes, data types, layout letters (and what they mean for row-major C code), the\n"
    "fused epilogue, and whether the grader counts the kernel as a GEMM. Each field says what it\n"
    "rests on: the vendor's documentation, its source code, a convention, evidence from captures,\n"
    "or nothing (undocumented: not guessed at). docs/kernel-names.md describes the families.\n"
    "\n"
    "  --trace FILE[:VARIANT]  every kernel of a recording (all variants, or VARIANT), a capture\n"
    "                          file or a lesson's recording, with its launch configuration\n"
    "  --format text|json      json: one JSON object on stdout\n"
    "  --reveal                with --trace: show a lesson you have not graded yet without asking\n"
    "                          (recorded in your progress); otherwise only after you confirm on a\n"
    "                          terminal, and never elsewhere\n"
    "\n"
    "exit: 0 explained, 2 bad usage or input\n");

/* The project's own kernels: where they are defined, when the checkout can be found. */
static int source_of(const wb_kernel_explanation *e, char *where, size_t cap) {
    char root[4096];
    wb_error err = {0};
    if (strcmp(e->family, "plain kernel name") || wb_find_root(root, sizeof root, &err)) return -1;
    return wb_find_kernel_source(root, e->base, where, cap);
}

static void explain_one(const char *name, const wb_kernel *k, size_t launches, int json, json_t *out) {
    wb_kernel_explanation *e = malloc(sizeof *e);
    if (!e) return;
    wb_explain_kernel(name, e);
    char where[4400];
    int found = source_of(e, where, sizeof where) == 0;
    if (found) {
        snprintf(e->family, sizeof e->family, "%s", N_("compiled from source"));
        snprintf(e->summary, sizeof e->summary, "%s", N_("a kernel compiled from this course's own source (defined where 'source:' "
                                                        "says). Its name is its __global__ function's name."));
    } else if (!strcmp(e->family, "plain kernel name")) {
        /* the summary in the learner's language, then this sentence (printing translates a summary
         * the catalog has; this one it has not, as a whole) */
        char summary[sizeof e->summary];
        /* TRANSLATORS: two sentences of a summary, one after the other */
        snprintf(summary, sizeof summary, _("%s %s"), _(e->summary),
                 _("It is not defined in this course's source, so it comes from elsewhere: another program, or a library "
                   "the grader does not know (docs/kernel-names.md)."));
        snprintf(e->summary, sizeof e->summary, "%s", summary);
    }
    if (json) {
        json_t *o = wb_kernel_explanation_json(e);
        if (found) json_object_set_new(o, "defined_at", json_string(where));
        if (k)
            json_object_set_new(o, "launch",
                                json_pack("{s:I, s:[iii], s:[iii], s:[iii], s:i, s:i, s:i}", "launches_in_window",
                                          (json_int_t)launches, "grid", k->grid[0], k->grid[1], k->grid[2], "block", k->block[0],
                                          k->block[1], k->block[2], "cluster", k->cluster[0], k->cluster[1], k->cluster[2],
                                          "registers_per_thread", k->registers_per_thread, "static_shared_bytes",
                                          k->static_shared, "dynamic_shared_bytes", k->dynamic_shared));
        json_array_append_new(out, o);
    } else {
        wb_kernel_explanation_print(stdout, e);
        if (found) {
            fputs("  ", stdout);
            wb_pad(stdout, _("source:"), 8);
            printf("%s\n", where);
        }
        if (k) {
            char line[512], cluster[64] = "";
            if (k->cluster[0] > 0) snprintf(cluster, sizeof cluster, _(", cluster (%d,%d,%d)"), k->cluster[0], k->cluster[1], k->cluster[2]);
            snprintf(line, sizeof line, _("launch: %zu in the profiled window; grid (%d,%d,%d), block (%d,%d,%d)%s, %d registers/thread, "
                     "%d B static + %d B dynamic shared memory"), launches, k->grid[0], k->grid[1], k->grid[2], k->block[0],
                     k->block[1], k->block[2], cluster, k->registers_per_thread, k->static_shared, k->dynamic_shared);
            fputs("  ", stdout);
            wb_wrap(stdout, line, 2, 10, wb_term_width(stdout));
        }
        printf("\n");
    }
    free(e);
}

/* Every distinct kernel name of a run, in order of first launch, with its first launch. */
static void explain_run(const wb_run *run, int json, json_t *out) {
    const wb_capture *c = &run->capture;
    if (!json) printf(_("== variant %s (%s, %s): %zu kernel launches captured\n\n"), run->variant, c->gpu, c->arch, c->n_kernels);
    for (size_t i = 0; i < c->n_kernels; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) seen = !strcmp(c->kernels[j].name, c->kernels[i].name);
        if (seen) continue;
        size_t launches = 0;
        for (size_t j = 0; j < c->n_kernels; j++) {
            const wb_kernel *k = &c->kernels[j];
            uint64_t t = k->api >= 0 ? c->api[k->api].start : k->start;
            launches += !strcmp(k->name, c->kernels[i].name) && wb_in_profiled_window(c, k->rank, t, t);
        }
        explain_one(c->kernels[i].name, &c->kernels[i], launches, json, out);
    }
}

int cmd_explain(int argc, char **argv) {
    const char *format = "text", *trace = NULL; /* text | json; a recording, capture or lesson */
    const char **names = calloc((size_t)argc + 1, sizeof *names);
    size_t n = 0;
    int reveal = 0; /* --reveal: consent to see a lesson not graded yet */
    if (!names) return WB_EXIT_INPUT;
    const wb_cli_option options[] = {
        {"--reveal", WB_CLI_FLAG, .flag = &reveal},
        {"--format", WB_CLI_FORMAT, .text = &format},
        {"--trace", WB_CLI_TEXT, .text = &trace, .bad = N_("--trace needs a file")},
    };
    wb_cli_spec spec = {.command = "explain", .usage = EXPLAIN_USAGE, .options = options, .n_options = 3, .operands = names,
                        .n_operands = &n, .max_operands = (size_t)argc, .dash_operands = 1};
    int parsed = wb_cli_parse(&spec, argc, argv);
    if (parsed) return free(names), parsed == WB_CLI_HELP ? WB_EXIT_OK : parsed;
    if (!n && !trace) return free(names), wb_cli_usage_error("explain", EXPLAIN_USAGE, "%s", _("give a kernel name (or --trace FILE)"));
    if (n && trace) return free(names), wb_cli_usage_error("explain", EXPLAIN_USAGE, "%s", _("give kernel names or --trace, not both"));
    int json = !strcmp(format, "json");
    json_t *out = json_array();
    int rc = WB_EXIT_OK;
    if (trace) {
        wb_diff_side side;
        wb_error err = {0};
        if (wb_diff_side_load(trace, &side, &err) ||
            wb_reveal_gate_variant(side.rec.lesson, NULL, side.path, side.variant, "grader explain --trace", _("its kernels"), reveal,
                                   &err)) {
            rc = wb_cli_finish("explain", err.code, err.message);
        } else {
            for (size_t i = 0; i < side.rec.n_runs; i++)
                if (!side.variant[0] || !strcmp(side.variant, side.rec.runs[i].variant)) explain_run(&side.rec.runs[i], json, out);
        }
        wb_diff_side_free(&side);
    } else {
        for (size_t i = 0; i < n; i++) explain_one(names[i], NULL, 0, json, out);
    }
    if (json && rc == WB_EXIT_OK) wb_cli_print_json(json_pack("{s:o}", "kernels", out));
    else json_decref(out);
    free(names);
    return rc;
}
