/*
 * backend.h: the whole interface between the autodiff engine and the hardware, in one place.
 *
 * The engine (ops.c) decides shapes, views, broadcasting and what each pullback needs; a backend
 * only runs kernels on memory it allocated. Two backends implement this table:
 *
 *   backend_cpu.c   reference: f32 and f64 (f64 for the finite-difference gradient checks)
 *   cuda/           CUDA: bf16 storage with f32 accumulation, or f32; GEMMs through cuBLASLt
 *
 * Rules every kernel follows (so that a faster CUDA backend can be dropped in later):
 *   - `accumulate` = 1 means out += result (pullbacks), 0 means out = result (forward).
 *   - "stat" tensors (layer-norm mean and rstd, per-row log-sum-exp, losses, optimizer moments)
 *     have dtype wb_stat_dtype(model dtype): f64 for f64, else f32.
 *   - Shapes have already been checked by the engine; elementwise operands are given already
 *     broadcast to the output's shape (stride 0 in broadcast dimensions).
 *   - Every function returns WB_OK or WB_FAIL (after printing what failed); none exits.
 *   - Nothing synchronises with the host except to_host, to_host_wait and sync.
 */
#ifndef WB_BACKEND_H
#define WB_BACKEND_H

#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { WB_BACKEND_CPU = 0, WB_BACKEND_CUDA = 1 } wb_backend_kind;

enum { WB_LATER_SLOTS = 8, WB_LATER_BYTES = 64 }; /* to_host_later's slots */

typedef enum { WB_OP_ADD, WB_OP_SUB, WB_OP_MUL, WB_OP_DIV } wb_binop;
/* Unary ops compute out (+)= alpha * f(a); WB_OP_IDENTITY with alpha makes copy, scale, negate. */
typedef enum { WB_OP_IDENTITY, WB_OP_LOG, WB_OP_EXP, WB_OP_GELU, WB_OP_SQUARE, WB_OP_SQRT } wb_unop;

/* One AdamW update over a flat parameter block. The first n_decay elements get weight decay
 * (matrices), the rest not (biases, layer-norm gains): the model orders its block that way. */
typedef struct {
    void *params;          /* (n) model dtype */
    const void *grads;     /* (n) model dtype */
    float *master;         /* (n) f32 master copy when params are bf16, else NULL */
    void *m, *v;           /* (n) stat dtype: first and second moments */
    const void *norm_sq;   /* stat-dtype scalar on the device: squared global gradient norm */
    int64_t n, n_decay;
    wb_dtype dtype;
    float lr, beta1, beta2, eps, weight_decay, grad_clip; /* grad_clip <= 0: no clipping */
    int t;                 /* step number, from 1 (bias correction) */
} wb_adamw_args;

typedef struct wb_backend wb_backend;
struct wb_backend {
    const char *name;              /* "cpu" or "cuda" */
    wb_backend_kind kind;
    void *impl;                    /* the backend's own state (stream, cuBLASLt handle, ...) */
    char device_name[128];
    double peak_flops;             /* dense peak for the compute dtype; 0 where unknown (CPU) */

    void (*destroy)(wb_backend *be);
    int (*supports)(wb_backend *be, wb_dtype dtype);
    /* The peak for this dtype (bf16 tensor cores vs f32), 0 when unknown. */
    double (*peak_for)(wb_backend *be, wb_dtype dtype);

    /* ---- memory ---- */
    int (*alloc)(wb_backend *be, void **ptr, size_t bytes);
    void (*free)(wb_backend *be, void *ptr);
    int (*memset0)(wb_backend *be, void *ptr, size_t bytes);
    int (*to_host)(wb_backend *be, void *dst, const void *src, size_t bytes);   /* synchronises */
    /* Ordered after everything launched before it. May return before the copy ran: the source
     * may be reused at once (the CUDA backend stages small copies in pinned memory). */
    int (*to_device)(wb_backend *be, void *dst, const void *src, size_t bytes);
    /* A download the host collects later, so that a training loop can queue step k+1 before it
     * reads step k's loss: to_host_later enqueues a copy of `bytes` (<= WB_LATER_BYTES) into
     * slot `slot` (< WB_LATER_SLOTS) after everything launched so far and returns at once;
     * to_host_wait waits for that copy and hands the bytes over. */
    int (*to_host_later)(wb_backend *be, int slot, const void *src, size_t bytes);
    int (*to_host_wait)(wb_backend *be, int slot, void *dst, size_t bytes);
    int (*sync)(wb_backend *be);

