/*
 * flash_attn_r3.cuh: round 3's flash-attention kernels (engine/cuda/attention.cu at 498a0d4, the
 * launchers left out), kept so that bench/flash_attn_bench.cu times them beside the engine's
 * current ones in the same run. Measured numbers: lessons/04_gpt2_autodiff/PERF_NOTES.md,
 * "Round 4: attention". The bench includes this file inside `namespace r3`.
 */
/* ---------------------------------------------------------------------------------------------
 * fused causal attention, FlashAttention-2 style (bf16, head size 64, tensor cores via mma.sync)
 *
 * Forward: a block of 4 warps owns 64 query rows, 16 per warp, and walks the 64-key tiles up to
 * the diagonal. K and V tiles are double-buffered in shared memory: the copy engine (cp.async)
 * fetches tile j + 1 while the warps work on tile j. Each warp keeps everything else in
 * registers: its Q rows as mma A fragments (loaded once), S = Q K^T (16 x 64, f32), the online
 * softmax state (running max and sum of its two rows per lane) and O (16 x 64, f32). P goes from
 * the S accumulators straight into A fragments for O += P V: an m16n8 accumulator pair has the
 * layout of an m16k16 A operand, so P never touches shared memory. It writes O and the per-row
 * log-sum-exp (natural log), which is all the backward pass needs to recompute P.
 *
 * Backward (FlashAttention-2's order): D = rowsum(dO * O) first (k_flash_bwd_pre); then a block
 * of 4 warps owns 64 keys, 16 per warp, and walks the query tiles from the diagonal down, Q and
 * dO double-buffered. A warp computes its keys' S^T = K Q^T and dP^T = V dO^T (16 x 64 each),
 * P^T from S^T and the saved log-sum-exp, dS^T = P^T (dP^T - D), and accumulates
 * dV += P^T dO and dK += dS^T Q in registers (P^T and dS^T again straight from accumulators into
 * A fragments). dQ needs a sum over all 64 keys of the tile: dS^T goes to shared memory, each
 * warp takes 16 queries, dQ_tile = dS K, and adds it with f32 atomics into a scratch buffer
 * (k_flash_dq_finish adds that into q's gradient).
 *
 * Shared tiles are 64 rows of 64 bf16 with rows padded to 72 (144 bytes): the 8 row addresses of
 * one ldmatrix then fall in 8 different 16-byte bank groups (no conflicts). Causal: key tiles
 * past the diagonal are never visited; only the diagonal tile (and a partial last tile) is
 * masked. Heavy blocks (the most tiles) are scheduled first.
 * ------------------------------------------------------------------------------------------ */
#define FA_LDS 72                 /* shared tile row stride in bf16 elements */
#define FA_TILE (64 * FA_LDS)     /* one 64 x 64 tile */
#define FA_FWD_SMEM (5 * FA_TILE * 2)                   /* Q, K x 2, V x 2: 46080 bytes */
#define FA_BWD_SMEM (7 * FA_TILE * 2 + 4 * 64 * 4)      /* K, V, Q x 2, dO x 2, dS; lse, D x 2: 65536 */
#define FA_LOG2E 1.4426950408889634f

struct AttnDesc {
    const bf16 *q, *k, *v, *g, *o; /* g: the output's gradient (backward only) */
    bf16 *out, *gq, *gk, *gv;      /* out: forward; gq, gk, gv: backward (+=, may be NULL) */
    float *lse, *D, *dq;           /* (B*H*T), (B*H*T), (B*H*T, 64) */
    int64_t qs[3], ks[3], vs[3], gs[3], os[3], gqs[3], gks[3], gvs[3]; /* strides of b, h, t */
    int H, T;
    float scale;
};

/* ---------------------------------------------------------------------------------------------
 * the instructions (PTX on the GPU; tests/engine/cuda_emu.h emulates the same functions)
 * ------------------------------------------------------------------------------------------ */
#ifndef WB_CUDA_EMULATION
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
/* 16 bytes global -> shared through L2 only; zeros when !valid (src-size 0: src is not read) */
__device__ __forceinline__ void cp_async_16(void *dst, const void *src, bool valid) {
    uint32_t s = (uint32_t)__cvta_generic_to_shared(dst);
    int n = valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(n) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }
__device__ __forceinline__ float fa_exp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi); /* .x (lo) in the lower half */
    return *(uint32_t *)&v;
}
#endif

