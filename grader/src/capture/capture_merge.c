/* capture_merge.c: see capture_merge.h. */
#define _GNU_SOURCE
#include "capture_merge.h"
#include "wb_base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CAPTURE_FORMAT "gpu-workbench-capture"
#define CAPTURE_VERSION 1

/* The record lists of a capture, in the order the capture library writes them. */
enum { N_LISTS = 6 };
static const char *const LISTS[N_LISTS] = {"profiler_windows", "api_calls", "kernels", "memcpys", "memsets", "ranges"};

/* One rank's file: mapped, its small members as jansson values, where each list lies. */
typedef struct {
    char path[4200];
    const char *data;
    size_t length;
    json_t *head;
    size_t list_at[N_LISTS]; /* offset of the list's '[' */
    int has_list[N_LISTS];
} rank_file;

/* ---- clearing ------------------------------------------------------------------------------- */

/* "<base>.rank<digits>": the rank, else -1. */
static int rank_suffix(const char *name, const char *base) {
    size_t n = strlen(base);
    if (strncmp(name, base, n) || strncmp(name + n, ".rank", 5)) return -1;
    const char *d = name + n + 5;
    if (!*d || strlen(d) > 5) return -1;
    for (const char *c = d; *c; c++)
        if (*c < '0' || *c > '9') return -1;
    return atoi(d);
}

/* Calls found(rank, path, ctx) for every <capture_path>.rank<r> in its folder. */
static void each_rank_file(const char *capture_path, void (*found)(int, const char *, void *), void *ctx) {
    char dir_buf[4096], base_buf[4096];
    snprintf(dir_buf, sizeof dir_buf, "%s", capture_path);
    snprintf(base_buf, sizeof base_buf, "%s", capture_path);
    const char *dir = dirname(dir_buf), *base = basename(base_buf);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        int r = rank_suffix(e->d_name, base);
        if (r < 0) continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        found(r, path, ctx);
    }
    if (d) closedir(d);
}

static void unlink_found(int rank, const char *path, void *ctx) {
    (void)rank, (void)ctx;
    unlink(path);
}

void wb_rank_captures_clear(const char *capture_path) {
    char launcher[4200];
    snprintf(launcher, sizeof launcher, "%s.launcher", capture_path);
    unlink(launcher);
    each_rank_file(capture_path, unlink_found, NULL);
}

/* ---- reading one rank's file ------------------------------------------------------------- */

typedef struct {
    rank_file *f;
} head_walk;

static int head_member(json_cursor *cur, const char *key, void *ctx) {
    rank_file *f = ((head_walk *)ctx)->f;
    for (int s = 0; s < N_LISTS; s++) {
        if (strcmp(key, LISTS[s])) continue;
        if (f->has_list[s] || json_peek(cur) != '[')
            return wb_fail(cur->err, WB_EXIT_INPUT, _("%s: corrupt capture: '%s' is not one list"), f->path, key);
        f->has_list[s] = 1;
        f->list_at[s] = cur->pos;
        return json_skip_value(cur);
    }
    json_t *v = json_next_value(cur);
    if (!v) return cur->err->code;
    return json_object_set_new(f->head, key, v) ? wb_fail(cur->err, WB_EXIT_INPUT, _("out of memory")) : 0;
}

static void unmap(rank_file *f) {
    if (f->data && f->length) munmap((void *)f->data, f->length);
    json_decref(f->head);
    memset(f, 0, sizeof *f);
}

