/*
 * test_template.c: the predictions template made from lesson.yaml reads back, with the grader's
 * own reader, as exactly the lesson's questions with every value ~; and wb_template_compare finds
 * each way a shipped template can drift from its lesson.
 */
#include "course_fixture.h"
#include "lesson.h"
#include "predictions.h"
#include "template.h"

#include <criterion/criterion.h>

static char root[4200], dir[4400];

static const char LESSON[] =
    "lesson: 07_t\n"
    "title: \"t: a template test\"\n"
    "binary: lesson_07_t\n"
    "variants:\n"
    "  - name: eager\n"
    "    args: []\n"
    "  - name: graph\n"
    "    args: [--graph]\n"
    "ranges: [step, gemm]\n"
    "questions:\n"
    "  - id: step-kernels\n"
    "    variant: eager\n"
    "    range: step\n"
    "    facts: [kernels, gemms, memsets, kernels_named.gelu, \"kernels_named.re:^nvjet\", kernels_named.a b,\n"
    "            kernels_named.true, kernels_named.12, api_calls.cudaLaunchKernel]\n"
    "    ask: |\n"
    "      How many kernels run in one step?\n"
    "      And how many are GEMMs?\n"
    "  - id: graph-launches\n"
    "    variant: graph\n"
    "    range: gemm\n"
    "    facts: [api_calls.cudaGraphLaunch, memcpys]\n"
    "    ask: \"Graph: launches and copies? (a 'quoted' \\\"question\\\")\"\n";

static void load(wb_lesson *l) {
    wb_error err = {0};
    cr_assert_eq(wb_lesson_load(dir, l, &err), 0, "%s", err.message);
}

static void setup(void) {
    fixture_temp_dir(root, sizeof root);
    snprintf(dir, sizeof dir, "%s/lessons/07_t", root);
    fixture_mkdir(dir);
    char path[4600];
    snprintf(path, sizeof path, "%s/lesson.yaml", dir);
    fixture_write(path, LESSON);
}

static void teardown(void) { fixture_remove(root); }

TestSuite(template, .init = setup, .fini = teardown);

/* The template read back; the caller frees both. */
static char *template_set(const wb_lesson *l, wb_prediction_set *p) {
    char *text = wb_predictions_template(l);
    cr_assert(text);
    wb_error err = {0};
    cr_assert_eq(wb_predictions_load_buffer("predictions.yaml", text, strlen(text), p, &err), 0, "%s\n%s", err.message, text);
    return text;
}

Test(template, reads_back_as_the_questions_with_every_value_open) {
    wb_lesson l;
    load(&l);
    wb_prediction_set p;
    char *text = template_set(&l, &p);
    cr_expect_str_eq(p.lesson, "07_t");
    cr_assert_eq(p.n, 2);
    cr_expect_str_eq(p.items[0].id, "step-kernels");
    cr_expect_str_eq(p.items[0].variant, "eager");
    cr_expect_str_eq(p.items[0].range, "step");
    cr_expect_eq(p.items[0].n_facts, l.questions[0].n_facts);
    cr_expect_eq(wb_predictions_open(&p), p.items[0].n_facts + p.items[1].n_facts, "every value is ~");
    /* keys that YAML would misread come back as the same text */
    cr_expect(wb_predictions_find(&p, "step-kernels") != NULL);
    const char *labels[] = {"kernels_named.re:^nvjet", "kernels_named.a b", "kernels_named.true", "kernels_named.12",
                            "api_calls.cudaLaunchKernel", "kernels_named.gelu"};
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
        int found = 0;
        for (size_t j = 0; j < p.items[0].n_facts; j++) found |= !strcmp(p.items[0].facts[j].label, labels[i]);
        cr_expect(found, "%s missing from\n%s", labels[i], text);
    }
    /* the question is a comment above its prediction, every line of it */
    cr_expect(strstr(text, "# Q: How many kernels run in one step?\n"), "%s", text);
    cr_expect(strstr(text, "#    And how many are GEMMs?\n"), "%s", text);
    cr_expect_eq(wb_template_compare(&l, &p, NULL, 0), 0, "the template matches its own lesson");
    free(text);
    wb_predictions_free(&p);
    wb_lesson_free(&l);
}

