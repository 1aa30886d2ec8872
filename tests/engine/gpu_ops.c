/*
 * gpu_ops.c: every primitive on the CUDA backend against the CPU reference (float64), forward
 * value and the gradients of every input (a pullback seeded with a random cotangent). Runs under
 * the ctest label `gpu`; prints one line per primitive and dtype, exits 1 if any fails.
 *
 * Shapes are larger than in the gradient checks so that rows span several warps and blocks.
 * bf16 inputs are rounded to bf16 before both runs, so the measure is the kernels' own error:
 * f32 within 1e-4 (cuBLASLt f32 GEMMs, f32 reductions), bf16 within 1e-2 (one rounding per
 * stored intermediate: the measured errors are 1e-3 to 4e-3, so a wrong index or a missed
 * accumulation, errors of order 1, cannot pass).
 */
#include <math.h>
#include <stdio.h>
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
    int64_t bound;
} in_spec;

typedef struct {
    const char *name;
    prim_fn f;
    int n;
    in_spec in[4];
    double bf16_tol; /* 0: the default */
} prim_case;

#define S1(a) 1, {a}
#define S2(a, b) 2, {a, b}
#define S3(a, b, c) 3, {a, b, c}

static const prim_case CASES[] = {
    {"add", f_add, 2, {{S3(4, 33, 70), IN_NORMAL, 0}, {S3(4, 33, 70), IN_NORMAL, 0}}, 0},
    {"add broadcast", f_add, 2, {{S3(4, 33, 70), IN_NORMAL, 0}, {S1(70), IN_NORMAL, 0}}, 0},
    {"sub broadcast", f_sub, 2, {{S3(4, 33, 70), IN_NORMAL, 0}, {S3(4, 33, 1), IN_NORMAL, 0}}, 0},
    {"mul broadcast", f_mul, 2, {{S3(4, 33, 70), IN_NORMAL, 0}, {S3(1, 33, 70), IN_NORMAL, 0}}, 0},
    {"div broadcast", f_div, 2, {{S2(50, 70), IN_NORMAL, 0}, {S1(70), IN_POSITIVE, 0}}, 0},
    {"scale", f_scale, 1, {{S2(50, 70), IN_NORMAL, 0}}, 0},
    {"log", f_log, 1, {{S2(50, 70), IN_POSITIVE, 0}}, 0},
    {"exp", f_exp, 1, {{S2(50, 70), IN_NORMAL, 0}}, 0},
    {"gelu", f_gelu, 1, {{S2(50, 70), IN_NORMAL, 0}}, 0},
    {"square", f_square, 1, {{S2(50, 70), IN_NORMAL, 0}}, 0},
    {"sqrt", f_sqrt, 1, {{S2(50, 70), IN_POSITIVE, 0}}, 0},
    {"sum axis 0", f_sum0, 1, {{S3(40, 9, 70), IN_NORMAL, 0}}, 0},
    {"sum axis 1", f_sum1, 1, {{S3(4, 90, 7), IN_NORMAL, 0}}, 0},
    {"mean last axis", f_mean2, 1, {{S3(4, 9, 300), IN_NORMAL, 0}}, 0},
    {"mm", f_mm, 2, {{S2(64, 80), IN_NORMAL, 0}, {S2(80, 96), IN_NORMAL, 0}}, 0},
    {"mm 3d lhs", f_mm, 2, {{S3(3, 40, 80), IN_NORMAL, 0}, {S2(80, 48), IN_NORMAL, 0}}, 0},
    {"mm transposed views", f_mm_t, 2, {{S2(80, 64), IN_NORMAL, 0}, {S2(96, 80), IN_NORMAL, 0}}, 0},
    {"bmm", f_bmm, 2, {{S3(6, 32, 40), IN_NORMAL, 0}, {S3(6, 40, 24), IN_NORMAL, 0}}, 0},
    {"bmm transposed rhs", f_bmm_t, 2, {{S3(6, 32, 40), IN_NORMAL, 0}, {S3(6, 24, 40), IN_NORMAL, 0}}, 0},
    {"linear", f_linear, 3, {{S3(2, 30, 64), IN_NORMAL, 0}, {S2(96, 64), IN_NORMAL, 0}, {S1(96), IN_NORMAL, 0}}, 0},
    {"linear no bias", f_linear_nobias, 2, {{S2(30, 64), IN_NORMAL, 0}, {S2(96, 64), IN_NORMAL, 0}}, 0},
    {"linear + gelu", f_linear_gelu, 3, {{S3(2, 30, 64), IN_NORMAL, 0}, {S2(96, 64), IN_NORMAL, 0}, {S1(96), IN_NORMAL, 0}}, 0},
    {"mlp (dgelu in the GEMM)", f_mlp, 4, {{S2(60, 64), IN_NORMAL, 0}, {S2(96, 64), IN_NORMAL, 0}, {S1(96), IN_NORMAL, 0},
                                  {S2(40, 96), IN_NORMAL, 0}}, 0},
    {"split", f_split, 1, {{S2(40, 6), IN_NORMAL, 0}}, 0},
    {"permute", f_permute, 1, {{S3(2, 3, 4), IN_NORMAL, 0}}, 0},
    {"reshape view", f_reshape_view, 1, {{S3(2, 3, 4), IN_NORMAL, 0}}, 0},
    {"reshape copy", f_reshape_copy, 1, {{S3(2, 3, 4), IN_NORMAL, 0}}, 0},
    {"embedding", f_embedding, 2, {{S2(50, 72), IN_NORMAL, 0}, {S2(4, 33), IN_INDEX, 50}}, 0}, /* 16-byte rows */
    {"embedding, odd width", f_embedding, 2, {{S2(50, 71), IN_NORMAL, 0}, {S2(4, 33), IN_INDEX, 50}}, 0},
    {"softmax", f_softmax, 1, {{S3(4, 9, 300), IN_NORMAL, 0}}, 0},
    {"causal mask + softmax", f_mask_softmax, 1, {{S3(6, 70, 70), IN_NORMAL, 0}}, 0},
    {"softmax causal fused", f_softmax_causal, 1, {{S3(6, 70, 70), IN_NORMAL, 0}}, 0},
    {"layernorm", f_layernorm, 3, {{S3(4, 33, 200), IN_NORMAL, 0}, {S1(200), IN_NORMAL, 0}, {S1(200), IN_NORMAL, 0}}, 0},
    {"cross entropy", f_cross_entropy, 2, {{S3(4, 33, 7), IN_NORMAL, 0}, {S2(4, 33), IN_INDEX, 5}}, 0},
    {"dropout", f_dropout, 1, {{S2(64, 70), IN_NORMAL, 0}}, 0},
    /* 1024 rows or more: the two-pass column sums (bias and layer-norm weight gradients) */
    {"sum axis 0, tall", f_sum0, 1, {{S2(1100, 40), IN_NORMAL, 0}}, 0},
    {"linear, tall", f_linear, 3, {{S3(2, 600, 64), IN_NORMAL, 0}, {S2(96, 64), IN_NORMAL, 0}, {S1(96), IN_NORMAL, 0}}, 0},
    {"layernorm, tall", f_layernorm, 3, {{S2(1100, 96), IN_NORMAL, 0}, {S1(96), IN_NORMAL, 0}, {S1(96), IN_NORMAL, 0}}, 0},
    /* bf16: the flash kernels (T not a multiple of the 64-row tiles); f32: the bmm fallback.
     * P and dS are rounded to bf16 before their tensor-core products, hence the looser bound. */
    {"attention", f_attention, 3, {{4, {2, 2, 100, 64}, IN_NORMAL, 0}, {4, {2, 2, 100, 64}, IN_NORMAL, 0},
                                   {4, {2, 2, 100, 64}, IN_NORMAL, 0}}, 1e-2},
    {"attention on qkv views", f_attention_qkv, 1, {{S3(2, 130, 384), IN_NORMAL, 0}}, 1e-2},
    {"fan-out", f_residual_twice, 1, {{S2(64, 70), IN_NORMAL, 0}}, 0},
    {"x + x", f_add_self, 1, {{S2(64, 72), IN_NORMAL, 0}}, 0},
    {"x + linear(x), add in the GEMM", f_linear_residual, 3, {{S3(2, 30, 64), IN_NORMAL, 0}, {S2(64, 64), IN_NORMAL, 0},
                                                       {S1(64), IN_NORMAL, 0}}, 0},
    {"two residual blocks, tall", f_residual_chain, 4, {{S3(2, 600, 64), IN_NORMAL, 0}, {S2(64, 64), IN_NORMAL, 0},
                                                     {S1(64), IN_NORMAL, 0}, {S1(64), IN_NORMAL, 0}}, 0},
    /* sizes that take the 16-byte paths: contiguous multiples of 8 (vec8), rows of 8 behind a
     * permute or a broadcast (rows8), rows held in registers (softmax, layer norm, C % 8 == 0),
     * 8-column vectors over the logits with the padding inside the last one */
    {"gelu, vec8", f_gelu, 1, {{S2(48, 96), IN_NORMAL, 0}}, 0},
    {"exp, vec8", f_exp, 1, {{S2(32, 40), IN_NORMAL, 0}}, 0},
    {"sqrt, vec8", f_sqrt, 1, {{S2(32, 40), IN_POSITIVE, 0}}, 0},
    {"add broadcast, rows8", f_add, 2, {{S3(4, 33, 72), IN_NORMAL, 0}, {S1(72), IN_NORMAL, 0}}, 0},
    {"mul broadcast, rows8", f_mul, 2, {{S3(4, 9, 16), IN_NORMAL, 0}, {S3(4, 1, 16), IN_NORMAL, 0}}, 0},
    {"head copy, rows8", f_heads_copy, 1, {{S3(6, 5, 16), IN_NORMAL, 0}}, 0},
    {"softmax causal, rows in registers", f_softmax_causal, 1, {{S3(2, 264, 264), IN_NORMAL, 0}}, 0},
    {"mask + softmax, rows in registers", f_mask_softmax, 1, {{S3(2, 72, 72), IN_NORMAL, 0}}, 0},
    {"softmax, 1000 wide", f_softmax, 1, {{S3(2, 4, 1000), IN_NORMAL, 0}}, 0},
    {"layernorm 768, tall", f_layernorm, 3, {{S2(1100, 768), IN_NORMAL, 0}, {S1(768), IN_NORMAL, 0}, {S1(768), IN_NORMAL, 0}}, 0},
    {"layernorm 770 (any width)", f_layernorm, 3, {{S2(40, 770), IN_NORMAL, 0}, {S1(770), IN_NORMAL, 0}, {S1(770), IN_NORMAL, 0}}, 0},
    /* flash attention: 3 heads, 4 tiles (a partial one), B*H*T odd (the f32 dQ buffer's alignment) */
    {"attention, 3 heads x 201", f_attention, 3, {{4, {1, 3, 201, 64}, IN_NORMAL, 0}, {4, {1, 3, 201, 64}, IN_NORMAL, 0},
                                                  {4, {1, 3, 201, 64}, IN_NORMAL, 0}}, 1e-2},
    {"cross entropy, vec8", f_cross_entropy_wide, 2, {{S3(2, 40, 136), IN_NORMAL, 0}, {S2(2, 40), IN_INDEX, 131}}, 0},
    /* rows wide enough for k_ce_lse's four-vector loop (8 x 4 x 256 logits) and its
     * one-vector rest; a tall column sum whose width is no multiple of 8 (the 2-byte pass 1) */
    {"cross entropy, 9000 wide", f_cross_entropy_wide, 2, {{S2(3, 9000), IN_NORMAL, 0}, {S1(3), IN_INDEX, 8995}}, 0},
    {"sum axis 0, tall, 37 wide", f_sum0, 1, {{S2(1030, 37), IN_NORMAL, 0}}, 0},
    /* k_layernorm_backward_vec2 with two and three vectors per lane, into a gradient that is not zero */
    {"layernorm 392 + residual", f_layernorm_residual, 3, {{S2(300, 392), IN_NORMAL, 0}, {S1(392), IN_NORMAL, 0}, {S1(392), IN_NORMAL, 0}}, 0},
    {"layernorm 768 + residual", f_layernorm_residual, 3, {{S2(1100, 768), IN_NORMAL, 0}, {S1(768), IN_NORMAL, 0}, {S1(768), IN_NORMAL, 0}}, 0},
    /* column sums of 64 chunks, and of three slabs (the last 8 wide); the any-width
     * layer-norm pullback's 100 one-warp blocks, whose sums the last block finishes in three
     * levels of groups (tree_finish) */
    {"sum axis 0, 4096 tall", f_sum0, 1, {{S2(4096, 24), IN_NORMAL, 0}}, 0},
    {"sum axis 0, tall, 520 wide", f_sum0, 1, {{S2(1100, 520), IN_NORMAL, 0}}, 0},
    {"layernorm 770 + residual", f_layernorm_residual, 3, {{S2(100, 770), IN_NORMAL, 0}, {S1(770), IN_NORMAL, 0}, {S1(770), IN_NORMAL, 0}}, 0},
};

