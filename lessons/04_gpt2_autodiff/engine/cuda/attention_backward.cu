/*
 * attention_backward.cu: the pullback of fused causal attention (attention_forward.cu), in
 * FlashAttention-2's order on the tensor cores (mma.sync m16n8k16, ldmatrix, cp.async).
 *
 * D = rowsum(dO * O) first (k_flash_bwd_pre); then a block of 8 warps owns 128 keys, 16 per warp,
 * and walks the 64-query tiles from the diagonal down, Q and dO double-buffered. A warp computes
 * its keys' S^T = K Q^T and dP^T = V dO^T (16 x 32 at a time), P^T from S^T and the saved
 * log-sum-exp, dS^T = P^T (dP^T - D), and accumulates dV += P^T dO and dK += dS^T Q in registers
 * (P^T and dS^T straight from accumulators into A fragments). dQ needs a sum over all 128 keys:
 * dS^T goes to shared memory, each warp takes 16 queries x 32 columns of dQ_tile = dS K, and adds
 * it with f32 atomics into a scratch buffer (k_flash_dq_finish adds that into q's gradient).
 *
 * Causal: query tiles above the diagonal are never visited; only the diagonal tiles (and a
 * partial last tile) carry the mask, through a template flag. PERF_NOTES.md ("Round 4:
 * attention") has the measurements.
 */
#include "attention.cuh"

#define FA_BWD_SMEM (10 * FA_TILE * 2 + 4 * 64 * 4)     /* K, V (128 rows), Q x 2, dO x 2, dS (128 rows); lse, D x 2: 93184 */
/* blocks per SM that __launch_bounds__ asks register allocation to allow (bench/flash_attn_bench.cu
 * compiles this file again with other values to time them side by side) */
#ifndef FA_BWD_MIN_BLOCKS
#define FA_BWD_MIN_BLOCKS 2 /* 128 registers (256 threads a block) */
#endif

/* grid (B*H heads in x; the 128-key tiles in y) */
#define FA_BWD_THREADS 256 /* 8 warps */
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

/* lse (natural log) and D of query rows [q0, q0 + 64) into shared memory (0 past T) */
__device__ __forceinline__ void fa_load_rows(float *lse_s, float *D_s, const AttnDesc &a, int64_t base, int q0) {
    for (int i = threadIdx.x; i < 64; i += blockDim.x) {
        int t = q0 + i;
        lse_s[i] = t < a.T ? a.lse[base + t] * FA_LOG2E : 0.0f; /* log2 units, as the scores */
        D_s[i] = t < a.T ? a.D[base + t] : 0.0f;
    }
}


/* One query tile of the backward pass for a warp's 16 keys (rows 16 w of the block's 128), in two
 * halves of 32 queries, so that S^T and dP^T take 16 accumulator registers each and K's and V's A
 * fragments are read one k-step at a time: dV += P^T dO, dK += dS^T Q in registers, dS^T into
 * shared memory for the dQ product. EDGE: the tile needs the causal mask or holds queries past T
 * (the other tiles' code has none); a half whose queries all precede the warp's keys is skipped. */