    /* ---- elementwise (any strides, up to 4 dims, operands broadcast to out's shape) ---- */
    int (*fill)(wb_backend *be, const wb_tensor *out, double value);
    int (*binary)(wb_backend *be, wb_binop op, const wb_tensor *out, const wb_tensor *a,
                  const wb_tensor *b, int accumulate);
    int (*unary)(wb_backend *be, wb_unop op, double alpha, const wb_tensor *out, const wb_tensor *a,
                 int accumulate);
    /* ga (+)= g * f'(a); y = f(a) (exp and sqrt use it). Not for WB_OP_IDENTITY. */
    int (*unary_backward)(wb_backend *be, wb_unop op, const wb_tensor *ga, const wb_tensor *g,
                          const wb_tensor *a, const wb_tensor *y, int accumulate);
    /* dst (+)= scale * (src summed over every dim where dst has size 1 and src not).
     * dst and src have the same ndim. */
    int (*sum_into)(wb_backend *be, const wb_tensor *dst, const wb_tensor *src, double scale,
                    int accumulate);
    /* out (+)= in with the elements above the diagonal (column j > row i mod T, T = out's
     * second-to-last dim) replaced by `fill` (-inf forward, 0 in the pullback). */
    int (*causal_mask)(wb_backend *be, const wb_tensor *out, const wb_tensor *in, double fill,
                       int accumulate);
    /* out (+)= in * keep / (1 - p), keep drawn from a counter hash of (seed, element index), so
     * the forward and the pullback (and both backends) draw the same mask. */
    int (*dropout)(wb_backend *be, const wb_tensor *out, const wb_tensor *in, float p,
                   uint64_t seed, int accumulate);

    /* ---- matrix products ----
     * out (+)= alpha * a @ b (+ bias). 2-D: a (M, K), b (K, N), out (M, N). 3-D: a batch in
     * dim 0 (stride 0 broadcasts one matrix). Each operand has unit stride in one of its last
     * two dims (a transposed view is fine). bias (N) or NULL, only with accumulate = 0 (cuBLASLt
     * adds it in the GEMM's epilogue). */
    int (*gemm)(wb_backend *be, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b,
                const wb_tensor *bias, double alpha, int accumulate);
    /* GELU folded into a GEMM (NULL where the backend has no such epilogue: the engine then runs a
     * GEMM and an element-wise kernel). 2-D; out, pre: (M, N) of one contiguous layout.
     * gemm_gelu:  pre = a @ b + bias (bias (N) or NULL), out = gelu(pre)
     * gemm_dgelu: out = (a @ b) * gelu'(pre): GELU's pullback in the GEMM that computes the
     *             gradient of its output (never accumulates) */
    int (*gemm_gelu)(wb_backend *be, const wb_tensor *out, const wb_tensor *pre, const wb_tensor *a,
                     const wb_tensor *b, const wb_tensor *bias);
    int (*gemm_dgelu)(wb_backend *be, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b,
                      const wb_tensor *pre);
    /* An element-wise add folded into a GEMM (NULL where the backend has none: the engine then
     * runs the GEMM and an add kernel). 2-D.
     * gemm_add:   out = a @ b + bias + c, c (M, N) contiguous like out: a residual stream's add
     *             in the epilogue of the GEMM whose output it adds (bias (N) or NULL) */
    int (*gemm_add)(wb_backend *be, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b,
                    const wb_tensor *bias, const wb_tensor *c);

