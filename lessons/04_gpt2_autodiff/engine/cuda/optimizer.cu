/*
 * optimizer.cu: AdamW over the flat parameter block, one kernel, the clipping factor read from
 * the device-side gradient norm (reduce.cu computes it). The kernel takes its arguments as one
 * struct, so that a captured training step (backend_cuda.cu's graph functions) can be replayed
 * with each step's learning rate and bias corrections: cuda_adamw_update_node rewrites that one
 * argument of the graph's AdamW node.
 */
#include "cuda_common.cuh"

struct AdamwStep {
    void *params;
    const void *grads;
    float *master, *m, *v; /* master: f32 copy of bf16 parameters, else NULL */
    const float *norm_sq;
    int64_t n, n_decay;
    float lr, b1, b2, eps, wd, clip, bc1, bc2;
};

__device__ __forceinline__ float adamw_clip_scale(const AdamwStep &a) {
    if (a.clip <= 0.0f) return 1.0f;
    float norm = sqrtf(*a.norm_sq);
    return norm > 0.0f ? fminf(1.0f, a.clip / (norm + 1e-6f)) : 1.0f;
}

/* one parameter: the update of element i (w, m, v in f32) */
__device__ __forceinline__ float adamw_update(const AdamwStep &a, int64_t i, float g, float w, float &m, float &v) {
    m = a.b1 * m + (1.0f - a.b1) * g;
    v = a.b2 * v + (1.0f - a.b2) * g * g;
    w *= 1.0f - a.lr * (i < a.n_decay ? a.wd : 0.0f);
    return w - a.lr * (m / a.bc1) / (sqrtf(v / a.bc2) + a.eps);
}

template <typename T>
__global__ void k_adamw(AdamwStep a) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= a.n) return;
    T *params = (T *)a.params;
    float g = ld((const T *)a.grads + i) * adamw_clip_scale(a), m = a.m[i], v = a.v[i];
    float w = adamw_update(a, i, g, a.master ? a.master[i] : ld(params + i), m, v);
    a.m[i] = m, a.v[i] = v;
    if (a.master) a.master[i] = w;
    st(params + i, w);
}

/* The same, four parameters a thread: 16-byte accesses to master, m and v (and f32 params), 8-byte
 * to bf16 params and grads (the host checks the alignment; a partial last group goes one by one).
 * 28 bytes per bf16 parameter: 3.48 GB at GPT-2 124M, 840 us at copy bandwidth; one parameter
 * a thread takes 1021. */
template <typename T>
struct alignas(4 * sizeof(T)) pack4 {
    T v[4];
};
template <typename T>
__global__ void __launch_bounds__(256) k_adamw_vec4(AdamwStep a) {
    const int64_t i0 = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) * 4;
    if (i0 >= a.n) return;
    const float scale = adamw_clip_scale(a);
    T *params = (T *)a.params;
    const T *grads = (const T *)a.grads;
    if (i0 + 4 <= a.n) {
        pack4<T> g = *(const pack4<T> *)(grads + i0), p;
        pack4<float> mm = *(const pack4<float> *)(a.m + i0), vv = *(const pack4<float> *)(a.v + i0), w;
        if (a.master) w = *(const pack4<float> *)(a.master + i0);
        else p = *(const pack4<T> *)(params + i0);
        UNROLL
        for (int k = 0; k < 4; k++) {
            float wk = a.master ? w.v[k] : ld(&p.v[k]);
            w.v[k] = adamw_update(a, i0 + k, ld(&g.v[k]) * scale, wk, mm.v[k], vv.v[k]);
            st(&p.v[k], w.v[k]);
        }
        *(pack4<float> *)(a.m + i0) = mm, *(pack4<float> *)(a.v + i0) = vv;
        if (a.master) *(pack4<float> *)(a.master + i0) = w;
        *(pack4<T> *)(params + i0) = p;
        return;
    }
    for (int64_t i = i0; i < a.n; i++) {
        float m = a.m[i], v = a.v[i];
        float w = adamw_update(a, i, ld(grads + i) * scale, a.master ? a.master[i] : ld(params + i), m, v);
        a.m[i] = m, a.v[i] = v;
        if (a.master) a.master[i] = w;
        st(params + i, w);
    }
}

