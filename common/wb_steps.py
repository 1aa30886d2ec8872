"""wb_steps.py: the steps a lesson's PyTorch script times, and the table it prints.

The Python twin of wb_steps.c, so that a PyTorch variant is measured exactly like the C program
beside it: --warmup unmeasured steps, then --steps steps between cudaProfilerStart and
cudaProfilerStop (the window the grader reads). A step is the forward followed by
torch.cuda.synchronize(); a pair of CUDA events around its launches gives its GPU time, the host
clock its launch, synchronize and wall times.

NVTX ranges (part of each PyTorch variant's interface; lesson.yaml lists them):
  step    one measured step, ending with its synchronize
  sync    the synchronize that ends every step
  and, inside the measured steps only, one range per ATen operator the forward dispatches
  (torch.autograd.profiler.emit_nvtx), named like "aten::addmm, seq = 7, op_id = 5": the grader
  compares range names up to their first comma, so a question names "aten::addmm".
The warm-up runs without those operator ranges; torch.compile compiles there. One more warm-up
step runs with them on, so that anything the profiler's state changes happens before the window.

Used by every lesson's torch/*.py:

    import wb_steps                          # after sys.path has the checkout's common/
    args = wb_steps.parser("what it does").parse_args()
    timed = wb_steps.measure(forward, args.warmup, args.steps)
    wb_steps.report("02_linear", "torch-linear", timed, extra="m=1024 ...")
"""
import argparse
import os
import statistics
import time

# torch.compile compiles in this process, not in a pool of workers: a worker that started CUDA
# would load the capture library too and write its own capture over the lesson's.
os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")


def parser(description):
    """The flags every lesson script takes; scripts add their sizes."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--steps", type=int, default=20, help="measured steps, between cudaProfilerStart and Stop (default 20)")
    p.add_argument("--warmup", type=int, default=5, help="unmeasured steps first; torch.compile compiles in the first (default 5)")
    p.add_argument("--compile", action="store_true", help="run the forward through torch.compile (default mode)")
    p.add_argument("--seed", type=int, default=1)
    return p


def maybe_compile(fn, compiled):
    import torch
    return torch.compile(fn) if compiled else fn


class Timed:
    """Per measured step, in microseconds: GPU time (events), launch, synchronize and wall."""

    def __init__(self):
        self.gpu_us, self.launch_us, self.sync_us, self.wall_us = [], [], [], []
        self.compile_s = 0.0


def measure(forward, warmup, steps, inside_window=None):
    """Runs forward warmup times, then steps times in the profiled window with the ATen ranges on.
    inside_window, when given, runs after the steps, still in the window, without ATen ranges."""
    import torch
    import torch.cuda.nvtx as nvtx

    timed = Timed()
    t0 = time.perf_counter()
    for i in range(max(warmup, 1)):
        forward()
        torch.cuda.synchronize()
        if i == 0:
            timed.compile_s = time.perf_counter() - t0  # the first call: compilation, if any
    with torch.autograd.profiler.emit_nvtx():
        forward()
        torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(steps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(steps)]
    for e in starts + ends:  # created before the window: a first record would create it there
        e.record()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    with torch.autograd.profiler.emit_nvtx():
        for i in range(steps):
            t_start = time.perf_counter()
            nvtx.range_push("step")
            starts[i].record()
            forward()
            ends[i].record()
            t_launched = time.perf_counter()
            nvtx.range_push("sync")
            torch.cuda.synchronize()
            nvtx.range_pop()
            nvtx.range_pop()
            t_end = time.perf_counter()
            timed.launch_us.append((t_launched - t_start) * 1e6)
            timed.sync_us.append((t_end - t_launched) * 1e6)
            timed.wall_us.append((t_end - t_start) * 1e6)
    if inside_window:
        inside_window()
    torch.cuda.profiler.stop()
    timed.gpu_us = [s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends)]
    return timed


def _row(label, us):
    print("%-28s %12.2f %12.2f %12.2f %8d" % (label, statistics.median(us), min(us), max(us), len(us)))


def report(lesson, variant, timed, extra=""):
    """The timing table and the RESULT line, as the C programs print them, with the versions."""
    import torch
    try:
        import triton
        triton_version = triton.__version__
    except ImportError:
        triton_version = "none"
    print("%-28s %12s %12s %12s %8s" % ("timing (us)", "median", "min", "max", "steps"))
    _row("GPU span per step (events)", timed.gpu_us)
    _row("host launch per step", timed.launch_us)
    _row("host synchronize per step", timed.sync_us)
    _row("wall time per step", timed.wall_us)
    print("GPU span: from a CUDA event before the step's first launch to one after its\n"
          "last, idle waits for the host included; the grader's gpu_us instead sums the\n"
          "durations of the kernels and copies themselves.")
    print("first call (compiles under torch.compile): %.2f s" % timed.compile_s)
    print("RESULT lesson=%s variant=%s %s gpu_span_us=%.2f wall_us=%.2f torch=%s triton=%s" % (
        lesson, variant, extra, statistics.median(timed.gpu_us), statistics.median(timed.wall_us), torch.__version__,
        triton_version))


def check_close(name, got, want, rel):
    """got (a bf16 GPU tensor) against want (float64 on the CPU): max |got - want| over max |want|
    within rel. Returns True when it holds; prints the figures either way."""
    err = (got.double().cpu() - want).abs().max().item()
    scale = want.abs().max().item() or 1.0
    ok = err <= rel * scale
    print("check %s: max error %.3g, %.3g of max |value| %.3g (limit %.3g): %s" % (
        name, err, err / scale, scale, rel, "ok" if ok else "WRONG"))
    return ok
