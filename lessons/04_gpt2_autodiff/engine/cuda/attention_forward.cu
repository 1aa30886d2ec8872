/*
 * attention_forward.cu: fused causal attention (bf16, head size 64), FlashAttention-2 style on the
 * tensor cores (mma.sync m16n8k16, ldmatrix, cp.async): the (T, T) scores never leave the chip.
 *
 * A block of 4 warps owns 128 query rows, two 16-row tiles per warp (rows 16 w and
 * 64 + 16 w), and walks the 64-key tiles up to the diagonal. K and V tiles are double-buffered in
 * shared memory: the copy engine (cp.async) fetches tile j + 1 while the warps work on tile j.
 * Every K and V fragment a warp reads from shared memory feeds both of its row tiles' products
 * (shared-memory reads bound these kernels: ldmatrix moves 128 bytes a clock per SM). Each warp
 * keeps in registers S = Q K^T (2 x 16 x 64, f32), the online softmax state (running max and sum
 * of its rows) and O (2 x 16 x 64, f32). P goes from the S accumulators straight into A fragments
 * for O += P V: an m16n8 accumulator pair has the layout of an m16k16 A operand, so P never
 * touches shared memory. It writes O and the per-row log-sum-exp (natural log), which is all the
 * backward pass (attention_backward.cu) needs to recompute P.
 *
 * Causal: key tiles past the diagonal are never visited; only the diagonal tiles (and a partial
 * last tile) carry the mask, through a template flag, so that the other tiles' code has none.
 * Heavy blocks (the most tiles) are scheduled first. PERF_NOTES.md ("Round 4: attention") has the
 * measurements.
 */
#include "attention.cuh"

#define FA_FWD_SMEM (6 * FA_TILE * 2)                   /* Q (128 rows), K x 2, V x 2: 55296 bytes */
/* blocks per SM that __launch_bounds__ asks register allocation to allow (bench/flash_attn_bench.cu
 * compiles this file again with other values to time them side by side) */
#ifndef FA_FWD_MIN_BLOCKS
#define FA_FWD_MIN_BLOCKS 3 /* 168 registers */
#endif

/* grid (B*H heads in x, so that blocks start head by head with each head's heaviest tile first;
 * the 128-row query tiles in y) */
#define FA_FWD_THREADS 128 /* 4 warps */
static inline dim3 fa_fwd_grid(int64_t BH, int64_t T) { return dim3((unsigned)BH, (unsigned)((T + 127) / 128)); }

/* One key tile for a warp's two row tiles (m = 0: block rows 16 w ..; m = 1: 64 + 16 w ..):
 * S = Q K^T, the online softmax, O += P V. Every K and V fragment that ldmatrix brings from
 * shared memory feeds both row tiles' products (the round-3 kernel, one row tile per warp, read
 * twice the shared bytes per FLOP). Q's A fragments are read from shared memory per k-step
 * rather than held (32 registers fewer: 3 blocks per SM instead of 2). SKIP0: row tile 0 lies
 * entirely above the diagonal of this key tile (the block's second diagonal tile). EDGE: the
 * tile needs the causal mask or holds keys past T; the other tiles' code has no mask at all (a
 * run-time test compiled to per-score selects that every tile executed: ~3 instructions a score). */
