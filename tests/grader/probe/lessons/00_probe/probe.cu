/*
 * probe.cu: a program whose trace we know exactly, used to test the capture end to end.
 *
 * Per step (range "step", inside cudaProfilerStart/Stop):
 *   "two_kernels"  two launches of our own kernel wb_probe_scale (cudaLaunchKernel each)
 *   "memset"       one cudaMemsetAsync
 *   "copy"         one cudaMemcpyAsync device to device
 *   "gemm"         one cublasGemmEx (bf16): whatever cuBLAS launches for it
 *   "outer"        a range holding range "inner" that launches one kernel: nesting
 *   "empty"        nothing at all
 *   then a cudaStreamSynchronize inside "step".
 * Around all measured steps: "measured", a start/end range (nvtxRangeStartA/nvtxRangeEnd) rather
 * than push/pop, and an instantaneous marker "steps_done" (nvtxMarkA) after it.
 * --graph   captures the two_kernels launches into a CUDA graph and replays it (cudaGraphLaunch)
 * --fail    exits with status 1 after the steps (the capture must survive)
 * --crash   raises SIGSEGV after the steps (the capture must survive)
 * --steps N (default 3)
 */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wb_check.h"

__global__ void wb_probe_scale(float *x, int n, float s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}

typedef struct {
    float *x, *y;                 // (n)
    __nv_bfloat16 *a, *b, *c;     // (m, m)
    int n, m;
    cublasHandle_t blas;
    cudaStream_t stream;
    cudaGraphExec_t graph;
    int use_graph;
} probe;

static int launch_two(probe *p) {
    int threads = 256, blocks = (p->n + threads - 1) / threads;
    wb_probe_scale<<<blocks, threads, 0, p->stream>>>(p->x, p->n, 1.0001f);
    CUDA_CHECK_LAUNCH();
    wb_probe_scale<<<blocks, threads, 0, p->stream>>>(p->x, p->n, 0.9999f);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

static int step(probe *p) {
    nvtxRangePushA("step");
    nvtxRangePushA("two_kernels");
    if (p->use_graph) CUDA_CHECK(cudaGraphLaunch(p->graph, p->stream));
    else WB_TRY(launch_two(p));
    nvtxRangePop();

    nvtxRangePushA("memset");
    CUDA_CHECK(cudaMemsetAsync(p->y, 0, p->n * sizeof(float), p->stream));
    nvtxRangePop();

    nvtxRangePushA("copy");
    CUDA_CHECK(cudaMemcpyAsync(p->y, p->x, p->n * sizeof(float), cudaMemcpyDeviceToDevice, p->stream));
    nvtxRangePop();

    nvtxRangePushA("gemm");
    float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(p->blas, CUBLAS_OP_N, CUBLAS_OP_N, p->m, p->m, p->m, &one, p->a, CUDA_R_16BF, p->m, p->b,
                              CUDA_R_16BF, p->m, &zero, p->c, CUDA_R_16BF, p->m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    nvtxRangePop();

    nvtxRangePushA("outer");
    nvtxRangePushA("inner");
    wb_probe_scale<<<1, 32, 0, p->stream>>>(p->x, 32, 1.0f);
    CUDA_CHECK_LAUNCH();
    nvtxRangePop();
    nvtxRangePop();

    nvtxRangePushA("empty");
    nvtxRangePop();

    CUDA_CHECK(cudaStreamSynchronize(p->stream));
    nvtxRangePop();
    return WB_OK;
}

static int setup(probe *p) {
    /* CUPTI starts recording when the driver loads the capture library, at the first CUDA call:
     * a range opened before it would lose its start record. So touch CUDA first. */
    CUDA_CHECK(cudaFree(0));
    nvtxRangePushA("setup");
    p->n = 1 << 20;
    p->m = 256;
    CUDA_CHECK(cudaStreamCreateWithFlags(&p->stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&p->x, p->n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&p->y, p->n * sizeof(float)));
    size_t mm = (size_t)p->m * p->m;
    CUDA_CHECK(cudaMalloc(&p->a, mm * sizeof(__nv_bfloat16)));
    CUDA_CHECK(cudaMalloc(&p->b, mm * sizeof(__nv_bfloat16)));
    CUDA_CHECK(cudaMalloc(&p->c, mm * sizeof(__nv_bfloat16)));
    CUDA_CHECK(cudaMemset(p->x, 0x3f, p->n * sizeof(float)));
    CUDA_CHECK(cudaMemset(p->a, 0x3c, mm * sizeof(__nv_bfloat16)));
    CUDA_CHECK(cudaMemset(p->b, 0x3c, mm * sizeof(__nv_bfloat16)));
    CUBLAS_CHECK(cublasCreate(&p->blas));
    CUBLAS_CHECK(cublasSetStream(p->blas, p->stream));
    if (p->use_graph) {
        cudaGraph_t g;
        CUDA_CHECK(cudaStreamBeginCapture(p->stream, cudaStreamCaptureModeGlobal));
        WB_TRY(launch_two(p));
        CUDA_CHECK(cudaStreamEndCapture(p->stream, &g));
        CUDA_CHECK(cudaGraphInstantiate(&p->graph, g, 0));
        CUDA_CHECK(cudaGraphDestroy(g));
    }
    nvtxRangePop();
    return WB_OK;
}

int main(int argc, char **argv) {
    probe p;
    memset(&p, 0, sizeof p);
    int steps = 3, fail = 0, crash = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--graph")) p.use_graph = 1;
        else if (!strcmp(argv[i], "--fail")) fail = 1;
        else if (!strcmp(argv[i], "--crash")) crash = 1;
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--graph] [--fail] [--crash] [--steps N]\n", argv[0]);
            return 2;
        }
    }
    if (setup(&p) != WB_OK) return EXIT_FAILURE;
    if (step(&p) != WB_OK) return EXIT_FAILURE; /* warm-up: cuBLAS heuristics, module loading */
    if (cudaProfilerStart() != cudaSuccess) return EXIT_FAILURE;
    nvtxRangeId_t measured = nvtxRangeStartA("measured");
    for (int s = 0; s < steps; s++)
        if (step(&p) != WB_OK) return EXIT_FAILURE;
    nvtxRangeEnd(measured);
    nvtxMarkA("steps_done");
    if (cudaProfilerStop() != cudaSuccess) return EXIT_FAILURE;
    printf("probe: %d steps done%s\n", steps, p.use_graph ? " (graph)" : "");
    if (fail) return 1;
    if (crash) raise(SIGSEGV);
    return 0;
}
