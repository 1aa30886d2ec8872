#!/usr/bin/env python3
"""gap_summary.py CAPTURE.json: where the GPU is idle between consecutive pieces of work (kernels,
memsets and copies, one stream) inside the profiled window, per kind of neighbours: our kernel (k_*), a cuBLAS
kernel (nvjet/xmma/cublasLt), a memset, a copy. Gaps longer than IDLE_US (default 50) are the host's waits
between steps and are counted apart. For a CUDA-graph step these gaps are the price of the kernel
boundaries themselves (no host launch is involved)."""
import collections, json, os, sys

IDLE_US = float(os.environ.get("IDLE_US", "50"))
c = json.load(open(sys.argv[1]))
w = c["profiler_windows"][0] if c["profiler_windows"] else {"start": 0, "end": None}
inside = lambda r: r["start"] >= w["start"] and (w["end"] is None or r["end"] <= w["end"])

def kind(r):
    n = r.get("name")
    if "src_kind" in r: return "copy"
    if n is None: return "memset"
    n = n.split("(")[0].replace("void ", "")
    return "ours" if n.startswith("k_") else "cublas"

work = sorted([r for r in c["kernels"] + c.get("memsets", []) + c.get("memcpys", []) if inside(r)],
              key=lambda r: r["start"])
busy = sum(r["end"] - r["start"] for r in work)
gaps = collections.defaultdict(list); idle = []
for a, b in zip(work, work[1:]):
    g = (b["start"] - a["end"]) / 1e3
    if g > IDLE_US: idle.append(g)
    else: gaps[(kind(a), kind(b))].append(g)
steps = max(1, sum(1 for r in c["ranges"] if r["name"] == "step" and r["end"] and r["start"] >= w["start"]))
allg = [g for v in gaps.values() for g in v]
print(f"{len(work)} pieces of GPU work in the window ({steps} steps): busy {busy/1e6/steps:.2f} ms/step, "
      f"boundaries {sum(allg)/1e3/steps:.3f} ms/step over {len(allg)/steps:.0f} gaps/step, "
      f"{len(idle)} idle waits > {IDLE_US:.0f} us ({sum(idle)/1e3:.2f} ms in all)")
for k, v in sorted(gaps.items(), key=lambda kv: -sum(kv[1])):
    v = sorted(v)
    print(f"  {k[0]:>6} -> {k[1]:<6} {len(v)/steps:6.0f}/step  {sum(v)/1e3/steps:7.3f} ms/step  "
          f"median {v[len(v)//2]:5.2f} us  p90 {v[int(len(v)*0.9)]:5.2f} us")
