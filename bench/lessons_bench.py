#!/usr/bin/env python3
"""
lessons_bench.py: times lessons 01-03 and the PyTorch reference side by side, in one run, on one GPU.

Run it on the GPU machine through run_lessons_bench.sh (which sets LD_LIBRARY_PATH for a build
folder carried from the development machine). In one process it measures:

  1. the device copy bandwidth: torch, 512 MiB bf16 device-to-device, bytes read + written;
  2. gelu(g, tanh) * u at [8192, 3072] bf16: PyTorch eager (two kernels) and torch.compile (one
     Triton kernel), each launch after an L2 flush, like lesson 03's --kernel-bench;
  3. the GeGLU MLP forward [64x128, 768 -> 3072 -> 768] bf16, PyTorch eager and torch.compile:
     GPU time (CUDA events around the call) and wall time (host clock around the call and a
     synchronize), per call, the way the lesson programs time a step;
  4. every variant of the lesson programs (their RESULT lines), and lesson 03's --kernel-bench;

then prints one markdown report and writes it to $OUT/bench.md when OUT is set (or --out PATH).
Timings are reported, never asserted: the issue's targets are listed as met or missed, and the
exit status is 0 unless something failed to run (a lesson binary exiting non-zero, e.g. because
its CPU reference check failed, makes it 1).

Floors: a kernel's floor is the larger of its FLOP at the GPU's dense bf16 peak (--peak-tflops,
989.4 for an H200 SXM) and its bytes at the copy bandwidth measured here; a variant's floor is
the sum over its kernels.
"""
import argparse
import datetime
import os
import re
import shlex
import statistics
import subprocess
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as e:  # the benchmark is only useful where PyTorch is
    sys.exit(f"lessons_bench.py: PyTorch is required ({e})")

MIB = 1 << 20


# ---- timing helpers ------------------------------------------------------------------------------

def time_gpu_queued(fn, iters, flush=None):
    """Median GPU time (us) of fn(), every call bracketed by its own pair of CUDA events, all queued
    before one synchronize (so the GPU never waits for the host inside a pair). flush, when given,
    is a tensor zeroed before each call to evict L2."""
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for i in range(iters):
        if flush is not None:
            flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends))


def time_per_call(fn, iters):
    """Per call, like a lesson step: events around the call, then a synchronize; returns the median
    GPU time (events) and median wall time (host clock from before the call to after the
    synchronize), in us."""
    gpu, wall = [], []
    for _ in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        t0 = time.perf_counter()
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        wall.append((time.perf_counter() - t0) * 1e6)
        gpu.append(start.elapsed_time(end) * 1e3)
    return statistics.median(gpu), statistics.median(wall)


# ---- PyTorch reference ---------------------------------------------------------------------------

def copy_bandwidth(iters):
    """Device-to-device copy of 512 MiB of bf16; bytes read + written per second."""
    n = 512 * MIB // 2
    src = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    us = time_gpu_queued(lambda: dst.copy_(src), iters)
    return 2 * n * 2 / (us * 1e-6), us


def gelu_mul(g, u):
    return F.gelu(g, approximate="tanh") * u


