/*
 * ops_matmul.c: the matrix-product primitives and their pullbacks (mm, bmm, linear, linear + GELU,
 * linear + residual): one GEMM per input that needs a gradient, one column-sum reduction for a
 * bias, and nothing for the residual (its gradient is an alias of the output's).
 */
#include <string.h>

#include "ops_internal.h"

/* ---------------------------------------------------------------------------------------------
 * matrix products
 * ------------------------------------------------------------------------------------------ */
/* cuBLAS wants unit stride in one of the last two dims and a leading dimension that covers it. */
static int matrix_layout_ok(const wb_tensor *t) {
    int n = t->ndim;
    int64_t r = t->shape[n - 2], c = t->shape[n - 1], s0 = t->stride[n - 2], s1 = t->stride[n - 1];
    if (s1 == 1 && s0 >= c && s0 > 0) return 1;
    if (s0 == 1 && s1 >= r && s1 > 0) return 1;
    return 0;
}

static wb_tensor *as_matrix(wb_ctx *ctx, wb_tensor *t) {
    if (!t) return NULL;
    return matrix_layout_ok(t) ? t : wb_contiguous(ctx, t);
}

/* y (M, N), the product of x (lead..., K) as a matrix, viewed back as (lead..., N) */
static wb_tensor *lead_view(wb_ctx *ctx, wb_tensor *y, const wb_tensor *x) {
    if (!y || x->ndim == 2) return y;
    int64_t out_shape[WB_MAX_DIMS];
    memcpy(out_shape, x->shape, sizeof out_shape);
    out_shape[x->ndim - 1] = y->shape[1];
    return wb_reshape(ctx, y, x->ndim, out_shape);
}

typedef struct {
    wb_tensor *a, *b, *bias, *y; /* a (.., M, K), b (.., K, N) (or w (N, K) for linear), y (.., M, N) */
    int b_is_weight;             /* linear: b holds w (N, K) and the product used w^T */
    wb_tensor *res;              /* linear + residual: y = res + linear(a), res of y's layout; or NULL */
} mm_saved;

static int pb_mm(wb_ctx *ctx, void *p) {
    mm_saved *s = p;
    wb_tensor g = gview(s->y);
    if (s->res && s->res->grad) WB_TRY(accum_grad(ctx, s->res, s->y, &g, 1.0)); /* an alias: no kernel */
    /* b_used: the (K, N) operand of the forward product. */
    wb_tensor b_used = s->b_is_weight ? transposed(s->b) : *s->b;
    if (s->a->grad) { /* da (M, K) (+)= g (M, N) @ b_used^T (N, K) */
        ACC(acc, s->a, 1);
        wb_tensor ga = gview(s->a), bt = transposed(&b_used);
        wb_grad_buf *gb = s->a->gbuf;
        if (!acc && gb && gb->gelu_pre && BE->gemm_dgelu) { /* a = gelu(pre): write pre's gradient */
            WB_TRY(BE->gemm_dgelu(BE, &ga, &g, &bt, gb->gelu_pre));
            gb->gelu_folded = 1;
        } else {
            WB_TRY(BE->gemm(BE, &ga, &g, &bt, NULL, 1.0, acc));
        }
    }
    if (s->b->grad) {
        if (s->b_is_weight) { /* dw (N, K) (+)= g^T (N, M) @ a (M, K) */
            ACC(acc, s->b, 1);
            wb_tensor gw = gview(s->b), gt = transposed(&g);
            WB_TRY(BE->gemm(BE, &gw, &gt, s->a, NULL, 1.0, acc));
        } else { /* db (K, N) (+)= a^T (K, M) @ g (M, N) */
            ACC(acc, s->b, 1);
            wb_tensor gb = gview(s->b), at = transposed(s->a);
            WB_TRY(BE->gemm(BE, &gb, &at, &g, NULL, 1.0, acc));
        }
    }
    if (s->bias && s->bias->grad) { /* dbias (N) (+)= sum of g's rows */
        ACC(acc, s->bias, 1);
        wb_tensor gbias = grad_as_ndim(s->bias, 2);
        WB_TRY(BE->sum_into(BE, &gbias, &g, 1.0, acc));
    }
    return WB_OK;
}

