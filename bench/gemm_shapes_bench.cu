/*
 * gemm_shapes_bench.cu: every GEMM of one GPT-2 124M training step (B=16, T=1024, bf16) exactly as
 * lesson 04's engine asks for it (its backend call builds the cuBLASLt plan: descriptors, layouts,
 * epilogue, the heuristic's algorithm), timed beside the other algorithms cuBLASLt's heuristic offers
 * for the same descriptors, in one run:
 *
 *   - the default heuristic list (up to 16 results), and the lists filtered by
 *     CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK = NONE (no split-K) and = INPLACE (split-K whose parts
 *     meet in the output: no separate reduction kernel);
 *   - for the DGELU GEMM also CUBLASLT_EPILOGUE_DGELU_BGRAD (the bias gradient of the fc layer from
 *     the same GEMM), against DGELU plus the engine's column sum of its output.
 *
 *   bench_gemm_shapes [B [T [ITERS [WIDTH [VOCAB]]]]]   (default 16 1024 20 768 50304: GPT-2 124M;
 *                                                         bench/gemm_shapes_bench.sh runs it)
 *
 * Every candidate is launched once inside a CUDA graph capture to see what it really launches:
 * kernel nodes (named through the driver API) and memset nodes; a split-K algorithm with a separate
 * reduction shows as two kernels. Times are CUDA-event means of ITERS launches after 3 warm-up
 * launches, on warm L2 (the operands of one GEMM are read back to back). Each candidate's output is
 * compared with the engine's algorithm's (relative L2 error), and DGELU_BGRAD's bias gradient with
 * the engine's column sum. At the end: the step's GEMM time (each shape times its count per step)
 * under the heuristic's first answer, the engine's rule (gemm.cu's pick_answer), each reduction
 * mask's first answer, and the fastest candidate of each shape (a bound, not a rule: a choice by
 * timing can differ between runs).
 */
#include <cuda.h>
#include <stdint.h>
#include <string.h>

#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "bench_timing.cuh"
#include "cuda_common.cuh"

#define LT(expr)                                                                                   \
    do {                                                                                           \
        cublasStatus_t s_ = (expr);                                                                \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cublasGetStatusString(s_)); \
            exit(3);                                                                               \
        }                                                                                          \
    } while (0)

/* ---- device helpers: random fill, relative L2 difference ---- */
__global__ void k_fill_hash(__nv_bfloat16 *p, int64_t n, uint32_t seed, float scale) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
        p[i] = __float2bfloat16(scale * ((float)(h & 0xffffff) / 8388608.0f - 1.0f));
    }
}
__global__ void k_diff(const __nv_bfloat16 *x, const __nv_bfloat16 *ref, int64_t n, double *acc) {
    double d = 0, r = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        double a = __bfloat162float(x[i]), b = __bfloat162float(ref[i]);
        d += (a - b) * (a - b), r += b * b;
    }
    for (int o = 16; o; o >>= 1) d += __shfl_xor_sync(~0u, d, o), r += __shfl_xor_sync(~0u, r, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(acc, d), atomicAdd(acc + 1, r);
}

static cudaStream_t S;
static int iters = 20;
static double *d_acc;

static __nv_bfloat16 *dev(int64_t n, uint32_t seed, float scale) {
    __nv_bfloat16 *p;
    CK(cudaMalloc(&p, (size_t)n * 2));
    k_fill_hash<<<1024, 256, 0, S>>>(p, n, seed, scale);
    CK(cudaGetLastError());
    return p;
}
static double rel_diff(const void *x, const void *ref, int64_t n) {
    CK(cudaMemsetAsync(d_acc, 0, 2 * sizeof(double), S));
    k_diff<<<1024, 256, 0, S>>>((const __nv_bfloat16 *)x, (const __nv_bfloat16 *)ref, n, d_acc);
    double h[2];
    CK(cudaMemcpyAsync(h, d_acc, sizeof h, cudaMemcpyDeviceToHost, S));
    CK(cudaStreamSynchronize(S));
    return h[1] > 0 ? sqrt(h[0] / h[1]) : sqrt(h[0]);
}