/* A training step's backward: wb_backward from the loss, gradient 1. On the CUDA backend the
 * forward then runs the fused classifier (cross_entropy_fused: the logits' gradient stored in the
 * log-sum-exp's pass) and the pullback launches nothing; ce_pullbacks says how many calls of
 * cross_entropy_backward each case expects on it (1: the loss is not where backward starts). Rows
 * of 7 (no 16-byte vectors), a vocabulary that ends inside an 8-column vector (3 of 8: no whole
 * vector, every target in the partial one; 131 of 136, 8995 of 9000, GPT-2's 50257 of 50304), and
 * rows long enough for the four-vector loops of both passes. Few rows: the emulation runs each
 * row's block of 512 threads. */
typedef struct {
    prim_case c;
    int ce_pullbacks;
} loss_case;

static const loss_case LOSS_CASES[] = {
    {{"ce from loss, 7 wide", f_cross_entropy, 2, {{S3(2, 5, 7), IN_NORMAL, 0}, {S2(2, 5), IN_INDEX, 5}}, 0}, 0},
    {{"ce from loss, 3 of 8", f_cross_entropy_wide, 2, {{S2(6, 8), IN_NORMAL, 0}, {S1(6), IN_INDEX, 3}}, 0}, 0},
    {{"ce from loss, vec8", f_cross_entropy_wide, 2, {{S3(2, 12, 136), IN_NORMAL, 0}, {S2(2, 12), IN_INDEX, 131}}, 0}, 0},
    {{"ce from loss, 9000 wide", f_cross_entropy_wide, 2, {{S2(3, 9000), IN_NORMAL, 0}, {S1(3), IN_INDEX, 8995}}, 0}, 0},
    {{"ce from loss, 50257/50304", f_cross_entropy_gpt2, 2, {{S2(3, 50304), IN_NORMAL, 0}, {S1(3), IN_INDEX, 50257}}, 0}, 0},
    {{"ce x 2 from loss", f_cross_entropy_x2, 2, {{S3(2, 12, 136), IN_NORMAL, 0}, {S2(2, 12), IN_INDEX, 131}}, 0}, 1},
};