template <bool SKIP0, bool EDGE>
__device__ __forceinline__ void fa_fwd_tile(float o[2][8][4], float mr[2][2], float lr[2][2], const bf16 *Qs,
                                            const bf16 *Kt, const bf16 *Vt, int k0, const int row[2][2], int T,
                                            float sl2) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, t4 = lane % 4;
    constexpr int M0 = SKIP0 ? 1 : 0;
    float s[2][8][4];
    UNROLL
    for (int m = M0; m < 2; m++)
        UNROLL
        for (int nt = 0; nt < 8; nt++)
            UNROLL
            for (int e = 0; e < 4; e++) s[m][nt][e] = 0.0f;
    UNROLL
    for (int kk = 0; kk < 4; kk++) { /* S = Q K^T */
        uint32_t qa[2][4];
        UNROLL
        for (int m = M0; m < 2; m++) ldmatrix_x4(qa[m], Qs + (m * 64 + warp * 16 + lane % 16) * FA_LDS + kk * 16 + (lane / 16) * 8);
        UNROLL
        for (int np = 0; np < 4; np++) {
            uint32_t b[4]; /* b0, b1 of n-tile 2 np; b0, b1 of n-tile 2 np + 1 */
            ldmatrix_x4(b, Kt + (np * 16 + lane % 8 + (lane / 16) * 8) * FA_LDS + kk * 16 + ((lane / 8) % 2) * 8);
            UNROLL
            for (int m = M0; m < 2; m++) {
                mma_m16n8k16_bf16(s[m][2 * np], qa[m], b);
                mma_m16n8k16_bf16(s[m][2 * np + 1], qa[m], b + 2);
            }
        }
    }
    uint32_t pf[2][4][4];
    UNROLL
    for (int m = M0; m < 2; m++) {
        float mx[2] = {-INFINITY, -INFINITY}; /* the raw scores' row max (scale > 0 keeps the order) */
        UNROLL
        for (int nt = 0; nt < 8; nt++)
            UNROLL
            for (int e = 0; e < 4; e++) {
                int key = k0 + nt * 8 + 2 * t4 + (e & 1);
                if (EDGE && (key > row[m][e >> 1] || key >= T)) s[m][nt][e] = -INFINITY;
                mx[e >> 1] = fmaxf(mx[e >> 1], s[m][nt][e]);
            }
        float mu[2];
        UNROLL
        for (int r = 0; r < 2; r++) { /* the row's max over the 4 lanes that share it, in log2 units */
            mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
            mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
            float m_new = fmaxf(mr[m][r], mx[r] * sl2);
            mu[r] = m_new == -INFINITY ? 0.0f : m_new;
            float alpha = fa_exp2(mr[m][r] - mu[r]); /* 0 on the first tile (m = -inf) */
            mr[m][r] = m_new, lr[m][r] *= alpha;
            UNROLL
            for (int nt = 0; nt < 8; nt++) o[m][nt][2 * r] *= alpha, o[m][nt][2 * r + 1] *= alpha;
        }
        UNROLL
        for (int nt = 0; nt < 8; nt++) { /* p = 2^(s sl2 - mu): one FFMA and one MUFU.EX2 a score */
            float p0 = fa_exp2(fmaf(s[m][nt][0], sl2, -mu[0])), p1 = fa_exp2(fmaf(s[m][nt][1], sl2, -mu[0]));
            float p2 = fa_exp2(fmaf(s[m][nt][2], sl2, -mu[1])), p3 = fa_exp2(fmaf(s[m][nt][3], sl2, -mu[1]));
            /* the f32 P summed (FlashAttention-2 does the same): P V uses P rounded to bf16, whose
             * errors (2^-9 relative, either sign) average out in the sum */
            lr[m][0] += p0 + p1, lr[m][1] += p2 + p3;
            pf[m][nt / 2][(nt % 2) * 2] = pack_bf16x2(p0, p1), pf[m][nt / 2][(nt % 2) * 2 + 1] = pack_bf16x2(p2, p3);
        }
    }
    UNROLL
    for (int kk = 0; kk < 4; kk++) /* O += P V */
        UNROLL
        for (int dp = 0; dp < 4; dp++) {
            uint32_t b[4];
            ldmatrix_x4_trans(b, Vt + (kk * 16 + lane % 8 + ((lane / 8) % 2) * 8) * FA_LDS + dp * 16 + (lane / 16) * 8);
            UNROLL
            for (int m = M0; m < 2; m++) {
                mma_m16n8k16_bf16(o[m][2 * dp], pf[m][kk], b);
                mma_m16n8k16_bf16(o[m][2 * dp + 1], pf[m][kk], b + 2);
            }
        }
}

/* 128 query rows a block (4 warps, two 16-row tiles each: rows 16 w and 64 + 16 w, so that on
 * the block's two diagonal key tiles every warp has the same work), 64-key tiles double-buffered
 * by cp.async. 3 blocks (12 warps) per SM: __launch_bounds__ caps the registers at 168. */
