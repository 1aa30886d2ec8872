/*
 * attention_backward.cu: the pullback of fused causal attention (attention_forward.cu), in
 * FlashAttention-2's order on Hopper's warpgroup MMA (wgmma, sm_90a; wgmma.cuh), operands read
 * by the tensor cores from swizzled shared tiles, as FlashAttention-3 does.
 *
 * D = rowsum(dO * O) first (k_flash_bwd_pre); then a block of two warpgroups owns 128 keys, 64
 * per warpgroup, and walks the 64-query tiles from the diagonal down, Q and dO double-buffered.
 * A warpgroup computes its keys' S^T = K Q^T and dP^T = V dO^T (64 x 64), P^T from S^T and the
 * saved log-sum-exp, dS^T = P^T (dP^T - D), and accumulates dV += P^T dO and dK += dS^T Q in
 * registers (P^T and dS^T straight from accumulators into register A operands). dQ needs a sum
 * over all 128 keys: dS^T goes to shared memory, each warpgroup takes 64 queries x 32 columns of
 * dQ_tile = dS K, and adds it with f32 atomics into a scratch buffer (k_flash_dq_finish adds that
 * into q's gradient).
 *
 * Causal: query tiles above the diagonal are never visited; only the diagonal tiles (and a
 * partial last tile) carry the mask, through a template flag. docs/performance-history.md has
 * the measurements; bench/flash_attn_mma.cuh keeps an mma.sync version to time this one
 * against.
 */
#include "attention.cuh"

/* K, V (128 rows), Q x 2, dO x 2 (64 rows), dS^T x 2 (128 rows) in 128-byte rows; lse, D x 2: 99328 */
#define FA_BWD_SMEM ((128 + 128 + 4 * 64 + 2 * 128) * 64 * 2 + 4 * 64 * 4)

/* grid (B*H heads in x; the 128-key tiles in y) */
#define FA_BWD_THREADS 256 /* 2 warpgroups */
static inline dim3 fa_bwd_grid(int64_t BH, int64_t T) { return dim3((unsigned)BH, (unsigned)((T + 127) / 128)); }


/* D[row] = sum_d dO[row, d] * O[row, d]: 8 lanes a row, 16-byte loads when vec */
__global__ void k_flash_bwd_pre(AttnDesc a, int64_t rows, int vec) {
    int64_t row = blockIdx.x * (int64_t)(blockDim.x / 8) + threadIdx.x / 8;
    int sub = threadIdx.x % 8; /* 8 columns each */
    float s = 0.0f;
    if (row < rows) {
        int64_t bh = row / a.T, t = row % a.T, b = bh / a.H, h = bh % a.H;
        const bf16 *g = a.g + b * a.gs[0] + h * a.gs[1] + t * a.gs[2] + sub * 8;
        const bf16 *o = a.o + b * a.os[0] + h * a.os[1] + t * a.os[2] + sub * 8;
        if (vec) {
            uint4 gv = *(const uint4 *)g, ov = *(const uint4 *)o;
            const uint32_t gw[4] = {gv.x, gv.y, gv.z, gv.w}, ow[4] = {ov.x, ov.y, ov.z, ov.w};
            UNROLL
            for (int k = 0; k < 4; k++) s += bf16_lo(gw[k]) * bf16_lo(ow[k]) + bf16_hi(gw[k]) * bf16_hi(ow[k]);
        } else {
            for (int k = 0; k < 8; k++) s += __bfloat162float(g[k]) * __bfloat162float(o[k]);
        }
    }
    s += __shfl_xor_sync(0xffffffffu, s, 1);
    s += __shfl_xor_sync(0xffffffffu, s, 2);
    s += __shfl_xor_sync(0xffffffffu, s, 4);
    if (row < rows && sub == 0) a.D[row] = s;
}

