/*
 * attention.cuh: what the fused causal attention (attention_forward.cu) and its pullback
 * (attention_backward.cu) share: the descriptor of one call (AttnDesc), the shared-memory tile
 * layout, the tensor-core and copy instructions, the tile loader and the launchers' checks
 * (bf16, head size 64). tests/engine/flash_emu.cpp compiles these same kernels for the CPU, on an
 * emulation of threads, warps, mma.sync, ldmatrix and cp.async (tests/engine/cuda_emu.h), and
 * checks them against a float64 reference where no GPU is.
 *
 * Needs sm_80 or newer (mma.sync m16n8k16 bf16, ldmatrix, cp.async).
 *
 * Shared tiles are 64 rows of 64 bf16 with rows padded to 72 (144 bytes): the 8 row addresses of
 * one ldmatrix then fall in 8 different 16-byte bank groups (no conflicts).
 */
#ifndef WB_ATTENTION_CUH
#define WB_ATTENTION_CUH

#include "cuda_common.cuh"
#include "wgmma.cuh"

#define FA_LDS 72                 /* shared tile row stride in bf16 elements */
#define FA_TILE (64 * FA_LDS)     /* one 64 x 64 tile */
#define FA_LOG2E 1.4426950408889634f

struct AttnDesc {
    const bf16 *q, *k, *v, *g, *o; /* g: the output's gradient (backward only) */
    bf16 *out, *gq, *gk, *gv;      /* out: forward; gq, gk, gv: backward (may be NULL) */
    float *lse, *D, *dq;           /* (B*H*T), (B*H*T), (B*H*T, 64) */
    int64_t qs[3], ks[3], vs[3], gs[3], os[3], gqs[3], gks[3], gvs[3]; /* strides of b, h, t */
    int H, T;
    float scale;
    int acc;                       /* backward: gq, gk, gv += (1) or = (0) */
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

/* rows [row0, row0 + rows) of a (T, 64) bf16 matrix with row stride rs into a 128-byte-swizzled
 * tile for wgmma (wgmma.cuh), zeros past T. vec: 16-byte cp.async (the caller commits and waits);
 * else plain 2-byte copies. Every thread of the block takes part. */
__device__ __forceinline__ void wg_load_rows_sw128(bf16 *tile, const bf16 *src, int64_t rs, int row0, int rows, int T, int vec) {
    if (vec) {
        for (int i = threadIdx.x; i < rows * 8; i += blockDim.x) {
            int r = i / 8, c = i % 8;
            bool ok = row0 + r < T;
            cp_async_16(tile + r * 64 + ((c ^ (r & 7)) << 3), ok ? src + (int64_t)(row0 + r) * rs + c * 8 : src, ok);
        }
    } else {
        for (int i = threadIdx.x; i < rows * 64; i += blockDim.x) {
            int r = i / 64, c = i % 64;
            tile[wg_sw128(r, c)] = row0 + r < T ? src[(int64_t)(row0 + r) * rs + c] : __float2bfloat16(0.0f);
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

/* ---------------------------------------------------------------------------------------------
 * the launchers' checks
 * ------------------------------------------------------------------------------------------ */
static inline void strides3(int64_t *dst, const wb_tensor *t) {
    dst[0] = t->stride[0], dst[1] = t->stride[1], dst[2] = t->stride[2];
}

/* 16-byte loads need 16-byte aligned rows: every base pointer and every stride (in bytes) */
static inline int fa_vec_ok(const wb_tensor *const *ts, int n) {
    for (int i = 0; i < n; i++) {
        if (!ts[i]) continue;
        if ((uintptr_t)ts[i]->data % 16) return 0;
        for (int d = 0; d < 3; d++)
            if ((ts[i]->stride[d] * 2) % 16) return 0;
    }
    return 1;
}

static inline int fa_check(const wb_tensor *t, const char *what) {
    if (t->dtype != WB_BF16 || t->ndim != 4 || t->shape[3] != 64 || t->stride[3] != 1) {
        fprintf(stderr, "cuda attention: %s must be bf16 (B, H, T, 64) with unit stride along the head\n", what);
        return WB_FAIL;
    }
    return WB_OK;
}

#endif /* WB_ATTENTION_CUH */
