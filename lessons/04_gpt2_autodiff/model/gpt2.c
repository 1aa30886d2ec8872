/*
 * gpt2.c: GPT-2 on the autodiff engine: parameter block, initialisation, forward pass (the
 * backward pass is the tape), checkpoints. See gpt2.h for the layout.
 */
#include "gpt2.h"

#include <math.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wb_check.h"
#include "wb_random.h"

int gpt2_pad_vocab(int vocab) { return (vocab + 63) / 64 * 64; }

/* ---------------------------------------------------------------------------------------------
 * parameter block
 * ------------------------------------------------------------------------------------------ */
#define BLOCK_ALIGN 64 /* elements: 128 bytes in bf16, 256 in f32 */

static void place(gpt2 *m, wb_tensor *t, const char *name, int ndim, int64_t d0, int64_t d1, int64_t *off) {
    int64_t shape[2] = {d0, d1};
    *off = (*off + BLOCK_ALIGN - 1) / BLOCK_ALIGN * BLOCK_ALIGN;
    memset(t, 0, sizeof *t);
    wb_set_shape(t, ndim, shape);
    t->dtype = m->dtype;
    t->name = name;
    size_t es = wb_dtype_size(m->dtype);
    t->data = (char *)m->params + *off * (int64_t)es;
    t->grad = (char *)m->grads + *off * (int64_t)es;
    m->packed_off[m->n_tensors] = m->n_params;
    m->n_params += wb_numel(t);
    m->tensors[m->n_tensors++] = t;
    *off += wb_numel(t);
}

/* Lays out every tensor over the blocks (params == NULL: only counts). */
static void layout(gpt2 *m) {
    const gpt2_config *c = &m->cfg;
    int64_t C = c->n_embd, off = 0;
    m->n_tensors = 0;
    m->n_params = 0;
    place(m, &m->wte, "wte", 2, c->vocab_padded, C, &off);
    place(m, &m->wpe, "wpe", 2, c->max_seq, C, &off);
    for (int l = 0; l < c->n_layer; l++) {
        gpt2_layer *L = &m->layers[l];
        place(m, &L->qkv_w, "qkv_w", 2, 3 * C, C, &off);
        place(m, &L->proj_w, "proj_w", 2, C, C, &off);
        place(m, &L->fc_w, "fc_w", 2, 4 * C, C, &off);
        place(m, &L->fcproj_w, "fcproj_w", 2, C, 4 * C, &off);
    }
    m->n_decay = (off + BLOCK_ALIGN - 1) / BLOCK_ALIGN * BLOCK_ALIGN;
    for (int l = 0; l < c->n_layer; l++) {
        gpt2_layer *L = &m->layers[l];
        place(m, &L->ln1_w, "ln1_w", 1, C, 1, &off);
        place(m, &L->ln1_b, "ln1_b", 1, C, 1, &off);
        place(m, &L->qkv_b, "qkv_b", 1, 3 * C, 1, &off);
        place(m, &L->proj_b, "proj_b", 1, C, 1, &off);
        place(m, &L->ln2_w, "ln2_w", 1, C, 1, &off);
        place(m, &L->ln2_b, "ln2_b", 1, C, 1, &off);
        place(m, &L->fc_b, "fc_b", 1, 4 * C, 1, &off);
        place(m, &L->fcproj_b, "fcproj_b", 1, C, 1, &off);
    }
    place(m, &m->lnf_w, "lnf_w", 1, C, 1, &off);
    place(m, &m->lnf_b, "lnf_b", 1, C, 1, &off);
    m->n_block = (off + BLOCK_ALIGN - 1) / BLOCK_ALIGN * BLOCK_ALIGN;
}

