/*
 * attention_forward.cu: fused causal attention (bf16, head size 64), FlashAttention-3 style on
 * Hopper's warpgroup MMA (wgmma, sm_90a; wgmma.cuh): the (T, T) scores never leave the chip, and
 * the tensor cores read Q, K and V straight from shared memory (no ldmatrix through the registers
 * of every warp: that traffic bounds an mma.sync kernel; docs/performance-history.md has counts).
 *
 * A block of 2 warpgroups (8 warps) owns 128 query rows, 64 per warpgroup, and walks the 128-key
 * tiles up to the diagonal. Q's rows are loaded once; K and V tiles are double-buffered in shared
 * memory (cp.async fetches tile j + 1 while the warpgroups work on tile j), every tile in wgmma's
 * 128-byte swizzle. Per key tile each warpgroup computes S = Q K^T (64 x 128, f32, 64 registers a
 * thread) with 4 wgmma of k = 16 (the head dimension), the online softmax on the accumulators (a
 * thread holds 2 rows x 32 scores; the 4 threads of a row meet by two shuffles), then O += P V with
 * 8 wgmma of 16 keys whose A operand (P) comes from registers: an m64n8 accumulator pair has the
 * layout of an A fragment, so P never touches shared memory. It writes O and the per-row
 * log-sum-exp (natural log), which is all the backward pass (attention_backward.cu) needs to
 * recompute P.
 *
 * Causal: key tiles past the diagonal are never visited; only the diagonal tile (which also holds
 * any keys past T) carries the mask, through a template flag, and there the first warpgroup's rows
 * need only the tile's first 64 keys (half the products). Heavy blocks (the most tiles) are
 * scheduled first. docs/performance-history.md has the measurements.
 */
#include "attention.cuh"

#define FA_FWD_WGS 2                                   /* warpgroups a block, 64 query rows each */
#define FA_FWD_THREADS (128 * FA_FWD_WGS)
#define FA_FWD_ROWS (64 * FA_FWD_WGS)                  /* query rows a block */
#define FA_FWD_KEYS 128                                /* keys a tile */
#define FA_FWD_SMEM ((FA_FWD_ROWS + 4 * FA_FWD_KEYS) * 128) /* Q, K x 2, V x 2: 81920 bytes */
/* blocks per SM that __launch_bounds__ asks register allocation to allow: 2 caps the registers at
 * 128 (60 bytes spilled) beside 2 x 80 KB of shared memory. One block per SM (161 registers, no
 * spills) ran 1.4x slower: the second block's softmax is what overlaps the first's MMAs. */
#define FA_FWD_MIN_BLOCKS 2

/* grid (B*H heads in x, so that blocks start head by head with each head's heaviest tile first;
 * the query tiles in y) */
static inline dim3 fa_fwd_grid(int64_t BH, int64_t T) {
    return dim3((unsigned)BH, (unsigned)((T + FA_FWD_ROWS - 1) / FA_FWD_ROWS));
}

/* The three steps of one key tile for one warpgroup's 64 rows; NK: the tile's keys that the rows
 * can see (128, or 64 on the diagonal for the first warpgroup). */

/* S = Q K^T over NK keys, issued (the caller commits and waits): both operands K-major, the head
 * dimension the k index, 4 steps of 16 */
template <int NK>
__device__ __forceinline__ void fa_fwd_scores(float s[NK / 2], const bf16 *Qw, const bf16 *Kt) {
    wg_fence();
    UNROLL
    for (int ks = 0; ks < 4; ks++)
        wg_mma_ss<NK, 0, 0>(s, wg_desc_kmajor(Qw, 0, 16 * ks), wg_desc_kmajor(Kt, 0, 16 * ks), ks > 0);
}

/* The online softmax of S (this thread: rows row[0], row[1], NK / 4 scores each), in two halves.
 * fa_fwd_max: the rows' new running max mr (log2 units), mu = the max the exponentials subtract,
 * alpha = exp2(old max - new): the factor O's rows and the running sums lr must be scaled by. EDGE:
 * the causal mask and keys past T, applied to s (the other tiles' code has no mask at all). */
