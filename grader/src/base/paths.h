/*
 * paths.h: where things are. The grader finds its capture library and the lesson binaries next
 * to itself (build/bin/grader, build/lib/libwb_capture.so, build/bin/lesson_*), libcupti through a
 * list of candidates, and keeps its own state in <checkout>/.workbench/ (override: WB_STATE_DIR),
 * never inside a lesson folder.
 */
#ifndef WB_PATHS_H
#define WB_PATHS_H

#include "error.h"

#include <stddef.h>

int wb_exe_dir(char *buf, size_t cap);
int wb_find_capture_library(char *buf, size_t cap, wb_error *err);
int wb_find_cupti_library(char *buf, size_t cap, wb_error *err);
int wb_find_lesson_binary(const char *binary, char *buf, size_t cap, wb_error *err);

/* The checkout a lesson folder belongs to: the folder above lessons/. */
const char *wb_root_dir(const char *lesson_dir, char *buf, size_t cap);
/* <root>/.workbench (or $WB_STATE_DIR), created if missing. */
int wb_state_dir(const char *root, char *buf, size_t cap, wb_error *err);
int wb_mkdir_p(const char *path);
int wb_file_exists(const char *path);
int wb_is_dir(const char *path);
/* path exists and is not a directory: a regular file, or a FIFO or device that the reader will
 * refuse by name (read_file.h) rather than be mistaken for something else. */
int wb_exists_not_dir(const char *path);
/* "2026-11-29T22:31:04Z" and "20261129-223104" for file names. */
void wb_utc_now(char *iso, size_t iso_cap, char *stamp, size_t stamp_cap);

#endif
