/*
 * cuda_common.cuh: what every file of the CUDA backend shares: the CUDA headers (or the CPU
 * emulation's stand-ins), the device helpers (typed loads and stores, 16-byte vectors, warp and
 * block sums, the tensor descriptor of the generic element-wise kernels), the backend's state
 * (cuda_impl), the launch macros, and the launchers each op-family file defines.
 *
 * The backend, one op family per file, kernels first and then the host functions that launch them:
 *   elementwise.cu  fill, binary and unary ops and their pullbacks, causal mask, dropout, embedding rows
 *   reduce.cu       sums over dims (bias gradients), the squared gradient norm
 *   layernorm.cu    layer norm and its pullback
 *   softmax.cu      softmax and its pullback, cross-entropy (log-sum-exp, loss, gradient)
 *   attention_forward.cu   fused causal attention (FlashAttention-3 style, wgmma on sm_90a)
 *   attention_backward.cu  its pullback (attention.cuh: what the two share)
 *   gemm.cu         matrix products through cuBLASLt
 *   optimizer.cu    AdamW over the flat parameter block
 *   backend_cuda.cu the backend table, memory, device set-up
 * Everything runs on the legacy default stream in issue order; nothing synchronises with the host
 * except to_host / to_device / sync. bf16 storage with f32 arithmetic (every kernel loads to float
 * and rounds once on store), or plain f32. docs/performance.md has each kernel's time.
 */
#ifndef WB_CUDA_COMMON_CUH
#define WB_CUDA_COMMON_CUH

#ifndef WB_CUDA_EMULATION /* tests/engine/cuda_emu.h stands in for CUDA when it is defined */
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "launch_plan.h"
#include "wb_check.h"

typedef __nv_bfloat16 bf16;

/* kern<<<grid, block, shared bytes, the backend's stream>>>(args), spelled so that the emulation can
 * run it too; every launcher has the backend `be` in scope */
#ifdef WB_CUDA_EMULATION
#define KLAUNCH(kern, grid, block, smem_bytes, ...) ((void)(smem_bytes), emu_launch(dim3(grid), dim3(block), [&] { kern(__VA_ARGS__); }))
#else
#define KLAUNCH(kern, grid, block, smem_bytes, ...) kern<<<(grid), (block), (smem_bytes), IMPL(be)->stream>>>(__VA_ARGS__)
#endif
/* a kernel's dynamic shared memory (the emulation points it at a buffer of its own); 1024-byte
 * aligned for wgmma's swizzled tiles (wgmma.cuh) */
#ifndef FA_DYNAMIC_SHARED
#define FA_DYNAMIC_SHARED(name) extern __shared__ __align__(1024) unsigned char name[]
#endif

/* ---------------------------------------------------------------------------------------------
 * device helpers
 * ------------------------------------------------------------------------------------------ */
__device__ __forceinline__ float ld(const float *p) { return *p; }
__device__ __forceinline__ float ld(const bf16 *p) { return __bfloat162float(*p); }
__device__ __forceinline__ void st(float *p, float v) { *p = v; }
__device__ __forceinline__ void st(bf16 *p, float v) { *p = __float2bfloat16(v); }

/* A tensor as kernels see it: up to 4 dims, strides in elements. */
struct TDesc {
    void *p;
    int nd;
    int64_t shape[WB_MAX_DIMS];
    int64_t stride[WB_MAX_DIMS];
};

static inline TDesc desc(const wb_tensor *t) {
    TDesc d;
    d.p = t->data;
    d.nd = t->ndim;
    for (int i = 0; i < WB_MAX_DIMS; i++) {
        d.shape[i] = i < t->ndim ? t->shape[i] : 1;
        d.stride[i] = i < t->ndim ? t->stride[i] : 0;
    }
    return d;
}

/* `#pragma unroll` for nvcc; the CPU emulation (g++) has its own idea of that pragma */
#ifdef WB_CUDA_EMULATION
#define UNROLL
#define UNROLL4
#else
#define UNROLL _Pragma("unroll")
#define UNROLL4 _Pragma("unroll 4") /* run-time trip counts: four iterations' loads in flight */
#endif

/* Element offset of the i-th element in row-major order: a few integer divisions per element, the
 * price of accepting any view; contiguous operands take the `contig` fast path instead. The loop
 * is unrolled over all WB_MAX_DIMS dims with compile-time indices (desc() pads with size-1 dims,
 * which add nothing): with a run-time index the compiler copied every TDesc kernel parameter into
 * local memory in every thread at kernel entry (a 320-byte stack frame in k_unary_backward: 16 GB
 * of local stores for one GELU pullback on [16384, 3072], 4.6 ms instead of 0.1). I = uint32_t
 * where the host knows every index and offset fits (a 32-bit division is a fraction of a 64-bit
 * one). */
