/*
 * tape.c: the context, the tape and backward (see engine.h).
 *
 * backward replays the tape from the end. NVTX ranges recorded in the forward pass are replayed
 * mirrored: a recorded pop opens the range, a recorded push closes it, so each layer's pullbacks
 * sit inside a range named after its forward one ("layer_bwd", "attn_bwd", "mlp_bwd").
 */
#include "engine.h"

#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wb_check.h"

int wb_ctx_init(wb_ctx *ctx, wb_backend *be, wb_dtype dtype, size_t chunk_bytes) {
    memset(ctx, 0, sizeof *ctx);
    ctx->be = be;
    ctx->dtype = dtype;
    ctx->grad_enabled = 1;
    ctx->training = 1;
    ctx->nvtx = 1;
    ctx->seed = 1234;
    if (!be->supports(be, dtype)) {
        fprintf(stderr, "backend %s does not support dtype %s\n", be->name, wb_dtype_name(dtype));
        return WB_FAIL;
    }
    WB_TRY(wb_arena_init(&ctx->host, NULL, 4u << 20, "host"));
    WB_TRY(wb_arena_init(&ctx->act, be, chunk_bytes, "activations"));
    WB_TRY(wb_arena_init(&ctx->grad, be, chunk_bytes, "gradients"));
    ctx->tape.cap = 1024;
    ctx->tape.entries = malloc((size_t)ctx->tape.cap * sizeof *ctx->tape.entries);
    if (!ctx->tape.entries) return WB_FAIL;
    return WB_OK;
}

void wb_ctx_free(wb_ctx *ctx) {
    wb_arena_free(&ctx->host);
    wb_arena_free(&ctx->act);
    wb_arena_free(&ctx->grad);
    free(ctx->tape.entries);
    ctx->tape.entries = NULL;
}

int wb_ctx_reset(wb_ctx *ctx) {
    WB_TRY(wb_arena_reset(&ctx->host));
    WB_TRY(wb_arena_reset(&ctx->act));
    WB_TRY(wb_arena_reset(&ctx->grad));
    ctx->tape.n = 0;
    ctx->grad_bufs = NULL;
    ctx->status = WB_OK;
    ctx->range_depth = 0;
    return WB_OK;
}

static int tape_push(wb_ctx *ctx, wb_tape_entry e) {
    wb_tape *t = &ctx->tape;
    if (t->n == t->cap) {
        int cap = t->cap * 2;
        wb_tape_entry *p = realloc(t->entries, (size_t)cap * sizeof *p);
        if (!p) {
            fprintf(stderr, "tape: out of memory\n");
            ctx->status = WB_FAIL;
            return WB_FAIL;
        }
        t->entries = p;
        t->cap = cap;
    }
    t->entries[t->n++] = e;
    return WB_OK;
}

int wb_tape_record(wb_ctx *ctx, wb_pullback pb) {
    wb_tape_entry e = {WB_TAPE_PULLBACK, pb, NULL};
    return tape_push(ctx, e);
}

/* Does x's gradient view cover its whole allocation, each element once? Yes when it starts at the
 * allocation, has its size, and is a permutation of a contiguous layout (a transposed view too). */
static int covers(const wb_tensor *x, const wb_grad_buf *gb) {
    if (x->grad != gb->base || (size_t)wb_numel(x) * wb_dtype_size(x->dtype) != gb->bytes) return 0;
    int64_t expect = 1; /* the next stride a contiguous layout needs, dims taken by rising stride */
    int used = 0;
    for (int k = 0; k < x->ndim; k++) {
        int best = -1;
        for (int d = 0; d < x->ndim; d++)
            if (!(used >> d & 1) && x->shape[d] > 1 && (best < 0 || x->stride[d] < x->stride[best])) best = d;
        if (best < 0) break; /* only size-1 dims left */
        if (x->stride[best] != expect) return 0;
        expect *= x->shape[best];
        used |= 1 << best;
    }
    return 1;
}

void *wb_grad_ptr(const wb_tensor *x) {
    const wb_grad_buf *gb = x->gbuf;
    if (!x->grad || !gb || gb->data == gb->base) return x->grad;
    return (char *)gb->data + ((char *)x->grad - (char *)gb->base);
}

static int live(const wb_grad_buf *gb) { return gb->written && !gb->consumed; }

