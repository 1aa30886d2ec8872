/*
 * calibrate.cu: wb_calibrate, the program that measures the two ceilings the `bound` fact is
 * judged against, on the GPU it runs on (docs/predictions.md, "Time facts"). The grader runs it
 * (without the capture) before a live capture (grader check reuses one made on the same GPU, driver
 * and calibration program less than a day before: calibration_cache.h) and stores its output in
 * the recording.
 *
 *   copy bandwidth  a device-to-device cudaMemcpyAsync of COPY_BYTES, counted as bytes read plus
 *                   bytes written (2 x COPY_BYTES) per second: what a kernel that streams its
 *                   inputs and outputs through HBM once can hope for.
 *   matrix rate     a cublasGemmEx of GEMM_N^3 with bf16 inputs and output, fp32 accumulation
 *                   (the lessons' GEMMs), on uniformly random data in [-1, 1): 2 GEMM_N^3 FLOPs
 *                   per second. Random data matters: on zeros Hopper GEMMs run faster (less
 *                   switching power), which would flatter the ceiling.
 *
 * Each is timed with CUDA events, one pair per repetition, after warm-up repetitions; the
 * median of REPS is reported (a ceiling that a typical, not a lucky, run reaches). Output: one
 * JSON object on stdout. Exit 0, or 1 with the failed call on stderr.
 *
 *     wb_calibrate            # {"format": "gpu-workbench-calibration", "copy_bytes_per_s": ...}
 */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wb_check.h"

#define COPY_BYTES ((size_t)1 << 30) /* 1 GiB: far beyond the 50 MB L2, so HBM is what is measured */
#define GEMM_N 8192                  /* large enough for cuBLAS's best tiles to fill every SM many times */
#define WARMUP 3
#define REPS 15

/* Uniform bf16 values in [-1, 1) from a counter hash (splitmix64): random enough to exercise
 * the tensor cores as real data does, with no host transfer of 3 x 128 MiB. */
__global__ void k_fill_random(__nv_bfloat16 *x, size_t n, uint64_t seed) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = seed + i * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        x[i] = __float2bfloat16((float)(z >> 40) * (2.0f / 16777216.0f) - 1.0f);
    }
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

typedef int (*work_fn)(void *ctx, cudaStream_t s);

/* Median milliseconds of REPS runs of fn, after WARMUP untimed ones. */
static int time_median_ms(work_fn fn, void *ctx, cudaStream_t s, float *out) {
    cudaEvent_t ev[2 * REPS];
    float ms[REPS];
    for (int i = 0; i < 2 * REPS; i++) CUDA_CHECK(cudaEventCreate(&ev[i]));
    for (int i = 0; i < WARMUP; i++)
        if (fn(ctx, s) != WB_OK) return WB_FAIL;
    for (int i = 0; i < REPS; i++) {
        CUDA_CHECK(cudaEventRecord(ev[2 * i], s));
        if (fn(ctx, s) != WB_OK) return WB_FAIL;
        CUDA_CHECK(cudaEventRecord(ev[2 * i + 1], s));
    }
    CUDA_CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < REPS; i++) CUDA_CHECK(cudaEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]));
    for (int i = 0; i < 2 * REPS; i++) CUDA_CHECK(cudaEventDestroy(ev[i]));
    qsort(ms, REPS, sizeof ms[0], cmp_float);
    *out = ms[REPS / 2];
    return WB_OK;
}

typedef struct { void *dst, *src; size_t bytes; } copy_job;

static int run_copy(void *ctx, cudaStream_t s) {
    copy_job *c = (copy_job *)ctx;
    CUDA_CHECK(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, s));
    return WB_OK;
}

typedef struct { cublasHandle_t h; __nv_bfloat16 *a, *b, *c; int n; } gemm_job;

