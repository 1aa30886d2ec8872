/*
 * layernorm.cu: layer norm over the last dim and its pullback (input, gain and bias gradients in
 * one pass over the rows, then one kernel adding the blocks' column sums).
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

/* Layer norm's whole pullback in one pass over g and x (a second kernel, k_ln_w_final, adds the
 * blocks' column sums). Each warp takes rows r = warp + nwarps (blockIdx.x + gridDim.x k), row in
 * registers: gin += rstd (g w - mean(g w) - xhat mean(g w xhat)), and per lane, for its own
 * columns, sums of g xhat (the gain's gradient) and g (the bias's). At the end the block adds its
 * warps' sums in warp order in shared memory and writes them to pw, pb (gridDim.x, C), or skips
 * that when pw is NULL. Deterministic: every sum has a fixed order. */
template <typename T, int NV>
__global__ void __launch_bounds__(128) k_layernorm_backward_vec(T *__restrict__ gin, float *__restrict__ pw,
                                                                float *__restrict__ pb, const T *__restrict__ g,
                                                                const T *__restrict__ in, const T *__restrict__ w,
                                                                const float *__restrict__ mean,
                                                                const float *__restrict__ rstd, int64_t N, int C) {
    __shared__ float sw[256 * NV], sb[256 * NV];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nw = blockDim.x / 32, C8 = C / 8;
    float dw[NV][8], db[NV][8];
    UNROLL
    for (int k = 0; k < NV; k++)
        UNROLL
        for (int e = 0; e < 8; e++) dw[k][e] = db[k][e] = 0.0f;
    for (int64_t r = blockIdx.x * (int64_t)nw + warp; r < N; r += (int64_t)gridDim.x * nw) {
        float gv[NV][8], xv[NV][8], ov[NV][8];
        UNROLL
        for (int k = 0; k < NV; k++) { /* every load of the row in flight at once */
            int j = lane + 32 * k;
            if (j < C8) {
                ld8(gv[k], g + r * C + 8 * j), ld8(xv[k], in + r * C + 8 * j);
                if (gin) ld8(ov[k], gin + r * C + 8 * j);
            } else {
                UNROLL
                for (int e = 0; e < 8; e++) gv[k][e] = xv[k][e] = 0.0f;
            }
        }
        const float m = mean[r], s = rstd[r];
        float a = 0.0f, bs = 0.0f;
        UNROLL
        for (int k = 0; k < NV; k++) {
            int j = lane + 32 * k;
            if (j >= C8) continue;
            float wv[8];
            ld8(wv, w + 8 * j);
            UNROLL
            for (int e = 0; e < 8; e++) {
                float xh = (xv[k][e] - m) * s, dxh = gv[k][e] * wv[e];
                a += dxh, bs += dxh * xh;
                dw[k][e] += gv[k][e] * xh, db[k][e] += gv[k][e];
                xv[k][e] = xh, gv[k][e] = dxh; /* keep xhat and g w for the input gradient */
            }
        }
        a = warp_sum(a) / (float)C, bs = warp_sum(bs) / (float)C;
        if (gin)
            UNROLL
            for (int k = 0; k < NV; k++) {
                int j = lane + 32 * k;
                if (j >= C8) continue;
                UNROLL
                for (int e = 0; e < 8; e++) ov[k][e] += s * (gv[k][e] - a - xv[k][e] * bs);
                st8(gin + r * C + 8 * j, ov[k]);
            }
    }
    if (!pw) return; /* uniform across the block */
    for (int q = 0; q < nw; q++) {
        if (warp == q)
            UNROLL
            for (int k = 0; k < NV; k++) {
                int j = lane + 32 * k;
                if (j >= C8) continue;
                UNROLL
                for (int e = 0; e < 8; e++) {
                    sw[8 * j + e] = (q ? sw[8 * j + e] : 0.0f) + dw[k][e];
                    sb[8 * j + e] = (q ? sb[8 * j + e] : 0.0f) + db[k][e];
                }
            }
        __syncthreads();
    }
    for (int c = threadIdx.x; c < C; c += blockDim.x) pw[blockIdx.x * (int64_t)C + c] = sw[c], pb[blockIdx.x * (int64_t)C + c] = sb[c];
}


/* The same for any C (not a multiple of 8, or wider than 1024): one warp per block, so that each
 * column's sums belong to one lane and live in shared memory (2 C floats, dynamic). */
