/*
 * course_fixture.h: small courses in temporary folders for the tests of the course commands
 * (list, hint, diff, new, template, lint). Nothing here touches tracked files: every course is
 * made under /tmp and removed by fixture_remove().
 *
 * fixture_probe_course() builds a clean lesson around the probe's H200 recording
 * (tests/grader/probe/lessons/00_probe/traces/sm_90.json): the answers are known by construction
 * of probe.cu, and the lesson's ranges and variant arguments are read from the recording itself,
 * so the fixture stays clean when the probe is re-recorded. Tests then break one thing at a time.
 */
#ifndef WB_COURSE_FIXTURE_H
#define WB_COURSE_FIXTURE_H

#include "capture.h"
#include "lesson.h"
#include "template.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static inline const char *fixture_source_dir(void) {
    const char *s = getenv("WB_SOURCE_DIR");
    cr_assert(s && *s, "WB_SOURCE_DIR is not set (ctest sets it)");
    return s;
}

static inline void fixture_probe_recording(char *buf, size_t cap) {
    snprintf(buf, cap, "%s/tests/grader/probe/lessons/00_probe/traces/sm_90.json", fixture_source_dir());
}

/* A fresh folder under /tmp into buf. */
static inline void fixture_temp_dir(char *buf, size_t cap) {
    snprintf(buf, cap, "/tmp/wb-test-XXXXXX");
    cr_assert(mkdtemp(buf), "mkdtemp failed");
}

static inline void fixture_remove(const char *dir) {
    char cmd[4400];
    if (strncmp(dir, "/tmp/wb-test-", 13) != 0) return; /* never anything else */
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert(system(cmd) == 0);
}

static inline void fixture_mkdir(const char *path) {
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
    cr_assert(system(cmd) == 0, "%s", cmd);
}