int wb_grad_own(wb_ctx *ctx, const wb_tensor *x) {
    wb_grad_buf *gb = x->gbuf;
    int shared_live = 0;
    for (wb_grad_buf *o = gb ? gb->ring : NULL; o && o != gb; o = o->ring) shared_live |= live(o);
    if (!shared_live) return WB_OK; /* alone, or every other user of the memory is done with it */
    if (gb->data == gb->base) { /* never: the owner (an add's output) is done when others join it */
        fprintf(stderr, "engine: a gradient that others alias is written while they still need it\n");
        return WB_FAIL;
    }
    int64_t n = (int64_t)(gb->bytes / wb_dtype_size(x->dtype));
    wb_tensor src = {0}, dst;
    src.dtype = x->dtype;
    wb_set_shape(&src, 1, &n);
    dst = src;
    src.data = gb->data, dst.data = gb->base;
    WB_TRY(ctx->be->unary(ctx->be, WB_OP_IDENTITY, 1.0, &dst, &src, 0)); /* x's own copy */
    gb->data = gb->base;
    wb_grad_buf *prev = gb; /* and off the ring */
    while (prev->ring != gb) prev = prev->ring;
    prev->ring = gb->ring, gb->ring = gb;
    return WB_OK;
}

int wb_grad_write(wb_ctx *ctx, const wb_tensor *x, int whole, int *acc) {
    wb_grad_buf *gb = x->gbuf;
    *acc = 1;
    if (ctx->grad_write_hook) ctx->grad_write_hook(ctx->backward_hook_user, x);
    if (gb && gb->gelu_folded) {
        fprintf(stderr, "engine: the output of linear_gelu has a second consumer; its pullback was folded into the first\n");
        return WB_FAIL;
    }
    if (!gb) return WB_OK;
    if (gb->written) return wb_grad_own(ctx, x);
    gb->written = 1;
    if (whole && covers(x, gb)) {
        *acc = 0;
        return WB_OK;
    }
    return ctx->be->memset0(ctx->be, gb->base, gb->bytes);
}

/* xs[0..n) have one shape, strides and dtype, and sit side by side along one dimension d (part
 * i starts i parts' extent along d after part 0): together they are one view with n times the
 * size along d. Does that view cover gb exactly? */
static int tile(const wb_tensor *const *xs, int n, const wb_grad_buf *gb) {
    const wb_tensor *x = xs[0];
    for (int i = 1; i < n; i++) {
        const wb_tensor *y = xs[i];
        if (y->gbuf != gb || !y->grad || y->dtype != x->dtype || y->ndim != x->ndim) return 0;
        for (int d = 0; d < x->ndim; d++)
            if (y->shape[d] != x->shape[d] || y->stride[d] != x->stride[d]) return 0;
    }
    int64_t es = (int64_t)wb_dtype_size(x->dtype);
    for (int d = 0; d < x->ndim; d++) {
        int64_t extent = x->stride[d] * x->shape[d] * es, i = 1;
        while (i < n && (char *)xs[i]->grad - (char *)x->grad == i * extent) i++;
        if (i < n) continue;
        wb_tensor all = *x;
        all.shape[d] *= n;
        return covers(&all, gb);
    }
    return 0;
}

int wb_grad_write_parts(wb_ctx *ctx, const wb_tensor *const *xs, int n, int *acc) {
    wb_grad_buf *gb = xs[0]->gbuf;
    if (gb && xs[0]->grad && !gb->written && !gb->gelu_folded && tile(xs, n, gb)) {
        for (int i = 0; i < n; i++)
            if (ctx->grad_write_hook) ctx->grad_write_hook(ctx->backward_hook_user, xs[i]);
        gb->written = 1;
        *acc = 0;
        return WB_OK;
    }
    for (int i = 0; i < n; i++) WB_TRY(wb_grad_write(ctx, xs[i], 0, acc));
    *acc = 1;
    return WB_OK;
}

/* element i of x's and of y's gradient at the same offset from their starts */
static int same_layout(const wb_tensor *x, const wb_tensor *y) {
    if (x->dtype != y->dtype || wb_numel(x) != wb_numel(y)) return 0;
    if (wb_is_contiguous(x) && wb_is_contiguous(y)) return 1;
    if (x->ndim != y->ndim) return 0;
    for (int d = 0; d < x->ndim; d++)
        if (x->shape[d] != y->shape[d] || (x->shape[d] > 1 && x->stride[d] != y->stride[d])) return 0;
    return 1;
}

int wb_grad_alias(wb_ctx *ctx, const wb_tensor *x, const wb_tensor *y, int *aliased) {
    wb_grad_buf *gx = x->gbuf, *gy = y->gbuf;
    (void)ctx;
    *aliased = 0;
    if (!gx || !gy || gx == gy || gx->written || gx->gelu_pre || !gy->written || !covers(x, gx) || !covers(y, gy) ||
        !same_layout(x, y))
        return WB_OK;
    gx->written = 1, gx->data = gy->data;
    gx->ring = gy->ring, gy->ring = gx; /* join y's ring */
    *aliased = 1;
    return WB_OK;
}

