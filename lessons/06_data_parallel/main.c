/*
 * main.c: lesson 06's program. Lesson 04's GPT-2 and autodiff engine, trained data-parallel: one
 * process per GPU, each on its own slice of every batch, the gradients averaged over NCCL before
 * every update, so that N GPUs with --batch B take the steps one GPU takes with batch N * B.
 *
 *   launching 2 ranks (one per GPU)
 *   step    3/20 | loss 5.1234 | lr 1.00e-03 | norm 1.234 |   10.3 ms |   49,600 tok/s
 *
 * Loss and gradient norm are the global batch's (the loss averaged over the ranks), tokens/s
 * counts every rank's. Only rank 0 prints; the others speak on stderr when something fails.
 *
 * What a learner can look at in a trace (NVTX ranges, the same on every rank):
 *   step > forward > layer > attn, mlp                 lesson 04's forward pass
 *   step > backward > layer_bwd > mlp_bwd, attn_bwd    its pullbacks; with --variant overlap the
 *          ... > allreduce                             buckets' all-reduces start in here
 *   step > allreduce                                   --variant no-overlap: one after backward
 *   step > optimizer                                   clipping and AdamW, after every all-reduce
 *   log                                                the loss averaged over ranks (outside step)
 * cudaProfilerStart/Stop bracket the steps after --profile-warmup steps (the first learns the bucket
 * plan and all-reduces after backward).
 *
 * main is the table of contents: options; the launcher (ranks.h) or a rank: data, build, train, free.
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_profiler_api.h>
#include <getopt.h>
#include <math.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adamw.h"
#include "bpe.h"
#include "data.h"
#include "engine.h"
#include "gpt2.h"
#include "gpt2_options.h"
#include "grad_allreduce.h"
#include "ranks.h"
#include "wb_args.h"
#include "wb_check.h"
#include "wb_timing.h"

/* ---------------------------------------------------------------------------------------------
 * options: lesson 04's (gpt2_options.h), and how the ranks share the work
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    gpt2_options run; /* the model, data, batch (per rank) and schedule, as lesson 04 takes them */
    const char *variant;
    int world;
    double bucket_mb;
} options;

static void usage(FILE *f, const char *prog) {
    fprintf(f,
            "usage: %s [options]\n"
            "  --variant overlap|no-overlap  gradients all-reduced in buckets during backward, or\n"
            "                          all at once after it                                 [overlap]\n"
            "  --world-size N          ranks, one process and one GPU each (at most 64)  [every GPU]\n"
            "  --bucket-mb X           bucket size in MiB (overlap; DDP's default)       [25]\n"
            "  --batch B               sequences per rank and step (the global batch is N * B)  [4]\n"
            "  --data builtin|random|FILE  lesson 04's generated stories, uniform random tokens over\n"
            "                          --vocab (benchmarks), or any UTF-8 text            [builtin]\n"
            "  --dtype bf16|f32        parameters, gradients and their all-reduce        [bf16]\n"
            "  --preset tiny|small|124m  the model below (124m: GPT-2 small, T=1024)\n"
            "  --layers N --heads N --width N --context N --seq T --vocab N --attn flash|bmm\n"
            "                          [2 2 64 64, context, 512, flash]\n"
            "  --steps N --lr X --warmup N --min-lr-frac X --wd X --clip X   [20, 1e-3, 2, 0.1, 0.1, 1.0]\n"
            "  --profile-warmup N      steps before cudaProfilerStart                  [1]\n"
            "  --builtin-bytes N --bpe-bytes N --seed N --log-every N\n"
            "  --help                  this text\n"
            "Exit status: 0 done, 1 the run (or a rank) failed, 2 bad options.\n",
            prog);
}

/* This program's combinations of options: NULL, or what is wrong. */
static const char *check_options(const void *program) {
    const options *o = program;
    if (strcmp(o->variant, "overlap") && strcmp(o->variant, "no-overlap")) return "--variant must be overlap or no-overlap";
    if (strcmp(o->run.dtype, "bf16") && strcmp(o->run.dtype, "f32")) return "--dtype must be bf16 or f32";
    return NULL;
}

