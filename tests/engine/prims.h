/*
 * prims.h: each primitive (and a few compositions through views) as a function of an array of
 * input tensors, shared by the gradient checks (CPU, float64) and the CUDA-vs-CPU tests.
 */
#ifndef WB_TEST_PRIMS_H
#define WB_TEST_PRIMS_H

#include "engine.h"
#include "wb_check.h"

typedef wb_tensor *(*prim_fn)(wb_ctx *ctx, wb_tensor **x);

static inline wb_tensor *f_add(wb_ctx *c, wb_tensor **x) { return wb_add(c, x[0], x[1]); }
static inline wb_tensor *f_sub(wb_ctx *c, wb_tensor **x) { return wb_sub(c, x[0], x[1]); }
static inline wb_tensor *f_mul(wb_ctx *c, wb_tensor **x) { return wb_mul(c, x[0], x[1]); }
static inline wb_tensor *f_div(wb_ctx *c, wb_tensor **x) { return wb_div(c, x[0], x[1]); }
static inline wb_tensor *f_scale(wb_ctx *c, wb_tensor **x) { return wb_scale(c, x[0], -0.37); }
static inline wb_tensor *f_log(wb_ctx *c, wb_tensor **x) { return wb_log(c, x[0]); }
static inline wb_tensor *f_exp(wb_ctx *c, wb_tensor **x) { return wb_exp(c, x[0]); }
static inline wb_tensor *f_gelu(wb_ctx *c, wb_tensor **x) { return wb_gelu(c, x[0]); }
static inline wb_tensor *f_square(wb_ctx *c, wb_tensor **x) { return wb_square(c, x[0]); }
static inline wb_tensor *f_sqrt(wb_ctx *c, wb_tensor **x) { return wb_sqrt(c, x[0]); }
static inline wb_tensor *f_sum0(wb_ctx *c, wb_tensor **x) { return wb_sum(c, x[0], 0); }
static inline wb_tensor *f_sum1(wb_ctx *c, wb_tensor **x) { return wb_sum(c, x[0], 1); }
static inline wb_tensor *f_mean2(wb_ctx *c, wb_tensor **x) { return wb_mean(c, x[0], -1); }
static inline wb_tensor *f_mm(wb_ctx *c, wb_tensor **x) { return wb_mm(c, x[0], x[1]); }
static inline wb_tensor *f_mm_t(wb_ctx *c, wb_tensor **x) { /* (K, M)^T @ (N, K)^T: both operands transposed views */
    return wb_mm(c, wb_transpose(c, x[0], 0, 1), wb_transpose(c, x[1], 0, 1));
}
static inline wb_tensor *f_bmm(wb_ctx *c, wb_tensor **x) { return wb_bmm(c, x[0], x[1]); }
static inline wb_tensor *f_bmm_t(wb_ctx *c, wb_tensor **x) { return wb_bmm(c, x[0], wb_transpose(c, x[1], 1, 2)); }
static inline wb_tensor *f_linear(wb_ctx *c, wb_tensor **x) { return wb_linear(c, x[0], x[1], x[2]); }
static inline wb_tensor *f_linear_nobias(wb_ctx *c, wb_tensor **x) { return wb_linear(c, x[0], x[1], NULL); }
static inline wb_tensor *f_linear_gelu(wb_ctx *c, wb_tensor **x) { return wb_linear_gelu(c, x[0], x[1], x[2]); }
/* an MLP: the second linear's input-gradient GEMM takes GELU's pullback (gemm_dgelu) */
static inline wb_tensor *f_mlp(wb_ctx *c, wb_tensor **x) {
    return wb_linear(c, wb_linear_gelu(c, x[0], x[1], x[2]), x[3], NULL);
}
static inline wb_tensor *f_split(wb_ctx *c, wb_tensor **x) {
    wb_tensor *parts[3];
    int64_t sizes[3] = {2, 3, 1};
    if (wb_split(c, x[0], 1, 3, sizes, parts) != WB_OK) return NULL;
    /* the middle part times the last (broadcast); the first part gets no gradient */
    return wb_mul(c, parts[1], parts[2]);
}
static inline wb_tensor *f_permute(wb_ctx *c, wb_tensor **x) {
    int perm[3] = {2, 0, 1};
    return wb_permute(c, x[0], perm);
}
static inline wb_tensor *f_reshape_view(wb_ctx *c, wb_tensor **x) {
    int64_t s[2] = {6, 4};
    return wb_reshape(c, x[0], 2, s);
}
static inline wb_tensor *f_reshape_copy(wb_ctx *c, wb_tensor **x) { /* permute then merge: needs a copy */
    int perm[3] = {1, 0, 2};
    int64_t s[2] = {6, 4};
    return wb_reshape(c, wb_permute(c, x[0], perm), 2, s);
}
static inline wb_tensor *f_heads_copy(wb_ctx *c, wb_tensor **x) { /* (A, B, D) -> (B, A, D) -> (B*A, D): a copy */
    int perm[3] = {1, 0, 2};
    int64_t s[2] = {x[0]->shape[0] * x[0]->shape[1], x[0]->shape[2]};
    return wb_reshape(c, wb_permute(c, x[0], perm), 2, s);
}
static inline wb_tensor *f_embedding(wb_ctx *c, wb_tensor **x) { return wb_embedding(c, x[0], x[1]); }
static inline wb_tensor *f_softmax(wb_ctx *c, wb_tensor **x) { return wb_softmax(c, x[0]); }
static inline wb_tensor *f_mask_softmax(wb_ctx *c, wb_tensor **x) { return wb_softmax(c, wb_causal_mask(c, x[0])); }
static inline wb_tensor *f_softmax_causal(wb_ctx *c, wb_tensor **x) { return wb_softmax_causal(c, x[0], 0.7); }
static inline wb_tensor *f_layernorm(wb_ctx *c, wb_tensor **x) { return wb_layernorm(c, x[0], x[1], x[2], 1e-5); }
/* x + layernorm(x): the residual add's pullback runs first, so the layer norm's pullback adds into an
 * input gradient that is not zero (as in the model; a fresh zero gradient hides a stale read of it) */
