/*
 * gemm.cu: every matrix product of the engine through cuBLASLt (f32 compute), with a cached plan
 * per distinct GEMM; linear layers get their bias in the GEMM epilogue.
 */
#include "cuda_common.cuh"

/* ---- GEMM through cuBLASLt ----
 * cuBLAS is column-major. A row-major matrix X (r, c) with leading stride s0 is, read column-major,
 * X^T (c, r) with ld s0; a "column layout" view (stride 1 down the rows, e.g. W^T) is X itself
 * (r, c) with ld s1. For D = A B with D row layout we ask cuBLAS for D^T = B^T A^T, with D column
 * layout for D = A B directly; each operand is passed as stored, with op N or T as needed. */
typedef struct {
    int row;          /* 1: unit stride along columns (row-major), 0: unit stride along rows */
    int64_t r, c, ld; /* the matrix as the engine sees it: rows, cols, leading stride */
    int64_t batch_stride;
} mat;

static mat mat_of(const wb_tensor *t) {
    int n = t->ndim;
    mat m;
    m.r = t->shape[n - 2], m.c = t->shape[n - 1];
    int64_t s0 = t->stride[n - 2], s1 = t->stride[n - 1];
    m.row = s1 == 1 && s0 >= m.c;
    m.ld = m.row ? s0 : s1;
    if (m.ld < 1) m.ld = 1;
    m.batch_stride = n == 3 ? t->stride[0] : 0;
    return m;
}

static uint32_t ptr_alignment(const void *p) {
    uintptr_t a = (uintptr_t)p;
    uint32_t al = 256;
    while (al > 1 && (a % al)) al >>= 1;
    return al;
}

/* A stored column-major matrix (rows, cols, ld), batched with a stride when batch > 1. */
static int make_layout(cublasLtMatrixLayout_t *l, cudaDataType_t dt, int64_t rows, int64_t cols, int64_t ld,
                       int batch, int64_t bstride) {
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(l, dt, (uint64_t)rows, (uint64_t)cols, ld));
    if (batch > 1) {
        int32_t bc = batch;
        CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc, sizeof bc));
        CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &bstride,
                                                      sizeof bstride));
    }
    return WB_OK;
}


void cuda_gemm_plans_free(cuda_impl *im) {
    for (int i = 0; i < im->n_plans; i++) {
        gemm_plan *p = &im->plans[i];
        cublasLtMatrixLayoutDestroy(p->lp), cublasLtMatrixLayoutDestroy(p->lq);
        cublasLtMatrixLayoutDestroy(p->ld), cublasLtMatmulDescDestroy(p->op);
    }
    im->n_plans = 0;
}

/* The heuristic's answers as launch_plan.h's rule reads them (wb_cuda_gemm_pick, with why). Measured
 * on the H200 by bench/gemm_shapes_bench.cu: the 3072 x 768 weight gradients (K = 16384) take the
 * second answer, unsplit, 105 us against 108-113 for the first, split, with its reduction; DGELU at
 * [16384, 3072] the 2-CTA-cluster answer (1.00 waves), 149-160 us against 167-178 for the first
 * (an 8-CTA cluster, 0.90 waves). */
#define GEMM_ANSWERS 8
static uint32_t algo_config(const cublasLtMatmulAlgo_t *algo, cublasLtMatmulAlgoConfigAttributes_t what, uint32_t dflt) {
    uint32_t v = dflt; /* SPLITK_NUM and ID are 32-bit */
    size_t written = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(algo, what, &v, sizeof v, &written) != CUBLAS_STATUS_SUCCESS) return dflt;
    return v;
}
static int pick_answer(const cublasLtMatmulHeuristicResult_t *h, int n, int epi) {
    wb_gemm_answer a[GEMM_ANSWERS];
    for (int i = 0; i < n; i++) {
        wb_gemm_answer x = {h[i].state == CUBLAS_STATUS_SUCCESS, algo_config(&h[i].algo, CUBLASLT_ALGO_CONFIG_ID, 0),
                            algo_config(&h[i].algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, 1), h[i].wavesCount};
        a[i] = x;
    }
    return wb_cuda_gemm_pick(a, n, epi == GEMM_EPI_DGELU);
}

