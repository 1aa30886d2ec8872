/*
 * softmax.cu: softmax along rows (causal or not) and its pullback, and the cross-entropy of the
 * logits: per-row log-sum-exp, the mean loss, and the logits' gradient (the softmax recomputed from
 * the saved log-sum-exp, never stored).
 */
#include "cuda_common.cuh"

/* ---------------------------------------------------------------------------------------------
 * row kernels: one warp per row (rows of contiguous memory)
 * ------------------------------------------------------------------------------------------ */
template <typename T>
__global__ void k_softmax(T *out, const T *in, int64_t R, int64_t C, int64_t Tn, float scale, int causal) {
    int64_t r = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (r >= R) return;
    const T *x = in + r * C;
    T *y = out + r * C;
    int64_t lim = causal ? (r % Tn) + 1 : C;
    float mx = -INFINITY;
    for (int64_t j = lane; j < lim; j += 32) mx = fmaxf(mx, scale * ld(x + j));
    mx = warp_max(mx);
    float s = 0.0f;
    for (int64_t j = lane; j < lim; j += 32) s += expf(scale * ld(x + j) - mx);
    s = warp_sum(s);
    float inv = 1.0f / s;
    for (int64_t j = lane; j < C; j += 32) st(y + j, j < lim ? expf(scale * ld(x + j) - mx) * inv : 0.0f);
}

template <typename T>
__global__ void k_softmax_backward(T *gin, const T *g, const T *y, int64_t R, int64_t C, float scale) {
    int64_t r = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (r >= R) return;
    g += r * C, y += r * C, gin += r * C;
    float dot = 0.0f;
    for (int64_t j = lane; j < C; j += 32) dot += ld(g + j) * ld(y + j);
    dot = warp_sum(dot);
    for (int64_t j = lane; j < C; j += 32) st(gin + j, ld(gin + j) + scale * ld(y + j) * (ld(g + j) - dot));
}


/* softmax along rows with the row in registers (C <= 256 NV): the causal rows read only their first
 * lim = (row mod T) + 1 columns and write zeros past them without reading */
template <typename T, int NV>
__global__ void __launch_bounds__(256) k_softmax_vec(T *__restrict__ out, const T *__restrict__ in, int64_t R, int C,
                                                     int64_t Tn, float scale, int causal) {
    int64_t r = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32, C8 = C / 8;
    if (r >= R) return;
    const int lim = causal ? (int)(r % Tn) + 1 : C;
    const T *x = in + r * C;
    float v[NV][8], mx = -INFINITY;
    UNROLL
    for (int k = 0; k < NV; k++) {
        int j = lane + 32 * k;
        if (j < C8 && 8 * j < lim) ld8(v[k], x + 8 * j);
        UNROLL
        for (int e = 0; e < 8; e++) {
            v[k][e] = j < C8 && 8 * j + e < lim ? v[k][e] * scale : -INFINITY;
            mx = fmaxf(mx, v[k][e]);
        }
    }
    mx = warp_max(mx);
    float s = 0.0f;
    UNROLL
    for (int k = 0; k < NV; k++)
        UNROLL
        for (int e = 0; e < 8; e++) s += (v[k][e] = __expf(v[k][e] - mx)); /* exp(-inf) = 0 */
    float inv = 1.0f / warp_sum(s);
    UNROLL
    for (int k = 0; k < NV; k++) {
        int j = lane + 32 * k;
        if (j >= C8) continue;
        UNROLL
        for (int e = 0; e < 8; e++) v[k][e] *= inv;
        st8(out + r * C + 8 * j, v[k]);
    }
}

/* gin += scale y (g - sum(g y)), row in registers. Where a whole 8-element vector of y is zero (the
 * masked part of a causal softmax: half of every (T, T) row block), g is not read and gin is not
 * touched: its update is scale * 0 * (g - dot) = 0 for any finite g. */
