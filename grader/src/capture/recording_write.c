/*
 * recording_write.c: writes a recording (docs/capture-format.md) from the capture files of its
 * runs without ever holding a capture as a JSON tree: each capture's text is copied as it is, or,
 * for `grader record`, with the API records outside the profiled window left out (wb_api_keep).
 */
#define _GNU_SOURCE
#include "capture.h"
#include "wb_base.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RECORDING_FORMAT "gpu-workbench-recording"

/* ---- which API records a recording keeps ----------------------------------------------------- */

int wb_api_keep(const wb_capture *c, size_t i) {
    const wb_api_call *a = &c->api[i];
    if (c->n_windows == 0) return 1; /* the whole run is profiled */
    /* the launch of any kernel, memcpy or memset, even outside the window (summary and trace link
     * GPU work to its launch) */
    const long *work;
    if (wb_capture_launched_by(c, (long)i, &work) > 0) return 1;
    /* any call overlapping a window of its own process: a rank's windows sorted by start, the
     * latest end among those opened before the call ends */
    if (!c->index.window_first || a->rank < 0 || a->rank >= c->world_size) return 1; /* not linked: keep it */
    size_t from = c->index.window_first[a->rank], lo = from, hi = c->index.window_first[a->rank + 1];
    if (lo == hi) return 1; /* a rank without windows is profiled whole */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->windows[mid].start <= a->end) lo = mid + 1;
        else hi = mid;
    }
    return lo > from && c->index.window_reach[lo - 1] >= a->start;
}

/* ---- copying a capture, filtering its api_calls ---------------------------------------------- */

typedef struct {
    FILE *out;
    const char *data;
    size_t copied;        /* data[0 .. copied) is written */
    const wb_capture *c;  /* the decoded capture, whose api[i] is the file's api_calls[i] */
    size_t kept;
    int failed;
} filter;

static void emit(filter *f, const char *p, size_t n) {
    if (n && fwrite(p, 1, n, f->out) != n) f->failed = 1;
}

static int api_item(json_cursor *cur, size_t i, void *ctx) {
    filter *f = ctx;
    json_peek(cur);
    size_t start = cur->pos;
    if (json_skip_value(cur)) return cur->err->code;
    if (i < f->c->n_api && wb_api_keep(f->c, i)) {
        if (f->kept++) emit(f, ",", 1);
        emit(f, f->data + start, cur->pos - start);
    }
    return 0;
}

static int capture_member(json_cursor *cur, const char *key, void *ctx) {
    filter *f = ctx;
    if (strcmp(key, "api_calls") || json_peek(cur) != '[') return json_skip_value(cur);
    emit(f, f->data + f->copied, cur->pos + 1 - f->copied); /* through the '[' */
    int rc = json_walk_array(cur, api_item, f);
    emit(f, "]", 1);
    f->copied = cur->pos;
    return rc;
}

/* Writes the capture text to out, without the API records c says to leave out (c NULL: as it is). */
static int copy_capture(FILE *out, const char *path, const char *data, size_t n, const wb_capture *c, wb_error *err) {
    filter f = {out, data, 0, c, 0, 0};
    if (c) {
        json_cursor cur = {data, n, 0, path, err};
        if (json_walk_object(&cur, capture_member, &f)) return err->code;
    }
    emit(&f, data + f.copied, n - f.copied);
    return f.failed ? -1 : 0;
}

/* ---- the recording -------------------------------------------------------------------------- */

static json_t *doubles_json(const double *v, size_t n) {
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, json_real(v[i]));
    return a;
}

static void extras_json(json_t *root, const wb_recording_extras *x) {
    if (!x) return;
    const wb_calibration *c = x->calibration;
    if (c && c->present)
        json_object_set_new(root, "calibration", json_pack("{s:f, s:f, s:s, s:s}", "copy_bytes_per_s", c->copy_bytes_per_s,
                                                           "matrix_flops_per_s", c->matrix_flops_per_s, "gpu", c->gpu,
                                                           "method", c->method));
    if (!x->n_repeats) return;
    json_t *reps = json_array();
    for (size_t i = 0; i < x->n_repeats; i++) {
        json_t *ranges = json_array();
        for (size_t j = 0; j < x->repeats[i].n; j++) {
            const wb_range_times *t = &x->repeats[i].items[j];
            json_t *o = json_pack("{s:s, s:s, s:o, s:o}", "variant", t->variant, "range", t->range, "gpu_us",
                                  doubles_json(t->gpu_us, t->n), "wall_us", doubles_json(t->wall_us, t->n));
            if (o && t->per_rank) json_object_set_new(o, "rank", json_integer(t->rank)); /* absent: all ranks */
            json_array_append_new(ranges, o);
        }
        json_array_append_new(reps, json_pack("{s:o}", "ranges", ranges));
    }
    json_object_set_new(root, "repeats", reps);
}