/* lse (natural log) and D of query rows [q0, q0 + 64): thread i < 64 reads lse[q0 + i], thread
 * 64 + i D[q0 + i] (0 past T); fa_rows_store puts it into the shared rows lse_s[0..63] (in log2
 * units, as the scores), D_s[0..63] (D_s = lse_s + 64 in a buffer of 128). Apart, so that the
 * load's latency hides behind a tile's products; the log2 conversion is at the store because an
 * instruction using the loaded value waits for it (Nsight Compute, run 5: 3.8% of the kernel's
 * stall samples on that multiply when it followed the load). */
__device__ __forceinline__ float fa_rows_load(const AttnDesc &a, int64_t base, int q0) {
    const int i = threadIdx.x % 64, t = q0 + i;
    if (threadIdx.x >= 128 || t >= a.T) return 0.0f;
    return threadIdx.x < 64 ? a.lse[base + t] : a.D[base + t];
}
__device__ __forceinline__ void fa_rows_store(float *rows, float x) {
    if (threadIdx.x < 128) rows[threadIdx.x] = threadIdx.x < 64 ? x * FA_LOG2E : x;
}


/* the warpgroup of this thread, as a value the compiler knows to be the same in the whole warp
 * (a shuffle from lane 0): descriptors made from it stay in uniform registers, which wgmma reads,
 * instead of being moved there before every wgmma */
__device__ __forceinline__ int fa_warpgroup() {
#ifdef WB_CUDA_EMULATION
    return threadIdx.x / 128;
#else
    return __shfl_sync(0xffffffffu, (int)threadIdx.x / 128, 0);
#endif
}

/* Q and dO rows [q0, q0 + 64) into their swizzled buffers (zeros past T). vec: thread t copies
 * 16-byte chunk t % 8 of rows t / 8 and t / 8 + 32 of each (256 threads), the destinations the same
 * for every tile: a quarter of wg_load_rows_sw128's general loop's instructions */
__device__ __forceinline__ void fa_bwd_prefetch(bf16 *Qn, bf16 *dOn, const AttnDesc &a, const bf16 *qg, const bf16 *gg, int q0, int vec) {
    if (!vec) {
        wg_load_rows_sw128(Qn, qg, a.qs[2], q0, 64, a.T, 0);
        wg_load_rows_sw128(dOn, gg, a.gs[2], q0, 64, a.T, 0);
        return;
    }
    const int r = threadIdx.x / 8, c8 = (threadIdx.x % 8) * 8, dst = wg_sw128(r, c8); /* row r + 32: dst + 32 * 64 */
    UNROLL
    for (int h = 0; h < 2; h++) {
        const int t = q0 + r + 32 * h;
        const bool ok = t < a.T;
        cp_async_16(Qn + dst + 32 * 64 * h, ok ? qg + (int64_t)t * a.qs[2] + c8 : qg, ok);
        cp_async_16(dOn + dst + 32 * 64 * h, ok ? gg + (int64_t)t * a.gs[2] + c8 : gg, ok);
    }
}

/* dQ_tile (64 queries from q0 x d columns 32 wg .. 32 wg + 31 of a warpgroup) into the f32 scratch
 * by float2 atomics straight from the accumulators (one vector reduction each on sm_90). Pairing
 * threads by a shuffle for float4 atomics (half the atomics) costs 1.6% more in all. */
__device__ __forceinline__ void fa_dq_atomics(const AttnDesc &a, const float dq[16], int64_t base, int q0) {
    const int wg = threadIdx.x / 128, w = (threadIdx.x / 32) % 4, g = (threadIdx.x % 32) / 4, c = threadIdx.x % 4;
    UNROLL
    for (int r = 0; r < 2; r++) { /* dq[4 j + 2 r + {0, 1}]: query 16 w + g + 8 r, column 32 wg + 8 j + 2 c + {0, 1} */
        const int q = q0 + 16 * w + g + 8 * r;
        float *dst = a.dq + (base + q) * 64 + 32 * wg + 2 * c;
        UNROLL
        for (int j = 0; j < 4; j++)
            if (q < a.T) fa_atomic_add2(dst + 8 * j, a.scale * dq[4 * j + 2 * r], a.scale * dq[4 * j + 2 * r + 1]);
    }
}

