/*
 * ops.c: the primitives. Each one is a forward function (check shapes, allocate the output, run
 * the backend kernel, save what the pullback needs) and its pullback (read the output's
 * gradient, write the inputs' gradients: the first write of a gradient stores, later ones
 * accumulate, wb_grad_write decides). This file is the rrule table of the engine.
 *
 * What a pullback launches, which is what a learner predicts from a trace:
 *   views (split, permute, reshape that can view, contiguous of a contiguous tensor): nothing
 *   add, sub: one reduction kernel per input that needs a gradient (sum_into), except an input
 *             of the output's layout whose gradient is not written yet: it takes the output's
 *             gradient memory (an alias, no kernel; sub's second input is negated, so not it)
 *   mul, div: one kernel per input without broadcasting, two with (product, then reduction)
 *   mm, bmm, linear: ops_matmul.c
 *   softmax, layer norm, cross-entropy, causal mask, dropout, unary ops: one kernel each
 *             (the cross-entropy's none when the forward already stored it: wb_cross_entropy)
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ops_internal.h"

void *wb_op_fail(wb_ctx *ctx, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "engine: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    ctx->status = WB_FAIL;
    return NULL;
}

/* x.grad += reduce(g op other): one kernel when x was not broadcast, else product + reduction */
static int accum_product(wb_ctx *ctx, const wb_tensor *x, const wb_tensor *g, const wb_tensor *other,
                         wb_binop op) {
    if (wb_same_shape(x, g)) {
        ACC(acc, x, 1);
        wb_tensor gx = gview(x);
        return BE->binary(BE, op, &gx, g, other, acc);
    }
    wb_tensor *tmp = temp_like(ctx, g);
    if (!tmp) return WB_FAIL;
    WB_TRY(BE->binary(BE, op, tmp, g, other, 0));
    return accum_grad(ctx, x, NULL, tmp, 1.0);
}

static int norm_axis(int axis, int ndim) { return axis < 0 ? axis + ndim : axis; }

/* ---------------------------------------------------------------------------------------------
 * elementwise binary ops with broadcasting
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    wb_tensor *a, *b, *y;
    wb_binop op;
} binary_saved;

static int pb_binary(wb_ctx *ctx, void *p) {
    binary_saved *s = p;
    const wb_tensor *a = s->a, *b = s->b, *y = s->y;
    wb_tensor g = gview(y), ab, bb;
    wb_broadcast_to(a, y->ndim, y->shape, &ab);
    wb_broadcast_to(b, y->ndim, y->shape, &bb);
    switch (s->op) {
    case WB_OP_ADD:
    case WB_OP_SUB:
        if (a->grad) WB_TRY(accum_grad(ctx, a, y, &g, 1.0));
        if (b->grad) WB_TRY(accum_grad(ctx, b, y, &g, s->op == WB_OP_ADD ? 1.0 : -1.0));
        break;
    case WB_OP_MUL:
        if (a->grad) WB_TRY(accum_product(ctx, a, &g, &bb, WB_OP_MUL));
        if (b->grad) WB_TRY(accum_product(ctx, b, &g, &ab, WB_OP_MUL));
        break;
    case WB_OP_DIV:
        /* da = g / b; db = -g * a / b^2 = -(g * y) / b */
        if (a->grad) WB_TRY(accum_product(ctx, a, &g, &bb, WB_OP_DIV));
        if (b->grad) {
            wb_tensor *tmp = temp_like(ctx, &g);
            if (!tmp) return WB_FAIL;
            WB_TRY(BE->binary(BE, WB_OP_MUL, tmp, &g, y, 0));
            WB_TRY(BE->binary(BE, WB_OP_DIV, tmp, tmp, &bb, 0));
            WB_TRY(accum_grad(ctx, b, NULL, tmp, -1.0));
        }
        break;
    }
    return WB_OK;
}

