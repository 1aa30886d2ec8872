/*
 * backend_cuda.cu: the CUDA backend. bf16 storage with f32 arithmetic (every kernel loads to
 * float and rounds once on store), or plain f32. GEMMs go through cuBLASLt with f32 compute;
 * linear layers get their bias in the GEMM epilogue. Everything runs on the legacy default stream
 * in issue order; nothing synchronises with the host except to_host / to_device / sync.
 *
 * One kernel per backend call where possible (the launch counts are the lesson's answer key), each
 * written to the memory system: 16-byte accesses, every element read once, rows held in
 * registers, no local memory (PERF_NOTES.md has the measurements and the predictions). Fused
 * attention, FlashAttention-2 style on mma.sync, is in flash_attention.cuh. What each kernel
 * costs is noted beside it.
 *
 * Layout: kernels first, then the host functions that launch them, then the table.
 */
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
#include "wb_check.h"

typedef __nv_bfloat16 bf16;

/* kern<<<grid, block, shared bytes>>>(args), spelled so that the emulation can run it too */
#ifdef WB_CUDA_EMULATION
#define KLAUNCH(kern, grid, block, smem_bytes, ...) ((void)(smem_bytes), emu_launch(dim3(grid), dim3(block), [&] { kern(__VA_ARGS__); }))
#else
#define KLAUNCH(kern, grid, block, smem_bytes, ...) kern<<<(grid), (block), (smem_bytes)>>>(__VA_ARGS__)
#endif
/* a kernel's dynamic shared memory (the emulation points it at a buffer of its own) */
#ifndef FA_DYNAMIC_SHARED
#define FA_DYNAMIC_SHARED(name) extern __shared__ __align__(128) unsigned char name[]
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

static TDesc desc(const wb_tensor *t) {
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

/* GELU (tanh approximation) without tanhf: 0.5 x (1 + tanh u) = x sigma(2u), u = s (x + 0.044715 x^3).
 * With e = exp(-|2u|) in (0, 1] and r = 1 / (1 + e): sigma(2u) = r for u >= 0, e r otherwise, and
 * sigma (1 - sigma) = e r^2, so gelu'(x) = sigma + 2 x e r^2 u'. One ex2 and one approximate
 * reciprocal (of a number in [1, 2]) per element, no branch, no overflow: relative error ~1e-6.
 * tanhf costs ~30 instructions with a branch; at [16384, 3072] that made the GELU forward issue-bound
 * (76.5 us for 201 MB, 49 us at copy bandwidth). */
__device__ __forceinline__ void gelu_parts(float x, float &sig, float &er2) {
    const float s = 0.7978845608028654f;
    float u = s * x * (1.0f + 0.044715f * x * x);
    float e = __expf(-2.0f * fabsf(u)), r = __fdividef(1.0f, 1.0f + e);
    sig = u >= 0.0f ? r : e * r;
    er2 = e * r * r;
}
__device__ __forceinline__ float gelu_f(float x) {
    float sig, er2;
    gelu_parts(x, sig, er2);
    return x * sig;
}
__device__ __forceinline__ float gelu_df(float x) {
    const float s = 0.7978845608028654f;
    float sig, er2;
    gelu_parts(x, sig, er2);
    return sig + 2.0f * x * er2 * s * (1.0f + 3.0f * 0.044715f * x * x);
}

/* ---------------------------------------------------------------------------------------------
 * elementwise kernels (memory-bound: what counts is bytes per instruction and no wasted bytes)
 *
 * Three paths per op, picked on the host:
 *   vec8     every operand contiguous with out's shape, 16-byte aligned: eight elements a thread
 *            through 16-byte loads and stores (two for f32)
 *   rows8    every operand has unit stride along the last dim, which is a multiple of 8, and every
 *            other stride keeps 16-byte alignment (permuted heads, broadcast rows such as the
 *            position embedding): one offset computation per eight elements, then 16-byte accesses
 *   scalar   anything else: one thread per element, offsets through off()
 * ------------------------------------------------------------------------------------------ */
template <typename T>
__global__ void k_fill(TDesc out, int64_t n, float v) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) st((T *)out.p + off(out, i), v);
}

__device__ __forceinline__ float binop(int op, float x, float y) {
    switch (op) {
    case WB_OP_ADD: return x + y;
    case WB_OP_SUB: return x - y;
    case WB_OP_MUL: return x * y;
    default: return x / y;
    }
}

/* contig: bit 0 out, bit 1 a, bit 2 b is contiguous with out's shape (its index is i) */
template <typename T>
__global__ void k_binary(int op, TDesc out, TDesc a, TDesc b, int64_t n, int acc, int contig) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    int64_t oo = contig & 1 ? i : off(out, i), oa = contig & 2 ? i : off(a, i), ob = contig & 4 ? i : off(b, i);
    float r = binop(op, ld((const T *)a.p + oa), ld((const T *)b.p + ob));
    T *o = (T *)out.p + oo;
    st(o, acc ? ld(o) + r : r);
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

/* vec8 kernels: two 8-element vectors a thread, v and v + blockDim.x (both warps' accesses stay
 * 512 contiguous bytes), every load of both issued before the first use */
template <typename T>
__global__ void k_binary_vec8(int op, T *out, const T *a, const T *b, int64_t n8, int acc) {
    const int64_t v0 = blockIdx.x * 2 * (int64_t)blockDim.x + threadIdx.x;
    float x[2][8], y[2][8], o[2][8];
    UNROLL
    for (int q = 0; q < 2; q++) {
        int64_t v = v0 + q * (int64_t)blockDim.x;
        if (v >= n8) continue;
        ld8(x[q], a + v * 8), ld8(y[q], b + v * 8);
        if (acc) ld8(o[q], out + v * 8);
    }
    UNROLL
    for (int q = 0; q < 2; q++) {
        int64_t v = v0 + q * (int64_t)blockDim.x;
        if (v >= n8) continue;
        UNROLL
        for (int k = 0; k < 8; k++) o[q][k] = (acc ? o[q][k] : 0.0f) + binop(op, x[q][k], y[q][k]);
        st8(out + v * 8, o[q]);
    }
}

/* rows8: vector v covers elements [8v, 8v + 8) of out's row-major order, contiguous in every
 * operand (unit stride along the last dim, which is a multiple of 8) */
template <typename T, typename I>
__global__ void k_binary_rows8(int op, TDesc out, TDesc a, TDesc b, I n8, int acc) {
    I v = blockIdx.x * (I)blockDim.x + threadIdx.x;
    if (v >= n8) return;
    I i = v * 8;
    T *po = (T *)out.p + off(out, i);
    float x[8], y[8], o[8];
    ld8(x, (const T *)a.p + off(a, i)), ld8(y, (const T *)b.p + off(b, i));
    if (acc) ld8(o, po);
    UNROLL
    for (int k = 0; k < 8; k++) o[k] = (acc ? o[k] : 0.0f) + binop(op, x[k], y[k]);
    st8(po, o);
}

__device__ __forceinline__ float unop(int op, float x) {
    switch (op) {
    case WB_OP_LOG: return logf(x);
    case WB_OP_EXP: return expf(x);
    case WB_OP_GELU: return gelu_f(x);
    case WB_OP_SQUARE: return x * x;
    case WB_OP_SQRT: return sqrtf(x);
    default: return x;
    }
}

/* f'(x) for the pullbacks; exp and sqrt read their output y instead */
__device__ __forceinline__ float unop_df(int op, float x, float y) {
    switch (op) {
    case WB_OP_LOG: return 1.0f / x;
    case WB_OP_EXP: return y;
    case WB_OP_GELU: return gelu_df(x);
    case WB_OP_SQUARE: return 2.0f * x;
    case WB_OP_SQRT: return 0.5f / y;
    default: return 1.0f;
    }
}

template <typename T>
__global__ void k_unary_vec8(int op, float alpha, T *out, const T *a, int64_t n8, int acc) {
    const int64_t v0 = blockIdx.x * 2 * (int64_t)blockDim.x + threadIdx.x;
    float x[2][8], o[2][8];
    UNROLL
    for (int q = 0; q < 2; q++) {
        int64_t v = v0 + q * (int64_t)blockDim.x;
        if (v >= n8) continue;
        ld8(x[q], a + v * 8);
        if (acc) ld8(o[q], out + v * 8);
    }
    UNROLL
    for (int q = 0; q < 2; q++) {
        int64_t v = v0 + q * (int64_t)blockDim.x;
        if (v >= n8) continue;
        UNROLL
        for (int k = 0; k < 8; k++) o[q][k] = (acc ? o[q][k] : 0.0f) + alpha * unop(op, x[q][k]);
        st8(out + v * 8, o[q]);
    }
}

template <typename T, typename I>
__global__ void k_unary_rows8(int op, float alpha, TDesc out, TDesc a, I n8, int acc) {
    I v = blockIdx.x * (I)blockDim.x + threadIdx.x;
    if (v >= n8) return;
    I i = v * 8;
    T *po = (T *)out.p + off(out, i);
    float x[8], o[8];
    ld8(x, (const T *)a.p + off(a, i));
    if (acc) ld8(o, po);
    UNROLL
    for (int k = 0; k < 8; k++) o[k] = (acc ? o[k] : 0.0f) + alpha * unop(op, x[k]);
    st8(po, o);
}

template <typename T>
__global__ void k_unary(int op, float alpha, TDesc out, TDesc a, int64_t n, int acc, int contig) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float r = alpha * unop(op, ld((const T *)a.p + (contig & 2 ? i : off(a, i))));
    T *o = (T *)out.p + (contig & 1 ? i : off(out, i));
    st(o, acc ? ld(o) + r : r);
}

/* ga += g * f'(a), all four contiguous with one shape (GELU's pullback on [B*T, 4C]): 4 x 16 bytes
 * per 8 elements (y only for exp and sqrt), f32 arithmetic */
template <typename T>
__global__ void k_unary_backward_vec8(int op, T *ga, const T *g, const T *a, const T *y, int64_t n8) {
    int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (v >= n8) return;
    float x[8], gy[8], yy[8], o[8];
    ld8(x, a + v * 8), ld8(gy, g + v * 8), ld8(o, ga + v * 8);
    if (op == WB_OP_EXP || op == WB_OP_SQRT) ld8(yy, y + v * 8);
    else
        for (int k = 0; k < 8; k++) yy[k] = 0.0f;
    UNROLL
    for (int k = 0; k < 8; k++) o[k] += gy[k] * unop_df(op, x[k], yy[k]);
    st8(ga + v * 8, o);
}

/* contig: all four operands contiguous with one shape */
template <typename T>
__global__ void k_unary_backward(int op, TDesc ga, TDesc g, TDesc a, TDesc y, int64_t n, int contig) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = ld((const T *)a.p + (contig ? i : off(a, i))), gy = ld((const T *)g.p + (contig ? i : off(g, i)));
    float yv = op == WB_OP_EXP || op == WB_OP_SQRT ? ld((const T *)y.p + (contig ? i : off(y, i))) : 0.0f;
    T *o = (T *)ga.p + (contig ? i : off(ga, i));
    st(o, ld(o) + gy * unop_df(op, x, yv));
}

template <typename T>
__global__ void k_causal_mask(TDesc out, TDesc in, float fill, int64_t n, int64_t Tn, int acc) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    int64_t col = i % Tn, row = (i / Tn) % Tn;
    float v = col > row ? fill : ld((const T *)in.p + off(in, i));
    T *o = (T *)out.p + off(out, i);
    st(o, acc ? ld(o) + v : v);
}

template <typename T>
__global__ void k_dropout(TDesc out, TDesc in, float p, uint64_t seed, int64_t n, int acc) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = wb_hash_uniform(seed, (uint64_t)i) >= p ? ld((const T *)in.p + off(in, i)) / (1.0f - p) : 0.0f;
    T *o = (T *)out.p + off(out, i);
    st(o, acc ? ld(o) + v : v);
}

/* ---------------------------------------------------------------------------------------------
 * reductions
 * ------------------------------------------------------------------------------------------ */
/* General sum_into: one thread per dst element, looping over the reduced index space. Slow when
 * few dst elements each reduce many (use k_sum_cols for that case). */
