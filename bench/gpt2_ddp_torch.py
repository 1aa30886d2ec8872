#!/usr/bin/env python3
"""gpt2_ddp_torch.py: the PyTorch reference for lesson 06's benchmark: GPT-2 training throughput
with DistributedDataParallel, one process per GPU, started by torchrun:

    NCCL_NVLS_ENABLE=0 torchrun --standalone --nproc_per_node N bench/gpt2_ddp_torch.py --modes eager,compile

The model, optimizer and step are bench/gpt2_torch.py's (lesson 04's reference); each rank trains
on its own random tokens at --batch sequences per GPU; DDP all-reduces the gradients in its
default 25 MiB buckets during backward. compile: torch.compile of the DDP-wrapped model (the
DDP optimizer splits the graph at bucket boundaries so the all-reduces still overlap). Rank 0
prints one line per mode, tokens counted over every rank:

    RESULT pytorch-ddp-eager gpus=2 tokens_per_s=700000 ms_per_step=46.8
"""
import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpt2_torch import GPT  # noqa: E402  (lesson 04's reference model)


def bench(model, params, opt, B, T, V, warmup, steps, world, label):
    g = torch.Generator(device="cuda").manual_seed(dist.get_rank())
    x = torch.randint(0, V, (B, T), device="cuda", generator=g)
    y = torch.randint(0, V, (B, T), device="cuda", generator=g)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
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
    # every rank's median; the slowest rank sets the pace
    med = torch.tensor(sorted(times)[len(times) // 2], device="cuda")
    dist.all_reduce(med, op=dist.ReduceOp.MAX)
    med = float(med)
    if dist.get_rank() == 0:
        print(f"RESULT {label} gpus={world} tokens_per_s={world * B * T / med:.0f} ms_per_step={med * 1e3:.1f} "
              f"loss={float(loss):.3f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--width", type=int, default=768)
    ap.add_argument("--context", type=int, default=1024)
    ap.add_argument("--vocab", type=int, default=50304)
    ap.add_argument("--batch", type=int, default=16, help="sequences per GPU")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--modes", default="eager,compile")
    a = ap.parse_args()
    if os.environ.get("NCCL_NVLS_ENABLE") != "0":
        sys.exit("gpt2_ddp_torch.py: run with NCCL_NVLS_ENABLE=0 (NVLink multicast must stay off on the GPU machine)")
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    if rank == 0:
        print(f"torch {torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}, {world} x "
              f"{torch.cuda.get_device_name()}", flush=True)
    for mode in a.modes.split(","):
        torch.manual_seed(0)
        model = GPT(a.layers, a.heads, a.width, a.context, a.vocab).cuda()
        decay = [p for p in model.parameters() if p.dim() >= 2]
        no_decay = [p for p in model.parameters() if p.dim() < 2]
        opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                                lr=6e-4, betas=(0.9, 0.95), eps=1e-8, fused=True)
        ddp = DDP(model, device_ids=[torch.cuda.current_device()])
        m = torch.compile(ddp) if mode == "compile" else ddp
        bench(m, list(model.parameters()), opt, a.batch, a.context, a.vocab,
              a.warmup if mode == "eager" else a.warmup + 3, a.steps, world, f"pytorch-ddp-{mode}")
        del model, ddp, m, opt
        torch.cuda.empty_cache()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