static int plan_create(cuda_impl *im, const gemm_key *k, gemm_plan *p) {
    cudaDataType_t dt = k->dt == WB_BF16 ? CUDA_R_16BF : CUDA_R_32F;
    cublasOperation_t opP = (cublasOperation_t)k->opP, opQ = (cublasOperation_t)k->opQ;
    memset(p, 0, sizeof *p);
    p->key = *k;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &opP, sizeof opP));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &opQ, sizeof opQ));
    cublasLtEpilogue_t epi = k->bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
    if (k->epi == GEMM_EPI_GELU) epi = k->bias ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS : CUBLASLT_EPILOGUE_GELU_AUX;
    if (k->epi == GEMM_EPI_DGELU) epi = CUBLASLT_EPILOGUE_DGELU;
    if (epi != CUBLASLT_EPILOGUE_DEFAULT)
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    if (k->epi != GEMM_EPI_NONE) { /* the pre-activation has D's layout */
        int64_t aux_ld = k->ldd;
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &aux_ld, sizeof aux_ld));
    }
    WB_TRY(make_layout(&p->lp, dt, k->pr, k->pc, k->ldp, k->batch, k->bsp));
    WB_TRY(make_layout(&p->lq, dt, k->qr, k->qc, k->ldq, k->batch, k->bsq));
    WB_TRY(make_layout(&p->ld, dt, k->dr, k->dc, k->ldd, k->batch, k->bsd));
    cublasLtMatmulPreference_t pref;
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    uint32_t alp = k->alp, alq = k->alq, ald = k->ald;
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &im->workspace_size,
                                         sizeof im->workspace_size);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &alp, sizeof alp);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &alq, sizeof alq);
    uint32_t alc = k->alc;
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &alc, sizeof alc);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &ald, sizeof ald);
    cublasLtMatmulHeuristicResult_t heur[GEMM_ANSWERS];
    int found = 0;
    cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(im->lt, p->op, p->lp, p->lq, p->ld, p->ld, pref, GEMM_ANSWERS, heur,
                                                       &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if ((st != CUBLAS_STATUS_SUCCESS || found == 0) && (k->epi != GEMM_EPI_NONE || k->c)) {
        p->no_algo = 1; /* the caller runs the GEMM and the element-wise part apart */
        return WB_OK;
    }
    if (st != CUBLAS_STATUS_SUCCESS || found == 0) {
        fprintf(stderr,
                "cuda gemm: no cuBLASLt algorithm for (%lld x %lld, op %d) x (%lld x %lld, op %d) -> %lld x %lld, "
                "batch %d, ld %lld %lld %lld, alignment %u %u %u (%s)\n",
                (long long)k->pr, (long long)k->pc, k->opP, (long long)k->qr, (long long)k->qc, k->opQ, (long long)k->dr,
                (long long)k->dc, k->batch, (long long)k->ldp, (long long)k->ldq, (long long)k->ldd, alp, alq, ald,
                cublasGetStatusString(st));
        return WB_FAIL;
    }
    p->algo = heur[pick_answer(heur, found, k->epi)].algo;
    return WB_OK;
}

/* What a GEMM does besides D (+)= alpha A B. */
typedef struct {
    const wb_tensor *bias; /* added in the epilogue (BIAS, GELU_AUX_BIAS), or NULL */
    const wb_tensor *c;    /* C of D's layout that is not D (D = AB + bias + C), or NULL */
    int epi;               /* GEMM_EPI_* */
    const wb_tensor *aux;  /* GELU epilogues: the pre-activation, D's layout */
} gemm_extras;

/* One cublasLtMatmul. Returns 1 without launching anything when cuBLASLt has no algorithm for
 * an epilogue or a separate C (the caller then runs the GEMM and the element-wise part apart). */