template <typename T>
__global__ void k_sum_into(TDesc dst, TDesc src, int red_mask, int64_t n_dst, int64_t n_red, float scale, int acc) {
    int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (j >= n_dst) return;
    int64_t base = 0, rem = j;
    UNROLL /* compile-time dims: no stack frame (see off()) */
    for (int d = WB_MAX_DIMS - 1; d >= 0; d--) {
        int64_t idx = rem % dst.shape[d];
        rem /= dst.shape[d];
        if (!(red_mask >> d & 1)) base += idx * src.stride[d];
    }
    float s = 0.0f;
    for (int64_t r = 0; r < n_red; r++) {
        int64_t o = base, q = r;
        UNROLL
        for (int d = WB_MAX_DIMS - 1; d >= 0; d--) {
            if (!(red_mask >> d & 1)) continue;
            o += (q % src.shape[d]) * src.stride[d];
            q /= src.shape[d];
        }
        s += ld((const T *)src.p + o);
    }
    T *o = (T *)dst.p + off(dst, j);
    float v = scale * s;
    st(o, acc ? ld(o) + v : v);
}

/* Column sums of a contiguous (M, N) into a contiguous (N): bias gradients, position-embedding
 * gradients. Block (32, 8): 32 columns, 8 row lanes, reduced through shared memory. */
template <typename T>
__global__ void k_sum_cols(T *dst, const T *src, int64_t M, int64_t N, float scale, int acc) {
    __shared__ float part[8][33];
    int64_t c = blockIdx.x * 32 + threadIdx.x;
    float s = 0.0f;
    if (c < N)
        for (int64_t r = threadIdx.y; r < M; r += 8) s += ld(src + r * N + c);
    part[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && c < N) {
        float t = 0.0f;
        for (int k = 0; k < 8; k++) t += part[k][threadIdx.x];
        t *= scale;
        st(dst + c, acc ? ld(dst + c) + t : t);
    }
}

/* The same with many rows: pass 1 sums row chunks into f32 partials (chunks, N), pass 2 adds
 * the chunks per column. 64 chunks put ~1500 blocks to work where k_sum_cols has 24. */
template <typename T>
__global__ void k_sum_cols_partial(float *part, const T *src, int64_t M, int64_t N, int64_t rows_per_chunk) {
    __shared__ float buf[8][33];
    int64_t c = blockIdx.x * 32 + threadIdx.x, r0 = blockIdx.y * rows_per_chunk;
    int64_t r1 = r0 + rows_per_chunk < M ? r0 + rows_per_chunk : M;
    float s = 0.0f;
    if (c < N)
        for (int64_t r = r0 + threadIdx.y; r < r1; r += 8) s += ld(src + r * N + c);
    buf[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && c < N) {
        float t = 0.0f;
        for (int k = 0; k < 8; k++) t += buf[k][threadIdx.x];
        part[blockIdx.y * N + c] = t;
    }
}

/* The same pass 1 with 16-byte loads (N a multiple of 8, src 16-byte aligned): a block of 256
 * threads covers 256 columns, thread (x, y) = (threadIdx.x % 32, threadIdx.x / 32) the 8 columns
 * [8x, 8x + 8) of its slab and the rows y, y + 8, ... of the chunk (a warp reads 512 contiguous
 * bytes of one row per load). Chunks of 64 rows: 8 loads per thread, all in flight. */
template <typename T>
__global__ void __launch_bounds__(256) k_sum_cols_partial_vec(float *part, const T *src, int64_t M, int64_t N,
                                                              int64_t rows_per_chunk) {
    __shared__ float buf[8][256 + 4];
    const int x = threadIdx.x % 32, y = threadIdx.x / 32;
    const int64_t c = (blockIdx.x * 32 + x) * (int64_t)8, r0 = blockIdx.y * rows_per_chunk;
    const int64_t r1 = r0 + rows_per_chunk < M ? r0 + rows_per_chunk : M;
    float s[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    if (c < N) {
        UNROLL4
        for (int64_t r = r0 + y; r < r1; r += 8) {
            float v[8];
            ld8(v, src + r * N + c);
            UNROLL
            for (int e = 0; e < 8; e++) s[e] += v[e];
        }
    }
    UNROLL
    for (int e = 0; e < 8; e++) buf[y][8 * x + e] = s[e];
    __syncthreads();
    const int64_t col = blockIdx.x * (int64_t)256 + threadIdx.x;
    if (col < N) {
        float t = 0.0f;
        UNROLL
        for (int k = 0; k < 8; k++) t += buf[k][threadIdx.x];
        part[blockIdx.y * N + col] = t;
    }
}

/* pass 2: block (32, 8), 32 columns, lane y adds chunks y, y + 8, ... (unrolled, so that several
 * loads are in flight), then lane 0 adds the 8 lanes in order: deterministic. Round 1 had a thread
 * per column walking all chunks one load at a time: 3 blocks at N = 768. */
template <typename T>
__global__ void __launch_bounds__(256) k_sum_cols_final(T *dst, const float *part, int chunks, int64_t N, float scale,
                                                        int acc) {
    __shared__ float buf[8][33];
    const int64_t c = blockIdx.x * (int64_t)32 + threadIdx.x;
    float t = 0.0f;
    if (c < N) {
        UNROLL4
        for (int k = threadIdx.y; k < chunks; k += 8) t += part[k * N + c];
    }
    buf[threadIdx.y][threadIdx.x] = t;
    __syncthreads();
    if (threadIdx.y == 0 && c < N) {
        t = 0.0f;
        UNROLL
        for (int k = 0; k < 8; k++) t += buf[k][threadIdx.x];
        t *= scale;
        st(dst + c, acc ? ld(dst + c) + t : t);
    }
}

/* squared norm: per-block partial sums, then one block adds the partials (deterministic) */
template <typename T>
__global__ void k_norm_partial(const T *g, int64_t n, float *partial) {
    float s = 0.0f;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        float v = ld(g + i);
        s += v * v;
    }
    s = block_reduce<false>(s);
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

__global__ void k_norm_final(const float *partial, int n, float *out) {
    float s = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) s += partial[i];
    s = block_reduce<false>(s);
    if (threadIdx.x == 0) *out = s;
}

/* ---------------------------------------------------------------------------------------------
 * row kernels: one warp per row (rows of contiguous memory)
 * ------------------------------------------------------------------------------------------ */
template <typename T>
__global__ void k_softmax(T *out, const T *in, int64_t R, int64_t C, int64_t Tn, float scale, int causal) {
    int64_t r = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (r >= R) return;
    const T *x = in + r * C;
    T *y = out + r * C;
    int64_t lim = causal ? (r % Tn) + 1 : C;
    float mx = -INFINITY;
    for (int64_t j = lane; j < lim; j += 32) mx = fmaxf(mx, scale * ld(x + j));
    mx = warp_max(mx);
    float s = 0.0f;
    for (int64_t j = lane; j < lim; j += 32) s += expf(scale * ld(x + j) - mx);
    s = warp_sum(s);
    float inv = 1.0f / s;
    for (int64_t j = lane; j < C; j += 32) st(y + j, j < lim ? expf(scale * ld(x + j) - mx) * inv : 0.0f);
}

template <typename T>
__global__ void k_softmax_backward(T *gin, const T *g, const T *y, int64_t R, int64_t C, float scale) {
    int64_t r = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (r >= R) return;
    g += r * C, y += r * C, gin += r * C;
    float dot = 0.0f;
    for (int64_t j = lane; j < C; j += 32) dot += ld(g + j) * ld(y + j);
    dot = warp_sum(dot);
    for (int64_t j = lane; j < C; j += 32) st(gin + j, ld(gin + j) + scale * ld(y + j) * (ld(g + j) - dot));
}

template <typename T>
__global__ void k_layernorm(T *out, float *mean, float *rstd, const T *in, const T *w, const T *b, int64_t N,
                            int64_t C, float eps) {
    int64_t r = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (r >= N) return;
    const T *x = in + r * C;
    float m = 0.0f;
    for (int64_t j = lane; j < C; j += 32) m += ld(x + j);
    m = warp_sum(m) / (float)C;
    float v = 0.0f;
    for (int64_t j = lane; j < C; j += 32) {
        float d = ld(x + j) - m;
        v += d * d;
    }
    v = warp_sum(v) / (float)C;
    float s = rsqrtf(v + eps);
    for (int64_t j = lane; j < C; j += 32) st(out + r * C + j, (ld(x + j) - m) * s * ld(w + j) + ld(b + j));
    if (lane == 0) mean[r] = m, rstd[r] = s;
}

/* The same row kernels with the row in registers: a warp per row, lane l holds the 8-element
 * vectors l, l + 32, ..., l + 32 (NV - 1) (C a multiple of 8, C <= 256 NV, 16-byte aligned rows).
 * All of a row's loads are issued before the first use, every access is 16 bytes, and each
 * element is read from memory once. The scalar kernels above remain for other widths. */
template <typename T, int NV>
__global__ void __launch_bounds__(256) k_layernorm_vec(T *__restrict__ out, float *__restrict__ mean,
                                                       float *__restrict__ rstd, const T *__restrict__ in,
                                                       const T *__restrict__ w, const T *__restrict__ b, int64_t N,
                                                       int C, float eps) {
    int64_t r = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32, C8 = C / 8;
    if (r >= N) return;
    const T *x = in + r * C;
    float v[NV][8], sum = 0.0f;
    UNROLL
    for (int k = 0; k < NV; k++) {
        int j = lane + 32 * k;
        if (j < C8) ld8(v[k], x + 8 * j);
        UNROLL
        for (int e = 0; e < 8; e++) {
            if (j >= C8) v[k][e] = 0.0f;
            sum += v[k][e];
        }
    }
    float m = warp_sum(sum) / (float)C, var = 0.0f;
    UNROLL
    for (int k = 0; k < NV; k++)
        if (lane + 32 * k < C8)
            UNROLL
            for (int e = 0; e < 8; e++) var += (v[k][e] - m) * (v[k][e] - m);
    float s = rsqrtf(warp_sum(var) / (float)C + eps);
    UNROLL
    for (int k = 0; k < NV; k++) {
        int j = lane + 32 * k;
        if (j >= C8) continue;
        float wv[8], bv[8], o[8];
        ld8(wv, w + 8 * j), ld8(bv, b + 8 * j);
        UNROLL
        for (int e = 0; e < 8; e++) o[e] = (v[k][e] - m) * s * wv[e] + bv[e];
        st8(out + r * C + 8 * j, o);
    }
    if (lane == 0) mean[r] = m, rstd[r] = s;
}

/* Layer norm's whole pullback in one pass over g and x (a second kernel, k_ln_w_final, adds the
 * blocks' column sums). Each warp takes rows r = warp + nwarps (blockIdx.x + gridDim.x k), row in
 * registers: gin += rstd (g w - mean(g w) - xhat mean(g w xhat)), and per lane, for its own
 * columns, sums of g xhat (the gain's gradient) and g (the bias's). At the end the block adds its
 * warps' sums in warp order in shared memory and writes them to pw, pb (gridDim.x, C), or skips
 * that when pw is NULL. Deterministic: every sum has a fixed order. */
