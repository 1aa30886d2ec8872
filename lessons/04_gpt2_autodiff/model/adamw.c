/* adamw.c: see adamw.h. */
#include "adamw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wb_check.h"

int adamw_init(adamw *opt, const adamw_config *cfg, gpt2 *model) {
    memset(opt, 0, sizeof *opt);
    opt->cfg = *cfg;
    opt->be = model->be;
    opt->stat = wb_stat_dtype(model->dtype);
    size_t n = (size_t)model->n_block, ss = wb_dtype_size(opt->stat);
    wb_backend *be = model->be;
    WB_TRY(be->alloc(be, &opt->m, n * ss));
    WB_TRY(be->alloc(be, &opt->v, n * ss));
    WB_TRY(be->alloc(be, &opt->norm_sq, 8));
    WB_TRY(be->memset0(be, opt->m, n * ss));
    WB_TRY(be->memset0(be, opt->v, n * ss));
    WB_TRY(be->memset0(be, opt->norm_sq, 8));
    if (model->dtype == WB_BF16) {
        WB_TRY(be->alloc(be, (void **)&opt->master, n * 4));
        WB_TRY(adamw_sync_master(opt, model));
    }
    return WB_OK;
}

void adamw_free(adamw *opt) {
    if (!opt->be) return;
    if (opt->m) opt->be->free(opt->be, opt->m);
    if (opt->v) opt->be->free(opt->be, opt->v);
    if (opt->norm_sq) opt->be->free(opt->be, opt->norm_sq);
    if (opt->master) opt->be->free(opt->be, opt->master);
    memset(opt, 0, sizeof *opt);
}

float adamw_lr(const adamw_config *c, int t) {
    if (t <= c->warmup_steps) return c->lr * (float)t / (float)(c->warmup_steps > 0 ? c->warmup_steps : 1);
    if (c->total_steps <= c->warmup_steps) return c->lr;
    double progress = (double)(t - c->warmup_steps) / (double)(c->total_steps - c->warmup_steps);
    if (progress > 1.0) progress = 1.0;
    return (float)(c->min_lr + 0.5 * (1.0 + cos(M_PI * progress)) * (c->lr - c->min_lr));
}

void adamw_next(adamw *opt, gpt2 *model, float lr, wb_adamw_args *a) {
    opt->t++;
    if (lr < 0) lr = adamw_lr(&opt->cfg, opt->t);
    *a = (wb_adamw_args){
        .params = model->params, .grads = model->grads, .master = opt->master, .m = opt->m, .v = opt->v,
        .norm_sq = opt->norm_sq, .n = model->n_block, .n_decay = model->n_decay, .dtype = model->dtype,
        .lr = lr, .beta1 = opt->cfg.beta1, .beta2 = opt->cfg.beta2, .eps = opt->cfg.eps,
        .weight_decay = opt->cfg.weight_decay, .grad_clip = opt->cfg.grad_clip, .t = opt->t,
    };
}

int adamw_step(adamw *opt, gpt2 *model, float lr) {
    wb_backend *be = opt->be;
    wb_adamw_args a;
    adamw_next(opt, model, lr, &a);
    WB_TRY(be->norm_sq(be, opt->norm_sq, model->grads, model->n_block, model->dtype));
    return be->adamw(be, &a);
}

int adamw_norm_later(adamw *opt, int slot) {
    return opt->be->to_host_later(opt->be, slot, opt->norm_sq, opt->stat == WB_F64 ? 8 : 4);
}

int adamw_norm_wait(adamw *opt, int slot, double *norm) {
    double d = 0;
    float f = 0;
    if (opt->stat == WB_F64) WB_TRY(opt->be->to_host_wait(opt->be, slot, &d, 8));
    else {
        WB_TRY(opt->be->to_host_wait(opt->be, slot, &f, 4));
        d = f;
    }
    *norm = sqrt(d);
    return WB_OK;
}

int adamw_last_norm(adamw *opt, double *norm) {
    WB_TRY(adamw_norm_later(opt, WB_LATER_SLOTS - 1));
    return adamw_norm_wait(opt, WB_LATER_SLOTS - 1, norm);
}

int adamw_get_state(adamw *opt, gpt2 *model, float *m, float *v) {
    WB_TRY(gpt2_download_packed(model, opt->m, opt->stat, m));
    return gpt2_download_packed(model, opt->v, opt->stat, v);
}

int adamw_set_state(adamw *opt, gpt2 *model, const float *m, const float *v, int t) {
    opt->t = t;
    WB_TRY(gpt2_upload_packed(model, opt->m, opt->stat, m));
    return gpt2_upload_packed(model, opt->v, opt->stat, v);
}

int adamw_sync_master(adamw *opt, gpt2 *model) {
    if (!opt->master) return WB_OK;
    float *h = malloc((size_t)model->n_params * 4);
    if (!h) return WB_FAIL;
    int rc = gpt2_get_params(model, h);
    if (rc == WB_OK) rc = gpt2_upload_packed(model, opt->master, WB_F32, h);
    free(h);
    return rc;
}

int adamw_get_params_f32(adamw *opt, gpt2 *model, float *packed) {
    if (opt->master) return gpt2_download_packed(model, opt->master, WB_F32, packed);
    return gpt2_get_params(model, packed);
}

int adamw_set_params_f32(adamw *opt, gpt2 *model, const float *packed) {
    WB_TRY(gpt2_set_params(model, packed));
    if (opt->master) return gpt2_upload_packed(model, opt->master, WB_F32, packed);
    return WB_OK;
}
