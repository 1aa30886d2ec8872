/*
 * progress.c: see progress.h. Concurrent graders (16 `grader check` runs of one lesson at once)
 * take turns through an exclusive flock on progress.lock for the whole read-change-write of an
 * update, so none fails and no attempt is lost; each writes through its own temporary file, on
 * disk before the rename, so a kill at any step leaves the old file or the new one.
 */
#define _GNU_SOURCE
#include "progress.h"
#include "lesson.h"
#include "wb_base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROGRESS_FORMAT "gpu-workbench-progress"
/* A lesson's entry is a few hundred bytes and does not grow with attempts: 16 MiB is thousands of
 * courses, and keeps a file swapped for something huge from costing gigabytes (docs/limits.md). */
#define PROGRESS_MAX_BYTES (16u << 20)

static void progress_path(const char *state_dir, char *buf, size_t cap) { snprintf(buf, cap, "%s/progress.json", state_dir); }

int wb_progress_load(const char *state_dir, json_t **out, wb_error *err) {
    char path[4096];
    progress_path(state_dir, path, sizeof path);
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT) { /* anything else there (a FIFO, a folder) is refused below */
        *out = json_pack("{s:s, s:i, s:{}}", "format", PROGRESS_FORMAT, "version", 1, "lessons");
        return 0;
    }
    char *text;
    size_t length;
    if (wb_read_file(path, N_("progress file"), PROGRESS_MAX_BYTES, &text, &length, err)) return err->code;
    json_error_t jerr;
    json_t *root = json_loadb(text, length, 0, &jerr);
    free(text);
    if (!root || !json_is_object(json_object_get(root, "lessons"))) {
        json_decref(root);
        return wb_fail_at(err, WB_EXIT_INPUT, path, root ? 0 : jerr.line, root ? 0 : jerr.column,
                          _("the progress file is corrupt; delete it (only scores are lost) and grade again"));
    }
    *out = root;
    return 0;
}

int wb_progress_save(const char *state_dir, json_t *progress, wb_error *err) {
    char path[4096], tmp[4200];
    progress_path(state_dir, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.partial.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    wb_kill_point("progress", 1);
    int ok = fd >= 0 && json_dumpfd(progress, fd, JSON_INDENT(2) | JSON_SORT_KEYS) == 0 && write(fd, "\n", 1) == 1;
    wb_kill_point("progress", 2);
    ok = ok && fsync(fd) == 0;
    if (fd >= 0) ok = close(fd) == 0 && ok;
    wb_kill_point("progress", 3);
    ok = ok && rename(tmp, path) == 0;
    wb_kill_point("progress", 4);
    if (!ok) {
        unlink(tmp);
        return wb_fail(err, WB_EXIT_INPUT, _("%s: cannot write the progress file (%s)"), path, strerror(errno));
    }
    int dir = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) fsync(dir), close(dir);
    return 0;
}

/* Every writer writes progress.json.partial.<pid> while it holds the lock, so one found by the
 * holder of the lock was left by a writer that was killed before its rename: progress.json is
 * whole (the old version), and the leftover is removed. */
static void remove_stale_partials(const char *state_dir) {
    DIR *d = opendir(state_dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "progress.json.partial.", 22)) continue;
        char path[4400];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", state_dir, e->d_name);
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) unlink(path);
    }
    closedir(d);
}

int wb_progress_lock(const char *state_dir, wb_error *err) {
    char path[4200];
    snprintf(path, sizeof path, "%s/progress.lock", state_dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return -wb_fail(err, WB_EXIT_INPUT, _("%s: cannot open the progress lock (%s)"), path, strerror(errno));
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            close(fd);
            return -wb_fail(err, WB_EXIT_INPUT, _("%s: cannot lock the progress file (%s)"), path, strerror(errno));
        }
    remove_stale_partials(state_dir);
    return fd;
}

void wb_progress_unlock(int lock) {
    if (lock >= 0) close(lock); /* closing releases the flock */
}

json_t *wb_progress_lesson(json_t *progress, const char *lesson) {
    json_t *lessons = json_object_get(progress, "lessons");
    json_t *entry = json_object_get(lessons, lesson);
    if (!entry) {
        entry = json_object();
        json_object_set_new(lessons, lesson, entry);
    }
    return entry;
}

static long long get_int(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : 0;
}

static int is_main_part(const char *part) { return !part || !strcmp(part, WB_MAIN_PART); }

json_t *wb_progress_part(json_t *entry, const char *part) {
    if (is_main_part(part)) return entry;
    return json_object_get(json_object_get(entry, "parts"), part);
}

