/*
 * Lesson 03: a GeGLU MLP block, y = down_proj(gelu(gate_proj(x)) * up_proj(x)), no biases.
 *
 * The feed-forward block of many transformers, as the series' SimpleGeGLUMLP writes it:
 *     g = x @ Wg^T    (tokens, hidden)     gate_proj
 *     u = x @ Wu^T    (tokens, hidden)     up_proj
 *     h = gelu(g, tanh) * u                the gated activation
 *     y = h @ Wd^T    (tokens, dim)        down_proj
 * with tokens = batch * seq. Weights are stored (out, in) like nn.Linear. bf16 data, fp32
 * accumulation and fp32 pointwise math.
 *
 *     lesson_03_mlp [--variant eager|fused|merged|graph] [--batch B] [--seq S] [--dim D]
 *                   [--hidden H] [--steps N] [--warmup W]
 *
 * Variants (what each step launches)
 *   eager   3 GEMMs + k_gelu + k_mul: 5 kernels. gelu(g) makes a full round trip
 *           through memory between the two pointwise kernels, as in PyTorch eager.
 *   fused   3 GEMMs + k_gelu_mul: 4 kernels. One pass reads g and u and writes h; gelu(g)
 *           lives only in registers (what torch.compile's Triton kernel and Liger's kernel do).
 *   merged  Wg and Wu are stored back to back as one (2*hidden, dim) weight, so one GEMM writes
 *           [g | u] per token; k_gelu_mul reads the two halves of each row: 3 kernels.
 *   graph   the merged step captured once into a CUDA graph: one cudaGraphLaunch per step.
 *
 * bench_gelu_mul (bench/gelu_mul_bench.cu) times k_gelu_mul alone, against the floor that
 * bandwidth sets, beside issue 3's alternative implementations. The variants always launch
 * k_gelu_mul.
 *
 * Program order (common/wb_lesson.c, every lesson's frame): setup (handle, workspace; beside
 * it, on a second thread, the random inputs and the CPU reference of sampled rows; then the
 * uploads), warm-up steps (cuBLAS heuristics, module loading, graph upload happen there), then
 * --steps measured steps between cudaProfilerStart and cudaProfilerStop, then the check of the
 * sampled rows against that reference. A step (wb_step_run, common/wb_steps.c) is forward() below or one replay of its
 * graph, then cudaDeviceSynchronize.
 * The pointwise kernels are in pointwise.cu; their device math (gelu_tanh, the 16-byte bf16
 * packing) is in pointwise.cuh.
 *
 * NVTX ranges (the lesson's interface; lesson.yaml lists them; * = made by common/wb_steps.c):
 *   step *        one measured step, ending with its synchronize
 *   mlp_fwd       the block's forward                              (eager, fused, merged)
 *   gate_proj     g = x @ Wg^T                                     (eager, fused)
 *   up_proj       u = x @ Wu^T                                     (eager, fused)
 *   gate_up_proj  [g | u] = x @ [Wg; Wu]^T, one GEMM                (merged)
 *   gelu          the k_gelu launch                           (eager)
 *   mul           the k_mul launch                            (eager)
 *   gelu_mul      the k_gelu_mul launch                       (fused, merged)
 *   down_proj     y = h @ Wd^T                                     (eager, fused, merged)
 *   graph_launch * the cudaGraphLaunch call                        (graph)
 *   sync *        the cudaDeviceSynchronize that ends every step
 *
 * Exit status: 0 when the output matches the CPU reference, 1 on a CUDA or cuBLAS error or a
 * wrong result, 2 on bad usage.
 */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <nvtx3/nvToolsExt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pointwise.cuh" /* bf16 and the pointwise launchers (pointwise.cu) */
#include "wb_activations.h"
#include "wb_args.h"
#include "wb_bf16.h"
#include "wb_check.h"
#include "wb_compare.h"
#include "wb_lesson.h"
#include "wb_random.h"
#include "wb_timing.h"
#include "wb_upload.h"

#define CHECK_ROWS 32               /* tokens compared with the double-precision CPU reference */
/* bf16 at every stage: g, u, h and y (and gelu(g) in eager) are each rounded by up to 2^-8 of
 * themselves; a CPU simulation of that rounding gives 3.5e-3 (fused) and 3.9e-3 (eager). */
