/*
 * engine.h: reverse-mode automatic differentiation by pullbacks (ChainRules' rrule, in C).
 *
 * Every primitive computes its value and hands back a pullback: a function pointer plus the
 * context it saved (input and output headers, statistics), which maps the output's gradient to
 * gradients of its inputs. In Julia it reads `y, pb = rrule(f, x)`; here the pair is the return
 * value and the tape entry the primitive pushes:
 *
 *     wb_tensor *h = wb_layernorm(ctx, x, w, b, 1e-5);   // value; pushes (pb_layernorm, saved)
 *     wb_tensor *y = wb_linear(ctx, h, W, bias);          // value; pushes (pb_linear, saved)
 *     ...
 *     wb_backward(ctx, loss);   // seed dloss = 1, run pullbacks in reverse
 *
 * Gradients accumulate (+=): a tensor used twice (the residual stream, tied embeddings) simply
 * receives two contributions. Views (reshape, permute, split) share their gradient memory with
 * the tensor they view, so their pullbacks do nothing at all.
 *
 * Memory: every header, saved context and temporary comes from the host arena; activation values
 * from the activation arena; their gradients from the gradient arena. All three are reset at the
 * start of each step (wb_ctx_reset). The first step grows them chunk by chunk; the reset that
 * opens the second step frees the chunks and allocates one that holds the peak (inside that
 * step: at GPT-2 124M 13 cudaFree and 2 cudaMalloc), so from the third step on nothing is
 * allocated. Parameters and their gradients live outside, in one block each (see model/gpt2.h).
 *
 * Nothing zeroes the gradient arena. Each gradient allocation (wb_grad_buf) knows whether this
 * backward pass has written it yet: the first pullback that writes all of it stores (out = g, no
 * read of old values) and later ones accumulate; a first write that covers only part of it (one
 * head of qkv) zeroes that allocation first. A pullback whose output gradient was never written
 * is skipped: that gradient is zero. At 124M this replaces a 7 GB memset and the reads of zeros
 * by every first accumulation. An add's pullback passes its gradient on by aliasing (wb_grad_buf):
 * the residual stream's gradient is one memory through all layers, as in llm.c.
 *
 * Errors are sticky: a primitive that fails prints why, sets ctx->status, and returns NULL; every
 * later primitive given a NULL or called on a failed context returns NULL at once. Check the
 * final result (or ctx->status) once.
 */
#ifndef WB_ENGINE_H
#define WB_ENGINE_H

#include "backend.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Arena: bump allocation over chunks of host memory (be == NULL) or backend memory. Reset
 * rewinds; when a step needed more than one chunk, reset replaces them with one large chunk, so
 * from the second step on one chunk serves all.
 * ------------------------------------------------------------------------------------------ */
typedef struct wb_arena_chunk {
    char *base;
    size_t size, used;
    struct wb_arena_chunk *next;
} wb_arena_chunk;

typedef struct {
    wb_backend *be;            /* NULL: host memory (malloc) */
    wb_arena_chunk *head, *cur;
    size_t chunk_size;         /* the size of a new chunk, at least */
    size_t used, peak;         /* bytes in use now; most ever in use */
    const char *name;
} wb_arena;

int wb_arena_init(wb_arena *a, wb_backend *be, size_t chunk_size, const char *name);
void *wb_arena_alloc(wb_arena *a, size_t bytes);   /* 256-byte aligned; NULL on failure */
int wb_arena_reset(wb_arena *a);
void wb_arena_free(wb_arena *a);

/* ---------------------------------------------------------------------------------------------
 * Tape
 * ------------------------------------------------------------------------------------------ */
typedef struct wb_ctx wb_ctx;
typedef int (*wb_pullback_fn)(wb_ctx *ctx, void *saved);

typedef struct {
    wb_pullback_fn fn;         /* NULL: a view, nothing to do */
    void *saved;               /* context saved by the forward pass (host arena) */
    const char *name;          /* the primitive's name */
    const wb_tensor *out;      /* its output: skipped while the output's gradient is unwritten */
} wb_pullback;

/* One gradient allocation of the gradient arena, and whether backward has written it yet.
 * Aliases: an add's pullback lets an input's unwritten gradient live in the output's gradient
 * memory instead of copying it there (wb_grad_alias); every buffer sharing one memory is on one
 * ring. A shared memory may only change while at most one of its buffers is live (written and
 * not yet read by its producer's pullback); a write that would break that gives the writer its
 * own copy first (one copy kernel; never in GPT-2, whose residual stream then needs no copies). */