/* The object a part's state goes into, created when missing. */
static json_t *part_entry(json_t *e, const char *part) {
    if (is_main_part(part)) return e;
    json_t *parts = json_object_get(e, "parts");
    if (!json_is_object(parts)) json_object_set_new(e, "parts", parts = json_object());
    json_t *p = json_object_get(parts, part);
    if (!json_is_object(p)) json_object_set_new(parts, part, p = json_object());
    return p;
}

int wb_progress_record_grade(const char *state_dir, const char *lesson, size_t right, size_t total,
                             const char *predictions_hash, const char *source, wb_error *err) {
    wb_grading g = {right, total, NULL, 0, 0, predictions_hash, source, NULL, NULL, NULL, NULL, NULL};
    return wb_progress_record_grading(state_dir, lesson, &g, err);
}

/* Keeps each variant's first score; returns the lesson's first try as this grading would make
 * it: every variant's first score, this grading's for those never graded before. */
static void first_by_variant(json_t *e, const wb_grading *g, size_t *right, size_t *total) {
    json_t *firsts = json_object_get(e, "first_by_variant");
    if (!firsts) json_object_set_new(e, "first_by_variant", firsts = json_object());
    *right = g->right;
    *total = g->total;
    for (size_t i = 0; i < g->n_variants; i++) {
        const wb_variant_score *v = &g->variants[i];
        json_t *f = json_object_get(firsts, v->variant);
        if (!f) {
            json_object_set_new(firsts, v->variant, json_pack("{s:I, s:I}", "right", (json_int_t)v->right, "total",
                                                              (json_int_t)v->total));
            continue;
        }
        /* graded before (alone): its first score stands in for this one */
        *right = *right - v->right + (size_t)get_int(f, "right");
        *total = *total - v->total + (size_t)get_int(f, "total");
    }
}

/* Each graded fact's latest grading replaces the one before; its first stays. */
static void keep_facts(json_t *e, const wb_grading *g, const char *now) {
    json_t *questions = json_object_get(e, "questions");
    if (!json_is_object(questions)) json_object_set_new(e, "questions", questions = json_object());
    const char *id, *label;
    json_t *q, *f;
    json_object_foreach(g->facts, id, q) {
        json_t *kept = json_object_get(questions, id);
        if (!json_is_object(kept)) json_object_set_new(questions, id, kept = json_object());
        const char *k;
        json_t *v;
        json_object_foreach(q, k, v) /* variant, range, rank: as first graded */
            if (strcmp(k, "facts") && !json_object_get(kept, k)) json_object_set(kept, k, v);
        json_t *facts = json_object_get(kept, "facts");
        if (!json_is_object(facts)) json_object_set_new(kept, "facts", facts = json_object());
        json_object_foreach(json_object_get(q, "facts"), label, f) {
            json_t *result = json_deep_copy(f);
            json_object_set_new(result, "graded_at", json_string(now));
            json_object_set_new(result, "source", json_string(g->source));
            json_object_set_new(result, "arch", json_string(g->arch ? g->arch : ""));
            json_object_set_new(result, "gpu", json_string(g->gpu ? g->gpu : ""));
            json_t *fact = json_object_get(facts, label);
            if (!json_is_object(fact)) json_object_set_new(facts, label, fact = json_object());
            if (!json_object_get(fact, "first")) json_object_set(fact, "first", result);
            json_object_set_new(fact, "latest", result);
        }
    }
}

static int record_grading(const char *state_dir, const char *lesson, const wb_grading *g, wb_error *err) {
    json_t *progress;
    if (wb_progress_load(state_dir, &progress, err)) return err->code;
    json_t *lesson_entry = wb_progress_lesson(progress, lesson), *e = part_entry(lesson_entry, g->part);
    char now[32];
    wb_utc_now(now, sizeof now, NULL, 0);
    int first = !json_object_get(e, "first_total");
    size_t first_right, first_total;
    first_by_variant(lesson_entry, g, &first_right, &first_total);
    if (g->facts) keep_facts(lesson_entry, g, now);
    if (g->partial) {
        /* the lesson's (or part's) own state and scores are a full grading's */
        json_t *parts = json_object_get(lesson_entry, "variants_graded");
        if (!parts) json_object_set_new(lesson_entry, "variants_graded", parts = json_object());
        for (size_t i = 0; i < g->n_variants; i++)
            json_object_set_new(parts, g->variants[i].variant,
                                json_pack("{s:I, s:I, s:s}", "right", (json_int_t)g->variants[i].right, "total",
                                          (json_int_t)g->variants[i].total, "graded_at", now));
        int rc = wb_progress_save(state_dir, progress, err);
        json_decref(progress);
        return rc;
    }
    size_t right = g->right, total = g->total;
    const char *predictions_hash = g->predictions_hash, *source = g->source;
    if (first) {
        json_object_set_new(e, "first_right", json_integer((json_int_t)first_right));
        json_object_set_new(e, "first_total", json_integer((json_int_t)first_total));
        json_object_set_new(e, "first_hash", json_string(predictions_hash));
    }
    json_object_set_new(e, "state", json_string("graded"));
    json_object_set_new(e, "right", json_integer((json_int_t)right));
    json_object_set_new(e, "total", json_integer((json_int_t)total));
    json_object_set_new(e, "attempts", json_integer(get_int(e, "attempts") + 1));
    json_object_set_new(e, "predictions_hash", json_string(predictions_hash));
    /* which file was graded: list compares the hash with that file, not with the lesson's own */
    if (g->predictions_file) json_object_set_new(e, "predictions_file", json_string(g->predictions_file));
    else json_object_del(e, "predictions_file");
    json_object_set_new(e, "graded_at", json_string(now));
    json_object_set_new(e, "source", json_string(source));
    if (!json_object_get(e, "revealed_without_predictions"))
        json_object_set_new(e, "revealed_without_predictions", json_false());
    int rc = wb_progress_save(state_dir, progress, err);
    json_decref(progress);
    return rc;
}