static wb_tensor *binary(wb_ctx *ctx, wb_binop op, wb_tensor *a, wb_tensor *b, const char *name) {
    NEED(a, b);
    if (a->dtype != b->dtype)
        return wb_op_fail(ctx, "%s: dtypes differ (%s, %s)", name, wb_dtype_name(a->dtype), wb_dtype_name(b->dtype));
    int nd;
    int64_t shape[WB_MAX_DIMS];
    char sa[64], sb[64];
    if (wb_broadcast_shape(a, b, &nd, shape) != 0)
        return wb_op_fail(ctx, "%s: shapes %s and %s do not broadcast", name, wb_shape_str(a, sa, 64),
                    wb_shape_str(b, sb, 64));
    wb_tensor *y = wb_new(ctx, a->dtype, nd, shape, a->grad || b->grad);
    if (!y) return NULL;
    wb_tensor ab, bb;
    wb_broadcast_to(a, nd, shape, &ab);
    wb_broadcast_to(b, nd, shape, &bb);
    KCALL(BE->binary(BE, op, y, &ab, &bb, 0));
    binary_saved *s = save(ctx, sizeof *s);
    if (!s) return NULL;
    *s = (binary_saved){a, b, y, op};
    return finish(ctx, y, pb_binary, s, name);
}

wb_tensor *wb_add(wb_ctx *ctx, wb_tensor *a, wb_tensor *b) { return binary(ctx, WB_OP_ADD, a, b, "add"); }
wb_tensor *wb_sub(wb_ctx *ctx, wb_tensor *a, wb_tensor *b) { return binary(ctx, WB_OP_SUB, a, b, "sub"); }
wb_tensor *wb_mul(wb_ctx *ctx, wb_tensor *a, wb_tensor *b) { return binary(ctx, WB_OP_MUL, a, b, "mul"); }
wb_tensor *wb_div(wb_ctx *ctx, wb_tensor *a, wb_tensor *b) { return binary(ctx, WB_OP_DIV, a, b, "div"); }

/* ---------------------------------------------------------------------------------------------
 * elementwise unary ops
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    wb_tensor *a, *y;
    wb_unop op;
    double alpha;
} unary_saved;

static int pb_unary(wb_ctx *ctx, void *p) {
    unary_saved *s = p;
    ACC(acc, s->a, 1);
    wb_tensor g = gview(s->y), ga = gview(s->a);
    if (s->op == WB_OP_IDENTITY) return BE->unary(BE, WB_OP_IDENTITY, s->alpha, &ga, &g, acc);
    return BE->unary_backward(BE, s->op, &ga, &g, s->a, s->y, acc);
}

static wb_tensor *unary(wb_ctx *ctx, wb_unop op, double alpha, wb_tensor *a, const char *name) {
    NEED(a);
    wb_tensor *y = wb_new(ctx, a->dtype, a->ndim, a->shape, a->grad != NULL);
    if (!y) return NULL;
    KCALL(BE->unary(BE, op, alpha, y, a, 0));
    unary_saved *s = save(ctx, sizeof *s);
    if (!s) return NULL;
    *s = (unary_saved){a, y, op, alpha};
    return finish(ctx, y, pb_unary, s, name);
}

wb_tensor *wb_scale(wb_ctx *ctx, wb_tensor *a, double k) { return unary(ctx, WB_OP_IDENTITY, k, a, "scale"); }
wb_tensor *wb_log(wb_ctx *ctx, wb_tensor *a) { return unary(ctx, WB_OP_LOG, 1.0, a, "log"); }
wb_tensor *wb_exp(wb_ctx *ctx, wb_tensor *a) { return unary(ctx, WB_OP_EXP, 1.0, a, "exp"); }
wb_tensor *wb_gelu(wb_ctx *ctx, wb_tensor *a) { return unary(ctx, WB_OP_GELU, 1.0, a, "gelu"); }
wb_tensor *wb_square(wb_ctx *ctx, wb_tensor *a) { return unary(ctx, WB_OP_SQUARE, 1.0, a, "square"); }
wb_tensor *wb_sqrt(wb_ctx *ctx, wb_tensor *a) { return unary(ctx, WB_OP_SQRT, 1.0, a, "sqrt"); }

/* ---------------------------------------------------------------------------------------------
 * reductions along an axis (kept with size 1)
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    wb_tensor *a, *y;
    double scale;
} reduce_saved;

static int pb_reduce(wb_ctx *ctx, void *p) {
    reduce_saved *s = p;
    ACC(acc, s->a, 1);
    wb_tensor gy = gview(s->y), gb, ga = gview(s->a);
    wb_broadcast_to(&gy, s->a->ndim, s->a->shape, &gb);
    return BE->unary(BE, WB_OP_IDENTITY, s->scale, &ga, &gb, acc);
}

static wb_tensor *reduce(wb_ctx *ctx, wb_tensor *a, int axis, int mean, const char *name) {
    NEED(a);
    axis = norm_axis(axis, a->ndim);
    if (axis < 0 || axis >= a->ndim) return wb_op_fail(ctx, "%s: axis out of range", name);
    int64_t shape[WB_MAX_DIMS];
    memcpy(shape, a->shape, sizeof shape);
    shape[axis] = 1;
    wb_tensor *y = wb_new(ctx, a->dtype, a->ndim, shape, a->grad != NULL);
    if (!y) return NULL;
    double scale = mean ? 1.0 / (double)a->shape[axis] : 1.0;
    KCALL(BE->sum_into(BE, y, a, scale, 0));
    reduce_saved *s = save(ctx, sizeof *s);
    if (!s) return NULL;
    *s = (reduce_saved){a, y, scale};
    return finish(ctx, y, pb_reduce, s, name);
}

wb_tensor *wb_sum(wb_ctx *ctx, wb_tensor *a, int axis) { return reduce(ctx, a, axis, 0, "sum"); }
wb_tensor *wb_mean(wb_ctx *ctx, wb_tensor *a, int axis) { return reduce(ctx, a, axis, 1, "mean"); }

/* ---------------------------------------------------------------------------------------------
 * views
 * ------------------------------------------------------------------------------------------ */
