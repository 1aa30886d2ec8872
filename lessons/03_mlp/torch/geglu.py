"""Lesson 03 in PyTorch: the series' GeGLU MLP, y = down_proj(gelu(gate_proj(x), tanh) * up_proj(x)).

Three nn.Linear layers without bias, x (batch, seq, dim), bf16, as in main.cu. A step is the block
inside an NVTX range `mlp_fwd` (main.cu's name), then torch.cuda.synchronize(); common/wb_steps.py
times it, with one NVTX range per ATen operator in the measured steps.

    python3 lessons/03_mlp/torch/geglu.py [--impl eager|compiled|triton] [--batch B] [--seq S]
                                         [--dim D] [--hidden H] [--second-batch B2]

  eager     PyTorch as written: three GEMMs, F.gelu, the multiply
  compiled  the same module through torch.compile (default mode)
  triton    the three GEMMs eager, gelu * u by the hand-written Triton kernel of geglu_triton.py
            (the series' Liger layer), inside an NVTX range `gelu_mul` (main.cu's name)

--second-batch B2: after the measured steps, still in the profiled window, one forward at batch
B2 inside an NVTX range `second_shape` (and its synchronize): what a new shape costs the compiled
module (its kernels were made for one shape) and the hand-written kernel (made for any).

Exit status: 0 when y matches a float64 CPU reference, 1 when it does not, 2 on bad usage.
"""
import os
import pathlib
import sys

# Every run compiles from scratch, as a learner's first run does: with Inductor's on-disk caches a
# later run loads what an earlier one compiled, and what a new shape costs depends on which run it
# is (H200, 2026-12-02: the first run's recompile loaded 2 modules and ran its Triton kernel 213
# times to benchmark it, 13.7 ms of GPU work; the two runs after it did 0.1 ms).
os.environ.setdefault("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "common"))
import wb_steps  # noqa: E402
import torch  # noqa: E402
import torch.cuda.nvtx as nvtx  # noqa: E402
import torch.nn.functional as F  # noqa: E402


class GeGLU(torch.nn.Module):
    def __init__(self, dim, hidden, gelu_mul=None):
        super().__init__()
        self.gate_proj = torch.nn.Linear(dim, hidden, bias=False)  # weight (hidden, dim)
        self.up_proj = torch.nn.Linear(dim, hidden, bias=False)  # weight (hidden, dim)
        self.down_proj = torch.nn.Linear(hidden, dim, bias=False)  # weight (dim, hidden)
        self.gelu_mul = gelu_mul  # None: PyTorch's own F.gelu and multiply

    def forward(self, x):  # x (batch, seq, dim)
        g, u = self.gate_proj(x), self.up_proj(x)  # (batch, seq, hidden)
        if self.gelu_mul is None:
            h = F.gelu(g, approximate="tanh") * u
        else:
            nvtx.range_push("gelu_mul")
            h = self.gelu_mul(g, u)
            nvtx.range_pop()
        return self.down_proj(h)  # (batch, seq, dim)


def reference(mlp, x):
    """float64 on the CPU, rows as given."""
    x = x.double().cpu()
    wg, wu, wd = (m.weight.double().cpu() for m in (mlp.gate_proj, mlp.up_proj, mlp.down_proj))
    g, u = x @ wg.t(), x @ wu.t()
    return (F.gelu(g, approximate="tanh") * u) @ wd.t()


def main():
    p = wb_steps.parser(__doc__.splitlines()[0])
    p.add_argument("--impl", choices=["eager", "compiled", "triton"], default="eager")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--seq", type=int, default=128)
    p.add_argument("--dim", type=int, default=768)
    p.add_argument("--hidden", type=int, default=3072)
    p.add_argument("--second-batch", type=int, default=0)
    args = p.parse_args()
    torch.manual_seed(args.seed)
    gelu_mul = None
    if args.impl == "triton":
        from geglu_triton import geglu_rows
        gelu_mul = geglu_rows
    mlp = GeGLU(args.dim, args.hidden, gelu_mul).to(device="cuda", dtype=torch.bfloat16)
    for m in (mlp.gate_proj, mlp.up_proj, mlp.down_proj):  # unit-scale outputs: gelu sees its whole shape
        torch.nn.init.normal_(m.weight, std=m.in_features ** -0.5)
    step = wb_steps.maybe_compile(mlp, args.impl == "compiled")
    x = torch.randn(args.batch, args.seq, args.dim, device="cuda", dtype=torch.bfloat16)
    out = {}

    def forward():
        nvtx.range_push("mlp_fwd")
        out["y"] = step(x)
        nvtx.range_pop()

    def second_shape():
        x2 = torch.randn(args.second_batch, args.seq, args.dim, device="cuda", dtype=torch.bfloat16)
        torch.cuda.synchronize()
        nvtx.range_push("second_shape")
        out["y2"] = step(x2)
        torch.cuda.synchronize()
        nvtx.range_pop()
        out["x2"] = x2

    with torch.no_grad():
        timed = wb_steps.measure(forward, args.warmup, args.steps, second_shape if args.second_batch else None)
        ok = wb_steps.check_close("y", out["y"][0, :16], reference(mlp, x[0, :16]), 3e-2)
        if args.second_batch:
            ok &= wb_steps.check_close("y at the second shape", out["y2"][0, :16], reference(mlp, out["x2"][0, :16]), 3e-2)
    wb_steps.report("03_mlp", "torch-" + args.impl, timed, "batch=%d seq=%d dim=%d hidden=%d steps=%d" % (
        args.batch, args.seq, args.dim, args.hidden, args.steps))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