/* A thread's 16 columns (8 j + 2 c, + 1) of accumulator row r (x[4 j + 2 r + {0, 1}]) times s into
 * the bf16 row p (added to it when acc): 4-byte pairs where the row is 4-byte aligned, else
 * 2-byte elements. Element by element, each with its own 64-bit address, the dK and dV stores are
 * a quarter of the kernel's stall samples (Nsight Compute). */
__device__ __forceinline__ void fa_store_row(bf16 *p, const float x[32], int r, float s, int acc) {
    const int c = threadIdx.x % 4;
    if ((uintptr_t)p % 4 == 0) {
        UNROLL
        for (int j = 0; j < 8; j++) {
            uint32_t *q = (uint32_t *)(p + 8 * j + 2 * c);
            const uint32_t o = acc ? *q : 0u; /* + 0 when storing, as the 2-byte path: the same bits */
            *q = pack_bf16x2(bf16_lo(o) + s * x[4 * j + 2 * r], bf16_hi(o) + s * x[4 * j + 2 * r + 1]);
        }
    } else {
        UNROLL
        for (int j = 0; j < 8; j++)
            UNROLL
            for (int e = 0; e < 2; e++) {
                bf16 *q = p + 8 * j + 2 * c + e;
                *q = __float2bfloat16((acc ? __bfloat162float(*q) : 0.0f) + s * x[4 * j + 2 * r + e]);
            }
    }
}

/* 64 x 64 accumulators (element 4 j + e: row 8 (e / 2) + .., column 8 j + 2 c + e % 2) as the bf16
 * A fragments of four 16-column k-steps of a register-operand wgmma: an m64n8 accumulator pair has
 * the fragment's layout */
__device__ __forceinline__ void fa_acc_to_frags(uint32_t f[4][4], const float x[32]) {
    UNROLL
    for (int s = 0; s < 4; s++)
        UNROLL
        for (int i = 0; i < 4; i++) f[s][i] = pack_bf16x2(x[8 * s + 2 * i], x[8 * s + 2 * i + 1]);
}

/* A tile's wgmma operand descriptors at k-step 0 (k, v: this warpgroup's 64 key rows; q, do: the
 * query tile, K-major for S^T and dP^T, MN-major for dK and dV); k-step s is + s * step (the start
 * address moves 32 bytes along a K-major row, 16 rows down an MN-major tile), two instructions
 * instead of a descriptor's address arithmetic per wgmma */
struct FaBwdDescs {
    uint64_t k, v, q_k, do_k, q_mn, do_mn, step_k, step_mn;
};

/* One query tile of the backward pass for a warpgroup's 64 keys (rows 64 wg of the block's 128):
 * S^T = K Q^T and dP^T = V dO^T (64 keys x 64 queries, operands from shared memory), P^T from S^T
 * and the saved log-sum-exp, dS^T = P^T (dP^T - D), then dV += P^T dO and dK += dS^T Q with P^T
 * and dS^T as register A operands (accumulators turned into bf16 fragments, as mma.sync's). First
 * the previous tile's dQ (its product issued at the end of that tile, `dq` of query tile qprev;
 * none when qprev < 0) goes out by atomics: ptxas serializes every wgmma of the kernel if
 * accumulators are read while other products run, so this waits for all of them. dP^T's products
 * run while P^T's exponentials do, dV's while dS^T is computed. dS^T (bf16) goes to a shared 128 x 64
 * tile for the dQ product. EDGE: the tile needs the causal
 * mask or holds queries past T; a warpgroup whose keys all follow every query of the tile (the
 * second warpgroup on the first, diagonal tile) skips the products and writes zeros. On return dK's
 * products may still run. */