#define TOLERANCE 1e-2

/* The pointwise kernels (k_gelu, k_mul, k_gelu_mul) and their launchers are in
 * pointwise.cu; pointwise.cuh declares them. */

/* ---- host launchers ------------------------------------------------------------------------- */

/*
 * y (m, n) = x (m, k) @ W^T, W stored (n, k) like nn.Linear: nn.Linear without bias.
 * Column-major cuBLAS computes y^T = W @ x^T (lesson 01's operand swap); W's bytes read
 * column-major are W^T, hence CUBLAS_OP_T on it (lesson 02's transpose flag: a "TN" GEMM).
 * What cuBLAS calls on the host around its kernel (the series saw an occupancy query,
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor, before every GEMM on an A100) is its own
 * choice; lesson.yaml's gemm-host-calls asks what it does on this GPU.
 */
static int linear_nobias(cublasHandle_t cublas, bf16 *y, const bf16 *x, const bf16 *w, int m, int k, int n) {
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(cublas, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, w, CUDA_R_16BF, k, x,
                              CUDA_R_16BF, k, &beta, y, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
    return WB_OK;
}

/* ---- the lesson's state --------------------------------------------------------------------- */

typedef enum { VARIANT_EAGER, VARIANT_FUSED, VARIANT_MERGED, VARIANT_GRAPH } variant;

typedef struct {
    variant v;
    int batch, seq;             /* --batch, --seq */
    int tokens, dim, hidden;    /* tokens = batch * seq; --dim, --hidden */
    bf16 *x;                    /* (tokens, dim) input */
    bf16 *w_gate_up;            /* (2 * hidden, dim): Wg in rows [0, hidden), Wu in rows [hidden, 2 * hidden) */
    bf16 *w_gate, *w_up;        /* (hidden, dim) each: the two halves of w_gate_up, not copies */
    bf16 *w_down;               /* (dim, hidden) */
    bf16 *g, *u;                /* (tokens, hidden) each: gate_proj and up_proj outputs (eager, fused) */
    bf16 *gu;                   /* (tokens, 2 * hidden): [g | u] per token (merged, graph) */
    bf16 *a;                    /* (tokens, hidden): gelu(g) (eager only) */
    bf16 *h;                    /* (tokens, hidden): gelu(g) * u */
    bf16 *y;                    /* (tokens, dim) output */
    float *x_host, *w_gate_up_host, *w_down_host; /* inputs on the host, rounded to bf16 */
    uint16_t *x_bits, *w_gate_up_bits, *w_down_bits; /* the same as bf16 bits, what is uploaded */
    double *y_ref;              /* (CHECK_ROWS, dim): y of the sampled tokens, computed on the CPU */
    cublasHandle_t cublas;      /* on stream, with its workspace (common/wb_lesson.c) */
    cudaStream_t stream;
} lesson;

static int cpu_reference(lesson *L);

/* The host's work, on the frame's second thread while CUDA and cuBLAS start (no CUDA call here):
 * the random inputs, rounded to bf16, and the CPU reference of the sampled tokens. About 0.7 s of
 * one core at the series' shape; the fills, the encoding and the reference each spread over every
 * core (common/wb_parallel.h, the same values on any number), so the start-up need not wait. */
static int lesson_prepare(void *ctx, unsigned long long seed) {
    lesson *L = (lesson *)ctx;
    int tokens = L->tokens = L->batch * L->seq, dim = L->dim, hidden = L->hidden;
    size_t nx = (size_t)tokens * dim, nwgu = (size_t)2 * hidden * dim, nwd = (size_t)dim * hidden;
    L->x_host = (float *)malloc(nx * sizeof(float));
    L->w_gate_up_host = (float *)malloc(nwgu * sizeof(float));
    L->w_down_host = (float *)malloc(nwd * sizeof(float));
    L->x_bits = (uint16_t *)malloc(nx * sizeof(uint16_t));
    L->w_gate_up_bits = (uint16_t *)malloc(nwgu * sizeof(uint16_t));
    L->w_down_bits = (uint16_t *)malloc(nwd * sizeof(uint16_t));
    if (!L->x_host || !L->w_gate_up_host || !L->w_down_host || !L->x_bits || !L->w_gate_up_bits || !L->w_down_bits) {
        fprintf(stderr, "out of host memory\n");
        return WB_FAIL;
    }
    /* x ~ N(0, 1); weights uniform with variance 1/fan_in, so g, u and y come out near unit
     * scale and gelu sees both its curved part and its linear part. */
    wb_rng rng;
    wb_rng_seed(&rng, seed);
    float bound_in = sqrtf(3.0f / (float)dim), bound_hidden = sqrtf(3.0f / (float)hidden);
    wb_fill_normal(L->x_host, nx, &rng, 1.0f);
    wb_fill_uniform(L->w_gate_up_host, nwgu, &rng, -bound_in, bound_in);
    wb_fill_uniform(L->w_down_host, nwd, &rng, -bound_hidden, bound_hidden);
    wb_bf16_encode(L->x_bits, L->x_host, nx); /* the host copies now hold exactly what the GPU gets */
    wb_bf16_encode(L->w_gate_up_bits, L->w_gate_up_host, nwgu);
    wb_bf16_encode(L->w_down_bits, L->w_down_host, nwd);
    return cpu_reference(L);
}

static int lesson_init(void *ctx, wb_lesson_run *run) {
    lesson *L = (lesson *)ctx;
    L->v = (variant)run->variant;
    L->cublas = run->cublas;
    L->stream = run->stream;
    int tokens = L->tokens, dim = L->dim, hidden = L->hidden;
    size_t nx = (size_t)tokens * dim, nwgu = (size_t)2 * hidden * dim, nwd = (size_t)dim * hidden;
    size_t nth = (size_t)tokens * hidden;
    CUDA_CHECK(cudaMalloc((void **)&L->x, nx * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->w_gate_up, nwgu * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->w_down, nwd * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->g, nth * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->u, nth * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->gu, 2 * nth * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->a, nth * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->h, nth * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->y, nx * sizeof(bf16)));
    L->w_gate = L->w_gate_up;
    L->w_up = L->w_gate_up + (size_t)hidden * dim;
    CUDA_CHECK(cudaMemcpy(L->x, L->x_bits, nx * sizeof(bf16), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(L->w_gate_up, L->w_gate_up_bits, nwgu * sizeof(bf16), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(L->w_down, L->w_down_bits, nwd * sizeof(bf16), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(L->h, 0xFF, nth * sizeof(bf16))); /* NaN until written */
    CUDA_CHECK(cudaMemset(L->y, 0xFF, nx * sizeof(bf16)));
    return WB_OK;
}

static void lesson_free(void *ctx) {
    lesson *L = (lesson *)ctx;
    cudaFree(L->x);
    cudaFree(L->w_gate_up);
    cudaFree(L->w_down);
    cudaFree(L->g);
    cudaFree(L->u);
    cudaFree(L->gu);
    cudaFree(L->a);
    cudaFree(L->h);
    cudaFree(L->y);
    free(L->x_host);
    free(L->w_gate_up_host);
    free(L->w_down_host);
    free(L->x_bits);
    free(L->w_gate_up_bits);
    free(L->w_down_bits);
    free(L->y_ref);
}

/* ---- one step ------------------------------------------------------------------------------- */

/* Runs one launcher call inside an NVTX range named after the operation. */
#define RANGE(name, call)                                                                          \
    do {                                                                                           \
        nvtxRangePushA(name);                                                                      \
        int range_rc_ = (call);                                                                    \
        nvtxRangePop();                                                                            \
        if (range_rc_ != WB_OK) return WB_FAIL;                                                    \
    } while (0)

static int mlp_forward(lesson *L, variant v) {
    int T = L->tokens, D = L->dim, H = L->hidden;
    cudaStream_t s = L->stream;
    switch (v) {
    case VARIANT_EAGER:
        RANGE("gate_proj", linear_nobias(L->cublas, L->g, L->x, L->w_gate, T, D, H));
        RANGE("up_proj", linear_nobias(L->cublas, L->u, L->x, L->w_up, T, D, H));
        RANGE("gelu", gelu_launch(L->a, L->g, (size_t)T * H, s));
        RANGE("mul", mul_launch(L->h, L->a, L->u, (size_t)T * H, s));
        RANGE("down_proj", linear_nobias(L->cublas, L->y, L->h, L->w_down, T, H, D));
        return WB_OK;
    case VARIANT_FUSED:
        RANGE("gate_proj", linear_nobias(L->cublas, L->g, L->x, L->w_gate, T, D, H));
        RANGE("up_proj", linear_nobias(L->cublas, L->u, L->x, L->w_up, T, D, H));
        RANGE("gelu_mul", gelu_mul_launch(L->h, H, L->g, L->u, H, T, H, s));
        RANGE("down_proj", linear_nobias(L->cublas, L->y, L->h, L->w_down, T, H, D));
        return WB_OK;
    case VARIANT_MERGED:
    case VARIANT_GRAPH: /* the graph holds the merged step */
        RANGE("gate_up_proj", linear_nobias(L->cublas, L->gu, L->x, L->w_gate_up, T, D, 2 * H));
        RANGE("gelu_mul", gelu_mul_launch(L->h, H, L->gu, L->gu + H, 2 * H, T, H, s));
        RANGE("down_proj", linear_nobias(L->cublas, L->y, L->h, L->w_down, T, H, D));
        return WB_OK;
    }
    return WB_FAIL;
}

/* What wb_step_run calls each step, and what wb_step_capture records once (nothing runs while
 * capturing) in the graph variant: the merged forward. */
static int forward(void *ctx) {
    lesson *L = (lesson *)ctx;
    nvtxRangePushA("mlp_fwd");
    int rc = mlp_forward(L, L->v == VARIANT_GRAPH ? VARIANT_MERGED : L->v);
    nvtxRangePop();
    return rc;
}

/* ---- checking ------------------------------------------------------------------------------- */

/* y of CHECK_ROWS tokens, spread from the first to the last, computed in double from the same
 * bf16 inputs (no rounding in between), into L->y_ref. The weights are used as stored, (out, in)
 * like nn.Linear (wb_cpu_matmul_nt): no transposed copies. */
static int cpu_reference(lesson *L) {
    int T = L->tokens, D = L->dim, H = L->hidden;
    int rows = T < CHECK_ROWS ? T : CHECK_ROWS;
    float *x_rows = (float *)malloc((size_t)rows * D * sizeof(float));
    double *g = (double *)malloc((size_t)rows * H * sizeof(double));
    double *u = (double *)malloc((size_t)rows * H * sizeof(double));
    float *h = (float *)malloc((size_t)rows * H * sizeof(float));
    L->y_ref = (double *)malloc((size_t)rows * D * sizeof(double));
    int rc = WB_FAIL;
    if (!x_rows || !g || !u || !h || !L->y_ref) {
        fprintf(stderr, "out of host memory for the check\n");
        goto done;
    }
    wb_gather_sampled_rows(x_rows, L->x_host, T, D, rows);
    wb_cpu_matmul_nt(g, x_rows, L->w_gate_up_host, rows, H, D);
    wb_cpu_matmul_nt(u, x_rows, L->w_gate_up_host + (size_t)H * D, rows, H, D);
    for (size_t i = 0; i < (size_t)rows * H; i++) h[i] = (float)(wb_gelu_tanh(g[i]) * u[i]);
    wb_cpu_matmul_nt(L->y_ref, h, L->w_down_host, rows, D, H);
    rc = WB_OK;
done:
    free(x_rows);
    free(g);
    free(u);
    free(h);
    return rc;
}

/* Compares the sampled tokens of y with the CPU reference made before the steps. */
static int check_result(const void *ctx) {
    const lesson *L = (const lesson *)ctx;
    int T = L->tokens, D = L->dim;
    int rows = T < CHECK_ROWS ? T : CHECK_ROWS;
    float *out = (float *)malloc((size_t)rows * D * sizeof(float));
    int rc = WB_FAIL;
    if (!out) fprintf(stderr, "out of host memory for the check\n");
    else if (wb_download_sampled_rows_bf16(out, L->y, T, D, rows) == WB_OK)
        rc = wb_check_close("y = mlp(x)", out, L->y_ref, (size_t)rows * D, TOLERANCE) == 0 ? WB_OK : WB_FAIL;
    free(out);
    return rc;
}

/* ---- cost model ----------------------------------------------------------------------------- */

/* The least each variant must move through HBM (every tensor read or written once per kernel
 * that touches it, 2 bytes per bf16) and the arithmetic it must do: the floors the README's
 * table divides measured times by. */
static double gemm_bytes(double m, double k, double n) { return 2.0 * (m * k + n * k + m * n); }

static double variant_bytes(variant v, int tokens, int dim, int hidden) {
    double T = tokens, D = dim, H = hidden;
    double down = gemm_bytes(T, H, D), pointwise3 = 2.0 * 3 * T * H;
    switch (v) {
    case VARIANT_EAGER: return 2 * gemm_bytes(T, D, H) + 2.0 * 2 * T * H + pointwise3 + down;
    case VARIANT_FUSED: return 2 * gemm_bytes(T, D, H) + pointwise3 + down;
    case VARIANT_MERGED:
    case VARIANT_GRAPH: return gemm_bytes(T, D, 2 * H) + pointwise3 + down;
    }
    return 0.0;
}

static double mlp_flop(int tokens, int dim, int hidden) { return 3.0 * 2.0 * tokens * (double)dim * hidden; }

/* ---- main ----------------------------------------------------------------------------------- */

/* The run's shape, in the header line; the RESULT line adds the cost model's floors. */
static void describe(const void *ctx, char *words, size_t cap) {
    const lesson *L = (const lesson *)ctx;
    snprintf(words, cap, "tokens %d (batch %d x seq %d), dim %d, hidden %d", L->batch * L->seq, L->batch, L->seq,
             L->dim, L->hidden);
}

static void report(const void *ctx, const wb_steps *timed, wb_result *r) {
    const lesson *L = (const lesson *)ctx;
    double bytes = variant_bytes(L->v, L->tokens, L->dim, L->hidden), flop = mlp_flop(L->tokens, L->dim, L->hidden);
    double gpu_med = wb_median(timed->span_us, timed->n);
    printf("per step: %.1f GFLOP, at least %.1f MB through HBM; at the median GPU span: %.1f TFLOP/s, %.0f GB/s\n",
           flop * 1e-9, bytes * 1e-6, flop / gpu_med * 1e-6, bytes / gpu_med * 1e-3);
    wb_result_add(r, "tokens=%d dim=%d hidden=%d", L->tokens, L->dim, L->hidden);
    wb_result_steps(r, timed);
    wb_result_host_times(r, timed);
    wb_result_add(r, "bytes=%.0f flop=%.0f", bytes, flop);
}

static const char *validate(const void *ctx) {
    const lesson *L = (const lesson *)ctx;
    long long tokens = (long long)L->batch * L->seq;
    if (tokens > (1ll << 24) || tokens * 2 * L->hidden > (1ll << 31) || tokens * L->dim > (1ll << 31) ||
        2ll * L->hidden * L->dim > (1ll << 31))
        return "shapes too large (each matrix must stay under 2^31 elements)";
    return NULL;
}

int main(int argc, char **argv) {
    lesson L = {};
    L.batch = 64; /* the series: --batch 64 --seq 128 --dim 768 --hidden 3072 */
    L.seq = 128;
    L.dim = 768;
    L.hidden = 3072;
    const wb_opt options[] = {
        WB_INT_HELP("batch", &L.batch, 1, 1 << 20, "B", "sequences; tokens = batch * seq"),
        WB_INT_HELP("seq", &L.seq, 1, 1 << 20, "S", "tokens per sequence"),
        WB_INT_HELP("dim", &L.dim, 1, 1 << 16, "D", "model width"),
        WB_INT_HELP("hidden", &L.hidden, 1, 1 << 16, "H", "intermediate width"),
    };
    static const char *const variants[] = {"eager", "fused", "merged", "graph", NULL};

    wb_lesson_spec spec = {};
    spec.name = "03_mlp";
    spec.variants = variants;
    spec.variant_help = "eager: 3 GEMMs + gelu + mul kernels; fused: 3 GEMMs + one gelu*mul kernel;\n"
                        "merged: gate and up in one GEMM + the fused kernel; graph: the merged\n"
                        "step replayed from a CUDA graph";
    spec.graph_variant = "graph";
    spec.options = options;
    spec.n_options = 4;
    spec.steps = 20; /* lesson.yaml uses 3 */
    spec.warmup = 5;
    spec.gpu = WB_GPU_CUBLAS;
    spec.fns = {lesson_init, forward, NULL, check_result, describe, report, lesson_free, lesson_prepare};
    spec.validate = validate;
    return wb_lesson_main(&spec, &L, argc, argv);
}
