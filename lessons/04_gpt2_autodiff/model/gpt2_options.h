/*
 * gpt2_options.h: the options of a GPT-2 training run that lesson 04 (train.c) and lesson 06
 * (data parallel) share: the model, its data, the batch, the schedule and the profiled window.
 * One definition, one table of wb_opt entries (wb_args.h), one set of presets and checks, so the
 * two programs take the same --layers or --lr with the same defaults and ranges; each program adds
 * its own options (lesson 04's --backend, lesson 06's --world-size) to the table.
 */
#ifndef WB_GPT2_OPTIONS_H
#define WB_GPT2_OPTIONS_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "adamw.h"
#include "wb_args.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *data;  /* builtin (generated stories), random (uniform tokens over vocab) or a file */
    const char *dtype; /* NULL: the program's default */
    const char *attn;  /* flash or bmm */
    int layers, heads, width, context, seq, batch, vocab; /* seq 0: the context */
    int steps, warmup, profile_warmup, log_every;
    double lr, min_lr_frac, weight_decay, clip;
    long long builtin_bytes, bpe_bytes, seed;
    int preset_sets_batch; /* --preset sets batch too (lesson 04; lesson 06's batch is per rank) */
} gpt2_options;

/* GPT-2 tiny on the builtin stories: 20 steps, batch 4, lr 1e-3, warm-up 2, flash attention. */
gpt2_options gpt2_options_defaults(void);

/* A program's options: its own n_own (lesson 04's --backend, lesson 06's --world-size) and the
 * shared ones (--data --dtype --attn --preset --layers --heads --width --context --seq --batch
 * --vocab --steps, at least min_steps, --warmup --profile-warmup --log-every --lr --min-lr-frac
 * --wd --clip --builtin-bytes --bpe-bytes --seed), parsed by wb_opts_parse and checked: the shared
 * ones here (seq 0 becomes the context), then the program's combinations by check(program) (NULL,
 * or what is wrong). Returns -1 to run; else the program's exit status: 0 after --help (usage
 * printed), 2 after saying what is wrong with the options. */
#define GPT2_OPTIONS_N 22
int gpt2_options_parse(gpt2_options *o, int min_steps, const wb_opt *own, int n_own,
                       const char *(*check)(const void *program), const void *program, void (*usage)(FILE *f, const char *prog),
                       int argc, char **argv);

/* The optimizer's configuration: lr decaying to lr * min_lr_frac, AdamW's betas, the weight decay
 * and clip, warm-up and total steps. */
adamw_config gpt2_options_adamw(const gpt2_options *o);

/* --data random: uniform tokens over vocab, enough for 64 windows of batch rows; NULL when out of
 * memory. Deterministic in the seed. */
int32_t *gpt2_random_tokens(const gpt2_options *o, int batch, size_t *n_tokens);

/* The validation split: the last tenth of n_tokens, when it holds at least one window (else none).
 * Returns the training tokens' count; 0, after saying so on stderr, when they hold no window. */
size_t gpt2_split_tokens(const gpt2_options *o, size_t n_tokens, size_t *n_val);

#ifdef __cplusplus
}
#endif

#endif
