/*
 * Lesson 02: y = x @ W^T + b, what nn.Linear(in_dim, out_dim, bias=True) runs.
 *
 * W is stored (out_dim, in_dim), as nn.Linear stores it, so the layer needs W^T. PyTorch makes
 * W^T with aten::t, a view: new shape and strides over the same bytes, no copy and no kernel. We
 * do the same with a small view struct (mat_view below), and the GEMM reads the view's strides to
 * choose a cuBLAS operation flag. All data is row-major bf16; GEMMs accumulate in fp32.
 *
 *     lesson_02_linear [--variant separate|epilogue|graph] [--batch B] [--in_dim K] [--out_dim N]
 *                      [--steps S] [--warmup W]
 *
 * Variants
 *   separate  cublasGemmEx with the transpose flag, then our bias kernel: two kernels, and y goes
 *             to memory and comes back once more to have b added.
 *   epilogue  one cublasLtMatmul with CUBLASLT_EPILOGUE_BIAS: the GEMM adds b just before it
 *             writes y (its "epilogue"), so one kernel. This is what PyTorch's addmm does.
 *   graph     the epilogue step captured once into a CUDA graph; one cudaGraphLaunch per step.
 *
 * Program order (common/wb_lesson.c, every lesson's frame): setup (handles, workspace; beside them,
 * on a second thread, the random inputs; then the uploads and the cuBLASLt plan: descriptors and
 * algorithm chosen once), warm-up steps, then --steps measured steps between cudaProfilerStart
 * and cudaProfilerStop, then a CPU reference check. A step (wb_step_run, common/wb_steps.c) is
 * forward() below or one replay of its graph, then cudaDeviceSynchronize.
 *
 * NVTX ranges (the lesson's interface; lesson.yaml lists them; * = made by common/wb_steps.c):
 *   step *        one measured step, ending with its synchronize
 *   linear        the layer's forward                             (separate, epilogue)
 *   transpose     making the W^T view: no kernel, no copy, no CUDA call (separate, epilogue)
 *   matmul        the cublasGemmEx call                          (separate)
 *   bias_add      the k_bias_add launch                     (separate)
 *   matmul_bias   the cublasLtMatmul call with the bias epilogue (epilogue)
 *   graph_launch * the cudaGraphLaunch call                      (graph)
 *   sync *        the cudaDeviceSynchronize that ends every step
 *
 * Exit status: 0 when y matches the CPU reference, 1 on a CUDA or cuBLAS error or a wrong result,
 * 2 on bad usage.
 */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math.h>
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

#define CHECK_ROWS 32     /* rows of y compared with the double-precision CPU reference */
#define TOLERANCE 1e-2    /* bf16 output, rounded twice in separate: expect near 2.5e-3 */

/* ---- kernels -------------------------------------------------------------------------------- */

/*
 * y (rows, cols) += b (cols), in place. In the separate variant this is the second trip of y
 * through memory (read and write again) that the epilogue avoids: 4 bytes per element.
 *
 * Written to stream at the copy bandwidth (lesson 01's k_bias_add, in place): chunks of 8
 * consecutive elements of a row as 16-byte loads and stores, a grid of a few blocks per SM
 * striding over all chunks, the column of a chunk a 32-bit remainder once per 8 elements. That
 * needs cols % 8 == 0 and 16-byte aligned arrays; other shapes (the tests' odd sizes) take the
 * element-by-element path, correct but slower.
 */
__global__ void __launch_bounds__(256) k_bias_add(bf16 *y, const bf16 *b, int rows, int cols, int vectorized) {
    size_t stride = (size_t)gridDim.x * blockDim.x, first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (vectorized) {
        unsigned chunks_per_row = (unsigned)cols / 8, chunks = (unsigned)rows * chunks_per_row;
        for (unsigned c = (unsigned)first; c < chunks; c += (unsigned)stride) {
            float fy[8], fb[8];
            unpack_bf16x8(reinterpret_cast<const uint4 *>(y)[c], fy);
            unpack_bf16x8(reinterpret_cast<const uint4 *>(b)[c % chunks_per_row], fb);
#pragma unroll
            for (int j = 0; j < 8; j++) fy[j] += fb[j];
            reinterpret_cast<uint4 *>(y)[c] = pack_bf16x8(fy);
        }
        return;
    }
    for (size_t i = first; i < (size_t)rows * cols; i += stride)
        y[i] = __float2bfloat16(__bfloat162float(y[i]) + __bfloat162float(b[i % (size_t)cols]));
}

/* ---- views ---------------------------------------------------------------------------------- */