template <typename T, int NV>
__global__ void __launch_bounds__(128) k_layernorm_backward_vec(T *__restrict__ gin, float *__restrict__ pw,
                                                                float *__restrict__ pb, const T *__restrict__ g,
                                                                const T *__restrict__ in, const T *__restrict__ w,
                                                                const float *__restrict__ mean,
                                                                const float *__restrict__ rstd, int64_t N, int C) {
    __shared__ float sw[256 * NV], sb[256 * NV];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nw = blockDim.x / 32, C8 = C / 8;
    float dw[NV][8], db[NV][8];
    UNROLL
    for (int k = 0; k < NV; k++)
        UNROLL
        for (int e = 0; e < 8; e++) dw[k][e] = db[k][e] = 0.0f;
    for (int64_t r = blockIdx.x * (int64_t)nw + warp; r < N; r += (int64_t)gridDim.x * nw) {
        float gv[NV][8], xv[NV][8], ov[NV][8];
        UNROLL
        for (int k = 0; k < NV; k++) { /* every load of the row in flight at once */
            int j = lane + 32 * k;
            if (j < C8) {
                ld8(gv[k], g + r * C + 8 * j), ld8(xv[k], in + r * C + 8 * j);
                if (gin) ld8(ov[k], gin + r * C + 8 * j);
            } else {
                UNROLL
                for (int e = 0; e < 8; e++) gv[k][e] = xv[k][e] = 0.0f;
            }
        }
        const float m = mean[r], s = rstd[r];
        float a = 0.0f, bs = 0.0f;
        UNROLL
        for (int k = 0; k < NV; k++) {
            int j = lane + 32 * k;
            if (j >= C8) continue;
            float wv[8];
            ld8(wv, w + 8 * j);
            UNROLL
            for (int e = 0; e < 8; e++) {
                float xh = (xv[k][e] - m) * s, dxh = gv[k][e] * wv[e];
                a += dxh, bs += dxh * xh;
                dw[k][e] += gv[k][e] * xh, db[k][e] += gv[k][e];
                xv[k][e] = xh, gv[k][e] = dxh; /* keep xhat and g w for the input gradient */
            }
        }
        a = warp_sum(a) / (float)C, bs = warp_sum(bs) / (float)C;
        if (gin)
            UNROLL
            for (int k = 0; k < NV; k++) {
                int j = lane + 32 * k;
                if (j >= C8) continue;
                UNROLL
                for (int e = 0; e < 8; e++) ov[k][e] += s * (gv[k][e] - a - xv[k][e] * bs);
                st8(gin + r * C + 8 * j, ov[k]);
            }
    }
    if (!pw) return; /* uniform across the block */
    for (int q = 0; q < nw; q++) {
        if (warp == q)
            UNROLL
            for (int k = 0; k < NV; k++) {
                int j = lane + 32 * k;
                if (j >= C8) continue;
                UNROLL
                for (int e = 0; e < 8; e++) {
                    sw[8 * j + e] = (q ? sw[8 * j + e] : 0.0f) + dw[k][e];
                    sb[8 * j + e] = (q ? sb[8 * j + e] : 0.0f) + db[k][e];
                }
            }
        __syncthreads();
    }
    for (int c = threadIdx.x; c < C; c += blockDim.x) pw[blockIdx.x * (int64_t)C + c] = sw[c], pb[blockIdx.x * (int64_t)C + c] = sb[c];
}

/* Version 2 of the bf16 pullback above (WB_LN_BWD=2 selects it; measured slower than version 1 on the H200),
 * written for more loads in flight. Version 1 holds a row as 72 f32 per lane plus 48 f32 column
 * accumulators: 149 registers, 12 warps per SM, one row in flight per warp and nothing overlapping
 * its latency: 42 us per call at [16384, 768] for 101 MB (25 us at copy bandwidth). Here each warp
 * issues the next row's loads (r + the grid's warp count) before it computes row r, both rows kept
 * as raw bf16 (4 registers per 8 elements, converted where used), and the column
 * sums live in shared memory, one region per warp, each lane owning its columns: 3 blocks of 4
 * warps per SM as before, but 24 rows in flight per SM instead of 12. Same arithmetic in the same
 * order as version 1 (row by row, then warps in order): the same bits. */
template <int NV>
__global__ void __launch_bounds__(128, 3) k_layernorm_backward_vec2(bf16 *__restrict__ gin, float *__restrict__ pw,
                                                                    float *__restrict__ pb, const bf16 *__restrict__ g,
                                                                    const bf16 *__restrict__ in, const bf16 *__restrict__ w,
                                                                    const float *__restrict__ mean,
                                                                    const float *__restrict__ rstd, int64_t N, int C) {
    __shared__ __align__(16) float sw[4][256 * NV], sb[4][256 * NV]; /* blockDim.x == 128 */
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, C8 = C / 8;
    float *mw = sw[warp], *mb = sb[warp];
    UNROLL
    for (int k = 0; k < NV; k++) { /* each lane's own columns: no barrier needed */
        int j = lane + 32 * k;
        if (j < C8)
            UNROLL
            for (int e = 0; e < 8; e++) mw[8 * j + e] = mb[8 * j + e] = 0.0f;
    }
    const int64_t stride = (int64_t)gridDim.x * 4;
    int64_t r = blockIdx.x * (int64_t)4 + warp;
    pack8<bf16> gc[NV], xc[NV], oc[NV], gn[NV], xn[NV], on[NV]; /* this row's and the next row's raw bf16 */
    UNROLL
    for (int k = 0; k < NV; k++) {
        int j = lane + 32 * k;
        if (r >= N || j >= C8) continue;
        gc[k] = *(const pack8<bf16> *)(g + r * C + 8 * j), xc[k] = *(const pack8<bf16> *)(in + r * C + 8 * j);
        if (gin) oc[k] = *(const pack8<bf16> *)(gin + r * C + 8 * j);
    }
    for (; r < N; r += stride) {
        const int64_t rn = r + stride;
        UNROLL
        for (int k = 0; k < NV; k++) { /* the next row's loads fly while this row is computed */
            int j = lane + 32 * k;
            if (rn >= N || j >= C8) continue;
            gn[k] = *(const pack8<bf16> *)(g + rn * C + 8 * j), xn[k] = *(const pack8<bf16> *)(in + rn * C + 8 * j);
            if (gin) on[k] = *(const pack8<bf16> *)(gin + rn * C + 8 * j);
        }
        const float m = mean[r], s = rstd[r];
        float a = 0.0f, bs = 0.0f;
        UNROLL
        for (int k = 0; k < NV; k++) {
            int j = lane + 32 * k;
            if (j >= C8) continue;
            float wv[8];
            ld8(wv, w + 8 * j);
            UNROLL
            for (int e = 0; e < 8; e++) {
                float gv = ld(&gc[k].v[e]), xh = (ld(&xc[k].v[e]) - m) * s, dxh = gv * wv[e];
                a += dxh, bs += dxh * xh;
                if (pw) mw[8 * j + e] += gv * xh, mb[8 * j + e] += gv;
            }
        }
        a = warp_sum(a) / (float)C, bs = warp_sum(bs) / (float)C;
        if (gin)
            UNROLL
            for (int k = 0; k < NV; k++) {
                int j = lane + 32 * k;
                if (j >= C8) continue;
                float wv[8], ov[8];
                ld8(wv, w + 8 * j);
                UNROLL
                for (int e = 0; e < 8; e++) {
                    float xh = (ld(&xc[k].v[e]) - m) * s, dxh = ld(&gc[k].v[e]) * wv[e];
                    ov[e] = ld(&oc[k].v[e]) + s * (dxh - a - xh * bs);
                }
                st8(gin + r * C + 8 * j, ov);
            }
        UNROLL
        for (int k = 0; k < NV; k++) gc[k] = gn[k], xc[k] = xn[k], oc[k] = on[k];
    }
    if (!pw) return; /* uniform across the block */
    __syncthreads();
    for (int c = threadIdx.x; c < C; c += blockDim.x) {
        float tw = 0.0f, tb = 0.0f;
        UNROLL
        for (int q = 0; q < 4; q++) tw += sw[q][c], tb += sb[q][c];
        pw[blockIdx.x * (int64_t)C + c] = tw, pb[blockIdx.x * (int64_t)C + c] = tb;
    }
}

/* The same for any C (not a multiple of 8, or wider than 1024): one warp per block, so that each
 * column's sums belong to one lane and live in shared memory (2 C floats, dynamic). */
template <typename T>
__global__ void __launch_bounds__(32) k_layernorm_backward_any(T *gin, float *pw, float *pb, const T *g, const T *in,
                                                               const T *w, const float *mean, const float *rstd,
                                                               int64_t N, int64_t C) {
    FA_DYNAMIC_SHARED(smem);
    float *sw = (float *)smem, *sb = sw + C;
    const int lane = threadIdx.x;
    for (int64_t c = lane; c < C; c += 32) sw[c] = sb[c] = 0.0f;
    for (int64_t r = blockIdx.x; r < N; r += gridDim.x) {
        const T *x = in + r * C, *gr = g + r * C;
        float m = mean[r], s = rstd[r], a = 0.0f, bs = 0.0f;
        for (int64_t j = lane; j < C; j += 32) {
            float dxh = ld(gr + j) * ld(w + j), xh = (ld(x + j) - m) * s;
            a += dxh, bs += dxh * xh;
        }
        a = warp_sum(a) / (float)C, bs = warp_sum(bs) / (float)C;
        for (int64_t j = lane; j < C; j += 32) {
            float gv = ld(gr + j), xh = (ld(x + j) - m) * s, dxh = gv * ld(w + j);
            sw[j] += gv * xh, sb[j] += gv;
            if (gin) {
                T *o = gin + r * C + j;
                st(o, ld(o) + s * (dxh - a - xh * bs));
            }
        }
    }
    if (pw)
        for (int64_t c = lane; c < C; c += 32) pw[blockIdx.x * C + c] = sw[c], pb[blockIdx.x * C + c] = sb[c];
}

/* softmax along rows with the row in registers (C <= 256 NV): the causal rows read only their first
 * lim = (row mod T) + 1 columns and write zeros past them without reading */
template <typename T, int NV>
__global__ void __launch_bounds__(256) k_softmax_vec(T *__restrict__ out, const T *__restrict__ in, int64_t R, int C,
                                                     int64_t Tn, float scale, int causal) {
    int64_t r = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32, C8 = C / 8;
    if (r >= R) return;
    const int lim = causal ? (int)(r % Tn) + 1 : C;
    const T *x = in + r * C;
    float v[NV][8], mx = -INFINITY;
    UNROLL
    for (int k = 0; k < NV; k++) {
        int j = lane + 32 * k;
        if (j < C8 && 8 * j < lim) ld8(v[k], x + 8 * j);
        UNROLL
        for (int e = 0; e < 8; e++) {
            v[k][e] = j < C8 && 8 * j + e < lim ? v[k][e] * scale : -INFINITY;
            mx = fmaxf(mx, v[k][e]);
        }
    }
    mx = warp_max(mx);
    float s = 0.0f;
    UNROLL
    for (int k = 0; k < NV; k++)
        UNROLL
        for (int e = 0; e < 8; e++) s += (v[k][e] = __expf(v[k][e] - mx)); /* exp(-inf) = 0 */
    float inv = 1.0f / warp_sum(s);
    UNROLL
    for (int k = 0; k < NV; k++) {
        int j = lane + 32 * k;
        if (j >= C8) continue;
        UNROLL
        for (int e = 0; e < 8; e++) v[k][e] *= inv;
        st8(out + r * C + 8 * j, v[k]);
    }
}

/* gin += scale y (g - sum(g y)), row in registers. Where a whole 8-element vector of y is zero (the
 * masked part of a causal softmax: half of every (T, T) row block), g is not read and gin is not
 * touched: its update is scale * 0 * (g - dot) = 0 for any finite g. */
template <typename T, int NV>
__global__ void __launch_bounds__(256) k_softmax_backward_vec(T *__restrict__ gin, const T *__restrict__ g,
                                                              const T *__restrict__ y, int64_t R, int C, float scale) {
    int64_t r = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32, C8 = C / 8;
    if (r >= R) return;
    float yv[NV][8], gv[NV][8], ov[NV][8];
    bool nz[NV];
    UNROLL
    for (int k = 0; k < NV; k++) {
        int j = lane + 32 * k;
        nz[k] = false;
        if (j < C8) {
            ld8(yv[k], y + r * C + 8 * j);
            UNROLL
            for (int e = 0; e < 8; e++) nz[k] = nz[k] || yv[k][e] != 0.0f;
        }
    }
    float dot = 0.0f;
    UNROLL
    for (int k = 0; k < NV; k++) {
        int j = lane + 32 * k;
        if (!nz[k]) continue;
        ld8(gv[k], g + r * C + 8 * j), ld8(ov[k], gin + r * C + 8 * j);
        UNROLL
        for (int e = 0; e < 8; e++) dot += gv[k][e] * yv[k][e];
    }
    dot = warp_sum(dot);
    UNROLL
    for (int k = 0; k < NV; k++) {
        if (!nz[k]) continue;
        UNROLL
        for (int e = 0; e < 8; e++) ov[k][e] += scale * yv[k][e] * (gv[k][e] - dot);
        st8(gin + r * C + 8 * (lane + 32 * k), ov[k]);
    }
}

/* gw += the chunks' sums of pw, gb += those of pb: block (32, 16), 32 columns, lane y adds chunks
 * y, y + 16, ... (loads unrolled), then lane 0 adds the 16 lanes in order (deterministic). Round 1
 * had one thread per column walking ~400 chunks one load at a time (3 blocks at C = 768, 15.7 us). */