/* y (M, N) = a2 (M, K) @ (b or w^T) + bias (+ res), then viewed back to (lead..., N). */
static wb_tensor *matmul2d(wb_ctx *ctx, wb_tensor *a, wb_tensor *b, wb_tensor *bias, int b_is_weight, wb_tensor *res,
                           const char *name) {
    int64_t K = a->shape[a->ndim - 1];
    int64_t N = b_is_weight ? b->shape[0] : b->shape[1];
    int64_t kb = b_is_weight ? b->shape[1] : b->shape[0];
    if (b->ndim != 2 || kb != K) return wb_op_fail(ctx, "%s: inner dimensions differ (%lld, %lld)", name, (long long)K, (long long)kb);
    if (bias && (bias->ndim != 1 || bias->shape[0] != N)) return wb_op_fail(ctx, "%s: bias must be (%lld)", name, (long long)N);
    int64_t M = wb_numel(a) / (K ? K : 1);
    int64_t shape2[2] = {M, K};
    wb_tensor *a2 = as_matrix(ctx, wb_reshape(ctx, a, 2, shape2));
    wb_tensor *b2 = as_matrix(ctx, b);
    if (!a2 || !b2) return NULL;
    if (a->dtype != b->dtype) return wb_op_fail(ctx, "%s: dtypes differ", name);
    int64_t yshape[2] = {M, N};
    wb_tensor *y = wb_new(ctx, a->dtype, 2, yshape, a2->grad || b2->grad || (bias && bias->grad) || (res && res->grad));
    if (!y) return NULL;
    wb_tensor bt = b_is_weight ? transposed(b2) : *b2;
    if (res) { /* res as (M, N): contiguous, checked by the caller */
        wb_tensor r2 = *res;
        wb_set_shape(&r2, 2, yshape);
        if (BE->gemm_add) {
            KCALL(BE->gemm_add(BE, y, a2, &bt, bias, &r2));
        } else {
            KCALL(BE->gemm(BE, y, a2, &bt, bias, 1.0, 0));
            KCALL(BE->binary(BE, WB_OP_ADD, y, y, &r2, 0));
        }
    } else {
        KCALL(BE->gemm(BE, y, a2, &bt, bias, 1.0, 0));
    }
    mm_saved *s = save(ctx, sizeof *s);
    if (!s) return NULL;
    *s = (mm_saved){a2, b2, bias, y, b_is_weight, res};
    return lead_view(ctx, finish(ctx, y, pb_mm, s, name), a);
}

wb_tensor *wb_mm(wb_ctx *ctx, wb_tensor *a, wb_tensor *b) {
    NEED(a, b);
    if (a->ndim < 2 || b->ndim != 2) return wb_op_fail(ctx, "mm: wants (..., K) @ (K, N)");
    return matmul2d(ctx, a, b, NULL, 0, NULL, "mm");
}

wb_tensor *wb_linear(wb_ctx *ctx, wb_tensor *x, wb_tensor *w, wb_tensor *bias) {
    NEED(x, w);
    if (x->ndim < 2 || w->ndim != 2) return wb_op_fail(ctx, "linear: wants x (..., K), w (N, K)");
    return matmul2d(ctx, x, w, bias, 1, NULL, "linear");
}

wb_tensor *wb_linear_residual(wb_ctx *ctx, wb_tensor *x, wb_tensor *w, wb_tensor *bias, wb_tensor *res) {
    NEED(x, w, res);
    if (x->ndim < 2 || w->ndim != 2 || res->ndim != x->ndim || res->dtype != x->dtype)
        return wb_op_fail(ctx, "linear_residual: wants x (..., K), w (N, K), res (..., N)");
    for (int d = 0; d < x->ndim; d++)
        if (res->shape[d] != (d == x->ndim - 1 ? w->shape[0] : x->shape[d]))
            return wb_op_fail(ctx, "linear_residual: res must have the output's shape");
    if (!wb_is_contiguous(res)) return wb_add(ctx, res, wb_linear(ctx, x, w, bias));
    return matmul2d(ctx, x, w, bias, 1, res, "linear_residual");
}

