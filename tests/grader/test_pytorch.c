/*
 * test_pytorch.c: what the grader does for lessons' PyTorch variants, without PyTorch or a GPU:
 * lesson.yaml's program key, range names compared up to their first comma (PyTorch's
 * per-operator ranges), the interpreter probe's answers (a fake interpreter stands in for
 * python3), the versions a recording keeps and the report shows, and what differs from the
 * answer key's software.
 */
#include "capture_builder.h"
#include "facts.h"
#include "grade.h"
#include "lesson.h"
#include "python_probe.h"
#include "speak.h"
#include "versions.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- lesson.yaml: program ------------------------------------------------------------------ */

static int load(const char *variant_lines, const char *ranges, wb_lesson *l, wb_error *err) {
    char text[2048];
    snprintf(text, sizeof text,
             "lesson: 09_test\ntitle: t\nbinary: lesson_09\nvariants:\n  - name: c\n    args: []\n%s"
             "ranges: %s\nquestions:\n  - {id: q, variant: c, range: step, facts: [kernels], ask: a}\n",
             variant_lines, ranges);
    return wb_lesson_load_buffer("lessons/09_test", text, strlen(text), l, err);
}

Test(pytorch, a_variant_runs_a_script_of_the_lesson_folder) {
    wb_lesson l;
    wb_error err = {0};
    cr_assert_eq(load("  - name: torch\n    program: [python3, torch/linear.py]\n    args: [--compile]\n", "[step]", &l, &err), 0,
                 "%s", err.message);
    cr_assert(!wb_variant_is_python(wb_lesson_variant(&l, "c")));
    const wb_variant *v = wb_lesson_variant(&l, "torch");
    cr_assert(wb_variant_is_python(v));
    cr_assert_str_eq(v->program[1], "torch/linear.py");
    cr_assert_eq(v->n_args, 1);
    wb_lesson_free(&l);
}

Test(pytorch, a_program_outside_the_lesson_or_not_python3_is_refused) {
    static const char *const bad[] = {"[python3]", "[python, x.py]", "[python3, /tmp/x.py]", "[python3, ../x.py]",
                                      "[python3, a/../../x.py]", "[python3, x.py, --flag]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char lines[256];
        snprintf(lines, sizeof lines, "  - name: torch\n    program: %s\n    args: []\n", bad[i]);
        wb_lesson l;
        wb_error err = {0};
        cr_assert_eq(load(lines, "[step]", &l, &err), WB_EXIT_INPUT, "%s accepted", bad[i]);
        cr_assert(strstr(err.message, "[python3, SCRIPT]"), "%s", err.message);
    }
}

Test(pytorch, a_listed_range_name_has_no_comma) {
    wb_lesson l;
    wb_error err = {0};
    cr_assert_eq(load("", "[step, \"aten::addmm, seq = 7\"]", &l, &err), WB_EXIT_INPUT);
    cr_assert(strstr(err.message, "first comma"), "%s", err.message);
}

/* ---- range names up to the first comma ------------------------------------------------------- */

Test(pytorch, range_names_compare_up_to_their_first_comma) {
    cr_assert_eq(wb_range_name_cmp("aten::addmm, seq = 7, op_id = 5", "aten::addmm"), 0);
    cr_assert_eq(wb_range_name_cmp("aten::addmm", "aten::addmm, op_id = 9"), 0);
    cr_assert_lt(wb_range_name_cmp("aten::add, op_id = 1", "aten::addmm"), 0);
    cr_assert_gt(wb_range_name_cmp("aten::addmm, op_id = 1", "aten::add"), 0);
    cr_assert_neq(wb_range_name_cmp("step", "steps"), 0);
}

/* One step starting at t: a range that launches nothing (quiet), then one (busy) whose single
 * kernel runs from t + 500 to kernel_end, launched through api with correlation id corr. */
static void add_operator_step(wb_capture *c, uint64_t t, const char *quiet, const char *busy, const char *api,
                              const char *kernel, uint64_t kernel_end, uint32_t corr) {
    add_range(c, "step", t, t + 5000, 1);
    add_range(c, quiet, t + 100, t + 200, 1);
    add_range(c, busy, t + 300, t + 900, 1);
    add_api(c, api, t + 400, t + 410, corr, 1);
    add_kernel(c, kernel, t + 500, kernel_end, corr, 7);
}