template <typename F>
static double time_us(F launch, int n_iter) {
    return event_time_us(launch, n_iter, S);
}

/* What one launch really runs: the nodes of a graph captured around it. */
struct launched {
    int kernels = 0, memsets = 0;
    std::string names;
};
template <typename F>
static launched capture(F launch) {
    launched L;
    cudaGraph_t g;
    CK(cudaStreamBeginCapture(S, cudaStreamCaptureModeThreadLocal));
    launch();
    if (cudaStreamEndCapture(S, &g) != cudaSuccess) { /* something in it cannot be captured: say so, go on */
        cudaGetLastError();
        L.kernels = L.memsets = -1;
        L.names = "(capture failed)";
        return L;
    }
    size_t n = 0;
    CK(cudaGraphGetNodes(g, NULL, &n));
    std::vector<cudaGraphNode_t> nodes(n);
    CK(cudaGraphGetNodes(g, nodes.data(), &n));
    for (size_t i = 0; i < n; i++) {
        cudaGraphNodeType t;
        CK(cudaGraphNodeGetType(nodes[i], &t));
        if (t == cudaGraphNodeTypeMemset) L.memsets++;
        if (t != cudaGraphNodeTypeKernel) continue;
        L.kernels++;
        CUDA_KERNEL_NODE_PARAMS p;
        memset(&p, 0, sizeof p);
        const char *name = "?";
        if (cuGraphKernelNodeGetParams((CUgraphNode)nodes[i], &p) == CUDA_SUCCESS) {
            if (p.func) cuFuncGetName(&name, p.func);
            else if (p.kern) cuKernelGetName(&name, p.kern);
        }
        std::string s = name;
        if (s.size() > 64) s = s.substr(0, 64) + "...";
        L.names += (L.names.empty() ? "" : " + ") + s;
    }
    CK(cudaGraphDestroy(g));
    return L;
}

/* ---- tensors as the engine's ops pass them ---- */
static wb_tensor mat(void *p, int64_t r, int64_t c) { /* row-major (r, c) */
    wb_tensor t;
    memset(&t, 0, sizeof t);
    t.data = p, t.dtype = WB_BF16, t.ndim = 2, t.shape[0] = r, t.shape[1] = c, t.stride[0] = c, t.stride[1] = 1;
    return t;
}
static wb_tensor tr(wb_tensor t) { /* the transposed view (ops_matmul.c's transposed()) */
    int64_t s = t.shape[0], d = t.stride[0];
    t.shape[0] = t.shape[1], t.shape[1] = s, t.stride[0] = t.stride[1], t.stride[1] = d;
    return t;
}
static wb_tensor vec(void *p, int64_t n) {
    wb_tensor t;
    memset(&t, 0, sizeof t);
    t.data = p, t.dtype = WB_BF16, t.ndim = 1, t.shape[0] = n, t.stride[0] = 1;
    return t;
}

static void chk(int rc) {
    if (rc != WB_OK) exit(3);
}