/* p[0] += x, p[1] += y (p 8-byte aligned): one vector reduction on sm_90, two elsewhere */
__device__ __forceinline__ void fa_atomic_add2(float *p, float x, float y) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    atomicAdd((float2 *)p, make_float2(x, y));
#else
    atomicAdd(p, x);
    atomicAdd(p + 1, y);
#endif
}

__device__ __forceinline__ float bf16_lo(uint32_t u) { return __uint_as_float(u << 16); }
__device__ __forceinline__ float bf16_hi(uint32_t u) { return __uint_as_float(u & 0xffff0000u); }

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

/* A fragments of rows [r0, r0 + 16) x 64 columns of a shared tile (4 k-steps of 16) */
__device__ __forceinline__ void fa_load_a(uint32_t f[4][4], const bf16 *tile, int r0) {
    const int lane = threadIdx.x % 32;
    UNROLL
    for (int kk = 0; kk < 4; kk++) ldmatrix_x4(f[kk], tile + (r0 + lane % 16) * FA_LDS + kk * 16 + (lane / 16) * 8);
}

/* acc (16 x 64, eight m16n8 tiles) += A (16 x 64, fragments) * X^T, X a shared tile whose rows are
 * the 64 output columns (K for S = Q K^T): B fragments by plain ldmatrix of X's rows */
__device__ __forceinline__ void fa_mma_abt(float acc[8][4], const uint32_t a[4][4], const bf16 *x) {
    const int lane = threadIdx.x % 32;
    UNROLL
    for (int kk = 0; kk < 4; kk++)
        UNROLL
        for (int np = 0; np < 4; np++) {
            uint32_t b[4]; /* b0, b1 of n-tile 2 np; b0, b1 of n-tile 2 np + 1 */
            ldmatrix_x4(b, x + (np * 16 + lane % 8 + (lane / 16) * 8) * FA_LDS + kk * 16 + ((lane / 8) % 2) * 8);
            mma_m16n8k16_bf16(acc[2 * np], a[kk], b);
            mma_m16n8k16_bf16(acc[2 * np + 1], a[kk], b + 2);
        }
}

/* acc (16 x 64) += A (16 x 64, fragments) * X, X a shared tile (64 rows = the k index, 64 columns
 * = the output columns; V for O += P V): B fragments by transposing ldmatrix */
__device__ __forceinline__ void fa_mma_ab(float acc[8][4], const uint32_t a[4][4], const bf16 *x) {
    const int lane = threadIdx.x % 32;
    UNROLL
    for (int kk = 0; kk < 4; kk++)
        UNROLL
        for (int dp = 0; dp < 4; dp++) {
            uint32_t b[4];
            ldmatrix_x4_trans(b, x + (kk * 16 + lane % 8 + ((lane / 8) % 2) * 8) * FA_LDS + dp * 16 + (lane / 16) * 8);
            mma_m16n8k16_bf16(acc[2 * dp], a[kk], b);
            mma_m16n8k16_bf16(acc[2 * dp + 1], a[kk], b + 2);
        }
}

/* accumulators (16 x 64, rows g and g + 8 of n-tile nt in [nt][0..1] and [nt][2..3]) as bf16 A
 * fragments of a 16 x 64 operand (k-step kk = n-tiles 2 kk and 2 kk + 1) */
__device__ __forceinline__ void fa_acc_to_a(uint32_t f[4][4], const float acc[8][4]) {
    UNROLL
    for (int kk = 0; kk < 4; kk++) {
        f[kk][0] = pack_bf16x2(acc[2 * kk][0], acc[2 * kk][1]);
        f[kk][1] = pack_bf16x2(acc[2 * kk][2], acc[2 * kk][3]);
        f[kk][2] = pack_bf16x2(acc[2 * kk + 1][0], acc[2 * kk + 1][1]);
        f[kk][3] = pack_bf16x2(acc[2 * kk + 1][2], acc[2 * kk + 1][3]);
    }
}

