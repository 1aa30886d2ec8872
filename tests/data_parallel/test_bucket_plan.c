/*
 * test_bucket_plan.c: lesson 06's bucket plan (lessons/06_data_parallel/bucket_plan.h).
 *   - made-up gradients: which parameters share a bucket, its bytes, its ranges, the launch order
 *   - the real GPT-2 on the CPU backend: the order the engine's hooks report is backward's, and a
 *     bucket's gradients really are final after the pullback the plan launches it at (checked
 *     against the gradients at the end of backward) and not one pullback earlier
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "bucket_plan.h"
#include "engine.h"
#include "gpt2.h"
#include "model_grads.h"
#include "wb_check.h"

/* ---- made-up gradients ---- */
Test(plan, bucket_closes_once_it_reaches_the_cap) {
    dp_param ps[5];
    for (int i = 0; i < 5; i++) ps[i] = (dp_param){i * 10, 10, i}; /* 20 bytes each in bf16 */
    dp_plan p;
    cr_assert_eq(dp_plan_build(&p, ps, 5, 2, 40), 0);
    cr_assert_eq(p.n_buckets, 3);
    size_t bytes[3] = {40, 40, 20};
    int count[3] = {2, 2, 1}, ready[3] = {1, 3, 4};
    for (int b = 0; b < 3; b++) {
        cr_expect_eq(p.buckets[b].bytes, bytes[b], "bucket %d: %zu bytes", b, p.buckets[b].bytes);
        cr_expect_eq(p.buckets[b].count, count[b]);
        cr_expect_eq(p.buckets[b].ready, ready[b], "bucket %d launches after pullback %d", b, p.buckets[b].ready);
    }
    dp_plan_free(&p);
}

Test(plan, a_parameter_larger_than_the_cap_has_a_bucket_of_its_own) {
    dp_param ps[3] = {{0, 100, 0}, {100, 5, 1}, {105, 5, 2}};
    dp_plan p;
    cr_assert_eq(dp_plan_build(&p, ps, 3, 1, 50), 0);
    cr_assert_eq(p.n_buckets, 2);
    cr_expect_eq(p.buckets[0].count, 1);
    cr_expect_eq(p.order[p.buckets[0].first], 0);
    cr_expect_eq(p.buckets[1].bytes, 10);
    dp_plan_free(&p);
}

Test(plan, order_follows_backward_ties_take_the_later_parameter_first) {
    /* block order a b c d; backward finishes c, then a and d together, then b */
    dp_param ps[4] = {{0, 4, 5}, {4, 4, 9}, {8, 4, 1}, {12, 4, 5}};
    dp_plan p;
    cr_assert_eq(dp_plan_build(&p, ps, 4, 4, 1 << 20), 0);
    int want[4] = {2, 3, 0, 1};
    for (int i = 0; i < 4; i++) cr_expect_eq(p.order[i], want[i], "position %d: parameter %d", i, p.order[i]);
    cr_assert_eq(p.n_buckets, 1);
    cr_expect_eq(p.buckets[0].ready, 9);
    /* all four are neighbours in the block: one range */
    cr_expect_eq(p.buckets[0].n_ranges, 1);
    cr_expect_eq(p.ranges[0].offset, 0);
    cr_expect_eq(p.ranges[0].numel, 16);
    dp_plan_free(&p);
}

Test(plan, ranges_merge_neighbours_only) {
    dp_param ps[3] = {{30, 10, 0}, {10, 10, 1}, {0, 10, 2}}; /* a gap from 20 to 30 */
    dp_plan p;
    cr_assert_eq(dp_plan_build(&p, ps, 3, 2, 1000), 0);
    cr_assert_eq(p.n_buckets, 1);
    cr_assert_eq(p.buckets[0].n_ranges, 2);
    cr_expect_eq(p.ranges[0].offset, 0);
    cr_expect_eq(p.ranges[0].numel, 20);
    cr_expect_eq(p.ranges[1].offset, 30);
    cr_expect_eq(p.ranges[1].numel, 10);
    dp_plan_free(&p);
}

Test(plan, gradients_no_pullback_writes_go_last) {
    dp_param ps[3] = {{0, 8, DP_NEVER_WRITTEN}, {8, 8, 3}, {16, 8, 7}};
    dp_plan p;
    cr_assert_eq(dp_plan_build(&p, ps, 3, 4, 32), 0);
    cr_assert_eq(p.n_buckets, 3);
    cr_expect_eq(p.order[2], 0);
    cr_expect_eq(p.buckets[2].ready, DP_NEVER_WRITTEN);
    dp_plan_free(&p);
}