template <int NK, bool EDGE>
__device__ __forceinline__ void fa_fwd_max(float s[NK / 2], float mr[2], float mu[2], float alpha[2], int k0,
                                           const int row[2], int T, float sl2) {
    const int c = threadIdx.x % 4;
    float mx[2] = {-INFINITY, -INFINITY}; /* the raw scores' row max (scale > 0 keeps the order) */
    UNROLL
    for (int j = 0; j < NK / 8; j++)
        UNROLL
        for (int e = 0; e < 4; e++) {
            int key = k0 + 8 * j + 2 * c + (e & 1);
            if (EDGE && (key > row[e >> 1] || key >= T)) s[4 * j + e] = -INFINITY;
            mx[e >> 1] = fmaxf(mx[e >> 1], s[4 * j + e]);
        }
    UNROLL
    for (int r = 0; r < 2; r++) { /* the row's max over the 4 threads that share it, in log2 units */
        mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
        mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
        float m_new = fmaxf(mr[r], mx[r] * sl2);
        mu[r] = m_new == -INFINITY ? 0.0f : m_new;
        alpha[r] = fa_exp2(mr[r] - mu[r]); /* 0 on the first tile (m = -inf) */
        mr[r] = m_new;
    }
}

/* fa_fwd_exp: P = 2^(s sl2 - mu) as the A fragments of NK / 16 k-steps, its rows' sums added to lr */
template <int NK>
__device__ __forceinline__ void fa_fwd_exp(const float s[NK / 2], uint32_t pf[][4], float lr[2], const float mu[2], float sl2) {
    UNROLL
    for (int j = 0; j < NK / 8; j++) { /* one FFMA and one MUFU.EX2 a score */
        float p0 = fa_exp2(fmaf(s[4 * j], sl2, -mu[0])), p1 = fa_exp2(fmaf(s[4 * j + 1], sl2, -mu[0]));
        float p2 = fa_exp2(fmaf(s[4 * j + 2], sl2, -mu[1])), p3 = fa_exp2(fmaf(s[4 * j + 3], sl2, -mu[1]));
        /* the f32 P summed (FlashAttention-2 does the same): P V uses P rounded to bf16, whose
         * errors (2^-9 relative, either sign) average out in the sum */
        lr[0] += p0 + p1, lr[1] += p2 + p3;
        pf[j / 2][(j % 2) * 2] = pack_bf16x2(p0, p1), pf[j / 2][(j % 2) * 2 + 1] = pack_bf16x2(p2, p3);
    }
}

/* O's rows and their sums scaled to the new max */
__device__ __forceinline__ void fa_fwd_rescale(float o[32], float lr[2], const float alpha[2]) {
    lr[0] *= alpha[0], lr[1] *= alpha[1];
    UNROLL
    for (int j = 0; j < 8; j++)
        UNROLL
        for (int e = 0; e < 4; e++) o[4 * j + e] *= alpha[e >> 1];
}

/* keeps the compiler from moving these registers' definitions past this point (wg_fence_acc's
 * counterpart for the A fragments that wgmma reads from registers) */
__device__ __forceinline__ void fa_pin_regs(uint32_t r[4]) {
#ifndef WB_CUDA_EMULATION
    UNROLL
    for (int i = 0; i < 4; i++) asm volatile("" : "+r"(r[i])::"memory");
#endif
}

/* O += P V over NK keys, issued (the caller commits and waits): V's rows are the k index, its
 * columns N (MN-major); P from registers */
template <int NK>
__device__ __forceinline__ void fa_fwd_pv(float o[32], uint32_t pf[][4], const bf16 *Vt) {
    /* P and O final in their registers before the MMAs start (else ptxas may still be moving them
     * into place between two wgmma of one batch, and then serialises the batch) */
    UNROLL
    for (int ks = 0; ks < NK / 16; ks++) fa_pin_regs(pf[ks]);
    wg_fence_acc<32>(o);
    wg_fence();
    UNROLL
    for (int ks = 0; ks < NK / 16; ks++) wg_mma_rs<64, 1>(o, pf[ks], wg_desc_mnmajor(Vt, 16 * ks, 0), 1);
}