template <bool EDGE>
__device__ __forceinline__ void fa_bwd_tile(float dk[32], float dv[32], const float dq[16], const AttnDesc &a, int64_t base,
                                            int qprev, const FaBwdDescs &d, bf16 *dSs, const float *lse_b, const float *D_b,
                                            int k0, int q0, float sl2) {
    const int wg = threadIdx.x / 128, w = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32, g = lane / 4, c = lane % 4;
    const int kr = 64 * wg + 16 * w + g; /* this thread's key rows kr and kr + 8 of the block's 128 */
    uint32_t f[4][4]; /* dS^T as A fragments, one per 16-query k-step */
    wg_wait<0>(); /* the previous tile's dQ product */
    if (qprev >= 0) fa_dq_atomics(a, dq, base, qprev);
    if (EDGE && k0 + 64 * wg > q0 + 63) {
        UNROLL
        for (int s = 0; s < 4; s++) f[s][0] = f[s][1] = f[s][2] = f[s][3] = 0u;
    } else {
        float st[32], dpt[32]; /* S^T, then P^T; dP^T, then dS^T: element 4 j + e is key row kr + 8 (e / 2), query 8 j + 2 c + e % 2 */
        uint32_t pf[4][4];     /* P^T as A fragments */
        wg_fence();
        UNROLL
        for (int s = 0; s < 4; s++) wg_mma_ss<64, 0, 0>(st, d.k + s * d.step_k, d.q_k + s * d.step_k, s > 0);
        wg_commit();
        UNROLL
        for (int s = 0; s < 4; s++) wg_mma_ss<64, 0, 0>(dpt, d.v + s * d.step_k, d.do_k + s * d.step_k, s > 0);
        wg_commit();
        wg_wait<1>(); /* S^T */
        UNROLL
        for (int j = 0; j < 8; j++) { /* P^T = exp(scale S^T - lse), recomputed */
            const int ql = 8 * j + 2 * c;
            const float2 lz = *(const float2 *)(lse_b + ql);
            UNROLL
            for (int e = 0; e < 4; e++) {
                float p = fa_exp2(fmaf(st[4 * j + e], sl2, -(e & 1 ? lz.y : lz.x)));
                if (EDGE && (k0 + kr + 8 * (e >> 1) > q0 + ql + (e & 1) || q0 + ql + (e & 1) >= a.T)) p = 0.0f;
                st[4 * j + e] = p;
            }
        }
        fa_acc_to_frags(pf, st);
        wg_fence();
        UNROLL
        for (int s = 0; s < 4; s++) wg_mma_rs<64, 1>(dv, pf[s], d.do_mn + s * d.step_mn, 1); /* dV += P^T dO */
        wg_commit();
        wg_wait<1>(); /* dP^T */
        UNROLL
        for (int j = 0; j < 8; j++) { /* dS^T = P^T (dP^T - D) */
            const float2 dz = *(const float2 *)(D_b + 8 * j + 2 * c);
            UNROLL
            for (int e = 0; e < 4; e++) dpt[4 * j + e] = st[4 * j + e] * (dpt[4 * j + e] - (e & 1 ? dz.y : dz.x));
        }
        fa_acc_to_frags(f, dpt);
        wg_fence();
        UNROLL
        for (int s = 0; s < 4; s++) wg_mma_rs<64, 1>(dk, f[s], d.q_mn + s * d.step_mn, 1); /* dK += dS^T Q (scaled at the end) */
        wg_commit();
    }
    /* fragment i of k-step s: rows kr + 8 (i % 2), queries 16 s + 8 (i / 2) + 2 c, + 1 */
    UNROLL
    for (int s = 0; s < 4; s++)
        UNROLL
        for (int i = 0; i < 4; i++) *(uint32_t *)(dSs + wg_sw128(kr + 8 * (i % 2), 16 * s + 8 * (i / 2) + 2 * c)) = f[s][i];
}

