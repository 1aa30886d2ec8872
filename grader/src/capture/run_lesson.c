/* run_lesson.c: see run_lesson.h. */
#define _GNU_SOURCE
#include "run_lesson.h"
#include "wb_base.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* In the child: its own process group (so that a timeout or an interrupted grader stops everything
 * the lesson started), environment and redirections, then exec. Only async-signal-safe-ish calls
 * that cannot deadlock after fork (no stdio on shared streams). */
static void child(const wb_launch *l, char **argv, const char *cannot_start) {
    setpgid(0, 0);
    int log = open(l->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log >= 0) {
        dup2(log, STDOUT_FILENO);
        dup2(log, STDERR_FILENO);
        close(log);
    }
    if (!l->capture_library) { /* a plain run (the calibration program): no capture */
        execv(l->binary, argv);
        dprintf(STDERR_FILENO, cannot_start, l->binary, strerror(errno));
        _exit(127);
    }
    setenv("CUDA_INJECTION64_PATH", l->capture_library, 1);
    /* the capture library forwards NVTX to the libcupti it is bound to (capture_nvtx.c) */
    setenv("NVTX_INJECTION64_PATH", l->capture_library, 1);
    setenv("WB_CAPTURE_OUT", l->capture_out, 1);
    char cupti_dir[4096];
    snprintf(cupti_dir, sizeof cupti_dir, "%s", l->cupti_library);
    const char *dir = dirname(cupti_dir);
    const char *old = getenv("LD_LIBRARY_PATH");
    char path[16384];
    snprintf(path, sizeof path, "%s%s%s", dir, old && *old ? ":" : "", old ? old : "");
    setenv("LD_LIBRARY_PATH", path, 1);
    execv(l->binary, argv);
    dprintf(STDERR_FILENO, cannot_start, l->binary, strerror(errno));
    _exit(127);
}

/* SIGINT, SIGTERM or SIGHUP to the grader while a lesson runs: passed on to the lesson's group
 * (kill is async-signal-safe), then the grader ends by the same signal once the lesson is gone. */
static volatile sig_atomic_t lesson_group, interrupted_by;

static void forward(int sig) {
    interrupted_by = sig;
    if (lesson_group > 0) kill(-(pid_t)lesson_group, sig);
}

/* Stops the whole group: SIGTERM first (the capture library writes what it has), SIGKILL after
 * grace seconds. */
static void stop_group(pid_t pid, int *status, double grace) {
    kill(-pid, SIGTERM);
    double until = now_seconds() + grace;
    while (waitpid(pid, status, WNOHANG) == 0 && now_seconds() < until) sleep_ms(20);
    kill(-pid, SIGKILL); /* anything of the group still alive, the lesson's own children included */
    while (waitpid(pid, status, 0) < 0 && errno == EINTR) {}
}

int wb_launch_lesson(const wb_launch *l, wb_launch_result *r, wb_error *err) {
    memset(r, 0, sizeof *r);
    char **argv = calloc(l->n_args + 2, sizeof *argv);
    if (!argv) return wb_fail(err, WB_EXIT_CAPTURE, _("out of memory"));
    argv[0] = (char *)l->binary;
    for (size_t i = 0; i < l->n_args; i++) argv[i + 1] = l->args[i];
    if (l->capture_out) unlink(l->capture_out); /* a stale capture must never be graded */

    struct sigaction sa, old_int, old_term, old_hup;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward;
    sigemptyset(&sa.sa_mask);
    interrupted_by = 0;
    lesson_group = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);

    /* looked up before fork: the catalog may allocate on its first lookup, which a child must not */
    const char *cannot_start = _("grader: cannot start %s: %s\n");
    fflush(NULL);
    double t0 = now_seconds();
    pid_t pid = fork();
    if (pid < 0) {
        free(argv);
        sigaction(SIGINT, &old_int, NULL), sigaction(SIGTERM, &old_term, NULL), sigaction(SIGHUP, &old_hup, NULL);
        return wb_fail(err, WB_EXIT_CAPTURE, _("cannot start %s: %s"), l->binary, strerror(errno));
    }
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL), sigaction(SIGTERM, &old_term, NULL), sigaction(SIGHUP, &old_hup, NULL);
        child(l, argv, cannot_start);
    }
    setpgid(pid, pid); /* also here: whichever of parent and child runs first */
    lesson_group = pid;
    free(argv);

    int status = 0;
    double deadline = l->timeout_seconds > 0 ? t0 + l->timeout_seconds : 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) {
            kill(-pid, SIGKILL);
            return wb_fail(err, WB_EXIT_CAPTURE, _("lost track of %s: %s"), l->binary, strerror(errno));
        }
        if (interrupted_by) {
            stop_group(pid, &status, 5);
            break;
        }
        if (deadline && now_seconds() > deadline) {
            r->timed_out = 1;
            stop_group(pid, &status, 15);
            break;
        }
        sleep_ms(now_seconds() - t0 < 1.0 ? 5 : 25);
    }
    /* the lesson ended: whatever it left running in its group goes too */
    kill(-pid, SIGKILL);
    lesson_group = 0;
    sigaction(SIGINT, &old_int, NULL), sigaction(SIGTERM, &old_term, NULL), sigaction(SIGHUP, &old_hup, NULL);
    if (interrupted_by) raise(interrupted_by); /* the grader was asked to stop: it does, by the same signal */
    r->seconds = now_seconds() - t0;
    if (WIFEXITED(status)) {
        r->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        r->exit_code = -1;
        r->signal = WTERMSIG(status);
    }
    return 0;
}

/* Only the end of the file is read (a lesson may print 300 MB without a newline), each line is
 * cut to LINE_BYTES, and control bytes are shown as \xNN, never sent to the terminal. */
#define TAIL_BYTES 16384
#define LINE_BYTES 240

void wb_print_log_tail(const char *log_path, int lines) {
    FILE *f = fopen(log_path, "rb");
    if (!f) return;
    if (lines > 64) lines = 64;
    char buf[TAIL_BYTES + 1];
    long start = 0;
    if (fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        start = size > TAIL_BYTES ? size - TAIL_BYTES : 0;
        fseek(f, start, SEEK_SET);
    }
    size_t n = fread(buf, 1, TAIL_BYTES, f);
    fclose(f);
    buf[n] = '\0';
    while (n > 0 && buf[n - 1] == '\n') buf[--n] = '\0';
    /* the last `lines` lines: walk back over newlines */
    size_t first = n;
    int found = 0;
    while (first > 0 && found < lines) {
        first--;
        if (buf[first] == '\n' && ++found == lines) first++;
    }
    if (start > 0 && first == 0) fprintf(stderr, _("  | ... (the log's last %d bytes)\n"), TAIL_BYTES);
    for (size_t i = first; i < n;) {
        size_t end = i;
        while (end < n && buf[end] != '\n') end++;
        char line[LINE_BYTES * 4 + 1];
        size_t len = end - i > LINE_BYTES ? LINE_BYTES : end - i;
        char raw[LINE_BYTES + 1];
        memcpy(raw, buf + i, len);
        raw[len] = '\0';
        wb_term_clean(raw, line, sizeof line);
        fprintf(stderr, "  | %s%s\n", line, end - i > LINE_BYTES ? _(" ... (line cut)") : "");
        i = end + 1;
    }
}
