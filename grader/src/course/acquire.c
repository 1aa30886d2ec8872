/* acquire.c: see acquire.h. */
#define _GNU_SOURCE
#include "acquire.h"
#include "calibration_cache.h"
#include "wb_capture.h"
#include "wb_base.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Old run folders: a check writes 1-2 MB of traces; only the newest WB_KEEP_RUNS (default 5) of a
 * lesson are kept, and none younger than ten minutes is touched (a check running in parallel may
 * still be writing it). Only plain files inside a folder are removed; a folder holding anything
 * else is left alone. */
#define KEEP_RUNS_DEFAULT 5
#define KEEP_YOUNGER_S 600

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void wb_remove_run_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char path[4600];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) unlink(path);
    }
    closedir(d);
    rmdir(dir); /* fails, harmlessly, when something else was inside */
}

static void prune_runs(const char *parent) {
    const char *env = getenv("WB_KEEP_RUNS");
    long keep = env && *env ? strtol(env, NULL, 10) : KEEP_RUNS_DEFAULT;
    if (keep < 1) keep = 1;
    DIR *d = opendir(parent);
    if (!d) return;
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue; /* run folders start with their time stamp */
        char **p = realloc(names, (n + 1) * sizeof *p);
        if (!p) break;
        names = p;
        if (!(names[n] = strdup(e->d_name))) break;
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names); /* the stamp sorts by time */
    time_t now = time(NULL);
    for (size_t i = 0; i + (size_t)keep < n; i++) {
        char dir[4400];
        struct stat st;
        snprintf(dir, sizeof dir, "%s/%s", parent, names[i]);
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && now - st.st_mtime > KEEP_YOUNGER_S) wb_remove_run_dir(dir);
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

int wb_make_run_dir(const char *lesson_dir, const char *lesson, const char *suffix, char *buf, size_t cap, wb_error *err) {
    char root[4096], state[4096], stamp[32], parent[4200];
    wb_root_dir(lesson_dir, root, sizeof root);
    if (wb_state_dir(root, state, sizeof state, err)) return err->code;
    wb_utc_now(NULL, 0, stamp, sizeof stamp);
    snprintf(parent, sizeof parent, "%s/runs/%s", state, lesson);
    if (wb_mkdir_p(parent) != 0) return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot create the folder for run folders"), parent);
    /* time, process and a counter; mkdir fails on a folder that exists, so no two runs (in
     * parallel or in one second) ever share one */
    for (int k = 1; k < 1000; k++) {
        snprintf(buf, cap, "%s/%s-%ld%s%s", parent, stamp, (long)getpid(), suffix ? "-" : "", suffix ? suffix : "");
        if (k > 1) snprintf(buf + strlen(buf), cap - strlen(buf), ".%d", k);
        if (mkdir(buf, 0755) == 0) {
            prune_runs(parent);
            return 0;
        }
        if (errno != EEXIST) break;
    }
    return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot create the run folder (%s)"), buf, strerror(errno));
}

#define CALIBRATE_BINARY "wb_calibrate"
#define MAX_OUTPUT_BYTES (64u << 10) /* a lesson's timing table is a few lines; keep its last 64 KiB */

/* A file's last MAX_OUTPUT_BYTES as printable text (JSON strings must be valid UTF-8: other bytes
 * become '?'). NULL when unreadable. */
static char *read_output(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        long from = size > (long)MAX_OUTPUT_BYTES ? size - (long)MAX_OUTPUT_BYTES : 0;
        buf = size >= 0 && fseek(f, from, SEEK_SET) == 0 ? malloc((size_t)(size - from) + 1) : NULL;
        size_t n = buf ? fread(buf, 1, (size_t)(size - from), f) : 0;
        for (size_t i = 0; buf && i < n; i++) {
            unsigned char c = (unsigned char)buf[i];
            if ((c < 32 && c != '\n' && c != '\t') || c > 126) buf[i] = '?';
        }
        if (buf) buf[n] = '\0';
    }
    fclose(f);
    return buf;
}

/* ---- the calibration, and its cache -------------------------------------------------------- */

static int calibrate_fresh(void) {
    const char *v = getenv("WB_CALIBRATE");
    return v && !strcmp(v, "fresh");
}

