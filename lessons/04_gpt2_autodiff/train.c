/*
 * train.c: lesson 04's program. Trains GPT-2 on any UTF-8 text with the pullback engine, on the
 * CUDA backend (bf16 by default) or the CPU reference backend, and prints one line per step:
 *
 *   step   12/200 | loss 5.1234 | lr 3.00e-04 | norm 1.234 | 105.3 ms | 155,600 tok/s | MFU 31.2%
 *
 * and the loss on a held-out validation split (the last tenth of the tokens) every --eval-every
 * steps and at the end, so that a small corpus shows over-fitting instead of hiding it.
 *
 * What a learner can look at in a trace (NVTX ranges, the program's interface):
 *   step > forward > layer > attn, mlp      the forward pass, one "layer" per transformer block
 *   step > backward > layer_bwd > mlp_bwd, attn_bwd   the tape's replay of them, in reverse
 *   step > optimizer                        gradient norm + one AdamW kernel over all parameters
 *   eval, sample                            validation loss and generation (outside the steps)
 * With --graph the second step is captured as one CUDA graph (forward, backward, optimizer) and
 * every later step is one graph launch inside its "step" range. cudaProfilerStart/Stop bracket
 * the steps after --profile-warmup steps (the first step allocates the arenas and creates
 * cuBLASLt plans; later steps allocate nothing).
 *
 * main is the table of contents: options, data, build, train, evaluate and sample, free.
 * Files in --out: tokenizer.bin (trained on the text unless it exists) and model.ckpt.
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_profiler_api.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "adamw.h"
#include "bpe.h"
#include "data.h"
#include "engine.h"
#include "gpt2.h"
#include "gpt2_options.h"
#include "wb_args.h"
#include "wb_check.h"
#include "wb_random.h"
#include "wb_timing.h"

/* ---------------------------------------------------------------------------------------------
 * options
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    gpt2_options run; /* the model, data, batch and schedule, as lesson 06 takes them (gpt2_options.h) */
    const char *out, *backend, *ops, *prompt;
    int sample_every, sample_len, save_every, resume, eval_every, eval_batches, graph, no_checkpoint;
    double dropout, temperature;
} options;

static void usage(FILE *f, const char *prog) {
    fprintf(f,
            "usage: %s [options]\n"
            "  --data FILE|builtin|random  training text, UTF-8 (builtin: a generated story corpus;\n"
            "                          random: uniform random tokens over --vocab, no tokenizer)  [builtin]\n"
            "  --out DIR               tokenizer.bin and model.ckpt go here                       [out_gpt2]\n"
            "  --backend cuda|cpu      [cuda]      --dtype bf16|f32|f64 (bf16: cuda only)     [bf16 / f32]\n"
            "  --preset tiny|small|124m  sets the model and batch below (124m: GPT-2 small, B=16, T=1024)\n"
            "  --layers N --heads N --width N --context N   model                      [2 2 64 64]\n"
            "  --seq T --batch B       sequence length (<= context) and batch          [context, 4]\n"
            "  --vocab N               BPE vocabulary size to train (>= 256)           [512]\n"
            "  --ops fused|primitive   fused layernorm/linear/softmax or small primitives   [fused]\n"
            "  --attn bmm|flash        attention as bmm + softmax + bmm, or the fused attention\n"
            "                          primitive (flash-attention kernels; used with --ops fused, no\n"
            "                          dropout and a supported head size, else bmm)              [flash]\n"
            "  --graph                 capture the second step as one CUDA graph, replay it after\n"
            "  --steps N --lr X --warmup N --min-lr-frac X --wd X --clip X --dropout X\n"
            "                          [20, 1e-3, 2, 0.1, 0.1, 1.0, 0]\n"
            "  --eval-every N --eval-batches N   validation loss every N steps (0: at the end) [0, 4]\n"
            "  --sample-every N --sample-len N --temperature X --prompt TEXT   [0 (end only), 32, 0.8, \"One day,\"]\n"
            "  --save-every N          checkpoint every N steps (0: at the end only)   [0]\n"
            "  --no-checkpoint         write no checkpoint (benchmarks, the grader's runs)\n"
            "  --resume                continue from DIR/model.ckpt (config taken from it)\n"
            "  --profile-warmup N      steps before cudaProfilerStart                  [1]\n"
            "  --builtin-bytes N --bpe-bytes N --seed N --log-every N\n"
            "  --help                  this text\n"
            "Exit status: 0 done, 1 the run failed, 2 bad options.\n",
            prog);
}

