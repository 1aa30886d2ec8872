/*
 * flash_attn_mma.cuh: lesson 04's flash-attention kernels as they were at main 29e24ba (2026-12-01,
 * rounds 4-5: mma.sync m16n8k16, ldmatrix, cp.async; engine/cuda/attention_forward.cu and
 * attention_backward.cu then), kept for bench_flash_attn to time the engine's current kernels
 * against in the same run. Not built into anything else. Measurements: docs/performance-history.md,
 * "Round 4: attention"; round 3's kernels (the comparison before) are in git history at 498a0d4.
 *
 * Only what round 6 changed is kept here: the two main kernels and their mma.sync helpers. The
 * call's descriptor, the copy and conversion instructions (engine/cuda/attention.cuh) and the
 * backward's pre and finish kernels (k_flash_bwd_pre, k_flash_dq_finish in attention_backward.cu)
 * are the engine's own, unchanged since then; the includer includes attention.cuh first.
 */

#define FA_LDS 72                 /* shared tile row stride in bf16 elements */
#define FA_TILE (64 * FA_LDS)     /* one 64 x 64 tile */

/* ---------------------------------------------------------------------------------------------
 * the mma.sync and ldmatrix instructions
 * ------------------------------------------------------------------------------------------ */
/* d += a b: A 16 x 16 row-major, B 16 x 8 column-major, bf16 in, f32 accumulate */
__device__ __forceinline__ void mma_m16n8k16_bf16(float d[4], const uint32_t a[4], const uint32_t b[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], const void *p) {
    uint32_t s = (uint32_t)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t r[4], const void *p) {
    uint32_t s = (uint32_t)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}

/* rows [row0, row0 + 64) of a (T, 64) bf16 matrix with row stride rs into a shared tile, zeros
 * past T. vec: 16-byte cp.async (the caller commits and waits); else plain 2-byte copies. */
__device__ __forceinline__ void fa_load_tile(bf16 *dst, const bf16 *src, int64_t rs, int row0, int T, int vec) {
    if (vec) {
        for (int i = threadIdx.x; i < 64 * 8; i += blockDim.x) {
            int r = i / 8, c = (i % 8) * 8;
            bool ok = row0 + r < T;
            cp_async_16(dst + r * FA_LDS + c, ok ? src + (int64_t)(row0 + r) * rs + c : src, ok);
        }
    } else {
        for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
            int r = i / 64, c = i % 64;
            dst[r * FA_LDS + c] = row0 + r < T ? src[(int64_t)(row0 + r) * rs + c] : __float2bfloat16(0.0f);
        }
    }
}

/* acc (16 x 64) += A (16 x 16 KK, fragments) * X, X the 16 KK rows of a shared tile from x (the
 * k index; its 64 columns are the output columns; V for O += P V): B fragments by transposing
 * ldmatrix */
template <int KK>
__device__ __forceinline__ void fa_mma_ab(float acc[8][4], const uint32_t a[KK][4], const bf16 *x) {
    const int lane = threadIdx.x % 32;
    UNROLL
    for (int kk = 0; kk < KK; kk++)
        UNROLL
        for (int dp = 0; dp < 4; dp++) {
            uint32_t b[4];
            ldmatrix_x4_trans(b, x + (kk * 16 + lane % 8 + ((lane / 8) % 2) * 8) * FA_LDS + dp * 16 + (lane / 16) * 8);
            mma_m16n8k16_bf16(acc[2 * dp], a[kk], b);
            mma_m16n8k16_bf16(acc[2 * dp + 1], a[kk], b + 2);
        }
}

/* acc (16 x 16 NP) += A X^T with A rows [r0, r0 + 16) of shared tile at (64 columns, the k
 * index) and X the 16 NP rows of a shared tile from x: A fragments loaded one k-step at a time
 * (4 registers live, not 16), B fragments by plain ldmatrix */
template <int NP>
__device__ __forceinline__ void fa_mma_abt_s(float acc[2 * NP][4], const bf16 *at, int r0, const bf16 *x) {
    const int lane = threadIdx.x % 32;
    UNROLL
    for (int kk = 0; kk < 4; kk++) {
        uint32_t af[4];
        ldmatrix_x4(af, at + (r0 + lane % 16) * FA_LDS + kk * 16 + (lane / 16) * 8);
        UNROLL
        for (int np = 0; np < NP; np++) {
            uint32_t b[4];
            ldmatrix_x4(b, x + (np * 16 + lane % 8 + (lane / 16) * 8) * FA_LDS + kk * 16 + ((lane / 8) % 2) * 8);
            mma_m16n8k16_bf16(acc[2 * np], af, b);
            mma_m16n8k16_bf16(acc[2 * np + 1], af, b + 2);
        }
    }
}

/* accumulators (16 x 16 KK, rows g and g + 8 of n-tile nt in [nt][0..1] and [nt][2..3]) as bf16
 * A fragments of a 16 x 16 KK operand (k-step kk = n-tiles 2 kk and 2 kk + 1) */
template <int KK>
__device__ __forceinline__ void fa_acc_to_a(uint32_t f[KK][4], const float acc[2 * KK][4]) {
    UNROLL
    for (int kk = 0; kk < KK; kk++) {
        f[kk][0] = pack_bf16x2(acc[2 * kk][0], acc[2 * kk][1]);
        f[kk][1] = pack_bf16x2(acc[2 * kk][2], acc[2 * kk][3]);
        f[kk][2] = pack_bf16x2(acc[2 * kk + 1][0], acc[2 * kk + 1][1]);
        f[kk][3] = pack_bf16x2(acc[2 * kk + 1][2], acc[2 * kk + 1][3]);
    }
}


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


#define FA_BWD_SMEM (10 * FA_TILE * 2 + 4 * 64 * 4)     /* K, V (128 rows), Q x 2, dO x 2, dS (128 rows); lse, D x 2: 93184 */
/* blocks per SM that __launch_bounds__ asks register allocation to allow (bench/flash_attn_bench.cu
 * compiles this file again with other values to time them side by side) */
#ifndef FA_BWD_MIN_BLOCKS
#define FA_BWD_MIN_BLOCKS 2 /* 128 registers (256 threads a block) */
#endif

/* grid (B*H heads in x; the 128-key tiles in y) */
#define FA_BWD_THREADS 256 /* 8 warps */
static inline dim3 fa_bwd_grid(int64_t BH, int64_t T) { return dim3((unsigned)BH, (unsigned)((T + 127) / 128)); }



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
