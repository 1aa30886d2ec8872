/*
 * train.c: lesson 04's program. Trains GPT-2 on any UTF-8 text with the pullback engine, on the
 * CUDA backend (bf16 by default) or the CPU reference backend, and prints one line per step:
 *
 *   step   12/200 | loss 5.1234 | lr 3.00e-04 | norm 1.234 | 105.3 ms | 155,600 tok/s | MFU 31.2%
 *
 * What a learner can look at in a trace (NVTX ranges, the program's interface):
 *   step > forward > layer > attn, mlp      the forward pass, one "layer" per transformer block
 *   step > backward > layer_bwd > mlp_bwd, attn_bwd   the tape's replay of them, in reverse
 *   step > optimizer                        gradient norm + one AdamW kernel over all parameters
 *   sample                                  generation from the prompt (outside the measured steps)
 * cudaProfilerStart/Stop bracket the steps after --profile-warmup steps (the first step allocates
 * the arenas and creates cuBLASLt plans; later steps allocate nothing).
 *
 * Files in --out: tokenizer.bin (trained on the text unless it exists) and model.ckpt.
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_profiler_api.h>
#include <errno.h>
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
#include "wb_check.h"
#include "wb_random.h"
#include "wb_timing.h"

typedef struct {
    const char *data, *out, *backend, *dtype, *ops, *attn, *prompt;
    int layers, heads, width, context, seq, batch, vocab, steps, warmup, sample_every, sample_len;
    int save_every, profile_warmup, resume, log_every;
    float lr, min_lr_frac, weight_decay, clip, dropout, temperature;
    long long builtin_bytes, bpe_bytes;
    unsigned long long seed;
} options;

static void usage(const char *prog) {
    fprintf(stderr,
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
            "  --steps N --lr X --warmup N --min-lr-frac X --wd X --clip X --dropout X\n"
            "                          [20, 1e-3, 2, 0.1, 0.1, 1.0, 0]\n"
            "  --sample-every N --sample-len N --temperature X --prompt TEXT   [0 (end only), 32, 0.8, \"One day,\"]\n"
            "  --save-every N          checkpoint every N steps (0: at the end only)   [0]\n"
            "  --resume                continue from DIR/model.ckpt (config taken from it)\n"
            "  --profile-warmup N      steps before cudaProfilerStart                  [1]\n"
            "  --builtin-bytes N --bpe-bytes N --seed N --log-every N\n",
            prog);
}

static int apply_preset(options *o, const char *p) {
    if (!strcmp(p, "tiny")) {
        o->layers = 2, o->heads = 2, o->width = 64, o->context = 64, o->batch = 4, o->vocab = 512;
    } else if (!strcmp(p, "small")) {
        o->layers = 4, o->heads = 4, o->width = 256, o->context = 256, o->batch = 16, o->vocab = 4096;
    } else if (!strcmp(p, "124m")) {
        o->layers = 12, o->heads = 12, o->width = 768, o->context = 1024, o->batch = 16, o->vocab = 50257;
    } else {
        return -1;
    }
    o->seq = 0; /* = context */
    return 0;
}