/* -1: run; else the exit status (0 after --help, 2 after bad options, said why). */
static int parse_options(options *o, int argc, char **argv) {
    *o = (options){.run = gpt2_options_defaults(), .variant = "overlap", .bucket_mb = 25};
    o->run.dtype = "bf16";
    o->run.preset_sets_batch = 0; /* --batch is per rank */
    const wb_opt own[] = {
        WB_STRING("variant", &o->variant),
        WB_INT("world-size", &o->world, 1, DP_MAX_RANKS), WB_DOUBLE("bucket-mb", &o->bucket_mb, 0.001, 1e6),
    };
    return gpt2_options_parse(&o->run, 1, own, (int)(sizeof own / sizeof own[0]), check_options, o, usage, argc, argv);
}

/* ---------------------------------------------------------------------------------------------
 * data: every rank reads the same tokens and takes its rows of each global batch
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    int32_t *tokens;
    size_t n_tokens, n_train; /* the batches come from the first n_train (lesson 04 holds out a tenth) */
    int vocab;
} corpus;

/* Lesson 04's corpus for its --batch = the global batch, token for token, so that one rank here
 * trains exactly as lesson 04 does. */
static int load_corpus(const options *o, int global_batch, int verbose, corpus *c) {
    memset(c, 0, sizeof *c);
    if (!strcmp(o->run.data, "random")) { /* benchmarks: uniform random tokens, no tokenizer */
        c->tokens = gpt2_random_tokens(&o->run, global_batch, &c->n_tokens);
        if (!c->tokens) return WB_FAIL;
        c->vocab = o->run.vocab;
    } else {
        size_t n_text = 0;
        char *text = !strcmp(o->run.data, "builtin") ? wb_builtin_corpus((size_t)o->run.builtin_bytes, (uint64_t)o->run.seed, &n_text)
                                                 : wb_read_file(o->run.data, &n_text);
        if (!text) return WB_FAIL;
        wb_bpe bpe;
        size_t nb = n_text < (size_t)o->run.bpe_bytes ? n_text : (size_t)o->run.bpe_bytes;
        int rc = wb_bpe_train(&bpe, text, nb, o->run.vocab, verbose);
        if (rc == WB_OK) rc = wb_bpe_encode(&bpe, text, n_text, &c->tokens, &c->n_tokens);
        c->vocab = bpe.vocab_size;
        if (rc == WB_OK) wb_bpe_free(&bpe);
        free(text);
        WB_TRY(rc);
    }
    size_t n_val;
    c->n_train = gpt2_split_tokens(&o->run, c->n_tokens, &n_val);
    if (!c->n_train) return WB_FAIL;
    if (verbose) printf("data: %s, %zu training tokens, vocabulary %d\n", o->run.data, c->n_train, c->vocab);
    return WB_OK;
}