template <typename T, int NV>
__global__ void __launch_bounds__(256) k_softmax_backward_vec(T *__restrict__ gin, const T *__restrict__ g,
                                                              const T *__restrict__ y, int64_t R, int C, float scale) {
    int64_t r = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32, C8 = C / 8;
    if (r >= R) return;
    float yv[NV][8], gv[NV][8], ov[NV][8];
    bool nz[NV];
    UNROLL
    for (int k = 0; k < NV; k++) {
        int j = lane + 32 * k;
        nz[k] = false;
        if (j < C8) {
            ld8(yv[k], y + r * C + 8 * j);
            UNROLL
            for (int e = 0; e < 8; e++) nz[k] = nz[k] || yv[k][e] != 0.0f;
        }
    }
    float dot = 0.0f;
    UNROLL
    for (int k = 0; k < NV; k++) {
        int j = lane + 32 * k;
        if (!nz[k]) continue;
        ld8(gv[k], g + r * C + 8 * j), ld8(ov[k], gin + r * C + 8 * j);
        UNROLL
        for (int e = 0; e < 8; e++) dot += gv[k][e] * yv[k][e];
    }
    dot = warp_sum(dot);
    UNROLL
    for (int k = 0; k < NV; k++) {
        if (!nz[k]) continue;
        UNROLL
        for (int e = 0; e < 8; e++) ov[k][e] += scale * yv[k][e] * (gv[k][e] - dot);
        st8(gin + r * C + 8 * (lane + 32 * k), ov[k]);
    }
}

/* (m, s) of a log-sum-exp merged with (m2, s2): sum over both of exp(x - m), m the larger max */
__device__ __forceinline__ void lse_merge(float &m, float &s, float m2, float s2) {
    if (m2 == -INFINITY) return;
    if (m == -INFINITY) {
        m = m2, s = s2;
        return;
    }
    float mn = fmaxf(m, m2);
    s = s * __expf(m - mn) + s2 * __expf(m2 - mn);
    m = mn;
}

/* The log-sum-exp of one row's first V logits, returned to every thread of the block, in one pass:
 * a running max and a sum rescaled when the max grows, per thread, then merged across the block.
 * vec: 16-byte loads, four vectors (32 logits) per thread per iteration, all four loads issued
 * before any use, one rescale per 32 logits, and the exponentials as exp2 of one FFMA (log2 units
 * inside the loop). The row is read from its end to its start, so that a second pass from the
 * start (k_ce_fused) meets the logits read last first: they are still in L2. */
template <typename T>
__device__ float row_lse(const T *__restrict__ l, int64_t V, int vec) {
    __shared__ float sm[32], ss[32], result;
    const int64_t bd = blockDim.x, tid = threadIdx.x;
    float m = -INFINITY, s = 0.0f;
    if (vec) {
        const float L2E = 1.4426950408889634f;
        const int64_t nfull = V / 8; /* whole vectors; a last partial one (V % 8 logits) follows them */
        float m2 = -INFINITY;        /* running max, log2 units; s is the sum of exp2(x L2E - m2) */
        auto add = [&](const float *x, int n) { /* n logits of one vector (8, or the partial vector's) */
            float mx = -INFINITY;
            UNROLL
            for (int e = 0; e < 8; e++)
                if (e < n) mx = fmaxf(mx, x[e]);
            const float mn = fmaxf(m2, mx * L2E);
            if (mn == -INFINITY) return; /* every logit so far is -inf */
            s = m2 == -INFINITY ? 0.0f : s * exp2f(m2 - mn);
            UNROLL
            for (int e = 0; e < 8; e++)
                if (e < n) s += exp2f(fmaf(x[e], L2E, -mn));
            m2 = mn;
        };
        if (tid == 0 && V % 8) { /* the partial vector at the end of the row */
            float x[8];
            ld8(x, l + 8 * nfull);
            add(x, (int)(V % 8));
        }
        int64_t i = tid; /* the i-th whole vector from the end: nfull - 1 - i */
        for (; i + 3 * bd < nfull; i += 4 * bd) {
            float x[4][8];
            UNROLL
            for (int q = 0; q < 4; q++) ld8(x[q], l + 8 * (nfull - 1 - (i + q * bd)));
            float mx = -INFINITY;
            UNROLL
            for (int q = 0; q < 4; q++)
                UNROLL
                for (int e = 0; e < 8; e++) mx = fmaxf(mx, x[q][e]);
            const float mn = fmaxf(m2, mx * L2E);
            if (mn == -INFINITY) continue;
            s = m2 == -INFINITY ? 0.0f : s * exp2f(m2 - mn);
            UNROLL
            for (int q = 0; q < 4; q++)
                UNROLL
                for (int e = 0; e < 8; e++) s += exp2f(fmaf(x[q][e], L2E, -mn));
            m2 = mn;
        }
        for (; i < nfull; i += bd) { /* the rest (the row's first vectors), one vector at a time */
            float x[8];
            ld8(x, l + 8 * (nfull - 1 - i));
            add(x, 8);
        }
        m = m2 == -INFINITY ? -INFINITY : m2 * (1.0f / L2E); /* natural units for the merge */
    } else {
        for (int64_t j = V - 1 - tid; j >= 0; j -= bd) {
            float x = ld(l + j), mn = fmaxf(m, x);
            s = (m == -INFINITY ? 0.0f : s * __expf(m - mn)) + __expf(x - mn);
            m = mn;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, o), s2 = __shfl_xor_sync(0xffffffffu, s, o);
        lse_merge(m, s, m2, s2);
    }
    int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    if (lane == 0) sm[w] = m, ss[w] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int k = 1; k < (int)blockDim.x / 32; k++) lse_merge(m, s, sm[k], ss[k]);
        result = m + logf(s);
    }
    __syncthreads();
    return result;
}