template <typename I>
__device__ __forceinline__ I off(const TDesc &t, I i) {
    I o = 0;
    UNROLL
    for (int d = WB_MAX_DIMS - 1; d >= 0; d--) {
        I n = (I)t.shape[d];
        if (n != 1) {
            o += (i % n) * (I)t.stride[d];
            i /= n;
        }
    }
    return o;
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

/* block-wide reduction (blockDim.x a multiple of 32, at most 1024); every thread gets the result */
template <bool MAX>
__device__ float block_reduce(float v) {
    __shared__ float s[32];
    __shared__ float result;
    int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    v = MAX ? warp_max(v) : warp_sum(v);
    __syncthreads();
    if (lane == 0) s[w] = v;
    __syncthreads();
    if (w == 0) {
        int nw = blockDim.x / 32;
        float x = lane < nw ? s[lane] : (MAX ? -INFINITY : 0.0f);
        x = MAX ? warp_max(x) : warp_sum(x);
        if (lane == 0) result = x;
    }
    __syncthreads();
    return result;
}

/* Eight elements in one 16-byte access (bf16) or two (f32). */
template <typename T>
struct alignas(16) pack8 {
    T v[8];
};

template <typename T>
__device__ __forceinline__ void ld8(float *f, const T *p) {
    pack8<T> q = *(const pack8<T> *)p;
    UNROLL
    for (int k = 0; k < 8; k++) f[k] = ld(&q.v[k]);
}
template <typename T>
__device__ __forceinline__ void st8(T *p, const float *f) {
    pack8<T> q;
    UNROLL
    for (int k = 0; k < 8; k++) st(&q.v[k], f[k]);
    *(pack8<T> *)p = q;
}

/* ---- sums across the blocks of one launch, finished by the last block to arrive ----
 * n blocks each write a contribution of w4 float4 (block i at tree + i w4, level 0), then call
 * tree_finish. Blocks count themselves in groups of GS (an atomic counter per group, after a
 * fence that makes their contribution visible); the group's last arrival adds the group's
 * contributions in index order and writes the result as contribution i / GS of the next level,
 * and so on until one group is left, whose last arrival hands the totals to fin(c4, float4).
 * The tree's shape depends only on n and every sum has a fixed order: the same bits whichever
 * block arrives last. Each last arrival resets its counter, so that counters are zero between
 * launches. Storage: tree_size() (every level's contributions, one counter per group). One
 * kernel instead of a partial pass and a final one: a launch and its boundary fewer, and the
 * final sums read from L2 by a few blocks while the other blocks are still running. 1-D blocks.
 * A group's sum is lanes of consecutive contributions added in order where the contributions
 * are narrow (w4 <= half the block), so that a group is read in one round trip. */
static inline __host__ __device__ int tree_next(int n, int gs) { return n <= gs ? 1 : (n + gs - 1) / gs; }
static inline void tree_size(int n, int w4, int gs, size_t *f4, size_t *counters) {
    *f4 = *counters = 0;
    for (;;) {
        *f4 += (size_t)n * w4, *counters += (size_t)(n + gs - 1) / gs;
        if (n <= gs) return;
        n = tree_next(n, gs);
    }
}

__device__ __forceinline__ float4 add4(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }

/* s = the sum of contributions [j0, j1) of column c, in index order, 4 loads in flight at a time
 * (from L2, not L1: other SMs wrote them) */
__device__ __forceinline__ float4 tree_add(const float4 *src, int w4, int c, int j0, int j1) {
    float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int j = j0; j < j1; j += 4) {
        float4 v[4];
        UNROLL
        for (int q = 0; q < 4; q++)
            if (j + q < j1) v[q] = __ldcg(src + (j + q) * w4 + c);
        UNROLL
        for (int q = 0; q < 4; q++)
            if (j + q < j1) s = j + q > j0 ? add4(s, v[q]) : v[q];
    }
    return s;
}