/* cases whose results must be the same bits in a second run on the GPU: their sums across blocks
 * have a fixed order (no float atomics) */
static int repeat_bitwise(const char *name) {
    static const char *const names[] = {"sum axis 0, tall", "sum axis 0, 4096 tall", "sum axis 0, tall, 520 wide",
                                        "layernorm, tall", "layernorm 768 + residual", "layernorm 770 + residual"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i])) return 1;
    return 0;
}

static int64_t numel_of(const in_spec *s) {
    int64_t n = 1;
    for (int i = 0; i < s->ndim; i++) n *= s->shape[i];
    return n;
}

typedef struct {
    double *y, *g[4];
    int64_t ny;
} result;

/* How a run's backward starts: seeded with the cotangent r (wb_backward_with), or from the output,
 * a scalar loss, with gradient 1 (wb_backward, as a training step does) */
enum { FROM_COTANGENT, FROM_LOSS, FORWARD_ONLY }; /* FORWARD_ONLY: gradients off, as evaluation runs */

/* forward + pullback seeded with r on one backend; values converted to double */
static int run(wb_backend *be, wb_dtype dt, const prim_case *c, double **vals, const double *r, int64_t *ny_io,
               result *out, int from) {
    wb_ctx ctx;
    WB_TRY(wb_ctx_init(&ctx, be, dt, 1 << 22));
    ctx.nvtx = 0;
    ctx.grad_enabled = from != FORWARD_ONLY;
    wb_tensor *xs[4];
    for (int i = 0; i < c->n; i++) {
        int idx = c->in[i].kind == IN_INDEX;
        xs[i] = wb_new(&ctx, idx ? WB_I32 : dt, c->in[i].ndim, c->in[i].shape, !idx);
        if (!xs[i] || wb_upload(&ctx, xs[i], vals[i]) != WB_OK) return WB_FAIL;
    }
    wb_tensor *y = c->f(&ctx, xs);
    if (!y) return WB_FAIL;
    int64_t ny = wb_numel(y);
    if (*ny_io >= 0 && *ny_io != ny) return WB_FAIL;
    *ny_io = ny;
    out->ny = ny;
    out->y = malloc((size_t)ny * sizeof(double));
    WB_TRY(wb_download(&ctx, y, out->y));
    if (!r || from == FORWARD_ONLY) { /* first call: only learn the output size (it returned without freeing: 1.5 GB leaked, found by LeakSanitizer) */
        wb_ctx_free(&ctx);
        return WB_OK;
    }
    if (from == FROM_LOSS) {
        WB_TRY(wb_backward(&ctx, y));
    } else {
        wb_tensor *gy = wb_new(&ctx, y->dtype, y->ndim, y->shape, 0);
        if (!gy || wb_upload(&ctx, gy, r) != WB_OK) return WB_FAIL;
        WB_TRY(wb_backward_with(&ctx, y, gy));
    }
    for (int i = 0; i < c->n; i++) {
        out->g[i] = NULL;
        if (c->in[i].kind == IN_INDEX) continue;
        out->g[i] = malloc((size_t)numel_of(&c->in[i]) * sizeof(double));
        WB_TRY(wb_download_grad(&ctx, xs[i], out->g[i]));
    }
    WB_TRY(be->sync(be));
    wb_ctx_free(&ctx);
    return WB_OK;
}

