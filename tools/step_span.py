#!/usr/bin/env python3
"""step_span.py CAPTURE.json: per profiled step, the host's step range against the GPU work it
launched (first start to last end), the kernel and memset time inside, and the memsets by size."""
import collections, json, sys

c = json.load(open(sys.argv[1]))
w = c["profiler_windows"][0] if c["profiler_windows"] else {"start": 0, "end": None}
api = {a["correlation_id"]: a for a in c["api_calls"]}
steps = [r for r in c["ranges"] if r["name"] == "step" and r["end"] and r["start"] >= w["start"]]
work = c["kernels"] + c.get("memsets", []) + c.get("memcpys", [])
def launch_time(r):
    a = api.get(r.get("correlation_id")); return a["start"] if a else r["start"]
for s in steps:
    mine = [r for r in work if s["start"] <= launch_time(r) <= s["end"]]
    if not mine: continue
    first = min(r["start"] for r in mine); last = max(r["end"] for r in mine)
    kt = sum(r["end"] - r["start"] for r in mine if "name" in r and "bytes" not in r)
    ms = [r for r in mine if "value" in r]; cp = [r for r in mine if "src_kind" in r]
    print(f"step: host range {(s['end']-s['start'])/1e3:9.1f} us, GPU span {(last-first)/1e3:9.1f} us, "
          f"kernels {kt/1e3:9.1f} us, {len(ms)} memsets {sum(r['end']-r['start'] for r in ms)/1e3:7.1f} us "
          f"({sum(r['bytes'] for r in ms)/1e6:.0f} MB), {len(cp)} copies {sum(r['end']-r['start'] for r in cp)/1e3:.1f} us; "
          f"GPU starts {(first-s['start'])/1e3:.1f} us after the range opens")
sizes = collections.Counter()
for s in steps[-1:]:
    for r in work:
        if "value" in r and s["start"] <= launch_time(r) <= s["end"]: sizes[r["bytes"]] += 1
print("memsets of the last step by size (bytes: count):", dict(sizes.most_common(10)))