template <int GS, typename Fin>
__device__ void tree_finish(float4 *tree, unsigned *cnt, int n, int w4, int i, Fin fin) {
    __shared__ int last;
    __shared__ float4 lanes[256]; /* narrow contributions: blockDim.x / w4 lanes per column */
    for (;;) {
        const int g = i / GS, size = n - g * GS < GS ? n - g * GS : GS;
        __threadfence(); /* this block's contribution before its count */
        __syncthreads();
        if (threadIdx.x == 0) {
            last = atomicAdd(cnt + g, 1u) == (unsigned)size - 1;
            if (last) cnt[g] = 0, __threadfence();
        }
        __syncthreads();
        if (!last) return; /* uniform across the block */
        const float4 *src = tree + (size_t)g * GS * w4;
        float4 *next = tree + (size_t)n * w4;
        const int L = 2 * w4 <= (int)blockDim.x && blockDim.x <= 256 ? (int)blockDim.x / w4 : 1;
        if (L > 1) { /* lane q adds its share of the group, then the lanes are added in order */
            const int q = threadIdx.x / w4, c = threadIdx.x % w4, per = (size + L - 1) / L;
            if (q < L) {
                const int j0 = q * per < size ? q * per : size, j1 = j0 + per < size ? j0 + per : size;
                lanes[threadIdx.x] = tree_add(src, w4, c, j0, j1);
            }
            __syncthreads();
            if ((int)threadIdx.x < w4) {
                float4 s = lanes[threadIdx.x];
                for (int k = 1; k < L; k++)
                    if (k * per < size) s = add4(s, lanes[k * w4 + threadIdx.x]);
                if (n <= GS) fin((int)threadIdx.x, s);
                else next[(size_t)g * w4 + threadIdx.x] = s;
            }
        } else {
            for (int c = threadIdx.x; c < w4; c += blockDim.x) {
                const float4 s = tree_add(src, w4, c, 0, size);
                if (n <= GS) fin(c, s);
                else next[(size_t)g * w4 + c] = s;
            }
        }
        if (n <= GS) return;
        cnt += (n + GS - 1) / GS, tree = next, i = g, n = tree_next(n, GS);
    }
}

/* ---------------------------------------------------------------------------------------------
 * host side
 * ------------------------------------------------------------------------------------------ */
/* A cuBLASLt plan (descriptors and the heuristic's algorithm) per distinct GEMM: a step of GPT-2
 * has a few hundred GEMMs of a dozen shapes, and creating descriptors and asking the heuristic
 * costs tens of microseconds of host time each, which would add up to a step's GPU time. */
enum { GEMM_EPI_NONE = 0, GEMM_EPI_GELU = 1, GEMM_EPI_DGELU = 2 }; /* besides the bias */

typedef struct {
    int dt, opP, opQ, batch, bias, beta, c, epi; /* c: C is not D (a separate input of D's layout) */
    int64_t pr, pc, ldp, bsp, qr, qc, ldq, bsq, dr, dc, ldd, bsd;
    uint32_t alp, alq, ald, alc;
} gemm_key;

typedef struct {
    gemm_key key;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t lp, lq, ld;
    cublasLtMatmulAlgo_t algo;
    int no_algo; /* an epilogue (or a C apart from D) cuBLASLt has no algorithm for: the launcher falls back */
} gemm_plan;

#define GEMM_PLANS 256
enum { STAGE_SLOTS = 4, STAGE_BYTES = 1 << 20 }; /* a batch of 16 x 1024 int32 tokens is 64 KB */

typedef struct {
    cublasLtHandle_t lt;
    void *workspace;
    size_t workspace_size;
    float *partial; /* (1024) norm partial sums */
    float *scratch; /* partial column sums; grows in the first step, then reused */
    size_t scratch_floats;
    unsigned *counters; /* tree_finish's group counters: zero between launches */
    size_t counters_n;
    gemm_plan plans[GEMM_PLANS];
    int n_plans;
    int fa_fwd_attr, fa_bwd_attr; /* the flash kernels' shared-memory limit is raised */
    int ln_bwd_attr;              /* bit NV: k_layernorm_backward_vec<., NV>'s, likewise */
    int cc_major, cc_minor;
    int num_sms;         /* multiprocessors: grids sized to fill the chip in one wave */
    cudaStream_t stream; /* every launch, memset and GEMM: one stream, so that a step can be captured */
    /* copies that do not make the host wait (backend_cuda.cu): uploads of up to STAGE_BYTES go
     * through a ring of STAGE_SLOTS pinned buffers, later downloads through WB_LATER_SLOTS pinned
     * slots; each buffer has an event that says when the device is done with it */
    unsigned char *stage, *later;
    cudaEvent_t stage_done[STAGE_SLOTS], later_done[WB_LATER_SLOTS];
    int stage_next;
    void *graph, *graph_exec, *adamw_node; /* the captured step (cudaGraph_t, cudaGraphExec_t, node) */
    int graph_small_memsets; /* memset nodes of the captured step that became kernel nodes */
} cuda_impl;

static inline cuda_impl *IMPL(wb_backend *be) { return (cuda_impl *)be->impl; }