/* relative 2-norm error, skipping positions where the reference is infinite (masked logits) */
static double rel(const double *out, const double *ref, int64_t n) {
    double d = 0, s = 0;
    for (int64_t i = 0; i < n; i++) {
        if (isinf(ref[i]) && out[i] == ref[i]) continue;
        if (!isfinite(out[i])) return INFINITY;
        d += (out[i] - ref[i]) * (out[i] - ref[i]);
        s += ref[i] * ref[i];
    }
    return s > 0 ? sqrt(d / s) : sqrt(d);
}

static double round_bf16(double v) { return wb_bf16_to_f32(wb_f32_to_bf16((float)v)); }

/* be->norm_sq over n bf16 values starting `off` elements into an allocation, against a float64 sum
 * of the same rounded values (relative 1e-5: f32 accumulation of a few thousand squares) */
static int check_norm_sq(wb_backend *gpu, int64_t n, int off) {
    uint16_t *h = malloc((size_t)(n + off) * sizeof *h);
    wb_rng rng;
    wb_rng_seed(&rng, 77);
    double ref = 0;
    for (int64_t i = 0; i < n + off; i++) {
        h[i] = wb_f32_to_bf16((float)wb_rng_normal(&rng));
        double v = wb_bf16_to_f32(h[i]);
        if (i >= off) ref += v * v;
    }
    void *d = NULL, *out = NULL;
    float got = NAN;
    int ok = gpu->alloc(gpu, &d, (size_t)(n + off) * 2) == WB_OK && gpu->alloc(gpu, &out, 8) == WB_OK &&
             gpu->to_device(gpu, d, h, (size_t)(n + off) * 2) == WB_OK &&
             gpu->norm_sq(gpu, out, (uint16_t *)d + off, n, WB_BF16) == WB_OK && gpu->to_host(gpu, &got, out, 4) == WB_OK;
    if (d) gpu->free(gpu, d);
    if (out) gpu->free(gpu, out);
    free(h);
    return ok && fabs(got - ref) <= 1e-5 * ref;
}

