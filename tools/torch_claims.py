"""Two statements lesson READMEs make about PyTorch, captured on the GPU machine under the grader's
capture library (`tools/gpu-run pytorch` runs it with CUDA_INJECTION64_PATH and
NVTX_INJECTION64_PATH set as the grader sets them, then prints the facts with capture_facts.py):

  pageable_nb / pinned_nb   x.to("cuda", non_blocking=True) from pageable and from pinned memory:
                            the copy's kind and memory, and whether the call returned before it ended
                            (lesson 05's mapping of non_blocking onto its pageable-async variant)
  residual_bwd              the backward of y = x + x @ w under emit_nvtx: what PyTorch's
                            AddBackward0 launches (lesson 04's residual gradient passed to both inputs)
"""
import torch
import torch.cuda.nvtx as nvtx

n = 64 << 20  # 64 Mi floats: 256 MiB, long enough to see the host wait
pageable = torch.randn(n)
pinned = torch.randn(n).pin_memory()
torch.cuda.synchronize()
torch.cuda.profiler.start()
for name, src in (("pageable_nb", pageable), ("pinned_nb", pinned)):
    nvtx.range_push(name)
    nvtx.range_push("call")
    dst = src.to("cuda", non_blocking=True)
    nvtx.range_pop()
    torch.cuda.synchronize()
    nvtx.range_pop()
x = torch.randn(256, 256, device="cuda", requires_grad=True)
w = torch.randn(256, 256, device="cuda", requires_grad=True)
with torch.autograd.profiler.emit_nvtx():
    nvtx.range_push("residual_bwd")
    y = x + x @ w
    y.sum().backward()
    torch.cuda.synchronize()
    nvtx.range_pop()
torch.cuda.profiler.stop()
print("ok", dst.shape, x.grad.shape)