template <typename T>
__global__ void __launch_bounds__(512) k_ln_w_final(T *gw, T *gb, const float *pw, const float *pb, int chunks, int64_t C) {
    __shared__ float sw[16][33], sb[16][33];
    const int64_t c = blockIdx.x * (int64_t)32 + threadIdx.x;
    float tw = 0.0f, tb = 0.0f;
    if (c < C) {
        UNROLL4
        for (int k = threadIdx.y; k < chunks; k += 16) tw += pw[k * C + c], tb += pb[k * C + c];
    }
    sw[threadIdx.y][threadIdx.x] = tw, sb[threadIdx.y][threadIdx.x] = tb;
    __syncthreads();
    if (threadIdx.y == 0 && c < C) {
        tw = tb = 0.0f;
        UNROLL
        for (int k = 0; k < 16; k++) tw += sw[k][threadIdx.x], tb += sb[k][threadIdx.x];
        if (gw) st(gw + c, ld(gw + c) + tw);
        if (gb) st(gb + c, ld(gb + c) + tb);
    }
}

/* ---------------------------------------------------------------------------------------------
 * embedding and cross-entropy
 * ------------------------------------------------------------------------------------------ */
template <typename T>
__global__ void k_gather_rows(T *out, const T *table, int64_t ts0, const int32_t *idx, int64_t N, int64_t C) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= N * C) return;
    int64_t r = i / C, c = i % C;
    out[i] = table[(int64_t)idx[r] * ts0 + c];
}

/* atomics: rows that repeat a token add into the same gradient row (bf16 atomicAdd needs sm_80) */
template <typename T>
__global__ void k_scatter_add_rows(T *gtable, int64_t ts0, const T *g, const int32_t *idx, int64_t N, int64_t C) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= N * C) return;
    int64_t r = i / C, c = i % C;
    atomicAdd(gtable + (int64_t)idx[r] * ts0 + c, g[i]);
}

/* (m, s) of a log-sum-exp merged with (m2, s2): sum over both of exp(x - m), m the larger max */
__device__ __forceinline__ void lse_merge(float &m, float &s, float m2, float s2) {
    if (m2 == -INFINITY) return;
    if (m == -INFINITY) {
        m = m2, s = s2;
        return;
    }
    float mn = fmaxf(m, m2);
    s = s * __expf(m - mn) + s2 * __expf(m2 - mn);
    m = mn;
}

/* One block per row: log-sum-exp over the real vocabulary (padding columns skipped) in one pass
 * (a running max and a sum rescaled when the max grows, per thread, then merged across the
 * block). vec: 16-byte loads, four vectors (32 logits) per thread per iteration, all four loads
 * issued before any use, one rescale per 32 logits, and the exponentials as exp2 of one FFMA
 * (log2 units inside the loop). The [16384, 50304] logits are 1.65 GB, read once: 398 us at copy
 * bandwidth; round 1 (one vector in flight per thread) took 754. */
template <typename T>
__global__ void __launch_bounds__(256) k_ce_lse(float *lse, const T *logits, int64_t Vp, int64_t V, int vec) {
    __shared__ float sm[32], ss[32];
    const T *l = logits + blockIdx.x * Vp;
    float m = -INFINITY, s = 0.0f;
    if (vec) {
        const float L2E = 1.4426950408889634f;
        const int64_t nfull = V / 8, nall = (V + 7) / 8, bd = blockDim.x;
        float m2 = -INFINITY; /* running max, log2 units; s is the sum of exp2(x L2E - m2) */
        int64_t j = threadIdx.x;
        for (; j + 3 * bd < nfull; j += 4 * bd) {
            float x[4][8];
            UNROLL
            for (int q = 0; q < 4; q++) ld8(x[q], l + 8 * (j + q * bd));
            float mx = -INFINITY;
            UNROLL
            for (int q = 0; q < 4; q++)
                UNROLL
                for (int e = 0; e < 8; e++) mx = fmaxf(mx, x[q][e]);
            const float mn = fmaxf(m2, mx * L2E);
            if (mn == -INFINITY) continue; /* every logit so far is -inf */
            s = m2 == -INFINITY ? 0.0f : s * exp2f(m2 - mn);
            UNROLL
            for (int q = 0; q < 4; q++)
                UNROLL
                for (int e = 0; e < 8; e++) s += exp2f(fmaf(x[q][e], L2E, -mn));
            m2 = mn;
        }
        for (; j < nall; j += bd) { /* the rest, one vector at a time; the last may be partial */
            float x[8], mx = -INFINITY;
            ld8(x, l + 8 * j);
            UNROLL
            for (int e = 0; e < 8; e++)
                if (8 * j + e < V) mx = fmaxf(mx, x[e]);
            const float mn = fmaxf(m2, mx * L2E);
            if (mn == -INFINITY) continue;
            s = m2 == -INFINITY ? 0.0f : s * exp2f(m2 - mn);
            UNROLL
            for (int e = 0; e < 8; e++)
                if (8 * j + e < V) s += exp2f(fmaf(x[e], L2E, -mn));
            m2 = mn;
        }
        m = m2 == -INFINITY ? -INFINITY : m2 * (1.0f / L2E); /* natural units for the merge */
    } else {
        for (int64_t j = threadIdx.x; j < V; j += blockDim.x) {
            float x = ld(l + j), mn = fmaxf(m, x);
            s = (m == -INFINITY ? 0.0f : s * __expf(m - mn)) + __expf(x - mn);
            m = mn;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, o), s2 = __shfl_xor_sync(0xffffffffu, s, o);
        lse_merge(m, s, m2, s2);
    }
    int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    if (lane == 0) sm[w] = m, ss[w] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int k = 1; k < (int)blockDim.x / 32; k++) lse_merge(m, s, sm[k], ss[k]);
        lse[blockIdx.x] = m + logf(s);
    }
}

/* one block: loss = mean over rows of lse - logit[target] */
template <typename T>
__global__ void k_ce_mean(float *loss, const float *lse, const T *logits, const int32_t *t, int64_t N, int64_t Vp) {
    float s = 0.0f;
    for (int64_t r = threadIdx.x; r < N; r += blockDim.x) s += lse[r] - ld(logits + r * Vp + t[r]);
    s = block_reduce<false>(s);
    if (threadIdx.x == 0) *loss = s / (float)N;
}

/* glogits += gloss / N * (softmax - onehot): the softmax is recomputed from lse, never stored.
 * One block per row, 16-byte accesses when vec; the padding columns are not touched (their
 * gradient stays 0). Bytes: the logits read, their gradient read and written: 4.95 GB at GPT-2
 * 124M, B = 16, T = 1024. */
template <typename T>
__global__ void __launch_bounds__(256) k_ce_backward(T *__restrict__ gl, const float *gloss, const float *lse,
                                                     const T *__restrict__ logits, const int32_t *t, int64_t N,
                                                     int64_t Vp, int64_t V, int vec) {
    const int64_t r = blockIdx.x;
    const float k = *gloss / (float)N, z = lse[r];
    const int64_t tr = t[r];
    const T *l = logits + r * Vp;
    T *o = gl + r * Vp;
    if (vec) {
        for (int64_t j = threadIdx.x; j * 8 < V; j += blockDim.x) {
            float x[8], go[8];
            ld8(x, l + 8 * j), ld8(go, o + 8 * j);
            UNROLL
            for (int e = 0; e < 8; e++) {
                int64_t c = 8 * j + e;
                if (c < V) go[e] += k * (__expf(x[e] - z) - (c == tr ? 1.0f : 0.0f));
            }
            st8(o + 8 * j, go);
        }
    } else {
        for (int64_t j = threadIdx.x; j < V; j += blockDim.x)
            st(o + j, ld(o + j) + k * (__expf(ld(l + j) - z) - (j == tr ? 1.0f : 0.0f)));
    }
}

/* ---------------------------------------------------------------------------------------------
 * AdamW over the flat block: one kernel, clipping read from the device-side norm
 * ------------------------------------------------------------------------------------------ */
template <typename T>
__global__ void k_adamw(T *params, const T *grads, float *master, float *m, float *v, const float *norm_sq,
                        int64_t n, int64_t n_decay, float lr, float b1, float b2, float eps, float wd, float clip,
                        float bc1, float bc2) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float scale = 1.0f;
    if (clip > 0.0f) {
        float norm = sqrtf(*norm_sq);
        if (norm > 0.0f) scale = fminf(1.0f, clip / (norm + 1e-6f));
    }
    float g = ld(grads + i) * scale;
    float mi = b1 * m[i] + (1.0f - b1) * g;
    float vi = b2 * v[i] + (1.0f - b2) * g * g;
    m[i] = mi;
    v[i] = vi;
    float w = master ? master[i] : ld(params + i);
    w *= 1.0f - lr * (i < n_decay ? wd : 0.0f);
    w -= lr * (mi / bc1) / (sqrtf(vi / bc2) + eps);
    if (master) master[i] = w;
    st(params + i, w);
}

/* The same, four parameters a thread: 16-byte accesses to master, m and v (and f32 params), 8-byte
 * to bf16 params and grads (the host checks the alignment; a partial last group goes one by one).
 * 28 bytes per bf16 parameter: 3.48 GB at GPT-2 124M, 840 us at copy bandwidth; round 1's one
 * parameter a thread took 1021. */
template <typename T>
struct alignas(4 * sizeof(T)) pack4 {
    T v[4];
};
template <typename T>
__global__ void __launch_bounds__(256) k_adamw_vec4(T *params, const T *grads, float *master, float *m, float *v,
                                                    const float *norm_sq, int64_t n, int64_t n_decay, float lr, float b1,
                                                    float b2, float eps, float wd, float clip, float bc1, float bc2) {
    const int64_t i0 = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) * 4;
    if (i0 >= n) return;
    float scale = 1.0f;
    if (clip > 0.0f) {
        float norm = sqrtf(*norm_sq);
        if (norm > 0.0f) scale = fminf(1.0f, clip / (norm + 1e-6f));
    }
    if (i0 + 4 <= n) {
        pack4<T> g = *(const pack4<T> *)(grads + i0), p;
        pack4<float> mm = *(const pack4<float> *)(m + i0), vv = *(const pack4<float> *)(v + i0), w;
        if (master) w = *(const pack4<float> *)(master + i0);
        else p = *(const pack4<T> *)(params + i0);
        UNROLL
        for (int k = 0; k < 4; k++) {
            float gk = ld(&g.v[k]) * scale;
            float mi = b1 * mm.v[k] + (1.0f - b1) * gk, vi = b2 * vv.v[k] + (1.0f - b2) * gk * gk;
            mm.v[k] = mi, vv.v[k] = vi;
            float wk = master ? w.v[k] : ld(&p.v[k]);
            wk *= 1.0f - lr * (i0 + k < n_decay ? wd : 0.0f);
            wk -= lr * (mi / bc1) / (sqrtf(vi / bc2) + eps); /* as k_adamw, to the bit */
            w.v[k] = wk;
            st(&p.v[k], wk);
        }
        *(pack4<float> *)(m + i0) = mm, *(pack4<float> *)(v + i0) = vv;
        if (master) *(pack4<float> *)(master + i0) = w;
        *(pack4<T> *)(params + i0) = p;
        return;
    }
    for (int64_t i = i0; i < n; i++) {
        float g = ld(grads + i) * scale;
        float mi = b1 * m[i] + (1.0f - b1) * g, vi = b2 * v[i] + (1.0f - b2) * g * g;
        m[i] = mi, v[i] = vi;
        float w = master ? master[i] : ld(params + i);
        w *= 1.0f - lr * (i < n_decay ? wd : 0.0f);
        w -= lr * (mi / bc1) / (sqrtf(vi / bc2) + eps);
        if (master) master[i] = w;
        st(params + i, w);
    }
}

#include "flash_attention.cuh"

/* ---------------------------------------------------------------------------------------------
 * host side
 * ------------------------------------------------------------------------------------------ */
/* A cuBLASLt plan (descriptors and the heuristic's algorithm) per distinct GEMM: a step of GPT-2
 * has a few hundred GEMMs of a dozen shapes, and creating descriptors and asking the heuristic
 * costs tens of microseconds of host time each, which would add up to a step's GPU time. */
typedef struct {
    int dt, opP, opQ, batch, bias, beta;
    int64_t pr, pc, ldp, bsp, qr, qc, ldq, bsq, dr, dc, ldd, bsd;
    uint32_t alp, alq, ald;
} gemm_key;

typedef struct {
    gemm_key key;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t lp, lq, ld;
    cublasLtMatmulAlgo_t algo;
} gemm_plan;