/* cross_entropy_backward on the CUDA backend, counted (the loss cases say how often it may run) */
static int (*ce_backward_real)(wb_backend *, const wb_tensor *, const wb_tensor *, const wb_tensor *, const wb_tensor *,
                               const wb_tensor *, int64_t, int);
static int ce_backward_calls;
static int ce_backward_counted(wb_backend *be, const wb_tensor *gl, const wb_tensor *gloss, const wb_tensor *lse,
                               const wb_tensor *logits, const wb_tensor *targets, int64_t vocab, int acc) {
    ce_backward_calls++;
    return ce_backward_real(be, gl, gloss, lse, logits, targets, vocab, acc);
}

static int same_bits(const double *a, const double *b, int64_t n) { return memcmp(a, b, (size_t)n * sizeof *a) == 0; }

static void free_result(result *res, int n) {
    for (int i = 0; i < n; i++) free(res->g[i]);
    free(res->y);
}

/* One case in one dtype: the CUDA backend against the CPU one in float64, the forward value and
 * every input's gradient; prints a line and returns 1 when it passes. From the loss (lc given),
 * also: the pullback's calls of cross_entropy_backward counted; where it made none (the fused
 * classifier), the gradients equal, to the bit, those of the unfused pullback (the same backward
 * from the cotangent 1: the same lse, the same arithmetic), and the loss that of a forward without
 * gradients (the two-kernel path) within 1e-5: its blocks of 256 threads sum each row's
 * exponentials in another order than the fused kernel's 512 (f32 rounding, ~1e-7). */
