/*
 * attention.cuh: what the fused causal attention (attention_forward.cu) and its pullback
 * (attention_backward.cu) share: the descriptor of one call (AttnDesc), the copy and conversion
 * instructions, the swizzled tile loader and the launchers' checks (bf16, head size 64). Both
 * kernels run on Hopper's warpgroup MMA (wgmma.cuh, sm_90a) with their operands in wgmma's
 * 128-byte-swizzled shared tiles. tests/engine/flash_emu.cpp compiles these same kernels for the
 * CPU, on an emulation of threads, warps, warpgroups, wgmma and cp.async (tests/engine/cuda_emu.h),
 * and checks them against a float64 reference where no GPU is.
 */
#ifndef WB_ATTENTION_CUH
#define WB_ATTENTION_CUH

#include "cuda_common.cuh"
#include "wgmma.cuh"

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