static int run_gemm(void *ctx, cudaStream_t s) {
    gemm_job *g = (gemm_job *)ctx;
    (void)s; /* the handle is bound to the stream */
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(g->h, CUBLAS_OP_N, CUBLAS_OP_N, g->n, g->n, g->n, &alpha, g->a, CUDA_R_16BF, g->n, g->b,
                              CUDA_R_16BF, g->n, &beta, g->c, CUDA_R_16BF, g->n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    return WB_OK;
}

/* The GPU's name with JSON's special characters replaced: it goes inside a JSON string. */
static void json_safe(char *s) {
    for (; *s; s++)
        if (*s == '"' || *s == '\\' || (unsigned char)*s < 32) *s = '_';
}

static int calibrate(void) {
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    /* copy: at most a quarter of free memory per buffer, on small GPUs */
    size_t free_bytes, total_bytes;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    copy_job copy = {NULL, NULL, COPY_BYTES < free_bytes / 4 ? COPY_BYTES : free_bytes / 4};
    CUDA_CHECK(cudaMalloc(&copy.dst, copy.bytes));
    CUDA_CHECK(cudaMalloc(&copy.src, copy.bytes));
    CUDA_CHECK(cudaMemsetAsync(copy.src, 1, copy.bytes, s));
    float copy_ms;
    if (time_median_ms(run_copy, &copy, s, &copy_ms) != WB_OK) return WB_FAIL;
    CUDA_CHECK(cudaFree(copy.dst));
    CUDA_CHECK(cudaFree(copy.src));

    gemm_job g = {NULL, NULL, NULL, NULL, GEMM_N};
    size_t nn = (size_t)GEMM_N * GEMM_N;
    CUDA_CHECK(cudaMalloc((void **)&g.a, nn * sizeof(__nv_bfloat16)));
    CUDA_CHECK(cudaMalloc((void **)&g.b, nn * sizeof(__nv_bfloat16)));
    CUDA_CHECK(cudaMalloc((void **)&g.c, nn * sizeof(__nv_bfloat16)));
    k_fill_random<<<4 * prop.multiProcessorCount, 256, 0, s>>>(g.a, nn, 1);
    CUDA_CHECK_LAUNCH();
    k_fill_random<<<4 * prop.multiProcessorCount, 256, 0, s>>>(g.b, nn, 2);
    CUDA_CHECK_LAUNCH();
    CUBLAS_CHECK(cublasCreate(&g.h));
    CUBLAS_CHECK(cublasSetStream(g.h, s));
    float gemm_ms;
    if (time_median_ms(run_gemm, &g, s, &gemm_ms) != WB_OK) return WB_FAIL;
    CUBLAS_CHECK(cublasDestroy(g.h));
    CUDA_CHECK(cudaFree(g.a));
    CUDA_CHECK(cudaFree(g.b));
    CUDA_CHECK(cudaFree(g.c));
    CUDA_CHECK(cudaStreamDestroy(s));

    double copy_rate = 2.0 * (double)copy.bytes / (copy_ms * 1e-3);
    double gemm_rate = 2.0 * (double)GEMM_N * GEMM_N * GEMM_N / (gemm_ms * 1e-3);
    char name[256];
    snprintf(name, sizeof name, "%s", prop.name);
    json_safe(name);
    printf("{\"format\": \"gpu-workbench-calibration\", \"version\": 1, \"gpu\": \"%s\", \"copy_bytes_per_s\": %.6e, "
           "\"matrix_flops_per_s\": %.6e, \"method\": \"copy: cudaMemcpyAsync DtoD of %zu bytes, bytes read + written, "
           "median of %d after %d warm-up (%.3f ms); matrix: cublasGemmEx bf16 in/out, fp32 accumulation, %d^3 on random "
           "data in [-1, 1), median of %d after %d warm-up (%.3f ms)\"}\n",
           name, copy_rate, gemm_rate, copy.bytes, REPS, WARMUP, copy_ms, GEMM_N, REPS, WARMUP, gemm_ms);
    return WB_OK;
}

int main(void) { return calibrate() == WB_OK ? EXIT_SUCCESS : EXIT_FAILURE; }