int wb_calibration_obtain(const wb_calibration_key *key, const char *binary, const char *run_dir, FILE *progress,
                          wb_calibration *out, wb_error *err) {
    char log[4200];
    snprintf(log, sizeof log, "%s/calibration.json", run_dir);
    char measured_at[64] = "";
    char *reuse = key && !calibrate_fresh() ? wb_calibration_cached(key, time(NULL), measured_at, sizeof measured_at) : NULL;
    if (reuse) {
        FILE *f = fopen(log, "w");
        int written = f && fprintf(f, "%s\n", reuse) > 0;
        if (f && fclose(f) != 0) written = 0;
        int rc = written ? wb_calibration_from_json(key->path, reuse, strlen(reuse), out, err) : -1;
        free(reuse);
        if (rc == 0) {
            if (progress)
                fprintf(progress, _("the GPU's copy bandwidth and matrix rate: as measured on this GPU at %s (cached; "
                                    "WB_CALIBRATE=fresh measures again)\n"), measured_at);
            wb_timing_mark("calibration (cached: nothing run)");
            return 0;
        }
        if (err->code) return err->code;
    }
    if (progress) {
        fprintf(progress, _("measuring the GPU's copy bandwidth and matrix rate (%s) ..."), CALIBRATE_BINARY);
        fflush(progress);
    }
    wb_launch launch = {binary, NULL, 0, NULL, log, NULL, NULL, 120};
    wb_launch_result res;
    if (wb_launch_lesson(&launch, &res, err)) return err->code;
    if (progress) fprintf(progress, " %.1f s\n", res.seconds);
    char *text = read_output(log);
    if (res.exit_code != 0 || res.signal || !text) {
        free(text);
        if (progress) wb_print_log_tail(log, 12);
        return wb_fail(err, WB_EXIT_CAPTURE, _("the calibration program %s failed (%s); its output is in %s"), binary,
                       res.timed_out ? _("timed out") : res.signal ? _("killed by a signal") : _("non-zero exit"), log);
    }
    int rc = wb_calibration_from_json(log, text, strlen(text), out, err);
    if (!rc && key) wb_calibration_store(key, text, time(NULL));
    free(text);
    wb_timing_mark("calibration (measured: the program ran)");
    return rc;
}

/* The GPU's ceilings, measured once per grader process by the calibration program, or taken from
 * cache_dir (when not NULL) when measured there before on this GPU (see acquire.h). The text the
 * ceilings come from goes to <run_dir>/calibration.json either way. */
static int calibrate(const char *run_dir, const char *cache_dir, FILE *progress, wb_calibration *out, wb_error *err) {
    static wb_calibration cached;
    if (cached.present) {
        *out = cached;
        return 0;
    }
    char binary[4096];
    if (wb_find_lesson_binary(CALIBRATE_BINARY, binary, sizeof binary, err)) return err->code;
    wb_calibration_key key;
    int keyed = cache_dir && wb_calibration_key_of(cache_dir, binary, &key) == 0;
    int rc = wb_calibration_obtain(keyed ? &key : NULL, binary, run_dir, progress, &cached, err);
    if (!rc) *out = cached;
    return rc;
}

/* After a multi-process variant's program exited: its ranks' captures merged into path (exit 3
 * naming the missing ranks). A single process wrote path itself, unless it is a launcher that
 * always starts its ranks, here one (WB_RANK=0, WB_WORLD_SIZE=1: lesson 06 at world size 1),
 * whose <path>.rank0 is merged the same way. */
static int collect_ranks(const wb_lesson *l, const wb_variant *v, const char *binary, const char *path, wb_error *err) {
    int ranks = wb_lesson_world_size(l, v->name);
    char rank0[4200];
    snprintf(rank0, sizeof rank0, "%s.rank0", path);
    if (ranks <= 1 && !wb_file_exists(rank0)) return 0;
    char what[4400];
    snprintf(what, sizeof what, _("%s (variant %s, world_size %d)"), binary, v->name, ranks);
    return wb_rank_captures_merge(path, ranks, what, err);
}

/* What runs for variant v: the lesson's binary with the variant's args, or (a PyTorch variant) the
 * interpreter with the script, a path in the lesson folder, before them. *owned (free it) holds
 * the argument list made for the script. */
typedef struct {
    const char *binary;        /* the lesson's program; NULL when no variant asked needs it */
    const wb_python_info *py;  /* NULL when no variant asked is a PyTorch one */
} lesson_programs;