typedef struct wb_grad_buf {
    void *base;                /* the allocation */
    void *data;                /* where the gradient lives now: base, or another buffer's memory */
    size_t bytes;
    int written;
    int consumed;              /* its producer's pullback has run: nothing reads it any more */
    struct wb_grad_buf *ring;  /* the next buffer sharing this memory (itself when none) */
    struct wb_grad_buf *next;  /* every allocation of this step, newest first */
    /* the output of wb_linear_gelu: its pre-activation, and whether the GEMM that wrote this
     * gradient already applied GELU's pullback (the buffer then holds the pre-activation's) */
    const wb_tensor *gelu_pre;
    int gelu_folded;
} wb_grad_buf;

typedef enum { WB_TAPE_PULLBACK, WB_TAPE_RANGE_PUSH, WB_TAPE_RANGE_POP } wb_tape_kind;

typedef struct {
    wb_tape_kind kind;
    wb_pullback pb;            /* for WB_TAPE_PULLBACK */
    const char *range;         /* for the range entries: the NVTX range name in backward */
} wb_tape_entry;

typedef struct {
    wb_tape_entry *entries;
    int n, cap;
} wb_tape;

/* ---------------------------------------------------------------------------------------------
 * Context: one per training or inference run
 * ------------------------------------------------------------------------------------------ */
struct wb_ctx {
    wb_backend *be;
    wb_dtype dtype;            /* activations and parameters: f32, f64 (CPU) or bf16 (CUDA) */
    wb_arena host;             /* headers, saved contexts, the tape's ranges */
    wb_arena act;              /* activation values and temporaries */
    wb_arena grad;             /* activation gradients (written first by stores; see above) */
    wb_grad_buf *grad_bufs;    /* this step's gradient allocations */
    wb_tape tape;
    int grad_enabled;          /* 0: inference, no gradients, no tape */
    int training;              /* 0: dropout is the identity */
    int status;                /* WB_OK, or WB_FAIL after the first error (sticky) */
    uint64_t seed;             /* dropout masks: seed ^ hash of a per-step counter */
    uint64_t dropout_calls;
    int range_depth;
    const char *range_stack[32]; /* backward names of the open ranges */
    int nvtx;                  /* emit NVTX ranges (on by default) */
    /* optional: called at every range push (push = 1) and pop, forward and backward alike (the
     * launch-plan test counts backend calls per range with it) */
    void (*range_hook)(void *user, const char *name, int push);
    void *range_hook_user;
    /* optional, for data parallelism (lesson 06 learns from them when each parameter's gradient is
     * final and starts its all-reduce): grad_write_hook is told of every gradient a pullback is about
     * to write (x may be a view of a parameter), pullback_hook after each pullback of backward has
     * run (index: its tape position, falling); a pullback_hook that fails fails backward */
    void (*grad_write_hook)(void *user, const wb_tensor *x);
    int (*pullback_hook)(void *user, int index);
    void *backward_hook_user;
    /* while wb_backward runs the tape, the loss it seeded with gradient 1 (else NULL): a pullback
     * whose forward already wrote its input's gradient for exactly that seed (the cross-entropy's,
     * on a backend with cross_entropy_fused) launches nothing */
    const wb_tensor *seeded_one;
};

/* chunk_bytes: first chunk of the device arenas (they grow in the first step if needed). */
int wb_ctx_init(wb_ctx *ctx, wb_backend *be, wb_dtype dtype, size_t chunk_bytes);
void wb_ctx_free(wb_ctx *ctx);
/* Start a step: rewind the arenas and clear the tape. Invalidates every tensor of the last step. */
int wb_ctx_reset(wb_ctx *ctx);

/* Appends a pullback to the tape (the primitives do this; exposed for user-defined primitives). */
int wb_tape_record(wb_ctx *ctx, wb_pullback pb);

/* NVTX range in the forward pass; also recorded on the tape, so that backward opens a range
 * named bwd_name (in reverse order) around the pullbacks recorded inside it. Give the two
 * different names ("layer" / "layer_bwd"): a grader counts every occurrence of a name alike. */
void wb_range_push(wb_ctx *ctx, const char *name, const char *bwd_name);
void wb_range_pop(wb_ctx *ctx);

/* A pullback about to write x's gradient asks how: *acc = 0 (store) when this is the first write of
 * x's whole gradient allocation and `whole` says the call writes every element of x, else 1
 * (accumulate; a first partial write zeroes the allocation first). Parameters always accumulate. */