static inline unsigned blocks_for(int64_t n, int threads) { return (unsigned)((n + threads - 1) / threads); }

static inline int bad_dtype(const char *what, wb_dtype d) {
    fprintf(stderr, "cuda backend: %s does not support dtype %s\n", what, wb_dtype_name(d));
    return WB_FAIL;
}

/* LAUNCH(dtype, kernel, grid, block, args...): instantiate the kernel for bf16 or f32 */
#define LAUNCH(dt, kern, grid, block, ...)                                                         \
    do {                                                                                           \
        if ((dt) == WB_BF16) KLAUNCH(kern<bf16>, (grid), (block), 0, __VA_ARGS__);                         \
        else if ((dt) == WB_F32) KLAUNCH(kern<float>, (grid), (block), 0, __VA_ARGS__);                    \
        else return bad_dtype(#kern, (dt));                                                        \
        CUDA_CHECK_LAUNCH();                                                                       \
    } while (0)

/* pointer casts for the typed launches: P(T, x) */
#define BF(x) ((bf16 *)(x))
#define FL(x) ((float *)(x))

/* at least n floats of scratch (cudaFree synchronises: only the first step grows it, since every
 * step asks for the same sizes) */
static inline int scratch_reserve(cuda_impl *im, size_t n) {
    if (im->scratch_floats >= n) return WB_OK;
    if (im->scratch) CUDA_CHECK(cudaFree(im->scratch));
    im->scratch = NULL;
    CUDA_CHECK(cudaMalloc((void **)&im->scratch, n * sizeof(float)));
    im->scratch_floats = n;
    return WB_OK;
}

/* at least n zeroed counters for tree_finish (the kernels leave them zero; grown, like scratch,
 * in the first step only: 65536 from the start cover every launch of GPT-2 124M) */
static inline int counters_reserve(cuda_impl *im, size_t n) {
    if (im->counters_n >= n) return WB_OK;
    if (n < 65536) n = 65536;
    if (im->counters) CUDA_CHECK(cudaFree(im->counters));
    im->counters = NULL;
    CUDA_CHECK(cudaMalloc((void **)&im->counters, n * sizeof(unsigned)));
    CUDA_CHECK(cudaMemsetAsync(im->counters, 0, n * sizeof(unsigned), im->stream));
    im->counters_n = n;
    return WB_OK;
}

/* ---- row kernels' host helpers (softmax.cu, layernorm.cu) ---- */
static inline int rows_contig(const char *what, const wb_tensor *t) {
    if (!wb_is_contiguous(t)) {
        fprintf(stderr, "cuda backend: %s wants contiguous rows\n", what);
        return 0;
    }
    return 1;
}

/* The row-in-registers kernels: NV 8-element vectors per lane hold a row of C <= 256 NV <= 1024
 * columns (C a multiple of 8, so rows stay 16-byte aligned when the base is). 0: not eligible. */
static inline int row_nv(int64_t C, const wb_tensor *const *ts, int n) {
    if (C < 8 || C % 8 || C > 1024) return 0;
    for (int i = 0; i < n; i++)
        if (ts[i] && (uintptr_t)ts[i]->data % 16) return 0;
    return (int)((C + 255) / 256);
}

/* kern<T, NV> for NV = 1..4 */
#define LAUNCH_NV(nv, kern, T, grid, block, smem, ...)                                             \
    do {                                                                                           \
        switch (nv) {                                                                              \
        case 1: KLAUNCH((kern<T, 1>), grid, block, smem, __VA_ARGS__); break;                      \
        case 2: KLAUNCH((kern<T, 2>), grid, block, smem, __VA_ARGS__); break;                      \
        case 3: KLAUNCH((kern<T, 3>), grid, block, smem, __VA_ARGS__); break;                      \
        default: KLAUNCH((kern<T, 4>), grid, block, smem, __VA_ARGS__); break;                     \
        }                                                                                          \
        CUDA_CHECK_LAUNCH();                                                                       \
    } while (0)
/* the dynamic shared-memory limit of kern<T, NV> raised to smem bytes */
#define LAUNCH_NV_ATTR(nv, kern, T, smem)                                                          \
    do {                                                                                           \
        const int b_ = (int)(smem);                                                                \
        const cudaFuncAttribute a_ = cudaFuncAttributeMaxDynamicSharedMemorySize;                  \
        switch (nv) {                                                                              \
        case 1: CUDA_CHECK(cudaFuncSetAttribute((kern<T, 1>), a_, b_)); break;                     \
        case 2: CUDA_CHECK(cudaFuncSetAttribute((kern<T, 2>), a_, b_)); break;                     \
        case 3: CUDA_CHECK(cudaFuncSetAttribute((kern<T, 3>), a_, b_)); break;                     \
        default: CUDA_CHECK(cudaFuncSetAttribute((kern<T, 4>), a_, b_)); break;                    \
        }                                                                                          \
    } while (0)


/* ---------------------------------------------------------------------------------------------
 * the launchers (backend.h documents each), defined in the op-family files
 * ------------------------------------------------------------------------------------------ */
int cuda_fill(wb_backend *be, const wb_tensor *out, double v);
int cuda_binary(wb_backend *be, wb_binop op, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b, int acc);
int cuda_unary(wb_backend *be, wb_unop op, double alpha, const wb_tensor *out, const wb_tensor *a, int acc);
int cuda_unary_backward(wb_backend *be, wb_unop op, const wb_tensor *ga, const wb_tensor *g, const wb_tensor *a,
                        const wb_tensor *y, int acc);
int cuda_causal_mask(wb_backend *be, const wb_tensor *out, const wb_tensor *in, double fill, int acc);
int cuda_dropout(wb_backend *be, const wb_tensor *out, const wb_tensor *in, float p, uint64_t seed, int acc);
int cuda_gather_rows(wb_backend *be, const wb_tensor *out, const wb_tensor *table, const wb_tensor *idx);
int cuda_scatter_add_rows(wb_backend *be, const wb_tensor *gt, const wb_tensor *g, const wb_tensor *idx);
int cuda_sum_into(wb_backend *be, const wb_tensor *dst, const wb_tensor *src, double scale, int acc);
int cuda_norm_sq(wb_backend *be, void *out, const void *grads, int64_t n, wb_dtype dt);
int cuda_layernorm(wb_backend *be, const wb_tensor *out, const wb_tensor *mean, const wb_tensor *rstd,
                   const wb_tensor *in, const wb_tensor *w, const wb_tensor *b, double eps);
int cuda_layernorm_backward(wb_backend *be, const wb_tensor *gin, const wb_tensor *gw, const wb_tensor *gb,
                            const wb_tensor *g, const wb_tensor *in, const wb_tensor *w, const wb_tensor *mean,
                            const wb_tensor *rstd);
int cuda_softmax(wb_backend *be, const wb_tensor *out, const wb_tensor *in, double scale, int causal);
int cuda_softmax_backward(wb_backend *be, const wb_tensor *gin, const wb_tensor *g, const wb_tensor *y, double scale);
int cuda_cross_entropy(wb_backend *be, const wb_tensor *loss, const wb_tensor *lse, const wb_tensor *logits,
                       const wb_tensor *targets, int64_t vocab);
int cuda_cross_entropy_fused(wb_backend *be, const wb_tensor *loss, const wb_tensor *lse, const wb_tensor *gl,
                             const wb_tensor *logits, const wb_tensor *targets, int64_t vocab);
int cuda_cross_entropy_backward(wb_backend *be, const wb_tensor *gl, const wb_tensor *gloss, const wb_tensor *lse,
                                const wb_tensor *logits, const wb_tensor *targets, int64_t vocab, int acc);
__global__ void k_memset_small(void *dst, unsigned value, unsigned elem, size_t n); /* elementwise.cu */
int cuda_attention_supported(wb_backend *be, wb_dtype d, int64_t head_dim);
int cuda_attention(wb_backend *be, const wb_tensor *out, const wb_tensor *lse, const wb_tensor *q,
                   const wb_tensor *k, const wb_tensor *v, double scale);
int cuda_attention_backward(wb_backend *be, const wb_tensor *gq, const wb_tensor *gk, const wb_tensor *gv,
                            const wb_tensor *g, const wb_tensor *out, const wb_tensor *lse, const wb_tensor *q,
                            const wb_tensor *k, const wb_tensor *v, double scale, int acc);
int cuda_gemm(wb_backend *be, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b, const wb_tensor *bias,
              double alpha, int acc);
int cuda_gemm_gelu(wb_backend *be, const wb_tensor *out, const wb_tensor *pre, const wb_tensor *a, const wb_tensor *b,
                   const wb_tensor *bias);
int cuda_gemm_dgelu(wb_backend *be, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b, const wb_tensor *pre);
int cuda_gemm_add(wb_backend *be, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b, const wb_tensor *bias,
                  const wb_tensor *c);
void cuda_gemm_plans_free(cuda_impl *im);
int cuda_adamw(wb_backend *be, const wb_adamw_args *a);
#ifndef WB_CUDA_EMULATION
int cuda_adamw_update_node(cudaGraphExec_t exec, cudaGraphNode_t node, const wb_adamw_args *a);
#endif

#endif