static int variant_launch(const wb_lesson *l, const wb_variant *v, const lesson_programs *p, char *script, size_t cap,
                          wb_launch *launch, char ***owned, wb_error *err) {
    *owned = NULL;
    if (!wb_variant_is_python(v)) {
        launch->binary = p->binary;
        launch->args = v->args;
        launch->n_args = v->n_args;
        return 0;
    }
    snprintf(script, cap, "%s/%s", l->dir, v->program[1]);
    if (!wb_file_exists(script)) return wb_fail(err, WB_EXIT_INPUT, _("%s: variant %s's script %s does not exist"), l->path, v->name, script);
    char **args = calloc(v->n_args + 2, sizeof *args);
    if (!args) return wb_fail(err, WB_EXIT_CAPTURE, _("out of memory"));
    args[0] = script;
    for (size_t i = 0; i < v->n_args; i++) args[i + 1] = v->args[i];
    launch->binary = p->py->python;
    launch->args = args;
    launch->n_args = v->n_args + 1;
    *owned = args;
    return 0;
}

/* Finds what the variants asked need: the lesson's binary, the interpreter with a PyTorch that
 * sees a GPU (exit 3 saying exactly why not). */
static int find_programs(const wb_live_request *req, char *binary, size_t cap, lesson_programs *p, wb_error *err) {
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < req->n_variants; i++) {
        const wb_variant *v = wb_lesson_variant(req->lesson, req->variants[i]);
        if (!v) return wb_fail(err, WB_EXIT_INPUT, _("%s: no variant '%s'"), req->lesson->path, req->variants[i]);
        if (wb_variant_is_python(v) && !p->py) {
            p->py = wb_python_probe(req->run_dir); /* asked once per process: free after the first */
            if (!p->py->usable)
                return wb_fail(err, WB_EXIT_CAPTURE, _("variant %s is a PyTorch program, and %s"), v->name, p->py->why);
        } else if (!wb_variant_is_python(v) && !p->binary) {
            if (wb_find_lesson_binary(req->lesson->binary, binary, cap, err)) return err->code;
            p->binary = binary;
        }
    }
    return 0;
}

/* The run's PyTorch side, for the recording and the report. */
static void note_python(wb_run *run, const wb_variant *v, const lesson_programs *p) {
    if (!wb_variant_is_python(v) || !p->py) return;
    run->python = 1;
    snprintf(run->torch, sizeof run->torch, "%s", p->py->torch);
    snprintf(run->torch_cuda, sizeof run->torch_cuda, "%s", p->py->torch_cuda);
    snprintf(run->triton, sizeof run->triton, "%s", p->py->triton);
}

int wb_python_variants_ready(const wb_lesson *l, const char *const *variants, size_t n_variants, char *why, size_t cap) {
    for (size_t i = 0; i < n_variants; i++) {
        const wb_variant *v = wb_lesson_variant(l, variants[i]);
        if (!wb_variant_is_python(v)) continue;
        char root[4096], state[4096];
        wb_error ignored = {0};
        wb_root_dir(l->dir, root, sizeof root);
        if (wb_state_dir(root, state, sizeof state, &ignored)) snprintf(state, sizeof state, "/tmp");
        const wb_python_info *py = wb_python_probe(state);
        wb_timing_mark("PyTorch probe (python3: import torch)");
        if (py->usable) return 1;
        snprintf(why, cap, _("variant %s is a PyTorch program, and %s"), v->name, py->why);
        return 0;
    }
    return 1;
}

/* Run number index (2, 3, ...) of every variant, kept as the times of the lesson's ranges (per
 * rank too, for a multi-process variant: facts may ask about one rank). */
