/*
 * test_course_messages.c: what an instructor or a learner reads when a lesson cannot be used, in
 * Japanese and in English (docs/i18n.md), compared whole:
 *   - a folder without lesson.yaml is "no lesson here" in both languages, decided on the file and
 *     not on the reader's (translated) message; a lesson.yaml that is there but unreadable keeps
 *     the reader's own message;
 *   - a lesson program that is not built says to build it;
 *   - a lesson.yaml error and a work expression's error name the file and line in both languages.
 * Each Test runs in its own process, so the language chosen stays in it.
 */
#include "course_fixture.h"
#include "lesson.h"
#include "paths.h"
#include "speak.h"
#include "wb_base.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void expect_message(const wb_error *err, const char *expected) {
    cr_assert_eq(err->code, WB_EXIT_INPUT, "exit %d: %s", err->code, err->message);
    cr_assert_str_eq(err->message, expected);
}

/* A lesson folder without lesson.yaml, then with a folder named lesson.yaml in its place. */
static void no_lesson_here(const char *lang, const char *missing_format, const char *unreadable_format) {
    speak(lang);
    char root[256], lesson_dir[512], expected[2048];
    fixture_temp_dir(root, sizeof root);
    snprintf(lesson_dir, sizeof lesson_dir, "%s/lessons/01_empty", root);
    fixture_mkdir(lesson_dir);
    wb_lesson l;
    wb_error err = {0};
    cr_assert_neq(wb_lesson_load(lesson_dir, &l, &err), 0);
    snprintf(expected, sizeof expected, missing_format, lesson_dir);
    expect_message(&err, expected);

    char yaml[600];
    snprintf(yaml, sizeof yaml, "%s/lesson.yaml", lesson_dir);
    fixture_mkdir(yaml);
    memset(&err, 0, sizeof err);
    cr_assert_neq(wb_lesson_load(lesson_dir, &l, &err), 0);
    snprintf(expected, sizeof expected, unreadable_format, yaml);
    expect_message(&err, expected);
    fixture_remove(root);
}

Test(course_messages, no_lesson_here_in_japanese) {
    no_lesson_here("ja", "%s: ここにはレッスンがありません (lesson.yaml がありません)。lessons/01_matmul_add のような"
                         "レッスンフォルダを指定してください",
                   "%s: lesson.yamlがディレクトリで、通常のファイルではありません。ファイルそのものを指定してください "
                   "(docs/limits.md)");
}

Test(course_messages, no_lesson_here_in_english) {
    no_lesson_here("en", "%s: no lesson here (no lesson.yaml). Give a lesson folder such as lessons/01_matmul_add",
                   "%s: the lesson.yaml is a directory, not a regular file; give the file itself (docs/limits.md)");
}

static void not_built(const char *lang, const char *format) {
    speak(lang);
    char dir[256], found[4096], expected[4400];
    fixture_temp_dir(dir, sizeof dir);
    setenv("WB_BIN_DIR", dir, 1);
    wb_error err = {0};
    cr_assert_eq(wb_find_lesson_binary("lesson_01_matmul_add", found, sizeof found, &err), WB_EXIT_CAPTURE);
    char path[600];
    snprintf(path, sizeof path, "%s/lesson_01_matmul_add", dir);
    snprintf(expected, sizeof expected, format, path);
    cr_assert_str_eq(err.message, expected);
    fixture_remove(dir);
}

Test(course_messages, a_lesson_program_not_built_in_japanese) {
    not_built("ja", "%s: レッスンのプログラムがビルドされていません。次を実行してください: cmake --build build");
}

Test(course_messages, a_lesson_program_not_built_in_english) {
    not_built("en", "%s: the lesson program is not built. Run: cmake --build build");
}

