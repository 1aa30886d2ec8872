#!/usr/bin/env python3
"""make_fixture.py: the PyTorch reference for lesson 04's whole-model test.

Builds a small GPT-2 in PyTorch (float64, CPU, no internet needed), with deterministic weights in
the exact parameter-block order of lessons/04_gpt2_autodiff/model/gpt2.h, runs one batch, and
writes a binary fixture that tests/engine/test_model_fixture.c compares against:

    header   "WBGPT2FX", u32 version (1), then int32: n_layer n_head n_embd max_seq vocab
             vocab_padded B T n_params n_steps, then float32: lr beta1 beta2 eps weight_decay
             grad_clip
    float32  params[n_params]          block order (matrices first, then vectors)
    int32    tokens[B*T], targets[B*T]
    float32  logits[B*T*vocab_padded]
    float32  loss
    float32  grads[n_params]           d loss / d params, block order
    float32  losses[n_steps]           loss before each of n_steps AdamW updates on the same batch
                                       (AdamW: decay on matrices only, global-norm clipping)

Usage (on the GPU machine, where PyTorch is; the lead commits the output):

    python3 lessons/04_gpt2_autodiff/scripts/make_fixture.py --out $OUT/gpt2_tiny.bin
    cp $OUT/gpt2_tiny.bin lessons/04_gpt2_autodiff/fixtures/gpt2_tiny.bin

The configuration is small on purpose (about 30k parameters, under 300 KB) and uses a vocabulary
that is not a multiple of 64, so the padded logits and embedding rows are exercised.
"""
import argparse
import math
import struct

import torch
import torch.nn.functional as F

MAGIC = b"WBGPT2FX"
VERSION = 1


def param_specs(L, C, V, Vp, T):
    """(name, shape) in block order: the same order as model/gpt2.c's layout()."""
    specs = [("wte", (Vp, C)), ("wpe", (T, C))]
    for l in range(L):
        specs += [(f"h{l}.qkv_w", (3 * C, C)), (f"h{l}.proj_w", (C, C)),
                  (f"h{l}.fc_w", (4 * C, C)), (f"h{l}.fcproj_w", (C, 4 * C))]
    for l in range(L):
        specs += [(f"h{l}.ln1_w", (C,)), (f"h{l}.ln1_b", (C,)), (f"h{l}.qkv_b", (3 * C,)),
                  (f"h{l}.proj_b", (C,)), (f"h{l}.ln2_w", (C,)), (f"h{l}.ln2_b", (C,)),
                  (f"h{l}.fc_b", (4 * C,)), (f"h{l}.fcproj_b", (C,))]
    specs += [("lnf_w", (C,)), ("lnf_b", (C,))]
    return specs


def init_params(specs, L, V, gen):
    """GPT-2-like weights, with biases and layer-norm gains perturbed so that every gradient is
    exercised (a zero bias or a unit gain would hide some mistakes)."""
    p = {}
    for name, shape in specs:
        base = name.split(".")[-1]
        if base == "wte":
            t = torch.randn(shape, generator=gen, dtype=torch.float64) * 0.1
            t[V:] = 0.0  # padding rows stay zero
        elif len(shape) == 2:
            std = 0.1 / math.sqrt(2 * L) if base in ("proj_w", "fcproj_w") else 0.1
            t = torch.randn(shape, generator=gen, dtype=torch.float64) * std
        elif base.endswith("_w"):  # layer-norm gains
            t = 1.0 + 0.1 * torch.randn(shape, generator=gen, dtype=torch.float64)
        else:
            t = 0.05 * torch.randn(shape, generator=gen, dtype=torch.float64)
        p[name] = t.requires_grad_(True)
    return p


