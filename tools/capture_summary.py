#!/usr/bin/env python3
"""capture_summary.py CAPTURE.json [RANGE]: kernel time by name inside the profiled window (and,
with RANGE, per occurrence of that NVTX range), for profiling runs outside a lesson."""
import collections, json, sys

c = json.load(open(sys.argv[1]))
w = c["profiler_windows"][0] if c["profiler_windows"] else {"start": 0, "end": None}
api = {a["correlation_id"]: a for a in c["api_calls"]}
def launched(k):
    a = api.get(k["correlation_id"]); t = a["start"] if a else k["start"]
    return t >= w["start"] and (w["end"] is None or t <= w["end"])
ks = [k for k in c["kernels"] if launched(k)]
tot = collections.Counter(); cnt = collections.Counter()
for k in ks:
    n = k["name"].split("(")[0][:90]; tot[n] += k["end"] - k["start"]; cnt[n] += 1
all_ns = sum(tot.values())
steps = max(1, sum(1 for r in c["ranges"] if r["name"] == "step" and r["end"] and r["start"] >= w["start"]))
print(f"{len(ks)} kernels in the window, {all_ns/1e6:.2f} ms of kernel time, {steps} steps: {all_ns/1e6/steps:.2f} ms/step")
for n, t in tot.most_common(40):
    print(f"{100*t/all_ns:6.1f}% {t/1e3/steps:10.1f} us/step {cnt[n]/steps:7.1f}/step  {n}")
rng = collections.defaultdict(float)
for r in c["ranges"]:
    if r["end"] and r["start"] >= w["start"] and (w["end"] is None or r["end"] <= w["end"]):
        rng[r["name"]] += (r["end"] - r["start"]) / 1e6 / steps
print("wall ms/step by range:", {k: round(v, 2) for k, v in sorted(rng.items(), key=lambda x: -x[1])[:12]})
