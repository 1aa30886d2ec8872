/*
 * layernorm.cu: layer norm over the last dim and its pullback (input, gain and bias gradients in
 * one kernel: a pass over the rows whose last block adds the blocks' column sums).
 */
#include "cuda_common.cuh"

template <typename T>
__global__ void k_layernorm(T *out, float *mean, float *rstd, const T *in, const T *w, const T *b, int64_t N,
                            int64_t C, float eps) {
    int64_t r = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (r >= N) return;
    const T *x = in + r * C;
    float m = 0.0f;
    for (int64_t j = lane; j < C; j += 32) m += ld(x + j);
    m = warp_sum(m) / (float)C;
    float v = 0.0f;
    for (int64_t j = lane; j < C; j += 32) {
        float d = ld(x + j) - m;
        v += d * d;
    }
    v = warp_sum(v) / (float)C;
    float s = rsqrtf(v + eps);
    for (int64_t j = lane; j < C; j += 32) st(out + r * C + j, (ld(x + j) - m) * s * ld(w + j) + ld(b + j));
    if (lane == 0) mean[r] = m, rstd[r] = s;
}

/* The same row kernels with the row in registers: a warp per row, lane l holds the 8-element
 * vectors l, l + 32, ..., l + 32 (NV - 1) (C a multiple of 8, C <= 256 NV, 16-byte aligned rows).
 * All of a row's loads are issued before the first use, every access is 16 bytes, and each
 * element is read from memory once. The scalar kernels above remain for other widths. */
template <typename T, int NV>
__global__ void __launch_bounds__(256) k_layernorm_vec(T *__restrict__ out, float *__restrict__ mean,
                                                       float *__restrict__ rstd, const T *__restrict__ in,
                                                       const T *__restrict__ w, const T *__restrict__ b, int64_t N,
                                                       int C, float eps) {
    int64_t r = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32, C8 = C / 8;
    if (r >= N) return;
    const T *x = in + r * C;
    float v[NV][8], sum = 0.0f;
    UNROLL
    for (int k = 0; k < NV; k++) {
        int j = lane + 32 * k;
        if (j < C8) ld8(v[k], x + 8 * j);
        UNROLL
        for (int e = 0; e < 8; e++) {
            if (j >= C8) v[k][e] = 0.0f;
            sum += v[k][e];
        }
    }
    float m = warp_sum(sum) / (float)C, var = 0.0f;
    UNROLL
    for (int k = 0; k < NV; k++)
        if (lane + 32 * k < C8)
            UNROLL
            for (int e = 0; e < 8; e++) var += (v[k][e] - m) * (v[k][e] - m);
    float s = rsqrtf(warp_sum(var) / (float)C + eps);
    UNROLL
    for (int k = 0; k < NV; k++) {
        int j = lane + 32 * k;
        if (j >= C8) continue;
        float wv[8], bv[8], o[8];
        ld8(wv, w + 8 * j), ld8(bv, b + 8 * j);
        UNROLL
        for (int e = 0; e < 8; e++) o[e] = (v[k][e] - m) * s * wv[e] + bv[e];
        st8(out + r * C + 8 * j, o);
    }
    if (lane == 0) mean[r] = m, rstd[r] = s;
}

/* The gain and bias gradients' totals from a tree_finish over the blocks' column sums, laid out
 * [gw: Cp][gb: Cp] (Cp = C rounded up to 4): gw += the first Cp, gb += the rest. */
#define LN_GS 8
template <typename T>
struct LnFin {
    T *gw, *gb;
    int C, Cp;
    __device__ void operator()(int c4, float4 v) const {
        const float f[4] = {v.x, v.y, v.z, v.w};
        UNROLL
        for (int e = 0; e < 4; e++) {
            const int c = 4 * c4 + e, col = c < Cp ? c : c - Cp;
            T *p = c < Cp ? gw : gb;
            if (p && col < C) st(p + col, ld(p + col) + f[e]);
        }
    }
};

/* Element i of a row vector as loaded, as f32, converted where it is used: for bf16 an asm the
 * compiler does not merge, so that the second pass over the row converts again instead of
 * keeping the first pass's 48 floats alive (128 registers at C = 768; this way the row stays as
 * loaded, 2 bytes an element, and 24 warps fit on an SM). */
__device__ __forceinline__ float elem(const pack8<float> &q, int i) { return q.v[i]; }
__device__ __forceinline__ float elem(const pack8<bf16> &q, int i) {
    uint32_t w, r;
    memcpy(&w, &q.v[i & ~1], 4);
#ifdef WB_CUDA_EMULATION
    r = i & 1 ? w & 0xffff0000u : w << 16;
#else
    if (i & 1) asm volatile("and.b32 %0, %1, 0xffff0000;" : "=r"(r) : "r"(w));
    else asm volatile("shl.b32 %0, %1, 16;" : "=r"(r) : "r"(w));
#endif
    return __uint_as_float(r);
}