int wb_split(wb_ctx *ctx, wb_tensor *a, int axis, int n, const int64_t *sizes, wb_tensor **out) {
    if (ctx->status != WB_OK || !a) return WB_FAIL;
    axis = norm_axis(axis, a->ndim);
    int64_t total = 0;
    for (int i = 0; i < n; i++) total += sizes[i];
    if (axis < 0 || axis >= a->ndim || total != a->shape[axis]) {
        wb_op_fail(ctx, "split: sizes do not add up to dim %d", axis);
        return WB_FAIL;
    }
    int64_t off = 0;
    for (int i = 0; i < n; i++) {
        int64_t shape[WB_MAX_DIMS];
        memcpy(shape, a->shape, sizeof shape);
        shape[axis] = sizes[i];
        out[i] = view_of(ctx, a, off * a->stride[axis], a->ndim, shape, a->stride);
        if (!out[i]) return WB_FAIL;
        off += sizes[i];
    }
    /* One tape entry with no pullback: the parts' gradients already are the parts of a's. */
    if (a->grad && ctx->grad_enabled) {
        wb_pullback pb = {NULL, NULL, "split", NULL};
        return wb_tape_record(ctx, pb);
    }
    return WB_OK;
}

wb_tensor *wb_permute(wb_ctx *ctx, wb_tensor *a, const int *perm) {
    NEED(a);
    int64_t shape[WB_MAX_DIMS], stride[WB_MAX_DIMS];
    int seen = 0;
    for (int i = 0; i < a->ndim; i++) {
        int p = perm[i];
        if (p < 0 || p >= a->ndim || (seen & (1 << p))) return wb_op_fail(ctx, "permute: not a permutation");
        seen |= 1 << p;
        shape[i] = a->shape[p];
        stride[i] = a->stride[p];
    }
    wb_tensor *y = view_of(ctx, a, 0, a->ndim, shape, stride);
    if (!y) return NULL;
    return finish(ctx, y, NULL, NULL, "permute");
}

wb_tensor *wb_transpose(wb_ctx *ctx, wb_tensor *a, int d0, int d1) {
    NEED(a);
    int perm[WB_MAX_DIMS];
    for (int i = 0; i < a->ndim; i++) perm[i] = i;
    d0 = norm_axis(d0, a->ndim), d1 = norm_axis(d1, a->ndim);
    if (d0 < 0 || d1 < 0 || d0 >= a->ndim || d1 >= a->ndim) return wb_op_fail(ctx, "transpose: bad axes");
    perm[d0] = d1, perm[d1] = d0;
    return wb_permute(ctx, a, perm);
}

typedef struct {
    wb_tensor *a, *y;
} copy_saved;

static int pb_contiguous(wb_ctx *ctx, void *p) {
    copy_saved *s = p;
    ACC(acc, s->a, 1);
    wb_tensor g = gview(s->y), ga = gview(s->a);
    return BE->unary(BE, WB_OP_IDENTITY, 1.0, &ga, &g, acc);
}

