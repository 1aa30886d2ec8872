/*
 * progress.h: the learner's progress, one small JSON file: <checkout>/.workbench/progress.json
 * (docs/progress.md). Safe to delete: it only forgets scores. Never inside a lesson folder.
 *
 *   {"format": "gpu-workbench-progress", "version": 1,
 *    "lessons": {"01_matmul_add": {"state": "graded", "right": 5, "total": 6,
 *                                  "first_right": 4, "first_total": 6, "attempts": 2,
 *                                  "predictions_hash": "fnv1a64:...", "graded_at": "...",
 *                                  "source": "live", "revealed_without_predictions": false}}}
 *
 * States: "predicted" (a complete predictions file was seen but not graded), "graded",
 * "revealed" (the trace was shown with --reveal before any grading), "reset" (`grader reset`
 * started the lesson again: the scores stay, the first try above all, and "resets" counts them).
 */
#ifndef WB_PROGRESS_H
#define WB_PROGRESS_H

#include "error.h"

#include <jansson.h>
#include <stddef.h>

/* The whole file as a JSON object (an empty progress when the file does not exist). A corrupt
 * file is an error naming it and saying it may be deleted. */
int wb_progress_load(const char *state_dir, json_t **out, wb_error *err);
int wb_progress_save(const char *state_dir, json_t *progress, wb_error *err);
/* The entry of one lesson (created empty when missing); borrowed reference. */
json_t *wb_progress_lesson(json_t *progress, const char *lesson);

/* A grading: keeps the first score, counts attempts, records the predictions' hash. */
int wb_progress_record_grade(const char *state_dir, const char *lesson, size_t right, size_t total,
                             const char *predictions_hash, const char *source, wb_error *err);
/* `grader reset`: the lesson starts again from its template; scores and reveals are kept. */
int wb_progress_record_reset(const char *state_dir, const char *lesson, wb_error *err);
/* A reveal without predictions (--reveal). */
int wb_progress_record_reveal(const char *state_dir, const char *lesson, const char *source, wb_error *err);

/* "fnv1a64:0123456789abcdef" of a file's bytes (not a security hash: it detects edits). */
int wb_hash_file(const char *path, char *out, size_t cap);

#endif
