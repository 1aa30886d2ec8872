/*
 * tensor.c: see tensor.h and engine.h. Shape arithmetic first (nothing there touches tensor
 * memory), then the tensors of a context: wb_new (memory from the activation and gradient arenas),
 * wb_wrap (memory the caller owns, such as parameters), wb_grad_of, and the host copies.
 */
#include "tensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "wb_check.h"

size_t wb_dtype_size(wb_dtype d) {
    switch (d) {
    case WB_F32: return 4;
    case WB_F64: return 8;
    case WB_BF16: return 2;
    case WB_I32: return 4;
    }
    return 0;
}

const char *wb_dtype_name(wb_dtype d) {
    switch (d) {
    case WB_F32: return "f32";
    case WB_F64: return "f64";
    case WB_BF16: return "bf16";
    case WB_I32: return "i32";
    }
    return "?";
}

int wb_dtype_parse(const char *s, wb_dtype *out) {
    if (!strcmp(s, "f32") || !strcmp(s, "fp32")) *out = WB_F32;
    else if (!strcmp(s, "f64") || !strcmp(s, "fp64")) *out = WB_F64;
    else if (!strcmp(s, "bf16")) *out = WB_BF16;
    else return -1;
    return 0;
}

wb_dtype wb_stat_dtype(wb_dtype d) { return d == WB_F64 ? WB_F64 : WB_F32; }

int64_t wb_numel(const wb_tensor *t) {
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++) n *= t->shape[i];
    return n;
}

int wb_is_contiguous(const wb_tensor *t) {
    int64_t expect = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        if (t->shape[i] != 1 && t->stride[i] != expect) return 0;
        expect *= t->shape[i];
    }
    return 1;
}

void wb_set_shape(wb_tensor *t, int ndim, const int64_t *shape) {
    t->ndim = ndim;
    int64_t s = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        t->shape[i] = shape[i];
        t->stride[i] = s;
        s *= shape[i];
    }
    for (int i = ndim; i < WB_MAX_DIMS; i++) t->shape[i] = 1, t->stride[i] = 0;
}

int wb_same_shape(const wb_tensor *a, const wb_tensor *b) {
    if (a->ndim != b->ndim) return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i]) return 0;
    return 1;
}

int64_t wb_offset_of(const wb_tensor *t, int64_t i) {
    int64_t off = 0;
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t n = t->shape[d];
        off += (i % n) * t->stride[d];
        i /= n;
    }
    return off;
}

const char *wb_shape_str(const wb_tensor *t, char *buf, size_t n) {
    size_t k = (size_t)snprintf(buf, n, "(");
    for (int i = 0; i < t->ndim && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, i ? ", %lld" : "%lld", (long long)t->shape[i]);
    if (k < n) snprintf(buf + k, n - k, ")");
    return buf;
}

/* PyTorch's computeStride: walk the old dims from the right in chunks of dims that are laid out
 * contiguously with each other; each chunk must be covered exactly by whole new dims. */