/* Maps the file and reads its head; checks that it is rank r of world_size. */
static int map_rank(rank_file *f, int r, int world_size, const char *what, wb_error *err) {
    int fd = open(f->path, O_RDONLY | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0) close(fd);
        return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot read rank %d's capture (%s)"), f->path, r, strerror(errno));
    }
    if ((size_t)st.st_size > WB_CAPTURE_MAX_BYTES || st.st_size == 0) {
        close(fd);
        return wb_fail(err, WB_EXIT_CAPTURE, st.st_size ? _("%s: rank %d's capture is larger than 2 GiB")
                                                        : _("%s: rank %d's capture is empty"), f->path, r);
    }
    f->length = (size_t)st.st_size;
    f->data = mmap(NULL, f->length, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (f->data == MAP_FAILED) {
        f->data = NULL;
        return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot map rank %d's capture (%s)"), f->path, r, strerror(errno));
    }
    f->head = json_object();
    if (!f->head) return wb_fail(err, WB_EXIT_INPUT, _("out of memory"));
    json_cursor cur = {f->data, f->length, 0, f->path, err};
    head_walk w = {f};
    if (json_peek(&cur) != '{') return wb_fail(err, WB_EXIT_CAPTURE, _("%s: rank %d's capture is not a JSON object"), f->path, r);
    if (json_walk_object(&cur, head_member, &w) || json_expect_end(&cur)) return err->code;
    const char *format = json_string_value(json_object_get(f->head, "format"));
    json_t *version = json_object_get(f->head, "version");
    if (!format || strcmp(format, CAPTURE_FORMAT) || !json_is_integer(version) || json_integer_value(version) != CAPTURE_VERSION)
        return wb_fail(err, WB_EXIT_CAPTURE, _("%s: not a gpu-workbench capture of version %d (rank %d of %s)"), f->path,
                       CAPTURE_VERSION, r, what);
    for (int s = 0; s < N_LISTS; s++)
        if (!f->has_list[s]) return wb_fail(err, WB_EXIT_CAPTURE, _("%s: rank %d's capture has no '%s' list"), f->path, r, LISTS[s]);
    json_t *own = json_object_get(f->head, "rank"), *ws = json_object_get(f->head, "world_size");
    /* "another" and "none", "nothing" and the number: a sentence each, so that a translation can
     * word each case its own way */
    if (json_is_integer(own) && json_integer_value(own) != r)
        return wb_fail(err, WB_EXIT_CAPTURE, _("%s: the file of rank %d says rank another; the capture library names each file "
                       "by the WB_RANK it saw, so this file was not written by %s"), f->path, r, what);
    if (!json_is_integer(own))
        return wb_fail(err, WB_EXIT_CAPTURE, _("%s: the file of rank %d says rank none; the capture library names each file by "
                       "the WB_RANK it saw, so this file was not written by %s"), f->path, r, what);
    if (json_is_integer(ws) && json_integer_value(ws) != world_size)
        return wb_fail(err, WB_EXIT_CAPTURE, _("%s: rank %d ran with WB_WORLD_SIZE %lld, but lesson.yaml declares world_size %d "
                       "for %s. Set WB_WORLD_SIZE=%d in every rank before its first CUDA call, or correct world_size"),
                       f->path, r, (long long)json_integer_value(ws), world_size, what, world_size);
    if (!json_is_integer(ws))
        return wb_fail(err, WB_EXIT_CAPTURE, _("%s: rank %d ran with WB_WORLD_SIZE nothing, but lesson.yaml declares world_size "
                       "%d for %s. Set WB_WORLD_SIZE=%d in every rank before its first CUDA call, or correct world_size"),
                       f->path, r, world_size, what, world_size);
    return 0;
}

/* ---- writing the merged capture ---------------------------------------------------------- */

typedef struct {
    FILE *out;
    const char *data;
    int rank;
    size_t written;     /* records of this list written so far, over all ranks */
    int failed;
} record_copy;

static void emit(record_copy *s, const char *p, size_t n) {
    if (n && fwrite(p, 1, n, s->out) != n) s->failed = 1;
}

/* One record, as it is, with "rank" put first: {"rank":r,...}. */
static int splice_item(json_cursor *cur, size_t i, void *ctx) {
    (void)i;
    record_copy *s = ctx;
    json_peek(cur);
    size_t start = cur->pos;
    if (json_skip_value(cur)) return cur->err->code;
    /* TRANSLATORS: the reason in "not valid JSON: %s (the file is truncated or corrupt; re-record it)" */
    if (s->data[start] != '{') return json_syntax_error(cur, start, _("a record that is not an object"));
    char prefix[32];
    int n = snprintf(prefix, sizeof prefix, "%s{\"rank\":%d", s->written++ ? "," : "", s->rank);
    emit(s, prefix, (size_t)n);
    size_t body = start + 1;
    while (body < cur->pos && strchr(" \t\r\n", s->data[body])) body++;
    if (s->data[body] != '}') emit(s, ",", 1);
    emit(s, s->data + body, cur->pos - body);
    return 0;
}

