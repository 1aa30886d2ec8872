/*
 * ops_internal.h: what the primitives' files (ops.c, ops_matmul.c) share: the sticky-error
 * helpers, recording a pullback, gradient views, and how a pullback writes an input's gradient.
 * Not part of the engine's interface (engine.h).
 */
#ifndef WB_OPS_INTERNAL_H
#define WB_OPS_INTERNAL_H

#include "engine.h"
#include "wb_check.h"

#define BE (ctx->be)

/* Prints "engine: ..." and marks the context failed; returns NULL (ops.c). */
void *wb_op_fail(wb_ctx *ctx, const char *fmt, ...);

/* A failed context or a NULL input (an earlier failure) makes every primitive return NULL. */
#define NEED(...)                                                                                  \
    do {                                                                                           \
        const wb_tensor *need_[] = {__VA_ARGS__};                                                  \
        if (ctx->status != WB_OK) return NULL;                                                     \
        for (size_t i_ = 0; i_ < sizeof need_ / sizeof need_[0]; i_++)                             \
            if (!need_[i_]) return wb_op_fail(ctx, "%s: input %zu is NULL", __func__, i_);         \
    } while (0)

/* A kernel call inside a forward function. */
#define KCALL(expr)                                                                                \
    do {                                                                                           \
        if ((expr) != WB_OK) return wb_op_fail(ctx, "%s: %s failed", __func__, #expr);             \
    } while (0)

static inline void *save(wb_ctx *ctx, size_t bytes) {
    void *p = wb_arena_alloc(&ctx->host, bytes);
    if (!p) wb_op_fail(ctx, "out of host arena memory");
    return p;
}

/* Records (fn, saved) when the output carries a gradient; fn NULL marks a view. */
static inline wb_tensor *finish(wb_ctx *ctx, wb_tensor *y, wb_pullback_fn fn, void *saved, const char *name) {
    if (ctx->status != WB_OK) return NULL;
    if (y->grad && ctx->grad_enabled) {
        wb_pullback pb = {fn, saved, name, y};
        if (wb_tape_record(ctx, pb) != WB_OK) return NULL;
    }
    return y;
}

/* The gradient of t as a tensor value: same layout, over the memory t's gradient lives in now
 * (t->grad, or where an alias moved it: wb_grad_ptr). */
static inline wb_tensor gview(const wb_tensor *t) {
    wb_tensor g = *t;
    g.data = wb_grad_ptr(t);
    g.grad = NULL;
    return g;
}

/* A view header over a's memory (and a's gradient memory) at element offset `off`. */
static inline wb_tensor *view_of(wb_ctx *ctx, const wb_tensor *a, int64_t off, int ndim, const int64_t *shape,
                                 const int64_t *stride) {
    wb_tensor *t = save(ctx, sizeof *t);
    if (!t) return NULL;
    *t = *a;
    size_t es = wb_dtype_size(a->dtype);
    t->data = (char *)a->data + off * (int64_t)es;
    t->grad = a->grad ? (char *)a->grad + off * (int64_t)es : NULL;
    t->ndim = ndim;
    for (int i = 0; i < WB_MAX_DIMS; i++) {
        t->shape[i] = i < ndim ? shape[i] : 1;
        t->stride[i] = i < ndim ? stride[i] : 0;
    }
    return t;
}

/* A transposed header of the last two dims (for GEMM operands inside the engine; not recorded). */
static inline wb_tensor transposed(const wb_tensor *t) {
    wb_tensor r = *t;
    int n = t->ndim;
    r.shape[n - 1] = t->shape[n - 2], r.shape[n - 2] = t->shape[n - 1];
    r.stride[n - 1] = t->stride[n - 2], r.stride[n - 2] = t->stride[n - 1];
    return r;
}

static inline wb_tensor *temp_like(wb_ctx *ctx, const wb_tensor *t) {
    return wb_new(ctx, t->dtype, t->ndim, t->shape, 0);
}

/* x's gradient seen with nd dims (size-1 dims prepended), ready for sum_into's reduction. */
static inline wb_tensor grad_as_ndim(const wb_tensor *x, int nd) {
    wb_tensor g = gview(x);
    int shift = nd - x->ndim;
    for (int i = nd - 1; i >= 0; i--) {
        int j = i - shift;
        g.shape[i] = j >= 0 ? x->shape[j] : 1;
        g.stride[i] = j >= 0 ? x->stride[j] : 0;
    }
    g.ndim = nd;
    return g;
}

/* ACC(acc, x, whole): int acc = how this pullback writes x's gradient: 0 stores, 1 accumulates
 * (wb_grad_write, engine.h; whole: the call writes every element of x's gradient). Take x's
 * gradient view (gview) after it: the write may move x's gradient into its own memory. */
#define ACC(acc, x, whole)                                                                         \
    int acc;                                                                                       \
    WB_TRY(wb_grad_write(ctx, (x), (whole), &acc))

/* x.grad (+)= scale * (g summed over the dims that x was broadcast along). y: the tensor whose
 * gradient g is, or NULL: when scale is 1 and x's gradient, not yet written, has y's layout, x's
 * gradient becomes y's memory (wb_grad_alias) and nothing is launched: the residual stream's
 * adds pass their gradient on for free, as llm.c's one residual-gradient buffer does. */
static inline int accum_grad(wb_ctx *ctx, const wb_tensor *x, const wb_tensor *y, const wb_tensor *g, double scale) {
    if (y && scale == 1.0) {
        int aliased;
        WB_TRY(wb_grad_alias(ctx, x, y, &aliased));
        if (aliased) return WB_OK;
    }
    ACC(acc, x, 1);
    wb_tensor gx = grad_as_ndim(x, g->ndim);
    return BE->sum_into(BE, &gx, g, scale, acc);
}

#endif
