/*
 * test_gradcheck.c: every primitive's pullback against central finite differences, in float64 on
 * the CPU backend (STYLE.md habit 6).
 *
 * For a primitive y = f(x1..xn) and a fixed random cotangent r (the shape of y), let
 * L(x) = <f(x), r>. The pullback seeded with r gives the gradients g_i = dL/dx_i. Along a random
 * direction d (one per input) the directional derivative sum_i <g_i, d_i> must match
 * (L(x + h d) - L(x - h d)) / 2h. In float64 with h = 1e-6 the two agree to about 1e-8; a wrong
 * pullback is off by order 1. Three directions per primitive, small shapes: the whole file runs
 * in well under a second.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "prims.h"
#include "wb_check.h"
#include "wb_random.h"

enum { IN_NORMAL, IN_POSITIVE, IN_INDEX };

typedef struct {
    int ndim;
    int64_t shape[WB_MAX_DIMS];
    int kind;
    int64_t bound; /* IN_INDEX: values in [0, bound) */
} in_spec;

static int64_t spec_numel(const in_spec *s) {
    int64_t n = 1;
    for (int i = 0; i < s->ndim; i++) n *= s->shape[i];
    return n;
}

/* Forward pass on fresh tensors holding vals; returns y (NULL on failure). */
static wb_tensor *eval(wb_ctx *ctx, prim_fn f, int n, const in_spec *specs, double **vals, wb_tensor **xs) {
    cr_assert_eq(wb_ctx_reset(ctx), WB_OK);
    ctx->dropout_calls = 0;
    for (int i = 0; i < n; i++) {
        int idx = specs[i].kind == IN_INDEX;
        xs[i] = wb_new(ctx, idx ? WB_I32 : WB_F64, specs[i].ndim, specs[i].shape, !idx);
        cr_assert_not_null(xs[i]);
        cr_assert_eq(wb_upload(ctx, xs[i], vals[i]), WB_OK);
    }
    return f(ctx, xs);
}

static double dot_with(wb_ctx *ctx, wb_tensor *y, const double *r) {
    int64_t m = wb_numel(y);
    double *h = malloc((size_t)m * sizeof *h);
    cr_assert_eq(wb_download(ctx, y, h), WB_OK);
    double s = 0;
    for (int64_t i = 0; i < m; i++) s += h[i] * r[i];
    free(h);
    return s;
}

/* Returns the worst relative error over three random directions. */
static double gradcheck(const char *name, prim_fn f, int n, const in_spec *specs, uint64_t seed) {
    wb_backend *be;
    cr_assert_eq(wb_backend_cpu_create(&be), WB_OK);
    wb_ctx ctx;
    cr_assert_eq(wb_ctx_init(&ctx, be, WB_F64, 1 << 20), WB_OK);
    ctx.nvtx = 0;
    wb_rng rng;
    wb_rng_seed(&rng, seed);

    double *vals[8], *dirs[8], *plus[8], *grads[8];
    for (int i = 0; i < n; i++) {
        int64_t m = spec_numel(&specs[i]);
        vals[i] = malloc((size_t)m * sizeof(double));
        dirs[i] = malloc((size_t)m * sizeof(double));
        plus[i] = malloc((size_t)m * sizeof(double));
        grads[i] = malloc((size_t)m * sizeof(double));
        for (int64_t j = 0; j < m; j++) {
            double u = wb_rng_normal(&rng);
            if (specs[i].kind == IN_POSITIVE) u = 0.5 + 1.5 * wb_rng_uniform(&rng);
            if (specs[i].kind == IN_INDEX) u = (double)(wb_rng_next(&rng) % (uint64_t)specs[i].bound);
            vals[i][j] = u;
        }
    }
    wb_tensor *xs[8];
    wb_tensor *y = eval(&ctx, f, n, specs, vals, xs);
    cr_assert_not_null(y, "%s: forward failed", name);
    int64_t m = wb_numel(y);
    double *r = malloc((size_t)m * sizeof *r);
    for (int64_t j = 0; j < m; j++) r[j] = wb_rng_normal(&rng);
    wb_tensor *gy = wb_new(&ctx, WB_F64, y->ndim, y->shape, 0);
    cr_assert_eq(wb_upload(&ctx, gy, r), WB_OK);
    cr_assert_eq(wb_backward_with(&ctx, y, gy), WB_OK, "%s: backward failed", name);
    for (int i = 0; i < n; i++)
        if (specs[i].kind != IN_INDEX) cr_assert_eq(wb_download_grad(&ctx, xs[i], grads[i]), WB_OK);

    double worst = 0;
    const double h = 1e-6;
    for (int trial = 0; trial < 3; trial++) {
        double analytic = 0;
        for (int i = 0; i < n; i++) {
            if (specs[i].kind == IN_INDEX) continue;
            for (int64_t j = 0; j < spec_numel(&specs[i]); j++) {
                dirs[i][j] = wb_rng_normal(&rng);
                analytic += grads[i][j] * dirs[i][j];
            }
        }
        double lp, lm;
        for (int sign = 1; sign >= -1; sign -= 2) {
            for (int i = 0; i < n; i++)
                for (int64_t j = 0; j < spec_numel(&specs[i]); j++)
                    plus[i][j] = vals[i][j] + (specs[i].kind == IN_INDEX ? 0 : sign * h * dirs[i][j]);
            wb_tensor *yy = eval(&ctx, f, n, specs, plus, xs);
            cr_assert_not_null(yy);
            double l = dot_with(&ctx, yy, r);
            if (sign == 1) lp = l;
            else lm = l;
        }
        double numeric = (lp - lm) / (2 * h);
        double err = fabs(numeric - analytic) / fmax(1e-8, fmax(fabs(numeric), fabs(analytic)));
        if (err > worst) worst = err;
        cr_log_info("%s: direction %d analytic %.10e numeric %.10e rel err %.2e", name, trial, analytic,
                    numeric, err);
    }
    for (int i = 0; i < n; i++) free(vals[i]), free(dirs[i]), free(plus[i]), free(grads[i]);
    free(r);
    wb_ctx_free(&ctx);
    be->destroy(be);
    return worst;
}

