/*
 * acquire.h: getting the captures to grade: live (run each variant of the lesson under the
 * capture library) or from a recording (replay, no GPU needed), and checking that what we got
 * may be graded at all (the program succeeded, CUPTI ran, nothing was dropped, NVTX arrived).
 */
#ifndef WB_ACQUIRE_H
#define WB_ACQUIRE_H

#include "wb_capture.h"
#include "wb_base.h"
#include "calibration_cache.h"
#include "lesson.h"

#include <stdio.h>

typedef struct {
    const wb_lesson *lesson;
    const char *const *variants;  /* the variants to run, in order */
    size_t n_variants;
    const char *run_dir;          /* where captures, logs and the recording go (created) */
    FILE *progress;               /* "running variant eager ..." lines; NULL for none */
    int repeats;                  /* grader record --repeat N: N - 1 more runs of every variant, kept as range times */
    const char *calibration_cache; /* a folder: reuse a calibration measured on this GPU (see wb_capture_live);
                                    * NULL: always measure */
} wb_live_request;

/* Runs the calibration program (once per grader process: its result is reused), then the
 * variants. With calibration_cache set, a calibration measured before is reused when it was
 * measured on this GPU (its UUID), under this driver (the kernel module's version), by this
 * calibration program (its SHA-256) and less than a day ago; WB_CALIBRATE=fresh measures anyway.
 * Each measurement replaces the cached one. Then the variants; writes <run_dir>/recording.json with the calibration, each run's output and the
 * repeats, and loads it into out. A lesson that failed still gives a recording (its runs say how
 * they ended); wb_check_usable then refuses it. */
int wb_capture_live(const wb_live_request *req, wb_recording *out, wb_error *err);

/* The GPU's ceilings for a check: the calibration cached under key (calibration_cache.h) when it
 * holds and WB_CALIBRATE is not "fresh", without running anything; else the calibration program
 * binary is run (its output in <run_dir>/calibration.json) and, with a key, its result cached.
 * key NULL: always measure, cache nothing. */
int wb_calibration_obtain(const wb_calibration_key *key, const char *binary, const char *run_dir, FILE *progress,
                          wb_calibration *out, wb_error *err);

/* 1 when every PyTorch variant among variants can run here (or there is none); 0 when the
 * interpreter is missing, `import torch` fails or PyTorch sees no GPU: why then says exactly that,
 * and the caller grades from the recording instead. Asks the interpreter once per process
 * (python_probe.h), its output in the state folder. */
int wb_python_variants_ready(const wb_lesson *l, const char *const *variants, size_t n_variants, char *why, size_t cap);

/* Refuses (exit 3) a recording whose runs failed, lost records or lack NVTX ranges. log_dir, when
 * given, is where the runs' logs are (live captures), so their tails can be shown. */
int wb_check_usable(const wb_recording *rec, const wb_lesson *lesson, const char *const *variants, size_t n_variants,
                    const char *log_dir, wb_error *err);

/* Seconds a lesson may run before it is stopped: WB_LESSON_TIMEOUT, else 600. */
int wb_lesson_timeout(void);

/* <state>/runs/<lesson>/<stamp>-<pid>[-suffix] into buf, created (never one that exists). The
 * lesson's older run folders past the newest WB_KEEP_RUNS (default 5) are removed, none younger
 * than ten minutes. */
int wb_make_run_dir(const char *lesson_dir, const char *lesson, const char *suffix, char *buf, size_t cap, wb_error *err);

/* Removes a run folder's plain files, then the folder (left when anything else is inside). */
void wb_remove_run_dir(const char *dir);

#endif
