/*
 * run_lesson.h: runs a lesson program as a child process under the capture library.
 *
 * The child gets CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH (both our capture library: it
 * hands NVTX to the very libcupti it records with, also when PyTorch loaded its own copy first),
 * WB_CAPTURE_OUT, and libcupti's folder on LD_LIBRARY_PATH. Its stdout and stderr go to a log file. A child that outlives the timeout is
 * stopped (SIGTERM, then SIGKILL), so a hung lesson cannot hang the grader.
 */
#ifndef WB_RUN_LESSON_H
#define WB_RUN_LESSON_H

#include "wb_base.h"

#include <stddef.h>

typedef struct {
    const char *binary;
    char *const *args;       /* without argv[0] */
    size_t n_args;
    const char *capture_out;
    const char *log_path;
    const char *capture_library; /* NULL: run the program plainly, without the capture */
    const char *cupti_library;
    int timeout_seconds;
} wb_launch;

typedef struct {
    int exit_code;           /* -1 when ended by a signal */
    int signal;
    int timed_out;
    double seconds;
} wb_launch_result;

/* Returns 0 when the child ran (whatever its exit status); WB_EXIT_CAPTURE when it could not be
 * started. */
int wb_launch_lesson(const wb_launch *l, wb_launch_result *r, wb_error *err);

/* The last lines of a log file, for failure messages. */
void wb_print_log_tail(const char *log_path, int lines);

#endif