int wb_grad_write(wb_ctx *ctx, const wb_tensor *x, int whole, int *acc);
/* The same question for n gradients that one call writes together (attention's q, k and v): *acc
 * = 0 when they are the first write of one allocation and tile it exactly (n equal views side by
 * side along one dimension: the three parts of a split qkv), so the call may store into all of
 * it; else each is asked as a partial write and *acc = 1. */
int wb_grad_write_parts(wb_ctx *ctx, const wb_tensor *const *xs, int n, int *acc);
/* Where x's gradient is now: x->grad, moved into the memory of the buffer it aliases. */
void *wb_grad_ptr(const wb_tensor *x);
/* If x's gradient is unwritten, covers its allocation and has y's shape, strides and dtype (y's
 * gradient covering its own), x's gradient becomes y's memory: *aliased = 1, nothing launched. */
int wb_grad_alias(wb_ctx *ctx, const wb_tensor *x, const wb_tensor *y, int *aliased);
/* x's gradient is about to change in place: if its memory is shared with another live gradient,
 * x gets its own copy first (wb_grad_write does this for every write it is asked about). */
int wb_grad_own(wb_ctx *ctx, const wb_tensor *x);

/* Runs the tape in reverse. loss must be a scalar produced with gradients enabled. */
int wb_backward(wb_ctx *ctx, wb_tensor *loss);
/* The same from any output y, seeded with its gradient gy (same shape): the gradient checks'
 * way of computing a vector-Jacobian product. */
int wb_backward_with(wb_ctx *ctx, wb_tensor *y, const wb_tensor *gy);

/* ---------------------------------------------------------------------------------------------
 * Tensors
 * ------------------------------------------------------------------------------------------ */
/* A new contiguous tensor from the activation arena; with_grad also allocates its gradient. */
wb_tensor *wb_new(wb_ctx *ctx, wb_dtype dtype, int ndim, const int64_t *shape, int with_grad);
/* A tensor over existing memory (parameters): grad may be NULL. The header is host-arena. */
wb_tensor *wb_wrap(wb_ctx *ctx, void *data, void *grad, wb_dtype dtype, int ndim, const int64_t *shape);
/* Copy from / to the host as doubles (converted to and from the tensor's dtype). */
int wb_upload(wb_ctx *ctx, const wb_tensor *t, const double *host);
int wb_download(wb_ctx *ctx, const wb_tensor *t, double *host);
int wb_download_grad(wb_ctx *ctx, const wb_tensor *t, double *host);
/* A download collected later (backend.h's to_host_later): the copy of a small contiguous t
 * (a loss) is queued after everything launched so far; wb_download_wait waits for it and
 * converts. t's header may be gone by then: the wait takes its dtype and element count. */
int wb_download_later(wb_ctx *ctx, const wb_tensor *t, int slot);
int wb_download_wait(wb_ctx *ctx, wb_dtype dtype, int64_t n, int slot, double *host);
/* A header over t's gradient (dtype and layout of t). NULL when t has none. */
wb_tensor *wb_grad_of(wb_ctx *ctx, const wb_tensor *t);

/* ---------------------------------------------------------------------------------------------
 * Primitives. Each returns its value (NULL on error) and records its pullback when any input
 * carries a gradient. Shapes in comments: what the primitive accepts.
 * ------------------------------------------------------------------------------------------ */