/* The backward pass's main kernel: a block of two warpgroups owns 128 keys (64 each) and walks the
 * 64-query tiles from the diagonal down, Q and dO double-buffered by cp.async in wgmma's swizzled
 * tiles. After a tile's products, dQ_tile = dS K over all 128 keys (warpgroup wg: the 64 queries
 * x d columns 32 wg .. 32 wg + 31, A = dS^T's tile read transposed) is issued and left running
 * across the end-of-tile barrier, its atomics sent at the start of the next tile; dS^T is
 * double-buffered for that.
 * Two barriers per query tile (before the dQ product; after the next tile's copies land, which
 * also frees this tile's buffers). One block (8 warps) per SM: the accumulators of dK, dV, S^T,
 * dP^T and dQ alone take 144 registers a thread (231 in all, no spill), so latency is hidden by
 * wgmma's asynchrony, not by other warps. ~293 us a layer at GPT-2 124M's shape, an mma.sync
 * version 405 (docs/performance-history.md); with its 3 other launches 349, cuDNN's backward 321. */
__global__ void __launch_bounds__(FA_BWD_THREADS, 1) k_flash_bwd(AttnDesc a, int vec) {
#if WG_AVAILABLE
    FA_DYNAMIC_SHARED(smem);
    bf16 *Ks = (bf16 *)smem, *Vs = Ks + 128 * 64, *Qs = Vs + 128 * 64, *dOs = Qs + 2 * 64 * 64, *dSs = dOs + 2 * 64 * 64;
    float *rows_s = (float *)(dSs + 2 * 128 * 64); /* two buffers of lse (64), D (64) */
    /* grid (B*H, 128-key tiles): the first key tiles have the most query tiles below them and start first */
    const int T = a.T, bh = blockIdx.x, b = bh / a.H, h = bh % a.H, k0 = (int)blockIdx.y * 128;
    const int wg = fa_warpgroup(), w = (threadIdx.x / 32) % 4, g = (threadIdx.x % 32) / 4;
    const bf16 *qg = a.q + b * a.qs[0] + h * a.qs[1], *kg = a.k + b * a.ks[0] + h * a.ks[1];
    const bf16 *vg = a.v + b * a.vs[0] + h * a.vs[1], *gg = a.g + b * a.gs[0] + h * a.gs[1];
    const float sl2 = a.scale * FA_LOG2E;
    const int64_t base = (int64_t)bh * T;
    const int nqt = (T + 63) / 64, qt0 = k0 / 64; /* the first query tile is the diagonal one */
    wg_load_rows_sw128(Ks, kg, a.ks[2], k0, 128, T, vec);
    wg_load_rows_sw128(Vs, vg, a.vs[2], k0, 128, T, vec);
    wg_load_rows_sw128(Qs, qg, a.qs[2], k0, 64, T, vec);
    wg_load_rows_sw128(dOs, gg, a.gs[2], k0, 64, T, vec);
    fa_rows_store(rows_s, fa_rows_load(a, base, k0));
    cp_async_commit();
    cp_async_wait<0>();
    wg_fence_smem();
    __syncthreads();
    const uint64_t step_k = wg_desc_kmajor(Ks, 0, 16) - wg_desc_kmajor(Ks, 0, 0);
    const uint64_t step_mn = wg_desc_mnmajor(Ks, 16, 0) - wg_desc_mnmajor(Ks, 0, 0);
    const uint64_t k_k = wg_desc_kmajor(Ks, 64 * wg, 0), v_k = wg_desc_kmajor(Vs, 64 * wg, 0), kt_mn = wg_desc_mnmajor(Ks, 0, 32 * wg);
    float dk[32], dv[32], dq[16];
    UNROLL
    for (int i = 0; i < 32; i++) dk[i] = dv[i] = 0.0f;
    int qprev = -1; /* the query tile whose dQ product is in flight */
    for (int qt = qt0; qt < nqt; qt++) {
        const int buf = (qt - qt0) & 1, q0 = qt * 64;
        const bf16 *Q = Qs + buf * 64 * 64, *dO = dOs + buf * 64 * 64;
        const float *lse_b = rows_s + buf * 128, *D_b = lse_b + 64;
        bf16 *dS = dSs + buf * 128 * 64;
        float rows_next = 0.0f; /* the next tile's lse or D: stored into shared memory at the end of this tile */
        if (qt + 1 < nqt) { /* the next query tile into the other buffers */
            fa_bwd_prefetch(Qs + (buf ^ 1) * 64 * 64, dOs + (buf ^ 1) * 64 * 64, a, qg, gg, q0 + 64, vec);
            rows_next = fa_rows_load(a, base, q0 + 64);
        }
        cp_async_commit();
        const FaBwdDescs d = {k_k, v_k, wg_desc_kmajor(Q, 0, 0), wg_desc_kmajor(dO, 0, 0), wg_desc_mnmajor(Q, 0, 0),
                              wg_desc_mnmajor(dO, 0, 0), step_k, step_mn};
        if (qt <= qt0 + 1 || q0 + 64 > T) /* the two diagonal tiles, or queries past T */
            fa_bwd_tile<true>(dk, dv, dq, a, base, qprev, d, dS, lse_b, D_b, k0, q0, sl2);
        else
            fa_bwd_tile<false>(dk, dv, dq, a, base, qprev, d, dS, lse_b, D_b, k0, q0, sl2);
        const uint64_t ds_mn = wg_desc_mnmajor(dS, 0, 0);
        /* this warpgroup's 64 queries x 32 columns of dQ_tile = dS K over the 128 keys (issued even
         * without gq: a branch here would make ptxas serialize every wgmma of the kernel) */
        wg_fence_smem();
        __syncthreads();
        wg_fence();
        UNROLL
        for (int s = 0; s < 8; s++) wg_mma_ss<32, 1, 1>(dq, ds_mn + s * step_mn, kt_mn + s * step_mn, s > 0);
        wg_commit();
        qprev = a.dq ? q0 : -1;
        wg_wait<1>(); /* dK's products: this tile's Q is free */
        if (qt + 1 < nqt) fa_rows_store(rows_s + (buf ^ 1) * 128, rows_next);
        cp_async_wait<0>(); /* the next tile landed */
        wg_fence_smem();
        __syncthreads(); /* ... for every thread; this tile's Q, dO, lse, D are free for the prefetch after next */
    }
    wg_wait<0>();
    if (qprev >= 0) fa_dq_atomics(a, dq, base, qprev);
    UNROLL
    for (int r = 0; r < 2; r++) { /* dk[4 j + 2 r + {0, 1}]: key k0 + 64 wg + 16 w + g + 8 r, column 8 j + 2 c */
        const int t = k0 + 64 * wg + 16 * w + g + 8 * r;
        if (t >= T) continue;
        if (a.gk) fa_store_row(a.gk + b * a.gks[0] + h * a.gks[1] + (int64_t)t * a.gks[2], dk, r, a.scale, a.acc);
        if (a.gv) fa_store_row(a.gv + b * a.gvs[0] + h * a.gvs[1] + (int64_t)t * a.gvs[2], dv, r, 1.0f, a.acc);
    }
#else
    __trap(); /* wgmma needs sm_90a: the launcher never calls this build */
#endif
}