/* ---------------------------------------------------------------------------------------------
 * a rank: its GPU, the model, the optimizer, the communicator
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    dp_rank_info id;
    wb_backend *be;
    gpt2 model;
    adamw_config acfg;
    adamw opt;
    wb_ctx ctx;
    dp_reducer red;
} rank_state;

static int build(const options *o, const corpus *c, rank_state *s) {
    wb_dtype dtype = !strcmp(o->run.dtype, "f32") ? WB_F32 : WB_BF16;
    WB_TRY(wb_backend_cuda_create(&s->be, s->id.rank)); /* rank r drives GPU r */
    gpt2_config cfg = {o->run.layers, o->run.heads, o->run.width, o->run.context, c->vocab, gpt2_pad_vocab(c->vocab), 0.0f,
                       GPT2_OPS_FUSED, !strcmp(o->run.attn, "flash")};
    WB_TRY(gpt2_build(&s->model, &cfg, s->be, dtype));
    /* the same seed on every rank: equal parameters without a broadcast */
    WB_TRY(gpt2_init_random(&s->model, (uint64_t)o->run.seed));
    s->acfg = gpt2_options_adamw(&o->run);
    WB_TRY(adamw_init(&s->opt, &s->acfg, &s->model));
    WB_TRY(wb_ctx_init(&s->ctx, s->be, dtype, (size_t)64 << 20));
    s->ctx.seed = (uint64_t)o->run.seed;

    ncclUniqueId nid;
    if (s->id.rank == 0 && ncclGetUniqueId(&nid) != ncclSuccess) {
        fprintf(stderr, "rank 0: ncclGetUniqueId failed\n");
        return WB_FAIL;
    }
    if (dp_share_id(&s->id, &nid, sizeof nid) != 0) return WB_FAIL;
    WB_TRY(dp_reducer_init(&s->red, &s->model, s->id.rank, s->id.world, &nid, !strcmp(o->variant, "overlap"),
                           (size_t)(o->bucket_mb * 1024 * 1024)));
    if (s->id.rank == 0) {
        printf("model: %d layers, %d heads, width %d, context %d, vocab %d (padded %d), %.2fM parameters, %s\n",
               cfg.n_layer, cfg.n_head, cfg.n_embd, cfg.max_seq, cfg.vocab, cfg.vocab_padded, s->model.n_params / 1e6,
               wb_dtype_name(dtype));
        printf("ranks: %d, %s, batch %d per rank (global %d) x %d tokens, device %s\n", s->id.world, o->variant,
               o->run.batch, o->run.batch * s->id.world, o->run.seq, s->be->device_name);
    }
    return WB_OK;
}

static void free_rank(rank_state *s) {
    dp_reducer_free(&s->red);
    wb_ctx_free(&s->ctx);
    adamw_free(&s->opt);
    gpt2_free(&s->model);
    if (s->be) s->be->destroy(s->be);
}

/* ---------------------------------------------------------------------------------------------
 * one step: this rank's rows forward and backward, the all-reduces, AdamW (lesson 04's order)
 * ------------------------------------------------------------------------------------------ */
static int train_step(rank_state *s, const double *dx, const double *dy, int B, int T, wb_tensor **loss) {
    wb_ctx *ctx = &s->ctx;
    int64_t shape[2] = {B, T};
    WB_TRY(wb_ctx_reset(ctx));
    wb_tensor *x = wb_new(ctx, WB_I32, 2, shape, 0), *y = wb_new(ctx, WB_I32, 2, shape, 0);
    if (!x || !y) return WB_FAIL;
    WB_TRY(wb_upload(ctx, x, dx));
    WB_TRY(wb_upload(ctx, y, dy));
    int rc = gpt2_zero_grads(&s->model);
    if (rc == WB_OK) rc = gpt2_forward(&s->model, ctx, x, y, NULL, loss);
    nvtxRangePushA("backward");
    if (rc == WB_OK) rc = dp_backward(&s->red, ctx, *loss);
    nvtxRangePop();
    if (rc == WB_OK) rc = dp_allreduce_rest(&s->red);
    nvtxRangePushA("optimizer");
    if (rc == WB_OK) rc = adamw_step(&s->opt, &s->model, -1.0f);
    nvtxRangePop();
    return rc;
}