class SimpleGeGLUMLP(nn.Module):
    """The series' MLP block: three bias-free Linears and gelu(tanh) * up."""

    def __init__(self, dim, hidden):
        super().__init__()
        self.gate_proj = nn.Linear(dim, hidden, bias=False)
        self.up_proj = nn.Linear(dim, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.down_proj(F.gelu(self.gate_proj(x), approximate="tanh") * self.up_proj(x))


def try_compile(fn, what, errors):
    try:
        return torch.compile(fn)
    except Exception as e:  # report and carry on with the rest of the benchmark
        errors.append(f"torch.compile of {what} failed: {e}")
        return None


def warm(fn, n):
    for _ in range(n):
        fn()
    torch.cuda.synchronize()


# ---- lesson programs -----------------------------------------------------------------------------

RESULT_RE = re.compile(r"^RESULT (.*)$", re.M)


def run_binary(path, args, errors, timeout):
    """Runs a lesson program; returns its RESULT lines as dicts (numbers converted)."""
    cmd = [path] + args
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        errors.append(f"{shlex.join(cmd)}: {e}")
        return []
    if p.returncode != 0:
        tail = (p.stdout + p.stderr).strip().splitlines()[-15:]
        errors.append(f"{shlex.join(cmd)} exited {p.returncode}:\n    " + "\n    ".join(tail))
        return []
    results = []
    for line in RESULT_RE.findall(p.stdout):
        d = {}
        for kv in line.split():
            k, _, v = kv.partition("=")
            try:
                d[k] = float(v)
            except ValueError:
                d[k] = v
        results.append(d)
    if not results:
        errors.append(f"{shlex.join(cmd)}: no RESULT line in its output")
    return results


# ---- report --------------------------------------------------------------------------------------

def fmt(x, digits=1):
    return "n/a" if x is None else f"{x:.{digits}f}"


def ratio(a, b, digits=2):
    return "n/a" if a is None or b is None or b == 0 else f"{a / b:.{digits}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="build/bin", help="folder of the lesson programs (default build/bin)")
    ap.add_argument("--steps", type=int, default=50, help="measured steps per lesson run (default 50)")
    ap.add_argument("--iters", type=int, default=100, help="timed calls per PyTorch measurement (default 100)")
    ap.add_argument("--peak-tflops", type=float, default=989.4,
                    help="dense bf16 tensor-core peak for the FLOP floor (default 989.4, H200 SXM)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds allowed per lesson run (default 300)")
    ap.add_argument("--out", default=None, help="markdown report path (default $OUT/bench.md when OUT is set)")
    args = ap.parse_args()

    if not torch.cuda.is_available():
        sys.exit("lessons_bench.py: no CUDA device visible to PyTorch")
    torch.manual_seed(0)
    errors = []
    props = torch.cuda.get_device_properties(0)
    print(f"GPU: {props.name}; PyTorch {torch.__version__}, CUDA {torch.version.cuda}", flush=True)

    # 1. copy bandwidth
    bw, copy_us = copy_bandwidth(args.iters // 2 or 1)
    print(f"copy bandwidth: {bw / 1e12:.3f} TB/s ({copy_us:.1f} us per 512 MiB copy)", flush=True)

    # 2. gelu(g) * u at [8192, 3072]
    rows, cols = 8192, 3072
    n = rows * cols
    pw_bytes = 6 * n  # read g and u, write h
    pw_floor = pw_bytes / bw * 1e6
    g = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
    u = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
    flush = torch.empty(256 * MIB, device="cuda", dtype=torch.int8)
    pw = {}
    warm(lambda: gelu_mul(g, u), 3)
    pw["PyTorch eager (gelu kernel + mul kernel)"] = time_gpu_queued(lambda: gelu_mul(g, u), args.iters, flush)
    gelu_mul_c = try_compile(gelu_mul, "gelu_mul", errors)
    if gelu_mul_c is not None:
        try:
            warm(lambda: gelu_mul_c(g, u), 5)
            pw["torch.compile (one Triton kernel)"] = time_gpu_queued(lambda: gelu_mul_c(g, u), args.iters, flush)
        except Exception as e:
            errors.append(f"torch.compile gelu_mul failed at run time: {e}")
    del g, u
    print("gelu*u:", {k: round(v, 1) for k, v in pw.items()}, flush=True)

    # 3. the GeGLU MLP forward
    batch, seq, dim, hidden = 64, 128, 768, 3072
    tokens = batch * seq
    mlp = SimpleGeGLUMLP(dim, hidden).to("cuda", torch.bfloat16).eval()
    x = torch.randn(batch, seq, dim, device="cuda", dtype=torch.bfloat16)
    mlp_ref = {}
    with torch.no_grad():
        warm(lambda: mlp(x), 5)
        mlp_ref["PyTorch eager"] = time_per_call(lambda: mlp(x), args.iters)
        mlp_c = try_compile(mlp, "the MLP", errors)
        if mlp_c is not None:
            try:
                warm(lambda: mlp_c(x), 5)
                mlp_ref["torch.compile"] = time_per_call(lambda: mlp_c(x), args.iters)
            except Exception as e:
                errors.append(f"torch.compile MLP failed at run time: {e}")
    del mlp, x
    torch.cuda.empty_cache()
    print("MLP:", {k: tuple(round(t, 1) for t in v) for k, v in mlp_ref.items()}, flush=True)

    # 4. the lesson programs
    def lesson(binary, lesson_args):
        path = os.path.join(args.bin, binary)
        if not os.access(path, os.X_OK):
            errors.append(f"{path}: not found or not executable; build first (cmake --build build)")
            return []
        return run_binary(path, lesson_args + ["--steps", str(args.steps), "--warmup", "10"], errors, args.timeout)

    mlp_shape = ["--batch", str(batch), "--seq", str(seq), "--dim", str(dim), "--hidden", str(hidden)]
    ours_mlp = {}
    for v in ["eager", "fused", "merged", "graph"]:
        r = lesson("lesson_03_mlp", ["--variant", v] + mlp_shape)
        if r:
            ours_mlp[v] = r[-1]
    kb_path = os.path.join(args.bin, "lesson_03_mlp")
    kernel_bench = []
    if os.access(kb_path, os.X_OK):
        kernel_bench = run_binary(kb_path, ["--kernel-bench", "--rows", str(rows), "--cols", str(cols),
                                            "--iters", str(args.iters)], errors, args.timeout)
    small = []
    for binary, runs in [
        ("lesson_01_matmul_add", [["--variant", v, "--size", s] for s in ["64", "4096"] for v in ["eager", "graph"]]),
        ("lesson_02_linear", [["--variant", v] + shape
                              for shape in [[], ["--batch", "8192", "--in_dim", "4096", "--out_dim", "4096"]]
                              for v in ["separate", "epilogue", "graph"]]),
    ]:
        for a in runs:
            for r in lesson(binary, a):
                small.append(r)
    print(f"lesson runs done ({len(ours_mlp)} MLP variants, {len(kernel_bench)} kernel timings, "
          f"{len(small)} lesson 01/02 runs)", flush=True)

    # ---- floors for the MLP variants
    peak = args.peak_tflops * 1e12

    def gemm_floor(m, k, nn_):
        return max(2.0 * m * k * nn_ / peak, 2.0 * (m * k + nn_ * k + m * nn_) / bw) * 1e6

    g_up = gemm_floor(tokens, dim, hidden)
    g_merged = gemm_floor(tokens, dim, 2 * hidden)
    g_down = gemm_floor(tokens, hidden, dim)
    floors = {
        "eager": 2 * g_up + (4 * tokens * hidden) / bw * 1e6 + pw_floor + g_down,
        "fused": 2 * g_up + pw_floor + g_down,
        "merged": g_merged + pw_floor + g_down,
        "graph": g_merged + pw_floor + g_down,
    }

    # ---- the report
    comp_pw = pw.get("torch.compile (one Triton kernel)")
    comp_gpu, comp_wall = mlp_ref.get("torch.compile", (None, None))
    L = []
    L.append("# gpu-workbench: lessons 01-03 against PyTorch, one run")
    L.append("")
    L.append(f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}")
    L.append(f"- GPU: {props.name} ({props.multi_processor_count} SMs); PyTorch {torch.__version__}, "
             f"CUDA {torch.version.cuda}")
    L.append(f"- device copy bandwidth (512 MiB bf16 d2d, read + write): **{bw / 1e12:.3f} TB/s**")
    L.append(f"- FLOP floor at {args.peak_tflops:.1f} TFLOP/s dense bf16; medians throughout; "
             f"lesson runs: --steps {args.steps} --warmup 10")
    L.append("")
    L.append(f"## gelu(g, tanh) * u, [{rows}, {cols}] bf16 (L2 flushed before each launch)")
    L.append("")
    L.append(f"Floor at the copy bandwidth (read g and u, write h: {pw_bytes / 1e6:.1f} MB): {pw_floor:.1f} us")
    L.append("")
    L.append("| implementation | GPU us | GB/s | % of copy bandwidth | time / torch.compile |")
    L.append("|---|---|---|---|---|")
    for name, us in pw.items():
        L.append(f"| {name} | {us:.1f} | {pw_bytes / us / 1e3:.0f} | {100 * pw_floor / us:.1f} | {ratio(us, comp_pw)} |")
    fused_us = None
    for r in kernel_bench:
        what, layout, us = r.get("bench"), r.get("layout"), r.get("gpu_us")
        if what == "gelu_mul" and layout == "separate":
            fused_us = us
        label = {"gelu_mul": f"lesson 03 gelu_mul_kernel ({layout} g, u)",
                 "gelu": "lesson 03 gelu_kernel (eager, alone)",
                 "mul": "lesson 03 mul_kernel (eager, alone)"}.get(what, f"lesson 03 {what} {layout}")
        if what == "gelu_mul":
            L.append(f"| {label} | {us:.1f} | {pw_bytes / us / 1e3:.0f} | {100 * pw_floor / us:.1f} | {ratio(us, comp_pw)} |")
        else:
            own = r.get("bytes", 0.0)  # its own bytes: gelu reads g and writes gelu(g); mul as gelu_mul
            L.append(f"| {label} | {us:.1f} | {own / us / 1e3:.0f} | {100 * own / bw / (us * 1e-6):.1f} | |")
    L.append("")
    L.append(f"## GeGLU MLP forward, [{batch}x{seq}, {dim} -> {hidden} -> {dim}] bf16")
    L.append("")
    L.append("GPU time: CUDA events around one forward; wall: host clock around the forward and a synchronize.")
    L.append("")
    L.append("| implementation | GPU us | wall us | floor us | GPU / floor | GPU / torch.compile | wall / torch.compile |")
    L.append("|---|---|---|---|---|---|---|")
    for name, (gpu, wall) in mlp_ref.items():
        fl = floors["eager"] if name == "PyTorch eager" else floors["fused"]
        L.append(f"| {name} | {gpu:.1f} | {wall:.1f} | {fl:.1f} | {ratio(gpu, fl)} | {ratio(gpu, comp_gpu)} | "
                 f"{ratio(wall, comp_wall)} |")
    for v, r in ours_mlp.items():
        gpu, wall = r.get("gpu_us"), r.get("wall_us")
        L.append(f"| lesson 03 `{v}` | {fmt(gpu)} | {fmt(wall)} | {floors[v]:.1f} | {ratio(gpu, floors[v])} | "
                 f"{ratio(gpu, comp_gpu)} | {ratio(wall, comp_wall)} |")
    L.append("")
    L.append("## Lessons 01 and 02 (per step: GPU time, host launch calls, host in cudaDeviceSynchronize, wall)")
    L.append("")
    L.append("| lesson | variant | shape | GPU us | launch us | sync us | wall us |")
    L.append("|---|---|---|---|---|---|---|")
    for r in small:
        if r.get("lesson") == "01_matmul_add":
            shape = f"{int(r['size'])}^3"
        else:
            shape = f"{int(r['batch'])} x {int(r['in_dim'])} -> {int(r['out_dim'])}"
        L.append(f"| {r.get('lesson')} | {r.get('variant')} | {shape} | {fmt(r.get('gpu_us'))} | "
                 f"{fmt(r.get('launch_us'))} | {fmt(r.get('sync_us'))} | {fmt(r.get('wall_us'))} |")
    L.append("")
    L.append("## Issue 3 targets (same run)")
    L.append("")

    def target(text, ok):
        L.append(f"- {text}: **{'met' if ok else 'missed'}**" if ok is not None else f"- {text}: n/a")

    target(f"gelu_mul_kernel at >= 95% of copy bandwidth ({fmt(fused_us)} us vs floor {pw_floor:.1f} us: "
           f"{fmt(100 * pw_floor / fused_us if fused_us else None)}%)",
           None if fused_us is None else pw_floor / fused_us >= 0.95)
    target(f"gelu_mul_kernel no slower than torch.compile's ({fmt(fused_us)} us vs {fmt(comp_pw)} us)",
           None if fused_us is None or comp_pw is None else fused_us <= comp_pw)
    merged_gpu = ours_mlp.get("merged", {}).get("gpu_us")
    target(f"merged MLP GPU time <= torch.compile's ({fmt(merged_gpu)} us vs {fmt(comp_gpu)} us)",
           None if merged_gpu is None or comp_gpu is None else merged_gpu <= comp_gpu)
    graph_wall = ours_mlp.get("graph", {}).get("wall_us")
    target(f"graph MLP wall time <= 0.8 x torch.compile's ({fmt(graph_wall)} us vs 0.8 x {fmt(comp_wall)} us)",
           None if graph_wall is None or comp_wall is None else graph_wall <= 0.8 * comp_wall)
    if errors:
        L.append("")
        L.append("## Errors")
        L.append("")
        for e in errors:
            L.append("- " + e.replace("\n", "\n  "))
    report = "\n".join(L) + "\n"
    print()
    print(report)
    out = args.out or (os.path.join(os.environ["OUT"], "bench.md") if os.environ.get("OUT") else None)
    if out:
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        with open(out, "w") as f:
            f.write(report)
        print(f"written to {out}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