Test(template, one_variant_lessons_may_omit_the_variant) {
    wb_lesson l;
    load(&l);
    free(l.questions[1].variant);
    l.questions[1].variant = NULL;
    l.n_variants = 1; /* as if graph were gone: the template then names no variant */
    wb_prediction_set p;
    char *text = template_set(&l, &p);
    cr_expect_null(wb_predictions_find(&p, "graph-launches")->variant);
    cr_expect_eq(wb_template_compare(&l, &p, NULL, 0), 0);
    free(text);
    wb_predictions_free(&p);
    l.n_variants = 2;
    wb_lesson_free(&l);
}

/* A compare of a template edited by replacing what with with; returns the issue count. */
static size_t compare_edited(const char *what, const char *with, char *first, size_t cap) {
    wb_lesson l;
    load(&l);
    char *text = wb_predictions_template(&l);
    char *at = strstr(text, what);
    cr_assert(at, "'%s' is not in the template:\n%s", what, text);
    size_t n = strlen(text) + strlen(with) + 1;
    char *edited = malloc(n);
    snprintf(edited, n, "%.*s%s%s", (int)(at - text), text, with, at + strlen(what));
    wb_prediction_set p;
    wb_error err = {0};
    cr_assert_eq(wb_predictions_load_buffer("predictions.yaml", edited, strlen(edited), &p, &err), 0, "%s", err.message);
    wb_template_issue issues[8];
    size_t k = wb_template_compare(&l, &p, issues, 8);
    if (k && first) snprintf(first, cap, "%s", issues[0].message);
    wb_predictions_free(&p);
    free(edited);
    free(text);
    wb_lesson_free(&l);
    return k;
}

Test(template, compare_finds_a_filled_value) {
    char msg[512] = "";
    cr_expect_eq(compare_edited("    memcpys: ~", "    memcpys: 3", msg, sizeof msg), 1);
    cr_expect(strstr(msg, "memcpys") && strstr(msg, "~"), "%s", msg);
}

Test(template, compare_finds_a_missing_question) {
    char msg[512] = "";
    cr_expect_eq(compare_edited("  - id: graph-launches\n", "  - id: graph-launchez\n", msg, sizeof msg), 2);
}

Test(template, compare_finds_a_wrong_range_and_variant) {
    cr_expect_eq(compare_edited("    range: gemm\n", "    range: step\n", NULL, 0), 1);
    cr_expect_eq(compare_edited("    variant: graph\n", "    variant: eager\n", NULL, 0), 1);
}

Test(template, compare_finds_missing_and_extra_facts) {
    char msg[512] = "";
    cr_expect_eq(compare_edited("    memcpys: ~\n", "", msg, sizeof msg), 1);
    cr_expect(strstr(msg, "lacks memcpys"), "%s", msg);
    cr_expect_eq(compare_edited("    memcpys: ~\n", "    memcpys: ~\n    kernels: ~\n", msg, sizeof msg), 1);
    cr_expect(strstr(msg, "does not ask"), "%s", msg);
}

Test(template, compare_finds_the_wrong_lesson) {
    cr_expect_eq(compare_edited("lesson: 07_t\n", "lesson: 08_u\n", NULL, 0), 1);
}

Test(template, yaml_quote) {
    char buf[64];
    cr_expect_str_eq(wb_yaml_quote("gelu", buf, sizeof buf), "gelu");
    cr_expect_str_eq(wb_yaml_quote("cudaLaunchKernel", buf, sizeof buf), "cudaLaunchKernel");
    cr_expect_str_eq(wb_yaml_quote("re:^nvjet", buf, sizeof buf), "\"re:^nvjet\"");
    cr_expect_str_eq(wb_yaml_quote("true", buf, sizeof buf), "\"true\"");
    cr_expect_str_eq(wb_yaml_quote("12", buf, sizeof buf), "\"12\"");
    cr_expect_str_eq(wb_yaml_quote("~", buf, sizeof buf), "\"~\"");
    cr_expect_str_eq(wb_yaml_quote("", buf, sizeof buf), "\"\"");
    cr_expect_str_eq(wb_yaml_quote("a\"b\\c", buf, sizeof buf), "\"a\\\"b\\\\c\"");
    cr_expect_str_eq(wb_yaml_quote("-x", buf, sizeof buf), "\"-x\"");
}
