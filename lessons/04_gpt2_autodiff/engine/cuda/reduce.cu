/*
 * reduce.cu: sums over dims (sum_into: bias and position-embedding gradients, broadcast pullbacks)
 * and the squared norm of the gradient block (gradient clipping). Every sum has a fixed order:
 * the same bits on every run.
 */
#include "cuda_common.cuh"

/* ---------------------------------------------------------------------------------------------
 * reductions
 * ------------------------------------------------------------------------------------------ */
/* General sum_into: one thread per dst element, looping over the reduced index space. Slow when
 * few dst elements each reduce many (use the column sums for that case). */
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

/* Column sums of a contiguous (M, N) into a contiguous (N) in one pass, dst = scale sum (+ dst when
 * acc): bias gradients below 1024 rows, the position embedding's gradient (a sum over the batch).
 * A block of 256 threads covers a slab of 32 V columns, thread (x, y) = (threadIdx.x % 32,
 * threadIdx.x / 32) the V columns [V x, V x + V) and the rows y, y + 8, ...; the 8 row lanes are
 * added in shared memory in order. V = 8 (N a multiple of 8, rows 16-byte aligned): 16-byte loads,
 * a warp reads 512 contiguous bytes of a row; V = 1 otherwise. 2-byte loads (V = 1) take 40.7 us
 * for the 124M position-embedding gradient (25 MB), 16-byte ones (V = 8) 11.1. */
template <typename T, int V>
__global__ void __launch_bounds__(256) k_sum_cols(T *dst, const T *src, int64_t M, int64_t N, float scale, int acc) {
    __shared__ float buf[8][32 * V + 4];
    const int x = threadIdx.x % 32, y = threadIdx.x / 32, W = 32 * V;
    const int64_t base = blockIdx.x * (int64_t)W, c = base + (int64_t)x * V;
    float s[V];
    UNROLL
    for (int e = 0; e < V; e++) s[e] = 0.0f;
    if (c < N) { /* V = 8: N is a multiple of 8 */
        UNROLL4
        for (int64_t r = y; r < M; r += 8) {
            float v[V];
            if (V == 8) ld8(v, src + r * N + c);
            else v[0] = ld(src + r * N + c);
            UNROLL
            for (int e = 0; e < V; e++) s[e] += v[e];
        }
    }
    UNROLL
    for (int e = 0; e < V; e++) buf[y][V * x + e] = s[e];
    __syncthreads();
    const int t = threadIdx.x; /* column t of the slab */
    if (t < W && base + t < N) {
        float tot = 0.0f;
        UNROLL
        for (int k = 0; k < 8; k++) tot += buf[k][t];
        tot *= scale;
        st(dst + base + t, acc ? ld(dst + base + t) + tot : tot);
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
 * loads are in flight), then lane 0 adds the 8 lanes in order: deterministic. A thread per column
 * walking all chunks one load at a time would be 3 blocks at N = 768. */
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

/* squared norm: per-block partial sums, then one block adds the partials (deterministic). vec:
 * 16-byte loads over the first n / 8 vectors, then the rest one element at a time. At 124M the
 * bf16 gradients are 249 MB (60 us at copy bandwidth); 2-byte loads took 193 us on the H200. */
template <typename T>
__global__ void k_norm_partial(const T *g, int64_t n, float *partial, int vec) {
    float s = 0.0f;
    const int64_t t0 = blockIdx.x * (int64_t)blockDim.x + threadIdx.x, stride = (int64_t)gridDim.x * blockDim.x;
    int64_t rest = 0;
    if (vec) {
        const int64_t n8 = n / 8;
        for (int64_t i = t0; i < n8; i += stride) {
            float v[8];
            ld8(v, g + 8 * i);
            UNROLL
            for (int e = 0; e < 8; e++) s = fmaf(v[e], v[e], s);
        }
        rest = 8 * n8;
    }
    for (int64_t i = rest + t0; i < n; i += stride) {
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
 * launchers
 * ------------------------------------------------------------------------------------------ */
/* row chunks for a column sum over M rows: 1 (one pass) below 1024 rows */
static int col_chunks(int64_t M) {
    if (M < 1024) return 1;
    int64_t c = M / 256;
    return (int)(c > 64 ? 64 : c);
}

int cuda_sum_into(wb_backend *be, const wb_tensor *dst, const wb_tensor *src, double scale, int acc) {
    int mask = 0, k = 0;
    int64_t n_red = 1, n_dst = wb_numel(dst);
    for (int d = 0; d < src->ndim; d++)
        if (dst->shape[d] == 1 && src->shape[d] != 1) mask |= 1 << d, n_red *= src->shape[d];
    /* the common case: the leading dims reduced, the trailing ones kept, both contiguous */
    while (k < src->ndim && (mask >> k & 1)) k++;
    int leading = mask == (1 << k) - 1 && k > 0;
    if (mask == 0) /* nothing to reduce: a scaled accumulate (an add's pullback where no alias is possible) */
        return cuda_unary(be, WB_OP_IDENTITY, scale, dst, src, acc);
    int chunks = col_chunks(n_red);
    if (wb_cuda_sum_into_two_pass(dst, src)) { /* launch_plan.h: chunks > 1 here */
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
    if (leading && wb_is_contiguous(dst) && wb_is_contiguous(src)) { /* one pass, below 1024 rows */
        const int vec = n_dst % 8 == 0 && (uintptr_t)src->data % 16 == 0;
        const unsigned grid = blocks_for(n_dst, vec ? 256 : 32);
        const float s = (float)scale;
        if (dst->dtype == WB_BF16) {
            if (vec) KLAUNCH((k_sum_cols<bf16, 8>), grid, 256, 0, BF(dst->data), BF(src->data), n_red, n_dst, s, acc);
            else KLAUNCH((k_sum_cols<bf16, 1>), grid, 256, 0, BF(dst->data), BF(src->data), n_red, n_dst, s, acc);
        } else if (dst->dtype == WB_F32) {
            if (vec) KLAUNCH((k_sum_cols<float, 8>), grid, 256, 0, FL(dst->data), FL(src->data), n_red, n_dst, s, acc);
            else KLAUNCH((k_sum_cols<float, 1>), grid, 256, 0, FL(dst->data), FL(src->data), n_red, n_dst, s, acc);
        } else {
            return bad_dtype("sum_into", dst->dtype);
        }
        CUDA_CHECK_LAUNCH();
        return WB_OK;
    }
    LAUNCH(dst->dtype, k_sum_into, blocks_for(n_dst, 256), 256, desc(dst), desc(src), mask, n_dst, n_red,
           (float)scale, acc);
    return WB_OK;
}
int cuda_norm_sq(wb_backend *be, void *out, const void *grads, int64_t n, wb_dtype dt) {
    cuda_impl *im = IMPL(be);
    unsigned grid = blocks_for(n, 1024);
    if (grid > 1024) grid = 1024;
    if (grid < 1) grid = 1;
    int vec = (uintptr_t)grads % 16 == 0;
    if (dt == WB_BF16) KLAUNCH(k_norm_partial<bf16>, grid, 1024, 0, (const bf16 *)grads, n, im->partial, vec);
    else if (dt == WB_F32) KLAUNCH(k_norm_partial<float>, grid, 1024, 0, (const float *)grads, n, im->partial, vec);
    else return bad_dtype("norm_sq", dt);
    CUDA_CHECK_LAUNCH();
    KLAUNCH(k_norm_final, 1, 1024, 0, im->partial, (int)grid, (float *)out);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}
