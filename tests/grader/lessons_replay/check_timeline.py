#!/usr/bin/env python3
"""check_timeline.py [--occurrence FORMAT] RECORDING DOM.html SCREENSHOT.png VARIANT...

Checks a timeline.html as Chromium rendered it, against facts computed here from the recording
itself (not from the grader's code): for each graded variant, the step shown is the occurrence of
the "step" range in the profiled window whose wall time is the median, and the GPU work of that
step is what the API calls of its thread started inside it launched (matched by correlation id).

DOM (chromium --dump-dom): one section per variant; in it the lanes (NVTX, host, one per stream
that ran work), one box per piece of work the step launched with its full name, one arrow per
launch, and a <title> naming every kernel for the hover. Screenshot (chromium --screenshot): a
real picture (many colours), and the lanes in the order a person reads them: NVTX ranges above the
host calls above the GPU work. Exits 1 with the reasons when anything is off. --occurrence gives
the page's words for "occurrence {which} of {of}" in another language.
"""
import json
import struct
import sys
import zlib
from html.parser import HTMLParser

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


# ---- the recording: what the step holds ---------------------------------------------------------

def step_facts(run):
    c = run["capture"]
    windows = c.get("profiler_windows") or []

    def in_window(s, e):
        return not windows or any(w["start"] <= s and e <= w["end"] for w in windows)

    steps = [r for r in c["ranges"] if r.get("kind", "range") == "range" and r["name"] == "step"
             and r.get("end") is not None and in_window(r["start"], r["end"])]
    steps.sort(key=lambda r: r["start"])
    by_wall = sorted(steps, key=lambda r: r["end"] - r["start"])
    step = by_wall[(len(by_wall) - 1) // 2]
    calls = {a["correlation_id"]: a for a in c["api_calls"]}
    work = []
    for kind in ("kernels", "memsets", "memcpys"):
        for k in c.get(kind, []):
            a = calls.get(k["correlation_id"])
            if a and a["thread"] == step["thread"] and step["start"] <= a["start"] <= step["end"]:
                work.append((kind, k))
    streams = {k["stream"] for _, k in work}
    return {"which": steps.index(step) + 1, "of": len(steps), "work": work, "streams": streams,
            "kernel_names": sorted(k["name"] for kind, k in work if kind == "kernels")}


# ---- the DOM ---------------------------------------------------------------------------------------

class Dom(HTMLParser):
    """Per variant section: lanes, work boxes (class, name, faded), arrows, titles."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections = {}
        self.current = None
        self.stack = []
        self.in_title = 0
        self.titles = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        self.stack.append(tag)
        if tag == "section" and "variant" in cls:
            self.current = self.sections.setdefault(a.get("data-variant"), {
                "lanes": [], "work": [], "arrows": 0, "titles": [], "svg": 0})
        if self.current is None:
            return
        if tag == "svg":
            self.current["svg"] += 1
        if tag == "g" and "lane" in cls:
            self.current["lanes"].append((a.get("data-lane"), a.get("data-stream")))
        if tag == "g" and "work" in cls:
            self.current["work"].append((cls, a.get("data-name"), "outside" in cls))
        if tag == "path" and "arrow" in cls:
            self.current["arrows"] += 1
        if tag == "title":
            self.in_title += 1
            self.current["titles"].append("")

    def handle_endtag(self, tag):
        if tag == "title" and self.in_title:
            self.in_title -= 1
        if tag == "section":
            self.current = None

    def handle_data(self, data):
        if self.in_title and self.current is not None and self.current["titles"]:
            self.current["titles"][-1] += data


# ---- the screenshot ----------------------------------------------------------------------------------

def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), "8-bit RGB or RGBA expected"
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = prev[i]
            ul = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + left) & 255
            elif f == 2:
                line[i] = (line[i] + up) & 255
            elif f == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif f == 4:
                p = left + up - ul
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else ul)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def hexrgb(h):
    return tuple(int(h[i:i + 2], 16) for i in (1, 3, 5))


def rows_with(rows, width, bpp, colours):
    """For each named colour, the y of every pixel of exactly that colour (the page draws flat
    fills; anti-aliased edges are left out)."""
    want = {bytes(hexrgb(h)): name for name, h in colours.items()}
    ys = {name: [] for name in colours}
    for y, line in enumerate(rows):
        for x in range(0, width * bpp, bpp):
            name = want.get(line[x:x + 3])
            if name:
                ys[name].append(y)
    return ys


def main():
    args = sys.argv[1:]
    occurrence = "occurrence {which} of {of}"
    if args[:1] == ["--occurrence"]:
        occurrence, args = args[1], args[2:]
    recording, dom_path, png_path, variants = args[0], args[1], args[2], args[3:]
    rec = json.load(open(recording))
    dom = Dom()
    dom.feed(open(dom_path, encoding="utf-8").read())
    for v in variants:
        run = [r for r in rec["runs"] if r["variant"] == v][0]
        want = step_facts(run)
        got = dom.sections.get(v)
        check(got is not None, f"{v}: no section for the variant")
        if got is None:
            continue
        check(got["svg"] >= 2, f"{v}: timeline and bars: {got['svg']} svg elements")
        lanes = [k for k, _ in got["lanes"]]
        check(lanes.count("nvtx") == 1 and lanes.count("host") == 1, f"{v}: lanes {lanes}")
        gpu_streams = {int(s) for k, s in got["lanes"] if k == "gpu"}
        check(want["streams"] <= gpu_streams, f"{v}: GPU lanes {sorted(gpu_streams)} lack streams {sorted(want['streams'])}")
        here = [(cls, name) for cls, name, before in got["work"] if not before]
        kernels = sorted(name for cls, name in here if "kernel" in cls)
        check(kernels == want["kernel_names"], f"{v}: kernels of the step {kernels} != {want['kernel_names']}")
        ops = len([1 for cls, _ in here if "memset" in cls or "memcpy" in cls])
        want_ops = len([1 for kind, _ in want["work"] if kind != "kernels"])
        check(ops == want_ops, f"{v}: {ops} memsets/memcpys drawn, the step launched {want_ops}")
        check(got["arrows"] >= len(want["work"]), f"{v}: {got['arrows']} arrows for {len(want['work'])} launches")
        for name in set(want["kernel_names"]):
            check(any(t.startswith(name + "\n") for t in got["titles"]), f"{v}: no hover title names {name}")
        text = open(dom_path, encoding="utf-8").read()
        check(occurrence.format(which=want['which'], of=want['of']) in text, f"{v}: the page does not say it shows step {want['which']} of {want['of']}")

    width, height, bpp, rows = read_png(png_path)
    colours = set()
    for line in rows[::4]:
        for x in range(0, width * bpp, bpp * 4):
            colours.add(bytes(line[x:x + 3]))
    check(len(colours) > 50, f"screenshot: only {len(colours)} distinct colours (blank or unstyled page?)")
    ys = rows_with(rows, width, bpp, {"nvtx": "#f2c14e", "host": "#c8453c", "gemm": "#2f6db5", "kernel": "#e07b39"})
    nvtx, host, gpu = ys["nvtx"], ys["host"], ys["gemm"] + ys["kernel"]
    for what, ys in (("NVTX range", nvtx), ("launch call", host), ("kernel", gpu)):
        check(len(ys) > 200, f"screenshot: {len(ys)} pixels of {what} colour")
    if nvtx and host and gpu:
        med = lambda ys: sorted(ys)[len(ys) // 2]
        check(med(nvtx) < med(host) < med(gpu),
              f"screenshot: lanes out of order (NVTX at y {med(nvtx)}, host {med(host)}, GPU {med(gpu)})")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
