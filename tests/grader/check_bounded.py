#!/usr/bin/env python3
"""check_bounded.py RECORDING REPORT.json TIMELINE_CAP TRACE_CAP: what `grader check` wrote for a
recording larger than its output bounds (docs/limits.md, "What the grader writes"), checked
against counts made here from the recording itself:

  - trace.json and trace-whole-run.json: each holds exactly min(bound, records in its span) API
    calls, kernels, memsets, memcpys and NVTX ranges, the earliest ones; records_left_out and the
    report's counts are the rest; the file stays under 1.5 KB a record;
  - timeline.html: at most TIMELINE_CAP boxes drawn for the step (GPU work, host calls, ranges);
    the step's kernels, memsets and memcpys drawn plus those its summary says are not drawn are
    the step's own (step of median wall time, work matched to its launching calls), and the GPU
    time it gives for those not drawn is theirs; the page stays under 2 KB a box."""
import json
import os
import re
import sys
from html.parser import HTMLParser

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lessons_replay"))
from check_timeline import step_facts  # noqa: E402  (the step and its work, from the recording)

recording, report_path = sys.argv[1], sys.argv[2]
timeline_cap, trace_cap = int(sys.argv[3]), int(sys.argv[4])
rec, report = json.load(open(recording)), json.load(open(report_path))
failures = []
check = lambda ok, what: ok or failures.append(what)
KINDS = ("api_calls", "kernels", "memcpys", "memsets", "ranges")


def records(capture, lo, hi):
    """The starts of the records a trace of span [lo, hi] shows, clamped to lo, sorted."""
    out = []
    for kind in KINDS:
        for x in capture.get(kind, []):
            end = x.get("end") if x.get("end") is not None else x["start"]
            if end >= lo and x["start"] <= hi:
                out.append(max(x["start"], lo))
    return sorted(out)


def written(trace):
    return sum(1 for e in trace["traceEvents"]
               if (e["ph"] == "X" and e.get("cat") != "window") or (e["ph"] == "i" and e.get("cat") == "nvtx"))


graded = [r for r in rec["runs"] if r["variant"] in report["summary"]]
for key, whole in (("trace_file", False), ("whole_run_trace_file", True)):
    path = report[key]
    trace = json.load(open(path))
    want_total, want_written = 0, 0
    for run in graded:
        c = run["capture"]
        w = c.get("profiler_windows") or []
        if whole or not w:
            lo, hi = min(x["start"] for k in KINDS for x in c.get(k, [])), float("inf")
        else:
            start, end = min(x["start"] for x in w), max(x["end"] for x in w)
            lo, hi = start - (end - start) // 20, end + (end - start) // 20
        starts = records(c, lo, hi)
        share = max(1, trace_cap // len(graded))
        want_total += len(starts)
        want_written += len(starts) if len(starts) <= share else sum(1 for t in starts if t < starts[share])
    got = written(trace)
    name = os.path.basename(path)
    check(got == want_written, f"{name}: {got} records written, the recording's first {want_written} expected")
    check(got <= trace_cap, f"{name}: {got} records, more than the bound {trace_cap}")
    left = trace["otherData"].get("records_left_out")
    check(left == want_total - want_written, f"{name}: records_left_out {left}, the recording leaves {want_total - want_written}")
    report_left = report.get("trace_records_left_out" if not whole else "whole_run_trace_records_left_out")
    check(report_left == left, f"{name}: the report says {report_left} left out, the file {left}")
    check(want_total > trace_cap, f"{name}: the recording ({want_total} records) does not exceed the bound: nothing tested")
    size = os.path.getsize(path)
    check(size < 1536 * trace_cap + 65536, f"{name}: {size} bytes for at most {trace_cap} records")


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.boxes, self.own_work, self.undrawn = 0, 0, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "g" and ({"work", "api", "range"} & set(cls)):
            self.boxes += 1
            self.own_work += "work" in cls and "outside" not in cls
        if tag == "p" and "undrawn" in cls:
            self.undrawn = a


html_path = report["timeline_file"]
for run in graded[:1]:
    page = Page()
    page.feed(open(html_path, encoding="utf-8").read())
    check(page.boxes <= timeline_cap, f"timeline.html: {page.boxes} boxes drawn, more than the bound {timeline_cap}")
    check(page.undrawn is not None, "timeline.html: no summary of what is not drawn")
    if page.undrawn is None:
        break
    u = page.undrawn
    facts = step_facts(run)
    work = sorted(facts["work"], key=lambda kw: kw[1]["start"])
    by_kind = lambda kind, items: sum(1 for k, _ in items if k == kind)
    drawn, rest = work[:page.own_work], work[page.own_work:]
    check(len(work) == page.own_work + int(u["data-kernels"]) + int(u["data-memsets"]) + int(u["data-memcpys"]),
          f"timeline.html: {page.own_work} drawn + {u['data-kernels']}/{u['data-memsets']}/{u['data-memcpys']} not drawn, "
          f"the step has {len(work)} pieces of work")
    check(int(u["data-kernels"]) == by_kind("kernels", rest), f"kernels not drawn: {u['data-kernels']}, the recording {by_kind('kernels', rest)}")
    check(int(u["data-memsets"]) == by_kind("memsets", rest), f"memsets not drawn: {u['data-memsets']}, the recording {by_kind('memsets', rest)}")
    gpu_ns = sum(x["end"] - x["start"] for _, x in rest)
    check(int(u["data-gpu-ns"]) == gpu_ns, f"GPU time not drawn: {u['data-gpu-ns']} ns, the recording {gpu_ns}")
    size = os.path.getsize(html_path)
    check(size < 2048 * timeline_cap + 65536, f"timeline.html: {size} bytes for at most {timeline_cap} boxes")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
