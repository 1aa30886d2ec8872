/*
 * elementwise.cu: fill, binary and unary ops and their pullbacks, the causal mask, dropout, and the
 * embedding's row gather and scatter-add. Memory-bound: what counts is bytes per instruction and
 * no wasted bytes.
 */
#include "cuda_common.cuh"

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

/* ga (+)= g * f'(a), all four contiguous with one shape (GELU's pullback on [B*T, 4C]): 3 x 16
 * bytes per 8 elements when storing, 4 when accumulating (y only for exp and sqrt), f32 arithmetic */
template <typename T>
__global__ void k_unary_backward_vec8(int op, T *ga, const T *g, const T *a, const T *y, int64_t n8, int acc) {
    int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (v >= n8) return;
    float x[8], gy[8], yy[8], o[8];
    ld8(x, a + v * 8), ld8(gy, g + v * 8);
    if (acc) ld8(o, ga + v * 8);
    else
        for (int k = 0; k < 8; k++) o[k] = 0.0f;
    if (op == WB_OP_EXP || op == WB_OP_SQRT) ld8(yy, y + v * 8);
    else
        for (int k = 0; k < 8; k++) yy[k] = 0.0f;
    UNROLL
    for (int k = 0; k < 8; k++) o[k] += gy[k] * unop_df(op, x[k], yy[k]);
    st8(ga + v * 8, o);
}

/* contig: all four operands contiguous with one shape */
template <typename T>
__global__ void k_unary_backward(int op, TDesc ga, TDesc g, TDesc a, TDesc y, int64_t n, int contig, int acc) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = ld((const T *)a.p + (contig ? i : off(a, i))), gy = ld((const T *)g.p + (contig ? i : off(g, i)));
    float yv = op == WB_OP_EXP || op == WB_OP_SQRT ? ld((const T *)y.p + (contig ? i : off(y, i))) : 0.0f;
    T *o = (T *)ga.p + (contig ? i : off(ga, i));
    st(o, (acc ? ld(o) : 0.0f) + gy * unop_df(op, x, yv));
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
 * embedding and cross-entropy
 * ------------------------------------------------------------------------------------------ */
/* out[r] = table[idx[r]] (an embedding lookup), VEC elements a thread: 16-byte copies where C and
 * the rows allow (VEC = 8 bf16 or 4 f32), else 1. At GPT-2 124M the 16384 rows of 768 bf16 took
 * 59 us one element a thread (50 MB moved: 12 us at copy bandwidth). */
template <typename T, int VEC>
__global__ void k_gather_rows(T *out, const T *table, int64_t ts0, const int32_t *idx, int64_t N, int64_t C) {
    int64_t i = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) * VEC;
    if (i >= N * C) return;
    int64_t r = i / C, c = i % C;
    const T *src = table + (int64_t)idx[r] * ts0 + c;
    if (VEC > 1) *(uint4 *)(out + i) = *(const uint4 *)src;
    else out[i] = *src;
}

/* gtable[idx[r]] += g[r] by atomics: rows that repeat a token add into the same gradient row.
 * PAIR: two bf16 a thread through one __nv_bfloat162 atomicAdd (half the atomics; sm_80 and
 * newer), where C and the rows are even and 4-byte aligned. */
template <typename T, int PAIR>
__global__ void k_scatter_add_rows(T *gtable, int64_t ts0, const T *g, const int32_t *idx, int64_t N, int64_t C) {
    int64_t i = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) * PAIR;
    if (i >= N * C) return;
    int64_t r = i / C, c = i % C;
    T *dst = gtable + (int64_t)idx[r] * ts0 + c;
    if (PAIR == 2) atomicAdd((__nv_bfloat162 *)dst, *(const __nv_bfloat162 *)(g + i));
    else atomicAdd(dst, g[i]);
}
/* A memset of n elements of elem (1, 2 or 4) bytes, value's low elem bytes each, by one small
 * block: what a captured step's small memset nodes become (backend_cuda.cu, graph_end). */
__global__ void k_memset_small(void *dst, unsigned value, unsigned elem, size_t n) {
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
        if (elem == 4) ((uint32_t *)dst)[i] = value;
        else if (elem == 2) ((uint16_t *)dst)[i] = (uint16_t)value;
        else ((uint8_t *)dst)[i] = (uint8_t)value;
    }
}

/* ---------------------------------------------------------------------------------------------
 * launchers
 * ------------------------------------------------------------------------------------------ */
