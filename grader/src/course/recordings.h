/*
 * recordings.h: a lesson's recordings (traces/<arch>.json, made by `grader record`) and which
 * one a replay uses. Reading them is the capture layer's (capture.h); this only finds the file.
 */
#ifndef WB_RECORDINGS_H
#define WB_RECORDINGS_H

#include "lesson.h"
#include "wb_base.h"

#include <stddef.h>

/* The recording to replay: traces/<arch>.json when arch is given and it exists, else the newest
 * recording (by recorded_at) in the lesson's traces/. Exit 3 when the lesson has none. */
int wb_find_recording(const wb_lesson *lesson, const char *arch, char *path, size_t cap, wb_error *err);

#endif
