/* fixture.c: see fixture.h. */
#include "fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adamw.h"
#include "engine.h"
#include "gpt2.h"
#include "wb_check.h"

#define FX_MAGIC "WBGPT2FX"
#define FX_VERSION 1u
#define FX_REL "lessons/04_gpt2_autodiff/fixtures/gpt2_tiny.bin"

const char *fixture_path(char *buf, size_t n) {
    const char *env = getenv("WB_GPT2_FIXTURE");
    if (env && *env) {
        snprintf(buf, n, "%s", env);
        return buf;
    }
    const char *src = getenv("WB_SOURCE_DIR");
    snprintf(buf, n, "%s/%s", src && *src ? src : ".", FX_REL);
    return buf;
}

static int read_all(FILE *f, void *p, size_t size, size_t count) { return fread(p, size, count, f) == count; }

int fixture_load(gpt2_fixture *fx, const char *path) {
    memset(fx, 0, sizeof *fx);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr,
                "GPT-2 fixture %s is missing. It is made once with PyTorch (on the GPU machine) and committed:\n"
                "    python3 lessons/04_gpt2_autodiff/scripts/make_fixture.py --out %s\n",
                path, FX_REL);
        return WB_FAIL;
    }
    char magic[8];
    uint32_t version = 0;
    int32_t ints[10];
    float floats[6];
    if (!read_all(f, magic, 1, 8) || memcmp(magic, FX_MAGIC, 8) || !read_all(f, &version, 4, 1)) {
        fprintf(stderr, "%s: not a GPT-2 fixture (magic %s expected)\n", path, FX_MAGIC);
        fclose(f);
        return WB_FAIL;
    }
    if (version != FX_VERSION) {
        fprintf(stderr, "%s: fixture version %u, this test reads %u: remake it with scripts/make_fixture.py\n", path,
                version, FX_VERSION);
        fclose(f);
        return WB_FAIL;
    }
    int ok = read_all(f, ints, 4, 10) && read_all(f, floats, 4, 6);
    if (ok) {
        fx->n_layer = ints[0], fx->n_head = ints[1], fx->n_embd = ints[2], fx->max_seq = ints[3];
        fx->vocab = ints[4], fx->vocab_padded = ints[5], fx->B = ints[6], fx->T = ints[7];
        fx->n_params = ints[8], fx->n_steps = ints[9];
        fx->lr = floats[0], fx->beta1 = floats[1], fx->beta2 = floats[2], fx->eps = floats[3];
        fx->weight_decay = floats[4], fx->grad_clip = floats[5];
        size_t P = (size_t)fx->n_params, BT = (size_t)fx->B * fx->T, NL = BT * (size_t)fx->vocab_padded;
        fx->params = malloc(P * 4), fx->grads = malloc(P * 4), fx->logits = malloc(NL * 4);
        fx->tokens = malloc(BT * 4), fx->targets = malloc(BT * 4);
        fx->losses = malloc((size_t)(fx->n_steps > 0 ? fx->n_steps : 1) * 4);
        ok = fx->params && fx->grads && fx->logits && fx->tokens && fx->targets && fx->losses &&
             read_all(f, fx->params, 4, P) && read_all(f, fx->tokens, 4, BT) && read_all(f, fx->targets, 4, BT) &&
             read_all(f, fx->logits, 4, NL) && read_all(f, &fx->loss, 4, 1) && read_all(f, fx->grads, 4, P) &&
             read_all(f, fx->losses, 4, (size_t)fx->n_steps);
    }
    fclose(f);
    if (!ok) fprintf(stderr, "%s: truncated fixture\n", path);
    return ok ? WB_OK : WB_FAIL;
}

void fixture_free(gpt2_fixture *fx) {
    free(fx->params), free(fx->grads), free(fx->logits), free(fx->tokens), free(fx->targets), free(fx->losses);
    memset(fx, 0, sizeof *fx);
}

static double rel_err(const float *out, const float *ref, size_t n) {
    double d = 0, r = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(out[i])) return INFINITY;
        d += ((double)out[i] - ref[i]) * ((double)out[i] - ref[i]);
        r += (double)ref[i] * ref[i];
    }
    return r > 0 ? sqrt(d / r) : sqrt(d);
}

static int report(const char *what, double err, double tol) {
    int ok = err <= tol;
    printf("  %-34s rel err %.3e (tolerance %.1e) %s\n", what, err, tol, ok ? "PASS" : "FAIL");
    return ok;
}

