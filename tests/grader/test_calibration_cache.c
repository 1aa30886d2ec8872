/*
 * test_calibration_cache.c: a calibration is reused only on the GPU, driver and calibration
 * program it was measured with, for less than a day; anything else there (another GPU's key, a
 * corrupt or foreign file) is ignored, and a new measurement replaces the old one. And a check
 * that finds its calibration cached runs nothing: a script standing in for the calibration
 * program counts its runs (no GPU, no timing).
 */
#include "acquire.h"
#include "calibration_cache.h"
#include "course_fixture.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char root[4200];
static wb_calibration_key key;
static const char *measured = "{\"format\": \"gpu-workbench-calibration\", \"version\": 1, \"gpu\": \"NVIDIA H200\", "
                              "\"copy_bytes_per_s\": 4.221e+12, \"matrix_flops_per_s\": 8.042e+14, \"method\": \"m\"}";
static const time_t t0 = 1796150000;

static void setup(void) {
    fixture_temp_dir(root, sizeof root);
    memset(&key, 0, sizeof key);
    snprintf(key.uuid, sizeof key.uuid, "GPU-0123abcd-0000-1111-2222-333344445555");
    snprintf(key.driver, sizeof key.driver, "580.159.04");
    snprintf(key.binary_sha256, sizeof key.binary_sha256, "%064d", 7);
    snprintf(key.dir, sizeof key.dir, "%s/calibration", root);
    wb_calibration_key_path(&key);
}

static void teardown(void) { fixture_remove(root); }

TestSuite(calibration_cache, .init = setup, .fini = teardown);

static char *get(const wb_calibration_key *k, time_t now) {
    char at[64] = "";
    return wb_calibration_cached(k, now, at, sizeof at);
}

Test(calibration_cache, reused_on_the_same_gpu_driver_and_program_for_a_day) {
    cr_assert_null(get(&key, t0), "nothing cached yet");
    wb_calibration_store(&key, measured, t0);
    char at[64] = "";
    char *text = wb_calibration_cached(&key, t0 + 60, at, sizeof at);
    cr_assert_not_null(text);
    cr_assert(strstr(text, "8.042e+14") || strstr(text, "804200000000000"), "%s", text);
    cr_assert_str_eq(at, "2026-12-01T18:33:20Z");
    free(text);
    text = get(&key, t0 + WB_CALIBRATION_MAX_AGE_S - 1);
    cr_assert_not_null(text, "still within the day");
    free(text);
    cr_assert_null(get(&key, t0 + WB_CALIBRATION_MAX_AGE_S), "a day old: measured again");
    cr_assert_null(get(&key, t0 - 1), "measured in the future (a clock set back): measured again");
}

Test(calibration_cache, another_gpu_driver_or_program_measures_again) {
    wb_calibration_store(&key, measured, t0);
    wb_calibration_key k = key;
    snprintf(k.driver, sizeof k.driver, "580.160.01");
    cr_assert_null(get(&k, t0 + 1), "another driver");
    k = key;
    snprintf(k.binary_sha256, sizeof k.binary_sha256, "%064d", 8);
    cr_assert_null(get(&k, t0 + 1), "another calibration program");
    k = key;
    snprintf(k.uuid, sizeof k.uuid, "GPU-ffffffff-0000-1111-2222-333344445555");
    wb_calibration_key_path(&k);
    cr_assert_null(get(&k, t0 + 1), "another GPU, even of the same model");
    /* that GPU's file, renamed to this GPU's, does not pass for it */
    wb_calibration_store(&k, measured, t0);
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "mv '%s' '%s'", k.path, key.path);
    cr_assert_eq(system(cmd), 0);
    cr_assert_null(get(&key, t0 + 1), "a file that names another GPU");
}

Test(calibration_cache, a_file_that_does_not_read_is_ignored_and_replaced) {
    wb_calibration_store(&key, measured, t0);
    FILE *f = fopen(key.path, "w");
    cr_assert_not_null(f);
    fputs("{\"format\": \"gpu-workbench-calibration-cache\", \"gpu_uuid\":", f);
    fclose(f);
    cr_assert_null(get(&key, t0 + 1), "a truncated file");
    wb_calibration_store(&key, "not json", t0); /* a failed measurement is never stored */
    cr_assert_null(get(&key, t0 + 1));
    wb_calibration_store(&key, measured, t0 + 5);
    char *text = get(&key, t0 + 6);
    cr_assert_not_null(text, "a new measurement replaces the broken file");
    free(text);
}

/* A calibration program that appends a line to runs.txt each time it runs, then prints what the
 * real one prints. */
static void counting_calibration(char *binary, size_t cap) {
    snprintf(binary, cap, "%s/wb_calibrate", root);
    char text[9000];
    snprintf(text, sizeof text, "#!/bin/sh\necho run >> '%s/runs.txt'\necho '%s'\n", root, measured);
    fixture_write(binary, text);
    chmod(binary, 0755);
}

static int runs_counted(void) {
    char path[4400];
    snprintf(path, sizeof path, "%s/runs.txt", root);
    char *text = fixture_read(path);
    int n = 0;
    for (const char *p = text ? text : ""; (p = strstr(p, "run")); p += 3) n++;
    free(text);
    return n;
}

static void obtain(const wb_calibration_key *k, const char *binary, wb_calibration *c) {
    wb_error err = {0};
    cr_assert_eq(wb_calibration_obtain(k, binary, root, NULL, c, &err), 0, "%s", err.message);
    cr_assert(c->present);
}

Test(calibration_cache, a_second_check_runs_no_calibration) {
    char binary[4400];
    counting_calibration(binary, sizeof binary);
    unsetenv("WB_CALIBRATE");
    wb_calibration first, second;
    obtain(&key, binary, &first);
    cr_assert_eq(runs_counted(), 1, "the first check measures");
    obtain(&key, binary, &second); /* as the next grader process does */
    cr_assert_eq(runs_counted(), 1, "the second check reuses the cached calibration and runs nothing");
    cr_assert_float_eq(second.copy_bytes_per_s, first.copy_bytes_per_s, 1.0);
    cr_assert_float_eq(second.matrix_flops_per_s, 8.042e14, 1e3);
    char log[4400];
    snprintf(log, sizeof log, "%s/calibration.json", root);
    char *kept = fixture_read(log);
    cr_assert(kept && strstr(kept, "copy_bytes_per_s"), "the run folder still holds what the ceilings came from");
    free(kept);

    setenv("WB_CALIBRATE", "fresh", 1);
    obtain(&key, binary, &second);
    unsetenv("WB_CALIBRATE");
    cr_assert_eq(runs_counted(), 2, "WB_CALIBRATE=fresh measures again");
    wb_calibration_key other = key;
    snprintf(other.binary_sha256, sizeof other.binary_sha256, "%064d", 9);
    obtain(&other, binary, &second);
    cr_assert_eq(runs_counted(), 3, "another calibration program measures again");
    obtain(NULL, binary, &second);
    obtain(NULL, binary, &second);
    cr_assert_eq(runs_counted(), 5, "without a cache (no GPU identity) every check measures");
}