template <bool EDGE>
__device__ __forceinline__ void fa_bwd_tile(float dk[8][4], float dv[8][4], const bf16 *Ks, const bf16 *Vs, const bf16 *Q,
                                            const bf16 *dO, bf16 *dSs, const float *lse_b, const float *D_b,
                                            int k0, int q0, int T, float sl2, bool want_dq) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t4 = lane % 4;
    const int key[2] = {k0 + warp * 16 + g, k0 + warp * 16 + g + 8};
    UNROLL
    for (int hq = 0; hq < 64; hq += 32) { /* queries [hq, hq + 32) of the tile */
        uint32_t f[2][4]; /* P^T, then dS^T, as A fragments (16 keys x 32 queries) */
        if (EDGE && k0 + warp * 16 > q0 + hq + 31) { /* every query of this half precedes every key */
            UNROLL
            for (int kk = 0; kk < 2; kk++) f[kk][0] = f[kk][1] = f[kk][2] = f[kk][3] = 0u;
        } else {
            float st[4][4], dpt[4][4]; /* S^T and dP^T: this warp's 16 keys x 32 queries */
            UNROLL
            for (int nt = 0; nt < 4; nt++)
                UNROLL
                for (int e = 0; e < 4; e++) st[nt][e] = dpt[nt][e] = 0.0f;
            fa_mma_abt_s<2>(st, Ks, warp * 16, Q + hq * FA_LDS); /* S^T = K Q^T */
            UNROLL
            for (int nt = 0; nt < 4; nt++) { /* P^T = exp(scale S^T - lse), recomputed */
                const int ql = hq + nt * 8 + 2 * t4;
                const float2 lz = *(const float2 *)(lse_b + ql);
                UNROLL
                for (int e = 0; e < 4; e++) {
                    float p = fa_exp2(fmaf(st[nt][e], sl2, -(e & 1 ? lz.y : lz.x)));
                    if (EDGE && (key[e >> 1] > q0 + ql + (e & 1) || q0 + ql + (e & 1) >= T)) p = 0.0f;
                    st[nt][e] = p;
                }
            }
            fa_acc_to_a<2>(f, st);
            fa_mma_ab<2>(dv, f, dO + hq * FA_LDS); /* dV += P^T dO */
            fa_mma_abt_s<2>(dpt, Vs, warp * 16, dO + hq * FA_LDS); /* dP^T = V dO^T */
            UNROLL
            for (int nt = 0; nt < 4; nt++) { /* dS^T = P^T (dP^T - D) */
                const float2 dz = *(const float2 *)(D_b + hq + nt * 8 + 2 * t4);
                UNROLL
                for (int e = 0; e < 4; e++) dpt[nt][e] = st[nt][e] * (dpt[nt][e] - (e & 1 ? dz.y : dz.x));
            }
            fa_acc_to_a<2>(f, dpt);
            fa_mma_ab<2>(dk, f, Q + hq * FA_LDS); /* dK += dS^T Q (scaled at the end) */
        }
        if (want_dq)
            UNROLL
            for (int kk = 0; kk < 2; kk++) {
                int kr = warp * 16 + g, qc = hq + kk * 16 + 2 * t4;
                *(uint32_t *)(dSs + kr * FA_LDS + qc) = f[kk][0];
                *(uint32_t *)(dSs + (kr + 8) * FA_LDS + qc) = f[kk][1];
                *(uint32_t *)(dSs + kr * FA_LDS + qc + 8) = f[kk][2];
                *(uint32_t *)(dSs + (kr + 8) * FA_LDS + qc + 8) = f[kk][3];
            }
    }
}

/* The backward pass's main kernel: a block of 8 warps owns 128 keys (16 per warp) and walks the
 * 64-query tiles from the diagonal down, Q and dO double-buffered by cp.async. After the products
 * of a tile, dQ_tile = dS K over all 128 keys: each warp 16 queries x 32 columns, added by float2
 * atomics into the f32 scratch (half the atomics of 64-key blocks). Three barriers per query tile
 * (after the copies land, before the dQ product, before the buffers are refilled). 128 registers,
 * 2 blocks (16 warps) per SM. */