/* One key tile, each step waited for */
template <int NK, bool EDGE>
__device__ __forceinline__ void fa_fwd_tile(float o[32], float mr[2], float lr[2], const bf16 *Qw, const bf16 *Kt,
                                            const bf16 *Vt, int k0, const int row[2], int T, float sl2) {
    float s[NK / 2], mu[2], alpha[2];
    uint32_t pf[NK / 16][4];
    fa_fwd_scores<NK>(s, Qw, Kt);
    wg_commit();
    wg_wait<0>();
    wg_fence_acc<NK / 2>(s);
    fa_fwd_max<NK, EDGE>(s, mr, mu, alpha, k0, row, T, sl2);
    fa_fwd_rescale(o, lr, alpha);
    fa_fwd_exp<NK>(s, pf, lr, mu, sl2);
    fa_fwd_pv<NK>(o, pf, Vt);
    wg_commit();
    wg_wait<0>();
    wg_fence_acc<32>(o);
}

/* O normalised (bf16) and the log-sum-exp (natural log) of this thread's two rows into the head's
 * rows of out (row stride rs) and lse. (The descriptor itself is not passed: a reference to the
 * kernel's parameter costs a copy of it in local memory and 92 bytes of spills.) */
__device__ __forceinline__ void fa_fwd_store(bf16 *out, int64_t rs, float *lse, const float o[32], const float mr[2],
                                             const float lr[2], const int row[2], int T, int vec) {
    const int c = threadIdx.x % 4;
    UNROLL
    for (int r = 0; r < 2; r++) {
        float l = lr[r];
        l += __shfl_xor_sync(0xffffffffu, l, 1);
        l += __shfl_xor_sync(0xffffffffu, l, 2);
        if (row[r] >= T) continue;
        float inv = l > 0.0f ? 1.0f / l : 0.0f;
        bf16 *og = out + (int64_t)row[r] * rs;
        UNROLL
        for (int j = 0; j < 8; j++) {
            int d = 8 * j + 2 * c;
            if (vec) {
                *(uint32_t *)(og + d) = pack_bf16x2(o[4 * j + 2 * r] * inv, o[4 * j + 2 * r + 1] * inv);
            } else {
                og[d] = __float2bfloat16(o[4 * j + 2 * r] * inv);
                og[d + 1] = __float2bfloat16(o[4 * j + 2 * r + 1] * inv);
            }
        }
        if (c == 0) lse[row[r]] = mr[r] * (1.0f / FA_LOG2E) + logf(l);
    }
}

/* 128 rows [row0, row0 + 128) of a (T, 64) matrix (Q, K or V) into a swizzled tile, zeros past T:
 * wg_load_rows_sw128 specialised to this block. With 16-byte copies thread t copies chunk t % 8 of
 * rows t / 8 + 32 i, so its swizzled chunk (chunk ^ row % 8) is the same in every row it copies and
 * both addresses step by a constant: a few instructions a copy instead of the general loop's ~20.
 * On the H200: 92.9 us a layer against 102.7 with the general loader, though its hoisted strides
 * cost 60 bytes of spills at 128 registers (docs/performance-history.md). */
__device__ __forceinline__ void fa_fwd_load(bf16 *tile, const bf16 *src, int64_t rs, int row0, int T, int vec) {
    static_assert(FA_FWD_THREADS == 256 && FA_FWD_ROWS == 128 && FA_FWD_KEYS == 128, "fa_fwd_load: 128 rows, 256 threads");
    if (!vec) {
        wg_load_rows_sw128(tile, src, rs, row0, 128, T, 0);
        return;
    }
    const int c = threadIdx.x % 8, r = threadIdx.x / 8; /* r < 32 */
    bf16 *dst = tile + r * 64 + ((c ^ (r & 7)) << 3);
    const bf16 *from = src + (int64_t)(row0 + r) * rs + c * 8;
    UNROLL
    for (int i = 0; i < 4; i++) {
        bool ok = row0 + r + 32 * i < T;
        cp_async_16(dst + 32 * 64 * i, ok ? from + 32 * i * rs : src, ok);
    }
}

/* 128 query rows a block (2 warpgroups of 64), 128-key tiles double-buffered by cp.async; two
 * blocks (16 warps) per SM, so that one block's softmax runs while the other's MMAs do. */
