/*
 * cuda_runtime_emu.h: stand-ins for the CUDA runtime and cuBLASLt on top of cuda_emu.h, so that
 * the CUDA backend (lessons/04_gpt2_autodiff/engine/cuda/) compiles for the CPU: memory is host
 * memory (poisoned, never zeros), kernels run on cuda_emu.h's threads, and cublasLtMatmul is a
 * reference loop that follows cuBLAS's column-major definition. cuda_backend_emu.cpp and
 * flash_emu.cpp include it.
 */
#ifndef WB_CUDA_RUNTIME_EMU_H
#define WB_CUDA_RUNTIME_EMU_H

#include "cuda_emu.h"

/* ---------------------------------------------------------------------------------------------
 * CUDA runtime
 * ------------------------------------------------------------------------------------------ */
typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
typedef void *cudaStream_t;
struct cudaDeviceProp {
    char name[256];
    int major, minor;
    int multiProcessorCount;
};

static inline const char *cudaGetErrorString(cudaError_t e) { return e ? "emulated error" : "no error"; }
static inline const char *cudaGetErrorName(cudaError_t e) { return e ? "cudaErrorEmulated" : "cudaSuccess"; }
static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }
static inline cudaError_t cudaMalloc(void **p, size_t n) {
    *p = aligned_alloc(256, (n + 255) / 256 * 256);
    if (*p) memset(*p, 0xA5, n); /* never zeros: an unwritten output shows */
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaFree(void *p) {
    free(p);
    return cudaSuccess;
}
static inline cudaError_t cudaStreamCreate(cudaStream_t *s) { /* one stream: launches run at once */
    *s = NULL;
    return cudaSuccess;
}
static inline cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t) {
    memset(p, v, n);
    return cudaSuccess;
}
static inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) {
    memcpy(d, s, n);
    return cudaSuccess;
}
static inline cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
/* one stream that runs everything at once: asynchronous copies are done when they return */
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t) {
    memcpy(d, s, n);
    return cudaSuccess;
}
enum { cudaHostAllocDefault = 0, cudaEventDisableTiming = 2 };
static inline cudaError_t cudaHostAlloc(void **p, size_t n, unsigned) { return cudaMalloc(p, n); }
static inline cudaError_t cudaFreeHost(void *p) { return cudaFree(p); }
typedef int *cudaEvent_t;
static int emu_event;
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) {
    *e = &emu_event;
    return cudaSuccess;
}
static inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaGetDeviceCount(int *n) {
    *n = 1;
    return cudaSuccess;
}
static inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
static inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int) {
    snprintf(p->name, sizeof p->name, "CUDA emulation on the CPU");
    p->major = 9, p->minor = 0;
    p->multiProcessorCount = 4;
    return cudaSuccess;
}
template <typename K>
static inline cudaError_t cudaFuncSetAttribute(K, cudaFuncAttribute, int bytes) {
    return bytes <= (int)sizeof emu_dynamic_smem ? cudaSuccess : cudaErrorMemoryAllocation;
}

/* ---------------------------------------------------------------------------------------------
 * cuBLASLt: descriptors are plain structs; the matmul is a reference loop
 * ------------------------------------------------------------------------------------------ */
typedef int cublasStatus_t;
enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_INVALID_VALUE = 7, CUBLAS_STATUS_NOT_SUPPORTED = 15 };
typedef enum { CUDA_R_32F = 0, CUDA_R_16BF = 14 } cudaDataType_t;
typedef enum { CUBLAS_COMPUTE_32F = 68 } cublasComputeType_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;
typedef enum {
    CUBLASLT_EPILOGUE_DEFAULT = 1,
    CUBLASLT_EPILOGUE_BIAS = 4,
    CUBLASLT_EPILOGUE_GELU_AUX = 160,
    CUBLASLT_EPILOGUE_GELU_AUX_BIAS = 164,
    CUBLASLT_EPILOGUE_DGELU = 192
} cublasLtEpilogue_t;
typedef enum {
    CUBLASLT_MATMUL_DESC_TRANSA,
    CUBLASLT_MATMUL_DESC_TRANSB,
    CUBLASLT_MATMUL_DESC_EPILOGUE,
    CUBLASLT_MATMUL_DESC_BIAS_POINTER,
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER,
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD
} cublasLtMatmulDescAttributes_t;
typedef enum { CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET } cublasLtMatrixLayoutAttribute_t;
typedef enum {
    CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES
} cublasLtMatmulPreferenceAttributes_t;