__global__ void __launch_bounds__(FA_BWD_THREADS, FA_BWD_MIN_BLOCKS) k_flash_bwd(AttnDesc a, int vec) {
    FA_DYNAMIC_SHARED(smem);
    bf16 *Ks = (bf16 *)smem, *Vs = Ks + 2 * FA_TILE, *Qs = Vs + 2 * FA_TILE, *dOs = Qs + 2 * FA_TILE, *dSs = dOs + 2 * FA_TILE;
    float *lse_s = (float *)(dSs + 2 * FA_TILE), *D_s = lse_s + 2 * 64; /* two buffers of 64 each */
    /* grid (B*H, 128-key tiles): the first key tiles have the most query tiles below them and start first */
    const int T = a.T, bh = blockIdx.x, b = bh / a.H, h = bh % a.H, k0 = (int)blockIdx.y * 128;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t4 = lane % 4;
    const bf16 *qg = a.q + b * a.qs[0] + h * a.qs[1], *kg = a.k + b * a.ks[0] + h * a.ks[1];
    const bf16 *vg = a.v + b * a.vs[0] + h * a.vs[1], *gg = a.g + b * a.gs[0] + h * a.gs[1];
    const float sl2 = a.scale * FA_LOG2E;
    const int64_t base = (int64_t)bh * T;
    const int nqt = (T + 63) / 64, qt0 = k0 / 64; /* the first query tile is the diagonal one */
    fa_load_tile(Ks, kg, a.ks[2], k0, T, vec);
    fa_load_tile(Ks + FA_TILE, kg, a.ks[2], k0 + 64, T, vec);
    fa_load_tile(Vs, vg, a.vs[2], k0, T, vec);
    fa_load_tile(Vs + FA_TILE, vg, a.vs[2], k0 + 64, T, vec);
    fa_load_tile(Qs, qg, a.qs[2], k0, T, vec);
    fa_load_tile(dOs, gg, a.gs[2], k0, T, vec);
    fa_load_rows(lse_s, D_s, a, base, k0);
    cp_async_commit();
    float dk[8][4], dv[8][4];
    UNROLL
    for (int nt = 0; nt < 8; nt++)
        UNROLL
        for (int e = 0; e < 4; e++) dk[nt][e] = dv[nt][e] = 0.0f;
    for (int qt = qt0; qt < nqt; qt++) {
        const int buf = (qt - qt0) & 1, q0 = qt * 64;
        const bf16 *Q = Qs + buf * FA_TILE, *dO = dOs + buf * FA_TILE;
        const float *lse_b = lse_s + buf * 64, *D_b = D_s + buf * 64;
        if (qt + 1 < nqt) { /* the next query tile into the other buffers */
            fa_load_tile(Qs + (buf ^ 1) * FA_TILE, qg, a.qs[2], q0 + 64, T, vec);
            fa_load_tile(dOs + (buf ^ 1) * FA_TILE, gg, a.gs[2], q0 + 64, T, vec);
            fa_load_rows(lse_s + (buf ^ 1) * 64, D_s + (buf ^ 1) * 64, a, base, q0 + 64);
        }
        cp_async_commit();
        cp_async_wait<1>();
        __syncthreads();
        if (qt <= qt0 + 1 || q0 + 64 > T) /* the two diagonal tiles, or queries past T */
            fa_bwd_tile<true>(dk, dv, Ks, Vs, Q, dO, dSs, lse_b, D_b, k0, q0, T, sl2, a.dq != NULL);
        else
            fa_bwd_tile<false>(dk, dv, Ks, Vs, Q, dO, dSs, lse_b, D_b, k0, q0, T, sl2, a.dq != NULL);
        if (a.dq) { /* warp w: queries 16 (w % 4) .. of dQ_tile = dS K, columns 32 (w / 4) .. */
            __syncthreads();
            const int mq = (warp % 4) * 16, dc = (warp / 4) * 32;
            float dq[4][4];
            UNROLL
            for (int nt = 0; nt < 4; nt++)
                UNROLL
                for (int e = 0; e < 4; e++) dq[nt][e] = 0.0f;
            UNROLL
            for (int kk = 0; kk < 8; kk++) { /* 16 keys a k-step */
                uint32_t af[4], bk[4]; /* A = dS (queries x keys): dS^T read transposed */
                ldmatrix_x4_trans(af, dSs + (kk * 16 + lane % 8 + (lane / 16) * 8) * FA_LDS + mq + ((lane / 8) % 2) * 8);
                UNROLL
                for (int dp = 0; dp < 2; dp++) {
                    ldmatrix_x4_trans(bk, Ks + (kk * 16 + lane % 8 + ((lane / 8) % 2) * 8) * FA_LDS + dc + dp * 16 + (lane / 16) * 8);
                    mma_m16n8k16_bf16(dq[2 * dp], af, bk);
                    mma_m16n8k16_bf16(dq[2 * dp + 1], af, bk + 2);
                }
            }
            UNROLL
            for (int r = 0; r < 2; r++) {
                int q = q0 + mq + g + 8 * r;
                if (q >= T) continue;
                float *dst = a.dq + (base + q) * 64 + dc + 2 * t4;
                UNROLL
                for (int nt = 0; nt < 4; nt++) fa_atomic_add2(dst + nt * 8, a.scale * dq[nt][2 * r], a.scale * dq[nt][2 * r + 1]);
            }
        }
        __syncthreads(); /* Q, dO, dS of this tile are free for the next prefetch and writes */
    }
    UNROLL
    for (int r = 0; r < 2; r++) {
        int t = k0 + warp * 16 + g + 8 * r;
        if (t >= T) continue;
        UNROLL
        for (int nt = 0; nt < 8; nt++) {
            int d = nt * 8 + 2 * t4;
            UNROLL
            for (int j = 0; j < 2; j++) {
                if (a.gk) {
                    bf16 *p = a.gk + b * a.gks[0] + h * a.gks[1] + (int64_t)t * a.gks[2] + d + j;
                    *p = __float2bfloat16((a.acc ? __bfloat162float(*p) : 0.0f) + a.scale * dk[nt][2 * r + j]);
                }
                if (a.gv) {
                    bf16 *p = a.gv + b * a.gvs[0] + h * a.gvs[1] + (int64_t)t * a.gvs[2] + d + j;
                    *p = __float2bfloat16((a.acc ? __bfloat162float(*p) : 0.0f) + dv[nt][2 * r + j]);
                }
            }
        }
    }
}


/* gq (+)= dq (the f32 atomics' sum), through gq's strides: 8 columns a thread. vec (gq's rows
 * 16-byte aligned): one 16-byte read-modify-write of gq and two 16-byte loads of dq per thread,
 * 32-bit index math (the host passes vec only when every row index fits); else 2-byte accesses.
 * Round 1 had only the 2-byte path: 110 us per call at GPT-2 124M instead of ~30. */
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