static int check_case(wb_backend *cpu, wb_backend *gpu, const prim_case *c, uint64_t seed, wb_dtype dt, double tol,
                      const loss_case *lc) {
    wb_rng rng;
    wb_rng_seed(&rng, seed);
    double *vals[4]; /* a case has up to 4 inputs (in[4]) */
    for (int i = 0; i < c->n; i++) {
        int64_t m = numel_of(&c->in[i]);
        vals[i] = malloc((size_t)m * sizeof(double));
        for (int64_t j = 0; j < m; j++) {
            double u = wb_rng_normal(&rng);
            if (c->in[i].kind == IN_POSITIVE) u = 0.5 + 1.5 * wb_rng_uniform(&rng);
            if (c->in[i].kind == IN_INDEX) u = (double)(wb_rng_next(&rng) % (uint64_t)c->in[i].bound);
            else if (dt == WB_BF16) u = round_bf16(u);
            vals[i][j] = u;
        }
    }
    int from = lc ? FROM_LOSS : FROM_COTANGENT;
    int64_t ny = -1;
    result probe = {0}, ref = {0}, got = {0}, unfused = {0}, eval = {0};
    int ok = run(cpu, WB_F64, c, vals, NULL, &ny, &probe, from) == WB_OK;
    double *r = ok ? malloc((size_t)ny * sizeof(double)) : NULL;
    for (int64_t j = 0; ok && j < ny; j++) r[j] = lc ? 1.0 : dt == WB_BF16 ? round_bf16(wb_rng_normal(&rng)) : wb_rng_normal(&rng);
    ok = ok && run(cpu, WB_F64, c, vals, r, &ny, &ref, from) == WB_OK;
    ce_backward_calls = 0;
    int gpu_ok = ok && run(gpu, dt, c, vals, r, &ny, &got, from) == WB_OK;
    int calls = ce_backward_calls;
    double worst = INFINITY;
    if (gpu_ok) {
        worst = rel(got.y, ref.y, ny);
        for (int i = 0; i < c->n; i++)
            if (ref.g[i]) {
                double e = rel(got.g[i], ref.g[i], numel_of(&c->in[i]));
                if (!(e <= worst)) worst = e > worst || isnan(e) ? e : worst;
            }
    }
    int pass = gpu_ok && worst <= tol;
    char extra[160] = "";
    if (lc && gpu_ok) {
        int bitwise = 1;
        if (lc->ce_pullbacks == 0) {
            bitwise = run(gpu, dt, c, vals, r, &ny, &unfused, FROM_COTANGENT) == WB_OK &&
                      run(gpu, dt, c, vals, r, &ny, &eval, FORWARD_ONLY) == WB_OK && rel(eval.y, got.y, ny) <= 1e-5;
            for (int i = 0; bitwise && i < c->n; i++)
                if (got.g[i]) bitwise = same_bits(unfused.g[i], got.g[i], numel_of(&c->in[i]));
        }
        snprintf(extra, sizeof extra, ", ce pullbacks %d (expected %d)%s", calls, lc->ce_pullbacks,
                 lc->ce_pullbacks == 0 ? bitwise ? ", = unfused, = eval" : ", NOT = unfused or eval" : "");
        pass = pass && calls == lc->ce_pullbacks && bitwise;
    }
    if (!lc && pass && repeat_bitwise(c->name)) { /* again: which block finishes a cross-block sum must not matter */
        result again = {0};
        pass = run(gpu, dt, c, vals, r, &ny, &again, from) == WB_OK && same_bits(again.y, got.y, ny);
        for (int i = 0; pass && i < c->n; i++)
            if (got.g[i]) pass = same_bits(again.g[i], got.g[i], numel_of(&c->in[i]));
        snprintf(extra, sizeof extra, pass ? ", same bits again" : ", OTHER BITS AGAIN");
        free_result(&again, c->n);
    }
    printf("%-24s %-5s value+grads rel err %.3e (tolerance %.0e)%s %s\n", c->name, wb_dtype_name(dt), worst, tol, extra,
           pass ? "PASS" : "FAIL");
    for (int i = 0; i < c->n; i++) free(vals[i]);
    free_result(&probe, 0), free_result(&ref, c->n), free_result(&got, c->n), free_result(&unfused, c->n);
    free_result(&eval, 0);
    free(r);
    return pass;
}