/* the contig bit mask of k_binary / k_unary */
static int contig_mask(const wb_tensor *o, const wb_tensor *a, const wb_tensor *b) {
    int m = wb_is_contiguous(o);
    if (wb_is_contiguous(a) && wb_same_shape(o, a)) m |= 2;
    if (b && wb_is_contiguous(b) && wb_same_shape(o, b)) m |= 4;
    return m;
}
int cuda_fill(wb_backend *be, const wb_tensor *out, double v) {
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

int cuda_binary(wb_backend *be, wb_binop op, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b,
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

int cuda_unary(wb_backend *be, wb_unop op, double alpha, const wb_tensor *out, const wb_tensor *a, int acc) {
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

int cuda_unary_backward(wb_backend *be, wb_unop op, const wb_tensor *ga, const wb_tensor *g, const wb_tensor *a,
                        const wb_tensor *y, int acc) {
    int64_t n = wb_numel(ga);
    if (n == 0) return WB_OK;
    int contig = contig_mask(ga, g, a) == 7 && wb_is_contiguous(y) && wb_same_shape(ga, y);
    if (contig && n % 8 == 0 && vec8_ok(n, ga->data, g->data, a->data) && (uintptr_t)y->data % 16 == 0) {
        unsigned grid = blocks_for(n / 8, 256);
        if (ga->dtype == WB_BF16)
            KLAUNCH(k_unary_backward_vec8<bf16>, grid, 256, 0, (int)op, BF(ga->data), BF(g->data), BF(a->data), BF(y->data), n / 8, acc);
        else if (ga->dtype == WB_F32)
            KLAUNCH(k_unary_backward_vec8<float>, grid, 256, 0, (int)op, FL(ga->data), FL(g->data), FL(a->data), FL(y->data), n / 8, acc);
        else return bad_dtype("unary_backward", ga->dtype);
        CUDA_CHECK_LAUNCH();
        return WB_OK;
    }
    LAUNCH(ga->dtype, k_unary_backward, blocks_for(n, 256), 256, (int)op, desc(ga), desc(g), desc(a), desc(y), n, contig, acc);
    return WB_OK;
}

int cuda_causal_mask(wb_backend *be, const wb_tensor *out, const wb_tensor *in, double fill, int acc) {
    int64_t n = wb_numel(out), Tn = out->shape[out->ndim - 1];
    LAUNCH(out->dtype, k_causal_mask, blocks_for(n, 256), 256, desc(out), desc(in), (float)fill, n, Tn, acc);
    return WB_OK;
}

int cuda_dropout(wb_backend *be, const wb_tensor *out, const wb_tensor *in, float p, uint64_t seed, int acc) {
    int64_t n = wb_numel(out);
    LAUNCH(out->dtype, k_dropout, blocks_for(n, 256), 256, desc(out), desc(in), p, seed, n, acc);
    return WB_OK;
}
/* rows of `elems` elements, each starting at a multiple of `elems` from 16-byte aligned bases */
static int rows_aligned(int64_t C, int64_t stride, const void *a, const void *b, int elems, int bytes) {
    return C % elems == 0 && stride % elems == 0 && (uintptr_t)a % bytes == 0 && (uintptr_t)b % bytes == 0;
}
int cuda_gather_rows(wb_backend *be, const wb_tensor *out, const wb_tensor *table, const wb_tensor *idx) {
    int64_t N = out->shape[0], C = out->shape[1], ts0 = table->stride[0];
    const int32_t *ix = (const int32_t *)idx->data;
    if (out->dtype == WB_BF16 && rows_aligned(C, ts0, out->data, table->data, 8, 16))
        KLAUNCH((k_gather_rows<bf16, 8>), blocks_for(N * C / 8, 256), 256, 0, BF(out->data), BF(table->data), ts0, ix, N, C);
    else if (out->dtype == WB_BF16)
        KLAUNCH((k_gather_rows<bf16, 1>), blocks_for(N * C, 256), 256, 0, BF(out->data), BF(table->data), ts0, ix, N, C);
    else if (out->dtype == WB_F32 && rows_aligned(C, ts0, out->data, table->data, 4, 16))
        KLAUNCH((k_gather_rows<float, 4>), blocks_for(N * C / 4, 256), 256, 0, FL(out->data), FL(table->data), ts0, ix, N, C);
    else if (out->dtype == WB_F32)
        KLAUNCH((k_gather_rows<float, 1>), blocks_for(N * C, 256), 256, 0, FL(out->data), FL(table->data), ts0, ix, N, C);
    else return bad_dtype("gather_rows", out->dtype);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

int cuda_scatter_add_rows(wb_backend *be, const wb_tensor *gt, const wb_tensor *g, const wb_tensor *idx) {
    int64_t N = g->shape[0], C = g->shape[1], ts0 = gt->stride[0];
    const int32_t *ix = (const int32_t *)idx->data;
    if (g->dtype == WB_BF16 && rows_aligned(C, ts0, gt->data, g->data, 2, 4))
        KLAUNCH((k_scatter_add_rows<bf16, 2>), blocks_for(N * C / 2, 256), 256, 0, BF(gt->data), ts0, BF(g->data), ix, N, C);
    else if (g->dtype == WB_BF16)
        KLAUNCH((k_scatter_add_rows<bf16, 1>), blocks_for(N * C, 256), 256, 0, BF(gt->data), ts0, BF(g->data), ix, N, C);
    else if (g->dtype == WB_F32)
        KLAUNCH((k_scatter_add_rows<float, 1>), blocks_for(N * C, 256), 256, 0, FL(gt->data), ts0, FL(g->data), ix, N, C);
    else return bad_dtype("scatter_add_rows", g->dtype);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}
