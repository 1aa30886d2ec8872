/*
 * Lesson 01: y = x @ w + b, the smallest GPU program worth profiling.
 *
 * One step is what torch.add(torch.matmul(x, w), b) does: a cuBLAS GEMM writes xw = x @ w, then
 * our own kernel writes y = xw + b. Every matrix is square (--size n), row-major, bf16; the GEMM
 * accumulates in fp32.
 *
 *     lesson_01_matmul_add [--variant eager|graph] [--size N] [--steps S] [--warmup W]
 *
 * Variants
 *   eager   the host launches both kernels every step: cublasGemmEx (cuBLAS launches its kernel
 *           through the driver API) and k_bias_add<<<...>>> (the runtime's cudaLaunchKernel).
 *   graph   the same two launches captured once into a CUDA graph; each step is one
 *           cudaGraphLaunch. Fewer host calls, the same kernels on the GPU.
 *
 * What it shows: at --size 64 a step is overhead-bound (the host spends longer launching than
 * the GPU spends computing, so the GPU idles between kernels); at --size 4096 it is compute-bound
 * (the GEMM dwarfs the launch cost). The timing
 * table splits each step into host launch time, time waiting in the synchronize, and GPU time.
 *
 * Program order (common/wb_lesson.c runs it, as it runs every lesson): setup (cuBLAS handle,
 * workspace; beside it, on a second thread, the random inputs; then the uploads), warm-up steps
 * (cuBLAS heuristics, module loading and graph upload happen here, outside the measurement), then
 * --steps measured steps between cudaProfilerStart and cudaProfilerStop, then a CPU reference
 * check. A step is forward() below, or one replay of its graph, then cudaDeviceSynchronize:
 * wb_step_run in common/wb_steps.c, with the CUDA events and host clocks that time it.
 *
 * NVTX ranges (the lesson's interface; lesson.yaml lists them; * = made by common/wb_steps.c):
 *   step *        one measured step, from its first launch to the end of its synchronize
 *   matmul        the cublasGemmEx call                        (eager)
 *   bias_add      the k_bias_add launch                   (eager)
 *   graph_launch * the cudaGraphLaunch call                    (graph)
 *   sync *        the cudaDeviceSynchronize that ends every step
 *
 * Exit status: 0 when the result matches the CPU reference, 1 on any CUDA or cuBLAS error or a
 * wrong result, 2 on bad usage.
 */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wb_args.h"
#include "wb_bf16.h"
#include "wb_bf16x8.cuh"
#include "wb_check.h"
#include "wb_compare.h"
#include "wb_lesson.h"
#include "wb_random.h"
#include "wb_upload.h"

typedef __nv_bfloat16 bf16;

/* The CPU reference (double precision, O(n^3)) is computed for this many rows spread over y. */
#define CHECK_ROWS 32
/* bf16 output: each element is rounded twice (the GEMM's output, then y), each time by up to
 * 2^-8 of itself, so the relative error lands near 2.5e-3; 1e-2 still catches any wrong index or
 * missing term. */
#define TOLERANCE 1e-2

/* ---- kernels -------------------------------------------------------------------------------- */

/*
 * y (rows, cols) = xw (rows, cols) + b (cols). It moves 4 bytes per element (read xw, write y;
 * b is 2 bytes per column, read from cache) for one addition, so at size 4096 its time is set by
 * memory bandwidth, and at size 64 by nothing but launch latency.
 *
 * Written to stream at the copy bandwidth: each thread handles chunks of 8 consecutive elements
 * of one row as 16-byte loads and stores (one instruction per array instead of eight), and a
 * grid of a few blocks per SM strides over all rows x cols/8 chunks. The column of a chunk is a
 * 32-bit remainder, once per 8 elements (a 64-bit `%` per element costs more instructions than
 * the addition it feeds). That needs cols % 8 == 0 and 16-byte aligned arrays; other shapes
 * (the tests' odd sizes) take the element-by-element path, correct but slower.
 */
__global__ void __launch_bounds__(256) k_bias_add(bf16 *y, const bf16 *xw, const bf16 *b, int rows, int cols,
                                                       int vectorized) {
    size_t stride = (size_t)gridDim.x * blockDim.x, first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (vectorized) {
        unsigned chunks_per_row = (unsigned)cols / 8, chunks = (unsigned)rows * chunks_per_row;
        for (unsigned c = (unsigned)first; c < chunks; c += (unsigned)stride) {
            float fx[8], fb[8];
            unpack_bf16x8(reinterpret_cast<const uint4 *>(xw)[c], fx);
            unpack_bf16x8(reinterpret_cast<const uint4 *>(b)[c % chunks_per_row], fb);
#pragma unroll
            for (int j = 0; j < 8; j++) fx[j] += fb[j];
            reinterpret_cast<uint4 *>(y)[c] = pack_bf16x8(fx);
        }
        return;
    }
    for (size_t i = first; i < (size_t)rows * cols; i += stride)
        y[i] = __float2bfloat16(__bfloat162float(xw[i]) + __bfloat162float(b[i % (size_t)cols]));
}