wb_tensor *wb_contiguous(wb_ctx *ctx, wb_tensor *a) {
    NEED(a);
    if (wb_is_contiguous(a)) return a;
    wb_tensor *y = wb_new(ctx, a->dtype, a->ndim, a->shape, a->grad != NULL);
    if (!y) return NULL;
    KCALL(BE->unary(BE, WB_OP_IDENTITY, 1.0, y, a, 0));
    copy_saved *s = save(ctx, sizeof *s);
    if (!s) return NULL;
    *s = (copy_saved){a, y};
    return finish(ctx, y, pb_contiguous, s, "contiguous");
}

wb_tensor *wb_reshape(wb_ctx *ctx, wb_tensor *a, int ndim, const int64_t *shape) {
    NEED(a);
    int64_t n = 1, stride[WB_MAX_DIMS];
    for (int i = 0; i < ndim; i++) n *= shape[i];
    if (ndim > WB_MAX_DIMS || n != wb_numel(a)) return wb_op_fail(ctx, "reshape: element counts differ");
    if (wb_view_strides(a, ndim, shape, stride) != 0) {
        /* Not expressible as a view (e.g. merging B and heads after a permute): copy first. */
        a = wb_contiguous(ctx, a);
        if (!a) return NULL;
        wb_view_strides(a, ndim, shape, stride);
    }
    wb_tensor *y = view_of(ctx, a, 0, ndim, shape, stride);
    if (!y) return NULL;
    return finish(ctx, y, NULL, NULL, "reshape");
}

/* ---------------------------------------------------------------------------------------------
 * embedding (gather rows by index)
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    wb_tensor *table, *idx, *y2;
} embed_saved;

static int pb_embedding(wb_ctx *ctx, void *p) {
    embed_saved *s = p;
    ACC(acc, s->table, 0);
    wb_tensor g = gview(s->y2), gt = gview(s->table);
    (void)acc; /* scatter_add_rows always adds */
    return BE->scatter_add_rows(BE, &gt, &g, s->idx);
}

wb_tensor *wb_embedding(wb_ctx *ctx, wb_tensor *table, wb_tensor *idx) {
    NEED(table, idx);
    if (table->ndim != 2 || table->stride[1] != 1 || idx->dtype != WB_I32 || !wb_is_contiguous(idx) ||
        idx->ndim > 3)
        return wb_op_fail(ctx, "embedding: wants table (V, C) with contiguous rows and contiguous i32 indices");
    int64_t N = wb_numel(idx), C = table->shape[1];
    int64_t shape2[2] = {N, C};
    wb_tensor *y2 = wb_new(ctx, table->dtype, 2, shape2, table->grad != NULL);
    if (!y2) return NULL;
    wb_tensor idx1 = *idx;
    int64_t nshape[1] = {N};
    wb_set_shape(&idx1, 1, nshape);
    wb_tensor *i1 = save(ctx, sizeof *i1);
    if (!i1) return NULL;
    *i1 = idx1;
    KCALL(BE->gather_rows(BE, y2, table, i1));
    embed_saved *s = save(ctx, sizeof *s);
    if (!s) return NULL;
    *s = (embed_saved){table, i1, y2};
    y2 = finish(ctx, y2, pb_embedding, s, "embedding");
    if (!y2) return NULL;
    int64_t shape[WB_MAX_DIMS];
    for (int i = 0; i < idx->ndim; i++) shape[i] = idx->shape[i];
    shape[idx->ndim] = C;
    return wb_reshape(ctx, y2, idx->ndim + 1, shape);
}

/* ---------------------------------------------------------------------------------------------
 * softmax, causal mask, fused softmax with causal mask
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    wb_tensor *a, *y;
    double scale;
} softmax_saved;

static int pb_softmax(wb_ctx *ctx, void *p) {
    softmax_saved *s = p;
    ACC(acc, s->a, 0);
    wb_tensor g = gview(s->y), ga = gview(s->a);
    (void)acc; /* softmax_backward always adds (and skips the masked part) */
    return BE->softmax_backward(BE, &ga, &g, s->y, s->scale);
}

