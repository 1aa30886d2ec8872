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
 * Program order: setup (handle, workspace, inputs), warm-up steps (cuBLAS heuristics, module
 * loading, graph upload happen there), then --steps measured steps between cudaProfilerStart and
 * cudaProfilerStop, then a CPU reference check of sampled rows. A step (wb_step_run,
 * common/wb_steps.c) is forward() below or one replay of its graph, then cudaDeviceSynchronize.
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
#include <getopt.h>
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
#include "wb_random.h"
#include "wb_steps.h"
#include "wb_timing.h"
#include "wb_upload.h"

#define WORKSPACE_BYTES (32u << 20) /* cuBLAS scratch: ours, so graph capture works */
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
static const char *variant_names[] = {"eager", "fused", "merged", "graph"};

typedef struct {
    variant v;
    int tokens, dim, hidden;    /* tokens = batch * seq */
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
    void *workspace;
    cublasHandle_t cublas;
    cudaStream_t stream;
} lesson;


static int lesson_init(lesson *L, variant v, int tokens, int dim, int hidden, uint64_t seed) {
    memset(L, 0, sizeof *L);
    L->v = v;
    L->tokens = tokens;
    L->dim = dim;
    L->hidden = hidden;
    size_t nx = (size_t)tokens * dim, nwgu = (size_t)2 * hidden * dim, nwd = (size_t)dim * hidden;
    size_t nth = (size_t)tokens * hidden;
    L->x_host = (float *)malloc(nx * sizeof(float));
    L->w_gate_up_host = (float *)malloc(nwgu * sizeof(float));
    L->w_down_host = (float *)malloc(nwd * sizeof(float));
    if (!L->x_host || !L->w_gate_up_host || !L->w_down_host) {
        fprintf(stderr, "out of host memory\n");
        return WB_FAIL;
    }
    CUDA_CHECK(cudaMalloc((void **)&L->x, nx * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->w_gate_up, nwgu * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->w_down, nwd * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->g, nth * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->u, nth * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->gu, 2 * nth * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->a, nth * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->h, nth * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->y, nx * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc(&L->workspace, WORKSPACE_BYTES));
    L->w_gate = L->w_gate_up;
    L->w_up = L->w_gate_up + (size_t)hidden * dim;

    /* x ~ N(0, 1); weights uniform with variance 1/fan_in, so g, u and y come out near unit
     * scale and gelu sees both its curved part and its linear part. */
    wb_rng rng;
    wb_rng_seed(&rng, seed);
    float bound_in = sqrtf(3.0f / (float)dim), bound_hidden = sqrtf(3.0f / (float)hidden);
    wb_fill_normal(L->x_host, nx, &rng, 1.0f);
    wb_fill_uniform(L->w_gate_up_host, nwgu, &rng, -bound_in, bound_in);
    wb_fill_uniform(L->w_down_host, nwd, &rng, -bound_hidden, bound_hidden);
    WB_TRY(wb_upload_bf16(L->x, L->x_host, nx));
    WB_TRY(wb_upload_bf16(L->w_gate_up, L->w_gate_up_host, nwgu));
    WB_TRY(wb_upload_bf16(L->w_down, L->w_down_host, nwd));
    CUDA_CHECK(cudaMemset(L->h, 0xFF, nth * sizeof(bf16))); /* NaN until written */
    CUDA_CHECK(cudaMemset(L->y, 0xFF, nx * sizeof(bf16)));

    CUDA_CHECK(cudaStreamCreateWithFlags(&L->stream, cudaStreamNonBlocking));
    CUBLAS_CHECK(cublasCreate(&L->cublas));
    CUBLAS_CHECK(cublasSetStream(L->cublas, L->stream));
    CUBLAS_CHECK(cublasSetWorkspace(L->cublas, L->workspace, WORKSPACE_BYTES));
    /* The uploads and memsets above ran on the legacy default stream, which our non-blocking
     * stream does not wait for: finish them before the first step. */
    CUDA_CHECK(cudaDeviceSynchronize());
    return WB_OK;
}

static void lesson_free(lesson *L) {
    if (L->cublas) cublasDestroy(L->cublas);
    if (L->stream) cudaStreamDestroy(L->stream);
    cudaFree(L->x);
    cudaFree(L->w_gate_up);
    cudaFree(L->w_down);
    cudaFree(L->g);
    cudaFree(L->u);
    cudaFree(L->gu);
    cudaFree(L->a);
    cudaFree(L->h);
    cudaFree(L->y);
    cudaFree(L->workspace);
    free(L->x_host);
    free(L->w_gate_up_host);
    free(L->w_down_host);
    memset(L, 0, sizeof *L);
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

static int forward(lesson *L, variant v) {
    nvtxRangePushA("mlp_fwd");
    int rc = mlp_forward(L, v);
    nvtxRangePop();
    return rc;
}

/* What wb_step_run calls each step, and what wb_step_capture records once (nothing runs while
 * capturing) in the graph variant: the merged forward. */
static int step_forward(void *ctx) {
    lesson *L = (lesson *)ctx;
    return forward(L, L->v == VARIANT_GRAPH ? VARIANT_MERGED : L->v);
}

/* ---- checking ------------------------------------------------------------------------------- */

/* out (rows, cols) = w^T for a row-major w (cols, rows): the CPU reference wants (k, n). */
static void transpose_host(float *out, const float *w, int rows, int cols) {
    for (int i = 0; i < cols; i++)
        for (int j = 0; j < rows; j++) out[(size_t)j * cols + i] = w[(size_t)i * rows + j];
}

/* Compares CHECK_ROWS tokens of y, spread from the first to the last, with the MLP computed in
 * double from the same bf16 inputs (no rounding in between). */
static int check_result(const lesson *L) {
    int T = L->tokens, D = L->dim, H = L->hidden;
    int rows = T < CHECK_ROWS ? T : CHECK_ROWS;
    uint16_t *bits = (uint16_t *)malloc((size_t)D * sizeof *bits);
    float *x_rows = (float *)malloc((size_t)rows * D * sizeof(float));
    float *wg_t = (float *)malloc((size_t)D * H * sizeof(float));
    float *wu_t = (float *)malloc((size_t)D * H * sizeof(float));
    float *wd_t = (float *)malloc((size_t)H * D * sizeof(float));
    double *g = (double *)malloc((size_t)rows * H * sizeof(double));
    double *u = (double *)malloc((size_t)rows * H * sizeof(double));
    float *h = (float *)malloc((size_t)rows * H * sizeof(float));
    double *ref = (double *)malloc((size_t)rows * D * sizeof(double));
    float *out = (float *)malloc((size_t)rows * D * sizeof(float));
    int rc = WB_FAIL;
    if (!bits || !x_rows || !wg_t || !wu_t || !wd_t || !g || !u || !h || !ref || !out) {
        fprintf(stderr, "out of host memory for the check\n");
        goto done;
    }
    for (int r = 0; r < rows; r++) {
        int row = rows > 1 ? (int)((long long)r * (T - 1) / (rows - 1)) : 0;
        cudaError_t err = cudaMemcpy(bits, L->y + (size_t)row * D, (size_t)D * sizeof *bits,
                                     cudaMemcpyDeviceToHost);
        if (err != cudaSuccess) {
            fprintf(stderr, "copying y back failed: %s\n", cudaGetErrorString(err));
            goto done;
        }
        wb_bf16_decode(out + (size_t)r * D, bits, (size_t)D);
        memcpy(x_rows + (size_t)r * D, L->x_host + (size_t)row * D, (size_t)D * sizeof(float));
    }
    transpose_host(wg_t, L->w_gate_up_host, D, H);
    transpose_host(wu_t, L->w_gate_up_host + (size_t)H * D, D, H);
    transpose_host(wd_t, L->w_down_host, H, D);
    wb_cpu_matmul(g, x_rows, wg_t, rows, H, D);
    wb_cpu_matmul(u, x_rows, wu_t, rows, H, D);
    for (size_t i = 0; i < (size_t)rows * H; i++) h[i] = (float)(wb_gelu_tanh(g[i]) * u[i]);
    wb_cpu_matmul(ref, h, wd_t, rows, D, H);
    rc = wb_check_close("y = mlp(x)", out, ref, (size_t)rows * D, TOLERANCE) == 0 ? WB_OK : WB_FAIL;
done:
    free(bits);
    free(x_rows);
    free(wg_t);
    free(wu_t);
    free(wd_t);
    free(g);
    free(u);
    free(h);
    free(ref);
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

static void usage(const char *prog) {
    fprintf(stderr,
            "usage: %s [--variant eager|fused|merged|graph] [--batch B] [--seq S] [--dim D]\n"
            "          [--hidden H] [--steps N] [--warmup W] [--seed X]\n"
            "  --variant  eager: 3 GEMMs + gelu + mul kernels; fused: 3 GEMMs + one gelu*mul kernel;\n"
            "             merged: gate and up in one GEMM + the fused kernel; graph: the merged\n"
            "             step replayed from a CUDA graph (default eager)\n"
            "  --batch, --seq   tokens = batch * seq (default 64 * 128)\n"
            "  --dim      model width (default 768)\n"
            "  --hidden   intermediate width (default 3072)\n"
            "  --steps    measured steps (default 20); --warmup unmeasured steps first (default 5)\n",
            prog);
}


static int run(variant v, int batch, int seq, int dim, int hidden, int steps, int warmup, uint64_t seed) {
    lesson L;
    wb_step step = {0};   /* one step: forward() eagerly, or (graph) one replay of its capture */
    wb_steps timed = {0}; /* the measured steps' events and times */
    int tokens = batch * seq;
    int rc = WB_FAIL;

    if (lesson_init(&L, v, tokens, dim, hidden, seed) != WB_OK) goto done;
    wb_step_init(&step, L.stream, step_forward, &L);
    if (v == VARIANT_GRAPH) {
        /* One uncaptured merged step first: cuBLAS heuristics and module loading stay outside
         * the capture. */
        if (wb_step_run(&step, NULL, NULL, NULL) != WB_OK || wb_step_capture(&step) != WB_OK) goto done;
    }
    if (wb_steps_measure(&timed, &step, warmup, steps) != WB_OK) goto done;

    printf("lesson 03_mlp: variant %s, tokens %d (batch %d x seq %d), dim %d, hidden %d, %d measured steps\n",
           variant_names[v], tokens, batch, seq, dim, hidden, steps);
    if (check_result(&L) != WB_OK) {
        fprintf(stderr, "FAIL: y differs from the CPU reference\n");
        goto done;
    }
    {
        double bytes = variant_bytes(v, tokens, dim, hidden), flop = mlp_flop(tokens, dim, hidden);
        double gpu_med = wb_median(timed.gpu_us, steps);
        wb_steps_print(&timed);
        printf("per step: %.1f GFLOP, at least %.1f MB through HBM; at the median: %.1f TFLOP/s, %.0f GB/s\n",
               flop * 1e-9, bytes * 1e-6, flop / gpu_med * 1e-6, bytes / gpu_med * 1e-3);
        printf("RESULT lesson=03_mlp variant=%s tokens=%d dim=%d hidden=%d steps=%d gpu_us=%.2f "
               "wall_us=%.2f launch_us=%.2f sync_us=%.2f bytes=%.0f flop=%.0f\n",
               variant_names[v], tokens, dim, hidden, steps, gpu_med, wb_median(timed.wall_us, steps),
               wb_median(timed.launch_us, steps), wb_median(timed.sync_us, steps), bytes, flop);
    }
    rc = WB_OK;
done:
    wb_steps_free(&timed);
    wb_step_free(&step);
    lesson_free(&L);
    return rc;
}

int main(int argc, char **argv) {
    const char *variant_name = "eager"; /* eager | fused | merged | graph */
    int batch = 64;                     /* the series: --batch 64 --seq 128 --dim 768 --hidden 3072 */
    int seq = 128;
    int dim = 768;
    int hidden = 3072;
    int steps = 20;                     /* measured steps; lesson.yaml uses 3 */
    int warmup = 5;                     /* unmeasured steps first */
    int seed = 1;                       /* random inputs */

    static const struct option options[] = {
        {"variant", required_argument, NULL, 'v'}, {"batch", required_argument, NULL, 'b'},
        {"seq", required_argument, NULL, 'q'},     {"dim", required_argument, NULL, 'd'},
        {"hidden", required_argument, NULL, 'H'},  {"steps", required_argument, NULL, 's'},
        {"warmup", required_argument, NULL, 'w'},  {"seed", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt, idx = 0;
    while ((opt = getopt_long(argc, argv, "h", options, &idx)) != -1) {
        int bad = 0;
        switch (opt) {
        case 'v': variant_name = optarg; break;
        case 'b': bad = wb_parse_int(optarg, 1, 1 << 20, &batch); break;
        case 'q': bad = wb_parse_int(optarg, 1, 1 << 20, &seq); break;
        case 'd': bad = wb_parse_int(optarg, 1, 1 << 16, &dim); break;
        case 'H': bad = wb_parse_int(optarg, 1, 1 << 16, &hidden); break;
        case 's': bad = wb_parse_int(optarg, 1, 100000, &steps); break;
        case 'w': bad = wb_parse_int(optarg, 0, 100000, &warmup); break;
        case 'r': bad = wb_parse_int(optarg, 0, 1 << 30, &seed); break;
        case 'h': usage(argv[0]); return 0;
        default: usage(argv[0]); return 2;
        }
        if (bad) {
            fprintf(stderr, "%s: bad value '%s' for --%s\n", argv[0], optarg, options[idx].name);
            usage(argv[0]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[optind]);
        usage(argv[0]);
        return 2;
    }
    long long tokens = (long long)batch * seq;
    if (tokens > (1ll << 24) || tokens * 2 * hidden > (1ll << 31) || tokens * dim > (1ll << 31) ||
        2ll * hidden * dim > (1ll << 31)) {
        fprintf(stderr, "%s: shapes too large (each matrix must stay under 2^31 elements)\n", argv[0]);
        return 2;
    }
    int v = -1;
    for (int i = 0; i < 4; i++)
        if (strcmp(variant_name, variant_names[i]) == 0) v = i;
    if (v < 0) {
        fprintf(stderr, "%s: unknown variant '%s'\n", argv[0], variant_name);
        usage(argv[0]);
        return 2;
    }
    return run((variant)v, batch, seq, dim, hidden, steps, warmup, (uint64_t)seed) == WB_OK
               ? EXIT_SUCCESS : EXIT_FAILURE;
}