/* A matrix as PyTorch sees a tensor: a data pointer plus shape and strides, in elements. A view
 * changes these numbers, never the data. Row-major (rows, cols): strides (cols, 1). */
typedef struct {
    const bf16 *data;
    int rows, cols;
    long long row_stride; /* elements from one row to the next */
    long long col_stride; /* elements from one column to the next */
} mat_view;

static mat_view mat_rowmajor(const bf16 *data, int rows, int cols) {
    mat_view m;
    m.data = data;
    m.rows = rows;
    m.cols = cols;
    m.row_stride = cols;
    m.col_stride = 1;
    return m;
}

/* The transpose as a view, like aten::t: swap the shape and the strides. Host arithmetic on
 * four numbers; the GPU never hears of it. */
static mat_view mat_t(mat_view m) {
    mat_view t = m;
    t.rows = m.cols;
    t.cols = m.rows;
    t.row_stride = m.col_stride;
    t.col_stride = m.row_stride;
    return t;
}

/*
 * y (M, N) = x (M, K) @ B (K, N), row-major x and y, B any view with one unit stride.
 *
 * Lesson 01 explains the swap: column-major cuBLAS computes y^T = B^T @ x^T, with B^T as its
 * first operand. How B's bytes look to column-major cuBLAS decides the operation flag:
 *   - B row-major (col_stride 1): its bytes read column-major are B^T already: CUBLAS_OP_N,
 *     leading dimension row_stride;
 *   - B a transposed view (row_stride 1), e.g. W^T of a row-major W: its bytes read column-major
 *     are B itself, so cuBLAS must transpose it while reading: CUBLAS_OP_T, leading dimension
 *     col_stride.
 * This is the choice PyTorch's dispatcher makes from strides; the kernel cuBLAS then runs is a
 * precompiled one for that layout, and its name says which (the letters at its end).
 */
static int view_operand(mat_view B, cublasOperation_t *op, int *ld) {
    if (B.col_stride == 1 && B.row_stride >= B.cols) {
        *op = CUBLAS_OP_N;
        *ld = (int)B.row_stride;
    } else if (B.row_stride == 1 && B.col_stride >= B.rows) {
        *op = CUBLAS_OP_T;
        *ld = (int)B.col_stride;
    } else {
        fprintf(stderr, "view_operand: strides (%lld, %lld) need a copy; this lesson has none\n",
                B.row_stride, B.col_stride);
        return WB_FAIL;
    }
    return WB_OK;
}

/* ---- host launchers ------------------------------------------------------------------------- */

/* y (m, n) = x (m, k) @ B (k, n) through cublasGemmEx; see view_operand for the flags. */
static int matmul_view(cublasHandle_t cublas, bf16 *y, const bf16 *x, int m, mat_view B) {
    cublasOperation_t op;
    int ld;
    WB_TRY(view_operand(B, &op, &ld));
    int k = B.rows, n = B.cols;
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(cublas, op, CUBLAS_OP_N, n, m, k, &alpha, B.data, CUDA_R_16BF, ld, x,
                              CUDA_R_16BF, k, &beta, y, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
    return WB_OK;
}

/* Enough 256-thread blocks to fill every SM a few times over (8 resident each on Hopper), and no
 * more than there are chunks. */
static int bias_add(bf16 *y, const bf16 *b, int rows, int cols, int sms, cudaStream_t stream) {
    const int block = 256;
    int vectorized = cols % 8 == 0 && wb_aligned16(y) && wb_aligned16(b);
    size_t items = vectorized ? (size_t)rows * (cols / 8) : (size_t)rows * cols;
    size_t grid = (items + block - 1) / block, cap = (size_t)sms * 32;
    k_bias_add<<<(unsigned)(grid < cap ? grid : cap), block, 0, stream>>>(y, b, rows, cols, vectorized);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

/*
 * The epilogue variant's GEMM, through cuBLASLt, which lets us describe the whole operation up
 * front: D = op(A) @ op(B) + bias, with the bias added in the kernel's epilogue (the last thing
 * a GEMM kernel does before it writes its tile of D). Descriptors and the algorithm are chosen
 * once here, outside the steps; a step is then a single cublasLtMatmul call.
 * Column-major view, as in view_operand: D = y^T (n, m), A = B^T (the weight operand), B = x^T.
 */
typedef struct {
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t a;   /* the weight operand as stored */
    cublasLtMatrixLayout_t b;   /* x^T: (k, m), leading dimension k */
    cublasLtMatrixLayout_t d;   /* y^T: (n, m), leading dimension n; also C (beta = 0) */
    cublasLtMatmulAlgo_t algo;
    cublasOperation_t op_a;
    int m, k, n;
} lt_plan;

static int lt_plan_init(lt_plan *p, cublasLtHandle_t lt, int m, mat_view B, const bf16 *bias) {
    int ld;
    WB_TRY(view_operand(B, &p->op_a, &ld));
    p->m = m;
    p->k = B.rows;
    p->n = B.cols;
    cublasOperation_t op_b = CUBLAS_OP_N;
    cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    cudaDataType_t bias_type = CUDA_R_16BF;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&p->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &p->op_a, sizeof p->op_a));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof op_b));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type));
    if (p->op_a == CUBLAS_OP_N)
        CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->a, CUDA_R_16BF, (uint64_t)p->n, (uint64_t)p->k, ld));
    else
        CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->a, CUDA_R_16BF, (uint64_t)p->k, (uint64_t)p->n, ld));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->b, CUDA_R_16BF, (uint64_t)p->k, (uint64_t)m, p->k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->d, CUDA_R_16BF, (uint64_t)p->n, (uint64_t)m, p->n));

    cublasLtMatmulPreference_t pref;
    uint64_t max_workspace = WB_LESSON_WORKSPACE_BYTES; /* the frame's, shared with cuBLAS */
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_workspace, sizeof max_workspace);
    cublasLtMatmulHeuristicResult_t result;
    int found = 0;
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulAlgoGetHeuristic(lt, p->desc, p->a, p->b, p->d, p->d, pref, 1, &result, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    CUBLAS_CHECK(st);
    if (found < 1) {
        fprintf(stderr, "cuBLASLt found no algorithm for a bf16 GEMM with bias epilogue "
                        "(m %d, k %d, n %d)\n", m, p->k, p->n);
        return WB_FAIL;
    }
    p->algo = result.algo;
    return WB_OK;
}