static wb_tensor *softmax_impl(wb_ctx *ctx, wb_tensor *a, double scale, int causal, const char *name) {
    NEED(a);
    if (causal && (a->ndim < 2 || a->shape[a->ndim - 1] != a->shape[a->ndim - 2]))
        return wb_op_fail(ctx, "%s: wants (..., T, T)", name);
    a = wb_contiguous(ctx, a);
    if (!a) return NULL;
    wb_tensor *y = wb_new(ctx, a->dtype, a->ndim, a->shape, a->grad != NULL);
    if (!y) return NULL;
    KCALL(BE->softmax(BE, y, a, scale, causal));
    softmax_saved *s = save(ctx, sizeof *s);
    if (!s) return NULL;
    *s = (softmax_saved){a, y, scale};
    return finish(ctx, y, pb_softmax, s, name);
}

wb_tensor *wb_softmax(wb_ctx *ctx, wb_tensor *a) { return softmax_impl(ctx, a, 1.0, 0, "softmax"); }
wb_tensor *wb_softmax_causal(wb_ctx *ctx, wb_tensor *a, double scale) {
    return softmax_impl(ctx, a, scale, 1, "softmax_causal");
}

static int pb_causal_mask(wb_ctx *ctx, void *p) {
    copy_saved *s = p;
    ACC(acc, s->a, 1);
    wb_tensor g = gview(s->y), ga = gview(s->a);
    return BE->causal_mask(BE, &ga, &g, 0.0, acc);
}

wb_tensor *wb_causal_mask(wb_ctx *ctx, wb_tensor *a) {
    NEED(a);
    if (a->ndim < 2 || a->shape[a->ndim - 1] != a->shape[a->ndim - 2])
        return wb_op_fail(ctx, "causal_mask: wants (..., T, T)");
    wb_tensor *y = wb_new(ctx, a->dtype, a->ndim, a->shape, a->grad != NULL);
    if (!y) return NULL;
    KCALL(BE->causal_mask(BE, y, a, -INFINITY, 0));
    copy_saved *s = save(ctx, sizeof *s);
    if (!s) return NULL;
    *s = (copy_saved){a, y};
    return finish(ctx, y, pb_causal_mask, s, "causal_mask");
}

/* ---------------------------------------------------------------------------------------------
 * fused causal attention
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    wb_tensor *q, *k, *v, *y, *lse;
    double scale;
} attn_saved;

static int pb_attention(wb_ctx *ctx, void *p) {
    attn_saved *s = p;
    /* q, k, v are the three parts of one qkv gradient: their first write stores into all of it
     * (no memset of the [B*T, 3C] gradient and no read of its zeros: 151 MB a layer at 124M) */
    const wb_tensor *parts[3] = {s->q, s->k, s->v};
    int acc;
    WB_TRY(wb_grad_write_parts(ctx, parts, 3, &acc));
    wb_tensor g = gview(s->y), gq = gview(s->q), gk = gview(s->k), gv = gview(s->v);
    return BE->attention_backward(BE, s->q->grad ? &gq : NULL, s->k->grad ? &gk : NULL, s->v->grad ? &gv : NULL, &g,
                                  s->y, s->lse, s->q, s->k, s->v, s->scale, acc);
}

wb_tensor *wb_attention(wb_ctx *ctx, wb_tensor *q, wb_tensor *k, wb_tensor *v, double scale) {
    NEED(q, k, v);
    if (q->ndim != 4 || !wb_same_shape(q, k) || !wb_same_shape(q, v) || q->dtype != k->dtype || q->dtype != v->dtype)
        return wb_op_fail(ctx, "attention: wants q, k, v of one shape (B, H, T, D) and dtype");
    int64_t B = q->shape[0], H = q->shape[1], T = q->shape[2], D = q->shape[3];
    if (!BE->attention || !BE->attention_supported(BE, q->dtype, D) || q->stride[3] != 1 || k->stride[3] != 1 ||
        v->stride[3] != 1) {
        /* the unfused spelling: (B*H, T, D) copies, two batched GEMMs and the fused softmax */
        int64_t s3[3] = {B * H, T, D}, s4[4] = {B, H, T, D};
        wb_tensor *q3 = wb_reshape(ctx, q, 3, s3), *k3 = wb_reshape(ctx, k, 3, s3), *v3 = wb_reshape(ctx, v, 3, s3);
        wb_tensor *att = wb_softmax_causal(ctx, wb_bmm(ctx, q3, wb_transpose(ctx, k3, 1, 2)), scale);
        return wb_reshape(ctx, wb_bmm(ctx, att, v3), 4, s4);
    }
    int64_t bshape[4] = {B, T, H, D}, nshape[1] = {B * H * T};
    int with_grad = q->grad || k->grad || v->grad;
    wb_tensor *ybuf = wb_new(ctx, q->dtype, 4, bshape, with_grad);
    wb_tensor *lse = wb_new(ctx, wb_stat_dtype(q->dtype), 1, nshape, 0);
    if (!ybuf || !lse) return NULL;
    int64_t yshape[4] = {B, H, T, D}, ystride[4] = {ybuf->stride[0], ybuf->stride[2], ybuf->stride[1], 1};
    wb_tensor *y = view_of(ctx, ybuf, 0, 4, yshape, ystride);
    if (!y) return NULL;
    KCALL(BE->attention(BE, y, lse, q, k, v, scale));
    attn_saved *s = save(ctx, sizeof *s);
    if (!s) return NULL;
    *s = (attn_saved){q, k, v, y, lse, scale};
    return finish(ctx, y, pb_attention, s, "attention");
}