/* ---- one algorithm of one plan ---- */
struct cand {
    std::string src;       /* which heuristic query offered it: "engine", "h3" (default list, 4th), "none0", "inpl1" */
    cublasLtMatmulAlgo_t algo;
    size_t ws;
    int waves_x100;
    double us = -1, err = -1;
    launched L;
    uint64_t id = 0, tile = 0, stages = 0, splitk = 0, scheme = 0, swz = 0, custom = 0, cluster = 0;
};
static uint64_t algo_attr(const cublasLtMatmulAlgo_t *a, cublasLtMatmulAlgoConfigAttributes_t at) {
    uint64_t v = 0;
    size_t w = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(a, at, NULL, 0, &w) != CUBLAS_STATUS_SUCCESS && w == 0) return 0;
    if (w > sizeof v) return 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(a, at, &v, w, &w) != CUBLAS_STATUS_SUCCESS) return 0;
    return v;
}
static void describe(cand &c) {
    c.id = algo_attr(&c.algo, CUBLASLT_ALGO_CONFIG_ID), c.tile = algo_attr(&c.algo, CUBLASLT_ALGO_CONFIG_TILE_ID);
    c.stages = algo_attr(&c.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID);
    c.splitk = algo_attr(&c.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
    c.scheme = algo_attr(&c.algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
    c.swz = algo_attr(&c.algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING);
    c.custom = algo_attr(&c.algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION);
    c.cluster = algo_attr(&c.algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID);
}

/* The heuristic's answers for a plan's descriptors with the engine's preferences (plan_create's),
 * optionally restricted to the reduction schemes in mask. */
static std::vector<cand> heuristic(cuda_impl *im, cublasLtMatmulDesc_t op, const gemm_plan *p, int n, int mask,
                                   const char *tag, size_t max_ws = (size_t)-1) {
    cublasLtMatmulPreference_t pref;
    LT(cublasLtMatmulPreferenceCreate(&pref));
    uint32_t alp = p->key.alp, alq = p->key.alq, alc = p->key.alc, ald = p->key.ald;
    size_t ws = max_ws < im->workspace_size ? max_ws : im->workspace_size;
    LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &alp, sizeof alp));
    LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &alq, sizeof alq));
    LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &alc, sizeof alc));
    LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &ald, sizeof ald));
    if (mask >= 0) {
        uint32_t m = (uint32_t)mask;
        LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &m, sizeof m));
    }
    std::vector<cublasLtMatmulHeuristicResult_t> res(n);
    int found = 0;
    cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(im->lt, op, p->lp, p->lq, p->ld, p->ld, pref, n, res.data(), &found);
    LT(cublasLtMatmulPreferenceDestroy(pref));
    std::vector<cand> out;
    if (st != CUBLAS_STATUS_SUCCESS) found = 0;
    for (int i = 0; i < found; i++) {
        if (res[i].state != CUBLAS_STATUS_SUCCESS) continue;
        cand c;
        c.src = std::string(tag) + std::to_string(i);
        c.algo = res[i].algo, c.ws = res[i].workspaceSize, c.waves_x100 = (int)(res[i].wavesCount * 100);
        describe(c);
        out.push_back(c);
    }
    return out;
}

/* ---- one GEMM shape of the step ---- */
struct shape {
    const char *name;
    int per_step;
    int64_t M, N, K; /* D (M, N) as the engine sees it, inner dimension K */
    int acc;         /* D (+)= : accumulating (C is D) */
    std::function<void()> engine_call; /* the engine's backend call that builds (and runs) the plan */
    const void *P, *Q, *C;             /* cuBLAS operands as cuda_gemm_impl passes them (D row-major: P = b, Q = a) */
    void *D;
    int dgelu;       /* the DGELU GEMM: also try DGELU_BGRAD */
};

struct shape_result {
    const shape *s;
    std::vector<cand> cands; /* [0] = the engine's */
    double first = -1, rule_none = -1, rule_inplace = -1, rule_ws0 = -1, best = -1;
    int first_idx = 0; /* the heuristic's first answer among cands */
    std::string best_src;
};

static double gflop(const shape &s) { return 2.0 * s.M * s.N * s.K / 1e9; }

static void print_cand(const shape &s, const cand &c) {
    printf("  %-8s %9.1f us %6.0f TF/s  k%d m%d  id %3llu tile %3llu st %3llu splitK %2llu red %llu swz %llu cus %llu cl %2llu "
           "ws %8zu waves %5.2f err %.1e  %s\n",
           c.src.c_str(), c.us, c.us > 0 ? gflop(s) / c.us * 1e3 : 0, c.L.kernels, c.L.memsets,
           (unsigned long long)c.id, (unsigned long long)c.tile, (unsigned long long)c.stages, (unsigned long long)c.splitk,
           (unsigned long long)c.scheme, (unsigned long long)c.swz, (unsigned long long)c.custom,
           (unsigned long long)c.cluster, c.ws, c.waves_x100 / 100.0, c.err, c.L.names.c_str());
}