__global__ void __launch_bounds__(FA_FWD_THREADS, FA_FWD_MIN_BLOCKS) k_flash_fwd(AttnDesc a, int vec) {
    FA_DYNAMIC_SHARED(smem);
    bf16 *Qs = (bf16 *)smem, *Ks = Qs + 2 * FA_TILE, *Vs = Ks + 2 * FA_TILE; /* Q: 128 rows; K, V: two buffers */
    /* grid (B*H, 128-row tiles): blocks start in linear order (x fastest), so every head's longest
     * rows (the most key tiles) go first and the short ones fill the tail */
    const int T = a.T, nqt = (T + 127) / 128, qt = nqt - 1 - (int)blockIdx.y, nkt = (T + 63) / 64;
    const int bh = blockIdx.x, b = bh / a.H, h = bh % a.H, q0 = qt * 128;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t4 = lane % 4;
    const bf16 *qg = a.q + b * a.qs[0] + h * a.qs[1], *kg = a.k + b * a.ks[0] + h * a.ks[1];
    const bf16 *vg = a.v + b * a.vs[0] + h * a.vs[1];
    const float sl2 = a.scale * FA_LOG2E; /* scores in log2 units: exp2 is one instruction */
    const int kt_end = 2 * qt + 1 < nkt - 1 ? 2 * qt + 1 : nkt - 1; /* the last key tile with a key <= q0 + 127 */
    fa_load_tile(Qs, qg, a.qs[2], q0, T, vec);
    fa_load_tile(Qs + FA_TILE, qg, a.qs[2], q0 + 64, T, vec);
    fa_load_tile(Ks, kg, a.ks[2], 0, T, vec);
    fa_load_tile(Vs, vg, a.vs[2], 0, T, vec);
    cp_async_commit();
    float o[2][8][4], mr[2][2], lr[2][2];
    int row[2][2];
    UNROLL
    for (int m = 0; m < 2; m++) {
        UNROLL
        for (int nt = 0; nt < 8; nt++)
            UNROLL
            for (int e = 0; e < 4; e++) o[m][nt][e] = 0.0f;
        mr[m][0] = mr[m][1] = -INFINITY, lr[m][0] = lr[m][1] = 0.0f;
        row[m][0] = q0 + 64 * m + warp * 16 + g, row[m][1] = row[m][0] + 8;
    }
    for (int kt = 0; kt <= kt_end; kt++) {
        const int buf = kt & 1, k0 = kt * 64;
        if (kt < kt_end) { /* the next tile into the other buffer (every warp left it at the last barrier) */
            fa_load_tile(Ks + (buf ^ 1) * FA_TILE, kg, a.ks[2], k0 + 64, T, vec);
            fa_load_tile(Vs + (buf ^ 1) * FA_TILE, vg, a.vs[2], k0 + 64, T, vec);
        }
        cp_async_commit();
        cp_async_wait<1>(); /* all but the newest group: tile kt (and Q) have landed */
        __syncthreads();
        const bf16 *Kt = Ks + buf * FA_TILE, *Vt = Vs + buf * FA_TILE;
        if (kt == 2 * qt + 1) /* keys k0.. are past every row of the first row tiles */
            fa_fwd_tile<true, true>(o, mr, lr, Qs, Kt, Vt, k0, row, T, sl2);
        else if (kt == 2 * qt || k0 + 64 > T) /* the first diagonal tile, or keys past T */
            fa_fwd_tile<false, true>(o, mr, lr, Qs, Kt, Vt, k0, row, T, sl2);
        else
            fa_fwd_tile<false, false>(o, mr, lr, Qs, Kt, Vt, k0, row, T, sl2);
        __syncthreads(); /* every warp is done with buffer buf before it is refilled */
    }
    UNROLL
    for (int m = 0; m < 2; m++)
        UNROLL
        for (int r = 0; r < 2; r++) {
            float l = lr[m][r];
            l += __shfl_xor_sync(0xffffffffu, l, 1);
            l += __shfl_xor_sync(0xffffffffu, l, 2);
            if (row[m][r] >= T) continue;
            float inv = l > 0.0f ? 1.0f / l : 0.0f;
            bf16 *og = a.out + b * a.os[0] + h * a.os[1] + (int64_t)row[m][r] * a.os[2];
            UNROLL
            for (int nt = 0; nt < 8; nt++) {
                int d = nt * 8 + 2 * t4;
                if (vec) {
                    *(uint32_t *)(og + d) = pack_bf16x2(o[m][nt][2 * r] * inv, o[m][nt][2 * r + 1] * inv);
                } else {
                    og[d] = __float2bfloat16(o[m][nt][2 * r] * inv);
                    og[d + 1] = __float2bfloat16(o[m][nt][2 * r + 1] * inv);
                }
            }
            if (t4 == 0) a.lse[(int64_t)bh * T + row[m][r]] = mr[m][r] * (1.0f / FA_LOG2E) + logf(l);
        }
}

/* ---------------------------------------------------------------------------------------------
 * launchers
 * ------------------------------------------------------------------------------------------ */
/* bf16, head size 64, and Hopper (the kernels use sm_90a's wgmma; elsewhere the engine builds
 * attention from bmm and softmax_causal) */
int cuda_attention_supported(wb_backend *be, wb_dtype d, int64_t head_dim) {
    return d == WB_BF16 && head_dim == 64 && IMPL(be)->cc_major == 9;
}

int cuda_attention(wb_backend *be, const wb_tensor *out, const wb_tensor *lse, const wb_tensor *q,
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
        im->fa_fwd_attr = 1;
    }
    KLAUNCH(k_flash_fwd, fa_fwd_grid(B * H, T), FA_FWD_THREADS, FA_FWD_SMEM, a, fa_vec_ok(ts, 4));
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}