/* Three steps of nn.Linear as PyTorch's emit_nvtx names them: each step's aten::t launches
 * nothing, its aten::addmm one GEMM; every call has its own numbers after the comma. */
Test(pytorch, an_operator_range_is_asked_by_its_name_before_the_comma) {
    wb_recording rec;
    wb_capture *c = build_recording(&rec);
    uint32_t corr = 1;
    for (uint64_t s = 0; s < 3; s++) {
        uint64_t t = 10000 * (s + 1);
        char name[64];
        char quiet[64];
        snprintf(quiet, sizeof quiet, "aten::t, seq = %llu, op_id = %llu", (unsigned long long)s, (unsigned long long)(4 * s + 1));
        snprintf(name, sizeof name, "aten::addmm, seq = %llu, op_id = %llu", (unsigned long long)s, (unsigned long long)(4 * s + 3));
        add_operator_step(c, t, quiet, name, "cuLaunchKernelEx", "nvjet_sm90_tst_64x8_64x16_1x2_h_bz_bias_TNT", t + 800, corr++);
    }
    build_finish(c);
    wb_occurrences occ;
    cr_assert_eq(wb_find_occurrences(c, "aten::addmm", &occ), 0);
    cr_assert_eq(occ.n, 3, "one occurrence per step, whatever the numbers: %zu", occ.n);
    for (size_t i = 0; i < occ.n; i++) cr_assert_eq(occ.items[i].n_kernels, 1);
    wb_occurrences_free(&occ);
    cr_assert_eq(wb_find_occurrences(c, "aten::t", &occ), 0);
    cr_assert_eq(occ.n, 3);
    for (size_t i = 0; i < occ.n; i++) cr_assert_eq(occ.items[i].n_kernels, 0);
    wb_occurrences_free(&occ);
    cr_assert_eq(wb_find_occurrences(c, "aten::add", &occ), 0);
    cr_assert_eq(occ.n, 0, "aten::add is not aten::addmm");
    wb_occurrences_free(&occ);
    wb_recording_free(&rec);
}

/* ---- range names by pattern ------------------------------------------------------------------- */

/* Inductor's ranges, named after the Triton kernel each runs, asked about by a pattern: every
 * match is an occurrence, in time order, and other ranges are not. */
Test(pytorch, a_pattern_asks_about_every_range_it_matches) {
    wb_recording rec;
    wb_capture *c = build_recording(&rec);
    uint32_t corr = 1;
    for (uint64_t s = 0; s < 3; s++) {
        uint64_t t = 10000 * (s + 1);
        char name[64];
        char quiet[64];
        snprintf(quiet, sizeof quiet, "aten::mm, op_id = %llu", (unsigned long long)(3 * s));
        snprintf(name, sizeof name, "triton_poi_fused_gelu_mul_0, op_id = %llu", (unsigned long long)(3 * s + 1));
        add_operator_step(c, t, quiet, name, "cuLaunchKernel", "triton_poi_fused_gelu_mul_0", t + 800 + s, corr++);
    }
    build_finish(c);
    wb_occurrences occ;
    cr_assert_eq(wb_find_occurrences(c, "re:^TRITON_", &occ), 0);
    cr_assert_eq(occ.n, 3, "one occurrence per step: %zu", occ.n);
    for (size_t i = 0; i < occ.n; i++) {
        cr_assert_eq(occ.items[i].n_kernels, 1);
        cr_assert_eq(occ.items[i].start, 10000 * (i + 1) + 300, "in time order");
    }
    wb_occurrences_free(&occ);
    cr_assert_eq(wb_find_occurrences(c, "re:gelu_mul_0, op_id", &occ), 0);
    cr_assert_eq(occ.n, 0, "matched up to the first comma, as names are compared");
    wb_occurrences_free(&occ);
    cr_assert(wb_range_name_matches("re:^triton_", "triton_poi_fused_gelu_mul_0, op_id = 1"));
    cr_assert_not(wb_range_name_matches("re:^triton_", "aten::mm, op_id = 0"));
    cr_assert(wb_range_name_matches("aten::mm", "aten::mm, op_id = 0"), "a plain name compares as before");
    wb_recording_free(&rec);
}

