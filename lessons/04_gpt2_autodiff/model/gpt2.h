/*
 * gpt2.h: GPT-2 (decoder-only transformer) written with the engine's primitives; its backward
 * pass is nothing but the pullbacks those primitives recorded.
 *
 * Parameters live in one block and their gradients in another (one memset zeroes all gradients,
 * one kernel updates all parameters). The block is ordered so that every matrix comes first
 * (AdamW decays them) and every vector after (no decay):
 *
 *   wte       (Vp, C)    token embedding, tied with the output projection (logits = x @ wte^T)
 *   wpe       (maxT, C)  position embedding
 *   per layer: qkv_w (3C, C), proj_w (C, C), fc_w (4C, C), fcproj_w (C, 4C)   (nn.Linear layout)
 *   per layer: ln1_w, ln1_b (C), qkv_b (3C), proj_b (C), ln2_w, ln2_b (C), fc_b (4C), fcproj_b (C)
 *   lnf_w, lnf_b (C)
 *
 * Vp is the vocabulary padded to a multiple of 64 (50257 -> 50304): padded logits are computed
 * (the GEMM is faster on round sizes) and ignored by the loss.
 */
#ifndef WB_GPT2_H
#define WB_GPT2_H

#include "engine.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { GPT2_OPS_FUSED = 0, GPT2_OPS_PRIMITIVE = 1 } gpt2_ops;

typedef struct {
    int n_layer, n_head, n_embd;
    int max_seq;        /* context length (wpe rows) */
    int vocab;          /* real vocabulary */
    int vocab_padded;   /* Vp >= vocab */
    float dropout;      /* after embeddings, attention probabilities, both residual branches */
    gpt2_ops ops;       /* fused: layernorm / linear / softmax_causal primitives; primitive: built
                           from add, mul, mean, sqrt, mm, causal_mask, softmax, ... (more kernels) */
    int flash;          /* with fused ops and no attention dropout: the fused attention primitive
                           (one kernel, q, k, v read in place) instead of bmm + softmax + bmm */
} gpt2_config;

typedef struct {
    wb_tensor qkv_w;             /* (3C, C) */
    wb_tensor proj_w;            /* (C, C) */
    wb_tensor fc_w;              /* (4C, C) */
    wb_tensor fcproj_w;          /* (C, 4C) */
    wb_tensor ln1_w, ln1_b;      /* (C) */
    wb_tensor qkv_b;             /* (3C) */
    wb_tensor proj_b;            /* (C) */
    wb_tensor ln2_w, ln2_b;      /* (C) */
    wb_tensor fc_b;              /* (4C) */
    wb_tensor fcproj_b;          /* (C) */
} gpt2_layer;

typedef struct {
    gpt2_config cfg;
    wb_backend *be;
    wb_dtype dtype;
    void *params;        /* (n_block) dtype, on the backend */
    void *grads;         /* (n_block) dtype */
    int64_t n_params;    /* parameters, packed (the host and file order) */
    int64_t n_block;     /* the block: every tensor starts at a multiple of 64 elements, so that
                            cuBLASLt sees aligned weights and biases; the gaps stay zero */
    int64_t n_decay;     /* block elements [0, n_decay) are matrices (weight decay) */
    int64_t *packed_off; /* (n_tensors) each tensor's offset in the packed order */
    wb_tensor wte;               /* (Vp, C) */
    wb_tensor wpe;               /* (max_seq, C) */
    wb_tensor lnf_w, lnf_b;      /* (C) */
    gpt2_layer *layers;  /* (n_layer) */
    int n_tensors;
    wb_tensor **tensors; /* every parameter tensor, in block order */
} gpt2;

/* Rounds vocab up to a multiple of 64. */
int gpt2_pad_vocab(int vocab);
int gpt2_build(gpt2 *m, const gpt2_config *cfg, wb_backend *be, wb_dtype dtype);
void gpt2_free(gpt2 *m);
/* GPT-2's initialisation: N(0, 0.02), residual projections N(0, 0.02 / sqrt(2 L)), zero biases,
 * unit layer-norm gains, zero padded embedding rows. Deterministic in seed. */
int gpt2_init_random(gpt2 *m, uint64_t seed);
/* Upload / download every parameter as packed f32 host values (tensor order, no gaps). */
int gpt2_set_params(gpt2 *m, const float *host);
int gpt2_get_params(gpt2 *m, float *host);
int gpt2_get_grads(gpt2 *m, float *host);
int gpt2_zero_grads(gpt2 *m);
/* Host conversions between the padded block layout (n_block) and the packed order (n_params). */
void gpt2_pack(const gpt2 *m, const float *block, float *packed);
void gpt2_unpack(const gpt2 *m, const float *packed, float *block);
/* Block <-> packed f32 host copy of any (n_block) device array of dtype dt. */
int gpt2_download_packed(const gpt2 *m, const void *dev, wb_dtype dt, float *packed);
int gpt2_upload_packed(const gpt2 *m, void *dev, wb_dtype dt, const float *packed);

/* tokens (B, T) i32 on the backend; targets (B, T) i32 or NULL. *logits: (B, T, Vp);
 * *loss: stat-dtype scalar (NULL without targets). NVTX: forward > layer > attn / mlp; the
 * tape replays them in backward as layer_bwd > mlp_bwd / attn_bwd. */
int gpt2_forward(gpt2 *m, wb_ctx *ctx, wb_tensor *tokens, wb_tensor *targets, wb_tensor **logits,
                 wb_tensor **loss);

/* Training FLOPs per token (forward + backward), as llm.c counts them: 6 N for the parameters
 * plus 6 L C T for the two attention products (half of PaLM's 12 L C T: causal attention skips
 * the upper triangle). N counts every parameter, padding included. */
double gpt2_flops_per_token(const gpt2 *m, int T);

/* Checkpoints: "WBGPT2CK", u32 version, the config, step, then f32 params and (optionally)
 * the optimizer's f32 moments. */
typedef struct {
    float *m, *v; /* (n_params) host copies, or NULL */
} gpt2_opt_state;
int gpt2_save(gpt2 *m, const char *path, int64_t step, const float *params_f32, const gpt2_opt_state *opt);
/* Reads the config first (gpt2_peek), then the rest into host buffers the caller owns. */
int gpt2_peek(const char *path, gpt2_config *cfg, int64_t *step, int64_t *n_params);
int gpt2_load(const char *path, float *params, float *opt_m, float *opt_v, int *has_opt);

#ifdef __cplusplus
}
#endif

#endif
