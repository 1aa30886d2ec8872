/*
 * launch_plan.h: what each call of the CUDA backend launches (kernels, memsets), as the launchers
 * decide it. The launchers call these functions to pick their paths, and tests/engine/
 * test_launch_plan.c calls the same functions to count a training step's launches per NVTX range
 * without a GPU: the lesson's answer key predicts those counts. Plain C, no CUDA.
 */
#ifndef WB_CUDA_LAUNCH_PLAN_H
#define WB_CUDA_LAUNCH_PLAN_H

#include "tensor.h"

/* kernels of calls whose plan never varies */
enum {
    /* cross_entropy and cross_entropy_fused: log-sum-exp per row (the fused one also stores the
     * logits' gradient for a loss gradient of 1), then the mean. The pullback after the fused
     * forward launches nothing when backward starts at this loss with gradient 1 (the engine's
     * rule, ops.c), else one kernel. */
    WB_CUDA_CROSS_ENTROPY_KERNELS = 2,
    WB_CUDA_NORM_SQ_KERNELS = 2,       /* per-block partial sums, then one block adds them */
};

/* sum_into reduces the leading dims of contiguous operands over at least 1024 rows in two passes
 * (row-chunk partial sums, then the chunks per column): 2 kernels; everything else 1. */
static inline int wb_cuda_sum_into_two_pass(const wb_tensor *dst, const wb_tensor *src) {
    int mask = 0, k = 0;
    int64_t n_red = 1;
    for (int d = 0; d < src->ndim; d++)
        if (dst->shape[d] == 1 && src->shape[d] != 1) mask |= 1 << d, n_red *= src->shape[d];
    while (k < src->ndim && (mask >> k & 1)) k++;
    return k > 0 && mask == (1 << k) - 1 && wb_is_contiguous(dst) && wb_is_contiguous(src) && n_red >= 1024;
}

/* gemm adds its bias in the cuBLASLt epilogue when out is a row-major 2-D matrix written (not
 * accumulated) and the bias contiguous; otherwise one broadcast-add kernel after the product. */
static inline int wb_cuda_gemm_bias_in_epilogue(const wb_tensor *out, const wb_tensor *bias, int acc) {
    return bias && out->ndim == 2 && out->stride[1] == 1 && out->stride[0] >= out->shape[1] && !acc &&
           wb_is_contiguous(bias);
}
static inline int wb_cuda_gemm_kernels(const wb_tensor *out, const wb_tensor *bias, int acc) {
    return 1 + (bias && !wb_cuda_gemm_bias_in_epilogue(out, bias, acc));
}

/* Which of cuBLASLt's heuristic answers (best first by its estimate) a GEMM plan takes (gemm.cu):
 * never a choice by timing, so that the kernels are the same every run. The first answer that
 * does not split K, when one does: a split answer (k_parts > 1) launches a second kernel,
 * cuBLASLt's split-K reduction, and the unsplit ones measured as fast without it; a GEMM is then
 * 2 kernels only where every answer splits. For DGELU (cuBLASLt has only xmma kernels for it, the
 * same kernel with different thread-block clusters) the answer of the first answer's kernel with
 * the most waves: the 8-CTA clusters it ranks first leave SMs idle by its own count. Measured in
 * docs/performance-history.md (bench_gemm_shapes). */
typedef struct {
    int ok;           /* the heuristic says the answer runs */
    uint32_t kernel;  /* CUBLASLT_ALGO_CONFIG_ID */
    uint32_t k_parts; /* CUBLASLT_ALGO_CONFIG_SPLITK_NUM (1: no split) */
    float waves;      /* wavesCount */
} wb_gemm_answer;
static inline int wb_cuda_gemm_pick(const wb_gemm_answer *a, int n, int dgelu) {
    int best = 0;
    if (dgelu) {
        for (int i = 1; i < n; i++)
            if (a[i].ok && a[i].kernel == a[0].kernel && a[i].waves > a[best].waves) best = i;
        return best;
    }
    for (int i = 0; i < n; i++)
        if (a[i].ok && a[i].k_parts <= 1) return i;
    return best;
}

/* gemm_gelu and gemm_dgelu fold GELU into the GEMM's epilogue when out and the pre-activation are
 * row-major 2-D matrices of one shape, contiguous and 16-byte aligned with rows a multiple of 8
 * elements (cuBLASLt's aux operand): 1 kernel (if cuBLASLt has an algorithm, which only the GPU
 * can say); else the GEMM (and its bias kernel) and GELU's element-wise kernel. */
static inline int wb_cuda_gemm_gelu_fused(const wb_tensor *out, const wb_tensor *pre, const wb_tensor *bias) {
    return out->ndim == 2 && wb_same_shape(out, pre) && wb_is_contiguous(out) && wb_is_contiguous(pre) &&
           out->shape[1] % 8 == 0 && (uintptr_t)out->data % 16 == 0 && (uintptr_t)pre->data % 16 == 0 &&
           (!bias || wb_is_contiguous(bias));
}
static inline int wb_cuda_gemm_gelu_kernels(const wb_tensor *out, const wb_tensor *pre, const wb_tensor *bias) {
    return wb_cuda_gemm_gelu_fused(out, pre, bias) ? 1 : wb_cuda_gemm_kernels(pre, bias, 0) + 1;
}

/* gemm_add adds c in the GEMM (cuBLASLt's C with beta = 1) when out is a row-major 2-D matrix and
 * c contiguous of its shape, the bias (if any) contiguous: 1 kernel (if cuBLASLt has an algorithm);
 * else the GEMM (bias in its epilogue) and one add kernel. */
static inline int wb_cuda_gemm_add_fused(const wb_tensor *out, const wb_tensor *bias, const wb_tensor *c) {
    return out->ndim == 2 && wb_is_contiguous(out) && wb_same_shape(out, c) && wb_is_contiguous(c) &&
           (!bias || wb_is_contiguous(bias));
}
static inline int wb_cuda_gemm_add_kernels(const wb_tensor *out, const wb_tensor *bias, const wb_tensor *c) {
    return wb_cuda_gemm_add_fused(out, bias, c) ? 1 : wb_cuda_gemm_kernels(out, bias, 0) + 1;
}

/* layer norm's pullback: one kernel (input gradient and the gain and bias gradients: the last
 * block to finish adds the blocks' column sums) when anything is wanted */
static inline int wb_cuda_layernorm_backward_kernels(int gin, int gw, int gb) { return gin || gw || gb; }

/* attention's pullback: D = rowsum(dO O), the main kernel; with a query gradient also a memset of
 * its f32 accumulation buffer and the kernel adding that buffer into gq */
static inline int wb_cuda_attention_backward_kernels(int gq) { return 2 + (gq != 0); }
static inline int wb_cuda_attention_backward_memsets(int gq) { return gq != 0; }

#endif