static int repeat_once(const wb_live_request *req, int index, const lesson_programs *programs, const char *capture_lib,
                       const char *cupti, int timeout, wb_repeat *out, wb_error *err) {
    const wb_lesson *l = req->lesson;
    memset(out, 0, sizeof *out);
    size_t per_range = 1;
    for (size_t i = 0; i < req->n_variants; i++) {
        int ranks = wb_lesson_world_size(l, req->variants[i]);
        if (ranks > 1 && (size_t)ranks + 1 > per_range) per_range = (size_t)ranks + 1;
    }
    out->items = calloc(req->n_variants * l->n_ranges * per_range + 1, sizeof *out->items);
    if (!out->items) return wb_fail(err, WB_EXIT_CAPTURE, _("out of memory"));
    for (size_t i = 0; i < req->n_variants; i++) {
        const wb_variant *v = wb_lesson_variant(l, req->variants[i]);
        char path[4200], log[4200];
        snprintf(path, sizeof path, "%s/capture-%s-repeat%d.json", req->run_dir, v->name, index);
        snprintf(log, sizeof log, "%s/lesson-%s-repeat%d.log", req->run_dir, v->name, index);
        wb_launch launch = {NULL, NULL, 0, path, log, capture_lib, cupti, timeout};
        char script[4200], **owned;
        if (variant_launch(l, v, programs, script, sizeof script, &launch, &owned, err)) return err->code;
        const char *program = wb_variant_is_python(v) ? script : launch.binary;
        if (req->progress) {
            fprintf(req->progress, _("repeat %d: running %s variant %s under CUPTI ..."), index,
                    wb_variant_is_python(v) ? v->program[1] : l->binary, v->name);
            fflush(req->progress);
        }
        wb_launch_result res;
        wb_rank_captures_clear(path);
        int launched = wb_launch_lesson(&launch, &res, err);
        free(owned);
        if (launched) return err->code;
        if (req->progress) fprintf(req->progress, " %.1f s\n", res.seconds);
        wb_capture c;
        if (res.exit_code != 0 || res.signal || collect_ranks(l, v, program, path, err) || wb_capture_load(path, &c, err)) {
            if (req->progress) wb_print_log_tail(log, 12);
            return err->code ? err->code : wb_fail(err, WB_EXIT_CAPTURE, _("repeat %d of variant %s failed; its output is in %s"),
                                                   index, v->name, log);
        }
        int ranks = wb_capture_ranks(&c) > 1 ? wb_capture_ranks(&c) : 0; /* one process: the all-ranks times only */
        for (size_t r = 0; r < l->n_ranges; r++)
            for (int k = -1; k < ranks; k++)
                if (wb_range_times_of(&c, v->name, l->ranges[r], k, &out->items[out->n++])) {
                    wb_capture_free(&c);
                    return wb_fail(err, WB_EXIT_CAPTURE, _("out of memory"));
                }
        wb_capture_free(&c);
    }
    return 0;
}

int wb_lesson_timeout(void) {
    const char *env = getenv("WB_LESSON_TIMEOUT");
    return env && atoi(env) > 0 ? atoi(env) : 600;
}