#define TOL 1e-6
#define CHECK(name, fn, ...)                                                                       \
    do {                                                                                           \
        in_spec specs_[] = {__VA_ARGS__};                                                          \
        double e_ = gradcheck(name, fn, (int)(sizeof specs_ / sizeof specs_[0]), specs_, 42);       \
        cr_expect_leq(e_, TOL, "%s: relative error %.3e exceeds %.0e", name, e_, TOL);             \
    } while (0)

#define S2(a, b) 2, {a, b}
#define S3(a, b, c) 3, {a, b, c}
#define S1(a) 1, {a}

Test(gradcheck, add_sub_broadcast) {
    CHECK("add", f_add, {S3(2, 3, 4), IN_NORMAL, 0}, {S3(2, 3, 4), IN_NORMAL, 0});
    CHECK("add broadcast row", f_add, {S3(2, 3, 4), IN_NORMAL, 0}, {S1(4), IN_NORMAL, 0});
    CHECK("add broadcast both", f_add, {S3(2, 1, 4), IN_NORMAL, 0}, {S3(1, 3, 1), IN_NORMAL, 0});
    CHECK("sub broadcast", f_sub, {S2(3, 4), IN_NORMAL, 0}, {S2(3, 1), IN_NORMAL, 0});
}

Test(gradcheck, mul_div_broadcast) {
    CHECK("mul", f_mul, {S2(3, 5), IN_NORMAL, 0}, {S2(3, 5), IN_NORMAL, 0});
    CHECK("mul broadcast", f_mul, {S3(2, 3, 4), IN_NORMAL, 0}, {S3(2, 1, 4), IN_NORMAL, 0});
    CHECK("div", f_div, {S2(3, 5), IN_NORMAL, 0}, {S2(3, 5), IN_POSITIVE, 0});
    CHECK("div broadcast", f_div, {S2(3, 5), IN_NORMAL, 0}, {S1(5), IN_POSITIVE, 0});
}

Test(gradcheck, unary) {
    CHECK("scale", f_scale, {S2(3, 4), IN_NORMAL, 0});
    CHECK("log", f_log, {S2(3, 4), IN_POSITIVE, 0});
    CHECK("exp", f_exp, {S2(3, 4), IN_NORMAL, 0});
    CHECK("gelu", f_gelu, {S2(3, 4), IN_NORMAL, 0});
    CHECK("square", f_square, {S2(3, 4), IN_NORMAL, 0});
    CHECK("sqrt", f_sqrt, {S2(3, 4), IN_POSITIVE, 0});
}

Test(gradcheck, reductions) {
    CHECK("sum axis 0", f_sum0, {S3(3, 4, 2), IN_NORMAL, 0});
    CHECK("sum axis 1", f_sum1, {S3(3, 4, 2), IN_NORMAL, 0});
    CHECK("mean last axis", f_mean2, {S3(3, 4, 5), IN_NORMAL, 0});
}