static int record_reset(const char *state_dir, const char *lesson, wb_error *err) {
    json_t *progress;
    if (wb_progress_load(state_dir, &progress, err)) return err->code;
    json_t *e = wb_progress_lesson(progress, lesson);
    char now[32];
    wb_utc_now(now, sizeof now, NULL, 0);
    json_object_set_new(e, "state", json_string("reset"));
    json_object_set_new(e, "reset_at", json_string(now));
    json_object_set_new(e, "resets", json_integer(get_int(e, "resets") + 1));
    const char *name; /* the predictions file holds every part: each starts again with it */
    json_t *p;
    json_object_foreach(json_object_get(e, "parts"), name, p)
        if (json_is_object(p)) json_object_set_new(p, "state", json_string("reset"));
    int rc = wb_progress_save(state_dir, progress, err);
    json_decref(progress);
    return rc;
}

static int record_reveal(const char *state_dir, const char *lesson, const char *part, const char *source, const char *by,
                         wb_error *err) {
    json_t *progress;
    if (wb_progress_load(state_dir, &progress, err)) return err->code;
    json_t *e = part_entry(wb_progress_lesson(progress, lesson), part);
    char now[32];
    wb_utc_now(now, sizeof now, NULL, 0);
    const char *state = json_string_value(json_object_get(e, "state"));
    if (!state || strcmp(state, "graded") != 0) json_object_set_new(e, "state", json_string("revealed"));
    /* Seen before grading: any later score is not a first try. */
    if (!json_object_get(e, "first_total")) json_object_set_new(e, "revealed_without_predictions", json_true());
    json_object_set_new(e, "revealed_at", json_string(now));
    json_object_set_new(e, "revealed_by", json_string(by));
    json_object_set_new(e, "source", json_string(source));
    int rc = wb_progress_save(state_dir, progress, err);
    json_decref(progress);
    return rc;
}

/* The updates: each read-change-write holds the lock throughout. */
int wb_progress_record_grading(const char *state_dir, const char *lesson, const wb_grading *g, wb_error *err) {
    int lock = wb_progress_lock(state_dir, err);
    if (lock < 0) return err->code;
    int rc = record_grading(state_dir, lesson, g, err);
    wb_progress_unlock(lock);
    return rc;
}

int wb_progress_record_reset(const char *state_dir, const char *lesson, wb_error *err) {
    int lock = wb_progress_lock(state_dir, err);
    if (lock < 0) return err->code;
    int rc = record_reset(state_dir, lesson, err);
    wb_progress_unlock(lock);
    return rc;
}

int wb_progress_record_reveal(const char *state_dir, const char *lesson, const char *source, const char *by, wb_error *err) {
    return wb_progress_record_reveal_part(state_dir, lesson, NULL, source, by, err);
}

int wb_progress_record_reveal_part(const char *state_dir, const char *lesson, const char *part, const char *source,
                                   const char *by, wb_error *err) {
    int lock = wb_progress_lock(state_dir, err);
    if (lock < 0) return err->code;
    int rc = record_reveal(state_dir, lesson, part, source, by, err);
    wb_progress_unlock(lock);
    return rc;
}

int wb_hash_file(const char *path, char *out, size_t cap) {
    FILE *f = wb_open_regular_file(path); /* a FIFO there must not block `grader status` */
    if (!f) return -1;
    unsigned long long h = 1469598103934665603ull;
    int c;
    while ((c = fgetc(f)) != EOF) h = (h ^ (unsigned char)c) * 1099511628211ull;
    fclose(f);
    snprintf(out, cap, "fnv1a64:%016llx", h);
    return 0;
}