int gpt2_build(gpt2 *m, const gpt2_config *cfg, wb_backend *be, wb_dtype dtype) {
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    m->be = be;
    m->dtype = dtype;
    if (cfg->n_layer < 1 || cfg->n_head < 1 || cfg->n_embd % cfg->n_head || cfg->max_seq < 1 || cfg->vocab < 1 ||
        cfg->vocab_padded < cfg->vocab) {
        fprintf(stderr, "gpt2: bad config (layers %d, heads %d, width %d, context %d, vocab %d/%d)\n", cfg->n_layer,
                cfg->n_head, cfg->n_embd, cfg->max_seq, cfg->vocab, cfg->vocab_padded);
        return WB_FAIL;
    }
    m->layers = calloc((size_t)cfg->n_layer, sizeof *m->layers);
    m->tensors = calloc((size_t)(4 + 12 * cfg->n_layer), sizeof *m->tensors);
    m->packed_off = calloc((size_t)(4 + 12 * cfg->n_layer), sizeof *m->packed_off);
    if (!m->layers || !m->tensors || !m->packed_off) return WB_FAIL;
    layout(m); /* count */
    size_t bytes = (size_t)m->n_block * wb_dtype_size(dtype);
    WB_TRY(be->alloc(be, &m->params, bytes));
    WB_TRY(be->alloc(be, &m->grads, bytes));
    layout(m); /* place */
    return gpt2_zero_grads(m);
}

void gpt2_free(gpt2 *m) {
    if (m->be) {
        if (m->params) m->be->free(m->be, m->params);
        if (m->grads) m->be->free(m->be, m->grads);
    }
    free(m->layers);
    free(m->tensors);
    free(m->packed_off);
    memset(m, 0, sizeof *m);
}

int gpt2_zero_grads(gpt2 *m) {
    return m->be->memset0(m->be, m->grads, (size_t)m->n_block * wb_dtype_size(m->dtype));
}

static int64_t block_off(const gpt2 *m, int i) {
    return ((const char *)m->tensors[i]->data - (const char *)m->params) / (int64_t)wb_dtype_size(m->dtype);
}

void gpt2_pack(const gpt2 *m, const float *block, float *packed) {
    for (int i = 0; i < m->n_tensors; i++)
        memcpy(packed + m->packed_off[i], block + block_off(m, i), (size_t)wb_numel(m->tensors[i]) * sizeof(float));
}

void gpt2_unpack(const gpt2 *m, const float *packed, float *block) {
    memset(block, 0, (size_t)m->n_block * sizeof(float));
    for (int i = 0; i < m->n_tensors; i++)
        memcpy(block + block_off(m, i), packed + m->packed_off[i], (size_t)wb_numel(m->tensors[i]) * sizeof(float));
}

/* device block of dtype dt <-> packed f32 on the host */
static int transfer_block(const gpt2 *m, void *dev, wb_dtype dt, float *packed, int down) {
    size_t n = (size_t)m->n_block, es = wb_dtype_size(dt);
    float *blk = malloc(n * sizeof *blk);
    char *buf = malloc(n * es);
    int rc = blk && buf ? WB_OK : WB_FAIL;
    if (rc == WB_OK && down) {
        rc = m->be->to_host(m->be, buf, dev, n * es);
        for (size_t i = 0; rc == WB_OK && i < n; i++)
            blk[i] = dt == WB_F32 ? ((float *)buf)[i] : dt == WB_F64 ? (float)((double *)buf)[i]
                                                                     : wb_bf16_to_f32(((uint16_t *)buf)[i]);
        if (rc == WB_OK) gpt2_pack(m, blk, packed);
    } else if (rc == WB_OK) {
        gpt2_unpack(m, packed, blk);
        for (size_t i = 0; i < n; i++) {
            if (dt == WB_F32) ((float *)buf)[i] = blk[i];
            else if (dt == WB_F64) ((double *)buf)[i] = blk[i];
            else ((uint16_t *)buf)[i] = wb_f32_to_bf16(blk[i]);
        }
        rc = m->be->to_device(m->be, dev, buf, n * es);
    }
    free(blk);
    free(buf);
    return rc;
}

int gpt2_download_packed(const gpt2 *m, const void *dev, wb_dtype dt, float *packed) {
    return transfer_block(m, (void *)dev, dt, packed, 1);
}
int gpt2_upload_packed(const gpt2 *m, void *dev, wb_dtype dt, const float *packed) {
    return transfer_block(m, dev, dt, (float *)packed, 0);
}