static json_t *sum_of(rank_file *files, int n, const char *key) {
    json_int_t sum = 0;
    for (int r = 0; r < n; r++) {
        json_t *v = json_object_get(files[r].head, key);
        if (json_is_integer(v)) sum += json_integer_value(v);
    }
    return json_integer(sum);
}

/* The merged head: rank 0's versions and clock, flags and counts over all ranks, every distinct
 * device, and each rank's own head (without the lists) under "ranks". */
static json_t *merged_head(rank_file *files, int n) {
    json_t *h = json_object(), *ranks = json_array(), *devices = json_array(), *process = json_object();
    int complete = 1, cupti = 1, nvtx = 1;
    const char *latest = "";
    json_t *signal = json_null();
    for (int r = 0; r < n; r++) {
        json_t *head = files[r].head, *p = json_object_get(head, "process");
        complete &= json_is_true(json_object_get(head, "complete"));
        cupti &= json_is_true(json_object_get(head, "cupti_enabled"));
        nvtx &= json_is_string(json_object_get(head, "nvtx_injection"));
        const char *when = json_string_value(json_object_get(p, "written_at"));
        if (when && strcmp(when, latest) > 0) latest = when;
        json_t *sig = json_object_get(p, "signal");
        if (json_is_integer(sig) && json_is_null(signal)) signal = sig;
        json_t *devs = json_object_get(head, "devices");
        for (size_t i = 0; i < json_array_size(devs); i++) {
            json_t *d = json_array_get(devs, i), *id = json_object_get(d, "id");
            int seen = 0;
            for (size_t j = 0; j < json_array_size(devices) && !seen; j++)
                seen = json_equal(json_object_get(json_array_get(devices, j), "id"), id);
            if (!seen) json_array_append(devices, d);
        }
        json_array_append(ranks, head);
    }
    json_t *head0 = files[0].head, *p0 = json_object_get(head0, "process");
    json_object_set_new(h, "format", json_string(CAPTURE_FORMAT));
    json_object_set_new(h, "version", json_integer(CAPTURE_VERSION));
    json_object_set_new(h, "world_size", json_integer(n));
    json_object_set_new(h, "complete", json_boolean(complete));
    json_object_set_new(h, "cupti_enabled", json_boolean(cupti));
    json_object_set(h, "nvtx_injection", nvtx ? json_object_get(head0, "nvtx_injection") : json_null());
    json_t *clock = json_object_get(head0, "clock"), *versions = json_object_get(head0, "versions");
    json_object_set(h, "clock", clock ? clock : json_null());
    json_t *pid = json_object_get(p0, "pid"), *argv = json_object_get(p0, "argv");
    json_object_set(process, "pid", pid ? pid : json_null());
    json_object_set(process, "argv", argv ? argv : json_array());
    json_object_set_new(process, "written_at", json_string(latest));
    json_object_set(process, "signal", signal);
    json_object_set_new(h, "process", process);
    json_object_set(h, "versions", versions ? versions : json_object());
    json_object_set_new(h, "devices", devices);
    json_object_set_new(h, "dropped_records", sum_of(files, n, "dropped_records"));
    json_object_set_new(h, "lost_records", sum_of(files, n, "lost_records"));
    json_object_set_new(h, "ranks", ranks);
    return h;
}