/* One block per row: lse = log-sum-exp over the real vocabulary (padding columns skipped). The
 * [16384, 50304] logits are 1.65 GB, read once: 398 us at copy bandwidth (measured 386). */
template <typename T>
__global__ void __launch_bounds__(256) k_ce_lse(float *lse, const T *logits, int64_t Vp, int64_t V, int vec) {
    float z = row_lse(logits + blockIdx.x * Vp, V, vec);
    if (threadIdx.x == 0) lse[blockIdx.x] = z;
}

/* 16-byte accesses marked streaming (evict first: the logits' last use, a gradient that the next
 * kernel reads from DRAM anyway), so that they do not push other rows' logits out of L2 */
template <typename T>
__device__ __forceinline__ void ld8_last(float *f, const T *p) {
    pack8<T> q;
    UNROLL
    for (int i = 0; i < (int)(sizeof q / 16); i++) ((uint4 *)&q)[i] = __ldcs((const uint4 *)p + i);
    UNROLL
    for (int k = 0; k < 8; k++) f[k] = ld(&q.v[k]);
}
template <typename T>
__device__ __forceinline__ void st8_stream(T *p, const float *f) {
    pack8<T> q;
    UNROLL
    for (int k = 0; k < 8; k++) st(&q.v[k], f[k]);
    UNROLL
    for (int i = 0; i < (int)(sizeof q / 16); i++) __stcs((uint4 *)p + i, ((const uint4 *)&q)[i]);
}

/* The fused classifier, for a training step whose backward starts at this loss with gradient 1:
 * one block per row computes the row's log-sum-exp (row_lse, from DRAM), then at once stores
 * glogits = (softmax - onehot) / N, 0 in the padding columns, re-reading the row from L2 (the
 * engine's pullback then launches nothing). 1.65 GB read + 1.65 GB written: 0.80 ms at copy
 * bandwidth; measured 1,024 us on the H200 (bench_ce) against 376 + 821 for k_ce_lse and
 * k_ce_backward, which read the logits twice. CE_FUSED_THREADS threads a row and no shared memory
 * beyond the reduction's: 2 rows per SM (62 registers), one row's loads beside another's reduction
 * and stores, 26.6 MB of rows in flight inside the 60 MB L2 (52% of L2 reads hit: the second pass
 * almost always). It is latency-bound, not bandwidth-bound (DRAM 58% busy); 256 threads with 3 or
 * 4 rows per SM, 1024 with 1, raw bf16 registers, 8 vectors in flight and the row in shared memory
 * all measured slower (docs/performance-history.md). The gradient is k_ce_backward's arithmetic with
 * gloss = 1, to the bit. */
