/*
 * bench_timing.cuh: what the CUDA benches share: a check of every CUDA call that exits (a bench's
 * main is the only caller; exit code 3, the program failed) and the event timer, the mean of
 * ITERS launches after 3 warm-up launches on one stream.
 */
#ifndef WB_BENCH_TIMING_CUH
#define WB_BENCH_TIMING_CUH

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#define CK(expr)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (expr);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(e_)); \
            exit(3);                                                                               \
        }                                                                                          \
    } while (0)

template <typename F>
static double event_time_us(F launch, int iters, cudaStream_t stream = 0) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int i = 0; i < 3; i++) launch();
    CK(cudaGetLastError());
    CK(cudaEventRecord(e0, stream));
    for (int i = 0; i < iters; i++) launch();
    CK(cudaEventRecord(e1, stream));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return 1000.0 * ms / iters;
}

#endif