static shape_result bench_shape(wb_backend *be, const shape &s) {
    cuda_impl *im = IMPL(be);
    shape_result r;
    r.s = &s;
    int before = im->n_plans;
    s.engine_call();
    CK(cudaStreamSynchronize(S));
    if (im->n_plans != before + 1) {
        printf("== %s: the engine made %d plans (expected 1): skipped\n", s.name, im->n_plans - before);
        return r;
    }
    gemm_plan *p = &im->plans[im->n_plans - 1];
    if (p->no_algo) {
        printf("== %s: no cuBLASLt algorithm for the engine's plan (it falls back): skipped\n", s.name);
        return r;
    }
    float one = 1.0f, beta = p->key.beta ? 1.0f : 0.0f;
    size_t dbytes = (size_t)s.M * s.N * 2;
    void *saved = NULL, *ref = NULL;
    CK(cudaMalloc(&ref, dbytes));
    if (s.acc) {
        CK(cudaMalloc(&saved, dbytes));
        CK(cudaMemcpyAsync(saved, s.D, dbytes, cudaMemcpyDeviceToDevice, S));
    }
    auto run = [&](cublasLtMatmulDesc_t op, const cublasLtMatmulAlgo_t *a) {
        return cublasLtMatmul(im->lt, op, &one, s.P, p->lp, s.Q, p->lq, &beta, s.C, p->ld, s.D, p->ld, a, im->workspace,
                              im->workspace_size, S);
    };
    auto one_run_into = [&](cublasLtMatmulDesc_t op, const cublasLtMatmulAlgo_t *a, void *dst) {
        if (s.acc) CK(cudaMemcpyAsync(s.D, saved, dbytes, cudaMemcpyDeviceToDevice, S));
        cublasStatus_t st = run(op, a);
        if (dst && st == CUBLAS_STATUS_SUCCESS) CK(cudaMemcpyAsync(dst, s.D, dbytes, cudaMemcpyDeviceToDevice, S));
        return st;
    };
    int n_iter = gflop(s) > 400 ? (iters + 1) / 2 : iters;
    auto measure = [&](cublasLtMatmulDesc_t op, cand &c) {
        if (one_run_into(op, &c.algo, NULL) != CUBLAS_STATUS_SUCCESS) return;
        CK(cudaStreamSynchronize(S));
        c.err = rel_diff(s.D, ref, s.M * s.N);
        c.L = capture([&] { run(op, &c.algo); });
        c.us = time_us([&] { run(op, &c.algo); }, n_iter);
    };

    printf("== %s x%d: D (%lld x %lld), K %lld, acc %d, %.1f GFLOP; cuBLAS D %lld x %lld, op %c%c, epilogue key %d, bias %d, C apart %d\n",
           s.name, s.per_step, (long long)s.M, (long long)s.N, (long long)s.K, s.acc, gflop(s), (long long)p->key.dr,
           (long long)p->key.dc, p->key.opP ? 'T' : 'N', p->key.opQ ? 'T' : 'N', p->key.epi, p->key.bias, p->key.c);
    /* the engine's algorithm first: its output is the reference */
    cand e;
    e.src = "engine", e.algo = p->algo, e.ws = 0, e.waves_x100 = 0;
    describe(e);
    LT(one_run_into(p->op, &p->algo, ref));
    measure(p->op, e);
    r.cands.push_back(e);
    auto add = [&](std::vector<cand> list) {
        for (auto &c : list) {
            bool dup = false;
            for (auto &o : r.cands) dup |= !memcmp(&o.algo, &c.algo, sizeof c.algo);
            if (dup) continue;
            measure(p->op, c);
            r.cands.push_back(c);
        }
    };
    std::vector<cand> dflt = heuristic(im, p->op, p, 16, -1, "h");
    std::vector<cand> none = heuristic(im, p->op, p, 8, CUBLASLT_REDUCTION_SCHEME_NONE, "none");
    std::vector<cand> inpl = heuristic(im, p->op, p, 8, CUBLASLT_REDUCTION_SCHEME_INPLACE, "inpl");
    if (!dflt.empty() && memcmp(&dflt[0].algo, &p->algo, sizeof p->algo))
        printf("   (note: the default list's first result is not the engine's algorithm)\n");
    for (auto &d : dflt) /* the engine's answer as the heuristic ranked it */
        if (!memcmp(&d.algo, &p->algo, sizeof d.algo)) r.cands[0].ws = d.ws, r.cands[0].waves_x100 = d.waves_x100;
    std::vector<cand> ws0 = heuristic(im, p->op, p, 8, -1, "ws0_", 0); /* no workspace: no memset before the kernel */
    add(dflt), add(none), add(inpl), add(ws0);
    printf("   heuristic results: default %zu, mask NONE %zu, mask INPLACE %zu, no workspace %zu\n", dflt.size(), none.size(),
           inpl.size(), ws0.size());

    for (auto &c : r.cands) print_cand(s, c);
    auto time_of = [&](const cublasLtMatmulAlgo_t &a) {
        for (auto &c : r.cands)
            if (!memcmp(&c.algo, &a, sizeof a)) return c.us;
        return -1.0;
    };
    r.rule_none = none.empty() ? r.cands[0].us : time_of(none[0].algo);
    r.rule_inplace = inpl.empty() ? r.cands[0].us : time_of(inpl[0].algo);
    for (size_t i = 0; i < r.cands.size(); i++)
        if (!dflt.empty() && !memcmp(&r.cands[i].algo, &dflt[0].algo, sizeof dflt[0].algo)) r.first_idx = (int)i;
    r.first = r.cands[r.first_idx].us;
    /* the no-workspace answer where the engine's only needs cuBLASLt's few-byte counter (a memset) */
    r.rule_ws0 = r.cands[0].ws > 0 && r.cands[0].ws <= 4096 && !ws0.empty() ? time_of(ws0[0].algo) : r.cands[0].us;
    for (auto &c : r.cands)
        if (c.us > 0 && c.err >= 0 && c.err < 1e-2 && (r.best < 0 || c.us < r.best)) r.best = c.us, r.best_src = c.src;
    printf("   heuristic's first %.1f, engine %.1f, mask NONE %.1f, mask INPLACE %.1f, no workspace %.1f, fastest %.1f (%s) us\n",
           r.first, r.cands[0].us, r.rule_none, r.rule_inplace, r.rule_ws0, r.best, r.best_src.c_str());

    if (s.dgelu) { /* DGELU_BGRAD: the same GEMM with the bias gradient (sum over D's rows, ours the columns) */
        void *dbias, *dbias_ref; /* room for an f32 gradient too */
        CK(cudaMalloc(&dbias, s.N * 4));
        CK(cudaMemsetAsync(dbias, 0, s.N * 4, S));
        CK(cudaMalloc(&dbias_ref, s.N * 2));
        wb_tensor dst = mat(dbias_ref, 1, s.N), src = mat(s.D, s.M, s.N), bg = mat(dbias, 1, s.N);
        if (one_run_into(p->op, &p->algo, NULL) != CUBLAS_STATUS_SUCCESS) exit(3);
        chk(be->sum_into(be, &dst, &src, 1.0, 1)); /* its scratch is allocated before any capture */
        chk(be->binary(be, WB_OP_ADD, &dst, &dst, &bg, 0));
        launched Ls = capture([&] { chk(be->sum_into(be, &dst, &src, 1.0, 1)); });
        double t_sum = time_us([&] { chk(be->sum_into(be, &dst, &src, 1.0, 1)); }, iters);
        launched La = capture([&] { chk(be->binary(be, WB_OP_ADD, &dst, &dst, &bg, 0)); });
        double t_add = time_us([&] { chk(be->binary(be, WB_OP_ADD, &dst, &dst, &bg, 0)); }, iters);
        chk(be->sum_into(be, &dst, &src, 1.0, 0)); /* the reference: D's column sums, stored */
        printf("   the engine's column sum of D (sum_into, accumulating): %.1f us, k%d m%d: %s\n", t_sum, Ls.kernels,
               Ls.memsets, Ls.names.c_str());
        printf("   an add of one (%lld) bias gradient into another (binary): %.1f us, k%d: %s\n", (long long)s.N, t_add,
               La.kernels, La.names.c_str());
        printf("   DGELU + column sum: %.1f us\n", r.cands[0].us + t_sum);
        for (int bt = 0; bt < 2; bt++) {
            cublasLtMatmulDesc_t op;
            LT(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
            cublasOperation_t ta = (cublasOperation_t)p->key.opP, tb = (cublasOperation_t)p->key.opQ;
            cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_DGELU_BGRAD;
            int64_t aux_ld = p->key.ldd;
            void *aux = NULL;
            size_t w;
            LT(cublasLtMatmulDescGetAttribute(p->op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux, sizeof aux, &w));
            LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
            LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
            LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
            LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &aux_ld, sizeof aux_ld));
            LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux, sizeof aux));
            LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias, sizeof dbias));
            cudaDataType_t f32 = CUDA_R_32F;
            if (bt == 1 && cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &f32, sizeof f32)) {
                printf("   DGELU_BGRAD with an f32 bias gradient: the attribute is refused\n");
                LT(cublasLtMatmulDescDestroy(op));
                break;
            }
            std::vector<cand> bl = heuristic(im, op, p, 16, -1, bt ? "bg32_" : "bgrad");
            printf("   DGELU_BGRAD (bias gradient %s): %zu heuristic results\n", bt ? "f32" : "bf16", bl.size());
            for (auto &c : bl) {
                if (one_run_into(op, &c.algo, NULL) != CUBLAS_STATUS_SUCCESS) continue;
                CK(cudaStreamSynchronize(S));
                c.err = rel_diff(s.D, ref, s.M * s.N);
                double berr = bt ? -1 : rel_diff(dbias, dbias_ref, s.N);
                c.L = capture([&] { run(op, &c.algo); });
                c.us = time_us([&] { run(op, &c.algo); }, n_iter);
                print_cand(s, c);
                printf("           its bias gradient vs the column sum: %.1e; + an add into an accumulating bias gradient: %.1f us\n",
                       berr, c.us + t_add);
            }
            LT(cublasLtMatmulDescDestroy(op));
        }
        CK(cudaFree(dbias));
        CK(cudaFree(dbias_ref));
    }
    if (saved) {
        CK(cudaMemcpyAsync(s.D, saved, dbytes, cudaMemcpyDeviceToDevice, S));
        CK(cudaStreamSynchronize(S));
        CK(cudaFree(saved));
    }
    CK(cudaFree(ref));
    fflush(stdout);
    return r;
}

