/*
 * flash_attention.cuh: the fused causal attention kernels of the CUDA backend (backend_cuda.cu
 * includes this file; its host functions launch them). Kept apart so that
 * tests/engine/flash_emu.cpp can compile these same kernels for the CPU, with a small
 * emulation of threads, warps and WMMA, and check them where no GPU is.
 *
 * Needs: bf16 (__nv_bfloat16 or the emulator's), nvcuda::wmma, __shfl_xor_sync, atomicAdd.
 */
#ifndef WB_FLASH_ATTENTION_CUH
#define WB_FLASH_ATTENTION_CUH

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <mma.h>
typedef __nv_bfloat16 bf16;
#endif

/* the kernels' dynamic shared memory (the emulation points it at a buffer of its own) */
#ifndef FA_DYNAMIC_SHARED
#define FA_DYNAMIC_SHARED(name) extern __shared__ __align__(128) unsigned char name[]
#endif

/* ---------------------------------------------------------------------------------------------
 * fused causal attention, flash-attention style (bf16, head size 64, tensor cores through WMMA)
 *
 * Forward: a block of 4 warps owns 64 query rows (16 per warp) and walks the key tiles up to the
 * diagonal: S = Q K^T on tensor cores into shared memory, an online softmax per row (running max
 * and sum, the output rescaled when the max grows), O += P V on tensor cores. The (T, T) scores
 * exist only one 64 x 64 tile at a time, in shared memory. It writes O and the per-row
 * log-sum-exp, which is all the backward pass needs to recompute P.
 *
 * Backward (FlashAttention-2's order): D = rowsum(dO * O) first; then a block owns 64 keys and
 * walks the query tiles from the diagonal down: P from S and the saved log-sum-exp, dV += P^T dO,
 * dP = dO V^T, dS = P (dP - D), dK += dS^T Q in shared memory, dQ += dS K with f32 atomics into
 * a scratch buffer that a last kernel adds into q's gradient.
 *
 * Written to be correct and simple: WMMA fragments round-trip through shared memory, no
 * pipelining of the tile loads, one warp per 16 rows. FlashAttention-2/3 are several times
 * faster; this already avoids writing and reading the (B*H, T, T) scores, probabilities and
 * their gradients.
 * ------------------------------------------------------------------------------------------ */
#define FA_LDH 72 /* bf16 tile row stride in shared memory (64 + 8: spreads the banks) */
#define FA_LDF 68 /* f32 tile row stride */
#define FA_TILE_H (64 * FA_LDH)
#define FA_TILE_F (64 * FA_LDF)
#define FA_FWD_SMEM (4 * FA_TILE_H * 2 + 2 * FA_TILE_F * 4 + 2 * 64 * 4)
#define FA_BWD_SMEM (6 * FA_TILE_H * 2 + 3 * FA_TILE_F * 4 + 2 * 64 * 4)

namespace wmma = nvcuda::wmma;

__device__ __forceinline__ float fa_warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
typedef wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> frag_a_row;
typedef wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::col_major> frag_a_col;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> frag_b_row;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> frag_b_col;
typedef wmma::fragment<wmma::accumulator, 16, 16, 16, float> frag_acc;

struct AttnDesc {
    const bf16 *q, *k, *v, *g, *o; /* g: the output's gradient (backward only) */
    bf16 *out, *gq, *gk, *gv;      /* out: forward; gq, gk, gv: backward (+=, may be NULL) */
    float *lse, *D, *dq;           /* (B*H*T), (B*H*T), (B*H*T, 64) */
    int64_t qs[3], ks[3], vs[3], gs[3], os[3], gqs[3], gks[3], gvs[3]; /* strides of b, h, t */
    int H, T;
    float scale;
};

/* rows [row0, row0 + 64) of a (T, 64) matrix with row stride rs into a shared tile; zeros past T */
__device__ __forceinline__ void fa_load_tile(bf16 *dst, const bf16 *src, int64_t rs, int row0, int T, int vec) {
    if (vec) { /* 8 bf16 (16 bytes) per load */
        for (int i = threadIdx.x; i < 64 * 8; i += blockDim.x) {
            int r = i / 8, c = (i % 8) * 8;
            uint4 val = make_uint4(0, 0, 0, 0);
            if (row0 + r < T) val = *(const uint4 *)(src + (int64_t)(row0 + r) * rs + c);
            *(uint4 *)(dst + r * FA_LDH + c) = val;
        }
    } else {
        for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
            int r = i / 64, c = i % 64;
            dst[r * FA_LDH + c] = row0 + r < T ? src[(int64_t)(row0 + r) * rs + c] : __float2bfloat16(0.0f);
        }
    }
}

