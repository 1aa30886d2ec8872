/*
 * test_run_lesson.c: lesson processes, with small shell scripts standing in for lessons (no GPU):
 *   - a lesson that hangs is stopped at the time limit with everything it started (its process
 *     group), and is reported as timed out, not as "crashed with signal 15";
 *   - a grader interrupted while a lesson runs stops the lesson's group and ends by the same signal;
 *   - a non-executable lesson binary is named as such, not as "not built";
 *   - the log tail shown on failure is bounded in bytes and never sends control bytes to the terminal.
 */
#include "acquire.h"
#include "capture.h"
#include "lesson.h"
#include "paths.h"
#include "run_lesson.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[64];

static void make_dir(void) {
    snprintf(dir, sizeof dir, "/tmp/wb-run-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void write_script(const char *path, const char *text, mode_t mode) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    chmod(path, mode);
}

/* A lesson that starts a child of its own and then hangs; the child's pid goes to child.pid. */
static void hanging_lesson(char *script, size_t cap) {
    snprintf(script, cap, "%s/hang.sh", dir);
    char text[512];
    snprintf(text, sizeof text, "#!/bin/sh\nsleep 300 &\necho $! > %s/child.pid\necho started\nwait\n", dir);
    write_script(script, text, 0755);
}

static pid_t read_pid(const char *name) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    for (int i = 0; i < 200; i++) {
        FILE *f = fopen(path, "r");
        long pid = 0;
        if (f && fscanf(f, "%ld", &pid) == 1 && pid > 0) {
            fclose(f);
            return (pid_t)pid;
        }
        if (f) fclose(f);
        usleep(10000);
    }
    return 0;
}

/* Gone, or a zombie waiting for init: either way no longer running. */
static int running(pid_t pid) {
    for (int i = 0; i < 100; i++) {
        char path[64], stat[256] = "";
        snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
        FILE *f = fopen(path, "r");
        if (!f) return 0;
        size_t n = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[n] = '\0';
        char *close_paren = strrchr(stat, ')');
        if (close_paren && close_paren[2] == 'Z') return 0;
        usleep(20000);
    }
    return 1;
}

Test(run_lesson, a_hanging_lesson_is_stopped_with_its_children) {
    make_dir();
    char script[128], log[128];
    hanging_lesson(script, sizeof script);
    snprintf(log, sizeof log, "%s/lesson.log", dir);
    wb_launch l = {script, NULL, 0, NULL, log, NULL, NULL, 1};
    wb_launch_result r;
    wb_error err = {0};
    cr_assert_eq(wb_launch_lesson(&l, &r, &err), 0, "%s", err.message);
    cr_assert(r.timed_out);
    cr_assert_lt(r.seconds, 10.0);
    pid_t grandchild = read_pid("child.pid");
    cr_assert_gt(grandchild, 0);
    cr_assert(!running(grandchild), "the lesson's own child %ld survived the timeout", (long)grandchild);
}

Test(run_lesson, an_interrupted_grader_stops_the_lesson_and_ends_by_the_signal) {
    make_dir();
    char script[128], log[128];
    hanging_lesson(script, sizeof script);
    snprintf(log, sizeof log, "%s/lesson.log", dir);
    pid_t grader = fork();
    cr_assert_geq(grader, 0);
    if (grader == 0) {
        wb_launch l = {script, NULL, 0, NULL, log, NULL, NULL, 0};
        wb_launch_result r;
        wb_error err = {0};
        wb_launch_lesson(&l, &r, &err);
        _exit(99); /* not reached: the grader ends by the signal */
    }
    pid_t grandchild = read_pid("child.pid");
    cr_assert_gt(grandchild, 0);
    kill(grader, SIGTERM);
    int status;
    cr_assert_eq(waitpid(grader, &status, 0), grader);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "the grader did not end by SIGTERM (status %d)", status);
    cr_assert(!running(grandchild), "the lesson kept running after the grader was stopped");
}

Test(run_lesson, a_timeout_is_reported_as_a_timeout) {
    wb_recording rec = {0};
    wb_run run = {0};
    run.variant = "eager";
    run.exit_code = -1;
    run.signal = SIGTERM; /* what the stopped program died of */
    run.timed_out = 1;
    rec.runs = &run;
    rec.n_runs = 1;
    wb_lesson lesson = {0};
    const char *variants[] = {"eager"};
    wb_error err = {0};
    cr_assert_eq(wb_check_usable(&rec, &lesson, variants, 1, NULL, &err), WB_EXIT_CAPTURE);
    cr_assert(strstr(err.message, "timed out"), "%s", err.message);
    cr_assert(!strstr(err.message, "crashed"), "%s", err.message);
}

Test(run_lesson, a_lesson_binary_that_is_not_executable_is_named_so) {
    make_dir();
    char path[128];
    snprintf(path, sizeof path, "%s/lesson_x", dir);
    write_script(path, "#!/bin/sh\nexit 0\n", 0644);
    setenv("WB_BIN_DIR", dir, 1);
    char found[4096];
    wb_error err = {0};
    cr_assert_eq(wb_find_lesson_binary("lesson_x", found, sizeof found, &err), WB_EXIT_CAPTURE);
    cr_assert(strstr(err.message, "not executable"), "%s", err.message);
    cr_assert(!strstr(err.message, "not built"), "%s", err.message);
    memset(&err, 0, sizeof err);
    cr_assert_eq(wb_find_lesson_binary("lesson_y", found, sizeof found, &err), WB_EXIT_CAPTURE);
    cr_assert(strstr(err.message, "not built"), "%s", err.message);
    chmod(path, 0755);
    cr_assert_eq(wb_find_lesson_binary("lesson_x", found, sizeof found, &err), 0);
}

Test(run_lesson, the_log_tail_is_bounded_and_shows_no_control_bytes) {
    make_dir();
    char log[128], out[128];
    snprintf(log, sizeof log, "%s/lesson.log", dir);
    snprintf(out, sizeof out, "%s/stderr.txt", dir);
    FILE *f = fopen(log, "w");
    cr_assert_not_null(f);
    for (int i = 0; i < 5 << 10; i++) fputs("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", f);
    fputs("\nCUDA error: out of memory\x1b]0;pwned\x07\x1b[2J\n", f);
    fclose(f);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, STDERR_FILENO);
    close(fd);
    wb_print_log_tail(log, 12);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    struct stat st;
    cr_assert_eq(stat(out, &st), 0);
    cr_assert_lt(st.st_size, 2048, "the tail of a 5 MB line printed %ld bytes", (long)st.st_size);
    f = fopen(out, "r");
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    cr_assert(strstr(text, "CUDA error: out of memory"), "%s", text);
    cr_assert(!strchr(text, '\x1b') && !strchr(text, '\x07'), "control bytes reached the terminal");
    cr_assert(strstr(text, "\\x1B[2J"), "%s", text);
}