/* This program's combinations of options: NULL, or what is wrong. */
static const char *check_options(const void *program) {
    const options *o = program;
    if (strcmp(o->backend, "cuda") && strcmp(o->backend, "cpu")) return "--backend must be cuda or cpu";
    if (strcmp(o->ops, "fused") && strcmp(o->ops, "primitive")) return "--ops must be fused or primitive";
    if (o->graph && strcmp(o->backend, "cuda")) return "--graph needs --backend cuda";
    return NULL;
}

/* -1: run; else the exit status (0 after --help, 2 after bad options, said why). */
static int parse_options(options *o, int argc, char **argv) {
    *o = (options){.run = gpt2_options_defaults(), .out = "out_gpt2", .backend = "cuda", .ops = "fused",
                   .prompt = "One day,", .sample_len = 32, .eval_batches = 4, .temperature = 0.8};
    const wb_opt own[] = {
        WB_STRING("out", &o->out),             WB_STRING("backend", &o->backend),
        WB_STRING("ops", &o->ops),             WB_STRING("prompt", &o->prompt),
        WB_FLAG("resume", &o->resume),         WB_FLAG("graph", &o->graph),
        WB_FLAG("no-checkpoint", &o->no_checkpoint),
        WB_INT("sample-every", &o->sample_every, 0, 1 << 30), WB_INT("sample-len", &o->sample_len, 0, 1 << 20),
        WB_INT("save-every", &o->save_every, 0, 1 << 30),     WB_INT("eval-every", &o->eval_every, 0, 1 << 30),
        WB_INT("eval-batches", &o->eval_batches, 1, 1 << 20),
        WB_DOUBLE("dropout", &o->dropout, 0, 0.999), WB_DOUBLE("temperature", &o->temperature, 0, 100),
    };
    return gpt2_options_parse(&o->run, 0, own, (int)(sizeof own / sizeof own[0]), check_options, o, usage, argc, argv);
}

/* ---------------------------------------------------------------------------------------------
 * data: the tokens, split into training and validation, and the tokenizer
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    wb_bpe bpe;
    int32_t *tokens;
    size_t n_tokens, n_train, n_val; /* validation: the last n_val tokens (0 when too few) */
    int random;                      /* --data random: no tokenizer, nothing to sample */
} corpus;

static int load_corpus(options *o, const char *tok_path, corpus *c) {
    memset(c, 0, sizeof *c);
    double t0 = wb_now_us();
    if (!strcmp(o->run.data, "random")) { /* benchmarks: uniform random tokens, no tokenizer */
        c->random = 1;
        c->tokens = gpt2_random_tokens(&o->run, o->run.batch, &c->n_tokens);
        if (!c->tokens) return WB_FAIL;
        c->bpe.vocab_size = o->run.vocab;
        o->sample_len = 0, o->sample_every = 0; /* nothing to decode */
        printf("data: random tokens, vocabulary %d\n", o->run.vocab);
    } else {
        size_t n_text = 0;
        char *text = !strcmp(o->run.data, "builtin") ? wb_builtin_corpus((size_t)o->run.builtin_bytes, (uint64_t)o->run.seed, &n_text)
                                                 : wb_read_file(o->run.data, &n_text);
        if (!text) return WB_FAIL;
        struct stat st;
        if (o->resume && stat(tok_path, &st) == 0) {
            if (wb_bpe_load(&c->bpe, tok_path) != WB_OK) return WB_FAIL;
            printf("tokenizer: %s (%d tokens)\n", tok_path, c->bpe.vocab_size);
        } else {
            size_t nb = n_text < (size_t)o->run.bpe_bytes ? n_text : (size_t)o->run.bpe_bytes;
            if (wb_bpe_train(&c->bpe, text, nb, o->run.vocab, 1) != WB_OK || wb_bpe_save(&c->bpe, tok_path) != WB_OK)
                return WB_FAIL;
            printf("tokenizer: trained %d tokens on %zu bytes in %.1f s -> %s\n", c->bpe.vocab_size, nb,
                   (wb_now_us() - t0) * 1e-6, tok_path);
        }
        t0 = wb_now_us();
        if (wb_bpe_encode(&c->bpe, text, n_text, &c->tokens, &c->n_tokens) != WB_OK) return WB_FAIL;
        printf("data: %s, %zu bytes -> %zu tokens (%.2f bytes/token) in %.1f s\n", o->run.data, n_text, c->n_tokens,
               (double)n_text / (double)(c->n_tokens ? c->n_tokens : 1), (wb_now_us() - t0) * 1e-6);
        free(text);
    }
    /* the last tenth held out, when it holds at least one window */
    c->n_train = gpt2_split_tokens(&o->run, c->n_tokens, &c->n_val);
    if (!c->n_train) return WB_FAIL;
    printf("data: %zu training tokens, %zu validation tokens%s\n", c->n_train, c->n_val,
           c->n_val ? "" : " (too few for a validation split)");
    return WB_OK;
}