__global__ void __launch_bounds__(FA_FWD_THREADS, FA_FWD_MIN_BLOCKS) k_flash_fwd(AttnDesc a, int vec) {
#if WG_AVAILABLE
    FA_DYNAMIC_SHARED(smem);
    /* every tile 1024-byte aligned (the swizzle's period): Q 128 rows, then K and V, two buffers each */
    bf16 *Qs = (bf16 *)smem, *Ks = Qs + FA_FWD_ROWS * 64, *Vs = Ks + 2 * FA_FWD_KEYS * 64;
    /* grid (B*H, query tiles): blocks start in linear order (x fastest), so every head's longest
     * rows (the most key tiles) go first and the short ones fill the tail */
    const int T = a.T, nqt = (T + FA_FWD_ROWS - 1) / FA_FWD_ROWS, qt = nqt - 1 - (int)blockIdx.y;
    const int bh = blockIdx.x, b = bh / a.H, h = bh % a.H, q0 = qt * FA_FWD_ROWS;
    const int wg = threadIdx.x / 128, w = (threadIdx.x / 32) % 4, g = (threadIdx.x % 32) / 4;
    const int r0 = q0 + 64 * wg; /* the warpgroup's first row */
    const bf16 *qg = a.q + b * a.qs[0] + h * a.qs[1], *kg = a.k + b * a.ks[0] + h * a.ks[1];
    const bf16 *vg = a.v + b * a.vs[0] + h * a.vs[1];
    const float sl2 = a.scale * FA_LOG2E; /* scores in log2 units: exp2 is one instruction */
    const int kt_end = q0 / FA_FWD_KEYS; /* the diagonal tile (128 rows, 128 keys: the tiles line up) */
    fa_fwd_load(Qs, qg, a.qs[2], q0, T, vec);
    fa_fwd_load(Ks, kg, a.ks[2], 0, T, vec);
    fa_fwd_load(Vs, vg, a.vs[2], 0, T, vec);
    cp_async_commit();
    float o[32], mr[2] = {-INFINITY, -INFINITY}, lr[2] = {0.0f, 0.0f};
    UNROLL
    for (int i = 0; i < 32; i++) o[i] = 0.0f;
    const int row[2] = {r0 + 16 * w + g, r0 + 16 * w + g + 8};
    const bf16 *Qw = Qs + 64 * 64 * wg; /* the warpgroup's 64 rows (8 row groups of 1024 bytes) */
    for (int kt = 0; kt <= kt_end; kt++) {
        const int buf = kt & 1, k0 = kt * FA_FWD_KEYS;
        if (kt < kt_end) { /* the next tile into the other buffer (every warpgroup left it at the last barrier) */
            fa_fwd_load(Ks + (buf ^ 1) * FA_FWD_KEYS * 64, kg, a.ks[2], k0 + FA_FWD_KEYS, T, vec);
            fa_fwd_load(Vs + (buf ^ 1) * FA_FWD_KEYS * 64, vg, a.vs[2], k0 + FA_FWD_KEYS, T, vec);
        }
        cp_async_commit();
        cp_async_wait<1>(); /* all but the newest group: tile kt (and Q) have landed */
        wg_fence_smem();    /* this thread's copies, visible to the tensor cores after the barrier */
        __syncthreads();
        const bf16 *Kt = Ks + buf * FA_FWD_KEYS * 64, *Vt = Vs + buf * FA_FWD_KEYS * 64;
        if (r0 < T) { /* (a warpgroup whose rows all lie past T has nothing to do) */
            if (kt < kt_end)
                fa_fwd_tile<128, false>(o, mr, lr, Qw, Kt, Vt, k0, row, T, sl2);
            else if (wg == 0) /* the diagonal: rows q0 .. q0 + 63 see only keys up to q0 + 63 */
                fa_fwd_tile<64, true>(o, mr, lr, Qw, Kt, Vt, k0, row, T, sl2);
            else
                fa_fwd_tile<128, true>(o, mr, lr, Qw, Kt, Vt, k0, row, T, sl2);
        }
        __syncthreads(); /* every warpgroup is done with buffer buf before it is refilled */
    }
    fa_fwd_store(a.out + b * a.os[0] + h * a.os[1], a.os[2], a.lse + (int64_t)bh * T, o, mr, lr, row, T, vec);
#else
    __trap();
#endif
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