/* C (16 x 64, f32, row stride FA_LDF) = A (16 x 64) B (64 x 64): A row-major at a, B given by
 * the fragment type: col-major reads a (64 x 64) row-major tile transposed (K^T, V^T) */
template <typename FragB>
__device__ __forceinline__ void fa_mm_16x64(float *c, const bf16 *a, const bf16 *b, int b_col_major) {
    frag_acc acc[4];
    for (int n = 0; n < 4; n++) wmma::fill_fragment(acc[n], 0.0f);
    for (int kc = 0; kc < 4; kc++) {
        frag_a_row fa;
        wmma::load_matrix_sync(fa, a + kc * 16, FA_LDH);
        for (int n = 0; n < 4; n++) {
            FragB fb;
            /* col-major B = rows of the stored tile: (n, kc) block at row n*16, column kc*16 */
            wmma::load_matrix_sync(fb, b_col_major ? b + n * 16 * FA_LDH + kc * 16 : b + kc * 16 * FA_LDH + n * 16, FA_LDH);
            wmma::mma_sync(acc[n], fa, fb, acc[n]);
        }
    }
    for (int n = 0; n < 4; n++) wmma::store_matrix_sync(c + n * 16, acc[n], FA_LDF, wmma::mem_row_major);
}

__global__ void __launch_bounds__(128) k_flash_fwd(AttnDesc a, int vec) {
    FA_DYNAMIC_SHARED(smem);
    bf16 *Qs = (bf16 *)smem, *Ks = Qs + FA_TILE_H, *Vs = Ks + FA_TILE_H, *Ps = Vs + FA_TILE_H;
    float *Ss = (float *)(Ps + FA_TILE_H), *Os = Ss + FA_TILE_F, *row_m = Os + FA_TILE_F, *row_l = row_m + 64;
    const int qt = blockIdx.x, bh = blockIdx.y, b = bh / a.H, h = bh % a.H, T = a.T;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q0 = qt * 64;
    const int r = warp * 16 + lane / 2, c0 = (lane % 2) * 32, tq = q0 + r; /* two lanes per row */
    const bf16 *qg = a.q + b * a.qs[0] + h * a.qs[1], *kg = a.k + b * a.ks[0] + h * a.ks[1];
    const bf16 *vg = a.v + b * a.vs[0] + h * a.vs[1];
    fa_load_tile(Qs, qg, a.qs[2], q0, T, vec);
    for (int i = threadIdx.x; i < FA_TILE_F; i += blockDim.x) Os[i] = 0.0f;
    for (int i = threadIdx.x; i < 64; i += blockDim.x) row_m[i] = -INFINITY, row_l[i] = 0.0f;
    for (int kt = 0; kt <= qt; kt++) {
        const int k0 = kt * 64;
        __syncthreads(); /* every warp is done with the previous K, V tiles (and Q, O are set) */
        fa_load_tile(Ks, kg, a.ks[2], k0, T, vec);
        fa_load_tile(Vs, vg, a.vs[2], k0, T, vec);
        __syncthreads();
        fa_mm_16x64<frag_b_col>(Ss + warp * 16 * FA_LDF, Qs + warp * 16 * FA_LDH, Ks, 1); /* S = Q K^T */
        __syncwarp();
        float *srow = Ss + r * FA_LDF, *orow = Os + r * FA_LDF, mx = -INFINITY;
        for (int c = c0; c < c0 + 32; c++) {
            int tk = k0 + c;
            float sv = tk <= tq && tk < T ? srow[c] * a.scale : -INFINITY;
            srow[c] = sv;
            mx = fmaxf(mx, sv);
        }
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        float m_old = row_m[r], m_new = fmaxf(m_old, mx), m_use = m_new == -INFINITY ? 0.0f : m_new, sum = 0.0f;
        for (int c = c0; c < c0 + 32; c++) {
            bf16 pb = __float2bfloat16(__expf(srow[c] - m_use));
            Ps[r * FA_LDH + c] = pb;
            sum += __bfloat162float(pb); /* the same rounded P as the P V product uses */
        }
        sum += __shfl_xor_sync(0xffffffffu, sum, 1);
        float alpha = __expf(m_old - m_use); /* 0 on the first tile (m_old = -inf) */
        for (int c = c0; c < c0 + 32; c++) orow[c] *= alpha;
        __syncwarp(); /* both lanes of the row have read row_m */
        if ((lane & 1) == 0) row_m[r] = m_new, row_l[r] = row_l[r] * alpha + sum;
        __syncwarp();
        { /* O += P V */
            frag_acc acc[4];
            for (int n = 0; n < 4; n++)
                wmma::load_matrix_sync(acc[n], Os + warp * 16 * FA_LDF + n * 16, FA_LDF, wmma::mem_row_major);
            for (int kc = 0; kc < 4; kc++) {
                frag_a_row fa;
                wmma::load_matrix_sync(fa, Ps + warp * 16 * FA_LDH + kc * 16, FA_LDH);
                for (int n = 0; n < 4; n++) {
                    frag_b_row fb;
                    wmma::load_matrix_sync(fb, Vs + kc * 16 * FA_LDH + n * 16, FA_LDH);
                    wmma::mma_sync(acc[n], fa, fb, acc[n]);
                }
            }
            for (int n = 0; n < 4; n++)
                wmma::store_matrix_sync(Os + warp * 16 * FA_LDF + n * 16, acc[n], FA_LDF, wmma::mem_row_major);
        }
        __syncwarp();
    }
    if (tq < T) {
        float l = row_l[r], inv = l > 0.0f ? 1.0f / l : 0.0f;
        bf16 *og = a.out + b * a.os[0] + h * a.os[1] + (int64_t)tq * a.os[2];
        for (int c = c0; c < c0 + 32; c++) og[c] = __float2bfloat16(Os[r * FA_LDF + c] * inv);
        if ((lane & 1) == 0) a.lse[(int64_t)bh * T + tq] = row_m[r] + logf(l);
    }
}