/* ---- host launchers ------------------------------------------------------------------------- */

/*
 * xw (m, n) = x (m, k) @ w (k, n); row-major bf16, fp32 accumulation.
 *
 * cuBLAS is column-major (Fortran order), and our matrices are row-major (C order). The bytes of
 * a row-major (m, k) matrix, read column-major, are its transpose: a (k, m) matrix with leading
 * dimension k. So ask cuBLAS for the transposed product, which needs no transposition at all:
 *
 *     xw^T (n, m) = w^T (n, k) @ x^T (k, m)
 *
 * w's bytes read column-major are w^T (leading dimension n), x's bytes are x^T (leading dimension
 * k), and xw^T written column-major is xw row-major. So: w goes first, x second, CUBLAS_OP_N on
 * both, and the sizes are passed as (n, m, k). No data moves; only the arguments swap.
 */
static int matmul_bf16(cublasHandle_t cublas, bf16 *xw, const bf16 *x, const bf16 *w, int m, int k,
                       int n) {
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, w, CUDA_R_16BF, n,
                              x, CUDA_R_16BF, k, &beta, xw, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
    return WB_OK;
}

/* Enough 256-thread blocks to fill every SM (8 resident blocks each on Hopper) a few times over,
 * and no more than there are chunks: at size 64, 2 blocks; at 4096, 132 x 32 = 4224. The grid
 * stride covers the rest. */
