"""Lesson 01 in PyTorch: y = torch.add(torch.matmul(x, w), b), the series' first trace.

x and w are (n, n), b is (n), bf16, as in main.cu. A step is the one line below, eager or through
torch.compile (--compile), then torch.cuda.synchronize(); common/wb_steps.py times it, with one
NVTX range per ATen operator in the measured steps.

    python3 lessons/01_matmul_add/torch/matmul_add.py [--size N] [--compile] [--steps S] [--warmup W]

Exit status: 0 when y matches a float64 CPU reference, 1 when it does not, 2 on bad usage.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "common"))
import wb_steps  # noqa: E402  (sets torch.compile's in-process compilation before torch loads)
import torch  # noqa: E402


def matmul_add(x, w, b):
    return torch.add(torch.matmul(x, w), b)


def main():
    p = wb_steps.parser(__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=64, help="n: x and w are (n, n) (default 64)")
    args = p.parse_args()
    n = args.size
    torch.manual_seed(args.seed)
    x = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)  # (n, n)
    w = torch.randn(n, n, device="cuda", dtype=torch.bfloat16) / n ** 0.5  # (n, n)
    b = torch.randn(n, device="cuda", dtype=torch.bfloat16)  # (n)
    step = wb_steps.maybe_compile(matmul_add, args.compile)
    out = {}

    def forward():
        out["y"] = step(x, w, b)

    timed = wb_steps.measure(forward, args.warmup, args.steps)
    rows = slice(0, min(n, 64))  # sampled rows: the reference is float64 on the CPU
    want = x[rows].double().cpu() @ w.double().cpu() + b.double().cpu()
    ok = wb_steps.check_close("y", out["y"][rows], want, 2e-2)
    variant = "torch-compiled" if args.compile else "torch-eager"
    wb_steps.report("01_matmul_add", variant, timed, "size=%d steps=%d" % (n, args.steps))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