static int cuda_gemm_impl(wb_backend *be, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b, double alpha,
                          int acc, const gemm_extras *x) {
    cuda_impl *im = IMPL(be);
    int batch = out->ndim == 3 ? (int)out->shape[0] : 1;
    mat A = mat_of(a), B = mat_of(b), D = mat_of(out);
    int64_t M = D.r, N = D.c;
    /* first and second cuBLAS operands (P, Q), their stored shapes and ops */
    const void *P, *Q;
    mat MP, MQ;
    cublasOperation_t opP, opQ;
    if (D.row) { /* D^T (N, M) = B^T (N, K) @ A^T (K, M) */
        P = b->data, MP = B, Q = a->data, MQ = A;
        opP = B.row ? CUBLAS_OP_N : CUBLAS_OP_T;
        opQ = A.row ? CUBLAS_OP_N : CUBLAS_OP_T;
    } else { /* D (M, N) = A (M, K) @ B (K, N) */
        P = a->data, MP = A, Q = b->data, MQ = B;
        opP = A.row ? CUBLAS_OP_T : CUBLAS_OP_N;
        opQ = B.row ? CUBLAS_OP_T : CUBLAS_OP_N;
    }
    const void *C = x->c ? x->c->data : out->data;
    gemm_key k;
    memset(&k, 0, sizeof k); /* the key is compared with memcmp: no stray padding bytes */
    k.dt = out->dtype, k.opP = (int)opP, k.opQ = (int)opQ, k.batch = batch, k.bias = x->bias != NULL;
    k.beta = acc || x->c, k.c = x->c != NULL, k.epi = x->epi;
    /* stored column-major shapes: a row-layout X (r, c) is stored as (c, r); a column-layout one as (r, c) */
    k.pr = MP.row ? MP.c : MP.r, k.pc = MP.row ? MP.r : MP.c, k.ldp = MP.ld, k.bsp = MP.batch_stride;
    k.qr = MQ.row ? MQ.c : MQ.r, k.qc = MQ.row ? MQ.r : MQ.c, k.ldq = MQ.ld, k.bsq = MQ.batch_stride;
    k.dr = D.row ? N : M, k.dc = D.row ? M : N, k.ldd = D.ld, k.bsd = D.batch_stride;
    k.alp = ptr_alignment(P), k.alq = ptr_alignment(Q), k.ald = ptr_alignment(out->data), k.alc = ptr_alignment(C);
    gemm_plan *plan = NULL;
    for (int i = 0; i < im->n_plans && !plan; i++)
        if (!memcmp(&im->plans[i].key, &k, sizeof k)) plan = &im->plans[i];
    if (!plan) {
        if (im->n_plans == GEMM_PLANS) cuda_gemm_plans_free(im); /* full: start over (never in GPT-2) */
        plan = &im->plans[im->n_plans];
        WB_TRY(plan_create(im, &k, plan));
        im->n_plans++;
    }
    if (plan->no_algo) return 1;
    if (x->bias) {
        const void *bp = x->bias->data;
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp));
    }
    if (x->aux) {
        const void *xp = x->aux->data;
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &xp, sizeof xp));
    }
    float fa = (float)alpha, fb = k.beta ? 1.0f : 0.0f;
    CUBLAS_CHECK(cublasLtMatmul(im->lt, plan->op, &fa, P, plan->lp, Q, plan->lq, &fb, C, plan->ld, out->data,
                                plan->ld, &plan->algo, im->workspace, im->workspace_size, im->stream));
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