static void lt_plan_free(lt_plan *p) {
    if (p->a) cublasLtMatrixLayoutDestroy(p->a);
    if (p->b) cublasLtMatrixLayoutDestroy(p->b);
    if (p->d) cublasLtMatrixLayoutDestroy(p->d);
    if (p->desc) cublasLtMatmulDescDestroy(p->desc);
    memset(p, 0, sizeof *p);
}

/* y (m, n) = x (m, k) @ B (k, n) + bias (n), one kernel. B must have the plan's layout. */
static int matmul_bias_lt(cublasLtHandle_t lt, const lt_plan *p, bf16 *y, const bf16 *x, mat_view B,
                          void *workspace, cudaStream_t stream) {
    cublasOperation_t op;
    int ld;
    WB_TRY(view_operand(B, &op, &ld));
    if (op != p->op_a || B.rows != p->k || B.cols != p->n) {
        fprintf(stderr, "matmul_bias_lt: the view does not match the plan it was built for\n");
        return WB_FAIL;
    }
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasLtMatmul(lt, p->desc, &alpha, B.data, p->a, x, p->b, &beta, y, p->d, y, p->d,
                                &p->algo, workspace, WB_LESSON_WORKSPACE_BYTES, stream));
    return WB_OK;
}

/* ---- the lesson's state --------------------------------------------------------------------- */

typedef enum { VARIANT_SEPARATE, VARIANT_EPILOGUE, VARIANT_GRAPH } variant;

typedef struct {
    variant v;
    int batch, in_dim, out_dim; /* --batch, --in_dim, --out_dim */
    bf16 *x;                    /* (batch, in_dim) input */
    bf16 *w;                    /* (out_dim, in_dim) weight, nn.Linear's layout */
    bf16 *b;                    /* (out_dim) bias */
    bf16 *y;                    /* (batch, out_dim) output */
    mat_view w_view;            /* W as a row-major (out_dim, in_dim) view */
    float *x_host, *w_host, *b_host; /* the same values on the host, rounded to bf16 */
    uint16_t *x_bits, *w_bits, *b_bits; /* the same as bf16 bits, what is uploaded */
    void *workspace;            /* the frame's, shared by cuBLAS and cuBLASLt (one stream) */
    int sms;                    /* the GPU's multiprocessors: k_bias_add's grid is sized by them */
    cublasHandle_t cublas;      /* on stream, with the workspace (common/wb_lesson.c) */
    cublasLtHandle_t lt;
    lt_plan plan;               /* epilogue and graph variants */
    cudaStream_t stream;
} lesson;

/* The host's work, on the frame's second thread while CUDA and cuBLAS start (no CUDA call here):
 * the random inputs, rounded to bf16. At the large shape, 50 million values: about 1.5 s of one
 * core, spread over every core (common/wb_parallel.h). */