int gpt2_set_params(gpt2 *m, const float *host) { return gpt2_upload_packed(m, m->params, m->dtype, host); }
int gpt2_get_params(gpt2 *m, float *host) { return gpt2_download_packed(m, m->params, m->dtype, host); }
int gpt2_get_grads(gpt2 *m, float *host) { return gpt2_download_packed(m, m->grads, m->dtype, host); }

int gpt2_init_random(gpt2 *m, uint64_t seed) {
    float *h = malloc((size_t)m->n_params * sizeof *h);
    if (!h) return WB_FAIL;
    wb_rng rng;
    wb_rng_seed(&rng, seed);
    float resid_std = 0.02f / sqrtf(2.0f * (float)m->cfg.n_layer);
    int64_t C = m->cfg.n_embd;
    for (int i = 0; i < m->n_tensors; i++) {
        wb_tensor *t = m->tensors[i];
        float *p = h + m->packed_off[i];
        int64_t n = wb_numel(t);
        const char *nm = t->name;
        if (!strcmp(nm, "wte")) {
            wb_fill_normal(p, (size_t)(m->cfg.vocab * C), &rng, 0.02f);
            memset(p + m->cfg.vocab * C, 0, (size_t)((m->cfg.vocab_padded - m->cfg.vocab) * C) * sizeof *p);
        } else if (t->ndim == 2) {
            int resid = !strcmp(nm, "proj_w") || !strcmp(nm, "fcproj_w");
            wb_fill_normal(p, (size_t)n, &rng, resid ? resid_std : 0.02f);
        } else if (!strcmp(nm, "ln1_w") || !strcmp(nm, "ln2_w") || !strcmp(nm, "lnf_w")) {
            for (int64_t j = 0; j < n; j++) p[j] = 1.0f;
        } else {
            memset(p, 0, (size_t)n * sizeof *p);
        }
    }
    int rc = gpt2_set_params(m, h);
    free(h);
    return rc;
}

double gpt2_flops_per_token(const gpt2 *m, int T) {
    return 6.0 * (double)m->n_params + 6.0 * m->cfg.n_layer * (double)m->cfg.n_embd * T;
}

/* ---------------------------------------------------------------------------------------------
 * forward
 * ------------------------------------------------------------------------------------------ */
/* The two ways to spell the same layer: fused primitives, or the small ones the Rust
 * experiment used (more kernels, more saved activations, same gradients). */
static wb_tensor *layernorm(wb_ctx *ctx, const gpt2 *m, wb_tensor *x, wb_tensor *w, wb_tensor *b, wb_tensor *eps) {
    if (m->cfg.ops == GPT2_OPS_FUSED) return wb_layernorm(ctx, x, w, b, 1e-5);
    wb_tensor *mu = wb_mean(ctx, x, -1);                               /* (B, T, 1) */
    wb_tensor *xc = wb_sub(ctx, x, mu);                                /* (B, T, C) */
    wb_tensor *var = wb_mean(ctx, wb_square(ctx, xc), -1);             /* (B, T, 1) */
    wb_tensor *sd = wb_sqrt(ctx, wb_add(ctx, var, eps));
    return wb_add(ctx, wb_mul(ctx, wb_div(ctx, xc, sd), w), b);
}

static wb_tensor *linear(wb_ctx *ctx, const gpt2 *m, wb_tensor *x, wb_tensor *w, wb_tensor *b) {
    if (m->cfg.ops == GPT2_OPS_FUSED) return wb_linear(ctx, x, w, b);
    return wb_add(ctx, wb_mm(ctx, x, wb_transpose(ctx, w, 0, 1)), b);
}

/* x + dropout(linear(h)): the residual stream's add. Fused, and without dropout, the add happens
 * in the projection GEMM's epilogue (wb_linear_residual: no add kernel); either way its pullback
 * hands x's gradient on by aliasing, so the stream's gradient is one buffer through all layers. */