static int train(const options *o, const corpus *c, rank_state *s) {
    const int B = o->run.batch, T = o->run.seq, world = s->id.world, rank = s->id.rank, Bg = B * world, lead = rank == 0;
    const size_t BT = (size_t)B * (size_t)T;
    wb_loader loader;
    wb_loader_init(&loader, c->tokens, c->n_train);
    int32_t *hx = malloc((size_t)Bg * T * 4), *hy = malloc((size_t)Bg * T * 4);
    double *dx = malloc(BT * sizeof *dx), *dy = malloc(BT * sizeof *dy), *step_ms = calloc((size_t)o->run.steps, sizeof *step_ms);
    int rc = hx && hy && dx && dy && step_ms ? WB_OK : WB_FAIL, measured = 0, profiling = 0;
    double first_loss = NAN, last_loss = NAN;
    for (int step = 1; rc == WB_OK && step <= o->run.steps; step++) {
        if (!profiling && step > o->run.profile_warmup) {
            cudaProfilerStart();
            profiling = 1;
        }
        rc = wb_loader_next(&loader, Bg, T, hx, hy);
        for (size_t i = 0; i < BT; i++) dx[i] = hx[(size_t)rank * BT + i], dy[i] = hy[(size_t)rank * BT + i];
        double ts = wb_now_us(), lval = NAN, norm = NAN;
        wb_tensor *loss = NULL;
        nvtxRangePushA("step");
        if (rc == WB_OK) rc = train_step(s, dx, dy, B, T, &loss);
        nvtxRangePop();
        nvtxRangePushA("log");
        if (rc == WB_OK) rc = dp_average_loss(&s->red, loss, &lval); /* synchronises: every rank's step is done */
        nvtxRangePop();
        if (rc == WB_OK) rc = adamw_last_norm(&s->opt, &norm);
        if (rc != WB_OK) {
            fprintf(stderr, "rank %d: step %d failed\n", rank, step);
            break;
        }
        double ms = (wb_now_us() - ts) * 1e-3, tps = (double)Bg * T / (ms * 1e-3);
        if (step > o->run.profile_warmup) step_ms[measured++] = ms;
        if (isnan(first_loss)) first_loss = lval;
        last_loss = lval;
        if (!isfinite(lval)) {
            fprintf(stderr, "rank %d: step %d: loss is %f\n", rank, step, lval);
            rc = WB_FAIL;
            break;
        }
        if (lead && o->run.log_every > 0 && (step % o->run.log_every == 0 || step == o->run.steps)) {
            printf("step %5d/%d | loss %.4f | lr %.2e | norm %.3f | %8.1f ms | %10.0f tok/s\n", step, o->run.steps, lval,
                   adamw_lr(&s->acfg, s->opt.t), norm, ms, tps);
            fflush(stdout);
        }
    }
    if (profiling) cudaProfilerStop();
    if (rc == WB_OK && lead && measured > 0) {
        double med = wb_median(step_ms, measured);
        printf("summary: %d measured steps, median %.1f ms/step, %.0f tok/s over %d rank%s, loss %.4f -> %.4f\n",
               measured, med, (double)Bg * T / (med * 1e-3), world, world == 1 ? "" : "s", first_loss, last_loss);
    }
    free(hx), free(hy), free(dx), free(dy), free(step_ms);
    return rc;
}

/* One rank of the run, from data to free. */
static int run_rank(const options *o, const dp_rank_info *id) {
    rank_state s;
    memset(&s, 0, sizeof s);
    s.id = *id;
    corpus c;
    int rc = load_corpus(o, o->run.batch * id->world, id->rank == 0, &c);
    if (rc == WB_OK) rc = build(o, &c, &s);
    if (rc == WB_OK) rc = train(o, &c, &s);
    free_rank(&s);
    free(c.tokens);
    return rc;
}

int main(int argc, char **argv) {
    /* 1. options (checked by the launcher, before any rank starts) */
    options o;
    int exit_status = parse_options(&o, argc, argv);
    if (exit_status >= 0) return exit_status;
    dp_rank_info id;
    int is_rank = dp_rank_from_env(&id);
    if (is_rank < 0) return 2;

    /* 2. the launcher: one rank per GPU, this program again */
    if (!is_rank) {
        int gpus = dp_count_gpus(), world = o.world ? o.world : gpus;
        if (world < 1) {
            fprintf(stderr, "no NVIDIA GPU found (/proc/driver/nvidia/gpus, CUDA_VISIBLE_DEVICES); pass --world-size\n");
            return 1;
        }
        if (gpus > 0 && world > gpus) { /* NCCL allows one rank per GPU */
            fprintf(stderr, "--world-size %d: this machine shows %d GPU%s, and each rank needs its own\n", world, gpus,
                    gpus == 1 ? "" : "s");
            return 2;
        }
        printf("launching %d rank%s (one per GPU)\n", world, world == 1 ? "" : "s");
        return dp_launch_ranks(world, argv);
    }

    /* 3. a rank */
    return run_rank(&o, &id) == WB_OK ? 0 : 1;
}