int cuda_gemm(wb_backend *be, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b,
                     const wb_tensor *bias, double alpha, int acc) {
    if (out->dtype != a->dtype || out->dtype != b->dtype) return bad_dtype("gemm (mixed)", out->dtype);
    if (out->dtype != WB_BF16 && out->dtype != WB_F32) return bad_dtype("gemm", out->dtype);
    /* the bias epilogue adds along cuBLAS's rows: only when D is row-major (then cuBLAS rows =
     * our columns); otherwise add it with a broadcast kernel after the product (launch_plan.h) */
    int epilogue = wb_cuda_gemm_bias_in_epilogue(out, bias, acc);
    gemm_extras x = {epilogue ? bias : NULL, NULL, GEMM_EPI_NONE, NULL};
    WB_TRY(cuda_gemm_impl(be, out, a, b, alpha, acc, &x));
    if (bias && !epilogue) {
        wb_tensor bb;
        if (wb_broadcast_to(bias, out->ndim, out->shape, &bb) != 0) return WB_FAIL;
        return cuda_binary(be, WB_OP_ADD, out, out, &bb, 0);
    }
    return WB_OK;
}

/* Linear + GELU in one GEMM (cuBLASLt's GELU_AUX_BIAS epilogue: the tanh GELU of the f32 result,
 * the pre-activation written beside it): at [16384, 3072] it saves the GELU kernel's 201 MB
 * (the pre-activation read, the activation written again). Falls back to the GEMM and GELU's
 * kernel where the layouts do not allow it or cuBLASLt has no algorithm. */
int cuda_gemm_gelu(wb_backend *be, const wb_tensor *out, const wb_tensor *pre, const wb_tensor *a, const wb_tensor *b,
                   const wb_tensor *bias) {
    if (out->dtype != a->dtype || out->dtype != b->dtype || pre->dtype != out->dtype) return bad_dtype("gemm_gelu (mixed)", out->dtype);
    if (wb_cuda_gemm_gelu_fused(out, pre, bias)) {
        gemm_extras x = {bias, NULL, GEMM_EPI_GELU, pre};
        int r = cuda_gemm_impl(be, out, a, b, 1.0, 0, &x);
        if (r != 1) return r;
    }
    WB_TRY(cuda_gemm(be, pre, a, b, bias, 1.0, 0));
    return cuda_unary(be, WB_OP_GELU, 1.0, out, pre, 0);
}

/* GELU's pullback in the GEMM that makes its output's gradient (DGELU epilogue): out = (a @ b) *
 * gelu'(pre). Saves the GELU pullback kernel's 302 MB at [16384, 3072]. */
int cuda_gemm_dgelu(wb_backend *be, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b, const wb_tensor *pre) {
    if (out->dtype != a->dtype || out->dtype != b->dtype || pre->dtype != out->dtype) return bad_dtype("gemm_dgelu (mixed)", out->dtype);
    if (wb_cuda_gemm_gelu_fused(out, pre, NULL)) {
        gemm_extras x = {NULL, NULL, GEMM_EPI_DGELU, pre};
        int r = cuda_gemm_impl(be, out, a, b, 1.0, 0, &x);
        if (r != 1) return r;
    }
    WB_TRY(cuda_gemm(be, out, a, b, NULL, 1.0, 0));
    return cuda_unary_backward(be, WB_OP_GELU, out, out, pre, out, 0);
}

/* A residual add in the GEMM's epilogue (beta = 1, C = c, D = out): out = a @ b + bias + c. Saves
 * the add kernel's read of two [16384, 768] operands and its write (75 MB at 124M); the GEMM reads
 * C instead (25 MB). Falls back to the GEMM and the add where the layouts do not allow it. */
int cuda_gemm_add(wb_backend *be, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b, const wb_tensor *bias,
                  const wb_tensor *c) {
    if (out->dtype != a->dtype || out->dtype != b->dtype || c->dtype != out->dtype) return bad_dtype("gemm_add (mixed)", out->dtype);
    if (wb_cuda_gemm_add_fused(out, bias, c)) {
        gemm_extras x = {bias, c, GEMM_EPI_NONE, NULL};
        int r = cuda_gemm_impl(be, out, a, b, 1.0, 0, &x);
        if (r != 1) return r;
    }
    WB_TRY(cuda_gemm(be, out, a, b, bias, 1.0, 0));
    return cuda_binary(be, WB_OP_ADD, out, out, c, 0);
}
