/*
 * test_new_lesson.c: `grader new` makes a lesson the grader can read in full (lesson.yaml, its
 * template, an empty unverified answer key), numbered in course order, and never overwrites or
 * half-makes anything.
 */
#include "answer_key.h"
#include "course_fixture.h"
#include "lint.h"
#include "new_lesson.h"
#include "paths.h"

#include <criterion/criterion.h>

static char root[4200];

static void setup(void) {
    fixture_temp_dir(root, sizeof root);
    char path[4400];
    snprintf(path, sizeof path, "%s/lessons/03_existing", root);
    fixture_mkdir(path);
    snprintf(path, sizeof path, "%s/lessons/01_first", root);
    fixture_mkdir(path);
}

static void teardown(void) { fixture_remove(root); }

TestSuite(new_lesson, .init = setup, .fini = teardown);

static int create(const char *name, int number, const char *title, char *dir, size_t cap, wb_error *err) {
    wb_new_lesson req = {root, name, number, title};
    return wb_new_lesson_create(&req, dir, cap, err);
}

static int exists(const char *fmt, const char *arg) {
    char path[4600];
    snprintf(path, sizeof path, fmt, root, arg);
    return wb_file_exists(path) || wb_is_dir(path);
}

Test(new_lesson, next_free_number) {
    cr_expect_eq(wb_next_lesson_number(root), 4);
}

Test(new_lesson, makes_a_lesson_the_grader_reads) {
    char dir[4600], path[4800];
    wb_error err = {0};
    cr_assert_eq(create("attention", -1, "softmax(Q K^T) V: \"how many kernels?\"", dir, sizeof dir, &err), 0, "%s", err.message);
    snprintf(path, sizeof path, "%s/lessons/04_attention", root);
    cr_expect_str_eq(dir, path);
    static const char *const files[] = {"main.cu", "CMakeLists.txt", "lesson.yaml", "predictions.template.yaml", "README.md"};
    for (size_t i = 0; i < 5; i++) cr_expect(exists("%s/lessons/04_attention/%s", files[i]), "%s missing", files[i]);

    wb_lesson l;
    cr_assert_eq(wb_lesson_load(dir, &l, &err), 0, "%s", err.message);
    cr_expect_str_eq(l.lesson, "04_attention");
    cr_expect_str_eq(l.binary, "lesson_04_attention");
    cr_expect_str_eq(l.title, "softmax(Q K^T) V: \"how many kernels?\"");
    cr_expect(l.n_questions >= 1 && l.questions[0].n_hints >= 1);

    /* the template is the lesson's */
    wb_prediction_set p;
    snprintf(path, sizeof path, "%s/predictions.template.yaml", dir);
    cr_assert_eq(wb_predictions_load(path, &p, &err), 0, "%s", err.message);
    cr_expect_eq(wb_template_compare(&l, &p, NULL, 0), 0);
    wb_predictions_free(&p);

    /* the key: readable, no architecture yet, an explanation to write */
    wb_answer_key k;
    snprintf(path, sizeof path, "%s/expectations/04_attention.yaml", root);
    cr_assert_eq(wb_answer_key_load(path, &k, &err), 0, "%s", err.message);
    cr_expect_eq(k.n_archs, 0);
    cr_expect_str_eq(k.lesson, "04_attention");
    cr_expect(wb_answer_key_explanation(&k, l.questions[0].id) != NULL);
    char *text = fixture_read(path);
    cr_expect(strstr(text, "UNVERIFIED") && strstr(text, "status: unverified"), "marked unverified");
    free(text);
    wb_answer_key_free(&k);

    /* the program: NVTX ranges of lesson.yaml (step and sync come from the shared frame,
     * common/wb_lesson.c and wb_steps.c, which also open and close the profiled window), the
     * build line */
    snprintf(path, sizeof path, "%s/main.cu", dir);
    text = fixture_read(path);
    for (size_t i = 0; i < l.n_ranges; i++) {
        if (!strcmp(l.ranges[i], "step") || !strcmp(l.ranges[i], "sync")) continue;
        char push[128];
        snprintf(push, sizeof push, "nvtxRangePushA(\"%s\")", l.ranges[i]);
        cr_expect(strstr(text, push), "main.cu pushes no range %s", l.ranges[i]);
    }
    cr_expect(strstr(text, "wb_lesson_main(&spec"), "the program runs in the lessons' shared frame");
    cr_expect(strstr(text, "CUDA_CHECK_LAUNCH()"), "checks the last error after a launch");
    cr_expect(!strstr(text, "@"), "every placeholder substituted");
    free(text);
    snprintf(path, sizeof path, "%s/CMakeLists.txt", dir);
    text = fixture_read(path);
    cr_expect_str_eq(text, "wb_add_lesson(lesson_04_attention SOURCES main.cu)\n");
    free(text);
    snprintf(path, sizeof path, "%s/README.md", dir);
    text = fixture_read(path);
    cr_expect(strstr(text, "\n<!-- reveal -->\n"));
    free(text);

    /* lint: only what a new lesson cannot have yet (with the shared harness its ranges come from) */
    char common[4600], steps[4600];
    snprintf(common, sizeof common, "%s/common", root);
    fixture_mkdir(common);
    snprintf(path, sizeof path, "%s/common/wb_steps.c", fixture_source_dir());
    snprintf(steps, sizeof steps, "%s/wb_steps.c", common);
    fixture_copy(path, steps);
    wb_lint_report r;
    cr_assert_eq(wb_lint_lesson(dir, &r), 0);
    for (size_t i = 0; i < r.n; i++)
        cr_expect(!strcmp(r.items[i].check, "key-no-verified") || !strcmp(r.items[i].check, "recording-missing") ||
                      !strcmp(r.items[i].check, "explanation-todo") || !strcmp(r.items[i].check, "readme-todo"),
                  "unexpected lint issue on a new lesson: [%s] %s", r.items[i].check, r.items[i].message);
    cr_expect(r.errors > 0, "a new lesson is unfinished");
    wb_lint_report_free(&r);
    wb_lesson_free(&l);
}