__global__ void __launch_bounds__(128) k_flash_fwd(AttnDesc a, int vec) {
    FA_DYNAMIC_SHARED(smem);
    bf16 *Qs = (bf16 *)smem, *Ks = Qs + FA_TILE, *Vs = Ks + 2 * FA_TILE; /* K, V: two buffers each */
    /* grid (B*H, tiles): blocks start in linear order (x fastest), so every head's longest rows
     * (the most key tiles) go first and the short ones fill the tail */
    const int T = a.T, nqt = (T + 63) / 64, qt = nqt - 1 - (int)blockIdx.y;
    const int bh = blockIdx.x, b = bh / a.H, h = bh % a.H, q0 = qt * 64;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t4 = lane % 4;
    const bf16 *qg = a.q + b * a.qs[0] + h * a.qs[1], *kg = a.k + b * a.ks[0] + h * a.ks[1];
    const bf16 *vg = a.v + b * a.vs[0] + h * a.vs[1];
    const float sl2 = a.scale * FA_LOG2E; /* scores in log2 units: exp2 is one instruction */
    fa_load_tile(Qs, qg, a.qs[2], q0, T, vec);
    fa_load_tile(Ks, kg, a.ks[2], 0, T, vec);
    fa_load_tile(Vs, vg, a.vs[2], 0, T, vec);
    cp_async_commit();
    uint32_t qf[4][4];
    float o[8][4], m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    UNROLL
    for (int nt = 0; nt < 8; nt++)
        UNROLL
        for (int e = 0; e < 4; e++) o[nt][e] = 0.0f;
    const int row[2] = {q0 + warp * 16 + g, q0 + warp * 16 + g + 8};
    for (int kt = 0; kt <= qt; kt++) {
        const int buf = kt & 1, k0 = kt * 64;
        if (kt < qt) { /* the next tile into the other buffer (every warp left it at the last barrier) */
            fa_load_tile(Ks + (buf ^ 1) * FA_TILE, kg, a.ks[2], k0 + 64, T, vec);
            fa_load_tile(Vs + (buf ^ 1) * FA_TILE, vg, a.vs[2], k0 + 64, T, vec);
        }
        cp_async_commit();
        cp_async_wait<1>(); /* all but the newest group: tile kt (and Q) have landed */
        __syncthreads();
        if (kt == 0) fa_load_a(qf, Qs, warp * 16);
        float s[8][4];
        UNROLL
        for (int nt = 0; nt < 8; nt++)
            UNROLL
            for (int e = 0; e < 4; e++) s[nt][e] = 0.0f;
        fa_mma_abt(s, qf, Ks + buf * FA_TILE); /* S = Q K^T */
        const bool edge = kt == qt || k0 + 64 > T;
        float mx[2] = {-INFINITY, -INFINITY};
        UNROLL
        for (int nt = 0; nt < 8; nt++)
            UNROLL
            for (int e = 0; e < 4; e++) {
                int key = k0 + nt * 8 + 2 * t4 + (e & 1);
                float v = s[nt][e] * sl2;
                if (edge && (key > row[e >> 1] || key >= T)) v = -INFINITY;
                s[nt][e] = v;
                mx[e >> 1] = fmaxf(mx[e >> 1], v);
            }
        float mu[2];
        UNROLL
        for (int r = 0; r < 2; r++) { /* the row's max over the 4 lanes that share it */
            mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
            mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
            float m_new = fmaxf(m[r], mx[r]);
            mu[r] = m_new == -INFINITY ? 0.0f : m_new;
            float alpha = fa_exp2(m[r] - mu[r]); /* 0 on the first tile (m = -inf) */
            m[r] = m_new, l[r] *= alpha;
            UNROLL
            for (int nt = 0; nt < 8; nt++) o[nt][2 * r] *= alpha, o[nt][2 * r + 1] *= alpha;
        }
        uint32_t pf[4][4];
        UNROLL
        for (int nt = 0; nt < 8; nt++) {
            uint32_t lo = pack_bf16x2(fa_exp2(s[nt][0] - mu[0]), fa_exp2(s[nt][1] - mu[0]));
            uint32_t hi = pack_bf16x2(fa_exp2(s[nt][2] - mu[1]), fa_exp2(s[nt][3] - mu[1]));
            l[0] += bf16_lo(lo) + bf16_hi(lo); /* sum the rounded P that the P V product uses */
            l[1] += bf16_lo(hi) + bf16_hi(hi);
            pf[nt / 2][(nt % 2) * 2] = lo, pf[nt / 2][(nt % 2) * 2 + 1] = hi;
        }
        fa_mma_ab(o, pf, Vs + buf * FA_TILE); /* O += P V */
        __syncthreads(); /* every warp is done with buffer buf before it is refilled */
    }
    UNROLL
    for (int r = 0; r < 2; r++) {
        l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
        l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
        if (row[r] >= T) continue;
        float inv = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
        bf16 *og = a.out + b * a.os[0] + h * a.os[1] + (int64_t)row[r] * a.os[2];
        UNROLL
        for (int nt = 0; nt < 8; nt++) {
            int d = nt * 8 + 2 * t4;
            if (vec) {
                *(uint32_t *)(og + d) = pack_bf16x2(o[nt][2 * r] * inv, o[nt][2 * r + 1] * inv);
            } else {
                og[d] = __float2bfloat16(o[nt][2 * r] * inv);
                og[d + 1] = __float2bfloat16(o[nt][2 * r + 1] * inv);
            }
        }
        if (t4 == 0) a.lse[(int64_t)bh * T + row[r]] = m[r] * (1.0f / FA_LOG2E) + logf(l[r]);
    }
}


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