Test(pytorch, a_listed_pattern_stands_for_the_ranges_it_matches) {
    wb_lesson l;
    wb_error err = {0};
    cr_assert_eq(load("", "[step, \"re:^triton_\"]", &l, &err), 0, "%s", err.message);
    cr_assert(wb_lesson_lists_range(&l, "triton_poi_fused_gelu_mul_0"));
    cr_assert(wb_lesson_lists_range(&l, "step"));
    cr_assert_not(wb_lesson_lists_range(&l, "gelu_mul"));
    cr_assert(wb_lesson_has_range(&l, "re:^triton_"), "a question names the pattern as listed");
    wb_lesson_free(&l);
}

Test(pytorch, a_pattern_that_is_no_regex_is_refused) {
    wb_lesson l;
    wb_error err = {0};
    cr_assert_eq(load("", "[step, \"re:(triton\"]", &l, &err), WB_EXIT_INPUT);
    cr_assert(strstr(err.message, "re:(triton") && strstr(err.message, "regex"), "%s", err.message);
}

/* ---- the interpreter probe ---------------------------------------------------------------------- */

static char dir[] = "/tmp/wb-test-pytorch-XXXXXX";
static char path[256]; /* the fake interpreter */

static void make_dir(void) {
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/python3", dir);
}

/* The probe's answer from a fake interpreter, a shell script running body whatever it is asked. */
static const wb_python_info *probe_fake(const char *body) {
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "#!/bin/sh\n%s\n", body);
    fclose(f);
    chmod(path, 0755);
    setenv("WB_PYTHON", path, 1);
    return wb_python_probe(dir);
}

Test(pytorch, without_torch_the_probe_says_the_import_failed, .init = make_dir) {
    const wb_python_info *py = probe_fake("echo 'WB_PYTHON_PROBE {\"error\": \"import torch failed: ModuleNotFoundError: No module named '\"'\"'torch'\"'\"'\"}'");
    cr_assert_not(py->usable);
    cr_assert(strstr(py->why, "import torch failed: ModuleNotFoundError: No module named 'torch'"), "%s", py->why);
    cr_assert(strstr(py->why, path), "names the interpreter: %s", py->why);
}

Test(pytorch, a_torch_without_cuda_is_not_usable, .init = make_dir) {
    const wb_python_info *py = probe_fake("echo 'WB_PYTHON_PROBE {\"torch\": \"2.11.0+cpu\", \"torch_cuda\": \"\", \"cuda\": false}'");
    cr_assert_not(py->usable);
    cr_assert(strstr(py->why, "torch.cuda.is_available() is False"), "%s", py->why);
    cr_assert(strstr(py->why, "CPU-only"), "%s", py->why);
}

Test(pytorch, a_torch_with_cuda_is_usable_and_its_versions_kept, .init = make_dir) {
    const wb_python_info *py = probe_fake("echo 'Python says hello first'; echo 'WB_PYTHON_PROBE {\"torch\": \"2.11.0+cu130\", \"torch_cuda\": \"13.0\", "
                      "\"cuda\": true, \"triton\": \"3.6.0\"}'");
    cr_assert(py->usable, "%s", py->why);
    cr_assert_str_eq(py->torch, "2.11.0+cu130");
    cr_assert_str_eq(py->torch_cuda, "13.0");
    cr_assert_str_eq(py->triton, "3.6.0");
}

Test(pytorch, a_missing_interpreter_or_a_silent_one_is_said) {
    setenv("WB_PYTHON", "/nonexistent/python3", 1);
    const wb_python_info *py = wb_python_probe("/tmp");
    cr_assert_not(py->usable);
    cr_assert(strstr(py->why, "no Python interpreter"), "%s", py->why);
}

Test(pytorch, an_interpreter_that_crashes_is_said_with_its_last_line, .init = make_dir) {
    const wb_python_info *py = probe_fake("echo 'Segmentation fault in libtorch' >&2; exit 139");
    cr_assert_not(py->usable);
    cr_assert(strstr(py->why, "without saying whether it has PyTorch"), "%s", py->why);
    cr_assert(strstr(py->why, "Segmentation fault in libtorch"), "%s", py->why);
}