static wb_tensor *residual(wb_ctx *ctx, const gpt2 *m, wb_tensor *x, wb_tensor *h, wb_tensor *w, wb_tensor *b) {
    if (m->cfg.ops == GPT2_OPS_FUSED && (m->cfg.dropout == 0.0f || !ctx->training))
        return wb_linear_residual(ctx, h, w, b, x);
    return wb_add(ctx, x, wb_dropout(ctx, linear(ctx, m, h, w, b), m->cfg.dropout));
}

/* (B, T, C) view of q, k or v -> (B*nh, T, hs): a view until the last reshape, which copies */
static wb_tensor *heads(wb_ctx *ctx, wb_tensor *x, int64_t B, int64_t T, int64_t nh, int64_t hs) {
    int64_t s4[4] = {B, T, nh, hs}, s3[3] = {B * nh, T, hs};
    int perm[4] = {0, 2, 1, 3};
    return wb_reshape(ctx, wb_permute(ctx, wb_reshape(ctx, x, 4, s4), perm), 3, s3);
}

static wb_tensor *attention_bmm(wb_ctx *ctx, const gpt2 *m, wb_tensor **part, int64_t B, int64_t T, int64_t nh,
                                int64_t hs, double scale);

static wb_tensor *attention(wb_ctx *ctx, const gpt2 *m, const gpt2_layer *L, wb_tensor *x, wb_tensor *eps,
                            int64_t B, int64_t T) {
    int64_t C = m->cfg.n_embd, nh = m->cfg.n_head, hs = C / nh;
    float p = m->cfg.dropout;
    wb_tensor *h = layernorm(ctx, m, x, (wb_tensor *)&L->ln1_w, (wb_tensor *)&L->ln1_b, eps);
    wb_tensor *qkv = linear(ctx, m, h, (wb_tensor *)&L->qkv_w, (wb_tensor *)&L->qkv_b); /* (B, T, 3C) */
    wb_tensor *part[3];
    int64_t sizes[3] = {C, C, C};
    if (wb_split(ctx, qkv, 2, 3, sizes, part) != WB_OK) return NULL;
    double scale = 1.0 / sqrt((double)hs);
    int64_t s3[3] = {B, T, C};
    int perm[4] = {0, 2, 1, 3};
    wb_tensor *y;
    if (m->cfg.flash && m->cfg.ops == GPT2_OPS_FUSED && (p == 0.0f || !ctx->training)) {
        int64_t t4[4] = {B, T, nh, hs};
        /* (B, nh, T, hs) views straight into qkv: no copies */
        wb_tensor *q = wb_permute(ctx, wb_reshape(ctx, part[0], 4, t4), perm);
        wb_tensor *k = wb_permute(ctx, wb_reshape(ctx, part[1], 4, t4), perm);
        wb_tensor *v = wb_permute(ctx, wb_reshape(ctx, part[2], 4, t4), perm);
        y = wb_attention(ctx, q, k, v, scale);                               /* (B, nh, T, hs) view */
        y = wb_reshape(ctx, wb_permute(ctx, y, perm), 3, s3);                /* a view: no copy */
    } else {
        y = attention_bmm(ctx, m, part, B, T, nh, hs, scale);
    }
    return residual(ctx, m, x, y, (wb_tensor *)&L->proj_w, (wb_tensor *)&L->proj_b);
}

/* q K^T, softmax, A V as batched GEMMs over (B*nh, T, T) scores: q, k, v are copied into
 * (B*nh, T, hs), and the result copied back to (B, T, C) */