static int lesson_prepare(void *ctx, unsigned long long seed) {
    lesson *L = (lesson *)ctx;
    int batch = L->batch, in_dim = L->in_dim, out_dim = L->out_dim;
    size_t nx = (size_t)batch * in_dim, nw = (size_t)out_dim * in_dim;
    L->x_host = (float *)malloc(nx * sizeof(float));
    L->w_host = (float *)malloc(nw * sizeof(float));
    L->b_host = (float *)malloc((size_t)out_dim * sizeof(float));
    L->x_bits = (uint16_t *)malloc(nx * sizeof(uint16_t));
    L->w_bits = (uint16_t *)malloc(nw * sizeof(uint16_t));
    L->b_bits = (uint16_t *)malloc((size_t)out_dim * sizeof(uint16_t));
    if (!L->x_host || !L->w_host || !L->b_host || !L->x_bits || !L->w_bits || !L->b_bits) {
        fprintf(stderr, "out of host memory\n");
        return WB_FAIL;
    }
    /* nn.Linear's initialisation range, U(-1/sqrt(in), 1/sqrt(in)), keeps y near unit scale. */
    wb_rng rng;
    wb_rng_seed(&rng, seed);
    float bound = 1.0f / sqrtf((float)in_dim);
    wb_fill_uniform(L->x_host, nx, &rng, -1.0f, 1.0f);
    wb_fill_uniform(L->w_host, nw, &rng, -bound, bound);
    wb_fill_uniform(L->b_host, (size_t)out_dim, &rng, -bound, bound);
    wb_bf16_encode(L->x_bits, L->x_host, nx); /* the host copies now hold exactly what the GPU gets */
    wb_bf16_encode(L->w_bits, L->w_host, nw);
    wb_bf16_encode(L->b_bits, L->b_host, (size_t)out_dim);
    return WB_OK;
}