def forward(p, tokens, targets, L, H, V):
    B, T = tokens.shape
    C = p["wte"].shape[1]
    hs = C // H
    x = p["wte"][tokens] + p["wpe"][:T]
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    for l in range(L):
        g = lambda n: p[f"h{l}.{n}"]
        h = F.layer_norm(x, (C,), g("ln1_w"), g("ln1_b"), 1e-5)
        qkv = F.linear(h, g("qkv_w"), g("qkv_b"))
        q, k, v = qkv.split(C, dim=2)
        q, k, v = [t.view(B, T, H, hs).transpose(1, 2) for t in (q, k, v)]
        att = (q @ k.transpose(-2, -1)) / math.sqrt(hs)
        att = att.masked_fill(mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        x = x + F.linear(y, g("proj_w"), g("proj_b"))
        h = F.layer_norm(x, (C,), g("ln2_w"), g("ln2_b"), 1e-5)
        h = F.gelu(F.linear(h, g("fc_w"), g("fc_b")), approximate="tanh")
        x = x + F.linear(h, g("fcproj_w"), g("fcproj_b"))
    x = F.layer_norm(x, (C,), p["lnf_w"], p["lnf_b"], 1e-5)
    logits = x @ p["wte"].t()  # tied embeddings; (B, T, Vp)
    loss = F.cross_entropy(logits[..., :V].reshape(-1, V), targets.reshape(-1))
    return logits, loss


def flat(tensors):
    return torch.cat([t.detach().reshape(-1) for t in tensors]).to(torch.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="fixture file to write")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--context", type=int, default=16)
    ap.add_argument("--vocab", type=int, default=60)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--seq", type=int, default=12)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1234)
    a = ap.parse_args()

    L, H, C, T_max, V = a.layers, a.heads, a.width, a.context, a.vocab
    Vp = (V + 63) // 64 * 64
    B, T = a.batch, a.seq
    gen = torch.Generator().manual_seed(a.seed)
    specs = param_specs(L, C, V, Vp, T_max)
    p = init_params(specs, L, V, gen)
    names = [n for n, _ in specs]
    params0 = flat([p[n] for n in names])
    tokens = torch.randint(0, V, (B, T), generator=gen)
    targets = torch.randint(0, V, (B, T), generator=gen)

    logits, loss = forward(p, tokens, targets, L, H, V)
    loss.backward()
    grads = flat([p[n].grad for n in names])
    norm0 = float(torch.sqrt(sum((p[n].grad ** 2).sum() for n in names)))

    # AdamW on the same batch; clipping at 0.8 of the first norm, so that it acts at least once.
    lr, b1, b2, eps, wd = 1e-2, 0.9, 0.95, 1e-8, 0.1
    clip = 0.8 * norm0
    decay = [p[n] for n, s in specs if len(s) == 2]
    no_decay = [p[n] for n, s in specs if len(s) != 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": wd}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=lr, betas=(b1, b2), eps=eps)
    losses = []
    for _ in range(a.steps):
        opt.zero_grad(set_to_none=True)
        _, l = forward(p, tokens, targets, L, H, V)
        l.backward()
        torch.nn.utils.clip_grad_norm_([p[n] for n in names], clip)
        opt.step()
        losses.append(float(l))

    with open(a.out, "wb") as f:
        f.write(MAGIC)
        f.write(struct.pack("<I", VERSION))
        f.write(struct.pack("<10i", L, H, C, T_max, V, Vp, B, T, params0.numel(), a.steps))
        f.write(struct.pack("<6f", lr, b1, b2, eps, wd, clip))
        f.write(params0.numpy().astype("<f4").tobytes())
        f.write(tokens.to(torch.int32).reshape(-1).numpy().astype("<i4").tobytes())
        f.write(targets.to(torch.int32).reshape(-1).numpy().astype("<i4").tobytes())
        f.write(logits.detach().to(torch.float32).reshape(-1).numpy().astype("<f4").tobytes())
        f.write(struct.pack("<f", float(loss)))
        f.write(grads.numpy().astype("<f4").tobytes())
        f.write(struct.pack(f"<{a.steps}f", *losses))
    print(f"wrote {a.out}: {params0.numel()} parameters, loss {float(loss):.6f}, grad norm {norm0:.6f}, "
          f"clip {clip:.6f}, losses after AdamW {losses[0]:.6f} -> {losses[-1]:.6f} (torch {torch.__version__})")


if __name__ == "__main__":
    main()