/* ---------------------------------------------------------------------------------------------
 * build: backend, model, optimizer, context
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    wb_backend *be;
    wb_dtype dtype;
    gpt2 model;
    adamw_config acfg;
    adamw opt;
    wb_ctx ctx;
    int64_t start_step;
    double flops_per_token, peak;
} trainer;

static int build(const options *o, const corpus *c, const char *ck_path, trainer *tr) {
    memset(tr, 0, sizeof *tr);
    int cuda = !strcmp(o->backend, "cuda");
    tr->dtype = cuda ? WB_BF16 : WB_F32;
    if (o->run.dtype && wb_dtype_parse(o->run.dtype, &tr->dtype) != 0) {
        fprintf(stderr, "unknown dtype %s\n", o->run.dtype);
        return WB_FAIL;
    }
    if ((cuda ? wb_backend_cuda_create(&tr->be, 0) : wb_backend_cpu_create(&tr->be)) != WB_OK) {
        fprintf(stderr, "cannot create the %s backend\n", o->backend);
        return WB_FAIL;
    }
    gpt2_config cfg = {o->run.layers, o->run.heads, o->run.width, o->run.context, c->bpe.vocab_size, gpt2_pad_vocab(c->bpe.vocab_size),
                       (float)o->dropout, !strcmp(o->ops, "fused") ? GPT2_OPS_FUSED : GPT2_OPS_PRIMITIVE,
                       !strcmp(o->run.attn, "flash")};
    int64_t ck_params = 0;
    if (o->resume) {
        if (gpt2_peek(ck_path, &cfg, &tr->start_step, &ck_params) != WB_OK) return WB_FAIL;
        cfg.dropout = (float)o->dropout;
        cfg.ops = !strcmp(o->ops, "fused") ? GPT2_OPS_FUSED : GPT2_OPS_PRIMITIVE;
        cfg.flash = !strcmp(o->run.attn, "flash");
        if (cfg.vocab != c->bpe.vocab_size) {
            fprintf(stderr, "%s: vocabulary %d, tokenizer %d\n", ck_path, cfg.vocab, c->bpe.vocab_size);
            return WB_FAIL;
        }
        if (o->run.seq > cfg.max_seq) {
            fprintf(stderr, "%s: context %d, --seq %d\n", ck_path, cfg.max_seq, o->run.seq);
            return WB_FAIL;
        }
    }
    WB_TRY(gpt2_build(&tr->model, &cfg, tr->be, tr->dtype));
    tr->acfg = gpt2_options_adamw(&o->run);
    if (o->resume) {
        size_t n = (size_t)tr->model.n_params;
        float *p = malloc(n * 4), *mm = malloc(n * 4), *vv = malloc(n * 4);
        int has_opt = 0, rc = WB_FAIL;
        if (p && mm && vv && ck_params == tr->model.n_params && gpt2_load(ck_path, p, mm, vv, &has_opt) == WB_OK &&
            adamw_init(&tr->opt, &tr->acfg, &tr->model) == WB_OK && adamw_set_params_f32(&tr->opt, &tr->model, p) == WB_OK)
            rc = has_opt ? adamw_set_state(&tr->opt, &tr->model, mm, vv, (int)tr->start_step) : WB_OK;
        free(p), free(mm), free(vv);
        if (rc != WB_OK) return WB_FAIL;
        printf("resumed %s at step %lld\n", ck_path, (long long)tr->start_step);
    } else {
        WB_TRY(gpt2_init_random(&tr->model, (uint64_t)o->run.seed));
        WB_TRY(adamw_init(&tr->opt, &tr->acfg, &tr->model));
    }
    WB_TRY(wb_ctx_init(&tr->ctx, tr->be, tr->dtype, (size_t)64 << 20));
    tr->ctx.seed = (uint64_t)o->run.seed;
    tr->flops_per_token = gpt2_flops_per_token(&tr->model, o->run.seq);
    tr->peak = tr->be->peak_for(tr->be, tr->dtype);
    printf("model: %d layers, %d heads, width %d, context %d, vocab %d (padded %d), %.2fM parameters, %s %s, "
           "ops %s, attention %s%s\n",
           cfg.n_layer, cfg.n_head, cfg.n_embd, cfg.max_seq, cfg.vocab, cfg.vocab_padded, tr->model.n_params / 1e6,
           tr->be->name, wb_dtype_name(tr->dtype), o->ops, o->run.attn, o->graph ? ", CUDA graph" : "");
    printf("device: %s, peak %s\n", tr->be->device_name, tr->peak > 0 ? "known" : "unknown (MFU n/a)");
    if (tr->peak > 0) printf("device: dense peak %.0f TFLOP/s for %s\n", tr->peak / 1e12, wb_dtype_name(tr->dtype));
    return WB_OK;
}

static void free_all(trainer *tr, corpus *c) {
    wb_ctx_free(&tr->ctx);
    adamw_free(&tr->opt);
    gpt2_free(&tr->model);
    wb_bpe_free(&c->bpe);
    free(c->tokens);
    if (tr->be) tr->be->destroy(tr->be);
}

/* ---------------------------------------------------------------------------------------------
 * one training step, and the validation loss
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    wb_tensor *x, *y, *loss; /* the step's inputs, targets and loss */
    wb_tensor xg, yg, lossg; /* once captured, copies of their headers (the host arena is reused by
                                evaluate and sample; the device addresses stay the graph's) */
    double *dx, *dy;         /* (B*T) host staging */
    int captured;            /* the step graph exists: later steps launch it */
} step_state;