#define GEMM_PLANS 256

typedef struct {
    cublasLtHandle_t lt;
    void *workspace;
    size_t workspace_size;
    float *partial; /* (1024) norm partial sums */
    float *scratch; /* partial column sums; grows in the first step, then reused */
    size_t scratch_floats;
    gemm_plan plans[GEMM_PLANS];
    int n_plans;
    int fa_fwd_attr, fa_bwd_attr; /* the flash kernels' shared-memory limit is raised */
    int fa_fwd_ver;               /* 1: k_flash_fwd (default); 2: k_flash_fwd2, 128 rows a block (WB_FLASH_FWD=2) */
    int fa_bwd_ver;               /* 1: k_flash_bwd (default); 2: k_flash_bwd2 (WB_FLASH_BWD=2) */
    int ln_bwd_ver;               /* 1: default; 2: k_layernorm_backward_vec2 for bf16 (WB_LN_BWD=2) */
    int cc_major, cc_minor;
    int num_sms; /* multiprocessors: grids sized to fill the chip in one wave */
} cuda_impl;

static cuda_impl *IMPL(wb_backend *be) { return (cuda_impl *)be->impl; }

static unsigned blocks_for(int64_t n, int threads) { return (unsigned)((n + threads - 1) / threads); }

static int bad_dtype(const char *what, wb_dtype d) {
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

/* the contig bit mask of k_binary / k_unary */
static int contig_mask(const wb_tensor *o, const wb_tensor *a, const wb_tensor *b) {
    int m = wb_is_contiguous(o);
    if (wb_is_contiguous(a) && wb_same_shape(o, a)) m |= 2;
    if (b && wb_is_contiguous(b) && wb_same_shape(o, b)) m |= 4;
    return m;
}

static void cuda_destroy(wb_backend *be) {
    cuda_impl *im = IMPL(be);
    if (im) {
        if (im->lt) cublasLtDestroy(im->lt);
        if (im->workspace) cudaFree(im->workspace);
        if (im->partial) cudaFree(im->partial);
        if (im->scratch) cudaFree(im->scratch);
        for (int i = 0; i < im->n_plans; i++) {
            gemm_plan *p = &im->plans[i];
            cublasLtMatrixLayoutDestroy(p->lp), cublasLtMatrixLayoutDestroy(p->lq);
            cublasLtMatrixLayoutDestroy(p->ld), cublasLtMatmulDescDestroy(p->op);
        }
        free(im);
    }
    free(be);
}

static int cuda_supports(wb_backend *be, wb_dtype d) { return d == WB_BF16 || d == WB_F32; }

/* Dense peaks (no sparsity) by compute capability, from NVIDIA's data sheets. H100 and H200 SXM
 * share the sm_90 figures; PCIe parts are slower. Unknown GPUs: 0, printed as MFU n/a. */
static double cuda_peak_for(wb_backend *be, wb_dtype d) {
    cuda_impl *im = IMPL(be);
    int pcie = strstr(be->device_name, "PCIe") != NULL;
    if (im->cc_major == 9 && im->cc_minor == 0) return d == WB_BF16 ? (pcie ? 756e12 : 989e12) : (pcie ? 51e12 : 67e12);
    if (im->cc_major == 8 && im->cc_minor == 0) return d == WB_BF16 ? 312e12 : 19.5e12;
    return 0.0;
}

static int cuda_alloc(wb_backend *be, void **p, size_t bytes) {
    CUDA_CHECK(cudaMalloc(p, bytes ? bytes : 256));
    return WB_OK;
}
static void cuda_free(wb_backend *be, void *p) { cudaFree(p); }
static int cuda_memset0(wb_backend *be, void *p, size_t n) {
    CUDA_CHECK(cudaMemsetAsync(p, 0, n, 0));
    return WB_OK;
}
static int cuda_to_host(wb_backend *be, void *dst, const void *src, size_t n) {
    CUDA_CHECK(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost));
    return WB_OK;
}
static int cuda_to_device(wb_backend *be, void *dst, const void *src, size_t n) {
    CUDA_CHECK(cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice));
    return WB_OK;
}
static int cuda_sync(wb_backend *be) {
    CUDA_CHECK(cudaDeviceSynchronize());
    return WB_OK;
}

static int cuda_fill(wb_backend *be, const wb_tensor *out, double v) {
    int64_t n = wb_numel(out);
    LAUNCH(out->dtype, k_fill, blocks_for(n, 256), 256, desc(out), n, (float)v);
    return WB_OK;
}

static int vec8_ok(int64_t n, const void *p, const void *q, const void *r) {
    return n % 8 == 0 && (uintptr_t)p % 16 == 0 && (uintptr_t)q % 16 == 0 && (!r || (uintptr_t)r % 16 == 0);
}

/* The rows8 path: every operand (already broadcast to out's shape) has unit stride along the
 * last dim, that dim is a multiple of 8, and every 8-element run starts 16-byte aligned. */
static int rows8_ok(const wb_tensor *const *ts, int n) {
    for (int i = 0; i < n; i++) {
        const wb_tensor *t = ts[i];
        int nd = t->ndim;
        if (nd < 1 || t->shape[nd - 1] % 8 || t->stride[nd - 1] != 1 || (uintptr_t)t->data % 16) return 0;
        for (int d = 0; d < nd - 1; d++)
            if (t->shape[d] > 1 && (t->stride[d] * (int64_t)wb_dtype_size(t->dtype)) % 16) return 0;
    }
    return 1;
}

/* Do every element index and every offset fit 32-bit unsigned arithmetic? */
static int index32_ok(const wb_tensor *const *ts, int n) {
    const int64_t lim = (int64_t)1 << 31;
    for (int i = 0; i < n; i++) {
        int64_t span = 0;
        for (int d = 0; d < ts[i]->ndim; d++) span += (ts[i]->shape[d] - 1) * ts[i]->stride[d];
        if (wb_numel(ts[i]) >= lim || span >= lim) return 0;
    }
    return 1;
}

/* rows8 launches, instantiated for the dtype and the index width */
#define LAUNCH_ROWS8(dt, wide, kern, n8, ...)                                                      \
    do {                                                                                           \
        unsigned g_ = blocks_for((n8), 256);                                                       \
        if ((dt) == WB_BF16 && !(wide)) KLAUNCH((kern<bf16, uint32_t>), g_, 256, 0, __VA_ARGS__, (uint32_t)(n8), acc); \
        else if ((dt) == WB_BF16) KLAUNCH((kern<bf16, int64_t>), g_, 256, 0, __VA_ARGS__, (int64_t)(n8), acc);       \
        else if ((dt) == WB_F32 && !(wide)) KLAUNCH((kern<float, uint32_t>), g_, 256, 0, __VA_ARGS__, (uint32_t)(n8), acc); \
        else if ((dt) == WB_F32) KLAUNCH((kern<float, int64_t>), g_, 256, 0, __VA_ARGS__, (int64_t)(n8), acc);       \
        else return bad_dtype(#kern, (dt));                                                        \
        CUDA_CHECK_LAUNCH();                                                                       \
    } while (0)

static int cuda_binary(wb_backend *be, wb_binop op, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b,
                       int acc) {
    int64_t n = wb_numel(out);
    if (n == 0) return WB_OK;
    if (contig_mask(out, a, b) == 7 && vec8_ok(n, out->data, a->data, b->data)) {
        if (out->dtype == WB_BF16) KLAUNCH(k_binary_vec8<bf16>, blocks_for(n / 8, 512), 256, 0, (int)op, BF(out->data), BF(a->data), BF(b->data), n / 8, acc);
        else if (out->dtype == WB_F32) KLAUNCH(k_binary_vec8<float>, blocks_for(n / 8, 512), 256, 0, (int)op, FL(out->data), FL(a->data), FL(b->data), n / 8, acc);
        else return bad_dtype("binary", out->dtype);
        CUDA_CHECK_LAUNCH();
        return WB_OK;
    }
    const wb_tensor *ts[3] = {out, a, b};
    if (rows8_ok(ts, 3)) {
        LAUNCH_ROWS8(out->dtype, !index32_ok(ts, 3), k_binary_rows8, n / 8, (int)op, desc(out), desc(a), desc(b));
        return WB_OK;
    }
    LAUNCH(out->dtype, k_binary, blocks_for(n, 256), 256, (int)op, desc(out), desc(a), desc(b), n, acc,
           contig_mask(out, a, b));
    return WB_OK;
}

static int cuda_unary(wb_backend *be, wb_unop op, double alpha, const wb_tensor *out, const wb_tensor *a, int acc) {
    int64_t n = wb_numel(out);
    if (n == 0) return WB_OK;
    if (contig_mask(out, a, NULL) == 3 && vec8_ok(n, out->data, a->data, NULL)) {
        if (out->dtype == WB_BF16) KLAUNCH(k_unary_vec8<bf16>, blocks_for(n / 8, 512), 256, 0, (int)op, (float)alpha, BF(out->data), BF(a->data), n / 8, acc);
        else if (out->dtype == WB_F32) KLAUNCH(k_unary_vec8<float>, blocks_for(n / 8, 512), 256, 0, (int)op, (float)alpha, FL(out->data), FL(a->data), n / 8, acc);
        else return bad_dtype("unary", out->dtype);
        CUDA_CHECK_LAUNCH();
        return WB_OK;
    }
    const wb_tensor *ts[2] = {out, a};
    if (rows8_ok(ts, 2)) { /* the head copies of --attn bmm and their pullbacks */
        LAUNCH_ROWS8(out->dtype, !index32_ok(ts, 2), k_unary_rows8, n / 8, (int)op, (float)alpha, desc(out), desc(a));
        return WB_OK;
    }
    LAUNCH(out->dtype, k_unary, blocks_for(n, 256), 256, (int)op, (float)alpha, desc(out), desc(a), n, acc,
           contig_mask(out, a, NULL));
    return WB_OK;
}

static int cuda_unary_backward(wb_backend *be, wb_unop op, const wb_tensor *ga, const wb_tensor *g, const wb_tensor *a,
                               const wb_tensor *y) {
    int64_t n = wb_numel(ga);
    if (n == 0) return WB_OK;
    int contig = contig_mask(ga, g, a) == 7 && wb_is_contiguous(y) && wb_same_shape(ga, y);
    if (contig && n % 8 == 0 && vec8_ok(n, ga->data, g->data, a->data) && (uintptr_t)y->data % 16 == 0) {
        unsigned grid = blocks_for(n / 8, 256);
        if (ga->dtype == WB_BF16)
            KLAUNCH(k_unary_backward_vec8<bf16>, grid, 256, 0, (int)op, BF(ga->data), BF(g->data), BF(a->data), BF(y->data), n / 8);
        else if (ga->dtype == WB_F32)
            KLAUNCH(k_unary_backward_vec8<float>, grid, 256, 0, (int)op, FL(ga->data), FL(g->data), FL(a->data), FL(y->data), n / 8);
        else return bad_dtype("unary_backward", ga->dtype);
        CUDA_CHECK_LAUNCH();
        return WB_OK;
    }
    LAUNCH(ga->dtype, k_unary_backward, blocks_for(n, 256), 256, (int)op, desc(ga), desc(g), desc(a), desc(y), n, contig);
    return WB_OK;
}

/* at least n floats of scratch (cudaFree synchronises: this happens in the first step only) */
static int scratch_reserve(cuda_impl *im, size_t n) {
    if (im->scratch_floats >= n) return WB_OK;
    if (im->scratch) CUDA_CHECK(cudaFree(im->scratch));
    im->scratch = NULL;
    CUDA_CHECK(cudaMalloc((void **)&im->scratch, n * sizeof(float)));
    im->scratch_floats = n;
    return WB_OK;
}

/* row chunks for a column sum over M rows: 1 (one pass) below 1024 rows */
static int col_chunks(int64_t M) {
    if (M < 1024) return 1;
    int64_t c = M / 256;
    return (int)(c > 64 ? 64 : c);
}

static int cuda_sum_into(wb_backend *be, const wb_tensor *dst, const wb_tensor *src, double scale, int acc) {
    int mask = 0, k = 0;
    int64_t n_red = 1, n_dst = wb_numel(dst);
    for (int d = 0; d < src->ndim; d++)
        if (dst->shape[d] == 1 && src->shape[d] != 1) mask |= 1 << d, n_red *= src->shape[d];
    /* the common case: the leading dims reduced, the trailing ones kept, both contiguous */
    while (k < src->ndim && (mask >> k & 1)) k++;
    int leading = mask == (1 << k) - 1 && k > 0;
    if (mask == 0) /* nothing to reduce: a scaled accumulate (the residual add's pullback) */
        return cuda_unary(be, WB_OP_IDENTITY, scale, dst, src, acc);
    int chunks = col_chunks(n_red);
    if (leading && wb_is_contiguous(dst) && wb_is_contiguous(src) && chunks > 1) {
        /* 16-byte path: 64-row chunks (at most 256), 8 columns a thread */
        int vec = n_dst % 8 == 0 && (uintptr_t)src->data % 16 == 0;
        if (vec) chunks = (int)(n_red / 64 > 256 ? 256 : n_red / 64); /* >= 16: n_red >= 1024 here */
        WB_TRY(scratch_reserve(IMPL(be), (size_t)chunks * (size_t)n_dst));
        float *part = IMPL(be)->scratch;
        dim3 block(32, 8), grid(blocks_for(n_dst, 32), (unsigned)chunks), gridv(blocks_for(n_dst, 256), (unsigned)chunks);
        int64_t rpc = (n_red + chunks - 1) / chunks;
        unsigned fin = blocks_for(n_dst, 32); /* k_sum_cols_final: block (32, 8) */
        if (dst->dtype == WB_BF16) {
            if (vec) KLAUNCH(k_sum_cols_partial_vec<bf16>, gridv, 256, 0, part, BF(src->data), n_red, n_dst, rpc);
            else KLAUNCH(k_sum_cols_partial<bf16>, grid, block, 0, part, BF(src->data), n_red, n_dst, rpc);
            CUDA_CHECK_LAUNCH();
            KLAUNCH(k_sum_cols_final<bf16>, fin, block, 0, BF(dst->data), part, chunks, n_dst, (float)scale, acc);
        } else if (dst->dtype == WB_F32) {
            if (vec) KLAUNCH(k_sum_cols_partial_vec<float>, gridv, 256, 0, part, FL(src->data), n_red, n_dst, rpc);
            else KLAUNCH(k_sum_cols_partial<float>, grid, block, 0, part, FL(src->data), n_red, n_dst, rpc);
            CUDA_CHECK_LAUNCH();
            KLAUNCH(k_sum_cols_final<float>, fin, block, 0, FL(dst->data), part, chunks, n_dst, (float)scale, acc);
        } else {
            return bad_dtype("sum_into", dst->dtype);
        }
        CUDA_CHECK_LAUNCH();
        return WB_OK;
    }
    if (leading && wb_is_contiguous(dst) && wb_is_contiguous(src)) {
        dim3 block(32, 8), grid(blocks_for(n_dst, 32));
        float s = (float)scale;
        if (dst->dtype == WB_BF16) KLAUNCH(k_sum_cols<bf16>, grid, block, 0, BF(dst->data), BF(src->data), n_red, n_dst, s, acc);
        else if (dst->dtype == WB_F32) KLAUNCH(k_sum_cols<float>, grid, block, 0, FL(dst->data), FL(src->data), n_red, n_dst, s, acc);
        else return bad_dtype("sum_into", dst->dtype);
        CUDA_CHECK_LAUNCH();
        return WB_OK;
    }
    LAUNCH(dst->dtype, k_sum_into, blocks_for(n_dst, 256), 256, desc(dst), desc(src), mask, n_dst, n_red,
           (float)scale, acc);
    return WB_OK;
}

static int cuda_causal_mask(wb_backend *be, const wb_tensor *out, const wb_tensor *in, double fill, int acc) {
    int64_t n = wb_numel(out), Tn = out->shape[out->ndim - 1];
    LAUNCH(out->dtype, k_causal_mask, blocks_for(n, 256), 256, desc(out), desc(in), (float)fill, n, Tn, acc);
    return WB_OK;
}

static int cuda_dropout(wb_backend *be, const wb_tensor *out, const wb_tensor *in, float p, uint64_t seed, int acc) {
    int64_t n = wb_numel(out);
    LAUNCH(out->dtype, k_dropout, blocks_for(n, 256), 256, desc(out), desc(in), p, seed, n, acc);
    return WB_OK;
}

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


static int plan_create(cuda_impl *im, const gemm_key *k, gemm_plan *p) {
    cudaDataType_t dt = k->dt == WB_BF16 ? CUDA_R_16BF : CUDA_R_32F;
    cublasOperation_t opP = (cublasOperation_t)k->opP, opQ = (cublasOperation_t)k->opQ;
    memset(p, 0, sizeof *p);
    p->key = *k;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &opP, sizeof opP));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &opQ, sizeof opQ));
    if (k->bias) {
        cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
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
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &ald, sizeof ald);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &ald, sizeof ald);
    cublasLtMatmulHeuristicResult_t heur;
    int found = 0;
    cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(im->lt, p->op, p->lp, p->lq, p->ld, p->ld, pref, 1, &heur, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS || found == 0) {
        fprintf(stderr,
                "cuda gemm: no cuBLASLt algorithm for (%lld x %lld, op %d) x (%lld x %lld, op %d) -> %lld x %lld, "
                "batch %d, ld %lld %lld %lld, alignment %u %u %u (%s)\n",
                (long long)k->pr, (long long)k->pc, k->opP, (long long)k->qr, (long long)k->qc, k->opQ, (long long)k->dr,
                (long long)k->dc, k->batch, (long long)k->ldp, (long long)k->ldq, (long long)k->ldd, alp, alq, ald,
                cublasGetStatusString(st));
        return WB_FAIL;
    }
    p->algo = heur.algo;
    return WB_OK;
}

