/*
 * read_file.h: the one way the grader reads a file it is handed (predictions, lesson.yaml, answer
 * keys, captures, recordings, lesson sources; docs/limits.md). It refuses, with exit 2 and the file
 * named, what would hang or exhaust it: FIFOs, devices, sockets and directories (checked without
 * blocking: `--replay /dev/zero` grew to 17 GB, `--replay FIFO` waited forever), and files larger
 * than the caller's bound. `what` names the file in messages ("predictions file"): the caller marks
 * it N_() and the messages translate it (i18n.h).
 */
#ifndef WB_READ_FILE_H
#define WB_READ_FILE_H

#include "error.h"

#include <stdio.h>
#include <sys/stat.h>

/* Captures and recordings: far above the largest real trace we know (Kineto and Perfetto users
 * report 256 MB to 2 GB), so a legitimate capture is never refused, yet /dev/zero-like growth is. */
#define WB_CAPTURE_MAX_BYTES ((size_t)2 << 30) /* 2 GiB */

/* Reads the whole regular file at path, at most max_bytes, into *text (malloc'd, NUL-terminated;
 * *length excludes the NUL). what names it in messages ("predictions file", "capture file").
 * Errors: exit 2, message "PATH: ...". */
int wb_read_file(const char *path, const char *what, size_t max_bytes, char **text, size_t *length, wb_error *err);

/* The same, and the file's status as it was opened (its mode, for a writer that keeps it). */
int wb_read_file_and_stat(const char *path, const char *what, size_t max_bytes, char **text, size_t *length, struct stat *st,
                          wb_error *err);

/* Opens a regular file for reading line by line (a FIFO or device gives NULL, as a missing file
 * does, without blocking). */
FILE *wb_open_regular_file(const char *path);

#endif