void wb_range_push(wb_ctx *ctx, const char *name, const char *bwd_name) {
    if (ctx->nvtx) nvtxRangePushA(name);
    if (ctx->range_hook) ctx->range_hook(ctx->range_hook_user, name, 1);
    if (ctx->range_depth < 32) ctx->range_stack[ctx->range_depth] = bwd_name;
    ctx->range_depth++;
    if (ctx->grad_enabled) {
        wb_tape_entry e = {WB_TAPE_RANGE_PUSH, {0}, bwd_name};
        tape_push(ctx, e);
    }
}

void wb_range_pop(wb_ctx *ctx) {
    if (ctx->nvtx) nvtxRangePop();
    if (ctx->range_hook) ctx->range_hook(ctx->range_hook_user, NULL, 0);
    if (ctx->range_depth > 0) ctx->range_depth--;
    const char *name = ctx->range_depth < 32 ? ctx->range_stack[ctx->range_depth] : "?";
    if (ctx->grad_enabled) {
        wb_tape_entry e = {WB_TAPE_RANGE_POP, {0}, name};
        tape_push(ctx, e);
    }
}

static int run_tape(wb_ctx *ctx);

static void reset_grad_bufs(wb_ctx *ctx) {
    for (wb_grad_buf *b = ctx->grad_bufs; b; b = b->next)
        b->written = 0, b->consumed = 0, b->data = b->base, b->ring = b;
}

int wb_backward(wb_ctx *ctx, wb_tensor *loss) {
    if (ctx->status != WB_OK || !loss) return WB_FAIL;
    if (!loss->grad || wb_numel(loss) != 1) {
        fprintf(stderr, "backward: the loss must be a scalar that carries a gradient\n");
        return WB_FAIL;
    }
    reset_grad_bufs(ctx);
    wb_tensor *g = wb_grad_of(ctx, loss);
    int acc;
    if (!g || wb_grad_write(ctx, loss, 1, &acc) != WB_OK) return WB_FAIL;
    WB_TRY(ctx->be->fill(ctx->be, g, 1.0));
    ctx->seeded_one = loss; /* only while its pullbacks run */
    int rc = run_tape(ctx);
    ctx->seeded_one = NULL;
    return rc;
}

int wb_backward_with(wb_ctx *ctx, wb_tensor *y, const wb_tensor *gy) {
    if (ctx->status != WB_OK || !y || !gy) return WB_FAIL;
    if (!y->grad || !wb_same_shape(y, gy) || y->dtype != gy->dtype) {
        fprintf(stderr, "backward_with: y must carry a gradient and gy match its shape and dtype\n");
        return WB_FAIL;
    }
    reset_grad_bufs(ctx);
    wb_tensor *g = wb_grad_of(ctx, y);
    int acc;
    if (!g || wb_grad_write(ctx, y, 1, &acc) != WB_OK) return WB_FAIL;
    WB_TRY(ctx->be->unary(ctx->be, WB_OP_IDENTITY, 1.0, g, gy, acc));
    return run_tape(ctx);
}

static int run_tape(wb_ctx *ctx) {
    for (int i = ctx->tape.n - 1; i >= 0; i--) {
        wb_tape_entry *e = &ctx->tape.entries[i];
        switch (e->kind) {
        case WB_TAPE_RANGE_POP:
            if (ctx->nvtx) nvtxRangePushA(e->range);
            if (ctx->range_hook) ctx->range_hook(ctx->range_hook_user, e->range, 1);
            break;
        case WB_TAPE_RANGE_PUSH:
            if (ctx->nvtx) nvtxRangePop();
            if (ctx->range_hook) ctx->range_hook(ctx->range_hook_user, NULL, 0);
            break;
        case WB_TAPE_PULLBACK:
            if (e->pb.out && e->pb.out->gbuf && !e->pb.out->gbuf->written) break; /* its gradient is 0 */
            if (e->pb.fn && e->pb.fn(ctx, e->pb.saved) != WB_OK) {
                fprintf(stderr, "backward: the pullback of %s failed\n", e->pb.name);
                ctx->status = WB_FAIL;
                return WB_FAIL;
            }
            if (e->pb.fn && e->pb.out && e->pb.out->gbuf) e->pb.out->gbuf->consumed = 1; /* read for the last time */
            if (ctx->pullback_hook && ctx->pullback_hook(ctx->backward_hook_user, i) != WB_OK) {
                fprintf(stderr, "backward: the hook after the pullback of %s failed\n", e->pb.name);
                ctx->status = WB_FAIL;
                return WB_FAIL;
            }
            break;
        }
    }
    /* gradients that no pullback reached are zero (a leaf the loss does not depend on) */
    for (wb_grad_buf *b = ctx->grad_bufs; b && ctx->status == WB_OK; b = b->next)
        if (!b->written) {
            b->written = 1;
            if (ctx->be->memset0(ctx->be, b->data, b->bytes) != WB_OK) ctx->status = WB_FAIL;
        }
    return ctx->status;
}
