/* gpt2_options.c: see gpt2_options.h. */
#include "gpt2_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wb_random.h"

gpt2_options gpt2_options_defaults(void) {
    return (gpt2_options){.data = "builtin", .dtype = NULL, .attn = "flash", .layers = 2, .heads = 2, .width = 64,
                          .context = 64, .seq = 0, .batch = 4, .vocab = 512, .steps = 20, .warmup = 2,
                          .profile_warmup = 1, .log_every = 1, .lr = 1e-3, .min_lr_frac = 0.1, .weight_decay = 0.1,
                          .clip = 1.0, .builtin_bytes = 1 << 20, .bpe_bytes = 8 << 20, .seed = 1337,
                          .preset_sets_batch = 1};
}

/* --preset NAME: the model (and the batch, where the program's batch is the whole one); later
 * options override them. */
static int set_preset(void *to, const char *name) {
    static const struct {
        const char *name;
        int layers, heads, width, context, batch, vocab;
    } presets[] = {{"tiny", 2, 2, 64, 64, 4, 512}, {"small", 4, 4, 256, 256, 16, 4096}, {"124m", 12, 12, 768, 1024, 16, 50257}};
    gpt2_options *o = to;
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        if (strcmp(name, presets[i].name)) continue;
        o->layers = presets[i].layers, o->heads = presets[i].heads, o->width = presets[i].width;
        o->context = presets[i].context, o->vocab = presets[i].vocab, o->seq = 0; /* = context */
        if (o->preset_sets_batch) o->batch = presets[i].batch;
        return 0;
    }
    fprintf(stderr, "--preset: unknown preset '%s' (tiny, small or 124m)\n", name);
    return -1;
}

/* After parsing: seq 0 becomes the context; NULL when the shared options hold together. */
static const char *check_shared(gpt2_options *o) {
    if (o->seq == 0) o->seq = o->context;
    if (strcmp(o->attn, "bmm") && strcmp(o->attn, "flash")) return "--attn must be bmm or flash";
    if (o->width % o->heads) return "--width must be a multiple of --heads";
    if (o->seq > o->context) return "--seq must be in [1, context]";
    return NULL;
}

int gpt2_options_parse(gpt2_options *o, int min_steps, const wb_opt *own, int n_own,
                       const char *(*check)(const void *program), const void *program, void (*usage)(FILE *f, const char *prog),
                       int argc, char **argv) {
    const wb_opt shared[GPT2_OPTIONS_N] = {
        WB_STRING("data", &o->data),           WB_STRING("dtype", &o->dtype),
        WB_STRING("attn", &o->attn),           WB_CALL("preset", o, set_preset),
        WB_INT("layers", &o->layers, 1, 1000), WB_INT("heads", &o->heads, 1, 1024),
        WB_INT("width", &o->width, 1, 1 << 16), WB_INT("context", &o->context, 1, 1 << 20),
        WB_INT("seq", &o->seq, 1, 1 << 20),    WB_INT("batch", &o->batch, 1, 1 << 20),
        WB_INT("vocab", &o->vocab, 256, 1 << 20), WB_INT("steps", &o->steps, min_steps, 1 << 30),
        WB_INT("warmup", &o->warmup, 0, 1 << 30),
        WB_INT("profile-warmup", &o->profile_warmup, 0, 1 << 30),
        WB_INT("log-every", &o->log_every, 0, 1 << 30),
        WB_DOUBLE("lr", &o->lr, 0, 10),        WB_DOUBLE("min-lr-frac", &o->min_lr_frac, 0, 1),
        WB_DOUBLE("wd", &o->weight_decay, 0, 10), WB_DOUBLE("clip", &o->clip, 0, 1e9),
        WB_I64("builtin-bytes", &o->builtin_bytes, 1, 1e12), WB_I64("bpe-bytes", &o->bpe_bytes, 1, 1e12),
        WB_I64("seed", &o->seed, 0, 9e18),
    };
    wb_opt table[WB_OPTS_MAX];
    if (n_own < 0 || n_own + GPT2_OPTIONS_N > WB_OPTS_MAX) {
        fprintf(stderr, "%s: %d options of its own, more than the %d the table has room for\n", argv[0], n_own,
                WB_OPTS_MAX - GPT2_OPTIONS_N);
        return 2;
    }
    memcpy(table, own, (size_t)n_own * sizeof *own);
    memcpy(table + n_own, shared, sizeof shared);
    int rc = wb_opts_parse(table, n_own + GPT2_OPTIONS_N, argc, argv);
    if (rc == 1) {
        usage(stdout, argv[0]);
        return 0;
    }
    const char *bad = rc ? NULL : check_shared(o);
    if (!rc && !bad && check) bad = check(program);
    if (bad) fprintf(stderr, "%s\n", bad);
    if (rc || bad) {
        fprintf(stderr, "run %s --help for the options\n", argv[0]);
        return 2;
    }
    return -1;
}

adamw_config gpt2_options_adamw(const gpt2_options *o) {
    return (adamw_config){(float)o->lr, (float)(o->lr * o->min_lr_frac), 0.9f, 0.95f, 1e-8f, (float)o->weight_decay,
                          (float)o->clip, o->warmup, o->steps};
}

int32_t *gpt2_random_tokens(const gpt2_options *o, int batch, size_t *n_tokens) {
    wb_rng r;
    wb_rng_seed(&r, (uint64_t)o->seed);
    *n_tokens = (size_t)batch * (size_t)o->seq * 64 + (size_t)o->seq + 2;
    int32_t *tokens = malloc(*n_tokens * sizeof *tokens);
    for (size_t i = 0; tokens && i < *n_tokens; i++) tokens[i] = (int32_t)(wb_rng_next(&r) % (uint64_t)o->vocab);
    return tokens;
}

size_t gpt2_split_tokens(const gpt2_options *o, size_t n_tokens, size_t *n_val) {
    *n_val = n_tokens / 10;
    if (*n_val < (size_t)o->seq + 2) *n_val = 0;
    size_t n_train = n_tokens - *n_val;
    if (n_train < (size_t)o->seq + 2) {
        fprintf(stderr, "%s: %zu tokens; a training window needs %d\n", o->data, n_train, o->seq + 2);
        return 0;
    }
    return n_train;
}