    /* ---- fused row ops (contiguous rows, reduced along the last dim) ---- */
    /* out = softmax(scale * in) along the last dim, causal: masked as causal_mask. */
    int (*softmax)(wb_backend *be, const wb_tensor *out, const wb_tensor *in, double scale, int causal);
    /* gin += scale * y * (g - sum(g * y)) */
    int (*softmax_backward)(wb_backend *be, const wb_tensor *gin, const wb_tensor *g,
                            const wb_tensor *y, double scale);
    /* in, out (N, C); w, b (C); mean, rstd (N) stat */
    int (*layernorm)(wb_backend *be, const wb_tensor *out, const wb_tensor *mean, const wb_tensor *rstd,
                     const wb_tensor *in, const wb_tensor *w, const wb_tensor *b, double eps);
    /* gin, gw, gb accumulate; any of them may be NULL (no gradient wanted) */
    int (*layernorm_backward)(wb_backend *be, const wb_tensor *gin, const wb_tensor *gw,
                              const wb_tensor *gb, const wb_tensor *g, const wb_tensor *in,
                              const wb_tensor *w, const wb_tensor *mean, const wb_tensor *rstd);
    /* out (N, C) = table[idx[i], :]; idx (N) i32 */
    int (*gather_rows)(wb_backend *be, const wb_tensor *out, const wb_tensor *table, const wb_tensor *idx);
    /* gtable[idx[i], :] += g[i, :] */
    int (*scatter_add_rows)(wb_backend *be, const wb_tensor *gtable, const wb_tensor *g, const wb_tensor *idx);
    /* logits (N, Vp) contiguous; targets (N) i32; columns >= vocab are padding and ignored.
     * lse (N) stat: per-row log-sum-exp, saved for the pullback; loss: stat scalar, the mean. */
    int (*cross_entropy)(wb_backend *be, const wb_tensor *loss, const wb_tensor *lse,
                         const wb_tensor *logits, const wb_tensor *targets, int64_t vocab);
    /* cross_entropy and, in the same pass over the logits, glogits = (softmax(logits) -
     * onehot(target)) / N, 0 in padding columns (stored): the logits' gradient for a loss gradient
     * of 1, which the step's backward seeds. NULL where the backend has none (CPU). */
    int (*cross_entropy_fused)(wb_backend *be, const wb_tensor *loss, const wb_tensor *lse,
                               const wb_tensor *glogits, const wb_tensor *logits,
                               const wb_tensor *targets, int64_t vocab);
    /* glogits (+)= gloss / N * (softmax(logits) - onehot(target)), 0 in padding columns (written
     * as 0 when not accumulating). gloss: the stat scalar gradient of the loss, read on the device. */
    int (*cross_entropy_backward)(wb_backend *be, const wb_tensor *glogits, const wb_tensor *gloss,
                                  const wb_tensor *lse, const wb_tensor *logits,
                                  const wb_tensor *targets, int64_t vocab, int accumulate);

    /* ---- fused causal attention (flash-attention style: the (T, T) scores never leave the chip) ----
     * q, k, v, out: (B, H, T, D) views with unit stride along D; out is written, the others read.
     * lse (B*H*T) stat, contiguous: per-row log-sum-exp of the scaled scores, for the pullback.
     * attention_supported says whether this backend runs it for a dtype and head size; when it
     * does not, the engine builds attention from bmm and softmax_causal instead. */
    int (*attention_supported)(wb_backend *be, wb_dtype dtype, int64_t head_dim);
    int (*attention)(wb_backend *be, const wb_tensor *out, const wb_tensor *lse, const wb_tensor *q,
                     const wb_tensor *k, const wb_tensor *v, double scale);
    /* gq, gk, gv (+)= (accumulate), any may be NULL; g and out have out's layout */
    int (*attention_backward)(wb_backend *be, const wb_tensor *gq, const wb_tensor *gk, const wb_tensor *gv,
                              const wb_tensor *g, const wb_tensor *out, const wb_tensor *lse, const wb_tensor *q,
                              const wb_tensor *k, const wb_tensor *v, double scale, int accumulate);

    /* ---- optimizer ---- */
    /* *norm_sq (stat scalar on the device) = sum of grads^2 over the flat block */
    int (*norm_sq)(wb_backend *be, void *norm_sq, const void *grads, int64_t n, wb_dtype dtype);
    int (*adamw)(wb_backend *be, const wb_adamw_args *args);

    /* ---- a whole training step as one graph (NULL where the backend has none: CPU) ----
     * graph_begin: from here on nothing runs; every launch, memset and GEMM is recorded (no
     * allocation, upload or download may happen until graph_end). graph_end: the recording becomes
     * the backend's step graph (replacing an earlier one). graph_launch: runs it once; opt, when not
     * NULL, gives this step's AdamW arguments (learning rate, step number), which replace the
     * recorded ones: the recording must hold exactly one AdamW update. */
    int (*graph_begin)(wb_backend *be);
    int (*graph_end)(wb_backend *be);
    int (*graph_launch)(wb_backend *be, const wb_adamw_args *opt);
};

/* Backends are created here and freed with be->destroy(be). */
int wb_backend_cpu_create(wb_backend **out);
/* Returns WB_FAIL (with a message) when no CUDA device is usable. */
int wb_backend_cuda_create(wb_backend **out, int device);
/* The CUDA backend's stream (a cudaStream_t): lesson 06 orders its communication stream after it. */
void *wb_backend_cuda_stream(wb_backend *be);
/* How many small memset nodes of the captured step became kernel nodes (backend_cuda.cu). */
int wb_backend_cuda_graph_small_memsets(wb_backend *be);

#ifdef __CUDACC__
#define WB_HOST_DEVICE __host__ __device__
#else
#define WB_HOST_DEVICE
#endif

/* The counter hash the dropout kernels share: uniform in [0, 1) from (seed, index). */
static inline WB_HOST_DEVICE float wb_hash_uniform(uint64_t seed, uint64_t i) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (i + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)(z >> 40) * (1.0f / 16777216.0f);
}

#ifdef __cplusplus
}
#endif

#endif
