/*
 * backend_cpu.c: the CPU reference backend (f32 and f64). The kernels are in
 * backend_cpu_impl.h, instantiated here for float and double; this file only dispatches on dtype
 * and provides host "device memory". No peak FLOP/s is known, so MFU prints as n/a.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "wb_check.h"

#define real float
#define REAL_SUFFIX f32
#include "backend_cpu_impl.h"
#undef real
#undef REAL_SUFFIX

#define real double
#define REAL_SUFFIX f64
#include "backend_cpu_impl.h"
#undef real
#undef REAL_SUFFIX

static int bad_dtype(const char *what, wb_dtype d) {
    fprintf(stderr, "cpu backend: %s does not support dtype %s\n", what, wb_dtype_name(d));
    return WB_FAIL;
}

/* DISPATCH(name, dtype, args...): call name_f32 or name_f64 */
#define DISPATCH(name, dt, ...)                                                                    \
    do {                                                                                           \
        if ((dt) == WB_F32) return name##_f32(__VA_ARGS__);                                        \
        if ((dt) == WB_F64) return name##_f64(__VA_ARGS__);                                        \
        return bad_dtype(#name, (dt));                                                             \
    } while (0)

static void cpu_destroy(wb_backend *be) {
    free(be->impl); /* the later-download slots */
    free(be);
}
static int cpu_supports(wb_backend *be, wb_dtype d) { return d == WB_F32 || d == WB_F64; }
static double cpu_peak_for(wb_backend *be, wb_dtype d) { return 0.0; }

static int cpu_alloc(wb_backend *be, void **p, size_t bytes) {
    *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (!*p) {
        fprintf(stderr, "cpu backend: cannot allocate %zu bytes\n", bytes);
        return WB_FAIL;
    }
    return WB_OK;
}
static void cpu_free(wb_backend *be, void *p) { free(p); }
static int cpu_memset0(wb_backend *be, void *p, size_t n) {
    memset(p, 0, n);
    return WB_OK;
}
static int cpu_copy(wb_backend *be, void *dst, const void *src, size_t n) {
    memcpy(dst, src, n);
    return WB_OK;
}
/* Nothing runs behind the host's back here: the later download copies at once into its slot. */
static int cpu_to_host_later(wb_backend *be, int slot, const void *src, size_t n) {
    if (slot < 0 || slot >= WB_LATER_SLOTS || n > WB_LATER_BYTES) return WB_FAIL;
    memcpy((char *)be->impl + slot * WB_LATER_BYTES, src, n);
    return WB_OK;
}
static int cpu_to_host_wait(wb_backend *be, int slot, void *dst, size_t n) {
    if (slot < 0 || slot >= WB_LATER_SLOTS || n > WB_LATER_BYTES) return WB_FAIL;
    memcpy(dst, (char *)be->impl + slot * WB_LATER_BYTES, n);
    return WB_OK;
}
static int cpu_sync(wb_backend *be) { return WB_OK; }

static int cpu_fill(wb_backend *be, const wb_tensor *out, double v) { DISPATCH(fill, out->dtype, out, v); }
static int cpu_binary(wb_backend *be, wb_binop op, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b,
                      int acc) {
    DISPATCH(binary, out->dtype, op, out, a, b, acc);
}
static int cpu_unary(wb_backend *be, wb_unop op, double alpha, const wb_tensor *out, const wb_tensor *a, int acc) {
    DISPATCH(unary, out->dtype, op, alpha, out, a, acc);
}
static int cpu_unary_backward(wb_backend *be, wb_unop op, const wb_tensor *ga, const wb_tensor *g,
                              const wb_tensor *a, const wb_tensor *y, int acc) {
    DISPATCH(unary_backward, ga->dtype, op, ga, g, a, y, acc);
}
static int cpu_sum_into(wb_backend *be, const wb_tensor *dst, const wb_tensor *src, double scale, int acc) {
    DISPATCH(sum_into, dst->dtype, dst, src, scale, acc);
}
static int cpu_causal_mask(wb_backend *be, const wb_tensor *out, const wb_tensor *in, double fill, int acc) {
    DISPATCH(causal_mask, out->dtype, out, in, fill, acc);
}
static int cpu_dropout(wb_backend *be, const wb_tensor *out, const wb_tensor *in, float p, uint64_t seed, int acc) {
    DISPATCH(dropout, out->dtype, out, in, p, seed, acc);
}
static int cpu_gemm(wb_backend *be, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b,
                    const wb_tensor *bias, double alpha, int acc) {
    DISPATCH(gemm, out->dtype, out, a, b, bias, alpha, acc);
}
static int cpu_softmax(wb_backend *be, const wb_tensor *out, const wb_tensor *in, double scale, int causal) {
    DISPATCH(softmax, out->dtype, out, in, scale, causal);
}
static int cpu_softmax_backward(wb_backend *be, const wb_tensor *gin, const wb_tensor *g, const wb_tensor *y,
                                double scale) {
    DISPATCH(softmax_backward, y->dtype, gin, g, y, scale);
}
static int cpu_layernorm(wb_backend *be, const wb_tensor *out, const wb_tensor *mean, const wb_tensor *rstd,
                         const wb_tensor *in, const wb_tensor *w, const wb_tensor *b, double eps) {
    DISPATCH(layernorm, in->dtype, out, mean, rstd, in, w, b, eps);
}
static int cpu_layernorm_backward(wb_backend *be, const wb_tensor *gin, const wb_tensor *gw, const wb_tensor *gb,
                                  const wb_tensor *g, const wb_tensor *in, const wb_tensor *w,
                                  const wb_tensor *mean, const wb_tensor *rstd) {
    DISPATCH(layernorm_backward, in->dtype, gin, gw, gb, g, in, w, mean, rstd);
}
static int cpu_gather_rows(wb_backend *be, const wb_tensor *out, const wb_tensor *table, const wb_tensor *idx) {
    DISPATCH(gather_rows, out->dtype, out, table, idx);
}
static int cpu_scatter_add_rows(wb_backend *be, const wb_tensor *gt, const wb_tensor *g, const wb_tensor *idx) {
    DISPATCH(scatter_add_rows, g->dtype, gt, g, idx);
}
static int cpu_cross_entropy(wb_backend *be, const wb_tensor *loss, const wb_tensor *lse, const wb_tensor *logits,
                             const wb_tensor *targets, int64_t vocab) {
    DISPATCH(cross_entropy, logits->dtype, loss, lse, logits, targets, vocab);
}
static int cpu_cross_entropy_backward(wb_backend *be, const wb_tensor *gl, const wb_tensor *gloss,
                                      const wb_tensor *lse, const wb_tensor *logits, const wb_tensor *targets,
                                      int64_t vocab, int acc) {
    DISPATCH(cross_entropy_backward, logits->dtype, gl, gloss, lse, logits, targets, vocab, acc);
}
static int cpu_attention_supported(wb_backend *be, wb_dtype d, int64_t head_dim) { return d == WB_F32 || d == WB_F64; }
static int cpu_attention(wb_backend *be, const wb_tensor *out, const wb_tensor *lse, const wb_tensor *q,
                         const wb_tensor *k, const wb_tensor *v, double scale) {
    DISPATCH(attention, q->dtype, out, lse, q, k, v, scale);
}
static int cpu_attention_backward(wb_backend *be, const wb_tensor *gq, const wb_tensor *gk, const wb_tensor *gv,
                                  const wb_tensor *g, const wb_tensor *out, const wb_tensor *lse, const wb_tensor *q,
                                  const wb_tensor *k, const wb_tensor *v, double scale, int acc) {
    DISPATCH(attention_backward, q->dtype, gq, gk, gv, g, out, lse, q, k, v, scale, acc);
}
static int cpu_norm_sq(wb_backend *be, void *out, const void *grads, int64_t n, wb_dtype dt) {
    DISPATCH(norm_sq, dt, out, grads, n);
}
static int cpu_adamw(wb_backend *be, const wb_adamw_args *a) {
    if (a->master) {
        fprintf(stderr, "cpu backend: no master weights (f32 and f64 update in place)\n");
        return WB_FAIL;
    }
    DISPATCH(adamw, a->dtype, a);
}

int wb_backend_cpu_create(wb_backend **out) {
    wb_backend *be = calloc(1, sizeof *be);
    if (!be) return WB_FAIL;
    if (!(be->impl = calloc(WB_LATER_SLOTS, WB_LATER_BYTES))) {
        free(be);
        return WB_FAIL;
    }
    be->name = "cpu";
    be->kind = WB_BACKEND_CPU;
    snprintf(be->device_name, sizeof be->device_name, "CPU (reference backend)");
    be->destroy = cpu_destroy;
    be->supports = cpu_supports;
    be->peak_for = cpu_peak_for;
    be->alloc = cpu_alloc;
    be->free = cpu_free;
    be->memset0 = cpu_memset0;
    be->to_host = cpu_copy;
    be->to_device = cpu_copy;
    be->to_host_later = cpu_to_host_later;
    be->to_host_wait = cpu_to_host_wait;
    be->sync = cpu_sync;
    be->fill = cpu_fill;
    be->binary = cpu_binary;
    be->unary = cpu_unary;
    be->unary_backward = cpu_unary_backward;
    be->sum_into = cpu_sum_into;
    be->causal_mask = cpu_causal_mask;
    be->dropout = cpu_dropout;
    be->gemm = cpu_gemm;
    be->softmax = cpu_softmax;
    be->softmax_backward = cpu_softmax_backward;
    be->layernorm = cpu_layernorm;
    be->layernorm_backward = cpu_layernorm_backward;
    be->gather_rows = cpu_gather_rows;
    be->scatter_add_rows = cpu_scatter_add_rows;
    be->cross_entropy = cpu_cross_entropy;
    be->cross_entropy_backward = cpu_cross_entropy_backward;
    be->attention_supported = cpu_attention_supported;
    be->attention = cpu_attention;
    be->attention_backward = cpu_attention_backward;
    be->norm_sq = cpu_norm_sq;
    be->adamw = cpu_adamw;
    *out = be;
    return WB_OK;
}