/* linear + GELU: pre = x w^T + bias is kept for the pullback; y = gelu(pre). y's gradient either
 * arrives already multiplied by gelu'(pre) (its consumer's GEMM folded that in: gemm_dgelu), or is
 * turned into pre's gradient here, in place. Then the linear pullback as pb_mm's, from pre's
 * gradient: dw += dpre^T x, dbias += column sums of dpre, dx (+)= dpre w. */
typedef struct {
    wb_tensor *x2, *w, *bias, *pre, *y;
} linear_gelu_saved;

static int pb_linear_gelu(wb_ctx *ctx, void *p) {
    linear_gelu_saved *s = p;
    wb_tensor dpre = gview(s->y); /* y's gradient memory, turned into pre's gradient */
    if (!s->y->gbuf->gelu_folded) {
        WB_TRY(wb_grad_own(ctx, s->y)); /* changed in place below */
        dpre = gview(s->y);
        WB_TRY(BE->unary_backward(BE, WB_OP_GELU, &dpre, &dpre, s->pre, s->y, 0));
    }
    mm_saved mm = {s->x2, s->w, s->bias, s->y, 1, NULL}; /* pb_mm reads gview(y): now pre's gradient */
    return pb_mm(ctx, &mm);
}

wb_tensor *wb_linear_gelu(wb_ctx *ctx, wb_tensor *x, wb_tensor *w, wb_tensor *bias) {
    NEED(x, w);
    if (x->ndim < 2 || w->ndim != 2 || w->shape[1] != x->shape[x->ndim - 1] || x->dtype != w->dtype ||
        (bias && (bias->ndim != 1 || bias->shape[0] != w->shape[0])))
        return wb_op_fail(ctx, "linear_gelu: wants x (..., K), w (N, K), bias (N)");
    int64_t K = x->shape[x->ndim - 1], N = w->shape[0], M = wb_numel(x) / (K ? K : 1);
    int64_t shape2[2] = {M, K}, yshape[2] = {M, N};
    wb_tensor *x2 = as_matrix(ctx, wb_reshape(ctx, x, 2, shape2)), *w2 = as_matrix(ctx, w);
    if (!x2 || !w2) return NULL;
    int grad = x2->grad || w2->grad || (bias && bias->grad);
    wb_tensor *pre = wb_new(ctx, x->dtype, 2, yshape, 0), *y = wb_new(ctx, x->dtype, 2, yshape, grad);
    if (!pre || !y) return NULL;
    wb_tensor wt = transposed(w2);
    if (BE->gemm_gelu) {
        KCALL(BE->gemm_gelu(BE, y, pre, x2, &wt, bias));
    } else {
        KCALL(BE->gemm(BE, pre, x2, &wt, bias, 1.0, 0));
        KCALL(BE->unary(BE, WB_OP_GELU, 1.0, y, pre, 0));
    }
    if (y->gbuf) y->gbuf->gelu_pre = pre;
    linear_gelu_saved *s = save(ctx, sizeof *s);
    if (!s) return NULL;
    *s = (linear_gelu_saved){x2, w2, bias, pre, y};
    return lead_view(ctx, finish(ctx, y, pb_linear_gelu, s, "linear_gelu"), x);
}

wb_tensor *wb_bmm(wb_ctx *ctx, wb_tensor *a, wb_tensor *b) {
    NEED(a, b);
    if (a->ndim != 3 || b->ndim != 3 || a->shape[0] != b->shape[0] || a->shape[2] != b->shape[1])
        return wb_op_fail(ctx, "bmm: wants (B, M, K) @ (B, K, N)");
    if (a->dtype != b->dtype) return wb_op_fail(ctx, "bmm: dtypes differ");
    a = as_matrix(ctx, a);
    b = as_matrix(ctx, b);
    if (!a || !b) return NULL;
    int64_t shape[3] = {a->shape[0], a->shape[1], b->shape[2]};
    wb_tensor *y = wb_new(ctx, a->dtype, 3, shape, a->grad || b->grad);
    if (!y) return NULL;
    KCALL(BE->gemm(BE, y, a, b, NULL, 1.0, 0));
    mm_saved *s = save(ctx, sizeof *s);
    if (!s) return NULL;
    *s = (mm_saved){a, b, NULL, y, 0, NULL};
    return finish(ctx, y, pb_mm, s, "bmm");
}