int wb_capture_live(const wb_live_request *req, wb_recording *out, wb_error *err) {
    const wb_lesson *l = req->lesson;
    char binary[4096], capture_lib[4096], cupti[4096];
    lesson_programs programs;
    if (find_programs(req, binary, sizeof binary, &programs, err) || wb_find_capture_library(capture_lib, sizeof capture_lib, err) ||
        wb_find_cupti_library(cupti, sizeof cupti, err))
        return err->code;
    int timeout = wb_lesson_timeout();
    wb_timing_mark("programs found");

    wb_run *runs = calloc(req->n_variants, sizeof *runs);
    char **paths = calloc(req->n_variants, sizeof *paths);
    int n_repeats = req->repeats > 1 ? req->repeats - 1 : 0;
    wb_repeat *repeats = calloc((size_t)n_repeats + 1, sizeof *repeats);
    wb_calibration calibration;
    int rc = 0;
    if (!runs || !paths || !repeats) {
        rc = wb_fail(err, WB_EXIT_CAPTURE, _("out of memory"));
        goto out;
    }
    if ((rc = calibrate(req->run_dir, req->calibration_cache, req->progress, &calibration, err))) goto out;
    for (size_t i = 0; i < req->n_variants; i++) {
        const wb_variant *v = wb_lesson_variant(l, req->variants[i]);
        char log[4200];
        paths[i] = malloc(4200);
        snprintf(paths[i], 4200, "%s/capture-%s.json", req->run_dir, v->name);
        snprintf(log, sizeof log, "%s/lesson-%s.log", req->run_dir, v->name);
        wb_launch launch = {NULL, NULL, 0, paths[i], log, capture_lib, cupti, timeout};
        char script[4200], **owned;
        if ((rc = variant_launch(l, v, &programs, script, sizeof script, &launch, &owned, err))) goto out;
        const char *program = wb_variant_is_python(v) ? script : launch.binary;
        if (req->progress) {
            fprintf(req->progress, _("running %s variant %s under CUPTI ..."), wb_variant_is_python(v) ? v->program[1] : l->binary, v->name);
            fflush(req->progress);
        }
        wb_launch_result res;
        wb_rank_captures_clear(paths[i]);
        rc = wb_launch_lesson(&launch, &res, err);
        free(owned);
        if (rc) goto out;
        if (req->progress) fprintf(req->progress, " %.1f s\n", res.seconds);
        char phase[300];
        snprintf(phase, sizeof phase, "variant %s (program under CUPTI)", v->name);
        wb_timing_mark(phase);
        runs[i].variant = v->name;
        runs[i].args = v->args;
        runs[i].n_args = v->n_args;
        runs[i].exit_code = res.exit_code;
        runs[i].signal = res.signal;
        runs[i].timed_out = res.timed_out;
        runs[i].output = read_output(log);
        note_python(&runs[i], v, &programs);
        if ((rc = collect_ranks(l, v, program, paths[i], err))) {
            /* say how the program ended too: a rank that crashed before writing is usually why */
            size_t used = strlen(err->message);
            snprintf(err->message + used, sizeof err->message - used, _(". The program %s; its output is in %s"),
                     res.timed_out ? C_("the program", "timed out") : res.signal ? C_("the program", "was killed by a signal")
                     : res.exit_code ? C_("the program", "failed") : C_("the program", "exited 0"), log);
            if (req->progress) wb_print_log_tail(log, 12);
            goto out;
        }
        if (!wb_file_exists(paths[i])) {
            rc = wb_fail(err, WB_EXIT_CAPTURE,
                         _("%s (variant %s) %s and wrote no capture%s. Its output is in %s. If it ran fine, CUPTI could not be "
                           "injected: see docs/troubleshooting.md"), program, v->name,
                         res.timed_out ? C_("the program", "timed out") : res.signal ? C_("the program", "was killed by a signal")
                         : res.exit_code ? C_("the program", "failed") : C_("the program", "ran"),
                         res.exit_code == 127 ? _(" (it could not be started)") : "", log);
            if (req->progress) wb_print_log_tail(log, 12);
            goto out;
        }
    }
    for (int r = 0; r < n_repeats; r++)
        if ((rc = repeat_once(req, r + 2, &programs, capture_lib, cupti, timeout, &repeats[r], err))) goto out;
    char recording[4200], iso[32];
    snprintf(recording, sizeof recording, "%s/recording.json", req->run_dir);
    wb_utc_now(iso, sizeof iso, NULL, 0);
    wb_recording_extras extras = {&calibration, repeats, (size_t)n_repeats, NULL};
    if ((rc = wb_recording_write(recording, l->lesson, iso, runs, (const char *const *)paths, req->n_variants, &extras, err)))
        goto out;
    /* the capture library wrote what it could: a capture that does not read is an incomplete capture */
    if ((rc = wb_recording_load(recording, out, err))) rc = err->code = WB_EXIT_CAPTURE;
    wb_timing_mark("recording written and read");
out:
    for (int r = 0; repeats && r < n_repeats; r++) wb_repeat_free(&repeats[r]);
    free(repeats);
    for (size_t i = 0; runs && i < req->n_variants; i++) free(runs[i].output);
    for (size_t i = 0; paths && i < req->n_variants; i++) free(paths[i]);
    free(paths);
    free(runs);
    return rc;
}

