/*
 * bucket_plan.h: which parameter gradients are all-reduced together, and after which pullback
 * (PyTorch DDP's buckets, rebuilt in the order gradients became ready).
 *
 * One all-reduce per parameter would pay NCCL's launch and latency ~150 times a step; one for all
 * gradients could only start after the whole backward pass. A bucket is the middle way: gradients
 * are grouped, in the order backward finishes them, until a group holds at least cap_bytes, and
 * each group is all-reduced as soon as its last gradient is final, while backward goes on with
 * the layers below. Plain C, no CUDA and no NCCL: the unit tests build it everywhere.
 *
 * The gradient block's layout is the model's (gpt2.h: matrices of every layer, then vectors), not
 * backward's order, so one bucket covers several stretches of it: its ranges. The lesson
 * all-reduces a bucket's ranges inside one ncclGroupStart / ncclGroupEnd.
 */
#ifndef DP_BUCKET_PLAN_H
#define DP_BUCKET_PLAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A parameter's gradient as backward sees it. */
typedef struct {
    int64_t offset;  /* its first element in the gradient block */
    int64_t numel;
    int ready;       /* the pullback (counted from 0 in the order backward runs them) after which
                        this gradient is final; DP_NEVER_WRITTEN: no pullback writes it (it stays 0) */
} dp_param;

#define DP_NEVER_WRITTEN 0x7fffffff

/* Contiguous elements of the gradient block: one ncclAllReduce. */
typedef struct {
    int64_t offset, numel;
} dp_range;

typedef struct {
    int first, count;        /* its parameters: order[first .. first + count) */
    int range_first, n_ranges;
    int ready;               /* after this pullback every gradient of the bucket is final */
    size_t bytes;            /* what one rank all-reduces: sum of numel * element size */
} dp_bucket;

typedef struct {
    int n_params;
    int *order;              /* (n_params) parameter indices, in the order their gradients become final */
    int n_buckets;
    dp_bucket *buckets;      /* (n_buckets) in launch order */
    int n_ranges;
    dp_range *ranges;        /* (n_ranges) each bucket's, by rising offset */
} dp_plan;

/* Orders params by ready (ties: the later parameter of the block first, as DDP reverses the
 * registration order) and fills buckets in that order; a bucket closes once it holds cap_bytes or
 * more, so only the last one can be smaller, and a parameter larger than cap_bytes gets a bucket
 * of its own. Ranges: a bucket's gradients by offset, neighbours in the block merged. Returns 0,
 * or -1 (out of memory, or n < 1, cap_bytes 0, a negative size or overlapping parameters). */
int dp_plan_build(dp_plan *plan, const dp_param *params, int n, size_t elem_bytes, size_t cap_bytes);
void dp_plan_free(dp_plan *plan);

#ifdef __cplusplus
}
#endif

#endif