/* What the probe says, whole, in English and in Japanese: the answer it parsed, then an
 * interpreter that is missing, cannot start or ends without an answer (the probe asks once per
 * process, so one Test per language). */
static void expect_parsed(const char *lang, const char *answer, const char *expected) {
    speak(lang);
    wb_python_info info = {0};
    strcpy(info.python, "/usr/bin/python3");
    cr_assert_eq(wb_python_probe_parse(answer, &info), 0);
    cr_assert_not(info.usable);
    cr_assert_str_eq(info.why, expected, "%s", lang);
}

Test(pytorch, what_the_probe_parsed_is_said_whole_in_english_and_japanese) {
    const char *cpu = "WB_PYTHON_PROBE {\"torch\": \"2.11.0+cpu\", \"torch_cuda\": \"\", \"cuda\": false}";
    const char *no_device = "WB_PYTHON_PROBE {\"torch\": \"2.11.0+cu130\", \"torch_cuda\": \"13.0\", \"cuda\": false}";
    const char *no_torch = "WB_PYTHON_PROBE {\"error\": \"import torch failed: ModuleNotFoundError: No module named 'torch'\"}";
    expect_parsed("en", cpu, "PyTorch 2.11.0+cpu (/usr/bin/python3) sees no CUDA device: torch.cuda.is_available() is False (a "
                             "CPU-only build of PyTorch)");
    expect_parsed("ja", cpu, "PyTorch 2.11.0+cpu (/usr/bin/python3) から CUDA デバイスが見えません: torch.cuda.is_available() が "
                             "False です (CPU 専用ビルドの PyTorch です)");
    expect_parsed("en", no_device, "PyTorch 2.11.0+cu130 (/usr/bin/python3) sees no CUDA device: torch.cuda.is_available() is "
                                   "False");
    expect_parsed("ja", no_device, "PyTorch 2.11.0+cu130 (/usr/bin/python3) から CUDA デバイスが見えません: "
                                   "torch.cuda.is_available() が False です");
    expect_parsed("en", no_torch, "import torch failed: ModuleNotFoundError: No module named 'torch' (with /usr/bin/python3)");
    expect_parsed("ja", no_torch, "import torch failed: ModuleNotFoundError: No module named 'torch' (/usr/bin/python3 で実行)");
}

static void expect_missing_interpreter(const char *lang, const char *expected) {
    speak(lang);
    setenv("WB_PYTHON", "/nonexistent/python3", 1);
    const wb_python_info *py = wb_python_probe("/tmp");
    cr_assert_not(py->usable);
    cr_assert_str_eq(py->why, expected);
}

Test(pytorch, a_missing_interpreter_is_said_whole_in_english) {
    expect_missing_interpreter("en", "no Python interpreter: /nonexistent/python3 is not on PATH (WB_PYTHON names another)");
}

Test(pytorch, a_missing_interpreter_is_said_whole_in_japanese) {
    expect_missing_interpreter("ja", "Python インタープリタがありません: /nonexistent/python3 が PATH にありません (WB_PYTHON で"
                                     "別のものを指定できます)");
}

/* The fake interpreter runs body; expected is a format of the interpreter's path and the log's. */
static void expect_silent_interpreter(const char *lang, const char *body, const char *expected) {
    speak(lang);
    const wb_python_info *py = probe_fake(body);
    char log[512], want[2048];
    snprintf(log, sizeof log, "%s/python-probe.log", dir);
    snprintf(want, sizeof want, expected, path, log);
    cr_assert_not(py->usable);
    cr_assert_str_eq(py->why, want);
}

#define CRASH "echo 'Segmentation fault in libtorch' >&2; exit 139"

Test(pytorch, an_interpreter_that_crashes_is_said_whole_in_english, .init = make_dir) {
    expect_silent_interpreter("en", CRASH, "%s ended without saying whether it has PyTorch: Segmentation fault in libtorch (its "
                                           "output: %s)");
}

Test(pytorch, an_interpreter_that_crashes_is_said_whole_in_japanese, .init = make_dir) {
    expect_silent_interpreter("ja", CRASH, "%s は PyTorch があるかどうかを答えないまま終了しました: Segmentation fault in "
                                           "libtorch (出力: %s)");
}