/* gq (+)= dq (the f32 atomics' sum), through gq's strides: 8 columns a thread. vec (gq's rows
 * 16-byte aligned): one 16-byte read-modify-write of gq and two 16-byte loads of dq per thread,
 * 32-bit index math (the host passes vec only when every row index fits); else 2-byte accesses.
 * The 2-byte path alone takes 110 us per call at GPT-2 124M instead of ~30. */
__global__ void k_flash_dq_finish(AttnDesc a, int64_t n8, int vec) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n8) return;
    if (vec) {
        const uint32_t u = (uint32_t)i, row = u >> 3, c = (u & 7u) * 8u, T = (uint32_t)a.T, H = (uint32_t)a.H;
        const uint32_t bh = row / T, t = row - bh * T, b = bh / H, h = bh - b * H;
        bf16 *p = a.gq + b * a.gqs[0] + h * a.gqs[1] + t * a.gqs[2] + c;
        const uint4 *s = (const uint4 *)(a.dq + (int64_t)row * 64 + c);
        uint4 s0 = s[0], s1 = s[1], gv = a.acc ? *(const uint4 *)p : make_uint4(0, 0, 0, 0);
        const uint32_t sw[8] = {s0.x, s0.y, s0.z, s0.w, s1.x, s1.y, s1.z, s1.w}, gw[4] = {gv.x, gv.y, gv.z, gv.w};
        uint32_t o[4];
        UNROLL
        for (int k = 0; k < 4; k++)
            o[k] = pack_bf16x2(bf16_lo(gw[k]) + __uint_as_float(sw[2 * k]), bf16_hi(gw[k]) + __uint_as_float(sw[2 * k + 1]));
        *(uint4 *)p = make_uint4(o[0], o[1], o[2], o[3]);
        return;
    }
    int64_t c = (i % 8) * 8, row = i / 8, bh = row / a.T, t = row % a.T, b = bh / a.H, h = bh % a.H;
    bf16 *p = a.gq + b * a.gqs[0] + h * a.gqs[1] + t * a.gqs[2] + c;
    const float *s = a.dq + row * 64 + c;
    UNROLL
    for (int k = 0; k < 8; k++) p[k] = __float2bfloat16((a.acc ? __bfloat162float(p[k]) : 0.0f) + s[k]);
}
/* ---------------------------------------------------------------------------------------------
 * launchers
 * ------------------------------------------------------------------------------------------ */
