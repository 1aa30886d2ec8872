"""Lesson 02 in PyTorch: y = nn.Linear(in_dim, out_dim)(x), the layer main.cu rebuilds.

x is (batch, in_dim), the layer's weight (out_dim, in_dim) and bias (out_dim), bf16, as in
main.cu. A step is the module call inside an NVTX range `linear` (the C program's name for the
layer's forward), eager or through torch.compile (--compile), then torch.cuda.synchronize();
common/wb_steps.py times it, with one NVTX range per ATen operator in the measured steps.

    python3 lessons/02_linear/torch/linear.py [--batch B] [--in_dim K] [--out_dim N] [--compile]

Exit status: 0 when y matches a float64 CPU reference, 1 when it does not, 2 on bad usage.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "common"))
import wb_steps  # noqa: E402
import torch  # noqa: E402
import torch.cuda.nvtx as nvtx  # noqa: E402


def main():
    p = wb_steps.parser(__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--in_dim", type=int, default=32)
    p.add_argument("--out_dim", type=int, default=64)
    args = p.parse_args()
    torch.manual_seed(args.seed)
    layer = torch.nn.Linear(args.in_dim, args.out_dim, bias=True, device="cuda", dtype=torch.bfloat16)
    x = torch.randn(args.batch, args.in_dim, device="cuda", dtype=torch.bfloat16)  # (batch, in_dim)
    step = wb_steps.maybe_compile(layer, args.compile)
    out = {}

    def forward():
        nvtx.range_push("linear")
        out["y"] = step(x)
        nvtx.range_pop()

    with torch.no_grad():
        timed = wb_steps.measure(forward, args.warmup, args.steps)
        rows = slice(0, min(args.batch, 64))
        want = x[rows].double().cpu() @ layer.weight.double().cpu().t() + layer.bias.double().cpu()
        ok = wb_steps.check_close("y", out["y"][rows], want, 2e-2)
    variant = "torch-linear-compiled" if args.compile else "torch-linear"
    wb_steps.report("02_linear", variant, timed, "m=%d k=%d n=%d steps=%d" % (args.batch, args.in_dim, args.out_dim, args.steps))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