Test(new_lesson, default_title_is_a_todo_lint_reports) {
    char dir[4600];
    wb_error err = {0};
    cr_assert_eq(create("scan", -1, NULL, dir, sizeof dir, &err), 0, "%s", err.message);
    wb_lint_report r;
    cr_assert_eq(wb_lint_lesson(dir, &r), 0);
    cr_expect_eq(wb_lint_count(&r, "lesson-todo"), 1);
    wb_lint_report_free(&r);
}

Test(new_lesson, number_in_the_name_or_given) {
    char dir[4600];
    wb_error err = {0};
    cr_assert_eq(create("07_softmax", -1, NULL, dir, sizeof dir, &err), 0, "%s", err.message);
    cr_expect(exists("%s/lessons/%s", "07_softmax"));
    cr_assert_eq(create("layernorm", 9, NULL, dir, sizeof dir, &err), 0, "%s", err.message);
    cr_expect(exists("%s/lessons/%s", "09_layernorm"));
    cr_expect_eq(wb_next_lesson_number(root), 10);
}

Test(new_lesson, refuses_what_exists) {
    char dir[4600];
    wb_error err = {0};
    cr_expect_eq(create("existing", -1, NULL, dir, sizeof dir, &err), WB_EXIT_INPUT, "a lesson by that name");
    cr_expect(!exists("%s/lessons/%s", "04_existing"));
    memset(&err, 0, sizeof err);
    cr_expect_eq(create("other", 3, NULL, dir, sizeof dir, &err), WB_EXIT_INPUT, "number 03 is taken");
    cr_expect(strstr(err.message, "03_existing"), "%s", err.message);
    memset(&err, 0, sizeof err);
    cr_expect_eq(create("03_other", 5, NULL, dir, sizeof dir, &err), WB_EXIT_INPUT, "two numbers");
    /* an answer key that exists stops it before anything is made */
    char keys[4400], key[4600];
    snprintf(keys, sizeof keys, "%s/expectations", root);
    fixture_mkdir(keys);
    snprintf(key, sizeof key, "%s/04_orphan.yaml", keys);
    fixture_write(key, "lesson: 04_orphan\n");
    memset(&err, 0, sizeof err);
    cr_expect_eq(create("orphan", -1, NULL, dir, sizeof dir, &err), WB_EXIT_INPUT);
    cr_expect(!exists("%s/lessons/%s", "04_orphan"), "nothing half made");
    char *text = fixture_read(key);
    cr_expect_str_eq(text, "lesson: 04_orphan\n", "the existing key is untouched");
    free(text);
}

Test(new_lesson, refuses_bad_names) {
    char dir[4600];
    static const char *const bad[] = {"", "Attention", "9lives", "has-dash", "has space", "trailing_", "../escape",
                                      "a_name_that_is_much_longer_than_anyone_should_ever_type"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        wb_error err = {0};
        cr_expect_eq(create(bad[i], -1, NULL, dir, sizeof dir, &err), WB_EXIT_INPUT, "'%s' accepted", bad[i]);
    }
    wb_error err = {0};
    cr_expect_eq(create("x", 100, NULL, dir, sizeof dir, &err), WB_EXIT_INPUT);
    cr_expect_eq(wb_next_lesson_number(root), 4, "nothing was made");
}

static size_t count_of(const char *path, const char *what) {
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f), count = 0;
    fclose(f);
    text[n] = '\0';
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what)) count++;
    return count;
}

/* A title that would end main.cu's header comment ("*" "/") or open a nested one: the comment stays
 * whole (as many comment ends as with a plain title), and lesson.yaml keeps the title exactly. */
Test(new_lesson, a_title_cannot_end_the_programs_comment) {
    char dir[4600], path[4800];
    wb_error err = {0};
    cr_assert_eq(create("plain", -1, "plain title", dir, sizeof dir, &err), 0, "%s", err.message);
    snprintf(path, sizeof path, "%s/main.cu", dir);
    size_t ends = count_of(path, "*/"), opens = count_of(path, "/*");
    const char *tricky = "a */ b /* c */ int x = 1; /*";
    cr_assert_eq(create("tricky", -1, tricky, dir, sizeof dir, &err), 0, "%s", err.message);
    snprintf(path, sizeof path, "%s/main.cu", dir);
    cr_expect_eq(count_of(path, "*/"), ends, "the title ended the comment");
    cr_expect_eq(count_of(path, "/*"), opens, "the title opened a comment");
    wb_lesson l;
    cr_assert_eq(wb_lesson_load(dir, &l, &err), 0, "%s", err.message);
    cr_expect_str_eq(l.title, tricky);
    wb_lesson_free(&l);
    /* control characters (an escape sequence, a carriage return) are refused */
    memset(&err, 0, sizeof err);
    cr_expect_eq(create("escape", -1, "red \x1b[31m title", dir, sizeof dir, &err), WB_EXIT_INPUT);
    cr_expect(strstr(err.message, "control character"), "%s", err.message);
    cr_expect(!exists("%s/lessons/%s", "06_escape"), "a refused title left a folder");
}