static int cuda_gemm_impl(wb_backend *be, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b,
                          const wb_tensor *bias, double alpha, int acc) {
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
    gemm_key k;
    memset(&k, 0, sizeof k); /* the key is compared with memcmp: no stray padding bytes */
    k.dt = out->dtype, k.opP = (int)opP, k.opQ = (int)opQ, k.batch = batch, k.bias = bias != NULL, k.beta = acc;
    /* stored column-major shapes: a row-layout X (r, c) is stored as (c, r); a column-layout one as (r, c) */
    k.pr = MP.row ? MP.c : MP.r, k.pc = MP.row ? MP.r : MP.c, k.ldp = MP.ld, k.bsp = MP.batch_stride;
    k.qr = MQ.row ? MQ.c : MQ.r, k.qc = MQ.row ? MQ.r : MQ.c, k.ldq = MQ.ld, k.bsq = MQ.batch_stride;
    k.dr = D.row ? N : M, k.dc = D.row ? M : N, k.ldd = D.ld, k.bsd = D.batch_stride;
    k.alp = ptr_alignment(P), k.alq = ptr_alignment(Q), k.ald = ptr_alignment(out->data);
    gemm_plan *plan = NULL;
    for (int i = 0; i < im->n_plans && !plan; i++)
        if (!memcmp(&im->plans[i].key, &k, sizeof k)) plan = &im->plans[i];
    if (!plan) {
        if (im->n_plans == GEMM_PLANS) { /* full: start over (never in GPT-2, a dozen shapes) */
            for (int i = 0; i < im->n_plans; i++) {
                gemm_plan *p = &im->plans[i];
                cublasLtMatrixLayoutDestroy(p->lp), cublasLtMatrixLayoutDestroy(p->lq);
                cublasLtMatrixLayoutDestroy(p->ld), cublasLtMatmulDescDestroy(p->op);
            }
            im->n_plans = 0;
        }
        plan = &im->plans[im->n_plans];
        WB_TRY(plan_create(im, &k, plan));
        im->n_plans++;
    }
    if (bias) {
        const void *bp = bias->data;
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp));
    }
    float fa = (float)alpha, fb = acc ? 1.0f : 0.0f;
    CUBLAS_CHECK(cublasLtMatmul(im->lt, plan->op, &fa, P, plan->lp, Q, plan->lq, &fb, out->data, plan->ld, out->data,
                                plan->ld, &plan->algo, im->workspace, im->workspace_size, 0));
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

static int cuda_gemm(wb_backend *be, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b,
                     const wb_tensor *bias, double alpha, int acc) {
    if (out->dtype != a->dtype || out->dtype != b->dtype) return bad_dtype("gemm (mixed)", out->dtype);
    if (out->dtype != WB_BF16 && out->dtype != WB_F32) return bad_dtype("gemm", out->dtype);
    mat D = mat_of(out);
    /* the bias epilogue adds along cuBLAS's rows: only when D is row-major (then cuBLAS rows =
     * our columns); otherwise add it with a broadcast kernel after the product */
    int epilogue = bias && D.row && out->ndim == 2 && !acc && wb_is_contiguous(bias);
    WB_TRY(cuda_gemm_impl(be, out, a, b, epilogue ? bias : NULL, alpha, acc));
    if (bias && !epilogue) {
        wb_tensor bb;
        if (wb_broadcast_to(bias, out->ndim, out->shape, &bb) != 0) return WB_FAIL;
        return cuda_binary(be, WB_OP_ADD, out, out, &bb, 0);
    }
    return WB_OK;
}

/* ---- row ops ---- */
static int rows_contig(const char *what, const wb_tensor *t) {
    if (!wb_is_contiguous(t)) {
        fprintf(stderr, "cuda backend: %s wants contiguous rows\n", what);
        return 0;
    }
    return 1;
}

/* The row-in-registers kernels: NV 8-element vectors per lane hold a row of C <= 256 NV <= 1024
 * columns (C a multiple of 8, so rows stay 16-byte aligned when the base is). 0: not eligible. */
