/*
 * fixture.h: the PyTorch GPT-2 fixture (lessons/04_gpt2_autodiff/scripts/make_fixture.py wrote it)
 * and the comparison of the engine's GPT-2 against it, shared by the CPU unit test and the GPU
 * test program.
 */
#ifndef WB_TEST_FIXTURE_H
#define WB_TEST_FIXTURE_H

#include <stdint.h>

#include "backend.h"

typedef struct {
    int32_t n_layer, n_head, n_embd, max_seq, vocab, vocab_padded, B, T, n_params, n_steps;
    float lr, beta1, beta2, eps, weight_decay, grad_clip;
    float *params;            /* (n_params) block order */
    int32_t *tokens, *targets; /* (B*T) */
    float *logits;            /* (B*T*vocab_padded) */
    float loss;
    float *grads;             /* (n_params) */
    float *losses;            /* (n_steps) */
} gpt2_fixture;

typedef struct {
    double logits, loss, grads, grad_tensor, losses; /* relative-error tolerances */
} fixture_tolerances;

/* The fixture's path: $WB_GPT2_FIXTURE, else $WB_SOURCE_DIR/lessons/04_gpt2_autodiff/fixtures/gpt2_tiny.bin */
const char *fixture_path(char *buf, size_t n);
/* Returns WB_FAIL with a message naming the file and the command that makes it. */
int fixture_load(gpt2_fixture *fx, const char *path);
void fixture_free(gpt2_fixture *fx);
/* Runs forward, backward and n_steps AdamW updates with the engine; prints each comparison;
 * returns WB_OK when every measure is within tolerance. ops: 0 fused, 1 primitive, 2 fused with
 * the fused attention primitive. */
int fixture_compare(const gpt2_fixture *fx, wb_backend *be, wb_dtype dtype, int ops, const fixture_tolerances *tol);

#endif