#define CE_FUSED_THREADS 512
template <typename T>
__global__ void __launch_bounds__(1024) k_ce_fused(T *__restrict__ gl, float *__restrict__ lse,
                                                   const T *__restrict__ logits, const int32_t *t, int64_t N,
                                                   int64_t Vp, int64_t V, int vec) {
    const int64_t r = blockIdx.x, bd = blockDim.x, tid = threadIdx.x;
    const T *l = logits + r * Vp;
    T *o = gl + r * Vp;
    const float z = row_lse(l, V, vec), k = 1.0f / (float)N;
    if (tid == 0) lse[r] = z;
    const int64_t tr = t[r];
    if (vec) {
        /* vector j's gradient; the one holding the target subtracts the onehot, padding is 0 */
        auto grad8 = [&](float *x, int64_t j) {
            if (8 * j + 8 <= V && (uint64_t)(tr - 8 * j) >= 8) {
                UNROLL
                for (int e = 0; e < 8; e++) x[e] = k * __expf(x[e] - z);
            } else {
                UNROLL
                for (int e = 0; e < 8; e++) {
                    int64_t c = 8 * j + e;
                    x[e] = c < V ? k * (__expf(x[e] - z) - (c == tr ? 1.0f : 0.0f)) : 0.0f;
                }
            }
        };
        const int64_t nv = Vp / 8;
        int64_t j = tid;
        for (; j + 3 * bd < nv; j += 4 * bd) {
            float x[4][8];
            UNROLL
            for (int q = 0; q < 4; q++) ld8_last(x[q], l + 8 * (j + q * bd));
            UNROLL
            for (int q = 0; q < 4; q++) {
                grad8(x[q], j + q * bd);
                st8_stream(o + 8 * (j + q * bd), x[q]);
            }
        }
        for (; j < nv; j += bd) {
            float x[8];
            ld8_last(x, l + 8 * j);
            grad8(x, j);
            st8_stream(o + 8 * j, x);
        }
    } else {
        for (int64_t j = tid; j < Vp; j += bd)
            st(o + j, j < V ? k * (__expf(ld(l + j) - z) - (j == tr ? 1.0f : 0.0f)) : 0.0f);
    }
}

/* one block: loss = mean over rows of lse - logit[target] */
template <typename T>
__global__ void k_ce_mean(float *loss, const float *lse, const T *logits, const int32_t *t, int64_t N, int64_t Vp) {
    float s = 0.0f;
    for (int64_t r = threadIdx.x; r < N; r += blockDim.x) s += lse[r] - ld(logits + r * Vp + t[r]);
    s = block_reduce<false>(s);
    if (threadIdx.x == 0) *loss = s / (float)N;
}

/* glogits (+)= gloss / N * (softmax - onehot): the softmax is recomputed from lse, never stored.
 * One block per row, 16-byte accesses when vec. Storing (acc = 0, the first write of this
 * gradient, engine.h) it writes the padding columns' zeros too and never reads the old gradient:
 * the logits read and their gradient written, 3.3 GB at GPT-2 124M, B = 16, T = 1024 (4.95 GB
 * when accumulating, where a first write would also need a 1.65 GB memset to zero it). */