/* Layer norm's whole pullback in one kernel. Each warp takes rows r = warp + nwarps (blockIdx.x +
 * gridDim.x k), the row held in registers as loaded (bf16: 4 registers per 8 elements), every load
 * of a row in flight at once: gin += rstd (g w - mean(g w) - xhat mean(g w xhat)), and for the
 * lane's own columns the sums of g xhat (the gain's gradient) and g (the bias's), kept in shared
 * memory, a region per warp (not in registers: 48 of them at C = 768 hold a kernel to 12 warps
 * per SM, each with one row in flight, 43 us for 101 MB; this one fits 24: 36 us on the H200,
 * docs/performance-history.md). Shared float4s are in the lanes' order, (k, half, lane), so that
 * a warp's accesses have no bank conflicts; w sits there too, as f32. At the end the block adds
 * its warps' sums in warp order: its contribution to a tree_finish over the blocks, whose last
 * block adds the totals into gw, gb. Skipped when neither is wanted. Deterministic: every sum has
 * a fixed order. */
template <typename T, int NV>
__global__ void __launch_bounds__(256, 3) k_layernorm_backward_vec(T *__restrict__ gin, T *gw, T *gb, float4 *tree,
                                                                   unsigned *cnt, const T *__restrict__ g,
                                                                   const T *__restrict__ in, const T *__restrict__ w,
                                                                   const float *__restrict__ mean,
                                                                   const float *__restrict__ rstd, int64_t N, int C) {
    FA_DYNAMIC_SHARED(smem);
    float4 *ws = (float4 *)smem;             /* NV * 64: w */
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nw = blockDim.x / 32, C8 = C / 8;
    float4 *dw = ws + NV * 64 * (1 + 2 * warp), *db = dw + NV * 64; /* this warp's sums */
    const bool sums = gw || gb;
    for (int f = threadIdx.x; f < NV * 64; f += blockDim.x) {
        const int j = f % 32 + 32 * (f / 64), h = f / 32 % 2;
        float v[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        if (j < C8) ld8(v, w + 8 * j);
        ws[f] = make_float4(v[4 * h], v[4 * h + 1], v[4 * h + 2], v[4 * h + 3]);
    }
    for (int f = lane; f < NV * 64; f += 32) dw[f] = db[f] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    __syncthreads();
    for (int64_t r = blockIdx.x * (int64_t)nw + warp; r < N; r += (int64_t)gridDim.x * nw) {
        pack8<T> gv[NV], xv[NV], ov[NV];
        UNROLL
        for (int k = 0; k < NV; k++) { /* every load of the row in flight at once */
            const int j = lane + 32 * k;
            if (j < C8) {
                gv[k] = *(const pack8<T> *)(g + r * C + 8 * j), xv[k] = *(const pack8<T> *)(in + r * C + 8 * j);
                if (gin) ov[k] = *(const pack8<T> *)(gin + r * C + 8 * j);
            }
        }
        const float m = mean[r], s = rstd[r];
        float a = 0.0f, bs = 0.0f;
        UNROLL
        for (int k = 0; k < NV; k++) {
            if (lane + 32 * k >= C8) continue;
            UNROLL
            for (int h = 0; h < 2; h++) {
                const float4 w4 = ws[(2 * k + h) * 32 + lane];
                const float wv[4] = {w4.x, w4.y, w4.z, w4.w};
                UNROLL
                for (int e = 0; e < 4; e++) {
                    const float xh = (elem(xv[k], 4 * h + e) - m) * s, dxh = elem(gv[k], 4 * h + e) * wv[e];
                    a += dxh, bs += dxh * xh;
                }
            }
        }
        a = warp_sum(a) / (float)C, bs = warp_sum(bs) / (float)C;
        /* then, from the row as loaded: xhat and g w again, the input gradient and the column sums */
        UNROLL
        for (int k = 0; k < NV; k++) {
            const int j = lane + 32 * k;
            if (j >= C8) continue;
            float o[8];
            UNROLL
            for (int h = 0; h < 2; h++) {
                const int f = (2 * k + h) * 32 + lane;
                const float4 w4 = ws[f];
                const float wv[4] = {w4.x, w4.y, w4.z, w4.w};
                float pw[4], pb[4];
                UNROLL
                for (int e = 0; e < 4; e++) {
                    const int i = 4 * h + e;
                    const float gf = elem(gv[k], i), xh = (elem(xv[k], i) - m) * s, dxh = gf * wv[e];
                    if (gin) o[i] = elem(ov[k], i) + s * (dxh - a - xh * bs);
                    pw[e] = gf * xh, pb[e] = gf;
                }
                if (sums) dw[f] = add4(dw[f], make_float4(pw[0], pw[1], pw[2], pw[3])),
                          db[f] = add4(db[f], make_float4(pb[0], pb[1], pb[2], pb[3]));
            }
            if (gin) st8(gin + r * C + 8 * j, o);
        }
    }
    if (!sums) return; /* uniform across the grid */
    __syncthreads();
    const int C4 = C / 4;
    float4 *mine = tree + blockIdx.x * (int64_t)(2 * C4); /* [gw: C][gb: C] */
    for (int f = threadIdx.x; f < NV * 64; f += blockDim.x) {
        const int j = f % 32 + 32 * (f / 64), h = f / 32 % 2;
        if (j >= C8) continue;
        float4 sw = make_float4(0.0f, 0.0f, 0.0f, 0.0f), sb = sw;
        for (int q = 0; q < nw; q++) {
            const float4 *wq = ws + NV * 64 * (1 + 2 * q);
            sw = add4(sw, wq[f]), sb = add4(sb, wq[NV * 64 + f]);
        }
        mine[2 * j + h] = sw, mine[C4 + 2 * j + h] = sb;
    }
    tree_finish<LN_GS>(tree, cnt, (int)gridDim.x, 2 * C4, (int)blockIdx.x, LnFin<T>{gw, gb, C, C});
}


/* The same for any C (not a multiple of 8, or wider than 1024): one warp per block, so that each
 * column's sums belong to one lane and live in shared memory (2 C floats, dynamic); the blocks'
 * sums [gw: Cp][gb: Cp] (Cp = C rounded up to 4) go through tree_finish as above. */
template <typename T>
__global__ void __launch_bounds__(32) k_layernorm_backward_any(T *gin, T *gw, T *gb, float4 *tree, unsigned *cnt,
                                                               const T *g, const T *in, const T *w, const float *mean,
                                                               const float *rstd, int64_t N, int64_t C) {
    FA_DYNAMIC_SHARED(smem);
    float *sw = (float *)smem, *sb = sw + C;
    const int lane = threadIdx.x;
    for (int64_t c = lane; c < C; c += 32) sw[c] = sb[c] = 0.0f;
    for (int64_t r = blockIdx.x; r < N; r += gridDim.x) {
        const T *x = in + r * C, *gr = g + r * C;
        float m = mean[r], s = rstd[r], a = 0.0f, bs = 0.0f;
        for (int64_t j = lane; j < C; j += 32) {
            float dxh = ld(gr + j) * ld(w + j), xh = (ld(x + j) - m) * s;
            a += dxh, bs += dxh * xh;
        }
        a = warp_sum(a) / (float)C, bs = warp_sum(bs) / (float)C;
        for (int64_t j = lane; j < C; j += 32) {
            float gv = ld(gr + j), xh = (ld(x + j) - m) * s, dxh = gv * ld(w + j);
            sw[j] += gv * xh, sb[j] += gv;
            if (gin) {
                T *o = gin + r * C + j;
                st(o, ld(o) + s * (dxh - a - xh * bs));
            }
        }
    }
    if (!gw && !gb) return;
    const int64_t Cp = (C + 3) / 4 * 4;
    float *mine = (float *)(tree + blockIdx.x * (Cp / 2));
    for (int64_t c = lane; c < Cp; c += 32) mine[c] = c < C ? sw[c] : 0.0f, mine[Cp + c] = c < C ? sb[c] : 0.0f;
    tree_finish<LN_GS>(tree, cnt, (int)gridDim.x, (int)(Cp / 2), (int)blockIdx.x, LnFin<T>{gw, gb, (int)C, (int)Cp});
}
/* ---------------------------------------------------------------------------------------------
 * launchers
 * ------------------------------------------------------------------------------------------ */
int cuda_layernorm(wb_backend *be, const wb_tensor *out, const wb_tensor *mean, const wb_tensor *rstd,
                          const wb_tensor *in, const wb_tensor *w, const wb_tensor *b, double eps) {
    if (mean->dtype != WB_F32 || rstd->dtype != WB_F32) return bad_dtype("layernorm statistics", mean->dtype);
    int64_t N = in->shape[0], C = in->shape[1];
    unsigned grid = blocks_for(N, 8);
    const wb_tensor *ts[4] = {out, in, w, b};
    int nv = row_nv(C, ts, 4);
    if (nv && in->dtype == WB_BF16) {
        LAUNCH_NV(nv, k_layernorm_vec, bf16, grid, 256, 0, BF(out->data), FL(mean->data), FL(rstd->data), BF(in->data),
                  BF(w->data), BF(b->data), N, (int)C, (float)eps);
        return WB_OK;
    }
    if (nv && in->dtype == WB_F32) {
        LAUNCH_NV(nv, k_layernorm_vec, float, grid, 256, 0, FL(out->data), FL(mean->data), FL(rstd->data), FL(in->data),
                  FL(w->data), FL(b->data), N, (int)C, (float)eps);
        return WB_OK;
    }
    if (in->dtype == WB_BF16)
        KLAUNCH(k_layernorm<bf16>, grid, 256, 0, BF(out->data), FL(mean->data), FL(rstd->data), BF(in->data), BF(w->data),
                                         BF(b->data), N, C, (float)eps);
    else if (in->dtype == WB_F32)
        KLAUNCH(k_layernorm<float>, grid, 256, 0, FL(out->data), FL(mean->data), FL(rstd->data), FL(in->data), FL(w->data),
                                          FL(b->data), N, C, (float)eps);
    else return bad_dtype("layernorm", in->dtype);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

/* One kernel (launch_plan.h): the pass over the rows, whose last block adds the column sums */
int cuda_layernorm_backward(wb_backend *be, const wb_tensor *gin, const wb_tensor *gw, const wb_tensor *gb,
                                   const wb_tensor *g, const wb_tensor *in, const wb_tensor *w, const wb_tensor *mean,
                                   const wb_tensor *rstd) {
    cuda_impl *im = IMPL(be);
    int64_t N = in->shape[0], C = in->shape[1];
    if (in->dtype != WB_BF16 && in->dtype != WB_F32) return bad_dtype("layernorm_backward", in->dtype);
    if (!gin && !gw && !gb) return WB_OK;
    const float *mp = FL(mean->data), *rp = FL(rstd->data);
    const wb_tensor *ts[4] = {gin, g, in, w};
    int nv = row_nv(C, ts, 4), bf = in->dtype == WB_BF16;
    /* vec: 8 warps a block, 3 blocks per SM (one wave), at least a row per warp; any: one warp a
     * block, 2 C floats of shared memory */
    int64_t blocks = nv ? (N + 7) / 8 : N, cap = nv ? 3 * (int64_t)im->num_sms : 256;
    if (blocks > cap) blocks = cap;
    if (blocks < 1) blocks = 1;
    if (!nv && 2 * C * sizeof(float) > 48 * 1024) {
        fprintf(stderr, "cuda layernorm_backward: width %lld is over 6144\n", (long long)C);
        return WB_FAIL;
    }
    float4 *tree = NULL;
    if (gw || gb) {
        size_t f4 = 0, counters = 0;
        tree_size((int)blocks, (int)((C + 3) / 4 * 4 / 2), LN_GS, &f4, &counters);
        WB_TRY(scratch_reserve(im, 4 * f4));
        WB_TRY(counters_reserve(im, counters));
        tree = (float4 *)im->scratch;
    }
    void *gi = gin ? gin->data : NULL, *gwp = gw ? gw->data : NULL, *gbp = gb ? gb->data : NULL;
    if (nv) {
        /* w and 8 warps' two sums, NV * 64 float4 each: 52 KB at C = 768 (over the default 48) */
        const size_t smem = (size_t)nv * 64 * 17 * 16;
        if (!(im->ln_bwd_attr >> (2 * nv + bf) & 1)) {
            if (bf) LAUNCH_NV_ATTR(nv, k_layernorm_backward_vec, bf16, smem);
            else LAUNCH_NV_ATTR(nv, k_layernorm_backward_vec, float, smem);
            im->ln_bwd_attr |= 1 << (2 * nv + bf);
        }
        if (bf)
            LAUNCH_NV(nv, k_layernorm_backward_vec, bf16, (unsigned)blocks, 256, smem, BF(gi), BF(gwp), BF(gbp), tree,
                      im->counters, BF(g->data), BF(in->data), BF(w->data), mp, rp, N, (int)C);
        else
            LAUNCH_NV(nv, k_layernorm_backward_vec, float, (unsigned)blocks, 256, smem, FL(gi), FL(gwp), FL(gbp), tree,
                      im->counters, FL(g->data), FL(in->data), FL(w->data), mp, rp, N, (int)C);
        return WB_OK;
    }
    size_t smem = 2 * (size_t)C * sizeof(float);
    if (bf) KLAUNCH(k_layernorm_backward_any<bf16>, (unsigned)blocks, 32, smem, BF(gi), BF(gwp), BF(gbp), tree, im->counters, BF(g->data), BF(in->data), BF(w->data), mp, rp, N, C);
    else KLAUNCH(k_layernorm_backward_any<float>, (unsigned)blocks, 32, smem, FL(gi), FL(gwp), FL(gbp), tree, im->counters, FL(g->data), FL(in->data), FL(w->data), mp, rp, N, C);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}
