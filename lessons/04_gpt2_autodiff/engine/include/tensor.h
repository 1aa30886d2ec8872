/*
 * tensor.h: a tensor is a header (dtype, shape, strides) over memory it does not own.
 *
 * The memory comes from an arena (activations, gradients) or from the parameter block. A view
 * (reshape, permute, split) is a new header over the same memory: it launches nothing. Its
 * gradient is the same view over the gradient memory of the tensor it came from, so a pullback
 * that accumulates into a view's gradient lands in the right place of the original's gradient,
 * and the pullback of a view itself has nothing to do.
 *
 *     x    (B, T, 3C)      data = p,        stride (3TC, 3C, 1)
 *     q    (B, T, C)       data = p,        stride (3TC, 3C, 1)     split: a view
 *     q4   (B, T, nh, hs)  data = p,        stride (3TC, 3C, hs, 1) reshape: still a view
 *     qt   (B, nh, T, hs)  data = p,        stride (3TC, hs, 3C, 1) permute: a view
 *     q3   (B*nh, T, hs)   a copy: B and nh cannot merge under one stride (one kernel launch)
 */
#ifndef WB_TENSOR_H
#define WB_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { WB_F32 = 0, WB_F64 = 1, WB_BF16 = 2, WB_I32 = 3 } wb_dtype;

#define WB_MAX_DIMS 4

typedef struct wb_tensor {
    void *data;                    /* first element; inside another tensor's memory for a view */
    void *grad;                    /* gradient, same layout as data; NULL: no gradient flows here */
    wb_dtype dtype;
    int ndim;                      /* 0 (a scalar) to WB_MAX_DIMS */
    int64_t shape[WB_MAX_DIMS];
    int64_t stride[WB_MAX_DIMS];   /* in elements, not bytes; 0 in a broadcast dimension */
    const char *name;              /* for messages; parameters carry their name */
    struct wb_grad_buf *gbuf;      /* the gradient's allocation in a context (engine.h); NULL for
                                      memory the caller owns (parameters). Views share it. */
} wb_tensor;

size_t wb_dtype_size(wb_dtype d);
const char *wb_dtype_name(wb_dtype d);
/* Parse "f32", "f64", "bf16"; returns -1 on an unknown name. */
int wb_dtype_parse(const char *s, wb_dtype *out);
/* Reductions, layer-norm statistics, losses and optimizer moments: f64 for f64, else f32. */
wb_dtype wb_stat_dtype(wb_dtype d);

int64_t wb_numel(const wb_tensor *t);
int wb_is_contiguous(const wb_tensor *t);
/* Fills shape and row-major contiguous strides. */
void wb_set_shape(wb_tensor *t, int ndim, const int64_t *shape);
int wb_same_shape(const wb_tensor *a, const wb_tensor *b);
/* Element offset (in elements) of the i-th element in row-major order. */
int64_t wb_offset_of(const wb_tensor *t, int64_t i);
/* "(2, 3, 4)" into buf. */
const char *wb_shape_str(const wb_tensor *t, char *buf, size_t n);

/* Strides of `t` reshaped to `shape` without copying, as PyTorch's view() decides it.
 * Returns 0 and fills stride_out, or -1 when the memory layout forbids a view. */
int wb_view_strides(const wb_tensor *t, int ndim, const int64_t *shape, int64_t *stride_out);

/* Broadcast `t` to `ndim, shape` (NumPy rules, aligned at the right): the result has stride 0
 * in every broadcast dimension. Returns -1 when the shapes do not broadcast. */
int wb_broadcast_to(const wb_tensor *t, int ndim, const int64_t *shape, wb_tensor *out);
/* The broadcast shape of a and b; returns -1 when they do not broadcast. */
int wb_broadcast_shape(const wb_tensor *a, const wb_tensor *b, int *ndim, int64_t *shape);

/* bf16 <-> f32 on the host (round to nearest even), for tests and checkpoints. */
float wb_bf16_to_f32(uint16_t h);
uint16_t wb_f32_to_bf16(float f);

#ifdef __cplusplus
}
#endif

#endif