static inline wb_tensor *f_layernorm_residual(wb_ctx *c, wb_tensor **x) {
    return wb_add(c, x[0], wb_layernorm(c, x[0], x[1], x[2], 1e-5));
}
static inline wb_tensor *f_cross_entropy(wb_ctx *c, wb_tensor **x) { return wb_cross_entropy(c, x[0], x[1], 5); }
/* vocabulary 5 short of the padded width: the last 8-column vector straddles the padding */
static inline wb_tensor *f_cross_entropy_wide(wb_ctx *c, wb_tensor **x) {
    return wb_cross_entropy(c, x[0], x[1], x[0]->shape[x[0]->ndim - 1] - 5);
}
/* GPT-2's vocabulary inside its padded width (50257 of 50304: 6282 whole 8-column vectors, then one
 * of 1 logit and 7 padding columns) */
static inline wb_tensor *f_cross_entropy_gpt2(wb_ctx *c, wb_tensor **x) { return wb_cross_entropy(c, x[0], x[1], 50257); }
/* the loss scaled: a backward from here reaches the cross-entropy with gradient 2, not 1 */
static inline wb_tensor *f_cross_entropy_x2(wb_ctx *c, wb_tensor **x) { return wb_scale(c, f_cross_entropy_wide(c, x), 2.0); }
static inline wb_tensor *f_dropout(wb_ctx *c, wb_tensor **x) { return wb_dropout(c, x[0], 0.3f); }
static inline wb_tensor *f_residual_twice(wb_ctx *c, wb_tensor **x) { /* fan-out: x used by three consumers */
    return wb_add(c, x[0], wb_mul(c, wb_gelu(c, x[0]), x[0]));
}
/* The residual adds' gradient aliases (engine.h): x + x (the second input must not add into the
 * memory the first one took over); x + linear(x) with the add in the GEMM (x's alias, then its
 * input-gradient GEMM, which must not write the memory it reads g from); two blocks chained as the
 * model does, so that the stream's gradient is one memory written by both layer norms. x[1] (C, C),
 * x[2] and x[3] (C) serve as the linear layers' and the layer norms' parameters alike. */
static inline wb_tensor *f_add_self(wb_ctx *c, wb_tensor **x) { return wb_add(c, x[0], x[0]); }
static inline wb_tensor *f_linear_residual(wb_ctx *c, wb_tensor **x) {
    return wb_linear_residual(c, x[0], x[1], x[2], x[0]);
}
static inline wb_tensor *f_residual_chain(wb_ctx *c, wb_tensor **x) {
    wb_tensor *h = wb_linear_residual(c, wb_layernorm(c, x[0], x[2], x[3], 1e-5), x[1], x[3], x[0]);
    wb_tensor *u = wb_linear(c, wb_gelu(c, wb_layernorm(c, h, x[3], x[2], 1e-5)), x[1], x[2]);
    return wb_add(c, h, u);
}

/* fused attention on views of one (B, T, 3*H*D) tensor, as the model calls it: the gradients
 * land in qkv's gradient through strided views. H = 2, D = x[0]'s last dim / 6. */
static inline wb_tensor *f_attention_qkv(wb_ctx *c, wb_tensor **x) {
    int64_t B = x[0]->shape[0], T = x[0]->shape[1], C = x[0]->shape[2] / 3, H = 2, D = C / H;
    wb_tensor *part[3];
    int64_t sizes[3] = {C, C, C}, t4[4] = {B, T, H, D};
    int perm[4] = {0, 2, 1, 3};
    if (wb_split(c, x[0], 2, 3, sizes, part) != WB_OK) return NULL;
    wb_tensor *q = wb_permute(c, wb_reshape(c, part[0], 4, t4), perm);
    wb_tensor *k = wb_permute(c, wb_reshape(c, part[1], 4, t4), perm);
    wb_tensor *v = wb_permute(c, wb_reshape(c, part[2], 4, t4), perm);
    return wb_attention(c, q, k, v, 0.6);
}
/* separate contiguous q, k, v (B, H, T, D) */
static inline wb_tensor *f_attention(wb_ctx *c, wb_tensor **x) { return wb_attention(c, x[0], x[1], x[2], 0.4); }

#endif