int main(int argc, char **argv) {
    int64_t B = argc > 1 ? atoll(argv[1]) : 16, T = argc > 2 ? atoll(argv[2]) : 1024;
    if (argc > 3) iters = atoi(argv[3]);
    const int64_t C = argc > 4 ? atoll(argv[4]) : 768, V = argc > 5 ? atoll(argv[5]) : 50304; /* width, padded vocab */
    if (B < 1 || T < 1 || iters < 1 || C < 8 || C % 8 || V < 8 || V % 8) {
        fprintf(stderr, "usage: bench_gemm_shapes [B [T [ITERS [WIDTH [VOCAB]]]]]  (WIDTH, VOCAB: multiples of 8)\n");
        return 2;
    }
    const int64_t M = B * T, C3 = 3 * C, C4 = 4 * C;
    wb_backend *be;
    if (wb_backend_cuda_create(&be, 0) != WB_OK) return 3;
    cuda_impl *im = IMPL(be);
    S = im->stream;
    CK(cudaMalloc(&d_acc, 2 * sizeof(double)));
    printf("device: %s; cuBLASLt %zu; GPT-2 GEMMs of width %lld, vocab %lld at M = B T = %lld; %d timed launches (half for > 400 GFLOP)\n",
           be->device_name, cublasLtGetVersion(), (long long)C, (long long)V, (long long)M, iters);

    /* activations and gradients (M rows), weights (out, in) as the model stores them, weight gradients */
    __nv_bfloat16 *x768 = dev(M * C, 1, 1.0f), *r768 = dev(M * C, 2, 1.0f), *y768 = dev(M * C, 3, 1.0f);
    __nv_bfloat16 *g768 = dev(M * C, 4, 0.01f), *y2304 = dev(M * C3, 5, 1.0f), *g2304 = dev(M * C3, 6, 0.01f);
    __nv_bfloat16 *h3072 = dev(M * C4, 7, 1.0f), *pre3072 = dev(M * C4, 8, 2.0f), *y3072 = dev(M * C4, 9, 1.0f);
    __nv_bfloat16 *logits = dev(M * V, 10, 0.01f);
    __nv_bfloat16 *wqkv = dev(C3 * C, 11, 0.02f), *wproj = dev(C * C, 12, 0.02f), *wfc = dev(C4 * C, 13, 0.02f);
    __nv_bfloat16 *wfcp = dev(C * C4, 14, 0.02f), *wte = dev(V * C, 15, 0.02f);
    __nv_bfloat16 *bqkv = dev(C3, 16, 0.02f), *bproj = dev(C, 17, 0.02f), *bfc = dev(C4, 18, 0.02f), *bfcp = dev(C, 19, 0.02f);
    __nv_bfloat16 *dwqkv = dev(C3 * C, 20, 0.01f), *dwproj = dev(C * C, 21, 0.01f), *dwfc = dev(C4 * C, 22, 0.01f);
    __nv_bfloat16 *dwfcp = dev(C * C4, 23, 0.01f), *dwte = dev(V * C, 24, 0.01f);
    CK(cudaStreamSynchronize(S));

    std::deque<wb_tensor> tens; /* the tensors the shapes' engine calls keep pointers to (stable addresses) */
    auto T2 = [&](void *p, int64_t r, int64_t c) { tens.push_back(mat(p, r, c)); return &tens.back(); };
    auto TT = [&](void *p, int64_t r, int64_t c) { tens.push_back(tr(mat(p, r, c))); return &tens.back(); }; /* (c, r) view of a row-major (r, c) */
    auto V1 = [&](void *p, int64_t n) { tens.push_back(vec(p, n)); return &tens.back(); };
    std::vector<shape> shapes;
    /* linear: y (M, N) = x (M, K) @ w^T, w (N, K): a = x, b = w^T (a transposed view) */
    auto linear = [&](const char *name, int n, void *y, void *x, void *w, void *bias, int64_t N, int64_t K) {
        wb_tensor *o = T2(y, M, N), *a = T2(x, M, K), *b = TT(w, N, K), *bb = bias ? V1(bias, N) : NULL;
        shapes.push_back({name, n, M, N, K, 0, [=] { chk(be->gemm(be, o, a, b, bb, 1.0, 0)); }, w, x, y, y, 0});
    };
    auto linear_add = [&](const char *name, int n, void *y, void *x, void *w, void *bias, void *res, int64_t N, int64_t K) {
        wb_tensor *o = T2(y, M, N), *a = T2(x, M, K), *b = TT(w, N, K), *bb = V1(bias, N), *c = T2(res, M, N);
        shapes.push_back({name, n, M, N, K, 0, [=] { chk(be->gemm_add(be, o, a, b, bb, c)); }, w, x, res, y, 0});
    };
    /* input gradient: dx (M, K) = g (M, N) @ w, w (N, K) */
    auto dx = [&](const char *name, int n, void *d, void *g, void *w, int64_t N, int64_t K) {
        wb_tensor *o = T2(d, M, K), *a = T2(g, M, N), *b = T2(w, N, K);
        shapes.push_back({name, n, M, K, N, 0, [=] { chk(be->gemm(be, o, a, b, NULL, 1.0, 0)); }, w, g, d, d, 0});
    };
    /* weight gradient: dw (N, K) += g^T (N, M) @ x (M, K) (parameter gradients accumulate) */
    auto dw = [&](const char *name, int n, void *d, void *g, void *x, int64_t N, int64_t K) {
        wb_tensor *o = T2(d, N, K), *a = TT(g, M, N), *b = T2(x, M, K);
        shapes.push_back({name, n, N, K, M, 1, [=] { chk(be->gemm(be, o, a, b, NULL, 1.0, 1)); }, x, g, d, d, 0});
    };
    linear("qkv", 12, y2304, x768, wqkv, bqkv, C3, C);
    linear_add("attn_proj+res", 12, y768, x768, wproj, bproj, r768, C, C);
    {
        wb_tensor *o = T2(y3072, M, C4), *pr = T2(pre3072, M, C4), *a = T2(x768, M, C), *b = TT(wfc, C4, C), *bb = V1(bfc, C4);
        shapes.push_back({"fc+gelu", 12, M, C4, C, 0, [=] { chk(be->gemm_gelu(be, o, pr, a, b, bb)); }, wfc, x768, y3072, y3072, 0});
    }
    linear_add("fcproj+res", 12, y768, h3072, wfcp, bfcp, r768, C, C4);
    linear("lm_head", 1, logits, x768, wte, NULL, V, C);
    dx("lm_head_dx", 1, y768, logits, wte, V, C);
    dw("lm_head_dw", 1, dwte, logits, x768, V, C);
    {
        wb_tensor *o = T2(y3072, M, C4), *a = T2(g768, M, C), *b = T2(wfcp, C, C4), *pr = T2(pre3072, M, C4);
        shapes.push_back({"fcproj_dx+dgelu", 12, M, C4, C, 0, [=] { chk(be->gemm_dgelu(be, o, a, b, pr)); }, wfcp, g768, y3072, y3072, 1});
    }
    dw("fcproj_dw", 12, dwfcp, g768, h3072, C, C4);
    dx("fc_dx", 12, y768, y3072, wfc, C4, C);
    dw("fc_dw", 12, dwfc, y3072, x768, C4, C);
    dx("proj_dx", 12, y768, g768, wproj, C, C);
    dw("proj_dw", 12, dwproj, g768, x768, C, C);
    dx("qkv_dx", 12, y768, g2304, wqkv, C3, C);
    dw("qkv_dw", 12, dwqkv, g2304, x768, C3, C);

    std::vector<shape_result> res;
    for (auto &s : shapes) res.push_back(bench_shape(be, s));

    double tot[6] = {0, 0, 0, 0, 0, 0};
    int k_engine = 0;
    printf("\n== per step (each shape x its count): us\n%-18s %5s %10s %10s %10s %10s %10s %10s\n", "shape", "count", "1st",
           "engine", "maskNONE", "maskINPL", "no-ws", "fastest");
    for (auto &r : res) {
        if (r.cands.empty()) continue;
        int n = r.s->per_step;
        double v[6] = {r.first, r.cands[0].us, r.rule_none, r.rule_inplace, r.rule_ws0, r.best};
        printf("%-18s %5d", r.s->name, n);
        for (int i = 0; i < 6; i++) printf(" %10.1f", n * v[i]), tot[i] += n * v[i];
        const launched &f = r.cands[r.first_idx].L;
        printf("   engine: %d kernel(s) %d memset(s); 1st: %d, %d\n", r.cands[0].L.kernels, r.cands[0].L.memsets, f.kernels,
               f.memsets);
        k_engine += n * r.cands[0].L.kernels;
    }
    printf("%-18s %5s", "total", "");
    for (int i = 0; i < 6; i++) printf(" %10.1f", tot[i]);
    printf("\nengine's GEMMs launch %d kernels a step\n", k_engine);
    be->destroy(be);
    return 0;
}
