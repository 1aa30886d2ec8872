/*
 * model_grads.h: GPT-2's parameter gradients as the bucket plan sees them, and which one a
 * gradient write of the engine lands in. Plain C over the engine (the CPU tests use it too).
 */
#ifndef DP_MODEL_GRADS_H
#define DP_MODEL_GRADS_H

#include "bucket_plan.h"
#include "gpt2.h"

/* The parameter tensor of m whose gradient memory holds x's gradient (a view of a parameter, like
 * the tied output projection's wte^T, shares its memory), or -1 (an activation's gradient). */
int dp_param_of_grad(const gpt2 *m, const wb_tensor *x);

/* m's n_tensors parameters: each one's offset in the gradient block, size and ready (ready[i], the
 * pullback that writes tensor i's gradient last, or DP_NEVER_WRITTEN). */
void dp_model_params(const gpt2 *m, const int *ready, dp_param *out);

#endif
