#!/usr/bin/env python3
"""gpt2_torch.py: the PyTorch reference for lesson 04's benchmark: GPT-2 training throughput,
eager and torch.compile, in one process on the same GPU.

The model is GPT-2 as nanoGPT and llm.c's train_gpt2.py write it (tied embeddings, vocabulary
padded to 50304, fp32 weights with bf16 autocast, flash attention through
scaled_dot_product_attention, fused AdamW, global-norm clipping). Random tokens: throughput does
not depend on the text. Prints one line per mode:

    RESULT pytorch-eager tokens_per_s=352000 ms_per_step=46.5
    RESULT pytorch-compile tokens_per_s=501000 ms_per_step=32.7
"""
import argparse
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(s, C, H):
        super().__init__()
        s.H = H
        s.ln1, s.ln2 = nn.LayerNorm(C), nn.LayerNorm(C)
        s.qkv, s.proj = nn.Linear(C, 3 * C), nn.Linear(C, C)
        s.fc, s.fcproj = nn.Linear(C, 4 * C), nn.Linear(4 * C, C)

    def forward(s, x):
        B, T, C = x.shape
        q, k, v = s.qkv(s.ln1(x)).split(C, dim=2)
        q, k, v = [t.view(B, T, s.H, C // s.H).transpose(1, 2) for t in (q, k, v)]
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + s.proj(y.transpose(1, 2).reshape(B, T, C))
        return x + s.fcproj(F.gelu(s.fc(s.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(s, L, H, C, T, V):
        super().__init__()
        s.wte, s.wpe = nn.Embedding(V, C), nn.Embedding(T, C)
        s.blocks = nn.ModuleList(Block(C, H) for _ in range(L))
        s.lnf = nn.LayerNorm(C)
        for n, p in s.named_parameters():
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * L) if n.endswith(("proj.weight",)) else 0.02
                nn.init.normal_(p, 0.0, std)
            elif n.endswith("bias"):
                nn.init.zeros_(p)

    def forward(s, idx, targets):
        B, T = idx.shape
        x = s.wte(idx) + s.wpe(torch.arange(T, device=idx.device))
        for b in s.blocks:
            x = b(x)
        logits = s.lnf(x) @ s.wte.weight.t()
        return F.cross_entropy(logits.float().view(-1, logits.size(-1)), targets.view(-1))


def bench(model, opt, B, T, V, warmup, steps, label):
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randint(0, V, (B, T), device="cuda", generator=g)
    y = torch.randint(0, V, (B, T), device="cuda", generator=g)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        loss = step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    times.sort()
    med = times[len(times) // 2]
    print(f"RESULT {label} tokens_per_s={B * T / med:.0f} ms_per_step={med * 1e3:.1f} loss={float(loss):.3f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--width", type=int, default=768)
    ap.add_argument("--context", type=int, default=1024)
    ap.add_argument("--vocab", type=int, default=50304)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--modes", default="eager,compile")
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}", flush=True)
    for mode in a.modes.split(","):
        torch.manual_seed(0)
        model = GPT(a.layers, a.heads, a.width, a.context, a.vocab).cuda()
        decay = [p for p in model.parameters() if p.dim() >= 2]
        no_decay = [p for p in model.parameters() if p.dim() < 2]
        opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                                lr=6e-4, betas=(0.9, 0.95), eps=1e-8, fused=True)
        m = torch.compile(model) if mode == "compile" else model
        bench(m, opt, a.batch, a.context, a.vocab, a.warmup if mode == "eager" else a.warmup + 3, a.steps,
              f"pytorch-{mode}")
        del model, m, opt
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
