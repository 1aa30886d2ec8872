/*
 * tape.c: the context, the tape and backward (see engine.h), plus host <-> tensor copies.
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

int wb_backward(wb_ctx *ctx, wb_tensor *loss) {
    if (ctx->status != WB_OK || !loss) return WB_FAIL;
    if (!loss->grad || wb_numel(loss) != 1) {
        fprintf(stderr, "backward: the loss must be a scalar that carries a gradient\n");
        return WB_FAIL;
    }
    /* One memset clears every activation gradient of this step (pullbacks only accumulate). */
    WB_TRY(wb_arena_zero_used(&ctx->grad));
    wb_tensor *g = wb_grad_of(ctx, loss);
    if (!g) return WB_FAIL;
    WB_TRY(ctx->be->fill(ctx->be, g, 1.0));
    return run_tape(ctx);
}

int wb_backward_with(wb_ctx *ctx, wb_tensor *y, const wb_tensor *gy) {
    if (ctx->status != WB_OK || !y || !gy) return WB_FAIL;
    if (!y->grad || !wb_same_shape(y, gy) || y->dtype != gy->dtype) {
        fprintf(stderr, "backward_with: y must carry a gradient and gy match its shape and dtype\n");
        return WB_FAIL;
    }
    WB_TRY(wb_arena_zero_used(&ctx->grad));
    wb_tensor *g = wb_grad_of(ctx, y);
    if (!g) return WB_FAIL;
    WB_TRY(ctx->be->unary(ctx->be, WB_OP_IDENTITY, 1.0, g, gy, 0));
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
            if (e->pb.fn && e->pb.fn(ctx, e->pb.saved) != WB_OK) {
                fprintf(stderr, "backward: the pullback of %s failed\n", e->pb.name);
                ctx->status = WB_FAIL;
                return WB_FAIL;
            }
            break;
        }
    }
    return ctx->status;
}

/* ---------------------------------------------------------------------------------------------
 * tensors
 * ------------------------------------------------------------------------------------------ */
wb_tensor *wb_new(wb_ctx *ctx, wb_dtype dtype, int ndim, const int64_t *shape, int with_grad) {
    if (ctx->status != WB_OK) return NULL;
    wb_tensor *t = wb_arena_alloc(&ctx->host, sizeof *t);
    if (!t) goto oom;
    memset(t, 0, sizeof *t);
    t->dtype = dtype;
    wb_set_shape(t, ndim, shape);
    size_t bytes = (size_t)wb_numel(t) * wb_dtype_size(dtype);
    t->data = wb_arena_alloc(&ctx->act, bytes);
    if (!t->data) goto oom;
    if (with_grad && ctx->grad_enabled) {
        t->grad = wb_arena_alloc(&ctx->grad, bytes);
        if (!t->grad) goto oom;
    }
    return t;
oom:
    fprintf(stderr, "wb_new: out of arena memory\n");
    ctx->status = WB_FAIL;
    return NULL;
}

wb_tensor *wb_wrap(wb_ctx *ctx, void *data, void *grad, wb_dtype dtype, int ndim, const int64_t *shape) {
    if (ctx->status != WB_OK) return NULL;
    wb_tensor *t = wb_arena_alloc(&ctx->host, sizeof *t);
    if (!t) {
        ctx->status = WB_FAIL;
        return NULL;
    }
    memset(t, 0, sizeof *t);
    t->dtype = dtype;
    wb_set_shape(t, ndim, shape);
    t->data = data;
    t->grad = ctx->grad_enabled ? grad : NULL;
    return t;
}

wb_tensor *wb_grad_of(wb_ctx *ctx, const wb_tensor *t) {
    if (!t || !t->grad) return NULL;
    wb_tensor *g = wb_arena_alloc(&ctx->host, sizeof *g);
    if (!g) {
        ctx->status = WB_FAIL;
        return NULL;
    }
    *g = *t;
    g->data = t->grad;
    g->grad = NULL;
    return g;
}

/* Host staging of a tensor's elements in row-major order, whatever its strides. */
static int transfer(wb_ctx *ctx, const wb_tensor *t, void *mem, double *host, int down) {
    int64_t n = wb_numel(t);
    size_t es = wb_dtype_size(t->dtype);
    /* Span of memory the tensor touches (all strides are >= 0 in this engine). */
    int64_t span = 1;
    for (int i = 0; i < t->ndim; i++) span += (t->shape[i] - 1) * t->stride[i];
    if (n == 0) return WB_OK;
    char *buf = malloc((size_t)span * es);
    if (!buf) return WB_FAIL;
    int rc = WB_OK;
    /* an upload into a view must keep the elements between its strides: read them first */
    if ((down || span != n) && ctx->be->to_host(ctx->be, buf, mem, (size_t)span * es) != WB_OK) rc = WB_FAIL;
    for (int64_t i = 0; rc == WB_OK && i < n; i++) {
        char *p = buf + wb_offset_of(t, i) * (int64_t)es;
        switch (t->dtype) {
        case WB_F32:
            if (down) host[i] = *(float *)p;
            else *(float *)p = (float)host[i];
            break;
        case WB_F64:
            if (down) host[i] = *(double *)p;
            else *(double *)p = host[i];
            break;
        case WB_BF16:
            if (down) host[i] = wb_bf16_to_f32(*(uint16_t *)p);
            else *(uint16_t *)p = wb_f32_to_bf16((float)host[i]);
            break;
        case WB_I32:
            if (down) host[i] = *(int32_t *)p;
            else *(int32_t *)p = (int32_t)host[i];
            break;
        }
    }
    if (rc == WB_OK && !down) rc = ctx->be->to_device(ctx->be, mem, buf, (size_t)span * es);
    free(buf);
    return rc;
}

int wb_upload(wb_ctx *ctx, const wb_tensor *t, const double *host) {
    return transfer(ctx, t, t->data, (double *)host, 0);
}
int wb_download(wb_ctx *ctx, const wb_tensor *t, double *host) { return transfer(ctx, t, t->data, host, 1); }
int wb_download_grad(wb_ctx *ctx, const wb_tensor *t, double *host) {
    if (!t->grad) return WB_FAIL;
    return transfer(ctx, t, t->grad, host, 1);
}
