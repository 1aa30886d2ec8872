/*
 * progress.h: the learner's progress, one small JSON file: <checkout>/.workbench/progress.json
 * (docs/progress.md). Safe to delete: it only forgets scores. Never inside a lesson folder.
 *
 *   {"format": "gpu-workbench-progress", "version": 1,
 *    "lessons": {"01_matmul_add": {"state": "graded", "right": 5, "total": 6,
 *                                  "first_right": 4, "first_total": 6, "attempts": 2,
 *                                  "predictions_hash": "fnv1a64:...", "graded_at": "...",
 *                                  "predictions_file": "/path/other.yaml" (only for --predictions),
 *                                  "source": "live", "revealed_without_predictions": false,
 *                                  "questions": {"eager-kernels": {"variant": "eager", "range": "mm",
 *                                      "rank": -1, "facts": {"kernels": {"first": {...}, "latest": {...}}}}},
 *                                  "parts": {"pytorch": {"state": "graded", "right": ..., "first_right": ...}}}}}
 *
 * A fact's "first" and "latest" gradings hold the value predicted, the value captured, right, when,
 * live or replay, and the GPU (grading_facts.h); the first is never replaced, not even by a reset.
 *
 * States: "predicted" (a complete predictions file was seen but not graded), "graded",
 * "revealed" (the trace was shown with --reveal before any grading), "reset" (`grader reset`
 * started the lesson again: the scores stay, the first try above all, and "resets" counts them).
 */
#ifndef WB_PROGRESS_H
#define WB_PROGRESS_H

#include "wb_base.h"

#include <jansson.h>
#include <stddef.h>

/* The whole file as a JSON object (an empty progress when the file does not exist). A corrupt
 * file is an error naming it and saying it may be deleted. */
int wb_progress_load(const char *state_dir, json_t **out, wb_error *err);
int wb_progress_save(const char *state_dir, json_t *progress, wb_error *err);
/* An exclusive lock on the progress (a read-change-write holds it throughout; the record
 * functions below take it themselves). Returns the lock, or a negative exit code with err set. */
int wb_progress_lock(const char *state_dir, wb_error *err);
void wb_progress_unlock(int lock);
/* The entry of one lesson (created empty when missing); borrowed reference. */
json_t *wb_progress_lesson(json_t *progress, const char *lesson);

/* A grading: keeps the first score, counts attempts, records the predictions' hash. */
int wb_progress_record_grade(const char *state_dir, const char *lesson, size_t right, size_t total,
                             const char *predictions_hash, const char *source, wb_error *err);

/* A grading with its score per variant. Each variant's first score is kept ("first_by_variant").
 * A partial grading (check --variant) records only that: the lesson's first try is set by the
 * first full grading, as the first score of every variant (those graded alone before count with
 * their own first score), so a 5-fact partial run never stands for a 20-fact lesson's first try. */
typedef struct {
    const char *variant;
    size_t right, total;
} wb_variant_score;
typedef struct {
    size_t right, total;
    const wb_variant_score *variants;
    size_t n_variants;
    int partial;
    const char *predictions_hash, *source;
    const char *predictions_file; /* the file graded, absolute; NULL: the lesson's own predictions.yaml */
    /* Each graded fact (grading_facts.h), kept per fact under "questions": its first grading stays,
     * its latest is replaced, so that `grader submit` can hand in the first try. NULL: none. */
    json_t *facts;
    const char *arch, *gpu; /* what was captured: "sm_90", "NVIDIA H200" */
    /* The lesson part graded (lesson.h): NULL or WB_MAIN_PART, the lesson's own fields; another
     * part keeps the same fields (state, scores, first try, attempts, hashes) under
     * "parts": {"pytorch": {...}} of the lesson's entry. Facts and per-variant firsts stay per
     * lesson: their question ids and variant names are the lesson's. */
    const char *part;
} wb_grading;
int wb_progress_record_grading(const char *state_dir, const char *lesson, const wb_grading *g, wb_error *err);
/* `grader reset`: the lesson starts again from its template; scores and reveals are kept. */
int wb_progress_record_reset(const char *state_dir, const char *lesson, wb_error *err);
/* A reveal before grading (check --reveal, or the reveal gate of diff and explain: consent.h);
 * by names the command ("grader diff"). */
int wb_progress_record_reveal(const char *state_dir, const char *lesson, const char *source, const char *by, wb_error *err);
/* The same for one part of the lesson (NULL or WB_MAIN_PART: the lesson's own entry). */
int wb_progress_record_reveal_part(const char *state_dir, const char *lesson, const char *part, const char *source,
                                   const char *by, wb_error *err);

/* Where a part's state and scores are kept in a lesson's entry: the entry itself for the main
 * part (NULL or WB_MAIN_PART), else entry.parts[part]; NULL when never recorded. Borrowed. */
json_t *wb_progress_part(json_t *entry, const char *part);

/* "fnv1a64:0123456789abcdef" of a file's bytes (not a security hash: it detects edits). */
int wb_hash_file(const char *path, char *out, size_t cap);

#endif