int cuda_attention_backward(wb_backend *be, const wb_tensor *gq, const wb_tensor *gk, const wb_tensor *gv,
                                   const wb_tensor *g, const wb_tensor *out, const wb_tensor *lse, const wb_tensor *q,
                                   const wb_tensor *k, const wb_tensor *v, double scale, int acc) {
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
    a.H = (int)H, a.T = (int)T, a.scale = (float)scale, a.acc = acc;
    const wb_tensor *ts[5] = {q, k, v, g, out};
    int vec = fa_vec_ok(ts, 5);
    KLAUNCH(k_flash_bwd_pre, blocks_for(rows, 32), 256, 0, a, rows, vec); /* 8 lanes a row */
    CUDA_CHECK_LAUNCH();
    if (gq) CUDA_CHECK(cudaMemsetAsync(a.dq, 0, (size_t)rows * 64 * sizeof(float), im->stream));
    if (!im->fa_bwd_attr) {
        CUDA_CHECK(cudaFuncSetAttribute(k_flash_bwd, cudaFuncAttributeMaxDynamicSharedMemorySize, FA_BWD_SMEM));
        im->fa_bwd_attr = 1;
    }
    KLAUNCH(k_flash_bwd, fa_bwd_grid(B * H, T), FA_BWD_THREADS, FA_BWD_SMEM, a, vec);
    CUDA_CHECK_LAUNCH();
    if (gq) {
        const wb_tensor *gts[1] = {gq};
        int dvec = fa_vec_ok(gts, 1) && rows * 8 < ((int64_t)1 << 32); /* 16-byte rows, 32-bit indices */
        KLAUNCH(k_flash_dq_finish, blocks_for(rows * 8, 256), 256, 0, a, rows * 8, dvec);
        CUDA_CHECK_LAUNCH();
    }
    return WB_OK;
}