/* The backward pass's main kernel: three barriers per query tile (after the copies land, before
 * the dQ product, at the end before the buffers are refilled); dQ by float2 atomics (16 per lane
 * per tile). */
__global__ void __launch_bounds__(128) k_flash_bwd(AttnDesc a, int vec) {
    FA_DYNAMIC_SHARED(smem);
    bf16 *Ks = (bf16 *)smem, *Vs = Ks + FA_TILE, *Qs = Vs + FA_TILE, *dOs = Qs + 2 * FA_TILE, *dSs = dOs + 2 * FA_TILE;
    float *lse_s = (float *)(dSs + FA_TILE), *D_s = lse_s + 2 * 64; /* two buffers of 64 each */
    /* grid (B*H, tiles): the first key tiles have the most query tiles below them and start first */
    const int T = a.T, kt = blockIdx.y, bh = blockIdx.x, b = bh / a.H, h = bh % a.H, k0 = kt * 64;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t4 = lane % 4;
    const bf16 *qg = a.q + b * a.qs[0] + h * a.qs[1], *kg = a.k + b * a.ks[0] + h * a.ks[1];
    const bf16 *vg = a.v + b * a.vs[0] + h * a.vs[1], *gg = a.g + b * a.gs[0] + h * a.gs[1];
    const float sl2 = a.scale * FA_LOG2E;
    const int64_t base = (int64_t)bh * T;
    const int nqt = (T + 63) / 64;
    fa_load_tile(Ks, kg, a.ks[2], k0, T, vec);
    fa_load_tile(Vs, vg, a.vs[2], k0, T, vec);
    fa_load_tile(Qs, qg, a.qs[2], k0, T, vec); /* the first query tile is the diagonal one */
    fa_load_tile(dOs, gg, a.gs[2], k0, T, vec);
    fa_load_rows(lse_s, D_s, a, base, k0);
    cp_async_commit();
    float dk[8][4], dv[8][4];
    UNROLL
    for (int nt = 0; nt < 8; nt++)
        UNROLL
        for (int e = 0; e < 4; e++) dk[nt][e] = dv[nt][e] = 0.0f;
    const int key[2] = {k0 + warp * 16 + g, k0 + warp * 16 + g + 8};
    for (int qt = kt; qt < nqt; qt++) {
        const int buf = (qt - kt) & 1, q0 = qt * 64;
        bf16 *Q = Qs + buf * FA_TILE, *dO = dOs + buf * FA_TILE;
        const float *lse_b = lse_s + buf * 64, *D_b = D_s + buf * 64;
        if (qt + 1 < nqt) { /* the next query tile into the other buffers */
            fa_load_tile(Qs + (buf ^ 1) * FA_TILE, qg, a.qs[2], q0 + 64, T, vec);
            fa_load_tile(dOs + (buf ^ 1) * FA_TILE, gg, a.gs[2], q0 + 64, T, vec);
            fa_load_rows(lse_s + (buf ^ 1) * 64, D_s + (buf ^ 1) * 64, a, base, q0 + 64);
        }
        cp_async_commit();
        cp_async_wait<1>();
        __syncthreads();
        uint32_t kf[4][4], vf[4][4], pf[4][4], sf[4][4];
        fa_load_a(kf, Ks, warp * 16);
        float st[8][4], dpt[8][4]; /* S^T and dP^T: this warp's 16 keys x the tile's 64 queries */
        UNROLL
        for (int nt = 0; nt < 8; nt++)
            UNROLL
            for (int e = 0; e < 4; e++) st[nt][e] = dpt[nt][e] = 0.0f;
        fa_mma_abt(st, kf, Q); /* S^T = K Q^T */
        const bool edge = qt == kt || q0 + 64 > T;
        UNROLL
        for (int nt = 0; nt < 8; nt++)
            UNROLL
            for (int e = 0; e < 4; e++) { /* P^T = exp(scale S^T - lse), recomputed */
                int ql = nt * 8 + 2 * t4 + (e & 1), q = q0 + ql;
                float p = fa_exp2(st[nt][e] * sl2 - lse_b[ql]);
                if (edge && (key[e >> 1] > q || q >= T)) p = 0.0f;
                st[nt][e] = p;
            }
        fa_acc_to_a(pf, st);
        fa_mma_ab(dv, pf, dO); /* dV += P^T dO */
        fa_load_a(vf, Vs, warp * 16);
        fa_mma_abt(dpt, vf, dO); /* dP^T = V dO^T */
        UNROLL
        for (int nt = 0; nt < 8; nt++)
            UNROLL
            for (int e = 0; e < 4; e++) dpt[nt][e] = st[nt][e] * (dpt[nt][e] - D_b[nt * 8 + 2 * t4 + (e & 1)]); /* dS^T */
        fa_acc_to_a(sf, dpt);
        fa_mma_ab(dk, sf, Q); /* dK += dS^T Q (scaled at the end) */
        if (a.dq) {
            /* dS^T (keys x queries) into shared memory, then each warp: its 16 queries of dS K */
            UNROLL
            for (int kk = 0; kk < 4; kk++) {
                int kr = warp * 16 + g, qc = kk * 16 + 2 * t4;
                *(uint32_t *)(dSs + kr * FA_LDS + qc) = sf[kk][0];
                *(uint32_t *)(dSs + (kr + 8) * FA_LDS + qc) = sf[kk][1];
                *(uint32_t *)(dSs + kr * FA_LDS + qc + 8) = sf[kk][2];
                *(uint32_t *)(dSs + (kr + 8) * FA_LDS + qc + 8) = sf[kk][3];
            }
            __syncthreads();
            uint32_t af[4][4];
            UNROLL
            for (int kk = 0; kk < 4; kk++) /* A = dS (queries x keys): dS^T read transposed */
                ldmatrix_x4_trans(af[kk], dSs + (kk * 16 + lane % 8 + (lane / 16) * 8) * FA_LDS + warp * 16 + ((lane / 8) % 2) * 8);
            float dq[8][4];
            UNROLL
            for (int nt = 0; nt < 8; nt++)
                UNROLL
                for (int e = 0; e < 4; e++) dq[nt][e] = 0.0f;
            fa_mma_ab(dq, af, Ks); /* dQ_tile = dS K */
            UNROLL
            for (int r = 0; r < 2; r++) {
                int q = q0 + warp * 16 + g + 8 * r;
                if (q >= T) continue;
                float *dst = a.dq + (base + q) * 64 + 2 * t4;
                UNROLL
                for (int nt = 0; nt < 8; nt++) fa_atomic_add2(dst + nt * 8, a.scale * dq[nt][2 * r], a.scale * dq[nt][2 * r + 1]);
            }
        }
        __syncthreads(); /* Q, dO, dS of this tile are free for the next prefetch and writes */
    }
    UNROLL
    for (int r = 0; r < 2; r++) {
        int t = key[r];
        if (t >= T) continue;
        UNROLL
        for (int nt = 0; nt < 8; nt++) {
            int d = nt * 8 + 2 * t4;
            UNROLL
            for (int j = 0; j < 2; j++) {
                if (a.gk) {
                    bf16 *p = a.gk + b * a.gks[0] + h * a.gks[1] + (int64_t)t * a.gks[2] + d + j;
                    *p = __float2bfloat16(__bfloat162float(*p) + a.scale * dk[nt][2 * r + j]);
                }
                if (a.gv) {
                    bf16 *p = a.gv + b * a.gvs[0] + h * a.gvs[1] + (int64_t)t * a.gvs[2] + d + j;
                    *p = __float2bfloat16(__bfloat162float(*p) + dv[nt][2 * r + j]);
                }
            }
        }
    }
}


/* gq += dq (the f32 atomics' sum), through gq's strides: 8 columns a thread. vec (gq's rows
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
        uint4 s0 = s[0], s1 = s[1], gv = *(const uint4 *)p;
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
    for (int k = 0; k < 8; k++) p[k] = __float2bfloat16(__bfloat162float(p[k]) + s[k]);
}