static int row_nv(int64_t C, const wb_tensor *const *ts, int n) {
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

static int cuda_softmax(wb_backend *be, const wb_tensor *out, const wb_tensor *in, double scale, int causal) {
    if (!rows_contig("softmax", in) || !rows_contig("softmax", out)) return WB_FAIL;
    int64_t C = in->shape[in->ndim - 1], R = wb_numel(in) / C, Tn = in->ndim >= 2 ? in->shape[in->ndim - 2] : 1;
    unsigned grid = blocks_for(R, 8); /* 8 warps (rows) per block */
    const wb_tensor *ts[2] = {out, in};
    int nv = row_nv(C, ts, 2);
    if (nv && in->dtype == WB_BF16) {
        LAUNCH_NV(nv, k_softmax_vec, bf16, grid, 256, 0, BF(out->data), BF(in->data), R, (int)C, Tn, (float)scale, causal);
        return WB_OK;
    }
    if (nv && in->dtype == WB_F32) {
        LAUNCH_NV(nv, k_softmax_vec, float, grid, 256, 0, FL(out->data), FL(in->data), R, (int)C, Tn, (float)scale, causal);
        return WB_OK;
    }
    if (in->dtype == WB_BF16) KLAUNCH(k_softmax<bf16>, grid, 256, 0, BF(out->data), BF(in->data), R, C, Tn, (float)scale, causal);
    else if (in->dtype == WB_F32) KLAUNCH(k_softmax<float>, grid, 256, 0, FL(out->data), FL(in->data), R, C, Tn, (float)scale, causal);
    else return bad_dtype("softmax", in->dtype);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

static int cuda_softmax_backward(wb_backend *be, const wb_tensor *gin, const wb_tensor *g, const wb_tensor *y, double scale) {
    if (!rows_contig("softmax_backward", gin) || !rows_contig("softmax_backward", g) || !rows_contig("softmax_backward", y))
        return WB_FAIL;
    int64_t C = y->shape[y->ndim - 1], R = wb_numel(y) / C;
    unsigned grid = blocks_for(R, 8);
    const wb_tensor *ts[3] = {gin, g, y};
    int nv = row_nv(C, ts, 3);
    if (nv && y->dtype == WB_BF16) {
        LAUNCH_NV(nv, k_softmax_backward_vec, bf16, grid, 256, 0, BF(gin->data), BF(g->data), BF(y->data), R, (int)C, (float)scale);
        return WB_OK;
    }
    if (nv && y->dtype == WB_F32) {
        LAUNCH_NV(nv, k_softmax_backward_vec, float, grid, 256, 0, FL(gin->data), FL(g->data), FL(y->data), R, (int)C, (float)scale);
        return WB_OK;
    }
    if (y->dtype == WB_BF16) KLAUNCH(k_softmax_backward<bf16>, grid, 256, 0, BF(gin->data), BF(g->data), BF(y->data), R, C, (float)scale);
    else if (y->dtype == WB_F32) KLAUNCH(k_softmax_backward<float>, grid, 256, 0, FL(gin->data), FL(g->data), FL(y->data), R, C, (float)scale);
    else return bad_dtype("softmax_backward", y->dtype);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

static int cuda_layernorm(wb_backend *be, const wb_tensor *out, const wb_tensor *mean, const wb_tensor *rstd,
                          const wb_tensor *in, const wb_tensor *w, const wb_tensor *b, double eps) {
    if (mean->dtype != WB_F32 || rstd->dtype != WB_F32) return bad_dtype("layernorm statistics", mean->dtype);
    int64_t N = in->shape[0], C = in->shape[1];
    unsigned grid = blocks_for(N, 8);
    const wb_tensor *ts[4] = {out, in, w, b};
    int nv = row_nv(C, ts, 4);
    if (nv && in->dtype == WB_BF16) {
        LAUNCH_NV(nv, k_layernorm_vec, bf16, grid, 256, 0, BF(out->data), FL(mean->data), FL(rstd->data), BF(in->data),
                  BF(w->data), BF(b->data), N, (int)C, (float)eps);
        return WB_OK;
    }
    if (nv && in->dtype == WB_F32) {
        LAUNCH_NV(nv, k_layernorm_vec, float, grid, 256, 0, FL(out->data), FL(mean->data), FL(rstd->data), FL(in->data),
                  FL(w->data), FL(b->data), N, (int)C, (float)eps);
        return WB_OK;
    }
    if (in->dtype == WB_BF16)
        KLAUNCH(k_layernorm<bf16>, grid, 256, 0, BF(out->data), FL(mean->data), FL(rstd->data), BF(in->data), BF(w->data),
                                         BF(b->data), N, C, (float)eps);
    else if (in->dtype == WB_F32)
        KLAUNCH(k_layernorm<float>, grid, 256, 0, FL(out->data), FL(mean->data), FL(rstd->data), FL(in->data), FL(w->data),
                                          FL(b->data), N, C, (float)eps);
    else return bad_dtype("layernorm", in->dtype);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

/* Two kernels whatever is wanted (one when only gin): the fused pass (gin and each block's column
 * sums for gw, gb) and k_ln_w_final, which adds the blocks' sums into gw and gb. */
static int cuda_layernorm_backward(wb_backend *be, const wb_tensor *gin, const wb_tensor *gw, const wb_tensor *gb,
                                   const wb_tensor *g, const wb_tensor *in, const wb_tensor *w, const wb_tensor *mean,
                                   const wb_tensor *rstd) {
    cuda_impl *im = IMPL(be);
    int64_t N = in->shape[0], C = in->shape[1];
    if (in->dtype != WB_BF16 && in->dtype != WB_F32) return bad_dtype("layernorm_backward", in->dtype);
    if (!gin && !gw && !gb) return WB_OK;
    const float *mp = FL(mean->data), *rp = FL(rstd->data);
    const wb_tensor *ts[4] = {gin, g, in, w};
    int nv = row_nv(C, ts, 4), bf = in->dtype == WB_BF16;
    /* vec: 4 warps a block, ~8 rows per warp; any: one warp a block, 2 C floats of shared memory.
     * 3 blocks per SM (at C = 768). Version 2 for bf16 rows up to 768 wide (at 1024 it would spill) */
    int v2 = nv && nv <= 3 && bf && im->ln_bwd_ver == 2;
    int64_t chunks = nv ? (N + 31) / 32 : N, cap = nv ? 3 * (int64_t)im->num_sms : 256;
    if (chunks > cap) chunks = cap;
    if (chunks < 1) chunks = 1;
    if (!nv && 2 * C * sizeof(float) > 48 * 1024) {
        fprintf(stderr, "cuda layernorm_backward: width %lld is over 6144\n", (long long)C);
        return WB_FAIL;
    }
    float *pw = NULL, *pb = NULL;
    if (gw || gb) {
        WB_TRY(scratch_reserve(im, (size_t)2 * chunks * (size_t)C));
        pw = im->scratch, pb = im->scratch + (size_t)chunks * C;
    }
    void *gi = gin ? gin->data : NULL;
    if (v2) {
        switch (nv) {
        case 1: KLAUNCH(k_layernorm_backward_vec2<1>, (unsigned)chunks, 128, 0, BF(gi), pw, pb, BF(g->data), BF(in->data), BF(w->data), mp, rp, N, (int)C); break;
        case 2: KLAUNCH(k_layernorm_backward_vec2<2>, (unsigned)chunks, 128, 0, BF(gi), pw, pb, BF(g->data), BF(in->data), BF(w->data), mp, rp, N, (int)C); break;
        default: KLAUNCH(k_layernorm_backward_vec2<3>, (unsigned)chunks, 128, 0, BF(gi), pw, pb, BF(g->data), BF(in->data), BF(w->data), mp, rp, N, (int)C); break;
        }
        CUDA_CHECK_LAUNCH();
    } else if (nv && bf)
        LAUNCH_NV(nv, k_layernorm_backward_vec, bf16, (unsigned)chunks, 128, 0, BF(gi), pw, pb, BF(g->data), BF(in->data),
                  BF(w->data), mp, rp, N, (int)C);
    else if (nv)
        LAUNCH_NV(nv, k_layernorm_backward_vec, float, (unsigned)chunks, 128, 0, FL(gi), pw, pb, FL(g->data), FL(in->data),
                  FL(w->data), mp, rp, N, (int)C);
    else {
        size_t smem = 2 * (size_t)C * sizeof(float);
        if (bf) KLAUNCH(k_layernorm_backward_any<bf16>, (unsigned)chunks, 32, smem, BF(gi), pw, pb, BF(g->data), BF(in->data), BF(w->data), mp, rp, N, C);
        else KLAUNCH(k_layernorm_backward_any<float>, (unsigned)chunks, 32, smem, FL(gi), pw, pb, FL(g->data), FL(in->data), FL(w->data), mp, rp, N, C);
        CUDA_CHECK_LAUNCH();
    }
    if (gw || gb) {
        unsigned fin = blocks_for(C, 32);
        dim3 fblock(32, 16);
        if (bf) KLAUNCH(k_ln_w_final<bf16>, fin, fblock, 0, gw ? BF(gw->data) : NULL, gb ? BF(gb->data) : NULL, pw, pb, (int)chunks, C);
        else KLAUNCH(k_ln_w_final<float>, fin, fblock, 0, gw ? FL(gw->data) : NULL, gb ? FL(gb->data) : NULL, pw, pb, (int)chunks, C);
        CUDA_CHECK_LAUNCH();
    }
    return WB_OK;
}

static int cuda_gather_rows(wb_backend *be, const wb_tensor *out, const wb_tensor *table, const wb_tensor *idx) {
    int64_t N = out->shape[0], C = out->shape[1];
    unsigned grid = blocks_for(N * C, 256);
    if (out->dtype == WB_BF16)
        KLAUNCH(k_gather_rows<bf16>, grid, 256, 0, BF(out->data), BF(table->data), table->stride[0], (const int32_t *)idx->data, N, C);
    else if (out->dtype == WB_F32)
        KLAUNCH(k_gather_rows<float>, grid, 256, 0, FL(out->data), FL(table->data), table->stride[0], (const int32_t *)idx->data, N, C);
    else return bad_dtype("gather_rows", out->dtype);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

static int cuda_scatter_add_rows(wb_backend *be, const wb_tensor *gt, const wb_tensor *g, const wb_tensor *idx) {
    int64_t N = g->shape[0], C = g->shape[1];
    unsigned grid = blocks_for(N * C, 256);
    if (g->dtype == WB_BF16)
        KLAUNCH(k_scatter_add_rows<bf16>, grid, 256, 0, BF(gt->data), gt->stride[0], BF(g->data), (const int32_t *)idx->data, N, C);
    else if (g->dtype == WB_F32)
        KLAUNCH(k_scatter_add_rows<float>, grid, 256, 0, FL(gt->data), gt->stride[0], FL(g->data), (const int32_t *)idx->data, N, C);
    else return bad_dtype("scatter_add_rows", g->dtype);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

static int cuda_cross_entropy(wb_backend *be, const wb_tensor *loss, const wb_tensor *lse, const wb_tensor *logits,
                              const wb_tensor *targets, int64_t vocab) {
    int64_t N = logits->shape[0], Vp = logits->shape[1];
    const int32_t *t = (const int32_t *)targets->data;
    int vec = Vp % 8 == 0 && (uintptr_t)logits->data % 16 == 0; /* every row 16-byte aligned */
    if (logits->dtype == WB_BF16) {
        KLAUNCH(k_ce_lse<bf16>, (unsigned)N, 256, 0, FL(lse->data), BF(logits->data), Vp, vocab, vec);
        CUDA_CHECK_LAUNCH();
        KLAUNCH(k_ce_mean<bf16>, 1, 1024, 0, FL(loss->data), FL(lse->data), BF(logits->data), t, N, Vp);
    } else if (logits->dtype == WB_F32) {
        KLAUNCH(k_ce_lse<float>, (unsigned)N, 256, 0, FL(lse->data), FL(logits->data), Vp, vocab, vec);
        CUDA_CHECK_LAUNCH();
        KLAUNCH(k_ce_mean<float>, 1, 1024, 0, FL(loss->data), FL(lse->data), FL(logits->data), t, N, Vp);
    } else {
        return bad_dtype("cross_entropy", logits->dtype);
    }
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

static int cuda_cross_entropy_backward(wb_backend *be, const wb_tensor *gl, const wb_tensor *gloss, const wb_tensor *lse,
                                       const wb_tensor *logits, const wb_tensor *targets, int64_t vocab) {
    int64_t N = logits->shape[0], Vp = logits->shape[1];
    const int32_t *t = (const int32_t *)targets->data;
    int vec = Vp % 8 == 0 && (uintptr_t)logits->data % 16 == 0 && (uintptr_t)gl->data % 16 == 0;
    if (logits->dtype == WB_BF16)
        KLAUNCH(k_ce_backward<bf16>, (unsigned)N, 256, 0, BF(gl->data), FL(gloss->data), FL(lse->data), BF(logits->data), t, N, Vp, vocab, vec);
    else if (logits->dtype == WB_F32)
        KLAUNCH(k_ce_backward<float>, (unsigned)N, 256, 0, FL(gl->data), FL(gloss->data), FL(lse->data), FL(logits->data), t, N, Vp, vocab, vec);
    else return bad_dtype("cross_entropy_backward", logits->dtype);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}


/* ---- fused attention ---- */
static int cuda_attention_supported(wb_backend *be, wb_dtype d, int64_t head_dim) {
    return d == WB_BF16 && head_dim == 64;
}

static void strides3(int64_t *dst, const wb_tensor *t) {
    dst[0] = t->stride[0], dst[1] = t->stride[1], dst[2] = t->stride[2];
}

/* 16-byte loads need 16-byte aligned rows: every base pointer and every stride (in bytes) */
static int fa_vec_ok(const wb_tensor *const *ts, int n) {
    for (int i = 0; i < n; i++) {
        if (!ts[i]) continue;
        if ((uintptr_t)ts[i]->data % 16) return 0;
        for (int d = 0; d < 3; d++)
            if ((ts[i]->stride[d] * 2) % 16) return 0;
    }
    return 1;
}

static int fa_check(const wb_tensor *t, const char *what) {
    if (t->dtype != WB_BF16 || t->ndim != 4 || t->shape[3] != 64 || t->stride[3] != 1) {
        fprintf(stderr, "cuda attention: %s must be bf16 (B, H, T, 64) with unit stride along the head\n", what);
        return WB_FAIL;
    }
    return WB_OK;
}

static int cuda_attention(wb_backend *be, const wb_tensor *out, const wb_tensor *lse, const wb_tensor *q,
                          const wb_tensor *k, const wb_tensor *v, double scale) {
    cuda_impl *im = IMPL(be);
    if (fa_check(q, "q") || fa_check(k, "k") || fa_check(v, "v") || fa_check(out, "out")) return WB_FAIL;
    AttnDesc a;
    memset(&a, 0, sizeof a);
    a.q = BF(q->data), a.k = BF(k->data), a.v = BF(v->data), a.out = BF(out->data), a.lse = FL(lse->data);
    strides3(a.qs, q), strides3(a.ks, k), strides3(a.vs, v), strides3(a.os, out);
    int64_t B = q->shape[0], H = q->shape[1], T = q->shape[2];
    a.H = (int)H, a.T = (int)T, a.scale = (float)scale;
    const wb_tensor *ts[4] = {q, k, v, out};
    if (!im->fa_fwd_attr) {
        CUDA_CHECK(cudaFuncSetAttribute(k_flash_fwd, cudaFuncAttributeMaxDynamicSharedMemorySize, FA_FWD_SMEM));
        CUDA_CHECK(cudaFuncSetAttribute(k_flash_fwd2, cudaFuncAttributeMaxDynamicSharedMemorySize, FA_FWD2_SMEM));
        im->fa_fwd_attr = 1;
    }
    if (im->fa_fwd_ver == 1) {
        dim3 grid((unsigned)(B * H), (unsigned)((T + 63) / 64)); /* heads in x: heavy tiles first */
        KLAUNCH(k_flash_fwd, grid, 128, FA_FWD_SMEM, a, fa_vec_ok(ts, 4));
    } else {
        dim3 grid((unsigned)(B * H), (unsigned)((T + 127) / 128));
        KLAUNCH(k_flash_fwd2, grid, 128, FA_FWD2_SMEM, a, fa_vec_ok(ts, 4));
    }
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

static int cuda_attention_backward(wb_backend *be, const wb_tensor *gq, const wb_tensor *gk, const wb_tensor *gv,
                                   const wb_tensor *g, const wb_tensor *out, const wb_tensor *lse, const wb_tensor *q,
                                   const wb_tensor *k, const wb_tensor *v, double scale) {
    cuda_impl *im = IMPL(be);
    if (fa_check(q, "q") || fa_check(k, "k") || fa_check(v, "v") || fa_check(g, "g")) return WB_FAIL;
    int64_t B = q->shape[0], H = q->shape[1], T = q->shape[2], rows = B * H * T;
    int64_t rows4 = (rows + 3) / 4 * 4; /* dq 16-byte aligned: the kernel adds float2 pairs */
    WB_TRY(scratch_reserve(im, (size_t)(rows4 + rows * 64))); /* D (rows), then dq (rows, 64) */
    AttnDesc a;
    memset(&a, 0, sizeof a);
    a.q = BF(q->data), a.k = BF(k->data), a.v = BF(v->data), a.g = BF(g->data), a.o = BF(out->data);
    a.gq = gq ? BF(gq->data) : NULL, a.gk = gk ? BF(gk->data) : NULL, a.gv = gv ? BF(gv->data) : NULL;
    a.lse = FL(lse->data), a.D = im->scratch, a.dq = gq ? im->scratch + rows4 : NULL;
    strides3(a.qs, q), strides3(a.ks, k), strides3(a.vs, v), strides3(a.gs, g), strides3(a.os, out);
    if (gq) strides3(a.gqs, gq);
    if (gk) strides3(a.gks, gk);
    if (gv) strides3(a.gvs, gv);
    a.H = (int)H, a.T = (int)T, a.scale = (float)scale;
    const wb_tensor *ts[5] = {q, k, v, g, out};
    int vec = fa_vec_ok(ts, 5);
    KLAUNCH(k_flash_bwd_pre, blocks_for(rows, 32), 256, 0, a, rows, vec); /* 8 lanes a row */
    CUDA_CHECK_LAUNCH();
    if (gq) CUDA_CHECK(cudaMemsetAsync(a.dq, 0, (size_t)rows * 64 * sizeof(float), 0));
    if (!im->fa_bwd_attr) {
        CUDA_CHECK(cudaFuncSetAttribute(k_flash_bwd, cudaFuncAttributeMaxDynamicSharedMemorySize, FA_BWD_SMEM));
        CUDA_CHECK(cudaFuncSetAttribute(k_flash_bwd2, cudaFuncAttributeMaxDynamicSharedMemorySize, FA_BWD_SMEM));
        im->fa_bwd_attr = 1;
    }
    dim3 grid((unsigned)(B * H), (unsigned)((T + 63) / 64)); /* heads in x: heavy tiles first */
    if (im->fa_bwd_ver == 1) KLAUNCH(k_flash_bwd, grid, 128, FA_BWD_SMEM, a, vec);
    else KLAUNCH(k_flash_bwd2, grid, 128, FA_BWD_SMEM, a, vec);
    CUDA_CHECK_LAUNCH();
    if (gq) {
        const wb_tensor *gts[1] = {gq};
        int dvec = fa_vec_ok(gts, 1) && rows * 8 < ((int64_t)1 << 32); /* 16-byte rows, 32-bit indices */
        KLAUNCH(k_flash_dq_finish, blocks_for(rows * 8, 256), 256, 0, a, rows * 8, dvec);
        CUDA_CHECK_LAUNCH();
    }
    return WB_OK;
}

static int cuda_norm_sq(wb_backend *be, void *out, const void *grads, int64_t n, wb_dtype dt) {
    cuda_impl *im = IMPL(be);
    unsigned grid = blocks_for(n, 1024);
    if (grid > 1024) grid = 1024;
    if (grid < 1) grid = 1;
    if (dt == WB_BF16) KLAUNCH(k_norm_partial<bf16>, grid, 1024, 0, (const bf16 *)grads, n, im->partial);
    else if (dt == WB_F32) KLAUNCH(k_norm_partial<float>, grid, 1024, 0, (const float *)grads, n, im->partial);
    else return bad_dtype("norm_sq", dt);
    CUDA_CHECK_LAUNCH();
    KLAUNCH(k_norm_final, 1, 1024, 0, im->partial, (int)grid, (float *)out);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

static int cuda_adamw(wb_backend *be, const wb_adamw_args *a) {
    float bc1 = (float)(1.0 - pow(a->beta1, a->t)), bc2 = (float)(1.0 - pow(a->beta2, a->t));
    unsigned grid = blocks_for(a->n, 256);
    size_t es = a->dtype == WB_BF16 ? 2 : 4;
    /* four parameters a thread where every array is aligned to four elements */
    int vec = (uintptr_t)a->params % (4 * es) == 0 && (uintptr_t)a->grads % (4 * es) == 0 &&
              (uintptr_t)a->m % 16 == 0 && (uintptr_t)a->v % 16 == 0 && (!a->master || (uintptr_t)a->master % 16 == 0);
    if (vec && (a->dtype == WB_BF16 || a->dtype == WB_F32)) {
        if (a->dtype == WB_BF16 && !a->master) {
            fprintf(stderr, "cuda adamw: bf16 parameters need an f32 master copy\n");
            return WB_FAIL;
        }
        unsigned g4 = blocks_for((a->n + 3) / 4, 256);
        if (a->dtype == WB_BF16)
            KLAUNCH(k_adamw_vec4<bf16>, g4, 256, 0, BF(a->params), (const bf16 *)a->grads, a->master, FL(a->m), FL(a->v),
                    (const float *)a->norm_sq, a->n, a->n_decay, a->lr, a->beta1, a->beta2, a->eps, a->weight_decay,
                    a->grad_clip, bc1, bc2);
        else
            KLAUNCH(k_adamw_vec4<float>, g4, 256, 0, FL(a->params), (const float *)a->grads, NULL, FL(a->m), FL(a->v),
                    (const float *)a->norm_sq, a->n, a->n_decay, a->lr, a->beta1, a->beta2, a->eps, a->weight_decay,
                    a->grad_clip, bc1, bc2);
        CUDA_CHECK_LAUNCH();
        return WB_OK;
    }
    if (a->dtype == WB_BF16) {
        if (!a->master) {
            fprintf(stderr, "cuda adamw: bf16 parameters need an f32 master copy\n");
            return WB_FAIL;
        }
        KLAUNCH(k_adamw<bf16>, grid, 256, 0, BF(a->params), (const bf16 *)a->grads, a->master, FL(a->m), FL(a->v),
                                     (const float *)a->norm_sq, a->n, a->n_decay, a->lr, a->beta1, a->beta2, a->eps,
                                     a->weight_decay, a->grad_clip, bc1, bc2);
    } else if (a->dtype == WB_F32) {
        KLAUNCH(k_adamw<float>, grid, 256, 0, FL(a->params), (const float *)a->grads, NULL, FL(a->m), FL(a->v),
                                      (const float *)a->norm_sq, a->n, a->n_decay, a->lr, a->beta1, a->beta2, a->eps,
                                      a->weight_decay, a->grad_clip, bc1, bc2);
    } else {
        return bad_dtype("adamw", a->dtype);
    }
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

static int cuda_init(wb_backend *be, int device) {
    cuda_impl *im = IMPL(be);
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (device >= count) {
        fprintf(stderr, "cuda backend: device %d of %d\n", device, count);
        return WB_FAIL;
    }
    CUDA_CHECK(cudaSetDevice(device));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    snprintf(be->device_name, sizeof be->device_name, "%.100s (sm_%d%d)", prop.name, prop.major, prop.minor);
    im->cc_major = prop.major;
    im->num_sms = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
    /* kernel versions (PERF_NOTES.md, round 2): version 2 of these three measured slower on the
     * H200 as a whole (37.8 ms/step with version 1, 38.8 with version 2), so version 1 is the
     * default and version 2 stays selectable (=2) for comparison */
    const char *fv = getenv("WB_FLASH_FWD");
    im->fa_fwd_ver = fv && atoi(fv) == 2 ? 2 : 1;
    const char *bv = getenv("WB_FLASH_BWD");
    im->fa_bwd_ver = bv && atoi(bv) == 2 ? 2 : 1;
    const char *lv = getenv("WB_LN_BWD");
    im->ln_bwd_ver = lv && atoi(lv) == 2 ? 2 : 1;
    if (fv || bv || lv)
        fprintf(stderr, "cuda backend: flash forward v%d, flash backward v%d, layer-norm backward v%d\n", im->fa_fwd_ver,
                im->fa_bwd_ver, im->ln_bwd_ver);
    im->cc_minor = prop.minor;
    if (prop.major < 8) {
        fprintf(stderr, "cuda backend: %s is sm_%d%d; bf16 kernels need sm_80 or newer\n", prop.name, prop.major, prop.minor);
        return WB_FAIL;
    }
    CUBLAS_CHECK(cublasLtCreate(&im->lt));
    im->workspace_size = (size_t)32 << 20;
    CUDA_CHECK(cudaMalloc(&im->workspace, im->workspace_size));
    CUDA_CHECK(cudaMalloc((void **)&im->partial, 1024 * sizeof(float)));
    be->peak_flops = cuda_peak_for(be, WB_BF16);
    return WB_OK;
}

extern "C" int wb_backend_cuda_create(wb_backend **out, int device) {
    wb_backend *be = (wb_backend *)calloc(1, sizeof *be);
    cuda_impl *im = (cuda_impl *)calloc(1, sizeof *im);
    if (!be || !im) {
        free(be);
        free(im);
        return WB_FAIL;
    }
    be->impl = im;
    be->name = "cuda";
    be->kind = WB_BACKEND_CUDA;
    be->destroy = cuda_destroy;
    be->supports = cuda_supports;
    be->peak_for = cuda_peak_for;
    be->alloc = cuda_alloc;
    be->free = cuda_free;
    be->memset0 = cuda_memset0;
    be->to_host = cuda_to_host;
    be->to_device = cuda_to_device;
    be->sync = cuda_sync;
    be->fill = cuda_fill;
    be->binary = cuda_binary;
    be->unary = cuda_unary;
    be->unary_backward = cuda_unary_backward;
    be->sum_into = cuda_sum_into;
    be->causal_mask = cuda_causal_mask;
    be->dropout = cuda_dropout;
    be->gemm = cuda_gemm;
    be->softmax = cuda_softmax;
    be->softmax_backward = cuda_softmax_backward;
    be->layernorm = cuda_layernorm;
    be->layernorm_backward = cuda_layernorm_backward;
    be->gather_rows = cuda_gather_rows;
    be->scatter_add_rows = cuda_scatter_add_rows;
    be->cross_entropy = cuda_cross_entropy;
    be->cross_entropy_backward = cuda_cross_entropy_backward;
    be->attention_supported = cuda_attention_supported;
    be->attention = cuda_attention;
    be->attention_backward = cuda_attention_backward;
    be->norm_sq = cuda_norm_sq;
    be->adamw = cuda_adamw;
    if (cuda_init(be, device) != WB_OK) {
        cuda_destroy(be);
        return WB_FAIL;
    }
    *out = be;
    return WB_OK;
}
