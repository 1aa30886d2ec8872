/*
 * ranks.c: the launcher and a rank's view of it (ranks.h says what and why).
 */
#define _GNU_SOURCE
#include "ranks.h"

#include "wb_args.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int dp_count_gpus(void) {
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    if (vis) { /* "0,1,3": three; "" or "-1": none */
        if (!*vis || vis[0] == '-') return 0;
        int n = 1;
        for (const char *p = vis; *p; p++) n += *p == ',';
        return n;
    }
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    if (!d) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* In the forked child: its environment, its pipe ends, then this program again. Never returns. */
static void exec_rank(int rank, int world, int (*pipes)[2], char **argv) {
    char buf[16 * DP_MAX_RANKS], num[16];
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* a launcher killed (a timeout) takes its ranks with it */
    snprintf(num, sizeof num, "%d", rank);
    setenv("WB_RANK", num, 1);
    snprintf(num, sizeof num, "%d", world);
    setenv("WB_WORLD_SIZE", num, 1);
    buf[0] = 0;
    for (int k = 1; k < world; k++) {
        if (rank == 0) { /* keeps every write end */
            size_t len = strlen(buf);
            snprintf(buf + len, sizeof buf - len, "%s%d", k > 1 ? "," : "", pipes[k][1]);
            close(pipes[k][0]);
        } else {
            if (k != rank) close(pipes[k][0]);
            close(pipes[k][1]);
        }
    }
    if (rank == 0) {
        setenv("WB_NCCL_ID_FDS", buf, 1);
    } else {
        snprintf(num, sizeof num, "%d", pipes[rank][0]);
        setenv("WB_NCCL_ID_FD", num, 1);
    }
    execv("/proc/self/exe", argv);
    fprintf(stderr, "rank %d: cannot start /proc/self/exe: %s\n", rank, strerror(errno));
    _exit(127);
}

int dp_launch_ranks(int world, char **argv) {
    if (world < 1 || world > DP_MAX_RANKS) {
        fprintf(stderr, "world size %d: 1 to %d ranks\n", world, DP_MAX_RANKS);
        return 2;
    }
    int pipes[DP_MAX_RANKS][2];
    pid_t pids[DP_MAX_RANKS];
    for (int k = 1; k < world; k++)
        if (pipe(pipes[k]) != 0) {
            perror("pipe");
            return 1;
        }
    fflush(NULL); /* nothing buffered twice */
    int started = 0;
    for (; started < world; started++) {
        pids[started] = fork();
        if (pids[started] == 0) exec_rank(started, world, pipes, argv);
        if (pids[started] < 0) {
            perror("fork");
            break;
        }
    }
    for (int k = 1; k < world; k++) close(pipes[k][0]), close(pipes[k][1]);
    int code = started < world ? 1 : 0, left = started;
    if (started < world)
        for (int k = 0; k < started; k++) kill(pids[k], SIGTERM);
    while (left > 0) {
        int status;
        pid_t pid = wait(&status);
        if (pid < 0) {
            if (errno == EINTR) continue;
            break;
        }
        int rank = -1;
        for (int k = 0; k < started; k++)
            if (pids[k] == pid) rank = k, pids[k] = 0;
        if (rank < 0) continue;
        left--;
        int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
        if (rc != 0 && code == 0) {
            if (WIFSIGNALED(status)) fprintf(stderr, "rank %d ended by signal %d\n", rank, WTERMSIG(status));
            else fprintf(stderr, "rank %d exited %d; stopping the others\n", rank, rc);
            code = rc;
            for (int k = 0; k < started; k++)
                if (pids[k] > 0) kill(pids[k], SIGTERM);
        }
    }
    return code;
}

int dp_rank_from_env(dp_rank_info *info) {
    memset(info, 0, sizeof *info);
    info->id_fd = -1;
    const char *r = getenv("WB_RANK"), *w = getenv("WB_WORLD_SIZE");
    if (!r) return 0;
    if (!w || wb_parse_int(w, 1, DP_MAX_RANKS, &info->world) || wb_parse_int(r, 0, info->world - 1, &info->rank)) {
        fprintf(stderr, "WB_RANK=%s, WB_WORLD_SIZE=%s: want 0 <= rank < world size <= %d\n", r, w ? w : "(unset)",
                DP_MAX_RANKS);
        return -1;
    }
    if (info->rank > 0 && (!getenv("WB_NCCL_ID_FD") || wb_parse_int(getenv("WB_NCCL_ID_FD"), 0, 1 << 20, &info->id_fd))) {
        fprintf(stderr, "rank %d: WB_NCCL_ID_FD is not set (ranks are started by the program itself)\n", info->rank);
        return -1;
    }
    const char *fds = getenv("WB_NCCL_ID_FDS");
    if (info->rank == 0 && info->world > 1) {
        char *copy = strdup(fds ? fds : ""), *save = NULL;
        for (char *t = strtok_r(copy, ",", &save); t && info->n_id_out < DP_MAX_RANKS; t = strtok_r(NULL, ",", &save))
            if (wb_parse_int(t, 0, 1 << 20, &info->id_out[info->n_id_out++])) info->n_id_out = -1000;
        free(copy);
        if (info->n_id_out != info->world - 1) {
            fprintf(stderr, "rank 0: WB_NCCL_ID_FDS='%s' does not list %d pipes\n", fds ? fds : "", info->world - 1);
            return -1;
        }
    }
    return 1;
}

int dp_share_id(const dp_rank_info *info, void *id, size_t bytes) {
    if (info->rank == 0) {
        for (int k = 0; k < info->n_id_out; k++) {
            if (write(info->id_out[k], id, bytes) != (ssize_t)bytes) { /* < PIPE_BUF: all or nothing */
                fprintf(stderr, "rank 0: cannot send the NCCL id to rank %d: %s\n", k + 1, strerror(errno));
                return -1;
            }
            close(info->id_out[k]);
        }
        return 0;
    }
    for (size_t got = 0; got < bytes;) {
        ssize_t n = read(info->id_fd, (char *)id + got, bytes - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            fprintf(stderr, "rank %d: no NCCL id from rank 0 (%s)\n", info->rank, n ? strerror(errno) : "it exited");
            return -1;
        }
        got += (size_t)n;
    }
    close(info->id_fd);
    return 0;
}
