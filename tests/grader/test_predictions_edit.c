/*
 * test_predictions_edit.c: writing the learner's answers into their file: only the ~ values
 * change, comments and layout stay, a backup is kept (never overwritten), and a file that changed
 * under the grader is left alone.
 */
#include "predictions.h"
#include "predictions_edit.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char TEMPLATE[] =
    "lesson: 01_matmul_add   # the lesson\n"
    "predictions:\n"
    "  # Q: How many kernels run in one eager step? (größer als null?)\n"
    "  - id: eager-step\n"
    "    variant: eager\n"
    "    range: step\n"
    "    kernels: ~          # your answer here\n"
    "    gemms: null\n"
    "    api_calls: {cudaLaunchKernel: ~, cuLaunchKernelEx: 3}\n"
    "    memsets:\n"
    "    memcpys: 0\n";

static const char WANT[] =
    "lesson: 01_matmul_add   # the lesson\n"
    "predictions:\n"
    "  # Q: How many kernels run in one eager step? (größer als null?)\n"
    "  - id: eager-step\n"
    "    variant: eager\n"
    "    range: step\n"
    "    kernels: 2          # your answer here\n"
    "    gemms: 1\n"
    "    api_calls: {cudaLaunchKernel: 17, cuLaunchKernelEx: 3}\n"
    "    memsets: 0\n"
    "    memcpys: 0\n";

/* The edits the grader would make: at the positions the parser reports for each open fact. */
static size_t edits_for(const char *text, wb_answer_edit *edits) {
    wb_prediction_set p;
    wb_error err = {0};
    cr_assert_eq(wb_predictions_load_buffer("p.yaml", text, strlen(text), &p, &err), 0, "%s", err.message);
    size_t n = 0;
    for (size_t j = 0; j < p.items[0].n_facts; j++) {
        const wb_fact *f = &p.items[0].facts[j];
        if (f->predicted >= 0) continue;
        int v = !strcmp(f->label, "kernels") ? 2 : !strcmp(f->label, "gemms") ? 1 : !strcmp(f->label, "memsets") ? 0 : 17;
        edits[n++] = (wb_answer_edit){f->line, f->column, v, ""};
    }
    wb_predictions_free(&p);
    return n;
}

Test(predictions_edit, fills_only_the_open_values) {
    wb_answer_edit edits[8];
    size_t n = edits_for(TEMPLATE, edits);
    cr_assert_eq(n, 4);
    wb_error err = {0};
    char *out = wb_predictions_fill_text("p.yaml", TEMPLATE, strlen(TEMPLATE), edits, n, &err);
    cr_assert_not_null(out, "%s", err.message);
    cr_assert_str_eq(out, WANT);
    /* and the result reads back with every value filled */
    wb_prediction_set p;
    cr_assert_eq(wb_predictions_load_buffer("p.yaml", out, strlen(out), &p, &err), 0, "%s", err.message);
    cr_assert_eq(wb_predictions_open(&p), 0);
    wb_predictions_free(&p);
    free(out);
}

Test(predictions_edit, refuses_when_the_file_changed) {
    wb_answer_edit edits[8];
    size_t n = edits_for(TEMPLATE, edits);
    char *changed = strdup(TEMPLATE);
    *strstr(changed, "kernels: ~") = 'K'; /* shift nothing, but the token at the position is no longer ~ */
    char *tilde = strstr(changed, "~ ");
    tilde[0] = '5';
    wb_error err = {0};
    cr_assert_null(wb_predictions_fill_text("p.yaml", changed, strlen(changed), edits, n, &err));
    cr_assert_eq(err.code, WB_EXIT_INPUT);
    cr_assert(strstr(err.message, "p.yaml:7:14: expected ~ here"), "%s", err.message);
    free(changed);
}

Test(predictions_edit, keeps_numbered_backups_and_never_overwrites_them) {
    char dir[] = "/tmp/wb-edit-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[256], bak[256], bak2[256];
    snprintf(path, sizeof path, "%s/predictions.yaml", dir);
    FILE *f = fopen(path, "w");
    fputs(TEMPLATE, f);
    fclose(f);
    wb_answer_edit edits[8];
    size_t n = edits_for(TEMPLATE, edits);
    wb_error err = {0};
    char backup[4096];
    cr_assert_eq(wb_predictions_fill(path, edits, 1, 1, backup, sizeof backup, &err), 0, "%s", err.message);
    snprintf(bak, sizeof bak, "%s.bak", path);
    cr_assert_str_eq(backup, bak);
    /* second round: the remaining edits (positions unchanged: same line, same column) */
    cr_assert_eq(wb_predictions_fill(path, edits + 1, n - 1, 1, backup, sizeof backup, &err), 0, "%s", err.message);
    snprintf(bak2, sizeof bak2, "%s.bak.2", path);
    cr_assert_str_eq(backup, bak2);
    char buf[4096];
    f = fopen(bak, "r");
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    cr_assert_str_eq(buf, TEMPLATE, "the first backup is the learner's original file");
    f = fopen(path, "r");
    len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    cr_assert_str_eq(buf, WANT);
    unlink(path);
    unlink(bak);
    unlink(bak2);
    rmdir(dir);
}