template <typename T>
__global__ void __launch_bounds__(32) k_layernorm_backward_any(T *gin, float *pw, float *pb, const T *g, const T *in,
                                                               const T *w, const float *mean, const float *rstd,
                                                               int64_t N, int64_t C) {
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
    if (pw)
        for (int64_t c = lane; c < C; c += 32) pw[blockIdx.x * C + c] = sw[c], pb[blockIdx.x * C + c] = sb[c];
}
/* gw += the chunks' sums of pw, gb += those of pb: block (32, 16), 32 columns, lane y adds chunks
 * y, y + 16, ... (loads unrolled), then lane 0 adds the 16 lanes in order (deterministic). Round 1
 * had one thread per column walking ~400 chunks one load at a time (3 blocks at C = 768, 15.7 us). */
template <typename T>
__global__ void __launch_bounds__(512) k_ln_w_final(T *gw, T *gb, const float *pw, const float *pb, int chunks, int64_t C) {
    __shared__ float sw[16][33], sb[16][33];
    const int64_t c = blockIdx.x * (int64_t)32 + threadIdx.x;
    float tw = 0.0f, tb = 0.0f;
    if (c < C) {
        UNROLL4
        for (int k = threadIdx.y; k < chunks; k += 16) tw += pw[k * C + c], tb += pb[k * C + c];
    }
    sw[threadIdx.y][threadIdx.x] = tw, sb[threadIdx.y][threadIdx.x] = tb;
    __syncthreads();
    if (threadIdx.y == 0 && c < C) {
        tw = tb = 0.0f;
        UNROLL
        for (int k = 0; k < 16; k++) tw += sw[k][threadIdx.x], tb += sb[k][threadIdx.x];
        if (gw) st(gw + c, ld(gw + c) + tw);
        if (gb) st(gb + c, ld(gb + c) + tb);
    }
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

/* Two kernels whatever is wanted (one when only gin): the fused pass (gin and each block's column
 * sums for gw, gb) and k_ln_w_final, which adds the blocks' sums into gw and gb. */
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
    /* vec: 4 warps a block, ~8 rows per warp, 3 blocks per SM (at C = 768); any: one warp a block,
     * 2 C floats of shared memory */
    int64_t chunks = nv ? (N + 31) / 32 : N, cap = nv ? 3 * (int64_t)im->num_sms : 256;
    if (chunks > cap) chunks = cap;
    if (chunks < 1) chunks = 1;
    if (!nv && 2 * C * sizeof(float) > 48 * 1024) {
        fprintf(stderr, "cuda layernorm_backward: width %lld is over 6144\n", (long long)C);
        return WB_FAIL;
    }
    float *pw = NULL, *pb = NULL;
    if (gw || gb) {
        WB_TRY(scratch_reserve(im, (size_t)2 * chunks * (size_t)C));
        pw = im->scratch, pb = im->scratch + (size_t)chunks * C;
    }
    void *gi = gin ? gin->data : NULL;
    if (nv && bf)
        LAUNCH_NV(nv, k_layernorm_backward_vec, bf16, (unsigned)chunks, 128, 0, BF(gi), pw, pb, BF(g->data), BF(in->data),
                  BF(w->data), mp, rp, N, (int)C);
    else if (nv)
        LAUNCH_NV(nv, k_layernorm_backward_vec, float, (unsigned)chunks, 128, 0, FL(gi), pw, pb, FL(g->data), FL(in->data),
                  FL(w->data), mp, rp, N, (int)C);
    else {
        size_t smem = 2 * (size_t)C * sizeof(float);
        if (bf) KLAUNCH(k_layernorm_backward_any<bf16>, (unsigned)chunks, 32, smem, BF(gi), pw, pb, BF(g->data), BF(in->data), BF(w->data), mp, rp, N, C);
        else KLAUNCH(k_layernorm_backward_any<float>, (unsigned)chunks, 32, smem, FL(gi), pw, pb, FL(g->data), FL(in->data), FL(w->data), mp, rp, N, C);
        CUDA_CHECK_LAUNCH();
    }
    if (gw || gb) {
        unsigned fin = blocks_for(C, 32);
        dim3 fblock(32, 16);
        if (bf) KLAUNCH(k_ln_w_final<bf16>, fin, fblock, 0, gw ? BF(gw->data) : NULL, gb ? BF(gb->data) : NULL, pw, pb, (int)chunks, C);
        else KLAUNCH(k_ln_w_final<float>, fin, fblock, 0, gw ? FL(gw->data) : NULL, gb ? FL(gb->data) : NULL, pw, pb, (int)chunks, C);
        CUDA_CHECK_LAUNCH();
    }
    return WB_OK;
}