static int parse(options *o, int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--resume")) {
            o->resume = 1;
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return -1;
        if (i + 1 >= argc) {
            fprintf(stderr, "%s needs a value\n", a);
            return -1;
        }
        const char *v = argv[++i];
        if (!strcmp(a, "--data")) o->data = v;
        else if (!strcmp(a, "--out")) o->out = v;
        else if (!strcmp(a, "--backend")) o->backend = v;
        else if (!strcmp(a, "--dtype")) o->dtype = v;
        else if (!strcmp(a, "--ops")) o->ops = v;
        else if (!strcmp(a, "--attn")) o->attn = v;
        else if (!strcmp(a, "--prompt")) o->prompt = v;
        else if (!strcmp(a, "--preset")) {
            if (apply_preset(o, v) != 0) {
                fprintf(stderr, "unknown preset %s\n", v);
                return -1;
            }
        } else if (!strcmp(a, "--layers")) o->layers = atoi(v);
        else if (!strcmp(a, "--heads")) o->heads = atoi(v);
        else if (!strcmp(a, "--width")) o->width = atoi(v);
        else if (!strcmp(a, "--context")) o->context = atoi(v);
        else if (!strcmp(a, "--seq")) o->seq = atoi(v);
        else if (!strcmp(a, "--batch")) o->batch = atoi(v);
        else if (!strcmp(a, "--vocab")) o->vocab = atoi(v);
        else if (!strcmp(a, "--steps")) o->steps = atoi(v);
        else if (!strcmp(a, "--warmup")) o->warmup = atoi(v);
        else if (!strcmp(a, "--sample-every")) o->sample_every = atoi(v);
        else if (!strcmp(a, "--sample-len")) o->sample_len = atoi(v);
        else if (!strcmp(a, "--save-every")) o->save_every = atoi(v);
        else if (!strcmp(a, "--profile-warmup")) o->profile_warmup = atoi(v);
        else if (!strcmp(a, "--log-every")) o->log_every = atoi(v);
        else if (!strcmp(a, "--lr")) o->lr = strtof(v, NULL);
        else if (!strcmp(a, "--min-lr-frac")) o->min_lr_frac = strtof(v, NULL);
        else if (!strcmp(a, "--wd")) o->weight_decay = strtof(v, NULL);
        else if (!strcmp(a, "--clip")) o->clip = strtof(v, NULL);
        else if (!strcmp(a, "--dropout")) o->dropout = strtof(v, NULL);
        else if (!strcmp(a, "--temperature")) o->temperature = strtof(v, NULL);
        else if (!strcmp(a, "--builtin-bytes")) o->builtin_bytes = atoll(v);
        else if (!strcmp(a, "--bpe-bytes")) o->bpe_bytes = atoll(v);
        else if (!strcmp(a, "--seed")) o->seed = strtoull(v, NULL, 10);
        else {
            fprintf(stderr, "unknown option %s\n", a);
            return -1;
        }
    }
    if (o->seq == 0) o->seq = o->context;
    const char *bad = NULL;
    if (strcmp(o->backend, "cuda") && strcmp(o->backend, "cpu")) bad = "--backend must be cuda or cpu";
    else if (strcmp(o->ops, "fused") && strcmp(o->ops, "primitive")) bad = "--ops must be fused or primitive";
    else if (strcmp(o->attn, "bmm") && strcmp(o->attn, "flash")) bad = "--attn must be bmm or flash";
    else if (o->layers < 1 || o->heads < 1 || o->width < 1 || o->width % o->heads) bad = "--width must be a multiple of --heads";
    else if (o->seq < 1 || o->seq > o->context) bad = "--seq must be in [1, context]";
    else if (o->batch < 1 || o->steps < 0) bad = "--batch and --steps must be positive";
    else if (o->vocab < 256) bad = "--vocab must be at least 256";
    else if (o->dropout < 0 || o->dropout >= 1) bad = "--dropout must be in [0, 1)";
    if (bad) {
        fprintf(stderr, "%s\n", bad);
        return -1;
    }
    return 0;
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

/* ---------------------------------------------------------------------------------------------
 * main
 * ------------------------------------------------------------------------------------------ */
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

static int file_exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0;
}