struct emu_lt_handle {
    int dummy;
};
struct emu_matmul_desc {
    cublasOperation_t ta = CUBLAS_OP_N, tb = CUBLAS_OP_N;
    cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_DEFAULT;
    const void *bias = nullptr;
    void *aux = nullptr; /* GELU's pre-activation, D's layout with its own ld */
    int64_t aux_ld = 0;
};
struct emu_layout {
    cudaDataType_t dt;
    uint64_t rows, cols;
    int64_t ld;
    int32_t batch = 1;
    int64_t stride = 0;
};
struct emu_pref {
    int dummy;
};
typedef emu_lt_handle *cublasLtHandle_t;
typedef emu_matmul_desc *cublasLtMatmulDesc_t;
typedef emu_layout *cublasLtMatrixLayout_t;
typedef emu_pref *cublasLtMatmulPreference_t;
struct cublasLtMatmulAlgo_t {
    int dummy;
};
struct cublasLtMatmulHeuristicResult_t {
    cublasLtMatmulAlgo_t algo;
    size_t workspaceSize;
    cublasStatus_t state;
    float wavesCount;
    int reserved[4];
};
/* the emulation's one algorithm (id 0) computes every dot product in one sequence: K in 1 part */
typedef enum { CUBLASLT_ALGO_CONFIG_ID = 0, CUBLASLT_ALGO_CONFIG_SPLITK_NUM = 2 } cublasLtMatmulAlgoConfigAttributes_t;
static inline cublasStatus_t cublasLtMatmulAlgoConfigGetAttribute(const cublasLtMatmulAlgo_t *, cublasLtMatmulAlgoConfigAttributes_t a,
                                                                 void *buf, size_t n, size_t *written) {
    uint32_t v = a == CUBLASLT_ALGO_CONFIG_SPLITK_NUM ? 1 : 0;
    if (n < sizeof v) return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(buf, &v, sizeof v);
    *written = sizeof v;
    return CUBLAS_STATUS_SUCCESS;
}

static inline const char *cublasGetStatusString(cublasStatus_t s) { return s ? "CUBLAS_STATUS_EMULATED_ERROR" : "CUBLAS_STATUS_SUCCESS"; }
static inline cublasStatus_t cublasLtCreate(cublasLtHandle_t *h) {
    *h = new emu_lt_handle();
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasLtDestroy(cublasLtHandle_t h) {
    delete h;
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d, cublasComputeType_t c, cudaDataType_t s) {
    if (c != CUBLAS_COMPUTE_32F || s != CUDA_R_32F) return CUBLAS_STATUS_NOT_SUPPORTED;
    *d = new emu_matmul_desc();
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d) {
    delete d;
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t a,
                                                     const void *v, size_t n) {
    switch (a) {
    case CUBLASLT_MATMUL_DESC_TRANSA: memcpy(&d->ta, v, n); break;
    case CUBLASLT_MATMUL_DESC_TRANSB: memcpy(&d->tb, v, n); break;
    case CUBLASLT_MATMUL_DESC_EPILOGUE: memcpy(&d->epi, v, n); break;
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER: memcpy(&d->bias, v, n); break;
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER: memcpy(&d->aux, v, n); break;
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD: memcpy(&d->aux_ld, v, n); break;
    }
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l, cudaDataType_t dt, uint64_t rows,
                                                 uint64_t cols, int64_t ld) {
    if (ld < (int64_t)(rows ? rows : 1)) return CUBLAS_STATUS_INVALID_VALUE; /* cuBLAS: ld >= rows */
    *l = new emu_layout{dt, rows, cols, ld};
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l) {
    delete l;
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t a,
                                                       const void *v, size_t n) {
    if (a == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT) memcpy(&l->batch, v, n);
    else memcpy(&l->stride, v, n);
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *p) {
    *p = new emu_pref();
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p) {
    delete p;
    return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t, cublasLtMatmulPreferenceAttributes_t,
                                                           const void *, size_t) {
    return CUBLAS_STATUS_SUCCESS;
}

/* op(X) is (m, k) with m, k from the stored layout and the op, as cuBLAS defines them */
static inline void op_dims(const emu_layout *l, cublasOperation_t op, uint64_t *r, uint64_t *c) {
    *r = op == CUBLAS_OP_N ? l->rows : l->cols;
    *c = op == CUBLAS_OP_N ? l->cols : l->rows;
}

static inline cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t a,
                                                     cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c,
                                                     cublasLtMatrixLayout_t dl, cublasLtMatmulPreference_t, int,
                                                     cublasLtMatmulHeuristicResult_t *res, int *found) {
    *res = cublasLtMatmulHeuristicResult_t{}; /* one answer, whatever the number asked for */
    res->wavesCount = 1.0f;
    uint64_t m, k, k2, n;
    op_dims(a, d->ta, &m, &k);
    op_dims(b, d->tb, &k2, &n);
    bool ok = k == k2 && dl->rows == m && dl->cols == n && c->rows == m && c->cols == n && a->dt == b->dt &&
              a->dt == dl->dt && a->batch == b->batch && a->batch == dl->batch;
    if (!ok)
        fprintf(stderr, "cuBLASLt emulation: inconsistent matmul: op(A) %llux%llu, op(B) %llux%llu, D %llux%llu\n",
                (unsigned long long)m, (unsigned long long)k, (unsigned long long)k2, (unsigned long long)n,
                (unsigned long long)dl->rows, (unsigned long long)dl->cols);
    *found = ok;
    res->state = ok ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_SUPPORTED;
    return ok ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_SUPPORTED;
}

