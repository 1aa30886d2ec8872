/*
 * grad_allreduce.h: averaging the gradients of every rank with NCCL, as PyTorch DDP's reducer does.
 *
 * Each rank computes the gradients of its own slice of the batch; before the optimizer, every rank
 * replaces its gradients by the mean over all ranks (ncclAllReduce with ncclAvg, in the gradients'
 * own dtype: bf16 or f32), so the ranks apply one update and their parameters stay equal.
 *
 *   overlap     the gradients in buckets (bucket_plan.h) of at least cap_bytes, each all-reduced on
 *               the communication stream as soon as backward has finished its last gradient: the
 *               engine's pullback hook (engine.h) records an event on the compute stream after
 *               that pullback, the communication stream waits for it, and NCCL works while the
 *               compute stream runs the pullbacks of the layers below.
 *   no-overlap  one all-reduce of the whole gradient block after backward.
 *
 * Either way the compute stream waits (an event) for the last all-reduce before the optimizer.
 * The plan is learnt in the first backward pass (which all-reduces after backward, like
 * no-overlap): the gradient-write hook tells which pullback writes each parameter's gradient last.
 * NVTX: "allreduce" around the host calls of each all-reduce (a bucket's ncclGroupStart to
 * ncclGroupEnd), on every rank alike.
 */
#ifndef DP_GRAD_ALLREDUCE_H
#define DP_GRAD_ALLREDUCE_H

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "bucket_plan.h"
#include "engine.h"
#include "gpt2.h"

typedef struct {
    gpt2 *model;
    int rank, world, overlap;
    size_t cap_bytes;
    ncclComm_t comm;
    ncclDataType_t nccl_dtype;   /* the gradients' dtype */
    cudaStream_t compute;        /* the engine's stream */
    cudaStream_t comm_stream;    /* NCCL's: non-blocking, ordered only by events */
    cudaEvent_t *bucket_ready;   /* (n_buckets) recorded on compute after a bucket's last pullback */
    cudaEvent_t computed;        /* recorded on compute before an all-reduce of everything so far */
    cudaEvent_t reduced;         /* recorded on comm_stream after the step's last all-reduce */
    float *loss_avg;             /* (1) f32 on the device: the loss averaged over ranks, for the log */
    int *last_write;             /* (n_tensors) while learning the plan: the last pullback writing it */
    int planned;                 /* plan exists (from the second backward on) */
    dp_plan plan;
    int seq;                     /* pullbacks run so far in this backward */
    int next_bucket;             /* the next bucket to launch in this backward */
    int status;                  /* WB_FAIL after a failure inside a hook */
} dp_reducer;

/* After the model exists on this rank's GPU. id: the same on every rank. cap_bytes: the bucket
 * size (overlap only). */
int dp_reducer_init(dp_reducer *r, gpt2 *model, int rank, int world, const ncclUniqueId *id, int overlap,
                    size_t cap_bytes);
void dp_reducer_free(dp_reducer *r);

/* wb_backward(ctx, loss) with the engine's hooks set: with overlap, each bucket's all-reduce starts
 * as soon as its gradients are final. Learns (and on rank 0 prints) the bucket plan the first time. */
int dp_backward(dp_reducer *r, wb_ctx *ctx, wb_tensor *loss);
/* After dp_backward: the all-reduces not started yet (no-overlap: the whole block; overlap: none,
 * or every bucket in the first step), then the compute stream waits for the last one: from here on
 * it sees the averaged gradients. */
int dp_allreduce_rest(dp_reducer *r);

/* The loss (a stat-dtype f32 scalar on the device) averaged over every rank, on the host
 * (synchronises). */
int dp_average_loss(dp_reducer *r, const wb_tensor *loss, double *out);

#endif