int main(int argc, char **argv) {
    options o = {.data = "builtin", .out = "out_gpt2", .backend = "cuda", .dtype = NULL, .ops = "fused", .attn = "flash",
                 .prompt = "One day,", .layers = 2, .heads = 2, .width = 64, .context = 64, .seq = 0,
                 .batch = 4, .vocab = 512, .steps = 20, .warmup = 2, .sample_every = 0, .sample_len = 32,
                 .save_every = 0, .profile_warmup = 1, .log_every = 1, .lr = 1e-3f, .min_lr_frac = 0.1f,
                 .weight_decay = 0.1f, .clip = 1.0f, .dropout = 0.0f, .temperature = 0.8f,
                 .builtin_bytes = 1 << 20, .bpe_bytes = 8 << 20, .seed = 1337};
    if (parse(&o, argc, argv) != 0) {
        usage(argv[0]);
        return 2;
    }
    int cuda = !strcmp(o.backend, "cuda");
    wb_dtype dtype = cuda ? WB_BF16 : WB_F32;
    if (o.dtype && wb_dtype_parse(o.dtype, &dtype) != 0) {
        fprintf(stderr, "unknown dtype %s\n", o.dtype);
        return 2;
    }
    wb_backend *be = NULL;
    if ((cuda ? wb_backend_cuda_create(&be, 0) : wb_backend_cpu_create(&be)) != WB_OK) {
        fprintf(stderr, "cannot create the %s backend\n", o.backend);
        return 1;
    }
    if (make_dirs(o.out) != 0) {
        perror(o.out);
        return 1;
    }
    char tok_path[4096], ck_path[4096];
    snprintf(tok_path, sizeof tok_path, "%s/tokenizer.bin", o.out);
    snprintf(ck_path, sizeof ck_path, "%s/model.ckpt", o.out);

    /* ---- text and tokenizer (--data random: uniform random tokens, no tokenizer; benchmarks) ---- */
    int random_data = !strcmp(o.data, "random");
    size_t n_text = 0;
    wb_bpe bpe;
    int32_t *tokens = NULL;
    size_t n_tokens = 0;
    double t0 = wb_now_us();
    if (random_data) {
        wb_rng r;
        wb_rng_seed(&r, o.seed);
        n_tokens = (size_t)o.batch * (size_t)o.seq * 64 + (size_t)o.seq + 2;
        tokens = malloc(n_tokens * sizeof *tokens);
        if (!tokens) return 1;
        for (size_t i = 0; i < n_tokens; i++) tokens[i] = (int32_t)(wb_rng_next(&r) % (uint64_t)o.vocab);
        memset(&bpe, 0, sizeof bpe);
        bpe.vocab_size = o.vocab;
        o.sample_len = 0, o.sample_every = 0; /* nothing to decode */
        printf("data: random tokens, vocabulary %d\n", o.vocab);
    } else {
    char *text = !strcmp(o.data, "builtin") ? wb_builtin_corpus((size_t)o.builtin_bytes, o.seed, &n_text)
                                             : wb_read_file(o.data, &n_text);
    if (!text) return 1;
    if (o.resume && file_exists(tok_path)) {
        if (wb_bpe_load(&bpe, tok_path) != WB_OK) return 1;
        printf("tokenizer: %s (%d tokens)\n", tok_path, bpe.vocab_size);
    } else {
        size_t nb = n_text < (size_t)o.bpe_bytes ? n_text : (size_t)o.bpe_bytes;
        if (wb_bpe_train(&bpe, text, nb, o.vocab, 1) != WB_OK || wb_bpe_save(&bpe, tok_path) != WB_OK) return 1;
        printf("tokenizer: trained %d tokens on %zu bytes in %.1f s -> %s\n", bpe.vocab_size, nb,
               (wb_now_us() - t0) * 1e-6, tok_path);
    }
    t0 = wb_now_us();
    if (wb_bpe_encode(&bpe, text, n_text, &tokens, &n_tokens) != WB_OK) return 1;
    printf("data: %s, %zu bytes -> %zu tokens (%.2f bytes/token) in %.1f s\n", o.data, n_text, n_tokens,
           (double)n_text / (double)(n_tokens ? n_tokens : 1), (wb_now_us() - t0) * 1e-6);
    free(text);
    }

    /* ---- model and optimizer ---- */
    gpt2_config cfg = {o.layers, o.heads, o.width, o.context, bpe.vocab_size, gpt2_pad_vocab(bpe.vocab_size),
                       o.dropout, !strcmp(o.ops, "fused") ? GPT2_OPS_FUSED : GPT2_OPS_PRIMITIVE, !strcmp(o.attn, "flash")};
    int64_t start_step = 0, ck_params = 0;
    if (o.resume) {
        if (gpt2_peek(ck_path, &cfg, &start_step, &ck_params) != WB_OK) return 1;
        cfg.dropout = o.dropout;
        cfg.ops = !strcmp(o.ops, "fused") ? GPT2_OPS_FUSED : GPT2_OPS_PRIMITIVE;
        cfg.flash = !strcmp(o.attn, "flash");
        if (cfg.vocab != bpe.vocab_size) {
            fprintf(stderr, "%s: vocabulary %d, tokenizer %d\n", ck_path, cfg.vocab, bpe.vocab_size);
            return 1;
        }
        if (o.seq > cfg.max_seq) o.seq = cfg.max_seq;
    }
    gpt2 model;
    if (gpt2_build(&model, &cfg, be, dtype) != WB_OK) return 1;
    adamw_config acfg = {o.lr, o.lr * o.min_lr_frac, 0.9f, 0.95f, 1e-8f, o.weight_decay, o.clip, o.warmup, o.steps};
    adamw opt;
    if (o.resume) {
        float *p = malloc((size_t)model.n_params * 4), *mm = malloc((size_t)model.n_params * 4),
              *vv = malloc((size_t)model.n_params * 4);
        int has_opt = 0;
        if (!p || !mm || !vv || ck_params != model.n_params || gpt2_load(ck_path, p, mm, vv, &has_opt) != WB_OK ||
            adamw_init(&opt, &acfg, &model) != WB_OK || adamw_set_params_f32(&opt, &model, p) != WB_OK)
            return 1;
        if (has_opt && adamw_set_state(&opt, &model, mm, vv, (int)start_step) != WB_OK) return 1;
        free(p), free(mm), free(vv);
        printf("resumed %s at step %lld\n", ck_path, (long long)start_step);
    } else {
        if (gpt2_init_random(&model, o.seed) != WB_OK || adamw_init(&opt, &acfg, &model) != WB_OK) return 1;
    }
    double flops_tok = gpt2_flops_per_token(&model, o.seq), peak = be->peak_for(be, dtype);
    printf("model: %d layers, %d heads, width %d, context %d, vocab %d (padded %d), %.2fM parameters, %s %s, "
           "ops %s, attention %s\n",
           cfg.n_layer, cfg.n_head, cfg.n_embd, cfg.max_seq, cfg.vocab, cfg.vocab_padded, model.n_params / 1e6,
           be->name, wb_dtype_name(dtype), o.ops, o.attn);
    printf("device: %s, peak %s\n", be->device_name, peak > 0 ? "known" : "unknown (MFU n/a)");
    if (peak > 0) printf("device: dense peak %.0f TFLOP/s for %s\n", peak / 1e12, wb_dtype_name(dtype));

    /* ---- training ---- */
    size_t n_val = n_tokens / 10, n_train = n_tokens - n_val;
    wb_loader train;
    wb_loader_init(&train, tokens, n_train);
    train.pos = (size_t)(start_step * o.batch * o.seq) % (n_train > (size_t)o.seq + 2 ? n_train - (size_t)o.seq - 1 : 1);
    wb_ctx ctx;
    size_t chunk = (size_t)64 << 20;
    if (wb_ctx_init(&ctx, be, dtype, chunk) != WB_OK) return 1;
    ctx.seed = o.seed;
    size_t BT = (size_t)o.batch * (size_t)o.seq;
    int32_t *hx = malloc(BT * 4), *hy = malloc(BT * 4);
    double *dx = malloc(BT * sizeof *dx), *dy = malloc(BT * sizeof *dy);
    double *step_ms = calloc((size_t)(o.steps > 0 ? o.steps : 1), sizeof *step_ms);
    if (!hx || !hy || !dx || !dy || !step_ms) return 1;
    wb_rng rng;
    wb_rng_seed(&rng, o.seed + 7);
    int measured = 0, profiling = 0;
    double first_loss = NAN, last_loss = NAN;
    for (int64_t step = start_step + 1; step <= o.steps; step++) {
        if (cuda && !profiling && step > start_step + o.profile_warmup) {
            cudaProfilerStart();
            profiling = 1;
        }
        if (wb_loader_next(&train, o.batch, o.seq, hx, hy) != WB_OK) return 1;
        for (size_t i = 0; i < BT; i++) dx[i] = hx[i], dy[i] = hy[i];
        double ts = wb_now_us();
        nvtxRangePushA("step");
        int64_t shape[2] = {o.batch, o.seq};
        wb_tensor *x = NULL, *y = NULL, *loss = NULL;
        int rc = wb_ctx_reset(&ctx);
        if (rc == WB_OK) {
            x = wb_new(&ctx, WB_I32, 2, shape, 0);
            y = wb_new(&ctx, WB_I32, 2, shape, 0);
            rc = x && y && wb_upload(&ctx, x, dx) == WB_OK && wb_upload(&ctx, y, dy) == WB_OK ? WB_OK : WB_FAIL;
        }
        if (rc == WB_OK) rc = gpt2_zero_grads(&model);
        if (rc == WB_OK) rc = gpt2_forward(&model, &ctx, x, y, NULL, &loss);
        nvtxRangePushA("backward");
        if (rc == WB_OK) rc = wb_backward(&ctx, loss);
        nvtxRangePop();
        nvtxRangePushA("optimizer");
        float lr = adamw_lr(&acfg, (int)step);
        if (rc == WB_OK) rc = adamw_step(&opt, &model, lr);
        nvtxRangePop();
        nvtxRangePop(); /* step */
        double lval = NAN, norm = NAN;
        if (rc == WB_OK) rc = wb_download(&ctx, loss, &lval); /* synchronises: the step is done */
        if (rc == WB_OK) rc = adamw_last_norm(&opt, &norm);
        if (rc != WB_OK) {
            fprintf(stderr, "step %lld failed\n", (long long)step);
            return 1;
        }
        double ms = (wb_now_us() - ts) * 1e-3, tps = (double)BT / (ms * 1e-3);
        if (step > start_step + o.profile_warmup) step_ms[measured++] = ms;
        if (isnan(first_loss)) first_loss = lval;
        last_loss = lval;
        if (!isfinite(lval)) {
            fprintf(stderr, "step %lld: loss is %f\n", (long long)step, lval);
            return 1;
        }
        if (o.log_every > 0 && (step % o.log_every == 0 || step == o.steps)) {
            char mfu[32];
            if (peak > 0) snprintf(mfu, sizeof mfu, "%.1f%%", 100.0 * flops_tok * tps / peak);
            else snprintf(mfu, sizeof mfu, "n/a");
            printf("step %5lld/%d | loss %.4f | lr %.2e | norm %.3f | %8.1f ms | %10.0f tok/s | MFU %s\n",
                   (long long)step, o.steps, lval, lr, norm, ms, tps, mfu);
            fflush(stdout);
        }
        int last = step == o.steps;
        if ((o.save_every > 0 && step % o.save_every == 0) || last) {
            float *p = malloc((size_t)model.n_params * 4), *mm = malloc((size_t)model.n_params * 4),
                  *vv = malloc((size_t)model.n_params * 4);
            if (!p || !mm || !vv) return 1;
            int ok = adamw_get_params_f32(&opt, &model, p) == WB_OK &&
                     adamw_get_state(&opt, &model, mm, vv) == WB_OK;
            gpt2_opt_state st = {mm, vv};
            if (!ok || gpt2_save(&model, ck_path, step, p, &st) != WB_OK) return 1;
            free(p), free(mm), free(vv);
        }
        if (o.sample_every > 0 && step % o.sample_every == 0 && !last) {
            char label[64];
            snprintf(label, sizeof label, "sample %lld (greedy)", (long long)step);
            if (sample(&model, &ctx, &bpe, o.prompt, o.sample_len, 0.0f, &rng, label) != WB_OK) return 1;
        }
    }
    if (profiling) cudaProfilerStop();
    if (measured > 0) {
        double med = wb_median(step_ms, measured), tps = (double)BT / (med * 1e-3);
        printf("summary: %d measured steps, median %.1f ms/step, %.0f tok/s", measured, med, tps);
        if (peak > 0) printf(", MFU %.1f%%", 100.0 * flops_tok * tps / peak);
        printf(", loss %.4f -> %.4f\n", first_loss, last_loss);
    }
    if (o.sample_len > 0 && o.steps > start_step) {
        if (sample(&model, &ctx, &bpe, o.prompt, o.sample_len, 0.0f, &rng, "sample (greedy)") != WB_OK) return 1;
        if (sample(&model, &ctx, &bpe, o.prompt, o.sample_len, o.temperature, &rng, "sample (temperature)") != WB_OK)
            return 1;
    }
    printf("saved %s%s%s\n", ck_path, random_data ? "" : " and ", random_data ? "" : tok_path);
    wb_ctx_free(&ctx);
    adamw_free(&opt);
    gpt2_free(&model);
    wb_bpe_free(&bpe);
    free(tokens);
    be->destroy(be);
    return 0;
}