/* One run's members before its capture, as compact JSON without the closing brace. */
static char *run_head(const wb_run *run, uint64_t dropped) {
    json_t *args = json_array();
    for (size_t j = 0; j < run->n_args; j++) json_array_append_new(args, json_string(run->args[j]));
    json_t *o = json_pack("{s:s, s:o, s:i, s:o}", "variant", run->variant, "args", args, "exit_code", run->exit_code,
                          "signal", run->signal ? json_integer(run->signal) : json_null());
    if (o && run->output) json_object_set_new(o, "output", json_string(run->output));
    if (o && run->timed_out) json_object_set_new(o, "timed_out", json_true());
    if (o && run->python)
        json_object_set_new(o, "python", json_pack("{s:s, s:s, s:s}", "torch", run->torch, "torch_cuda", run->torch_cuda,
                                                   "triton", run->triton));
    if (o && dropped) json_object_set_new(o, "api_dropped_outside_window", json_integer((json_int_t)dropped));
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (text) text[strlen(text) - 1] = '\0'; /* the '}' */
    return text;
}

int wb_recording_write(const char *path, const char *lesson, const char *recorded_at, const wb_run *runs,
                       const char *const *capture_paths, size_t n_runs, const wb_recording_extras *extras, wb_error *err) {
    const wb_recording *trim = extras ? extras->trim : NULL;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.partial.%ld", path, (long)getpid());
    FILE *out = fopen(tmp, "w");
    if (!out) return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot write the recording (is the folder writable?)"), path);
    json_t *head = json_pack("{s:s, s:i, s:s, s:s}", "format", RECORDING_FORMAT, "version", 1, "lesson", lesson,
                             "recorded_at", recorded_at);
    char *head_text = head ? json_dumps(head, JSON_COMPACT) : NULL;
    json_decref(head);
    int rc = 0, io = !head_text;
    if (head_text) {
        head_text[strlen(head_text) - 1] = '\0';
        io |= fprintf(out, "%s,\"runs\":[", head_text) < 0;
    }
    free(head_text);
    for (size_t i = 0; i < n_runs && !rc && !io; i++) {
        const wb_capture *c = trim ? &trim->runs[i].capture : NULL;
        uint64_t dropped = c ? c->api_dropped_outside_window : 0;
        for (size_t j = 0; c && j < c->n_api; j++) dropped += !wb_api_keep(c, j);
        size_t n = 0;
        char *data = NULL;
        wb_error read_err = {0};
        (void)wb_read_file(capture_paths[i], N_("capture"), WB_CAPTURE_MAX_BYTES, &data, &n, &read_err);
        char *text = run_head(&runs[i], dropped);
        if (!data) rc = wb_fail(err, WB_EXIT_CAPTURE, "%s", read_err.message); /* the lesson's own capture: incomplete */
        else if (n == 0) rc = wb_fail(err, WB_EXIT_CAPTURE, _("%s: the capture is empty"), capture_paths[i]);
        else if (!text) rc = wb_fail(err, WB_EXIT_CAPTURE, _("%s: out of memory writing the recording"), path);
        else {
            io |= fprintf(out, "%s%s,\"capture\":", i ? "," : "", text) < 0;
            int copied = copy_capture(out, capture_paths[i], data, n, c, err);
            if (copied > 0) rc = copied;
            io |= copied < 0 || fputs("}", out) < 0;
        }
        free(text);
        free(data);
    }
    /* the small members after the runs: calibration and repeats */
    json_t *tail = json_object();
    extras_json(tail, extras);
    char *tail_text = tail ? json_dumps(tail, JSON_COMPACT) : NULL;
    json_decref(tail);
    io |= !tail_text;
    if (tail_text && strlen(tail_text) > 2) {
        tail_text[strlen(tail_text) - 1] = '\0';
        io |= fprintf(out, "],%s}\n", tail_text + 1) < 0;
    } else {
        io |= fputs("]}\n", out) < 0;
    }
    free(tail_text);
    io |= fflush(out) != 0 || fsync(fileno(out)) != 0;
    io |= fclose(out) != 0;
    if (!rc && !io && rename(tmp, path) != 0) io = 1;
    if (rc || io) unlink(tmp);
    if (!rc && io) rc = wb_fail(err, WB_EXIT_INPUT, _("%s: cannot write the recording (is the folder writable, the disk full?)"), path);
    return rc;
}
