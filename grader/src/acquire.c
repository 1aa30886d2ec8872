/* acquire.c: see acquire.h. */
#define _GNU_SOURCE
#include "acquire.h"
#include "paths.h"
#include "run_lesson.h"

#include <dirent.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int wb_make_run_dir(const char *lesson_dir, const char *lesson, const char *suffix, char *buf, size_t cap, wb_error *err) {
    char root[4096], state[4096], stamp[32];
    wb_root_dir(lesson_dir, root, sizeof root);
    if (wb_state_dir(root, state, sizeof state, err)) return err->code;
    wb_utc_now(NULL, 0, stamp, sizeof stamp);
    snprintf(buf, cap, "%s/runs/%s/%s%s%s", state, lesson, stamp, suffix ? "-" : "", suffix ? suffix : "");
    /* two runs in one second get distinct folders */
    char base[4096];
    snprintf(base, sizeof base, "%s", buf);
    for (int k = 2; wb_is_dir(buf) && k < 1000; k++) snprintf(buf, cap, "%s.%d", base, k);
    if (wb_mkdir_p(buf) != 0) return wb_fail(err, WB_EXIT_INPUT, "%s: cannot create the run folder", buf);
    return 0;
}

int wb_capture_live(const wb_live_request *req, wb_recording *out, wb_error *err) {
    const wb_lesson *l = req->lesson;
    char binary[4096], capture_lib[4096], cupti[4096];
    if (wb_find_lesson_binary(l->binary, binary, sizeof binary, err) || wb_find_capture_library(capture_lib, sizeof capture_lib, err) ||
        wb_find_cupti_library(cupti, sizeof cupti, err))
        return err->code;
    const char *timeout_env = getenv("WB_LESSON_TIMEOUT");
    int timeout = timeout_env && atoi(timeout_env) > 0 ? atoi(timeout_env) : 600;

    wb_run *runs = calloc(req->n_variants, sizeof *runs);
    char **paths = calloc(req->n_variants, sizeof *paths);
    int rc = 0;
    if (!runs || !paths) {
        rc = wb_fail(err, WB_EXIT_CAPTURE, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < req->n_variants; i++) {
        const wb_variant *v = wb_lesson_variant(l, req->variants[i]);
        char log[4200];
        paths[i] = malloc(4200);
        snprintf(paths[i], 4200, "%s/capture-%s.json", req->run_dir, v->name);
        snprintf(log, sizeof log, "%s/lesson-%s.log", req->run_dir, v->name);
        if (req->progress) {
            fprintf(req->progress, "running %s variant %s under CUPTI ...", l->binary, v->name);
            fflush(req->progress);
        }
        wb_launch launch = {binary, v->args, v->n_args, paths[i], log, capture_lib, cupti, timeout};
        wb_launch_result res;
        if ((rc = wb_launch_lesson(&launch, &res, err))) goto out;
        if (req->progress) fprintf(req->progress, " %.1f s\n", res.seconds);
        runs[i].variant = v->name;
        runs[i].args = v->args;
        runs[i].n_args = v->n_args;
        runs[i].exit_code = res.exit_code;
        runs[i].signal = res.signal;
        if (!wb_file_exists(paths[i])) {
            rc = wb_fail(err, WB_EXIT_CAPTURE,
                         "%s (variant %s) %s and wrote no capture%s. Its output is in %s. If it ran fine, CUPTI could not be "
                         "injected: see docs/troubleshooting.md", binary, v->name,
                         res.timed_out ? "timed out" : res.signal ? "was killed by a signal" : res.exit_code ? "failed" : "ran",
                         res.exit_code == 127 ? " (it could not be started)" : "", log);
            if (req->progress) wb_print_log_tail(log, 12);
            goto out;
        }
    }
    char recording[4200], iso[32];
    snprintf(recording, sizeof recording, "%s/recording.json", req->run_dir);
    wb_utc_now(iso, sizeof iso, NULL, 0);
    if ((rc = wb_recording_write(recording, l->lesson, iso, runs, (const char *const *)paths, req->n_variants, err))) goto out;
    rc = wb_recording_load(recording, out, err);
out:
    for (size_t i = 0; paths && i < req->n_variants; i++) free(paths[i]);
    free(paths);
    free(runs);
    return rc;
}

int wb_find_recording(const wb_lesson *lesson, const char *arch, char *path, size_t cap, wb_error *err) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/traces", lesson->dir);
    if (arch) {
        snprintf(path, cap, "%s/%s.json", dir, arch);
        if (wb_file_exists(path)) return 0;
    }
    DIR *d = opendir(dir);
    char best[4096] = "", best_when[64] = "";
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
        char candidate[4400];
        snprintf(candidate, sizeof candidate, "%s/%s", dir, e->d_name);
        /* recorded_at without loading the whole file's captures */
        json_error_t jerr;
        json_t *root = json_load_file(candidate, 0, &jerr);
        const char *when = json_string_value(json_object_get(root, "recorded_at"));
        if (when && strcmp(when, best_when) > 0) {
            snprintf(best_when, sizeof best_when, "%s", when);
            snprintf(best, sizeof best, "%s", candidate);
        }
        json_decref(root);
    }
    if (d) closedir(d);
    if (!best[0])
        return wb_fail(err, WB_EXIT_CAPTURE, "%s: no recording to replay (no traces/*.json) and no GPU to capture live. Record one on a "
                       "GPU machine with: grader record %s", dir, lesson->dir);
    snprintf(path, cap, "%s", best);
    return 0;
}

