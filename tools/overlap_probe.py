#!/usr/bin/env python3
"""overlap_probe.py CAPTURE.json [RANGE]: for each occurrence of the NVTX range RANGE (default
backward) inside the profiled window, the GPU work its host calls launched (kernels, memsets,
copies, by correlation id): the time covered by one or more of them (busy), by two or more
(overlap, as the grader's overlap_us counts it), the idle gaps of the busiest stream between its
first and last piece of work, and each oneRankReduce kernel's duration and overlapped share.
An experiment's tool: why a lesson's overlap_us is or is not stable from run to run."""
import json, sys

c = json.load(open(sys.argv[1]))
name = sys.argv[2] if len(sys.argv) > 2 else "backward"
w = c["profiler_windows"][0] if c["profiler_windows"] else {"start": 0, "end": None}
ops = c["kernels"] + c.get("memsets", []) + c.get("memcpys", [])
by_corr = {}
for o in ops: by_corr.setdefault(o["correlation_id"], []).append(o)

def covered(intervals, depth):
    ev = sorted([(s, 1) for s, e in intervals] + [(e, -1) for s, e in intervals], key=lambda x: (x[0], x[1]))
    n = 0; t0 = None; tot = 0
    for t, d in ev:
        if n >= depth and t0 is not None: tot += t - t0
        n += d; t0 = t
    return tot / 1e3

for r in c["ranges"]:
    if r["name"] != name or not r["end"] or r["start"] < w["start"]: continue
    calls = [a for a in c["api_calls"] if r["start"] <= a["start"] <= r["end"]]
    mine = [o for a in calls for o in by_corr.get(a["correlation_id"], [])]
    iv = [(o["start"], o["end"]) for o in mine]
    streams = {}
    for o in mine: streams.setdefault(o["stream"], []).append(o)
    main = max(streams.values(), key=len); main.sort(key=lambda o: o["start"])
    gaps = sum(max(0, b["start"] - a["end"]) for a, b in zip(main, main[1:])) / 1e3
    red = [o for o in mine if "oneRank" in (o.get("name") or "")]
    red_s = " ".join("%.0f/%.0f" % ((o["end"] - o["start"]) / 1e3,
                     covered([(o["start"], o["end"])] + [(m["start"], m["end"]) for m in main], 2)) for o in red)
    print("%s: %d ops on %d streams, busy %.1f us, overlap %.1f us, main-stream gaps %.1f us in %.1f us; "
          "oneRankReduce us/overlapped: %s" % (name, len(mine), len(streams), covered(iv, 1), covered(iv, 2), gaps,
          (main[-1]["end"] - main[0]["start"]) / 1e3, red_s))