/* elementwise with NumPy broadcasting */
wb_tensor *wb_add(wb_ctx *ctx, wb_tensor *a, wb_tensor *b);
wb_tensor *wb_sub(wb_ctx *ctx, wb_tensor *a, wb_tensor *b);
wb_tensor *wb_mul(wb_ctx *ctx, wb_tensor *a, wb_tensor *b);
wb_tensor *wb_div(wb_ctx *ctx, wb_tensor *a, wb_tensor *b);
wb_tensor *wb_scale(wb_ctx *ctx, wb_tensor *a, double s);       /* a * s (div by a number) */
wb_tensor *wb_log(wb_ctx *ctx, wb_tensor *a);
wb_tensor *wb_exp(wb_ctx *ctx, wb_tensor *a);
wb_tensor *wb_gelu(wb_ctx *ctx, wb_tensor *a);                 /* tanh approximation */
wb_tensor *wb_square(wb_ctx *ctx, wb_tensor *a);
wb_tensor *wb_sqrt(wb_ctx *ctx, wb_tensor *a);
/* reductions along one axis, keeping it with size 1 */
wb_tensor *wb_sum(wb_ctx *ctx, wb_tensor *a, int axis);
wb_tensor *wb_mean(wb_ctx *ctx, wb_tensor *a, int axis);
/* matrix products: mm (..., K) @ (K, N) -> (..., N); bmm (B, M, K) @ (B, K, N) -> (B, M, N) */
wb_tensor *wb_mm(wb_ctx *ctx, wb_tensor *a, wb_tensor *b);
wb_tensor *wb_bmm(wb_ctx *ctx, wb_tensor *a, wb_tensor *b);
/* fused: x (..., K) @ w^T + bias, w (N, K) as nn.Linear stores it, bias (N) or NULL */
wb_tensor *wb_linear(wb_ctx *ctx, wb_tensor *x, wb_tensor *w, wb_tensor *bias);
/* res + linear(x, w, bias), res (..., N) of the output's shape: a residual stream's add in the
 * GEMM's epilogue where the backend has one (gemm_add); the pullback passes the output's gradient
 * on to res by aliasing, as wb_add's does */
wb_tensor *wb_linear_residual(wb_ctx *ctx, wb_tensor *x, wb_tensor *w, wb_tensor *bias, wb_tensor *res);
/* gelu(linear(x, w, bias)), the GELU in the GEMM's epilogue where the backend has one; its
 * pullback folds into the GEMM of the layer that consumes the result (one consumer only). */
wb_tensor *wb_linear_gelu(wb_ctx *ctx, wb_tensor *x, wb_tensor *w, wb_tensor *bias);
/* views: launch nothing (reshape copies only when the layout forbids a view, as PyTorch does) */
int wb_split(wb_ctx *ctx, wb_tensor *a, int axis, int n, const int64_t *sizes, wb_tensor **out);
wb_tensor *wb_permute(wb_ctx *ctx, wb_tensor *a, const int *perm);
wb_tensor *wb_transpose(wb_ctx *ctx, wb_tensor *a, int d0, int d1);
wb_tensor *wb_reshape(wb_ctx *ctx, wb_tensor *a, int ndim, const int64_t *shape);
wb_tensor *wb_contiguous(wb_ctx *ctx, wb_tensor *a);          /* a itself when contiguous */
/* table (V, C), idx (...) i32 -> (..., C) */
wb_tensor *wb_embedding(wb_ctx *ctx, wb_tensor *table, wb_tensor *idx);
/* along the last axis */
wb_tensor *wb_softmax(wb_ctx *ctx, wb_tensor *a);
/* (..., T, T): -inf above the diagonal */
wb_tensor *wb_causal_mask(wb_ctx *ctx, wb_tensor *a);
/* fused: softmax(scale * a) with the causal mask, one kernel forward, one backward */
wb_tensor *wb_softmax_causal(wb_ctx *ctx, wb_tensor *a, double scale);
/* fused causal attention: q, k, v (B, H, T, D) views (unit stride along D, e.g. straight from
 * a split qkv projection) -> (B, H, T, D), a view over a (B, T, H, D) buffer, so that the heads
 * merge back into (B, T, H*D) without a copy. One kernel forward where the backend has one
 * (attention_supported), else built from bmm and softmax_causal (copies included). */
wb_tensor *wb_attention(wb_ctx *ctx, wb_tensor *q, wb_tensor *k, wb_tensor *v, double scale);
/* x (..., C), w and b (C) */
wb_tensor *wb_layernorm(wb_ctx *ctx, wb_tensor *x, wb_tensor *w, wb_tensor *b, double eps);
/* logits (..., Vp), targets (...) i32, vocab <= Vp (columns past it are padding).
 * Returns the mean loss, a scalar of dtype wb_stat_dtype(ctx->dtype). When the logits' gradient
 * will be wanted (gradients on, a gradient-arena logits gradient) and the backend has
 * cross_entropy_fused, the forward also stores that gradient for a loss gradient of 1, in the same
 * pass over the logits; the pullback then launches nothing if backward starts at this loss with
 * wb_backward (seed 1), and otherwise computes the gradient as without it. */
wb_tensor *wb_cross_entropy(wb_ctx *ctx, wb_tensor *logits, wb_tensor *targets, int64_t vocab);
/* identity when p == 0 or not training */
wb_tensor *wb_dropout(wb_ctx *ctx, wb_tensor *a, float p);

#ifdef __cplusplus
}
#endif

#endif