template <typename T>
__global__ void __launch_bounds__(256) k_ce_backward(T *__restrict__ gl, const float *gloss, const float *lse,
                                                     const T *__restrict__ logits, const int32_t *t, int64_t N,
                                                     int64_t Vp, int64_t V, int vec, int acc) {
    const int64_t r = blockIdx.x;
    const float k = *gloss / (float)N, z = lse[r];
    const int64_t tr = t[r], W = acc ? V : Vp; /* columns written */
    const T *l = logits + r * Vp;
    T *o = gl + r * Vp;
    if (vec) {
        for (int64_t j = threadIdx.x; j * 8 < W; j += blockDim.x) {
            float x[8], go[8];
            ld8(x, l + 8 * j);
            if (acc) ld8(go, o + 8 * j);
            UNROLL
            for (int e = 0; e < 8; e++) {
                int64_t c = 8 * j + e;
                float d = c < V ? k * (__expf(x[e] - z) - (c == tr ? 1.0f : 0.0f)) : 0.0f;
                go[e] = acc ? go[e] + d : d;
            }
            st8(o + 8 * j, go);
        }
    } else {
        for (int64_t j = threadIdx.x; j < W; j += blockDim.x) {
            float d = j < V ? k * (__expf(ld(l + j) - z) - (j == tr ? 1.0f : 0.0f)) : 0.0f;
            st(o + j, acc ? ld(o + j) + d : d);
        }
    }
}
/* ---------------------------------------------------------------------------------------------
 * launchers
 * ------------------------------------------------------------------------------------------ */
