/*
 * adamw.h: AdamW over the model's flat parameter block, with global-norm gradient clipping and a
 * cosine learning-rate schedule with linear warm-up.
 *
 * One step is two kernels on the GPU and no host synchronisation: norm_sq (the squared global
 * norm of the gradient block, left on the device) and adamw (reads that norm, clips, updates
 * moments and parameters). With bf16 parameters the optimizer keeps an f32 master copy and
 * writes the rounded bf16 values back, so small updates are not lost to rounding.
 */
#ifndef WB_ADAMW_H
#define WB_ADAMW_H

#include "gpt2.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    float lr, min_lr, beta1, beta2, eps, weight_decay, grad_clip;
    int warmup_steps, total_steps;
} adamw_config;

typedef struct {
    adamw_config cfg;
    wb_backend *be;
    wb_dtype stat;     /* moments: f64 with f64 parameters, else f32 */
    void *m, *v;       /* (n_params) stat */
    float *master;     /* (n_params) f32, only with bf16 parameters */
    void *norm_sq;     /* stat scalar on the device */
    int t;             /* updates done */
} adamw;

int adamw_init(adamw *opt, const adamw_config *cfg, gpt2 *model);
void adamw_free(adamw *opt);
/* The learning rate of step t (1-based): linear warm-up to lr, cosine decay to min_lr. */
float adamw_lr(const adamw_config *cfg, int t);
/* Clip, update. lr < 0: take the schedule's. */
int adamw_step(adamw *opt, gpt2 *model, float lr);
/* The next update's backend arguments without running it (counts the step): what a replayed CUDA
 * graph of the training step needs (wb_backend.graph_launch). */
void adamw_next(adamw *opt, gpt2 *model, float lr, wb_adamw_args *a);
/* The global gradient norm of the last step (synchronises; for the progress line). */
int adamw_last_norm(adamw *opt, double *norm);
/* The same in two halves (backend.h's to_host_later): queue the copy of the last step's norm
 * into a slot, and collect it later, after the next step has been queued. */
int adamw_norm_later(adamw *opt, int slot);
int adamw_norm_wait(adamw *opt, int slot, double *norm);
/* Host f32 copies of the moments (checkpoints), and back. */
int adamw_get_state(adamw *opt, gpt2 *model, float *m, float *v);
int adamw_set_state(adamw *opt, gpt2 *model, const float *m, const float *v, int t);
/* Refresh the master copy from the (rounded) parameters. */
int adamw_sync_master(adamw *opt, gpt2 *model);
/* The exact f32 parameters (the master copy with bf16, else the parameters), packed, for
 * checkpoints; and setting both from a checkpoint. */
int adamw_get_params_f32(adamw *opt, gpt2 *model, float *packed);
int adamw_set_params_f32(adamw *opt, gpt2 *model, const float *packed);

#ifdef __cplusplus
}
#endif

#endif