Test(plan, refuses_bad_input) {
    dp_param overlap[2] = {{0, 10, 0}, {5, 10, 1}}, empty[1] = {{0, 0, 0}};
    dp_plan p;
    cr_expect_eq(dp_plan_build(&p, overlap, 2, 2, 100), -1);
    cr_expect_eq(dp_plan_build(&p, empty, 1, 2, 100), -1);
    cr_expect_eq(dp_plan_build(&p, overlap, 0, 2, 100), -1);
    cr_expect_eq(dp_plan_build(&p, overlap, 1, 2, 0), -1);
    cr_expect_null(p.order);
}

/* ---- the real GPT-2's backward on the CPU backend ---- */
typedef struct {
    gpt2 *m;
    int seq;
    int *ready;             /* (n_tensors) learning: last write so far */
    const dp_plan *plan;    /* checking: snapshots after each bucket's ready pullback and the one before */
    float **at_ready, **before_ready; /* (n_buckets) the bucket's parameters' gradients, packed */
    int learning;
} probe;

static void on_write(void *user, const wb_tensor *x) {
    probe *p = user;
    int i = dp_param_of_grad(p->m, x);
    if (p->learning && i >= 0) p->ready[i] = p->seq;
}

static void snapshot(probe *p, int b, float *out) {
    const dp_bucket *bk = &p->plan->buckets[b];
    size_t k = 0;
    for (int j = 0; j < bk->count; j++) {
        const wb_tensor *t = p->m->tensors[p->plan->order[bk->first + j]];
        memcpy(out + k, t->grad, (size_t)wb_numel(t) * sizeof(float)); /* CPU backend: host memory */
        k += (size_t)wb_numel(t);
    }
}

static int on_pullback(void *user, int index) {
    probe *p = user;
    for (int b = 0; !p->learning && b < p->plan->n_buckets; b++) {
        if (p->plan->buckets[b].ready == p->seq) snapshot(p, b, p->at_ready[b]);
        if (p->plan->buckets[b].ready == p->seq + 1) snapshot(p, b, p->before_ready[b]);
    }
    p->seq++;
    return WB_OK;
}

static void step(gpt2 *m, wb_ctx *ctx, probe *pr, int B, int T) {
    double *tok = malloc(sizeof(double) * B * T), *tgt = malloc(sizeof(double) * B * T);
    for (int i = 0; i < B * T; i++) tok[i] = (i * 7 + 3) % 256, tgt[i] = (i * 11 + 5) % 256;
    cr_assert_eq(wb_ctx_reset(ctx), WB_OK);
    int64_t shape[2] = {B, T};
    wb_tensor *x = wb_new(ctx, WB_I32, 2, shape, 0), *y = wb_new(ctx, WB_I32, 2, shape, 0), *loss = NULL;
    cr_assert(x && y);
    cr_assert_eq(wb_upload(ctx, x, tok), WB_OK);
    cr_assert_eq(wb_upload(ctx, y, tgt), WB_OK);
    cr_assert_eq(gpt2_zero_grads(m), WB_OK);
    cr_assert_eq(gpt2_forward(m, ctx, x, y, NULL, &loss), WB_OK);
    pr->seq = 0;
    ctx->grad_write_hook = on_write, ctx->pullback_hook = on_pullback, ctx->backward_hook_user = pr;
    cr_assert_eq(wb_backward(ctx, loss), WB_OK);
    free(tok), free(tgt);
}

static int bucket_of(const dp_plan *p, int tensor) {
    for (int b = 0; b < p->n_buckets; b++)
        for (int j = 0; j < p->buckets[b].count; j++)
            if (p->order[p->buckets[b].first + j] == tensor) return b;
    return -1;
}