/* D[row] = sum_d dO[row, d] * O[row, d], a warp per row */
__global__ void k_flash_bwd_pre(AttnDesc a, int64_t rows) {
    int64_t row = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    int64_t bh = row / a.T, t = row % a.T, b = bh / a.H, h = bh % a.H;
    const bf16 *g = a.g + b * a.gs[0] + h * a.gs[1] + t * a.gs[2], *o = a.o + b * a.os[0] + h * a.os[1] + t * a.os[2];
    float s = __bfloat162float(g[lane]) * __bfloat162float(o[lane]) +
              __bfloat162float(g[lane + 32]) * __bfloat162float(o[lane + 32]);
    s = fa_warp_sum(s);
    if (lane == 0) a.D[row] = s;
}

__global__ void __launch_bounds__(128) k_flash_bwd(AttnDesc a, int vec) {
    FA_DYNAMIC_SHARED(smem);
    bf16 *Ks = (bf16 *)smem, *Vs = Ks + FA_TILE_H, *Qs = Vs + FA_TILE_H, *dOs = Qs + FA_TILE_H;
    bf16 *Ps = dOs + FA_TILE_H, *dSs = Ps + FA_TILE_H;
    float *Sf = (float *)(dSs + FA_TILE_H), *dKf = Sf + FA_TILE_F, *dVf = dKf + FA_TILE_F;
    float *lse_s = dVf + FA_TILE_F, *D_s = lse_s + 64;
    const int kt = blockIdx.x, bh = blockIdx.y, b = bh / a.H, h = bh % a.H, T = a.T;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, k0 = kt * 64;
    const int r = warp * 16 + lane / 2, c0 = (lane % 2) * 32;
    const bf16 *qg = a.q + b * a.qs[0] + h * a.qs[1], *kg = a.k + b * a.ks[0] + h * a.ks[1];
    const bf16 *vg = a.v + b * a.vs[0] + h * a.vs[1], *gg = a.g + b * a.gs[0] + h * a.gs[1];
    fa_load_tile(Ks, kg, a.ks[2], k0, T, vec);
    fa_load_tile(Vs, vg, a.vs[2], k0, T, vec);
    for (int i = threadIdx.x; i < FA_TILE_F; i += blockDim.x) dKf[i] = 0.0f, dVf[i] = 0.0f;
    const int nqt = (T + 63) / 64;
    for (int qt = kt; qt < nqt; qt++) {
        const int q0 = qt * 64, tq = q0 + r;
        __syncthreads(); /* every warp is done with the previous Q, dO, P, dS tiles */
        fa_load_tile(Qs, qg, a.qs[2], q0, T, vec);
        fa_load_tile(dOs, gg, a.gs[2], q0, T, vec);
        for (int i = threadIdx.x; i < 64; i += blockDim.x) {
            int t = q0 + i;
            lse_s[i] = t < T ? a.lse[(int64_t)bh * T + t] : 0.0f;
            D_s[i] = t < T ? a.D[(int64_t)bh * T + t] : 0.0f;
        }
        __syncthreads();
        float *srow = Sf + r * FA_LDF;
        fa_mm_16x64<frag_b_col>(Sf + warp * 16 * FA_LDF, Qs + warp * 16 * FA_LDH, Ks, 1); /* S = Q K^T */
        __syncwarp();
        for (int c = c0; c < c0 + 32; c++) { /* P, recomputed from the saved log-sum-exp */
            int tk = k0 + c;
            float pv = tk <= tq && tq < T && tk < T ? __expf(srow[c] * a.scale - lse_s[r]) : 0.0f;
            Ps[r * FA_LDH + c] = __float2bfloat16(pv);
        }
        __syncwarp();
        fa_mm_16x64<frag_b_col>(Sf + warp * 16 * FA_LDF, dOs + warp * 16 * FA_LDH, Vs, 1); /* dP = dO V^T */
        __syncwarp();
        for (int c = c0; c < c0 + 32; c++) /* dS = P (dP - D) */
            dSs[r * FA_LDH + c] = __float2bfloat16(__bfloat162float(Ps[r * FA_LDH + c]) * (srow[c] - D_s[r]));
        __syncthreads(); /* every row of P and dS is in place: the key-major products read them all */
        { /* this warp's 16 keys: dV += P^T dO, dK += dS^T Q (scaled at the end) */
            frag_acc dv[4], dk[4];
            for (int n = 0; n < 4; n++) {
                wmma::load_matrix_sync(dv[n], dVf + warp * 16 * FA_LDF + n * 16, FA_LDF, wmma::mem_row_major);
                wmma::load_matrix_sync(dk[n], dKf + warp * 16 * FA_LDF + n * 16, FA_LDF, wmma::mem_row_major);
            }
            for (int qc = 0; qc < 4; qc++) {
                frag_a_col pa, sa; /* P^T and dS^T: the stored (query, key) tiles read column-major */
                wmma::load_matrix_sync(pa, Ps + qc * 16 * FA_LDH + warp * 16, FA_LDH);
                wmma::load_matrix_sync(sa, dSs + qc * 16 * FA_LDH + warp * 16, FA_LDH);
                for (int n = 0; n < 4; n++) {
                    frag_b_row fo, fq;
                    wmma::load_matrix_sync(fo, dOs + qc * 16 * FA_LDH + n * 16, FA_LDH);
                    wmma::load_matrix_sync(fq, Qs + qc * 16 * FA_LDH + n * 16, FA_LDH);
                    wmma::mma_sync(dv[n], pa, fo, dv[n]);
                    wmma::mma_sync(dk[n], sa, fq, dk[n]);
                }
            }
            for (int n = 0; n < 4; n++) {
                wmma::store_matrix_sync(dVf + warp * 16 * FA_LDF + n * 16, dv[n], FA_LDF, wmma::mem_row_major);
                wmma::store_matrix_sync(dKf + warp * 16 * FA_LDF + n * 16, dk[n], FA_LDF, wmma::mem_row_major);
            }
        }
        if (a.dq) { /* this warp's 16 queries: dQ += scale dS K, added across key tiles atomically */
            fa_mm_16x64<frag_b_row>(Sf + warp * 16 * FA_LDF, dSs + warp * 16 * FA_LDH, Ks, 0);
            __syncwarp();
            if (tq < T)
                for (int c = c0; c < c0 + 32; c++) atomicAdd(a.dq + ((int64_t)bh * T + tq) * 64 + c, a.scale * srow[c]);
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
        int rr = i / 64, c = i % 64, t = k0 + rr;
        if (t >= T) continue;
        if (a.gk) {
            bf16 *p = a.gk + b * a.gks[0] + h * a.gks[1] + (int64_t)t * a.gks[2] + c;
            *p = __float2bfloat16(__bfloat162float(*p) + a.scale * dKf[rr * FA_LDF + c]);
        }
        if (a.gv) {
            bf16 *p = a.gv + b * a.gvs[0] + h * a.gvs[1] + (int64_t)t * a.gvs[2] + c;
            *p = __float2bfloat16(__bfloat162float(*p) + dVf[rr * FA_LDF + c]);
        }
    }
}

/* gq += dq (the f32 atomics' sum), through gq's strides */
__global__ void k_flash_dq_finish(AttnDesc a, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    int64_t c = i % 64, row = i / 64, bh = row / a.T, t = row % a.T, b = bh / a.H, h = bh % a.H;
    bf16 *p = a.gq + b * a.gqs[0] + h * a.gqs[1] + t * a.gqs[2] + c;
    *p = __float2bfloat16(__bfloat162float(*p) + a.dq[i]);
}

#endif