static wb_tensor *attention_bmm(wb_ctx *ctx, const gpt2 *m, wb_tensor **part, int64_t B, int64_t T, int64_t nh,
                                int64_t hs, double scale) {
    float p = m->cfg.dropout;
    wb_tensor *q = heads(ctx, part[0], B, T, nh, hs), *k = heads(ctx, part[1], B, T, nh, hs),
              *v = heads(ctx, part[2], B, T, nh, hs);                       /* (B*nh, T, hs) */
    wb_tensor *att = wb_bmm(ctx, q, wb_transpose(ctx, k, 1, 2));            /* (B*nh, T, T) */
    if (m->cfg.ops == GPT2_OPS_FUSED) {
        att = wb_softmax_causal(ctx, att, scale);
    } else {
        att = wb_softmax(ctx, wb_causal_mask(ctx, wb_scale(ctx, att, scale)));
    }
    att = wb_dropout(ctx, att, p);
    wb_tensor *y = wb_bmm(ctx, att, v);                                     /* (B*nh, T, hs) */
    int64_t s4[4] = {B, nh, T, hs}, s3[3] = {B, T, nh * hs};
    int perm[4] = {0, 2, 1, 3};
    return wb_reshape(ctx, wb_permute(ctx, wb_reshape(ctx, y, 4, s4), perm), 3, s3); /* copy */
}

static wb_tensor *mlp(wb_ctx *ctx, const gpt2 *m, const gpt2_layer *L, wb_tensor *x, wb_tensor *eps) {
    wb_tensor *h = layernorm(ctx, m, x, (wb_tensor *)&L->ln2_w, (wb_tensor *)&L->ln2_b, eps);
    if (m->cfg.ops == GPT2_OPS_FUSED) /* GELU in the fc GEMM's epilogue */
        h = wb_linear_gelu(ctx, h, (wb_tensor *)&L->fc_w, (wb_tensor *)&L->fc_b); /* (B, T, 4C) */
    else
        h = wb_gelu(ctx, linear(ctx, m, h, (wb_tensor *)&L->fc_w, (wb_tensor *)&L->fc_b));
    return residual(ctx, m, x, h, (wb_tensor *)&L->fcproj_w, (wb_tensor *)&L->fcproj_b); /* (B, T, C) */
}

int gpt2_forward(gpt2 *m, wb_ctx *ctx, wb_tensor *tokens, wb_tensor *targets, wb_tensor **logits_out,
                 wb_tensor **loss_out) {
    const gpt2_config *c = &m->cfg;
    if (tokens->ndim != 2 || tokens->shape[1] > c->max_seq) {
        fprintf(stderr, "gpt2_forward: tokens must be (B, T) with T <= %d\n", c->max_seq);
        return WB_FAIL;
    }
    int64_t B = tokens->shape[0], T = tokens->shape[1];
    if (ctx->nvtx) nvtxRangePushA("forward"); /* not on the tape: backward has its own range */
    wb_tensor *eps = NULL;
    if (c->ops == GPT2_OPS_PRIMITIVE) {
        eps = wb_new(ctx, m->dtype, 0, NULL, 0);
        if (eps && m->be->fill(m->be, eps, 1e-5) != WB_OK) eps = NULL;
    }
    wb_tensor *x = wb_embedding(ctx, &m->wte, tokens); /* (B, T, C) */
    wb_tensor *pos[2];
    int64_t psz[2] = {T, c->max_seq - T};
    int np = T < c->max_seq ? 2 : 1;
    if (wb_split(ctx, &m->wpe, 0, np, psz, pos) == WB_OK) x = wb_add(ctx, x, pos[0]); /* + (T, C) */
    x = wb_dropout(ctx, x, c->dropout);
    for (int l = 0; l < c->n_layer; l++) {
        wb_range_push(ctx, "layer", "layer_bwd");
        wb_range_push(ctx, "attn", "attn_bwd");
        x = attention(ctx, m, &m->layers[l], x, eps, B, T);
        wb_range_pop(ctx);
        wb_range_push(ctx, "mlp", "mlp_bwd");
        x = mlp(ctx, m, &m->layers[l], x, eps);
        wb_range_pop(ctx);
        wb_range_pop(ctx);
    }
    x = layernorm(ctx, m, x, &m->lnf_w, &m->lnf_b, eps);
    wb_tensor *logits = c->ops == GPT2_OPS_FUSED ? wb_linear(ctx, x, &m->wte, NULL)
                                                 : wb_mm(ctx, x, wb_transpose(ctx, &m->wte, 0, 1)); /* (B, T, Vp) */
    wb_tensor *loss = targets ? wb_cross_entropy(ctx, logits, targets, c->vocab) : NULL;
    if (ctx->nvtx) nvtxRangePop();
    if (ctx->status != WB_OK || !logits || (targets && !loss)) return WB_FAIL;
    if (logits_out) *logits_out = logits;
    if (loss_out) *loss_out = loss;
    return WB_OK;
}