Test(gpt2, buckets_hold_final_gradients_in_backward_order) {
    wb_backend *be;
    cr_assert_eq(wb_backend_cpu_create(&be), WB_OK);
    gpt2_config cfg = {3, 2, 32, 32, 256, 256, 0.0f, GPT2_OPS_FUSED, 0};
    gpt2 m;
    cr_assert_eq(gpt2_build(&m, &cfg, be, WB_F32), WB_OK);
    cr_assert_eq(gpt2_init_random(&m, 3), WB_OK);
    wb_ctx ctx;
    cr_assert_eq(wb_ctx_init(&ctx, be, WB_F32, 1 << 20), WB_OK);
    probe pr = {.m = &m, .learning = 1};
    pr.ready = malloc(sizeof(int) * m.n_tensors);
    for (int i = 0; i < m.n_tensors; i++) pr.ready[i] = DP_NEVER_WRITTEN;
    step(&m, &ctx, &pr, 2, 16);
    int n_pullbacks = pr.seq;

    dp_param *ps = malloc(sizeof *ps * m.n_tensors);
    dp_model_params(&m, pr.ready, ps);
    dp_plan plan;
    const size_t cap = 16 << 10; /* 16 KiB: a 3-layer model of width 32 (60 KiB a layer) gets several */
    cr_assert_eq(dp_plan_build(&plan, ps, m.n_tensors, 4, cap), 0);

    /* every parameter once; bytes add up to the model's; every bucket but the last reaches the cap */
    size_t total = 0;
    int seen = 0;
    for (int b = 0; b < plan.n_buckets; b++) {
        total += plan.buckets[b].bytes;
        seen += plan.buckets[b].count;
        if (b + 1 < plan.n_buckets) cr_expect_geq(plan.buckets[b].bytes, cap);
        if (b > 0) cr_expect_geq(plan.buckets[b].ready, plan.buckets[b - 1].ready);
        int64_t in_ranges = 0;
        for (int k = 0; k < plan.buckets[b].n_ranges; k++) in_ranges += plan.ranges[plan.buckets[b].range_first + k].numel;
        cr_expect_eq((size_t)in_ranges * 4, plan.buckets[b].bytes, "bucket %d: its ranges cover its bytes", b);
    }
    cr_expect_eq(seen, m.n_tensors);
    cr_expect_eq(total, (size_t)m.n_params * 4);
    cr_expect_gt(plan.n_buckets, 3);
    for (int i = 0; i < m.n_tensors; i++) cr_expect_lt(pr.ready[i], n_pullbacks, "tensor %d is written", i);

    /* backward order: the final layer norm finishes first, the last layer before the first, and the
     * token embedding (tied to the output projection, written again by the embedding's pullback) last */
    int lnf = bucket_of(&plan, m.n_tensors - 2), wte = bucket_of(&plan, 0);
    cr_expect_eq(lnf, 0, "lnf_w in bucket %d", lnf);
    cr_expect_eq(wte, plan.n_buckets - 1, "wte in bucket %d of %d", wte, plan.n_buckets);
    cr_expect_eq(plan.buckets[wte].ready, n_pullbacks - 1, "wte is final only after the last pullback");
    cr_expect_gt(pr.ready[2], pr.ready[2 + 4], "layer 0's qkv_w after layer 1's"); /* 4 matrices a layer */
    cr_expect_gt(pr.ready[2 + 4], pr.ready[2 + 8], "layer 1's qkv_w after layer 2's");

    /* the same step again: each bucket's gradients, taken right after its ready pullback, are the
     * final ones; taken one pullback earlier, some still differ */
    pr.learning = 0, pr.plan = &plan;
    pr.at_ready = calloc(plan.n_buckets, sizeof(float *));
    pr.before_ready = calloc(plan.n_buckets, sizeof(float *));
    for (int b = 0; b < plan.n_buckets; b++) {
        pr.at_ready[b] = calloc(plan.buckets[b].bytes, 1);
        pr.before_ready[b] = calloc(plan.buckets[b].bytes, 1);
    }
    step(&m, &ctx, &pr, 2, 16);
    float *final = malloc((size_t)m.n_params * 4);
    for (int b = 0; b < plan.n_buckets; b++) {
        snapshot(&pr, b, final);
        cr_expect_eq(memcmp(final, pr.at_ready[b], plan.buckets[b].bytes), 0, "bucket %d changed after its pullback", b);
        cr_expect_neq(memcmp(final, pr.before_ready[b], plan.buckets[b].bytes), 0,
                      "bucket %d was already final one pullback earlier", b);
    }
    for (int b = 0; b < plan.n_buckets; b++) free(pr.at_ready[b]), free(pr.before_ready[b]);
    free(pr.at_ready), free(pr.before_ready), free(final), free(ps), free(pr.ready);
    dp_plan_free(&plan);
    wb_ctx_free(&ctx);
    gpt2_free(&m);
    be->destroy(be);
}