static int bias_add(bf16 *y, const bf16 *xw, const bf16 *b, int rows, int cols, int sms, cudaStream_t stream) {
    const int block = 256;
    int vectorized = cols % 8 == 0 && wb_aligned16(y) && wb_aligned16(xw) && wb_aligned16(b);
    size_t items = vectorized ? (size_t)rows * (cols / 8) : (size_t)rows * cols;
    size_t grid = (items + block - 1) / block, cap = (size_t)sms * 32;
    k_bias_add<<<(unsigned)(grid < cap ? grid : cap), block, 0, stream>>>(y, xw, b, rows, cols, vectorized);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

/* ---- the lesson's state --------------------------------------------------------------------- */

typedef struct {
    int n;                      /* square size (--size) */
    bf16 *x;                    /* (n, n) input */
    bf16 *w;                    /* (n, n) weight */
    bf16 *b;                    /* (n)    bias */
    bf16 *xw;                   /* (n, n) x @ w, written by the GEMM */
    bf16 *y;                    /* (n, n) xw + b, the output */
    float *x_host, *w_host, *b_host; /* the same values on the host, rounded to bf16 */
    uint16_t *x_bits, *w_bits, *b_bits; /* the same as bf16 bits, what is uploaded */
    int sms;                    /* the GPU's multiprocessors: k_bias_add's grid is sized by them */
    cublasHandle_t cublas;      /* on stream, with its workspace (common/wb_lesson.c) */
    cudaStream_t stream;        /* every launch goes here; graph capture needs a non-default stream */
} lesson;

/* The host's work, on the frame's second thread while CUDA and cuBLAS start (no CUDA call here):
 * the random inputs, rounded to bf16. At size 4096 that is 33 million values, about 1 s of one
 * core, spread over every core (common/wb_parallel.h). */
static int lesson_prepare(void *ctx, unsigned long long seed) {
    lesson *L = (lesson *)ctx;
    int n = L->n;
    size_t nn = (size_t)n * n;
    L->x_host = (float *)malloc(nn * sizeof(float));
    L->w_host = (float *)malloc(nn * sizeof(float));
    L->b_host = (float *)malloc((size_t)n * sizeof(float));
    L->x_bits = (uint16_t *)malloc(nn * sizeof(uint16_t));
    L->w_bits = (uint16_t *)malloc(nn * sizeof(uint16_t));
    L->b_bits = (uint16_t *)malloc((size_t)n * sizeof(uint16_t));
    if (!L->x_host || !L->w_host || !L->b_host || !L->x_bits || !L->w_bits || !L->b_bits) {
        fprintf(stderr, "out of host memory for size %d\n", n);
        return WB_FAIL;
    }
    wb_rng rng;
    wb_rng_seed(&rng, seed);
    wb_fill_uniform(L->x_host, nn, &rng, -1.0f, 1.0f);
    wb_fill_uniform(L->w_host, nn, &rng, -1.0f, 1.0f);
    wb_fill_uniform(L->b_host, (size_t)n, &rng, -1.0f, 1.0f);
    wb_bf16_encode(L->x_bits, L->x_host, nn); /* the host copies now hold exactly what the GPU gets */
    wb_bf16_encode(L->w_bits, L->w_host, nn);
    wb_bf16_encode(L->b_bits, L->b_host, (size_t)n);
    return WB_OK;
}

static int lesson_init(void *ctx, wb_lesson_run *run) {
    lesson *L = (lesson *)ctx;
    int n = L->n;
    size_t nn = (size_t)n * n;
    L->cublas = run->cublas;
    L->stream = run->stream;
    L->sms = run->sms;
    CUDA_CHECK(cudaMalloc((void **)&L->x, nn * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->w, nn * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->b, (size_t)n * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->xw, nn * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->y, nn * sizeof(bf16)));
    CUDA_CHECK(cudaMemcpy(L->x, L->x_bits, nn * sizeof(bf16), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(L->w, L->w_bits, nn * sizeof(bf16), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(L->b, L->b_bits, (size_t)n * sizeof(bf16), cudaMemcpyHostToDevice));
    /* Fill the outputs with NaN bits (0xFFFF) so an output nobody writes cannot pass the check. */
    CUDA_CHECK(cudaMemset(L->xw, 0xFF, nn * sizeof(bf16)));
    CUDA_CHECK(cudaMemset(L->y, 0xFF, nn * sizeof(bf16)));
    return WB_OK;
}

/* Frees what lesson_init made; safe on a partly built lesson. Errors are ignored: we are leaving. */
static void lesson_free(void *ctx) {
    lesson *L = (lesson *)ctx;
    cudaFree(L->x);
    cudaFree(L->w);
    cudaFree(L->b);
    cudaFree(L->xw);
    cudaFree(L->y);
    free(L->x_host);
    free(L->w_host);
    free(L->b_host);
    free(L->x_bits);
    free(L->w_bits);
    free(L->b_bits);
}

/* ---- one step ------------------------------------------------------------------------------- */

/* The forward pass: two launches, each in its own NVTX range. wb_step_run (common/wb_steps.c)
 * calls it every step (eager); wb_step_capture records it once (graph). */
static int forward(void *ctx) {
    lesson *L = (lesson *)ctx;
    nvtxRangePushA("matmul");
    int rc = matmul_bf16(L->cublas, L->xw, L->x, L->w, L->n, L->n, L->n);
    nvtxRangePop();
    WB_TRY(rc);
    nvtxRangePushA("bias_add");
    rc = bias_add(L->y, L->xw, L->b, L->n, L->n, L->sms, L->stream);
    nvtxRangePop();
    return rc;
}

/* ---- checking and reporting ----------------------------------------------------------------- */

/* Compares CHECK_ROWS rows of y, spread from the first to the last, with a double-precision
 * reference computed from the same bf16-rounded inputs. */
static int check_result(const void *ctx) {
    const lesson *L = (const lesson *)ctx;
    int n = L->n;
    int rows = n < CHECK_ROWS ? n : CHECK_ROWS;
    float *x_rows = (float *)malloc((size_t)rows * n * sizeof(float));
    float *out = (float *)malloc((size_t)rows * n * sizeof(float));
    double *ref = (double *)malloc((size_t)rows * n * sizeof(double));
    int rc = WB_FAIL;
    if (!x_rows || !out || !ref) {
        fprintf(stderr, "out of host memory for the check\n");
        goto done;
    }
    if (wb_download_sampled_rows_bf16(out, L->y, n, n, rows) != WB_OK) goto done;
    wb_gather_sampled_rows(x_rows, L->x_host, n, n, rows);
    wb_cpu_matmul(ref, x_rows, L->w_host, rows, n, n);
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < n; j++) ref[(size_t)r * n + j] += L->b_host[j];
    rc = wb_check_close("y = x @ w + b", out, ref, (size_t)rows * n, TOLERANCE) == 0 ? WB_OK : WB_FAIL;
done:
    free(x_rows);
    free(out);
    free(ref);
    return rc;
}

/* ---- main ----------------------------------------------------------------------------------- */

/* The run's shape, in the header line and in the RESULT line (with the steps' medians). */
static void describe(const void *ctx, char *words, size_t cap) {
    snprintf(words, cap, "size %d", ((const lesson *)ctx)->n);
}

static void report(const void *ctx, const wb_steps *timed, wb_result *r) {
    wb_result_add(r, "size=%d", ((const lesson *)ctx)->n);
    wb_result_steps(r, timed);
    wb_result_host_times(r, timed);
}

int main(int argc, char **argv) {
    lesson L = {};
    L.n = 64; /* the series profiles 64 (overhead-bound) and 4096 */
    const wb_opt options[] = {
        WB_INT_HELP("size", &L.n, 1, 16384, "N", "x, w and y are N x N, b has N values; the series uses 64 and 4096"),
    };
    static const char *const variants[] = {"eager", "graph", NULL};

    wb_lesson_spec spec = {};
    spec.name = "01_matmul_add";
    spec.variants = variants;
    spec.variant_help = "eager: GEMM + bias kernel launched every step; graph: both replayed\nfrom one CUDA graph";
    spec.graph_variant = "graph";
    spec.options = options;
    spec.n_options = 1;
    spec.steps = 20; /* lesson.yaml uses 3 to keep recordings small */
    spec.warmup = 5;
    spec.gpu = WB_GPU_CUBLAS;
    spec.fns = {lesson_init, forward, NULL, check_result, describe, report, lesson_free, lesson_prepare};
    return wb_lesson_main(&spec, &L, argc, argv);
}