/* ---------------------------------------------------------------------------------------------
 * launchers
 * ------------------------------------------------------------------------------------------ */
static AdamwStep adamw_step_of(const wb_adamw_args *a) {
    AdamwStep s;
    s.params = a->params, s.grads = a->grads, s.master = a->master, s.m = FL(a->m), s.v = FL(a->v);
    s.norm_sq = (const float *)a->norm_sq, s.n = a->n, s.n_decay = a->n_decay;
    s.lr = a->lr, s.b1 = a->beta1, s.b2 = a->beta2, s.eps = a->eps, s.wd = a->weight_decay, s.clip = a->grad_clip;
    s.bc1 = (float)(1.0 - pow(a->beta1, a->t)), s.bc2 = (float)(1.0 - pow(a->beta2, a->t));
    return s;
}

int cuda_adamw(wb_backend *be, const wb_adamw_args *a) {
    if (a->dtype != WB_BF16 && a->dtype != WB_F32) return bad_dtype("adamw", a->dtype);
    if (a->dtype == WB_BF16 && !a->master) {
        fprintf(stderr, "cuda adamw: bf16 parameters need an f32 master copy\n");
        return WB_FAIL;
    }
    AdamwStep s = adamw_step_of(a);
    size_t es = a->dtype == WB_BF16 ? 2 : 4;
    /* four parameters a thread where every array is aligned to four elements */
    int vec = (uintptr_t)a->params % (4 * es) == 0 && (uintptr_t)a->grads % (4 * es) == 0 &&
              (uintptr_t)a->m % 16 == 0 && (uintptr_t)a->v % 16 == 0 && (!a->master || (uintptr_t)a->master % 16 == 0);
    unsigned g4 = blocks_for((a->n + 3) / 4, 256), g1 = blocks_for(a->n, 256);
    if (vec && a->dtype == WB_BF16) KLAUNCH(k_adamw_vec4<bf16>, g4, 256, 0, s);
    else if (vec) KLAUNCH(k_adamw_vec4<float>, g4, 256, 0, s);
    else if (a->dtype == WB_BF16) KLAUNCH(k_adamw<bf16>, g1, 256, 0, s);
    else KLAUNCH(k_adamw<float>, g1, 256, 0, s);
    CUDA_CHECK_LAUNCH();
#ifndef WB_CUDA_EMULATION
    /* inside a capture, the node just added is this update: a replay rewrites its argument */
    cuda_impl *im = IMPL(be);
    cudaStreamCaptureStatus status;
    const cudaGraphNode_t *deps = NULL;
    size_t ndeps = 0;
    CUDA_CHECK(cudaStreamGetCaptureInfo(im->stream, &status, NULL, NULL, &deps, NULL, &ndeps));
    if (status == cudaStreamCaptureStatusActive) {
        if (im->adamw_node || ndeps != 1) {
            fprintf(stderr, "cuda graph: a captured step may hold one AdamW update (this is another)\n");
            return WB_FAIL;
        }
        im->adamw_node = deps[0];
    }
#endif
    return WB_OK;
}

#ifndef WB_CUDA_EMULATION
/* This step's AdamW arguments into the instantiated graph's AdamW node. */
int cuda_adamw_update_node(cudaGraphExec_t exec, cudaGraphNode_t node, const wb_adamw_args *a) {
    cudaKernelNodeParams p;
    CUDA_CHECK(cudaGraphKernelNodeGetParams(node, &p));
    AdamwStep s = adamw_step_of(a);
    void *args[1] = {&s};
    p.kernelParams = args;
    p.extra = NULL;
    CUDA_CHECK(cudaGraphExecKernelNodeSetParams(exec, node, &p));
    return WB_OK;
}
#endif
