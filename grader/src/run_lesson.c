/* run_lesson.c: see run_lesson.h. */
#define _GNU_SOURCE
#include "run_lesson.h"

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

/* In the child: environment and redirections, then exec. Only async-signal-safe-ish calls that
 * cannot deadlock after fork (no stdio on shared streams). */
static void child(const wb_launch *l, char **argv) {
    int log = open(l->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log >= 0) {
        dup2(log, STDOUT_FILENO);
        dup2(log, STDERR_FILENO);
        close(log);
    }
    if (!l->capture_library) { /* a plain run (the calibration program): no capture */
        execv(l->binary, argv);
        dprintf(STDERR_FILENO, "grader: cannot start %s: %s\n", l->binary, strerror(errno));
        _exit(127);
    }
    setenv("CUDA_INJECTION64_PATH", l->capture_library, 1);
    setenv("NVTX_INJECTION64_PATH", l->cupti_library, 1);
    setenv("WB_CAPTURE_OUT", l->capture_out, 1);
    char cupti_dir[4096];
    snprintf(cupti_dir, sizeof cupti_dir, "%s", l->cupti_library);
    const char *dir = dirname(cupti_dir);
    const char *old = getenv("LD_LIBRARY_PATH");
    char path[16384];
    snprintf(path, sizeof path, "%s%s%s", dir, old && *old ? ":" : "", old ? old : "");
    setenv("LD_LIBRARY_PATH", path, 1);
    execv(l->binary, argv);
    dprintf(STDERR_FILENO, "grader: cannot start %s: %s\n", l->binary, strerror(errno));
    _exit(127);
}

int wb_launch_lesson(const wb_launch *l, wb_launch_result *r, wb_error *err) {
    memset(r, 0, sizeof *r);
    char **argv = calloc(l->n_args + 2, sizeof *argv);
    if (!argv) return wb_fail(err, WB_EXIT_CAPTURE, "out of memory");
    argv[0] = (char *)l->binary;
    for (size_t i = 0; i < l->n_args; i++) argv[i + 1] = l->args[i];
    if (l->capture_out) unlink(l->capture_out); /* a stale capture must never be graded */

    fflush(NULL);
    double t0 = now_seconds();
    pid_t pid = fork();
    if (pid < 0) {
        free(argv);
        return wb_fail(err, WB_EXIT_CAPTURE, "cannot start %s: %s", l->binary, strerror(errno));
    }
    if (pid == 0) child(l, argv);
    free(argv);

    int status = 0, term_sent = 0;
    double deadline = l->timeout_seconds > 0 ? t0 + l->timeout_seconds : 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) return wb_fail(err, WB_EXIT_CAPTURE, "lost track of %s: %s", l->binary, strerror(errno));
        double now = now_seconds();
        if (deadline && now > deadline && !term_sent) {
            r->timed_out = 1;
            kill(pid, SIGTERM); /* lets the capture library write what it has */
            term_sent = 1;
        } else if (deadline && term_sent && now > deadline + 15) {
            kill(pid, SIGKILL);
        }
        sleep_ms(now - t0 < 1.0 ? 5 : 25);
    }
    r->seconds = now_seconds() - t0;
    if (WIFEXITED(status)) {
        r->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        r->exit_code = -1;
        r->signal = WTERMSIG(status);
    }
    return 0;
}

void wb_print_log_tail(const char *log_path, int lines) {
    FILE *f = fopen(log_path, "r");
    if (!f) return;
    char *ring[64] = {0};
    if (lines > 64) lines = 64;
    size_t count = 0;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        free(ring[count % (size_t)lines]);
        ring[count % (size_t)lines] = strdup(line);
        count++;
    }
    free(line);
    fclose(f);
    size_t first = count > (size_t)lines ? count - (size_t)lines : 0;
    for (size_t i = first; i < count; i++) fprintf(stderr, "  | %s", ring[i % (size_t)lines]);
    for (int i = 0; i < lines; i++) free(ring[i]);
}
