#!/usr/bin/env python3
"""flash_attn_torch.py: PyTorch's scaled_dot_product_attention at the shape bench_flash_attn times
(B=16, H=12, T=1024, head size 64, causal, bf16; q, k, v strided views of one (B, T, 3, H, 64)
buffer, as in GPT-2), once per SDPA backend (flash = FlashAttention-2, cuDNN, memory-efficient).
CUDA-event means over --iters calls after 3 warm-up calls; TFLOP/s with the same causal count as
bench_flash_attn (forward 4 B H T^2 D / 2, backward 2.5 times that)."""
import argparse

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def time_us(fn, iters):
    for _ in range(3):
        fn()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(iters):
        fn()
    e1.record()
    torch.cuda.synchronize()
    return 1000.0 * e0.elapsed_time(e1) / iters


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", type=int, nargs=3, default=[16, 12, 1024], metavar=("B", "H", "T"))
    ap.add_argument("--iters", type=int, default=20)
    args = ap.parse_args()
    B, H, T = args.shape
    D = 64
    torch.manual_seed(0)
    qkv = (torch.rand(B, T, 3, H, D, device="cuda") * 4 - 2).to(torch.bfloat16)
    q, k, v = (qkv[:, :, i].transpose(1, 2).detach().requires_grad_() for i in range(3))
    g = (torch.rand(B, H, T, D, device="cuda") * 2 - 1).to(torch.bfloat16)
    fwd_flop = 4.0 * B * H * T * T * D / 2
    bwd_flop = 2.5 * fwd_flop
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}: SDPA B={B} H={H} T={T} D={D} causal bf16")
    for name, backend in [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
                          ("efficient", SDPBackend.EFFICIENT_ATTENTION)]:
        try:
            with sdpa_kernel(backend):
                fwd = time_us(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True), args.iters)
                out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                bwd = time_us(lambda: torch.autograd.grad(out, (q, k, v), g, retain_graph=True), args.iters)
        except RuntimeError as e:
            print(f"RESULT torch-{name}: not available ({str(e).splitlines()[0]})")
            continue
        print(f"RESULT torch-{name} fwd {fwd:8.1f} us {fwd_flop / fwd / 1e6:6.1f} TFLOP/s (x12: {12 * fwd:6.0f} us)"
              f"   bwd {bwd:8.1f} us {bwd_flop / bwd / 1e6:6.1f} TFLOP/s (x12: {12 * bwd:6.0f} us)")


if __name__ == "__main__":
    main()
