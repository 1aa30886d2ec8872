#!/usr/bin/env python3
"""check_report.py TEXT REPORT.json RECORDING WIDTH [--long-names]

Checks a `grader check` text report, printed at WIDTH columns, as a person would read it:
  - no line is wider than WIDTH, unless it is a single word (a path) that cannot be broken (the
    lesson program's own output, quoted after "  | ", is folded too), and no line starts past the
    middle of the width (verdicts squeezed into a narrow column);
  - every explanation (from the same run's JSON report) appears with its words whole and in
    order: wrapped only at spaces, never inside a word;
  - the tables list what grading counts, computed here from the recording itself: each variant's
    API calls by name (top-level calls, made inside the profiled window; the most frequent ones,
    with their counts) and its memsets and memcpys;
  - with --long-names, every kernel of the table appears with its full name.
Exits 1 with the reasons."""
import json
import re
import sys

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def top_level_calls(capture):
    """(name, start) of the API calls not made inside another call on the same thread."""
    windows = capture.get("profiler_windows") or []
    out = []
    by_thread = {}
    for a in capture["api_calls"]:
        by_thread.setdefault(a["thread"], []).append(a)
    for calls in by_thread.values():
        calls.sort(key=lambda a: (a["start"], -a["end"]))
        open_end = -1
        for a in calls:
            if a["end"] <= open_end:
                continue  # inside the call still open on this thread
            open_end = a["end"]
            if not windows or any(w["start"] <= a["start"] <= w["end"] for w in windows):
                out.append(a["name"])
    return out


def main():
    text_path, report_path, recording_path, width = sys.argv[1:5]
    width, long_names = int(width), "--long-names" in sys.argv[5:]
    text = open(text_path, encoding="utf-8").read()
    lines = text.split("\n")
    report = json.load(open(report_path))
    rec = json.load(open(recording_path))

    for n, line in enumerate(lines, 1):
        # a single unbreakable word may overflow; nothing else, the program's own output included
        if len(line) > width and len(line.split()) > 1:
            failures.append(f"line {n} is {len(line)} columns: {line!r}")
        # a verdict is read in lines of some length: never squeezed into a narrow column at the right
        indent = len(line) - len(line.lstrip(" "))
        if line.strip() and width <= 120 and indent > width // 2:
            failures.append(f"line {n} starts at column {indent}, squeezed to the right: {line!r}")
    # the verdict of a bound says GPU time and wall time as two numbers, not one "of" the other
    for m in re.finditer(r"GPU [\d.]+ of [\d.]+ us wall", text):
        failures.append(f"a bound's verdict reads as a share: {m.group(0)!r}")
    # a GPU time above the wall time says why it can be (the work runs on after the range ends)
    for m in re.finditer(r"\(GPU time[^)]*?([\d.]+) us, wall time[^)]*?([\d.]+) us([^;)]*)", " ".join(text.split())):
        if float(m.group(1)) > float(m.group(2)) and "after the host left the range" not in m.group(3):
            failures.append(f"a bound's verdict has more GPU time than wall time and does not say why: {m.group(0)!r}")

    # explanations: the "Why:" block after each question's header, its words joined again
    whys, current, block = {}, None, None
    for line in lines:
        m = re.match(r"^(\S+)  \(variant ", line)
        if m:
            current, block = m.group(1), None
            continue
        if line.startswith("  Why: "):
            block = whys.setdefault(current, [])
            block.extend(line[len("  Why: "):].split())
        elif block is not None and line.startswith("       "):
            block.extend(line.split())
        else:
            block = None
    for qid, why in (report.get("explanations") or {}).items():
        check(whys.get(qid) == why.split(), f"explanation of {qid}: words differ (split or lost):\n  got  {whys.get(qid)}\n  want {why.split()}")

    # tables: API calls by name and memsets/memcpys, per variant
    sections = re.split(r"\n(?=API calls of variant ')", text)
    for run in rec["runs"]:
        v = run["variant"]
        if v not in report.get("summary", {}):
            continue
        names = top_level_calls(run["capture"])
        counts = {}
        for nm in names:
            counts[nm] = counts.get(nm, 0) + 1
        part = [s for s in sections if s.startswith(f"API calls of variant '{v}'")]
        check(len(part) == 1, f"{v}: no table of API calls by name")
        if not part:
            continue
        rows = {}
        for line in part[0].split("\n")[1:]:
            m = re.match(r"^\s+(\d+)\s+[\d.]+\s+[\d.]+\s+(\S+)$", line)
            if m:
                rows[m.group(2)] = int(m.group(1))
            elif line.strip() and not line.startswith(" "):
                break
        top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
        for nm, count in top:
            check(rows.get(nm) == count, f"{v}: API table says {nm} x {rows.get(nm)}, the recording {count}")
        windows = run["capture"].get("profiler_windows") or []
        calls = {a["correlation_id"]: a for a in run["capture"]["api_calls"]}

        def in_window(op):
            t = calls[op["correlation_id"]]["start"] if op["correlation_id"] in calls else op["start"]
            return not windows or any(w["start"] <= t <= w["end"] for w in windows)

        memsets = sum(1 for o in run["capture"].get("memsets", []) if in_window(o))
        memcpys = sum(1 for o in run["capture"].get("memcpys", []) if in_window(o))
        copies = part[0].split(f"Memsets and memcpys of variant '{v}'", 1)
        check(len(copies) == 2, f"{v}: no table of memsets and memcpys")
        if len(copies) == 2:
            got_sets = sum(int(m.group(1)) for m in re.finditer(r"^\s+(\d+)\s+\d+\s+[\d.]+\s+memset$", copies[1], re.M))
            got_cpys = sum(int(m.group(1)) for m in re.finditer(r"^\s+(\d+)\s+\d+\s+[\d.]+\s+memcpy ", copies[1], re.M))
            check((got_sets, got_cpys) == (memsets, memcpys),
                  f"{v}: table shows {got_sets} memsets, {got_cpys} memcpys; the recording {memsets}, {memcpys}")
        if long_names:
            for k in report["summary"][v]["kernels"][:15]:
                check(k["name"] in text, f"{v}: --long-names does not show {k['name']}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