/* ---------------------------------------------------------------------------------------------
 * layer norm (fused: one kernel forward, one (plus the weight reductions) backward)
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    wb_tensor *x2, *w, *b, *y2, *mean, *rstd;
} ln_saved;

static int pb_layernorm(wb_ctx *ctx, void *p) {
    ln_saved *s = p;
    int acc; /* always adds */
    WB_TRY(wb_grad_write(ctx, s->x2, 0, &acc));
    WB_TRY(wb_grad_write(ctx, s->w, 0, &acc));
    WB_TRY(wb_grad_write(ctx, s->b, 0, &acc));
    wb_tensor g = gview(s->y2), gx = gview(s->x2), gw = gview(s->w), gb = gview(s->b);
    return BE->layernorm_backward(BE, s->x2->grad ? &gx : NULL, s->w->grad ? &gw : NULL,
                                  s->b->grad ? &gb : NULL, &g, s->x2, s->w, s->mean, s->rstd);
}

wb_tensor *wb_layernorm(wb_ctx *ctx, wb_tensor *x, wb_tensor *w, wb_tensor *b, double eps) {
    NEED(x, w, b);
    int64_t C = x->shape[x->ndim - 1];
    if (w->ndim != 1 || b->ndim != 1 || w->shape[0] != C || b->shape[0] != C || !wb_is_contiguous(w) ||
        !wb_is_contiguous(b))
        return wb_op_fail(ctx, "layernorm: weight and bias must be contiguous (%lld)", (long long)C);
    int64_t N = wb_numel(x) / C;
    int64_t shape2[2] = {N, C}, nshape[1] = {N};
    wb_tensor *x2 = wb_reshape(ctx, wb_contiguous(ctx, x), 2, shape2);
    if (!x2) return NULL;
    wb_dtype st = wb_stat_dtype(x->dtype);
    wb_tensor *mean = wb_new(ctx, st, 1, nshape, 0), *rstd = wb_new(ctx, st, 1, nshape, 0);
    wb_tensor *y2 = wb_new(ctx, x->dtype, 2, shape2, x->grad || w->grad || b->grad);
    if (!mean || !rstd || !y2) return NULL;
    KCALL(BE->layernorm(BE, y2, mean, rstd, x2, w, b, eps));
    ln_saved *s = save(ctx, sizeof *s);
    if (!s) return NULL;
    *s = (ln_saved){x2, w, b, y2, mean, rstd};
    y2 = finish(ctx, y2, pb_layernorm, s, "layernorm");
    return wb_reshape(ctx, y2, x->ndim, x->shape);
}

/* ---------------------------------------------------------------------------------------------
 * cross-entropy with logits (softmax fused in: the pullback recomputes it from the saved
 * log-sum-exp instead of storing probabilities). A training step's backward starts at this loss
 * with gradient 1, so where the backend has cross_entropy_fused the forward stores the logits'
 * gradient for that seed while it reads the logits anyway (the fused classifier: the 1.65 GB
 * logits of GPT-2 124M read once instead of twice), and the pullback has nothing left to do.
 * Any other backward (another seed, another root, a second one) finds glogits_ready unusable and
 * computes the gradient from the saved log-sum-exp as without the fusion.
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    wb_tensor *logits2, *targets1, *lse, *loss;
    int64_t vocab;
    int glogits_ready; /* the forward stored the logits' gradient for a loss gradient of 1 */
} ce_saved;