static const char LESSON[] =
    "lesson: 09_work\n"
    "title: work\n"
    "binary: lesson_09_work\n"
    "variants:\n"
    "  - name: eager\n"
    "    args: []\n"
    "    params: {n: 64}\n"
    "ranges: [step]\n"
    "questions:\n"
    "  - id: step-time\n"
    "    range: step\n"
    "    facts: [gpu_us]\n"
    "    ask: how long?\n";

/* lesson.yaml with tail after LESSON: loads with the message expected (a whole-message compare). */
static void lesson_error(const char *lang, const char *tail, const char *expected) {
    speak(lang);
    char text[2048];
    snprintf(text, sizeof text, "%s%s", LESSON, tail);
    wb_lesson l;
    wb_error err = {0};
    cr_assert_neq(wb_lesson_load_buffer("lessons/09_work", text, strlen(text), &l, &err), 0, "accepted: %s", tail);
    expect_message(&err, expected);
}

static const char RANK_TOO_HIGH[] = "    rank: 1\n";
static const char WORK_UNKNOWN_PARAM[] = "work:\n  - range: step\n    flops: 2*m*n\n    bytes: 1\n";

Test(course_messages, lesson_yaml_errors_in_japanese) {
    lesson_error("ja", RANK_TOO_HIGH,
                 "lessons/09_work/lesson.yaml:14:11: 設問 'step-time': rank は 1 ですが、バリアント eager が実行するプロセス"
                 "は 1 個です (ランク 0 から 0)。world_size を設定するか、もっと小さいランクについて尋ねてください");
    lesson_error("ja", WORK_UNKNOWN_PARAM,
                 "lessons/09_work/lesson.yaml:16:12: レンジ 'step' (バリアント eager) の 'flops' '2*m*n': 'm' はバリアントの"
                 "パラメータではありません (あるのは: n) (3 文字目)");
}

Test(course_messages, lesson_yaml_errors_in_english) {
    lesson_error("en", RANK_TOO_HIGH,
                 "lessons/09_work/lesson.yaml:14:11: question 'step-time': rank 1, but variant eager runs 1 process (ranks 0 "
                 "to 0); set world_size, or ask about a lower rank");
    lesson_error("en", WORK_UNKNOWN_PARAM,
                 "lessons/09_work/lesson.yaml:16:12: 'flops' of range 'step' (variant eager) '2*m*n': 'm' is not a parameter "
                 "of the variant (it has: n) (at character 3)");
}

Test(course_messages, a_work_expression_error_in_japanese_and_english) {
    const char *names[] = {"n"};
    const double values[] = {64};
    wb_expr_params params = {names, values, 1};
    const struct { const char *text, *en, *ja; } bad[] = {
        {"n ^ 2", "unexpected '^' (use numbers, parameters, + - * / and parentheses)",
         "'^' は使えません (数値、パラメータ、+ - * /、括弧を使ってください)"},
        {"2*", "expected a number, a parameter or '(' at the end", "式の終わりに数値、パラメータ、'(' のいずれかが必要です"},
        {"2*k", "'k' is not a parameter of the variant (it has: n)", "'k' はバリアントのパラメータではありません (あるのは: n)"},
    };
    const wb_expr_params none = {NULL, NULL, 0};
    for (int ja = 0; ja < 2; ja++) {
        speak(ja ? "ja" : "en");
        char msg[512];
        size_t at;
        double v;
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            cr_assert_neq(wb_expr_eval(bad[i].text, &params, &v, msg, sizeof msg, &at), 0, "%s accepted", bad[i].text);
            cr_assert_str_eq(msg, ja ? bad[i].ja : bad[i].en);
        }
        cr_assert_neq(wb_expr_eval("n", &none, &v, msg, sizeof msg, &at), 0);
        cr_assert_str_eq(msg, ja ? "'n' はバリアントのパラメータではありません (パラメータが 1 つもありません。バリアントに "
                                   "params: {NAME: VALUE} を加えてください)"
                                 : "'n' is not a parameter of the variant (it has none; add params: {NAME: VALUE} to the "
                                   "variant)");
    }
}
