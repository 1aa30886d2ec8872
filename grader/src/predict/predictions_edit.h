/*
 * predictions_edit.h: writes answers into the learner's predictions file in place.
 *
 * Only the `~` (or empty) value at each answered position changes: comments, order and layout
 * stay as the learner wrote them. The previous file is kept as a backup (predictions.yaml.bak,
 * then .bak.2, .bak.3, ...: never overwritten), and the new file replaces the old atomically: it
 * keeps the file's mode, writes through a symlink to its target, has no size limit, and is
 * crash-safe (a kill at any step leaves the old file or the new one, whole; see the .c file).
 * Positions are found with libyaml's own line rule (yaml_lines.h).
 */
#ifndef WB_PREDICTIONS_EDIT_H
#define WB_PREDICTIONS_EDIT_H

#include "wb_base.h"

#include <stddef.h>

typedef struct {
    int line, column; /* 1-based position of the ~ value, as the parser reported it */
    int value;
    char text[16];    /* when not empty, written instead of value: "180.5", "memory" (time facts, bound) */
} wb_answer_edit;

/* Applies edits. keep_backup: first keep the file as it was (path.bak, .bak.2, ...), its path
 * into backup (may be NULL; "" when none was kept). The caller passes 0 for a file that is still
 * the untouched template, whose copy exists already. */
int wb_predictions_fill(const char *path, const wb_answer_edit *edits, size_t n, int keep_backup, char *backup,
                        size_t backup_cap, wb_error *err);

/* A temporary file left by a save that was killed (<file>.partial.*, next to the file the path
 * leads to): the count, and the first one's path in found. 0 when there is none. */
int wb_predictions_leftover(const char *path, char *found, size_t cap);

/* Pure function for tests: applies edits to text; returns a malloc'd string or NULL with err set. */
char *wb_predictions_fill_text(const char *path, const char *text, size_t length, const wb_answer_edit *edits, size_t n,
                               wb_error *err);

#endif