/* --part K/N: run only checks K, K + N, K + 2N, ... (1-based, in the order below), so that ctest can
 * run the emulated suite as N programs at once (tests/engine/CMakeLists.txt); no option: all */
static int parse_part(int argc, char **argv, int *k, int *n) {
    *k = 1, *n = 1;
    if (argc == 1) return 1;
    char end = 0;
    return argc == 3 && !strcmp(argv[1], "--part") && sscanf(argv[2], "%d/%d%c", k, n, &end) == 2 && *n >= 1 &&
           *k >= 1 && *k <= *n;
}

int main(int argc, char **argv) {
    int part, parts;
    if (!parse_part(argc, argv, &part, &parts)) {
        fprintf(stderr, "usage: %s [--part K/N]   (1 <= K <= N: every Nth check, from the Kth)\n", argv[0]);
        return 2;
    }
    wb_backend *cpu = NULL, *gpu = NULL;
    if (wb_backend_cpu_create(&cpu) != WB_OK) return 1;
    if (wb_backend_cuda_create(&gpu, 0) != WB_OK) {
        fprintf(stderr, "no usable CUDA device\n");
        return 77;
    }
    ce_backward_real = gpu->cross_entropy_backward;
    gpu->cross_entropy_backward = ce_backward_counted;
    printf("CUDA backend vs CPU (float64) on %s\n", gpu->device_name);
    const wb_dtype dts[2] = {WB_F32, WB_BF16};
    const double tols[2] = {1e-4, 1e-2};
    int failed = 0, passed = 0, index = 0; /* index: the check's number, for --part */
#define MINE() (index++ % parts == part - 1)
    for (size_t ci = 0; ci < sizeof CASES / sizeof CASES[0]; ci++) {
        const prim_case *c = &CASES[ci];
        for (int di = 0; di < 2; di++) {
            double tol = dts[di] == WB_BF16 && c->bf16_tol > 0 ? c->bf16_tol : tols[di];
            if (MINE()) check_case(cpu, gpu, c, 1000 + ci, dts[di], tol, NULL) ? passed++ : failed++;
        }
    }
    for (size_t ci = 0; ci < sizeof LOSS_CASES / sizeof LOSS_CASES[0]; ci++)
        for (int di = 0; di < 2; di++)
            if (MINE())
                check_case(cpu, gpu, &LOSS_CASES[ci].c, 2000 + ci, dts[di], tols[di], &LOSS_CASES[ci]) ? passed++ : failed++;
    for (int off = 0; off < 2; off++) { /* the squared gradient norm: 16-byte loads and the tail, then unaligned */
        if (!MINE()) continue;
        int ok = check_norm_sq(gpu, 8 * 1000 + 5, off);
        printf("%-24s %-5s sum of squares vs float64 %s\n", off ? "norm_sq, unaligned" : "norm_sq, vec8 + tail", "bf16",
               ok ? "PASS" : "FAIL");
        ok ? passed++ : failed++;
    }
#undef MINE
    if (parts > 1) printf("part %d of %d: ", part, parts);
    printf("%d passed, %d failed\n", passed, failed);
    gpu->destroy(gpu);
    cpu->destroy(cpu);
    return failed || !passed ? 1 : 0; /* a part with no checks proves nothing */
}