static inline float emu_ld(const void *p, cudaDataType_t dt, int64_t i) {
    return dt == CUDA_R_16BF ? __bfloat162float(((const __nv_bfloat16 *)p)[i]) : ((const float *)p)[i];
}
static inline void emu_st(void *p, cudaDataType_t dt, int64_t i, float v) {
    if (dt == CUDA_R_16BF) ((__nv_bfloat16 *)p)[i] = __float2bfloat16(v);
    else ((float *)p)[i] = v;
}

static inline cublasStatus_t cublasLtMatmul(cublasLtHandle_t, cublasLtMatmulDesc_t d, const void *alpha, const void *A,
                                     cublasLtMatrixLayout_t al, const void *B, cublasLtMatrixLayout_t bl,
                                     const void *beta, const void *C, cublasLtMatrixLayout_t cl, void *D,
                                     cublasLtMatrixLayout_t dl, const cublasLtMatmulAlgo_t *, void *, size_t,
                                     cudaStream_t) {
    uint64_t m, k, k2, n;
    op_dims(al, d->ta, &m, &k);
    op_dims(bl, d->tb, &k2, &n);
    if (k != k2 || dl->rows != m || dl->cols != n) return CUBLAS_STATUS_INVALID_VALUE;
    float fa = *(const float *)alpha, fb = *(const float *)beta;
    std::vector<float> out(m * n);
    for (int32_t bt = 0; bt < dl->batch; bt++) {
        int64_t oa = bt * al->stride, ob = bt * bl->stride, oc = bt * cl->stride, od = bt * dl->stride;
        for (uint64_t i = 0; i < m; i++)
            for (uint64_t j = 0; j < n; j++) {
                float s = 0;
                for (uint64_t p = 0; p < k; p++) {
                    float x = emu_ld(A, al->dt, oa + (d->ta == CUBLAS_OP_N ? i + p * al->ld : p + i * al->ld));
                    float y = emu_ld(B, bl->dt, ob + (d->tb == CUBLAS_OP_N ? p + j * bl->ld : j + p * bl->ld));
                    s += x * y;
                }
                float v = fa * s;
                if (fb != 0.0f) v += fb * emu_ld(C, cl->dt, oc + i + j * cl->ld);
                if (d->epi == CUBLASLT_EPILOGUE_BIAS || d->epi == CUBLASLT_EPILOGUE_GELU_AUX_BIAS)
                    v += emu_ld(d->bias, dl->dt, i);
                /* GELU epilogues, the tanh approximation: aux holds the pre-activation */
                const float c0 = 0.7978845608028654f, c1 = 0.044715f;
                if (d->epi == CUBLASLT_EPILOGUE_GELU_AUX || d->epi == CUBLASLT_EPILOGUE_GELU_AUX_BIAS) {
                    emu_st(d->aux, dl->dt, od + i + j * d->aux_ld, v);
                    v = 0.5f * v * (1.0f + std::tanh(c0 * (v + c1 * v * v * v)));
                }
                if (d->epi == CUBLASLT_EPILOGUE_DGELU) {
                    float x = emu_ld(d->aux, dl->dt, od + i + j * d->aux_ld), t = std::tanh(c0 * (x + c1 * x * x * x));
                    v *= 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * c0 * (1.0f + 3.0f * c1 * x * x);
                }
                out[i + j * m] = v;
            }
        for (uint64_t i = 0; i < m; i++) /* C and D may be the same memory: write after reading all */
            for (uint64_t j = 0; j < n; j++) emu_st(D, dl->dt, od + i + j * dl->ld, out[i + j * m]);
    }
    return CUBLAS_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * the check macros of common/wb_check.h (defined there only for nvcc), then the backend itself
 * ------------------------------------------------------------------------------------------ */
#define CUDA_CHECK(expr)                                                                           \
    do {                                                                                           \
        cudaError_t wb_err_ = (expr);                                                              \
        if (wb_err_ != cudaSuccess) {                                                              \
            fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #expr,              \
                    cudaGetErrorString(wb_err_), cudaGetErrorName(wb_err_));                       \
            return WB_FAIL;                                                                        \
        }                                                                                          \
    } while (0)
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
#define CUBLAS_CHECK(expr)                                                                         \
    do {                                                                                           \
        cublasStatus_t wb_st_ = (expr);                                                            \
        if (wb_st_ != CUBLAS_STATUS_SUCCESS) {                                                     \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,                  \
                    cublasGetStatusString(wb_st_));                                                \
            return WB_FAIL;                                                                        \
        }                                                                                          \
    } while (0)

#endif