Test(pytorch, an_interpreter_that_cannot_start_is_said_whole_in_english, .init = make_dir) {
    expect_silent_interpreter("en", "exit 127", "%s could not be started without saying whether it has PyTorch (its output: %s)");
}

Test(pytorch, an_interpreter_that_cannot_start_is_said_whole_in_japanese, .init = make_dir) {
    expect_silent_interpreter("ja", "exit 127", "%s を起動できず、PyTorch があるかどうかを確かめられませんでした (出力: %s)");
}

/* ---- versions ------------------------------------------------------------------------------------- */

Test(pytorch, the_report_names_pytorch_and_what_differs_from_the_key) {
    wb_recording live, key;
    wb_capture *a = build_recording(&live), *b = build_recording(&key);
    strcpy(a->cublas_version, "13.2.0");
    strcpy(b->cublas_version, "13.1.0");
    a->driver_version = b->driver_version = 13000;
    a->runtime_version = b->runtime_version = 13000;
    build_finish(a);
    build_finish(b);
    char buf[2048];
    cr_assert_null(wb_recording_pytorch(&live, buf, sizeof buf), "no PyTorch run, no PyTorch line");
    live.runs[0].python = key.runs[0].python = 1;
    strcpy(live.runs[0].torch, "2.12.0+cu130");
    strcpy(key.runs[0].torch, "2.11.0+cu130");
    strcpy(live.runs[0].triton, "3.6.0");
    strcpy(key.runs[0].triton, "3.6.0");
    cr_assert_str_eq(wb_recording_pytorch(&live, buf, sizeof buf), "PyTorch 2.12.0+cu130, Triton 3.6.0, cuBLAS 13.2.0");
    cr_assert(wb_versions_differ(&live, &key, buf, sizeof buf));
    cr_assert_str_eq(buf, "cuBLAS 13.2.0 here, 13.1.0 in the answer key's recording; PyTorch 2.12.0+cu130 here, 2.11.0+cu130 in "
                          "the answer key's recording");
    cr_assert(strstr(WB_VERSIONS_MAY_DIFFER, "kernel names") < strstr(WB_VERSIONS_MAY_DIFFER, "time fact"),
              "kernel names come first");
    cr_assert_not(wb_versions_differ(&key, &key, buf, sizeof buf));
    wb_recording_free(&live);
    wb_recording_free(&key);
}

/* The PyTorch line and what differs, in a language (each Test runs in its own process, so the
 * language chosen stays in it); the catalog is this build's. */
static void expect_versions(const char *lang, const wb_recording *live, const wb_recording *key, const char *pytorch,
                            const char *differ) {
    char buf[2048];
    speak(lang);
    cr_assert_str_eq(wb_recording_pytorch(live, buf, sizeof buf), pytorch, "%s", lang);
    cr_assert(wb_versions_differ(live, key, buf, sizeof buf));
    cr_assert_str_eq(buf, differ, "%s", lang);
}

Test(pytorch, the_versions_in_japanese_and_in_english) {
    wb_recording live, key;
    wb_capture *a = build_recording(&live), *b = build_recording(&key);
    strcpy(a->cublas_version, "13.2.0");
    strcpy(b->cublas_version, "13.1.0");
    build_finish(a);
    build_finish(b);
    live.runs[0].python = key.runs[0].python = 1;
    strcpy(live.runs[0].torch, "2.12.0+cu130");
    strcpy(live.runs[0].torch_cuda, "13.0");
    strcpy(key.runs[0].torch, "2.11.0+cu130");
    expect_versions("en", &live, &key, "PyTorch 2.12.0+cu130 (built for CUDA 13.0), Triton not installed, cuBLAS 13.2.0",
                    "cuBLAS 13.2.0 here, 13.1.0 in the answer key's recording; PyTorch 2.12.0+cu130 here, 2.11.0+cu130 in the "
                    "answer key's recording");
    expect_versions("ja", &live, &key, "PyTorch 2.12.0+cu130 (CUDA 13.0 向けビルド)、Triton 未インストール、cuBLAS 13.2.0",
                    "cuBLAS はここでは 13.2.0、解答キーの記録では 13.1.0。PyTorch はここでは 2.12.0+cu130、解答キーの記録では "
                    "2.11.0+cu130");
    wb_recording_free(&live);
    wb_recording_free(&key);
}