int cuda_softmax(wb_backend *be, const wb_tensor *out, const wb_tensor *in, double scale, int causal) {
    if (!rows_contig("softmax", in) || !rows_contig("softmax", out)) return WB_FAIL;
    int64_t C = in->shape[in->ndim - 1], R = wb_numel(in) / C, Tn = in->ndim >= 2 ? in->shape[in->ndim - 2] : 1;
    unsigned grid = blocks_for(R, 8); /* 8 warps (rows) per block */
    const wb_tensor *ts[2] = {out, in};
    int nv = row_nv(C, ts, 2);
    if (nv && in->dtype == WB_BF16) {
        LAUNCH_NV(nv, k_softmax_vec, bf16, grid, 256, 0, BF(out->data), BF(in->data), R, (int)C, Tn, (float)scale, causal);
        return WB_OK;
    }
    if (nv && in->dtype == WB_F32) {
        LAUNCH_NV(nv, k_softmax_vec, float, grid, 256, 0, FL(out->data), FL(in->data), R, (int)C, Tn, (float)scale, causal);
        return WB_OK;
    }
    if (in->dtype == WB_BF16) KLAUNCH(k_softmax<bf16>, grid, 256, 0, BF(out->data), BF(in->data), R, C, Tn, (float)scale, causal);
    else if (in->dtype == WB_F32) KLAUNCH(k_softmax<float>, grid, 256, 0, FL(out->data), FL(in->data), R, C, Tn, (float)scale, causal);
    else return bad_dtype("softmax", in->dtype);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

int cuda_softmax_backward(wb_backend *be, const wb_tensor *gin, const wb_tensor *g, const wb_tensor *y, double scale) {
    if (!rows_contig("softmax_backward", gin) || !rows_contig("softmax_backward", g) || !rows_contig("softmax_backward", y))
        return WB_FAIL;
    int64_t C = y->shape[y->ndim - 1], R = wb_numel(y) / C;
    unsigned grid = blocks_for(R, 8);
    const wb_tensor *ts[3] = {gin, g, y};
    int nv = row_nv(C, ts, 3);
    if (nv && y->dtype == WB_BF16) {
        LAUNCH_NV(nv, k_softmax_backward_vec, bf16, grid, 256, 0, BF(gin->data), BF(g->data), BF(y->data), R, (int)C, (float)scale);
        return WB_OK;
    }
    if (nv && y->dtype == WB_F32) {
        LAUNCH_NV(nv, k_softmax_backward_vec, float, grid, 256, 0, FL(gin->data), FL(g->data), FL(y->data), R, (int)C, (float)scale);
        return WB_OK;
    }
    if (y->dtype == WB_BF16) KLAUNCH(k_softmax_backward<bf16>, grid, 256, 0, BF(gin->data), BF(g->data), BF(y->data), R, C, (float)scale);
    else if (y->dtype == WB_F32) KLAUNCH(k_softmax_backward<float>, grid, 256, 0, FL(gin->data), FL(g->data), FL(y->data), R, C, (float)scale);
    else return bad_dtype("softmax_backward", y->dtype);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}
/* loss = the mean over rows of lse - logit[target]: k_ce_mean, one block */
static int ce_mean(wb_backend *be, const wb_tensor *loss, const wb_tensor *lse, const wb_tensor *logits,
                   const int32_t *t) {
    int64_t N = logits->shape[0], Vp = logits->shape[1];
    if (logits->dtype == WB_BF16) KLAUNCH(k_ce_mean<bf16>, 1, 1024, 0, FL(loss->data), FL(lse->data), BF(logits->data), t, N, Vp);
    else KLAUNCH(k_ce_mean<float>, 1, 1024, 0, FL(loss->data), FL(lse->data), FL(logits->data), t, N, Vp);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}

int cuda_cross_entropy(wb_backend *be, const wb_tensor *loss, const wb_tensor *lse, const wb_tensor *logits,
                              const wb_tensor *targets, int64_t vocab) {
    int64_t N = logits->shape[0], Vp = logits->shape[1];
    int vec = Vp % 8 == 0 && (uintptr_t)logits->data % 16 == 0; /* every row 16-byte aligned */
    if (logits->dtype == WB_BF16) KLAUNCH(k_ce_lse<bf16>, (unsigned)N, 256, 0, FL(lse->data), BF(logits->data), Vp, vocab, vec);
    else if (logits->dtype == WB_F32) KLAUNCH(k_ce_lse<float>, (unsigned)N, 256, 0, FL(lse->data), FL(logits->data), Vp, vocab, vec);
    else return bad_dtype("cross_entropy", logits->dtype);
    CUDA_CHECK_LAUNCH();
    return ce_mean(be, loss, lse, logits, (const int32_t *)targets->data);
}

int cuda_cross_entropy_fused(wb_backend *be, const wb_tensor *loss, const wb_tensor *lse, const wb_tensor *gl,
                             const wb_tensor *logits, const wb_tensor *targets, int64_t vocab) {
    int64_t N = logits->shape[0], Vp = logits->shape[1];
    const int32_t *t = (const int32_t *)targets->data;
    int vec = Vp % 8 == 0 && (uintptr_t)logits->data % 16 == 0 && (uintptr_t)gl->data % 16 == 0;
    if (logits->dtype == WB_BF16)
        KLAUNCH(k_ce_fused<bf16>, (unsigned)N, CE_FUSED_THREADS, 0, BF(gl->data), FL(lse->data), BF(logits->data), t, N, Vp, vocab, vec);
    else if (logits->dtype == WB_F32)
        KLAUNCH(k_ce_fused<float>, (unsigned)N, CE_FUSED_THREADS, 0, FL(gl->data), FL(lse->data), FL(logits->data), t, N, Vp, vocab, vec);
    else return bad_dtype("cross_entropy_fused", logits->dtype);
    CUDA_CHECK_LAUNCH();
    return ce_mean(be, loss, lse, logits, t);
}

int cuda_cross_entropy_backward(wb_backend *be, const wb_tensor *gl, const wb_tensor *gloss, const wb_tensor *lse,
                                const wb_tensor *logits, const wb_tensor *targets, int64_t vocab, int acc) {
    int64_t N = logits->shape[0], Vp = logits->shape[1];
    const int32_t *t = (const int32_t *)targets->data;
    int vec = Vp % 8 == 0 && (uintptr_t)logits->data % 16 == 0 && (uintptr_t)gl->data % 16 == 0;
    if (logits->dtype == WB_BF16)
        KLAUNCH(k_ce_backward<bf16>, (unsigned)N, 256, 0, BF(gl->data), FL(gloss->data), FL(lse->data), BF(logits->data), t, N, Vp, vocab, vec, acc);
    else if (logits->dtype == WB_F32)
        KLAUNCH(k_ce_backward<float>, (unsigned)N, 256, 0, FL(gl->data), FL(gloss->data), FL(lse->data), FL(logits->data), t, N, Vp, vocab, vec, acc);
    else return bad_dtype("cross_entropy_backward", logits->dtype);
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}