static inline void fixture_write(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* The whole file (malloc'd). */
static inline char *fixture_read(const char *path) {
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert(fread(s, 1, (size_t)n, f) == (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

static inline void fixture_copy(const char *from, const char *to) {
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    cr_assert(system(cmd) == 0, "%s", cmd);
}

/* Replaces the first occurrence of what in the file by with (the test fails when it is absent). */
static inline void fixture_replace(const char *path, const char *what, const char *with) {
    char *s = fixture_read(path);
    char *at = strstr(s, what);
    cr_assert(at, "%s does not contain '%s'", path, what);
    size_t n = strlen(s) + strlen(with) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - s), s, with, at + strlen(what));
    fixture_write(path, out);
    free(out);
    free(s);
}

static const char FIXTURE_QUESTIONS[] =
    "questions:\n"
    "  - id: two-kernels\n"
    "    variant: eager\n"
    "    range: two_kernels\n"
    "    facts: [kernels, api_calls.cudaLaunchKernel, kernels_named.wb_probe_scale]\n"
    "    ask: \"How many kernels do two launches make?\"\n"
    "    hints: [\"Count the <<<>>>.\", \"Each <<<>>> is one cudaLaunchKernel.\"]\n"
    "  - id: graph-kernels\n"
    "    variant: graph\n"
    "    range: two_kernels\n"
    "    facts: [kernels, api_calls.cudaGraphLaunch]\n"
    "    ask: \"And when the two launches are replayed from a graph?\"\n"
    "  - id: memset\n"
    "    variant: eager\n"
    "    range: memset\n"
    "    facts: [memsets, kernels]\n"
    "    ask: \"What does one cudaMemsetAsync put on the GPU?\"\n"
    "    hints: [\"A memset is not a kernel.\"]\n"
    "  - id: gemm\n"
    "    variant: eager\n"
    "    range: gemm\n"
    "    facts: [gemms]\n"
    "    ask: \"How many matrix multiplies does one cublasGemmEx run?\"\n";

/* Answers by construction of probe.cu (see tests/grader/probe/expectations/00_probe.yaml). */
static const char FIXTURE_KEY[] =
    "lesson: 00_probe\n"
    "architectures:\n"
    "  sm_90:\n"
    "    status: verified\n"
    "    verified_on: \"by construction (probe.cu)\"\n"
    "    predictions:\n"
    "      - id: two-kernels\n"
    "        variant: eager\n"
    "        range: two_kernels\n"
    "        kernels: 2\n"
    "        kernels_named: {wb_probe_scale: 2}\n"
    "        api_calls: {cudaLaunchKernel: 2}\n"
    "      - id: graph-kernels\n"
    "        variant: graph\n"
    "        range: two_kernels\n"
    "        kernels: 2\n"
    "        api_calls: {cudaGraphLaunch: 1}\n"
    "      - id: memset\n"
    "        variant: eager\n"
    "        range: memset\n"
    "        memsets: 1\n"
    "        kernels: 0\n"
    "      - id: gemm\n"
    "        variant: eager\n"
    "        range: gemm\n"
    "        gemms: 1\n"
    "explanations:\n"
    "  two-kernels: \"Two launches, two kernels.\"\n"
    "  graph-kernels: \"One cudaGraphLaunch replays both.\"\n"
    "  memset: \"A memset is a GPU operation of its own, not a kernel.\"\n"
    "  gemm: \"cuBLAS runs one nvjet kernel.\"\n";

/* Builds ROOT/lessons/00_probe (lesson.yaml, predictions.template.yaml, probe.cu, README.md, CMakeLists.txt,
 * traces/sm_90.json) and ROOT/expectations/00_probe.yaml: a lesson grader lint finds clean. */
static inline void fixture_probe_course(const char *root) {
    char dir[4200], path[4400], rec_path[4200];
    snprintf(dir, sizeof dir, "%s/lessons/00_probe", root);
    snprintf(path, sizeof path, "%s/traces", dir);
    fixture_mkdir(path);
    snprintf(path, sizeof path, "%s/expectations", root);
    fixture_mkdir(path);
    fixture_probe_recording(rec_path, sizeof rec_path);
    snprintf(path, sizeof path, "%s/traces/sm_90.json", dir);
    fixture_copy(rec_path, path);
    char source[4200];
    snprintf(source, sizeof source, "%s/tests/grader/probe/lessons/00_probe/probe.cu", fixture_source_dir());
    snprintf(path, sizeof path, "%s/probe.cu", dir);
    fixture_copy(source, path);

    /* ranges and arguments as recorded */
    wb_recording rec;
    wb_error err = {0};
    cr_assert_eq(wb_recording_load(rec_path, &rec, &err), 0, "%s", err.message);
    size_t cap = 1 << 16, n = 0;
    char *yaml = malloc(cap);
    n += (size_t)snprintf(yaml + n, cap - n, "lesson: 00_probe\ntitle: \"probe: a program with a known trace\"\n"
                                             "binary: wb_probe\nvariants:\n");
    for (size_t i = 0; i < rec.n_runs; i++) {
        n += (size_t)snprintf(yaml + n, cap - n, "  - name: %s\n    args: [", rec.runs[i].variant);
        for (size_t j = 0; j < rec.runs[i].n_args; j++)
            n += (size_t)snprintf(yaml + n, cap - n, "%s\"%s\"", j ? ", " : "", rec.runs[i].args[j]);
        n += (size_t)snprintf(yaml + n, cap - n, "]\n");
    }
    n += (size_t)snprintf(yaml + n, cap - n, "ranges: [");
    const char *seen[256];
    size_t n_seen = 0;
    for (size_t i = 0; i < rec.n_runs; i++)
        for (size_t j = 0; j < rec.runs[i].capture.n_ranges; j++) {
            const wb_range *r = &rec.runs[i].capture.ranges[j];
            int dup = r->is_mark || r->domain;
            for (size_t k = 0; k < n_seen && !dup; k++) dup = !strcmp(seen[k], r->name);
            if (dup) continue;
            n += (size_t)snprintf(yaml + n, cap - n, "%s%s", n_seen ? ", " : "", r->name);
            seen[n_seen++] = r->name;
        }
    n += (size_t)snprintf(yaml + n, cap - n, "]\n%s", FIXTURE_QUESTIONS);
    wb_recording_free(&rec);
    snprintf(path, sizeof path, "%s/lesson.yaml", dir);
    fixture_write(path, yaml);
    free(yaml);

    wb_lesson l;
    cr_assert_eq(wb_lesson_load(dir, &l, &err), 0, "%s", err.message);
    char *tmpl = wb_predictions_template(&l);
    snprintf(path, sizeof path, "%s/predictions.template.yaml", dir);
    fixture_write(path, tmpl);
    free(tmpl);
    wb_lesson_free(&l);

    snprintf(path, sizeof path, "%s/README.md", dir);
    fixture_write(path, "# Probe\n\nPredict.\n\n<!-- reveal -->\n\nWhat the trace shows.\n");
    snprintf(path, sizeof path, "%s/CMakeLists.txt", dir);
    fixture_write(path, "wb_add_lesson(wb_probe SOURCES probe.cu)\n");
    snprintf(path, sizeof path, "%s/expectations/00_probe.yaml", root);
    fixture_write(path, FIXTURE_KEY);
}

#endif