/* Uploads one batch; runs forward, backward and AdamW (eagerly, or as the captured graph, or
 * capturing it when capture is set). Leaves the loss on the device in st->loss. */
static int train_step(trainer *tr, step_state *st, const int32_t *hx, const int32_t *hy, int B, int T, int capture) {
    wb_ctx *ctx = &tr->ctx;
    wb_backend *be = tr->be;
    for (int i = 0; i < B * T; i++) st->dx[i] = hx[i], st->dy[i] = hy[i];
    if (!st->captured) {
        int64_t shape[2] = {B, T};
        WB_TRY(wb_ctx_reset(ctx));
        st->x = wb_new(ctx, WB_I32, 2, shape, 0);
        st->y = wb_new(ctx, WB_I32, 2, shape, 0);
        if (!st->x || !st->y) return WB_FAIL;
    }
    WB_TRY(wb_upload(ctx, st->x, st->dx));
    WB_TRY(wb_upload(ctx, st->y, st->dy));
    if (st->captured) { /* every kernel of the step in one launch, with this step's AdamW arguments */
        wb_adamw_args a;
        adamw_next(&tr->opt, &tr->model, -1.0f, &a);
        return be->graph_launch(be, &a);
    }
    /* The recording reuses this step's arena addresses at every replay: the arenas must not move,
     * which holds from the second step on (wb_ctx_reset keeps one chunk that fits a step) */
    if (capture) WB_TRY(be->graph_begin(be));
    int rc = gpt2_zero_grads(&tr->model);
    if (rc == WB_OK) rc = gpt2_forward(&tr->model, ctx, st->x, st->y, NULL, &st->loss);
    nvtxRangePushA("backward");
    if (rc == WB_OK) rc = wb_backward(ctx, st->loss);
    nvtxRangePop();
    nvtxRangePushA("optimizer");
    if (rc == WB_OK) rc = adamw_step(&tr->opt, &tr->model, -1.0f);
    nvtxRangePop();
    if (!capture) return rc;
    if (be->graph_end(be) != WB_OK || rc != WB_OK) return WB_FAIL;
    st->xg = *st->x, st->yg = *st->y, st->lossg = *st->loss;
    st->x = &st->xg, st->y = &st->yg, st->loss = &st->lossg;
    st->captured = 1;
    tr->opt.t--; /* the recording ran nothing: its launch below is this step's update */
    wb_adamw_args a;
    adamw_next(&tr->opt, &tr->model, -1.0f, &a);
    return be->graph_launch(be, &a);
}

