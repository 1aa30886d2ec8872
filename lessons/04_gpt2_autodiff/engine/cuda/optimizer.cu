/*
 * optimizer.cu: AdamW over the flat parameter block, one kernel, the clipping factor read from
 * the device-side gradient norm (reduce.cu computes it).
 */
#include "cuda_common.cuh"

/* ---------------------------------------------------------------------------------------------
 * AdamW over the flat block: one kernel, clipping read from the device-side norm
 * ------------------------------------------------------------------------------------------ */
template <typename T>
__global__ void k_adamw(T *params, const T *grads, float *master, float *m, float *v, const float *norm_sq,
                        int64_t n, int64_t n_decay, float lr, float b1, float b2, float eps, float wd, float clip,
                        float bc1, float bc2) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float scale = 1.0f;
    if (clip > 0.0f) {
        float norm = sqrtf(*norm_sq);
        if (norm > 0.0f) scale = fminf(1.0f, clip / (norm + 1e-6f));
    }
    float g = ld(grads + i) * scale;
    float mi = b1 * m[i] + (1.0f - b1) * g;
    float vi = b2 * v[i] + (1.0f - b2) * g * g;
    m[i] = mi;
    v[i] = vi;
    float w = master ? master[i] : ld(params + i);
    w *= 1.0f - lr * (i < n_decay ? wd : 0.0f);
    w -= lr * (mi / bc1) / (sqrtf(vi / bc2) + eps);
    if (master) master[i] = w;
    st(params + i, w);
}

/* The same, four parameters a thread: 16-byte accesses to master, m and v (and f32 params), 8-byte
 * to bf16 params and grads (the host checks the alignment; a partial last group goes one by one).
 * 28 bytes per bf16 parameter: 3.48 GB at GPT-2 124M, 840 us at copy bandwidth; round 1's one
 * parameter a thread took 1021. */
template <typename T>
struct alignas(4 * sizeof(T)) pack4 {
    T v[4];
};
template <typename T>
__global__ void __launch_bounds__(256) k_adamw_vec4(T *params, const T *grads, float *master, float *m, float *v,
                                                    const float *norm_sq, int64_t n, int64_t n_decay, float lr, float b1,
                                                    float b2, float eps, float wd, float clip, float bc1, float bc2) {
    const int64_t i0 = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) * 4;
    if (i0 >= n) return;
    float scale = 1.0f;
    if (clip > 0.0f) {
        float norm = sqrtf(*norm_sq);
        if (norm > 0.0f) scale = fminf(1.0f, clip / (norm + 1e-6f));
    }
    if (i0 + 4 <= n) {
        pack4<T> g = *(const pack4<T> *)(grads + i0), p;
        pack4<float> mm = *(const pack4<float> *)(m + i0), vv = *(const pack4<float> *)(v + i0), w;
        if (master) w = *(const pack4<float> *)(master + i0);
        else p = *(const pack4<T> *)(params + i0);
        UNROLL
        for (int k = 0; k < 4; k++) {
            float gk = ld(&g.v[k]) * scale;
            float mi = b1 * mm.v[k] + (1.0f - b1) * gk, vi = b2 * vv.v[k] + (1.0f - b2) * gk * gk;
            mm.v[k] = mi, vv.v[k] = vi;
            float wk = master ? w.v[k] : ld(&p.v[k]);
            wk *= 1.0f - lr * (i0 + k < n_decay ? wd : 0.0f);
            wk -= lr * (mi / bc1) / (sqrtf(vi / bc2) + eps); /* as k_adamw, to the bit */
            w.v[k] = wk;
            st(&p.v[k], wk);
        }
        *(pack4<float> *)(m + i0) = mm, *(pack4<float> *)(v + i0) = vv;
        if (master) *(pack4<float> *)(master + i0) = w;
        *(pack4<T> *)(params + i0) = p;
        return;
    }
    for (int64_t i = i0; i < n; i++) {
        float g = ld(grads + i) * scale;
        float mi = b1 * m[i] + (1.0f - b1) * g, vi = b2 * v[i] + (1.0f - b2) * g * g;
        m[i] = mi, v[i] = vi;
        float w = master ? master[i] : ld(params + i);
        w *= 1.0f - lr * (i < n_decay ? wd : 0.0f);
        w -= lr * (mi / bc1) / (sqrtf(vi / bc2) + eps);
        if (master) master[i] = w;
        st(params + i, w);
    }
}
/* ---------------------------------------------------------------------------------------------
 * launchers
 * ------------------------------------------------------------------------------------------ */
int cuda_adamw(wb_backend *be, const wb_adamw_args *a) {
    float bc1 = (float)(1.0 - pow(a->beta1, a->t)), bc2 = (float)(1.0 - pow(a->beta2, a->t));
    unsigned grid = blocks_for(a->n, 256);
    size_t es = a->dtype == WB_BF16 ? 2 : 4;
    /* four parameters a thread where every array is aligned to four elements */
    int vec = (uintptr_t)a->params % (4 * es) == 0 && (uintptr_t)a->grads % (4 * es) == 0 &&
              (uintptr_t)a->m % 16 == 0 && (uintptr_t)a->v % 16 == 0 && (!a->master || (uintptr_t)a->master % 16 == 0);
    if (vec && (a->dtype == WB_BF16 || a->dtype == WB_F32)) {
        if (a->dtype == WB_BF16 && !a->master) {
            fprintf(stderr, "cuda adamw: bf16 parameters need an f32 master copy\n");
            return WB_FAIL;
        }
        unsigned g4 = blocks_for((a->n + 3) / 4, 256);
        if (a->dtype == WB_BF16)
            KLAUNCH(k_adamw_vec4<bf16>, g4, 256, 0, BF(a->params), (const bf16 *)a->grads, a->master, FL(a->m), FL(a->v),
                    (const float *)a->norm_sq, a->n, a->n_decay, a->lr, a->beta1, a->beta2, a->eps, a->weight_decay,
                    a->grad_clip, bc1, bc2);
        else
            KLAUNCH(k_adamw_vec4<float>, g4, 256, 0, FL(a->params), (const float *)a->grads, NULL, FL(a->m), FL(a->v),
                    (const float *)a->norm_sq, a->n, a->n_decay, a->lr, a->beta1, a->beta2, a->eps, a->weight_decay,
                    a->grad_clip, bc1, bc2);
        CUDA_CHECK_LAUNCH();
        return WB_OK;
    }
    if (a->dtype == WB_BF16) {
        if (!a->master) {
            fprintf(stderr, "cuda adamw: bf16 parameters need an f32 master copy\n");
            return WB_FAIL;
        }
        KLAUNCH(k_adamw<bf16>, grid, 256, 0, BF(a->params), (const bf16 *)a->grads, a->master, FL(a->m), FL(a->v),
                                     (const float *)a->norm_sq, a->n, a->n_decay, a->lr, a->beta1, a->beta2, a->eps,
                                     a->weight_decay, a->grad_clip, bc1, bc2);
    } else if (a->dtype == WB_F32) {
        KLAUNCH(k_adamw<float>, grid, 256, 0, FL(a->params), (const float *)a->grads, NULL, FL(a->m), FL(a->v),
                                      (const float *)a->norm_sq, a->n, a->n_decay, a->lr, a->beta1, a->beta2, a->eps,
                                      a->weight_decay, a->grad_clip, bc1, bc2);
    } else {
        return bad_dtype("adamw", a->dtype);
    }
    CUDA_CHECK_LAUNCH();
    return WB_OK;
}