static int one_pass(gpt2 *m, wb_ctx *ctx, const gpt2_fixture *fx, double *logits, double *loss) {
    WB_TRY(wb_ctx_reset(ctx));
    int64_t shape[2] = {fx->B, fx->T};
    size_t BT = (size_t)fx->B * fx->T;
    wb_tensor *x = wb_new(ctx, WB_I32, 2, shape, 0), *y = wb_new(ctx, WB_I32, 2, shape, 0), *lg = NULL, *l = NULL;
    double *buf = malloc(BT * sizeof *buf);
    if (!x || !y || !buf) return WB_FAIL;
    for (size_t i = 0; i < BT; i++) buf[i] = fx->tokens[i];
    int rc = wb_upload(ctx, x, buf);
    for (size_t i = 0; i < BT; i++) buf[i] = fx->targets[i];
    if (rc == WB_OK) rc = wb_upload(ctx, y, buf);
    free(buf);
    if (rc == WB_OK) rc = gpt2_zero_grads(m);
    if (rc == WB_OK) rc = gpt2_forward(m, ctx, x, y, &lg, &l);
    if (rc == WB_OK) rc = wb_backward(ctx, l);
    if (rc == WB_OK && logits) rc = wb_download(ctx, lg, logits);
    if (rc == WB_OK) rc = wb_download(ctx, l, loss);
    return rc;
}

int fixture_compare(const gpt2_fixture *fx, wb_backend *be, wb_dtype dtype, int ops, const fixture_tolerances *tol) {
    gpt2_config cfg = {fx->n_layer, fx->n_head, fx->n_embd, fx->max_seq, fx->vocab, fx->vocab_padded, 0.0f,
                       ops == 1 ? GPT2_OPS_PRIMITIVE : GPT2_OPS_FUSED, ops == 2};
    gpt2 m;
    wb_ctx ctx;
    WB_TRY(gpt2_build(&m, &cfg, be, dtype));
    if (m.n_params != fx->n_params) {
        fprintf(stderr, "fixture has %d parameters, the engine's GPT-2 %lld: layouts differ\n", fx->n_params,
                (long long)m.n_params);
        return WB_FAIL;
    }
    WB_TRY(gpt2_set_params(&m, fx->params));
    WB_TRY(wb_ctx_init(&ctx, be, dtype, 1 << 20));
    size_t NL = (size_t)fx->B * fx->T * fx->vocab_padded, P = (size_t)fx->n_params;
    double *logits = malloc(NL * sizeof *logits), loss = 0;
    float *lf = malloc(NL * 4), *grads = malloc(P * 4);
    if (!logits || !lf || !grads) return WB_FAIL;
    WB_TRY(one_pass(&m, &ctx, fx, logits, &loss));
    WB_TRY(gpt2_get_grads(&m, grads));
    for (size_t i = 0; i < NL; i++) lf[i] = (float)logits[i];

    printf("GPT-2 vs PyTorch: %s %s, ops %s, %d layers, width %d, vocab %d (padded %d), B=%d T=%d\n", be->name,
           wb_dtype_name(dtype), ops == 1 ? "primitive" : ops == 2 ? "fused, fused attention" : "fused", fx->n_layer, fx->n_embd, fx->vocab, fx->vocab_padded,
           fx->B, fx->T);
    int ok = 1;
    ok &= report("logits", rel_err(lf, fx->logits, NL), tol->logits);
    ok &= report("loss", fabs(loss - fx->loss) / fabs(fx->loss), tol->loss);
    ok &= report("all parameter gradients", rel_err(grads, fx->grads, P), tol->grads);
    /* per tensor: a wrong pullback of a small tensor hides inside the global measure */
    double worst = 0;
    const char *worst_name = "";
    for (int i = 0; i < m.n_tensors; i++) {
        wb_tensor *t = m.tensors[i];
        size_t off = (size_t)m.packed_off[i];
        size_t n = (size_t)wb_numel(t);
        double e = rel_err(grads + off, fx->grads + off, n);
        /* rows of wpe past T and padded wte rows have zero gradient in both: skip empty refs */
        double r = 0;
        for (size_t j = 0; j < n; j++) r += fabs(fx->grads[off + j]);
        if (r == 0) continue;
        if (e > worst) worst = e, worst_name = t->name;
    }
    char label[96];
    snprintf(label, sizeof label, "worst tensor gradient (%s)", worst_name);
    ok &= report(label, worst, tol->grad_tensor);

    adamw_config acfg = {fx->lr, fx->lr, fx->beta1, fx->beta2, fx->eps, fx->weight_decay, fx->grad_clip, 0, fx->n_steps};
    adamw opt;
    WB_TRY(adamw_init(&opt, &acfg, &m));
    double worst_loss = 0;
    for (int s = 0; s < fx->n_steps; s++) {
        double l = 0;
        WB_TRY(one_pass(&m, &ctx, fx, NULL, &l));
        WB_TRY(adamw_step(&opt, &m, fx->lr));
        double e = fabs(l - fx->losses[s]) / fabs(fx->losses[s]);
        if (e > worst_loss) worst_loss = e;
        printf("  adamw step %2d: loss %.6f (PyTorch %.6f)\n", s + 1, l, fx->losses[s]);
    }
    ok &= report("losses of the AdamW steps", worst_loss, tol->losses);
    adamw_free(&opt);
    wb_ctx_free(&ctx);
    gpt2_free(&m);
    free(logits), free(lf), free(grads);
    return ok ? WB_OK : WB_FAIL;
}