int wb_view_strides(const wb_tensor *t, int ndim, const int64_t *shape, int64_t *stride_out) {
    int64_t numel_new = 1;
    for (int i = 0; i < ndim; i++) numel_new *= shape[i];
    if (numel_new != wb_numel(t)) return -1;
    if (numel_new == 0 || t->ndim == 0) {
        int64_t s = 1;
        for (int i = ndim - 1; i >= 0; i--) stride_out[i] = s, s *= shape[i];
        return 0;
    }
    int view_d = ndim - 1;
    int64_t chunk_base_stride = t->stride[t->ndim - 1];
    int64_t tensor_numel = 1, view_numel = 1;
    for (int tensor_d = t->ndim - 1; tensor_d >= 0; tensor_d--) {
        tensor_numel *= t->shape[tensor_d];
        if (tensor_d == 0 || (t->shape[tensor_d - 1] != 1 &&
                              t->stride[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
                stride_out[view_d] = view_numel * chunk_base_stride;
                view_numel *= shape[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel) return -1;
            if (tensor_d > 0) {
                chunk_base_stride = t->stride[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1 ? 0 : -1;
}

int wb_broadcast_to(const wb_tensor *t, int ndim, const int64_t *shape, wb_tensor *out) {
    if (t->ndim > ndim) return -1;
    *out = *t;
    out->ndim = ndim;
    int shift = ndim - t->ndim;
    for (int i = ndim - 1; i >= 0; i--) {
        int j = i - shift;
        int64_t n = j >= 0 ? t->shape[j] : 1, s = j >= 0 ? t->stride[j] : 0;
        if (n == shape[i]) out->shape[i] = n, out->stride[i] = n == 1 ? 0 : s;
        else if (n == 1) out->shape[i] = shape[i], out->stride[i] = 0;
        else return -1;
    }
    for (int i = ndim; i < WB_MAX_DIMS; i++) out->shape[i] = 1, out->stride[i] = 0;
    return 0;
}

int wb_broadcast_shape(const wb_tensor *a, const wb_tensor *b, int *ndim, int64_t *shape) {
    int n = a->ndim > b->ndim ? a->ndim : b->ndim;
    for (int i = 0; i < n; i++) {
        int ia = i - (n - a->ndim), ib = i - (n - b->ndim);
        int64_t x = ia >= 0 ? a->shape[ia] : 1, y = ib >= 0 ? b->shape[ib] : 1;
        if (x != y && x != 1 && y != 1) return -1;
        shape[i] = x == 1 ? y : x;
    }
    *ndim = n;
    return 0;
}

float wb_bf16_to_f32(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

uint16_t wb_f32_to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu)) return (uint16_t)((u >> 16) | 0x40); /* NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* ---------------------------------------------------------------------------------------------
 * tensors in a context: new ones in its arenas, wrapped memory, gradients, host copies
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
        t->gbuf = wb_arena_alloc(&ctx->host, sizeof *t->gbuf);
        if (!t->grad || !t->gbuf) goto oom;
        *t->gbuf = (wb_grad_buf){.base = t->grad, .data = t->grad, .bytes = bytes, .ring = t->gbuf,
                                 .next = ctx->grad_bufs};
        ctx->grad_bufs = t->gbuf;
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
    g->data = wb_grad_ptr(t);
    g->grad = NULL;
    return g;
}

/* One element between its stored form at p and a double: down reads p, else writes it. */
static void convert(char *p, wb_dtype dtype, double *h, int down) {
    switch (dtype) {
    case WB_F32:
        if (down) *h = *(float *)p;
        else *(float *)p = (float)*h;
        break;
    case WB_F64:
        if (down) *h = *(double *)p;
        else *(double *)p = *h;
        break;
    case WB_BF16:
        if (down) *h = wb_bf16_to_f32(*(uint16_t *)p);
        else *(uint16_t *)p = wb_f32_to_bf16((float)*h);
        break;
    case WB_I32:
        if (down) *h = *(int32_t *)p;
        else *(int32_t *)p = (int32_t)*h;
        break;
    }
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
    for (int64_t i = 0; rc == WB_OK && i < n; i++) convert(buf + wb_offset_of(t, i) * (int64_t)es, t->dtype, &host[i], down);
    if (rc == WB_OK && !down) rc = ctx->be->to_device(ctx->be, mem, buf, (size_t)span * es);
    free(buf);
    return rc;
}

int wb_upload(wb_ctx *ctx, const wb_tensor *t, const double *host) {
    return transfer(ctx, t, t->data, (double *)host, 0);
}
int wb_download(wb_ctx *ctx, const wb_tensor *t, double *host) { return transfer(ctx, t, t->data, host, 1); }
int wb_download_later(wb_ctx *ctx, const wb_tensor *t, int slot) {
    size_t bytes = (size_t)wb_numel(t) * wb_dtype_size(t->dtype);
    if (!wb_is_contiguous(t) || bytes > WB_LATER_BYTES) {
        fprintf(stderr, "engine: a later download takes a contiguous tensor of at most %d bytes\n", WB_LATER_BYTES);
        return WB_FAIL;
    }
    return ctx->be->to_host_later(ctx->be, slot, t->data, bytes);
}
int wb_download_wait(wb_ctx *ctx, wb_dtype dtype, int64_t n, int slot, double *host) {
    unsigned char buf[WB_LATER_BYTES];
    size_t es = wb_dtype_size(dtype);
    if (n < 0 || (size_t)n * es > sizeof buf) return WB_FAIL;
    WB_TRY(ctx->be->to_host_wait(ctx->be, slot, buf, (size_t)n * es));
    for (int64_t i = 0; i < n; i++) convert((char *)buf + i * (int64_t)es, dtype, &host[i], 1);
    return WB_OK;
}
int wb_download_grad(wb_ctx *ctx, const wb_tensor *t, double *host) {
    if (!t->grad) return WB_FAIL;
    return transfer(ctx, t, wb_grad_ptr(t), host, 1);
}
