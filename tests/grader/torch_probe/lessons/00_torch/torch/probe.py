"""The torch probe's program: three steps of y = x @ w.t() in bf16, each in an NVTX range `step`
(torch.cuda.nvtx), with PyTorch's per-operator ranges on (emit_nvtx), between
cudaProfilerStart and cudaProfilerStop. By construction a step holds aten::t (a view: nothing on
the GPU) and aten::mm (one cuBLAS GEMM kernel)."""
import argparse
import sys

import torch

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=3)
steps = p.parse_args().steps
x = torch.randn(256, 128, device="cuda", dtype=torch.bfloat16)
w = torch.randn(64, 128, device="cuda", dtype=torch.bfloat16)
y = torch.mm(x, w.t())  # warm-up: cuBLAS's handle and heuristics, outside the window
torch.cuda.synchronize()
torch.cuda.profiler.start()
with torch.autograd.profiler.emit_nvtx():
    for _ in range(steps):
        torch.cuda.nvtx.range_push("step")
        y = torch.mm(x, w.t())
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
torch.cuda.profiler.stop()
err = (y.double() - x.double() @ w.double().t()).abs().max().item()
print("max error %.3g" % err)
sys.exit(0 if err < 0.5 else 1)