/* ---------------------------------------------------------------------------------------------
 * checkpoints
 * ------------------------------------------------------------------------------------------ */
#define CK_MAGIC "WBGPT2CK"
#define CK_VERSION 1

typedef struct { /* every field 8 bytes: no padding, same layout everywhere */
    char magic[8];
    int64_t version, n_layer, n_head, n_embd, max_seq, vocab, vocab_padded, step, n_params, has_opt;
} ck_header;

int gpt2_save(gpt2 *m, const char *path, int64_t step, const float *params, const gpt2_opt_state *opt) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        perror(tmp);
        return WB_FAIL;
    }
    ck_header h = {CK_MAGIC, CK_VERSION, m->cfg.n_layer, m->cfg.n_head, m->cfg.n_embd, m->cfg.max_seq,
                   m->cfg.vocab, m->cfg.vocab_padded, step, m->n_params, opt && opt->m && opt->v};
    size_t n = (size_t)m->n_params;
    int ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(params, 4, n, f) == n;
    if (ok && h.has_opt) ok = fwrite(opt->m, 4, n, f) == n && fwrite(opt->v, 4, n, f) == n;
    ok = (fclose(f) == 0) && ok;
    if (ok && rename(tmp, path) != 0) ok = 0; /* a crash mid-write never leaves a torn checkpoint */
    if (!ok) fprintf(stderr, "%s: cannot write checkpoint\n", path);
    return ok ? WB_OK : WB_FAIL;
}

static int read_header(FILE *f, const char *path, ck_header *h) {
    if (fread(h, sizeof *h, 1, f) != 1 || memcmp(h->magic, CK_MAGIC, 8)) {
        fprintf(stderr, "%s: not a checkpoint (magic %s expected)\n", path, CK_MAGIC);
        return WB_FAIL;
    }
    if (h->version != CK_VERSION) {
        fprintf(stderr, "%s: checkpoint version %lld, this program reads %d\n", path, (long long)h->version, CK_VERSION);
        return WB_FAIL;
    }
    return WB_OK;
}

int gpt2_peek(const char *path, gpt2_config *cfg, int64_t *step, int64_t *n_params) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return WB_FAIL;
    }
    ck_header h;
    int rc = read_header(f, path, &h);
    fclose(f);
    if (rc != WB_OK) return rc;
    cfg->n_layer = (int)h.n_layer;
    cfg->n_head = (int)h.n_head;
    cfg->n_embd = (int)h.n_embd;
    cfg->max_seq = (int)h.max_seq;
    cfg->vocab = (int)h.vocab;
    cfg->vocab_padded = (int)h.vocab_padded;
    *step = h.step;
    *n_params = h.n_params;
    return WB_OK;
}

int gpt2_load(const char *path, float *params, float *opt_m, float *opt_v, int *has_opt) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return WB_FAIL;
    }
    ck_header h;
    if (read_header(f, path, &h) != WB_OK) {
        fclose(f);
        return WB_FAIL;
    }
    size_t n = (size_t)h.n_params;
    int ok = fread(params, 4, n, f) == n;
    *has_opt = (int)h.has_opt;
    if (ok && h.has_opt && opt_m && opt_v) ok = fread(opt_m, 4, n, f) == n && fread(opt_v, 4, n, f) == n;
    fclose(f);
    if (!ok) fprintf(stderr, "%s: truncated checkpoint\n", path);
    return ok ? WB_OK : WB_FAIL;
}
