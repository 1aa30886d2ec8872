#!/usr/bin/env python3
"""plot_loss.py LOG [OUT.svg] [--title TEXT]: the training and validation loss of a lesson 04 run
as an SVG picture, read from the program's own output (its "step N/M | loss X" and
"val N/M | loss X" lines). Standard library only: the picture is a few polylines, axes with
ticks, and a legend, written as SVG text.

    build/bin/lesson_04_gpt2_autodiff ... --eval-every 250 | tee run.log
    tools/plot_loss.py run.log docs/images/loss.svg --title "GPT-2 on the KJV Bible"

Exit status: 0 written, 2 bad usage or a log with no step lines.
"""
import argparse
import math
import re
import sys

STEP = re.compile(r"^step\s+(\d+)/\d+ \| loss ([0-9.eE+-]+)")
VAL = re.compile(r"^val\s+(\d+)/\d+ \| loss ([0-9.eE+-]+)")
FINAL = re.compile(r"^validation: loss ([0-9.eE+-]+)")  # after the last step


def read_log(path):
    train, val = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = STEP.match(line)
            if m:
                train.append((int(m.group(1)), float(m.group(2))))
                continue
            m = VAL.match(line)
            if m:
                val.append((int(m.group(1)), float(m.group(2))))
                continue
            m = FINAL.match(line)
            if m and train:
                val.append((train[-1][0], float(m.group(1))))
    return train, val


def nice_ticks(lo, hi, n=6):
    """About n round tick values covering [lo, hi]."""
    span = hi - lo if hi > lo else 1.0
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw))
    step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), default=10 * mag)
    first = math.ceil(lo / step) * step
    ticks, t = [], first
    while t <= hi + 1e-9 * span:
        ticks.append(round(t, 10))
        t += step
    return ticks


def svg(train, val, title):
    W, H, left, right, top, bottom = 760, 420, 70, 20, 40, 50
    pts = train + val
    x0, x1 = 0, max(s for s, _ in pts)
    y0, y1 = min(l for _, l in pts), max(l for _, l in pts)
    y0 = max(0.0, y0 - 0.05 * (y1 - y0))
    sx = lambda s: left + (W - left - right) * (s - x0) / ((x1 - x0) or 1)
    sy = lambda l: top + (H - top - bottom) * (1 - (l - y0) / ((y1 - y0) or 1))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           'font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="15">{escape(title)}</text>']
    for t in nice_ticks(y0, y1):
        y = sy(t)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{W - right}" y2="{y:.1f}" stroke="#e4e4e4"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{t:g}</text>')
    for t in nice_ticks(x0, x1):
        x = sx(t)
        out.append(f'<line x1="{x:.1f}" y1="{H - bottom}" x2="{x:.1f}" y2="{H - bottom + 5}" stroke="black"/>')
        out.append(f'<text x="{x:.1f}" y="{H - bottom + 18}" text-anchor="middle">{t:g}</text>')
    out.append(f'<line x1="{left}" y1="{H - bottom}" x2="{W - right}" y2="{H - bottom}" stroke="black"/>')
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{H - bottom}" stroke="black"/>')
    out.append(f'<text x="{(left + W - right) / 2}" y="{H - 12}" text-anchor="middle">step</text>')
    out.append(f'<text x="16" y="{(top + H - bottom) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 16 {(top + H - bottom) / 2})">cross-entropy loss</text>')
    for series, color, name in ((train, "#1f77b4", "training (batch loss)"), (val, "#d62728", "validation")):
        if not series:
            continue
        path = " ".join(f"{sx(s):.1f},{sy(l):.1f}" for s, l in series)
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="1.6"/>')
        if len(series) < 60:
            out.extend(f'<circle cx="{sx(s):.1f}" cy="{sy(l):.1f}" r="2.5" fill="{color}"/>' for s, l in series)
    ly = H - bottom - 36  # lower left: the curves start high and fall
    for color, name, series in (("#1f77b4", "training (batch loss)", train), ("#d62728", "validation", val)):
        if not series:
            continue
        out.append(f'<line x1="{left + 14}" y1="{ly}" x2="{left + 34}" y2="{ly}" stroke="{color}" stroke-width="2"/>')
        out.append(f'<text x="{left + 39}" y="{ly + 4}">{name}</text>')
        ly += 18
    out.append("</svg>")
    return "\n".join(out) + "\n"


def escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log")
    ap.add_argument("out", nargs="?", default="loss.svg")
    ap.add_argument("--title", default="lesson 04 training run")
    a = ap.parse_args()
    try:
        train, val = read_log(a.log)
    except OSError as e:
        print(f"plot_loss.py: {a.log}: {e.strerror}", file=sys.stderr)
        return 2
    if not train:
        print(f"plot_loss.py: {a.log}: no 'step N/M | loss X' lines (was it lesson 04's output?)", file=sys.stderr)
        return 2
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(svg(train, val, a.title))
    print(f"plot_loss.py: {len(train)} training and {len(val)} validation points -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