static int lesson_init(void *ctx, wb_lesson_run *run) {
    lesson *L = (lesson *)ctx;
    int batch = L->batch, in_dim = L->in_dim, out_dim = L->out_dim;
    L->v = (variant)run->variant;
    L->workspace = run->workspace;
    L->sms = run->sms;
    L->cublas = run->cublas;
    L->lt = run->lt;
    L->stream = run->stream;
    size_t nx = (size_t)batch * in_dim, nw = (size_t)out_dim * in_dim, ny = (size_t)batch * out_dim;
    CUDA_CHECK(cudaMalloc((void **)&L->x, nx * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->w, nw * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->b, (size_t)out_dim * sizeof(bf16)));
    CUDA_CHECK(cudaMalloc((void **)&L->y, ny * sizeof(bf16)));
    L->w_view = mat_rowmajor(L->w, out_dim, in_dim);
    CUDA_CHECK(cudaMemcpy(L->x, L->x_bits, nx * sizeof(bf16), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(L->w, L->w_bits, nw * sizeof(bf16), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(L->b, L->b_bits, (size_t)out_dim * sizeof(bf16), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(L->y, 0xFF, ny * sizeof(bf16))); /* NaN until written */
    if (L->v != VARIANT_SEPARATE) WB_TRY(lt_plan_init(&L->plan, L->lt, batch, mat_t(L->w_view), L->b));
    return WB_OK;
}

static void lesson_free(void *ctx) {
    lesson *L = (lesson *)ctx;
    lt_plan_free(&L->plan);
    cudaFree(L->x);
    cudaFree(L->w);
    cudaFree(L->b);
    cudaFree(L->y);
    free(L->x_host);
    free(L->w_host);
    free(L->b_host);
    free(L->x_bits);
    free(L->w_bits);
    free(L->b_bits);
}

/* ---- one step ------------------------------------------------------------------------------- */

/* The layer's forward, like nn.Linear.forward: make the W^T view, then multiply and add. */
static int linear_forward(lesson *L, variant v) {
    nvtxRangePushA("transpose");
    mat_view wt = mat_t(L->w_view); /* (in_dim, out_dim), strides (1, in_dim): a view, no copy */
    nvtxRangePop();

    int rc;
    if (v == VARIANT_SEPARATE) {
        nvtxRangePushA("matmul");
        rc = matmul_view(L->cublas, L->y, L->x, L->batch, wt);
        nvtxRangePop();
        WB_TRY(rc);
        nvtxRangePushA("bias_add");
        rc = bias_add(L->y, L->b, L->batch, L->out_dim, L->sms, L->stream);
        nvtxRangePop();
    } else {
        nvtxRangePushA("matmul_bias");
        rc = matmul_bias_lt(L->lt, &L->plan, L->y, L->x, wt, L->workspace, L->stream);
        nvtxRangePop();
    }
    return rc;
}

/* What wb_step_run calls each step, and what wb_step_capture records once in the graph variant:
 * the epilogue forward. The view is made during capture, so the replayed graph holds only the
 * GEMM: nothing about W^T is left to do at run time, much as torch.compile bakes the strides into
 * its call and drops aten::t from the CPU side. */
static int forward(void *ctx) {
    lesson *L = (lesson *)ctx;
    nvtxRangePushA("linear");
    int rc = linear_forward(L, L->v == VARIANT_GRAPH ? VARIANT_EPILOGUE : L->v);
    nvtxRangePop();
    return rc;
}

/* ---- checking ------------------------------------------------------------------------------- */

static int check_result(const void *ctx) {
    const lesson *L = (const lesson *)ctx;
    int m = L->batch, k = L->in_dim, n = L->out_dim;
    int rows = m < CHECK_ROWS ? m : CHECK_ROWS;
    float *x_rows = (float *)malloc((size_t)rows * k * sizeof(float));
    float *out = (float *)malloc((size_t)rows * n * sizeof(float));
    double *ref = (double *)malloc((size_t)rows * n * sizeof(double));
    int rc = WB_FAIL;
    if (!x_rows || !out || !ref) {
        fprintf(stderr, "out of host memory for the check\n");
        goto done;
    }
    if (wb_download_sampled_rows_bf16(out, L->y, m, n, rows) != WB_OK) goto done;
    wb_gather_sampled_rows(x_rows, L->x_host, m, k, rows);
    wb_cpu_matmul_nt(ref, x_rows, L->w_host, rows, n, k); /* W as stored, (out, in): no transposed copy */
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < n; j++) ref[(size_t)r * n + j] += L->b_host[j];
    rc = wb_check_close("y = x @ W^T + b", out, ref, (size_t)rows * n, TOLERANCE) == 0 ? WB_OK : WB_FAIL;
done:
    free(x_rows);
    free(out);
    free(ref);
    return rc;
}

/* ---- main ----------------------------------------------------------------------------------- */

/* The run's shape, in the header line and in the RESULT line (with the steps' medians). */
static void describe(const void *ctx, char *words, size_t cap) {
    const lesson *L = (const lesson *)ctx;
    snprintf(words, cap, "batch %d, in_dim %d, out_dim %d", L->batch, L->in_dim, L->out_dim);
}

static void report(const void *ctx, const wb_steps *timed, wb_result *r) {
    const lesson *L = (const lesson *)ctx;
    wb_result_add(r, "batch=%d in_dim=%d out_dim=%d", L->batch, L->in_dim, L->out_dim);
    wb_result_steps(r, timed);
    wb_result_host_times(r, timed);
}

static const char *validate(const void *ctx) {
    const lesson *L = (const lesson *)ctx;
    if ((long long)L->batch * L->in_dim > (1ll << 31) || (long long)L->batch * L->out_dim > (1ll << 31) ||
        (long long)L->in_dim * L->out_dim > (1ll << 31))
        return "matrices over 2^31 elements are not supported";
    return NULL;
}

int main(int argc, char **argv) {
    lesson L = {};
    L.batch = 1024; /* the series: --batch 1024 --in_dim 32 --out_dim 64 */
    L.in_dim = 32;
    L.out_dim = 64;
    const wb_opt options[] = {
        WB_INT_HELP("batch", &L.batch, 1, 1 << 20, "B", "rows of x and y"),
        WB_INT_HELP("in_dim", &L.in_dim, 1, 1 << 16, "K", "features in: columns of x and W"),
        WB_INT_HELP("out_dim", &L.out_dim, 1, 1 << 16, "N", "features out: rows of W, columns of y, length of b"),
    };
    static const char *const variants[] = {"separate", "epilogue", "graph", NULL};

    wb_lesson_spec spec = {};
    spec.name = "02_linear";
    spec.variants = variants;
    spec.variant_help = "separate: GEMM then a bias kernel; epilogue: one cuBLASLt GEMM that adds\n"
                        "the bias; graph: the epilogue step replayed from a CUDA graph";
    spec.graph_variant = "graph";
    spec.options = options;
    spec.n_options = 3;
    spec.steps = 20; /* lesson.yaml uses 3 */
    spec.warmup = 5;
    spec.gpu = WB_GPU_CUBLAS | WB_GPU_CUBLASLT;
    spec.fns = {lesson_init, forward, NULL, check_result, describe, report, lesson_free, lesson_prepare};
    spec.validate = validate;
    spec.example = "e.g. the large contrast: --batch 8192 --in_dim 4096 --out_dim 4096";
    return wb_lesson_main(&spec, &L, argc, argv);
}