int wb_check_usable(const wb_recording *rec, const wb_lesson *lesson, const char *const *variants, size_t n_variants,
                    const char *log_dir, wb_error *err) {
    for (size_t i = 0; i < n_variants; i++) {
        const wb_run *run = wb_recording_run(rec, variants[i]);
        char log[4200] = "";
        if (log_dir) snprintf(log, sizeof log, _(" Its output: %s/lesson-%s.log"), log_dir, variants[i]);
        if (!run)
            return wb_fail(err, WB_EXIT_CAPTURE, _("%s: no run of variant '%s'. Re-record the lesson with grader record %s"),
                           rec->path ? rec->path : _("the recording"), variants[i], lesson->dir);
        const wb_capture *c = &run->capture;
        if (run->timed_out || run->signal || run->exit_code != 0) {
            if (log_dir) {
                snprintf(log, sizeof log, "%s/lesson-%s.log", log_dir, variants[i]);
                wb_print_log_tail(log, 15);
            }
            if (run->timed_out)
                return wb_fail(err, WB_EXIT_CAPTURE, _("the lesson program (variant %s) timed out: it was still running at the "
                                 "time limit (%d s; WB_LESSON_TIMEOUT sets it) and was stopped with everything it started; "
                                 "not graded. Does it wait for something, or loop?%s%s"), variants[i], wb_lesson_timeout(),
                               log_dir ? _(" Its output: ") : "", log_dir ? log : "");
            if (run->signal)
                return wb_fail(err, WB_EXIT_CAPTURE, _("the lesson program (variant %s) crashed with signal %d (%s); not graded. The "
                                 "capture kept what was recorded before the crash: %zu kernels, %zu API calls (%s).%s%s"),
                               variants[i], run->signal, strsignal(run->signal), c->n_kernels, c->n_api,
                               rec->path ? rec->path : "", log_dir ? _(" Its output: ") : "", log_dir ? log : "");
            return wb_fail(err, WB_EXIT_CAPTURE, _("the lesson program (variant %s) exited with status %d; not graded (a lesson "
                             "that fails its own checks proves nothing). Captured before it ended: %zu kernels, %zu API calls "
                             "(%s).%s%s"), variants[i], run->exit_code, c->n_kernels, c->n_api, rec->path ? rec->path : "",
                           log_dir ? _(" Its output: ") : "", log_dir ? log : "");
        }
        /* a multi-process run: the ranks the lesson runs, no more and no fewer */
        int ranks = wb_lesson_world_size(lesson, variants[i]);
        const char *rec_path = rec->path ? rec->path : _("the recording");
        if (c->world_size > ranks)
            return wb_fail(err, WB_EXIT_CAPTURE,
                           wb_ngettext("%s: the capture of variant %s has world_size %d, but lesson.yaml runs it as %d "
                                       "process: rank %d is not one of the lesson's ranks; not graded. Re-record the lesson "
                                       "with grader record %s",
                                       "%s: the capture of variant %s has world_size %d, but lesson.yaml runs it as %d "
                                       "processes: rank %d is not one of the lesson's ranks; not graded. Re-record the lesson "
                                       "with grader record %s", (unsigned long)ranks),
                           rec_path, variants[i], c->world_size, ranks, ranks, lesson->dir);
        if (c->world_size < ranks)
            return wb_fail(err, WB_EXIT_CAPTURE,
                           wb_ngettext("%s: the capture of variant %s has world_size %d, but lesson.yaml runs it as %d "
                                       "process: rank %d is missing; not graded. Re-record the lesson with grader record %s",
                                       "%s: the capture of variant %s has world_size %d, but lesson.yaml runs it as %d "
                                       "processes: rank %d is missing; not graded. Re-record the lesson with grader record %s",
                                       (unsigned long)ranks),
                           rec_path, variants[i], c->world_size, ranks, c->world_size, lesson->dir);
        char which[320] = "";
        if (c->rank_problems[0]) snprintf(which, sizeof which, _(" (of its %d processes: %s)"), c->world_size, c->rank_problems);
        if (!c->cupti_enabled)
            return wb_fail(err, WB_EXIT_CAPTURE, _("CUPTI refused to start in the lesson process (variant %s)%s, so nothing was "
                             "captured. On many machines profiling needs permission: see docs/troubleshooting.md "
                             "(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES).%s"), variants[i], which, log);
        if (c->dropped_records || c->lost_records)
            return wb_fail(err, WB_EXIT_CAPTURE, _("CUPTI dropped %llu records and the capture lost %llu (variant %s): the capture "
                             "is incomplete, so it is not graded. Run fewer steps or see docs/troubleshooting.md"),
                           (unsigned long long)c->dropped_records, (unsigned long long)c->lost_records, variants[i]);
        if (!c->complete)
            return wb_fail(err, WB_EXIT_CAPTURE, _("the capture of variant %s is incomplete (written while the process was "
                             "dying)%s; not graded.%s"), variants[i], which, log);
        if (c->n_ranges == 0 && lesson->n_ranges > 0)
            return wb_fail(err, WB_EXIT_CAPTURE, _("no NVTX ranges arrived from variant %s, so nothing can be attributed. CUPTI "
                             "receives NVTX only when NVTX_INJECTION64_PATH names the capture library (the grader sets it; was it "
                             "overridden?)"), variants[i]);
    }
    return 0;
}