Test(gradcheck, matmul) {
    CHECK("mm", f_mm, {S2(4, 5), IN_NORMAL, 0}, {S2(5, 3), IN_NORMAL, 0});
    CHECK("mm 3d lhs", f_mm, {S3(2, 4, 5), IN_NORMAL, 0}, {S2(5, 3), IN_NORMAL, 0});
    CHECK("mm transposed views", f_mm_t, {S2(5, 4), IN_NORMAL, 0}, {S2(3, 5), IN_NORMAL, 0});
    CHECK("bmm", f_bmm, {S3(2, 4, 5), IN_NORMAL, 0}, {S3(2, 5, 3), IN_NORMAL, 0});
    CHECK("bmm transposed rhs", f_bmm_t, {S3(2, 4, 5), IN_NORMAL, 0}, {S3(2, 3, 5), IN_NORMAL, 0});
    CHECK("linear", f_linear, {S3(2, 3, 5), IN_NORMAL, 0}, {S2(4, 5), IN_NORMAL, 0}, {S1(4), IN_NORMAL, 0});
    CHECK("linear no bias", f_linear_nobias, {S2(3, 5), IN_NORMAL, 0}, {S2(4, 5), IN_NORMAL, 0});
    CHECK("linear + gelu", f_linear_gelu, {S3(2, 3, 5), IN_NORMAL, 0}, {S2(4, 5), IN_NORMAL, 0}, {S1(4), IN_NORMAL, 0});
    CHECK("mlp", f_mlp, {S2(3, 5), IN_NORMAL, 0}, {S2(6, 5), IN_NORMAL, 0}, {S1(6), IN_NORMAL, 0},
          {S2(4, 6), IN_NORMAL, 0});
}

Test(gradcheck, views) {
    CHECK("split", f_split, {S2(3, 6), IN_NORMAL, 0});
    CHECK("permute", f_permute, {S3(2, 3, 4), IN_NORMAL, 0});
    CHECK("reshape view", f_reshape_view, {S3(2, 3, 4), IN_NORMAL, 0});
    CHECK("reshape copy", f_reshape_copy, {S3(2, 3, 4), IN_NORMAL, 0});
}

Test(gradcheck, embedding) {
    CHECK("embedding", f_embedding, {S2(7, 4), IN_NORMAL, 0}, {S2(2, 5), IN_INDEX, 7});
}

Test(gradcheck, softmax_family) {
    CHECK("softmax", f_softmax, {S3(2, 3, 5), IN_NORMAL, 0});
    CHECK("causal mask + softmax", f_mask_softmax, {S3(2, 4, 4), IN_NORMAL, 0});
    CHECK("softmax causal fused", f_softmax_causal, {S3(2, 4, 4), IN_NORMAL, 0});
}

Test(gradcheck, attention) {
    CHECK("attention", f_attention, {4, {2, 2, 5, 3}, IN_NORMAL, 0}, {4, {2, 2, 5, 3}, IN_NORMAL, 0},
          {4, {2, 2, 5, 3}, IN_NORMAL, 0});
    CHECK("attention on qkv views", f_attention_qkv, {S3(2, 5, 24), IN_NORMAL, 0});
}

Test(gradcheck, layernorm) {
    CHECK("layernorm", f_layernorm, {S3(2, 3, 6), IN_NORMAL, 0}, {S1(6), IN_NORMAL, 0}, {S1(6), IN_NORMAL, 0});
}

Test(gradcheck, cross_entropy) {
    /* logits padded to 7 columns, vocabulary 5: the padding must get no gradient */
    CHECK("cross entropy", f_cross_entropy, {S3(2, 3, 7), IN_NORMAL, 0}, {S2(2, 3), IN_INDEX, 5});
}

Test(gradcheck, dropout_and_fanout) {
    CHECK("dropout", f_dropout, {S2(4, 6), IN_NORMAL, 0});
    CHECK("fan-out", f_residual_twice, {S2(3, 4), IN_NORMAL, 0});
}

Test(gradcheck, residual_aliases) {
    CHECK("x + x", f_add_self, {S2(3, 4), IN_NORMAL, 0});
    CHECK("x + linear(x)", f_linear_residual, {S3(2, 3, 4), IN_NORMAL, 0}, {S2(4, 4), IN_NORMAL, 0}, {S1(4), IN_NORMAL, 0});
    CHECK("two residual blocks", f_residual_chain, {S3(2, 3, 6), IN_NORMAL, 0}, {S2(6, 6), IN_NORMAL, 0},
          {S1(6), IN_NORMAL, 0}, {S1(6), IN_NORMAL, 0});
}