static int pb_cross_entropy(wb_ctx *ctx, void *p) {
    ce_saved *s = p;
    int ready = s->glogits_ready && ctx->seeded_one == s->loss;
    s->glogits_ready = 0; /* once: a later backward may have reused that memory */
    ACC(acc, s->logits2, 1);
    if (ready && !acc) return WB_OK; /* the first write of the logits' gradient: the forward's */
    wb_tensor gl = gview(s->logits2), gloss = gview(s->loss);
    return BE->cross_entropy_backward(BE, &gl, &gloss, s->lse, s->logits2, s->targets1, s->vocab, acc);
}

/* May the forward write x's gradient? Only one of the gradient arena (not a parameter's, which
 * accumulates across steps) that x covers alone (x contiguous): nothing reads it before backward,
 * whose first write of it is then the cross-entropy pullback's store. */
static int grad_is_own_arena_buffer(const wb_ctx *ctx, const wb_tensor *x) {
    const wb_grad_buf *gb = x->gbuf;
    return ctx->grad_enabled && gb && x->grad == gb->base && wb_is_contiguous(x) &&
           (size_t)wb_numel(x) * wb_dtype_size(x->dtype) == gb->bytes;
}

wb_tensor *wb_cross_entropy(wb_ctx *ctx, wb_tensor *logits, wb_tensor *targets, int64_t vocab) {
    NEED(logits, targets);
    int64_t Vp = logits->shape[logits->ndim - 1], N = wb_numel(logits) / Vp;
    if (targets->dtype != WB_I32 || wb_numel(targets) != N || !wb_is_contiguous(targets) || vocab > Vp || vocab < 1)
        return wb_op_fail(ctx, "cross_entropy: wants logits (..., Vp), contiguous i32 targets (...), vocab <= Vp");
    int64_t shape2[2] = {N, Vp}, nshape[1] = {N};
    wb_tensor *l2 = wb_reshape(ctx, wb_contiguous(ctx, logits), 2, shape2);
    if (!l2) return NULL;
    wb_tensor *t1 = save(ctx, sizeof *t1);
    if (!t1) return NULL;
    *t1 = *targets;
    wb_set_shape(t1, 1, nshape);
    wb_dtype st = wb_stat_dtype(logits->dtype);
    wb_tensor *lse = wb_new(ctx, st, 1, nshape, 0);
    wb_tensor *loss = wb_new(ctx, st, 0, NULL, logits->grad != NULL);
    if (!lse || !loss) return NULL;
    int fused = BE->cross_entropy_fused && loss->grad && grad_is_own_arena_buffer(ctx, l2);
    if (fused) {
        wb_tensor gl = gview(l2);
        KCALL(BE->cross_entropy_fused(BE, loss, lse, &gl, l2, t1, vocab));
    } else {
        KCALL(BE->cross_entropy(BE, loss, lse, l2, t1, vocab));
    }
    ce_saved *s = save(ctx, sizeof *s);
    if (!s) return NULL;
    *s = (ce_saved){l2, t1, lse, loss, vocab, fused};
    return finish(ctx, loss, pb_cross_entropy, s, "cross_entropy");
}

/* ---------------------------------------------------------------------------------------------
 * dropout (the mask is a hash of (seed, index), recomputed in the pullback, never stored)
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    wb_tensor *a, *y;
    float p;
    uint64_t seed;
} dropout_saved;

static int pb_dropout(wb_ctx *ctx, void *p) {
    dropout_saved *s = p;
    ACC(acc, s->a, 1);
    wb_tensor g = gview(s->y), ga = gview(s->a);
    return BE->dropout(BE, &ga, &g, s->p, s->seed, acc);
}

wb_tensor *wb_dropout(wb_ctx *ctx, wb_tensor *a, float p) {
    NEED(a);
    if (p <= 0.0f || !ctx->training) return a;
    if (p >= 1.0f) return wb_op_fail(ctx, "dropout: p must be below 1");
    uint64_t seed = ctx->seed * 0x9E3779B97F4A7C15ull + (++ctx->dropout_calls);
    wb_tensor *y = wb_new(ctx, a->dtype, a->ndim, a->shape, a->grad != NULL);
    if (!y) return NULL;
    KCALL(BE->dropout(BE, y, a, p, seed, 0));
    dropout_saved *s = save(ctx, sizeof *s);
    if (!s) return NULL;
    *s = (dropout_saved){a, y, p, seed};
    return finish(ctx, y, pb_dropout, s, "dropout");
}