/* Mean loss over the first n_batches windows of the validation split (no gradients, no dropout). */
static int evaluate(trainer *tr, const corpus *c, int B, int T, int n_batches, double *out) {
    wb_ctx *ctx = &tr->ctx;
    wb_loader val;
    wb_loader_init(&val, c->tokens + c->n_train, c->n_val);
    size_t BT = (size_t)B * (size_t)T;
    int32_t *hx = malloc(BT * 4), *hy = malloc(BT * 4);
    double *dx = malloc(BT * sizeof *dx), *dy = malloc(BT * sizeof *dy), sum = 0;
    int rc = hx && hy && dx && dy ? WB_OK : WB_FAIL, saved_grad = ctx->grad_enabled, saved_train = ctx->training;
    ctx->grad_enabled = 0, ctx->training = 0;
    nvtxRangePushA("eval");
    for (int i = 0; i < n_batches && rc == WB_OK; i++) {
        int64_t shape[2] = {B, T};
        double l = NAN;
        wb_tensor *x = NULL, *y = NULL, *loss = NULL;
        rc = wb_loader_next(&val, B, T, hx, hy);
        for (size_t k = 0; rc == WB_OK && k < BT; k++) dx[k] = hx[k], dy[k] = hy[k];
        if (rc == WB_OK) rc = wb_ctx_reset(ctx);
        if (rc == WB_OK) {
            x = wb_new(ctx, WB_I32, 2, shape, 0), y = wb_new(ctx, WB_I32, 2, shape, 0);
            rc = x && y && wb_upload(ctx, x, dx) == WB_OK && wb_upload(ctx, y, dy) == WB_OK ? WB_OK : WB_FAIL;
        }
        if (rc == WB_OK) rc = gpt2_forward(&tr->model, ctx, x, y, NULL, &loss);
        if (rc == WB_OK) rc = wb_download(ctx, loss, &l);
        sum += l;
    }
    nvtxRangePop();
    ctx->grad_enabled = saved_grad, ctx->training = saved_train;
    free(hx), free(hy), free(dx), free(dy);
    *out = sum / n_batches;
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * sampling
 * ------------------------------------------------------------------------------------------ */
/* Continues the prompt by n tokens: greedy when temperature <= 0. Prints the text. */
static int sample(gpt2 *m, wb_ctx *ctx, wb_bpe *bpe, const char *prompt, int n, float temperature, wb_rng *rng,
                  const char *label) {
    int32_t *p = NULL;
    size_t np = 0;
    WB_TRY(wb_bpe_encode(bpe, prompt, strlen(prompt), &p, &np));
    int32_t *toks = malloc((np + (size_t)n + 1) * sizeof *toks);
    double *row = malloc((size_t)m->cfg.vocab * sizeof *row), *vals = malloc(((size_t)np + (size_t)n + 1) * sizeof *vals);
    if (!toks || !row || !vals) return WB_FAIL;
    memcpy(toks, p, np * sizeof *toks);
    free(p);
    size_t len = np;
    int saved_grad = ctx->grad_enabled, saved_train = ctx->training, rc = WB_OK;
    ctx->grad_enabled = 0;
    ctx->training = 0;
    nvtxRangePushA("sample");
    for (int i = 0; i < n && rc == WB_OK; i++) {
        size_t T = len < (size_t)m->cfg.max_seq ? len : (size_t)m->cfg.max_seq;
        const int32_t *win = toks + (len - T);
        rc = wb_ctx_reset(ctx);
        int64_t shape[2] = {1, (int64_t)T};
        wb_tensor *x = wb_new(ctx, WB_I32, 2, shape, 0), *logits = NULL;
        if (!x) rc = WB_FAIL;
        for (size_t k = 0; rc == WB_OK && k < T; k++) vals[k] = win[k];
        if (rc == WB_OK) rc = wb_upload(ctx, x, vals);
        if (rc == WB_OK) rc = gpt2_forward(m, ctx, x, NULL, &logits, NULL);
        if (rc != WB_OK) break;
        wb_tensor last = *logits; /* the last position's logits, real vocabulary only */
        int64_t Vp = logits->shape[2], vshape[1] = {m->cfg.vocab};
        last.data = (char *)logits->data + (int64_t)(T - 1) * Vp * (int64_t)wb_dtype_size(logits->dtype);
        wb_set_shape(&last, 1, vshape);
        rc = wb_download(ctx, &last, row);
        if (rc != WB_OK) break;
        int next = 0;
        for (int j = 1; j < m->cfg.vocab; j++)
            if (row[j] > row[next]) next = j;
        if (temperature > 0) {
            double mx = row[next], s = 0;
            for (int j = 0; j < m->cfg.vocab; j++) s += (row[j] = exp((row[j] - mx) / temperature));
            double u = wb_rng_uniform(rng) * s, c = 0;
            for (int j = 0; j < m->cfg.vocab; j++) {
                c += row[j];
                if (c >= u) {
                    next = j;
                    break;
                }
            }
        }
        toks[len++] = next;
    }
    nvtxRangePop();
    ctx->grad_enabled = saved_grad;
    ctx->training = saved_train;
    if (rc == WB_OK) {
        char *text = wb_bpe_decode(bpe, toks, len);
        printf("%s: %s\n", label, text ? text : "(decode failed)");
        fflush(stdout);
        free(text);
    }
    free(toks);
    free(row);
    free(vals);
    return rc;
}

static int save_checkpoint(trainer *tr, const char *path, int64_t step) {
    size_t n = (size_t)tr->model.n_params;
    float *p = malloc(n * 4), *mm = malloc(n * 4), *vv = malloc(n * 4);
    gpt2_opt_state st = {mm, vv};
    int rc = p && mm && vv && adamw_get_params_f32(&tr->opt, &tr->model, p) == WB_OK &&
                     adamw_get_state(&tr->opt, &tr->model, mm, vv) == WB_OK &&
                     gpt2_save(&tr->model, path, step, p, &st) == WB_OK
                 ? WB_OK
                 : WB_FAIL;
    free(p), free(mm), free(vv);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * the training loop
 *
 * One step is always in flight: the host queues step k (its batch upload, its kernels or graph
 * launch, and a later download of its loss and norm), then reads step k-1's results while the
 * GPU runs step k. Waiting for each step before queueing the next left the GPU idle ~0.7 ms a
 * step at GPT-2 124M (the read-back, the log line, the next batch and its upload). A step's time
 * is the wall time between its result and the one before (or its queueing, after a pause for
 * evaluation, a checkpoint or a sample, which wait for the step first).
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    int64_t step;
    int slot;         /* later-download slots: the loss in slot, the norm in slot + 1 */
    double queued_us; /* when the host began queueing it */
    double lr;
    wb_dtype loss_dtype;
} queued_step;

typedef struct {
    double *step_ms;
    int measured;
    double last_done_us, first_loss, last_loss;
} loop_stats;

/* Waits for a queued step's loss and norm; its progress line; a loss that is not finite fails. */
static int finish_step(const options *o, trainer *tr, const queued_step *q, loop_stats *ls) {
    double lval = NAN, norm = NAN;
    int rc = wb_download_wait(&tr->ctx, q->loss_dtype, 1, q->slot, &lval);
    if (rc == WB_OK) rc = adamw_norm_wait(&tr->opt, q->slot + 1, &norm);
    if (rc != WB_OK) {
        fprintf(stderr, "step %lld failed\n", (long long)q->step);
        return rc;
    }
    double now = wb_now_us(), from = q->queued_us > ls->last_done_us ? q->queued_us : ls->last_done_us;
    double ms = (now - from) * 1e-3, tps = (double)o->run.batch * o->run.seq / (ms * 1e-3);
    ls->last_done_us = now;
    if (q->step > tr->start_step + o->run.profile_warmup) ls->step_ms[ls->measured++] = ms;
    if (isnan(ls->first_loss)) ls->first_loss = lval;
    ls->last_loss = lval;
    if (!isfinite(lval)) {
        fprintf(stderr, "step %lld: loss is %f\n", (long long)q->step, lval);
        return WB_FAIL;
    }
    if (o->run.log_every > 0 && (q->step % o->run.log_every == 0 || q->step == o->run.steps)) {
        char mfu[32];
        if (tr->peak > 0) snprintf(mfu, sizeof mfu, "%.1f%%", 100.0 * tr->flops_per_token * tps / tr->peak);
        else snprintf(mfu, sizeof mfu, "n/a");
        printf("step %5lld/%d | loss %.4f | lr %.2e | norm %.3f | %8.1f ms | %10.0f tok/s | MFU %s\n",
               (long long)q->step, o->run.steps, lval, q->lr, norm, ms, tps, mfu);
        fflush(stdout);
    }
    return WB_OK;
}

static int train(const options *o, corpus *c, trainer *tr, const char *ck_path, wb_rng *rng) {
    const int B = o->run.batch, T = o->run.seq, cuda = tr->be->kind == WB_BACKEND_CUDA;
    const size_t BT = (size_t)B * (size_t)T;
    wb_loader loader;
    wb_loader_init(&loader, c->tokens, c->n_train);
    loader.pos = (size_t)(tr->start_step * (int64_t)BT) % (c->n_train - (size_t)T - 1);
    int32_t *hx = malloc(BT * 4), *hy = malloc(BT * 4);
    loop_stats ls = {calloc((size_t)(o->run.steps > 0 ? o->run.steps : 1), sizeof(double)), 0, 0, NAN, NAN};
    step_state st;
    memset(&st, 0, sizeof st);
    st.dx = malloc(BT * sizeof(double)), st.dy = malloc(BT * sizeof(double));
    int rc = hx && hy && ls.step_ms && st.dx && st.dy ? WB_OK : WB_FAIL, profiling = 0, in_flight = 0;
    queued_step prev = {0};
    for (int64_t step = tr->start_step + 1; rc == WB_OK && step <= o->run.steps; step++) {
        if (cuda && !profiling && step > tr->start_step + o->run.profile_warmup) {
            cudaProfilerStart();
            profiling = 1;
        }
        rc = wb_loader_next(&loader, B, T, hx, hy);
        queued_step q = {step, 2 * (int)(step & 1), wb_now_us(), 0, WB_F32};
        nvtxRangePushA("step");
        /* --graph: the first step runs eagerly (it allocates), the second is captured */
        if (rc == WB_OK) rc = train_step(tr, &st, hx, hy, B, T, o->graph && step == tr->start_step + 2);
        nvtxRangePop();
        if (rc == WB_OK) {
            q.lr = adamw_lr(&tr->acfg, tr->opt.t), q.loss_dtype = st.loss->dtype;
            rc = wb_download_later(&tr->ctx, st.loss, q.slot);
        }
        if (rc == WB_OK) rc = adamw_norm_later(&tr->opt, q.slot + 1);
        if (rc != WB_OK) fprintf(stderr, "step %lld failed\n", (long long)step);
        if (rc == WB_OK && in_flight) rc = finish_step(o, tr, &prev, &ls); /* step k-1, while k runs */
        prev = q, in_flight = rc == WB_OK;
        int last = step == o->run.steps;
        int eval = o->eval_every > 0 && step % o->eval_every == 0 && !last && c->n_val;
        int save = !o->no_checkpoint && ((o->save_every > 0 && step % o->save_every == 0) || last);
        int show = o->sample_every > 0 && step % o->sample_every == 0 && !last;
        if (rc != WB_OK || !(last || eval || save || show)) continue;
        rc = finish_step(o, tr, &q, &ls); /* a pause: this step first */
        in_flight = 0;
        if (rc == WB_OK && eval) {
            double vl;
            rc = evaluate(tr, c, B, T, o->eval_batches, &vl);
            if (rc == WB_OK) printf("val  %5lld/%d | loss %.4f (train %.4f)\n", (long long)step, o->run.steps, vl, ls.last_loss);
        }
        if (rc == WB_OK && save) rc = save_checkpoint(tr, ck_path, step);
        if (rc == WB_OK && show) {
            char label[64];
            snprintf(label, sizeof label, "sample %lld (greedy)", (long long)step);
            rc = sample(&tr->model, &tr->ctx, &c->bpe, o->prompt, o->sample_len, 0.0f, rng, label);
        }
    }
    if (in_flight) (void)tr->be->sync(tr->be); /* a failed step left its successor queued */
    if (profiling) cudaProfilerStop();
    if (rc == WB_OK && ls.measured > 0) {
        double med = wb_median(ls.step_ms, ls.measured), tps = (double)BT / (med * 1e-3);
        printf("summary: %d measured steps, median %.1f ms/step, %.0f tok/s", ls.measured, med, tps);
        if (tr->peak > 0) printf(", MFU %.1f%%", 100.0 * tr->flops_per_token * tps / tr->peak);
        printf(", loss %.4f -> %.4f\n", ls.first_loss, ls.last_loss);
    }
    if (rc == WB_OK && c->n_val && o->run.steps > tr->start_step) {
        double vl;
        rc = evaluate(tr, c, B, T, o->eval_batches, &vl);
        if (rc == WB_OK) printf("validation: loss %.4f over %d batches (train %.4f)\n", vl, o->eval_batches, ls.last_loss);
    }
    free(hx), free(hy), free(ls.step_ms), free(st.dx), free(st.dy);
    return rc;
}

/* mkdir -p */
static int make_dirs(const char *path) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int main(int argc, char **argv) {
    /* 1. options */
    options o;
    int exit_status = parse_options(&o, argc, argv);
    if (exit_status >= 0) return exit_status;
    if (make_dirs(o.out) != 0) {
        perror(o.out);
        return 1;
    }
    char tok_path[4096], ck_path[4096];
    snprintf(tok_path, sizeof tok_path, "%s/tokenizer.bin", o.out);
    snprintf(ck_path, sizeof ck_path, "%s/model.ckpt", o.out);

    /* 2. data: tokens, tokenizer, training and validation split */
    corpus data;
    trainer tr;
    memset(&tr, 0, sizeof tr);
    int rc = load_corpus(&o, tok_path, &data);

    /* 3. build: backend, model, optimizer, context */
    if (rc == WB_OK) rc = build(&o, &data, ck_path, &tr);

    /* 4. train (and the validation loss at the end) */
    wb_rng rng;
    wb_rng_seed(&rng, (uint64_t)o.run.seed + 7);
    if (rc == WB_OK) rc = train(&o, &data, &tr, ck_path, &rng);

    /* 5. samples from the trained model */
    if (rc == WB_OK && o.sample_len > 0 && o.run.steps > tr.start_step) {
        rc = sample(&tr.model, &tr.ctx, &data.bpe, o.prompt, o.sample_len, 0.0f, &rng, "sample (greedy)");
        if (rc == WB_OK)
            rc = sample(&tr.model, &tr.ctx, &data.bpe, o.prompt, o.sample_len, (float)o.temperature, &rng,
                        "sample (temperature)");
    }
    if (rc == WB_OK && !o.no_checkpoint) printf("saved %s%s%s\n", ck_path, data.random ? "" : " and ", data.random ? "" : tok_path);

    /* 6. free */
    free_all(&tr, &data);
    return rc == WB_OK ? 0 : 1;
}