int wb_check_usable(const wb_recording *rec, const wb_lesson *lesson, const char *const *variants, size_t n_variants,
                    const char *log_dir, wb_error *err) {
    for (size_t i = 0; i < n_variants; i++) {
        const wb_run *run = wb_recording_run(rec, variants[i]);
        char log[4200] = "";
        if (log_dir) snprintf(log, sizeof log, " Its output: %s/lesson-%s.log", log_dir, variants[i]);
        if (!run)
            return wb_fail(err, WB_EXIT_CAPTURE, "%s: no run of variant '%s'. Re-record the lesson with grader record %s",
                           rec->path ? rec->path : "the recording", variants[i], lesson->dir);
        const wb_capture *c = &run->capture;
        if (run->signal || run->exit_code != 0) {
            if (log_dir) {
                snprintf(log, sizeof log, "%s/lesson-%s.log", log_dir, variants[i]);
                wb_print_log_tail(log, 15);
            }
            if (run->signal)
                return wb_fail(err, WB_EXIT_CAPTURE, "the lesson program (variant %s) crashed with signal %d (%s); not graded. The "
                               "capture kept what was recorded before the crash: %zu kernels, %zu API calls (%s).%s%s",
                               variants[i], run->signal, strsignal(run->signal), c->n_kernels, c->n_api,
                               rec->path ? rec->path : "", log_dir ? " Its output: " : "", log_dir ? log : "");
            return wb_fail(err, WB_EXIT_CAPTURE, "the lesson program (variant %s) exited with status %d; not graded (a lesson "
                           "that fails its own checks proves nothing). Captured before it ended: %zu kernels, %zu API calls "
                           "(%s).%s%s", variants[i], run->exit_code, c->n_kernels, c->n_api, rec->path ? rec->path : "",
                           log_dir ? " Its output: " : "", log_dir ? log : "");
        }
        if (!c->cupti_enabled)
            return wb_fail(err, WB_EXIT_CAPTURE, "CUPTI refused to start in the lesson process (variant %s), so nothing was "
                           "captured. On many machines profiling needs permission: see docs/troubleshooting.md "
                           "(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES).%s", variants[i], log);
        if (c->dropped_records || c->lost_records)
            return wb_fail(err, WB_EXIT_CAPTURE, "CUPTI dropped %llu records and the capture lost %llu (variant %s): the capture "
                           "is incomplete, so it is not graded. Run fewer steps or see docs/troubleshooting.md",
                           (unsigned long long)c->dropped_records, (unsigned long long)c->lost_records, variants[i]);
        if (!c->complete)
            return wb_fail(err, WB_EXIT_CAPTURE, "the capture of variant %s is incomplete (written while the process was "
                           "dying); not graded.%s", variants[i], log);
        if (c->n_ranges == 0 && lesson->n_ranges > 0)
            return wb_fail(err, WB_EXIT_CAPTURE, "no NVTX ranges arrived from variant %s, so nothing can be attributed. CUPTI "
                           "receives NVTX only when NVTX_INJECTION64_PATH names libcupti.so (the grader sets it; was it "
                           "overridden?)", variants[i]);
    }
    return 0;
}