static int write_merged(const char *path, rank_file *files, int n, wb_error *err) {
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.merging.%ld", path, (long)getpid());
    FILE *out = fopen(tmp, "w");
    if (!out) return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot write the merged capture (%s)"), tmp, strerror(errno));
    json_t *head = merged_head(files, n);
    char *text = head ? json_dumps(head, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    json_decref(head);
    int rc = 0, io = !text;
    if (text) {
        text[strlen(text) - 1] = '\0'; /* the '}': the lists follow */
        io |= fputs(text, out) < 0;
    }
    free(text);
    for (int s = 0; s < N_LISTS && !rc && !io; s++) {
        io |= fprintf(out, ",\"%s\":[", LISTS[s]) < 0;
        record_copy sp = {out, NULL, 0, 0, 0};
        for (int r = 0; r < n && !rc; r++) {
            json_cursor cur = {files[r].data, files[r].length, files[r].list_at[s], files[r].path, err};
            sp.data = files[r].data;
            sp.rank = r;
            rc = json_walk_array(&cur, splice_item, &sp);
        }
        io |= sp.failed || fputs("]", out) < 0;
    }
    io |= fputs("}\n", out) < 0;
    io |= fclose(out) != 0;
    if (!rc && !io && rename(tmp, path) != 0) io = 1;
    if (rc || io) unlink(tmp);
    if (!rc && io) rc = wb_fail(err, WB_EXIT_INPUT, _("%s: cannot write the merged capture (is the disk full?)"), path);
    return rc;
}

/* ---- merging ------------------------------------------------------------------------------- */

typedef struct {
    int world_size;
    int extra;          /* a rank at or above world_size, or -1 */
} extra_scan;

static void note_extra(int rank, const char *path, void *ctx) {
    (void)path;
    extra_scan *x = ctx;
    if (rank >= x->world_size && (x->extra < 0 || rank < x->extra)) x->extra = rank;
}

/* "1, 3" into buf: the ranks whose file is missing. */
static int list_missing(const char *capture_path, int world_size, char *buf, size_t cap) {
    int n = 0;
    buf[0] = '\0';
    for (int r = 0; r < world_size; r++) {
        char path[4200];
        snprintf(path, sizeof path, "%s.rank%d", capture_path, r);
        if (access(path, F_OK) == 0) continue;
        size_t used = strlen(buf);
        if (used + 16 < cap) snprintf(buf + used, cap - used, "%s%d", n ? ", " : "", r);
        else if (used + 5 < cap && !strstr(buf, "...")) strcat(buf, " ...");
        n++;
    }
    return n;
}

int wb_rank_captures_merge(const char *capture_path, int world_size, const char *what, wb_error *err) {
    if (world_size < 1) return wb_fail(err, WB_EXIT_INPUT, _("world_size %d: a lesson runs at least one process"), world_size);
    /* the launcher's own capture, if it used CUDA: kept beside, never graded */
    if (access(capture_path, F_OK) == 0) {
        char launcher[4200];
        snprintf(launcher, sizeof launcher, "%s.launcher", capture_path);
        if (rename(capture_path, launcher) != 0)
            return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot move the launcher's capture aside (%s)"), capture_path, strerror(errno));
    }
    char missing[512];
    int n_missing = list_missing(capture_path, world_size, missing, sizeof missing);
    if (n_missing)
        return wb_fail(err, WB_EXIT_CAPTURE,
                       wb_ngettext("%s wrote no capture for rank %s of its %d (expected %s.rank0 to .rank%d), so the run is "
                                   "incomplete and not graded. Each rank must set WB_RANK and WB_WORLD_SIZE before its first CUDA "
                                   "call and make at least one; a rank that never started or was killed (SIGKILL) writes nothing",
                                   "%s wrote no capture for ranks %s of its %d (expected %s.rank0 to .rank%d), so the run is "
                                   "incomplete and not graded. Each rank must set WB_RANK and WB_WORLD_SIZE before its first CUDA "
                                   "call and make at least one; a rank that never started or was killed (SIGKILL) writes nothing",
                                   (unsigned long)n_missing),
                       what, missing, world_size, capture_path, world_size - 1);
    extra_scan x = {world_size, -1};
    each_rank_file(capture_path, note_extra, &x);
    if (x.extra >= 0)
        return wb_fail(err, WB_EXIT_CAPTURE, _("%s wrote a capture for rank %d, but lesson.yaml declares world_size %d (ranks 0 "
                       "to %d): correct world_size, or the WB_RANK the program gives its processes"), what, x.extra, world_size,
                       world_size - 1);
    rank_file *files = calloc((size_t)world_size, sizeof *files);
    if (!files) return wb_fail(err, WB_EXIT_INPUT, _("out of memory"));
    int rc = 0;
    for (int r = 0; r < world_size && !rc; r++) {
        snprintf(files[r].path, sizeof files[r].path, "%s.rank%d", capture_path, r);
        rc = map_rank(&files[r], r, world_size, what, err);
    }
    if (!rc) rc = write_merged(capture_path, files, world_size, err);
    for (int r = 0; r < world_size; r++) {
        if (!rc) unlink(files[r].path); /* merged: the capture holds all of it */
        unmap(&files[r]);
    }
    free(files);
    return rc;
}
