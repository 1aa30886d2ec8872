/*
 * test_model.c: the engine's GPT-2 on the CPU backend.
 *   - training on a generated corpus lowers the loss
 *   - a checkpoint round-trips parameters and optimizer moments
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adamw.h"
#include "data.h"
#include "engine.h"
#include "gpt2.h"
#include "wb_check.h"

/* ---- training lowers the loss ---- */
static double train_steps(gpt2 *m, adamw *opt, wb_ctx *ctx, wb_loader *ld, int B, int T, int steps, double *first) {
    size_t BT = (size_t)B * T;
    int32_t *x = malloc(BT * 4), *y = malloc(BT * 4);
    double *dx = malloc(BT * 8), *dy = malloc(BT * 8), l = NAN;
    for (int s = 0; s < steps; s++) {
        cr_assert_eq(wb_loader_next(ld, B, T, x, y), WB_OK);
        for (size_t i = 0; i < BT; i++) dx[i] = x[i], dy[i] = y[i];
        cr_assert_eq(wb_ctx_reset(ctx), WB_OK);
        int64_t shape[2] = {B, T};
        wb_tensor *tx = wb_new(ctx, WB_I32, 2, shape, 0), *ty = wb_new(ctx, WB_I32, 2, shape, 0), *loss = NULL;
        cr_assert(tx && ty);
        cr_assert_eq(wb_upload(ctx, tx, dx), WB_OK);
        cr_assert_eq(wb_upload(ctx, ty, dy), WB_OK);
        cr_assert_eq(gpt2_zero_grads(m), WB_OK);
        cr_assert_eq(gpt2_forward(m, ctx, tx, ty, NULL, &loss), WB_OK);
        cr_assert_eq(wb_backward(ctx, loss), WB_OK);
        cr_assert_eq(adamw_step(opt, m, -1.0f), WB_OK);
        cr_assert_eq(wb_download(ctx, loss, &l), WB_OK);
        if (s == 0 && first) *first = l;
    }
    free(x), free(y), free(dx), free(dy);
    return l;
}

Test(training, loss_falls_on_generated_corpus) {
    size_t n = 0;
    char *text = wb_builtin_corpus(20000, 7, &n);
    cr_assert_not_null(text);
    /* byte-level tokens are enough here (the tokenizer has its own tests) */
    int32_t *toks = malloc(n * 4);
    for (size_t i = 0; i < n; i++) toks[i] = (unsigned char)text[i];
    wb_backend *be;
    cr_assert_eq(wb_backend_cpu_create(&be), WB_OK);
    gpt2_config cfg = {2, 2, 32, 32, 256, 256, 0.0f, GPT2_OPS_FUSED, 0};
    gpt2 m;
    cr_assert_eq(gpt2_build(&m, &cfg, be, WB_F32), WB_OK);
    cr_assert_eq(gpt2_init_random(&m, 1), WB_OK);
    adamw_config acfg = {3e-3f, 3e-4f, 0.9f, 0.95f, 1e-8f, 0.1f, 1.0f, 5, 60};
    adamw opt;
    cr_assert_eq(adamw_init(&opt, &acfg, &m), WB_OK);
    wb_ctx ctx;
    cr_assert_eq(wb_ctx_init(&ctx, be, WB_F32, 1 << 20), WB_OK);
    ctx.nvtx = 0;
    wb_loader ld;
    wb_loader_init(&ld, toks, n);
    double first = 0, last = train_steps(&m, &opt, &ctx, &ld, 4, 32, 60, &first);
    cr_log_info("loss %.4f -> %.4f", first, last);
    cr_expect(first > 5.0 && first < 6.0, "initial loss %.3f should be near ln(256) = 5.55", first);
    cr_expect(last < first - 2.0, "loss fell only from %.3f to %.3f in 60 steps", first, last);
    wb_ctx_free(&ctx);
    adamw_free(&opt);
    gpt2_free(&m);
    be->destroy(be);
    free(toks);
    free(text);
}

Test(checkpoint, round_trip) {
    wb_backend *be;
    cr_assert_eq(wb_backend_cpu_create(&be), WB_OK);
    gpt2_config cfg = {1, 2, 16, 8, 100, gpt2_pad_vocab(100), 0.0f, GPT2_OPS_FUSED, 0};
    cr_assert_eq(cfg.vocab_padded, 128);
    gpt2 m;
    cr_assert_eq(gpt2_build(&m, &cfg, be, WB_F32), WB_OK);
    cr_assert_eq(gpt2_init_random(&m, 3), WB_OK);
    size_t n = (size_t)m.n_params;
    float *p = malloc(n * 4), *mm = malloc(n * 4), *vv = malloc(n * 4), *p2 = malloc(n * 4), *m2 = malloc(n * 4),
          *v2 = malloc(n * 4);
    cr_assert_eq(gpt2_get_params(&m, p), WB_OK);
    for (size_t i = 0; i < n; i++) mm[i] = (float)i * 1e-3f, vv[i] = (float)i * 2e-3f;
    char path[] = "/tmp/wb_ckpt_test_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    gpt2_opt_state st = {mm, vv};
    cr_assert_eq(gpt2_save(&m, path, 42, p, &st), WB_OK);
    gpt2_config c2;
    int64_t step = 0, np = 0;
    int has_opt = 0;
    cr_assert_eq(gpt2_peek(path, &c2, &step, &np), WB_OK);
    cr_assert_eq(step, 42);
    cr_assert_eq(np, m.n_params);
    cr_assert_eq(c2.n_layer, 1);
    cr_assert_eq(c2.vocab_padded, 128);
    cr_assert_eq(gpt2_load(path, p2, m2, v2, &has_opt), WB_OK);
    cr_assert_eq(has_opt, 1);
    cr_assert_eq(memcmp(p, p2, n * 4), 0);
    cr_assert_eq(memcmp(mm, m2, n * 4), 0);
    cr_assert_eq(memcmp(vv, v2, n * 4), 0);
    /* a file that is not a checkpoint is refused with a message */
    FILE *f = fopen(path, "wb");
    fputs("not a checkpoint", f);
    fclose(f);
    cr_assert_eq(gpt2_peek(path, &c2, &step, &np), WB_FAIL);
    unlink(path);
    free(p), free(mm), free(vv), free(p2), free(m2), free(v2);
    gpt2_free(&m);
    be->destroy(be);
}
