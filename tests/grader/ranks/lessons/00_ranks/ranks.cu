/*
 * ranks.cu: a multi-process program whose trace is known by construction, to test the grader's
 * capture of several processes (docs/capture-format.md, "Several processes") on ONE GPU.
 *
 * Started without WB_RANK it is the launcher, like torchrun: it makes no CUDA call, starts
 * --ranks copies of itself (fork, then exec of /proc/self/exe with WB_RANK=<r> and
 * WB_WORLD_SIZE=<n> set, so that CUDA and the capture library start fresh in each), waits for
 * all of them and fails when one does.
 *
 * Each rank r, on device r % (devices):
 *   a warm-up launch outside the profiled window, then inside cudaProfilerStart/Stop, per step:
 *   "step"   holds "work" and a cudaDeviceSynchronize
 *   "work"   r + 2 launches of wb_ranks_add (cudaLaunchKernel each) on the legacy default stream
 * and checks the result on the host: every element must have grown by 1 per launch.
 * --ranks N (default 2), --steps S (default 3)
 */
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wb_check.h"

#define N_ELEMENTS 4096

__global__ void wb_ranks_add(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

/* ---- one rank ------------------------------------------------------------------------------ */

static int launch_adds(float *x, int launches) {
    for (int k = 0; k < launches; k++) {
        wb_ranks_add<<<(N_ELEMENTS + 255) / 256, 256>>>(x, N_ELEMENTS);
        CUDA_CHECK_LAUNCH();
    }
    return WB_OK;
}

static int run_rank(int rank, int steps) {
    int devices = 0;
    CUDA_CHECK(cudaGetDeviceCount(&devices));
    CUDA_CHECK(cudaSetDevice(rank % devices));
    float *x = NULL; // (N_ELEMENTS)
    CUDA_CHECK(cudaMalloc(&x, N_ELEMENTS * sizeof *x));
    CUDA_CHECK(cudaMemset(x, 0, N_ELEMENTS * sizeof *x));
    WB_TRY(launch_adds(x, 1)); /* warm-up: module load and first-launch costs stay out of the window */
    CUDA_CHECK(cudaDeviceSynchronize());

    int launches = rank + 2;
    CUDA_CHECK(cudaProfilerStart());
    for (int s = 0; s < steps; s++) {
        nvtxRangePushA("step");
        nvtxRangePushA("work");
        WB_TRY(launch_adds(x, launches));
        nvtxRangePop();
        CUDA_CHECK(cudaDeviceSynchronize());
        nvtxRangePop();
    }
    CUDA_CHECK(cudaProfilerStop());

    float host[N_ELEMENTS];
    CUDA_CHECK(cudaMemcpy(host, x, sizeof host, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(x));
    float expected = (float)(1 + steps * launches);
    for (int i = 0; i < N_ELEMENTS; i++)
        if (host[i] != expected) {
            fprintf(stderr, "rank %d: x[%d] = %g, expected %g\n", rank, i, host[i], expected);
            return WB_FAIL;
        }
    printf("rank %d: %d steps of %d launches, result checked\n", rank, steps, launches);
    return WB_OK;
}

/* ---- the launcher: no CUDA call here ---------------------------------------------------------- */

static int launch_ranks(char **argv, int ranks) {
    pid_t pids[64];
    char world[16];
    snprintf(world, sizeof world, "%d", ranks);
    for (int r = 0; r < ranks; r++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
            fprintf(stderr, "cannot start rank %d: %s\n", r, strerror(errno));
            return WB_FAIL;
        }
        if (pid == 0) {
            char rank[16];
            snprintf(rank, sizeof rank, "%d", r);
            setenv("WB_RANK", rank, 1);
            setenv("WB_WORLD_SIZE", world, 1);
            execv("/proc/self/exe", argv);
            fprintf(stderr, "rank %d: cannot exec /proc/self/exe: %s\n", r, strerror(errno));
            _exit(127);
        }
        pids[r] = pid;
    }
    int failed = 0;
    for (int r = 0; r < ranks; r++) {
        int status = 0;
        while (waitpid(pids[r], &status, 0) < 0 && errno == EINTR) {}
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "rank %d failed (status %d)\n", r, status);
            failed = 1;
        }
    }
    return failed ? WB_FAIL : WB_OK;
}

int main(int argc, char **argv) {
    int ranks = 2;  // processes the launcher starts
    int steps = 3;  // measured steps per rank
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ranks") && i + 1 < argc) ranks = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--ranks N (1-64)] [--steps S (1-1000)]\n", argv[0]);
            return 2;
        }
    }
    if (ranks < 1 || ranks > 64 || steps < 1 || steps > 1000) {
        fprintf(stderr, "usage: %s [--ranks N (1-64)] [--steps S (1-1000)]\n", argv[0]);
        return 2;
    }
    const char *rank = getenv("WB_RANK");
    if (!rank) return launch_ranks(argv, ranks) == WB_OK ? EXIT_SUCCESS : EXIT_FAILURE;
    return run_rank(atoi(rank), steps) == WB_OK ? EXIT_SUCCESS : EXIT_FAILURE;
}
