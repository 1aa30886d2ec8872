"""Probes of what PyTorch does beside lessons 04 and 05, captured on the GPU machine under the
grader's capture library (`tools/gpu-run pytorch` runs it with CUDA_INJECTION64_PATH and
NVTX_INJECTION64_PATH set as the grader sets them, then prints the facts with capture_facts.py).
They are for an instructor weighing a statement; a lesson states only what its answer key grades,
so a statement these support becomes a question of a recorded PyTorch variant, never a citation:

  pageable_nb / pinned_nb   x.to("cuda", non_blocking=True) from pageable and from pinned memory:
                            the copy's kind and memory, and whether the call returned before it ended
                            (lesson 05's mapping of non_blocking onto its pageable-async variant)
  residual_bwd              the backward of y = x + x @ w under emit_nvtx: what PyTorch's
                            AddBackward0 launches (lesson 04's residual gradient passed to both inputs)
  reshape_view / reshape_copy   torch.reshape of a contiguous tensor, and of a permuted one whose
                            batch and head dimensions the strides cannot merge: what each launches
                            (lesson 04's rule 1: such a reshape copies, as PyTorch's does)
  attn_math / attn_flash    causal scaled_dot_product_attention at B=4, 12 heads, T=1024, bf16,
                            through the math backend and through flash: the kernels, and the
                            extra memory each allocates beyond q, k, v and the output (printed:
                            the math path's (B*nh, T, T) probabilities are 100 MB), for lesson
                            04's "--attn bmm materialises them, as PyTorch's unfused path does"
"""
import torch
import torch.cuda.nvtx as nvtx
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

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
B, nh, T, hs = 4, 12, 1024, 64
heads = torch.randn(B, T, nh, hs, device="cuda", dtype=torch.bfloat16)
with torch.autograd.profiler.emit_nvtx():
    for name, make in (("reshape_view", lambda: heads.reshape(B * T, nh * hs)),
                       ("reshape_copy", lambda: heads.permute(0, 2, 1, 3).reshape(B * nh, T, hs))):
        torch.cuda.synchronize()
        nvtx.range_push(name)
        out = make()
        torch.cuda.synchronize()
        nvtx.range_pop()
        print("%s: shares the input's memory: %s" % (name, out.data_ptr() == heads.data_ptr()))
q, k, v = (torch.randn(B, nh, T, hs, device="cuda", dtype=torch.bfloat16) for _ in range(3))
probabilities_mb = B * nh * T * T * 2 / 1e6
for name, backend in (("attn_math", SDPBackend.MATH), ("attn_flash", SDPBackend.FLASH_ATTENTION)):
    with sdpa_kernel(backend):
        F.scaled_dot_product_attention(q, k, v, is_causal=True)  # warm-up, outside the measure
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        with torch.autograd.profiler.emit_nvtx():
            nvtx.range_push(name)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            torch.cuda.synchronize()
            nvtx.range_pop()
        extra = (torch.cuda.max_memory_allocated() - base - y.numel() * y.element_size()) / 1e6
        print("%s: %.1f MB allocated beyond the output (the probabilities would be %.1f MB)"
              % (name, extra, probabilities_mb))
torch.cuda.profiler.stop()
print("ok", dst.shape, x.grad.shape, torch.__version__)
