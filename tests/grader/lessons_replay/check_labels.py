#!/usr/bin/env python3
"""check_labels.py DOM.html LESSON: reads what label_check.js measured in Chromium (the
data-label-check attribute of <body>) and fails on any label cut at the picture's edge, out of its
box, covering another box or label; in lesson 01 (two or three kernels a step, room enough),
every GPU box must carry its name."""
import html
import json
import re
import sys

dom, lesson = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2]
m = re.search(r'<body[^>]*data-label-check="([^"]*)"', dom)
if not m:
    print("FAIL: %s: the label check did not run (no data-label-check on <body>)" % lesson)
    sys.exit(1)
result = json.loads(html.unescape(m.group(1)))
failures = list(result["problems"])
if lesson.startswith("01_"):
    for variant, n in sorted(result["unnamed"].items()):
        failures.append("%s: %d of the %d GPU boxes show no name" % (variant, n, result["boxes"][variant]))
if not result["boxes"]:
    failures.append("no GPU box found")
for f in failures[:40]:
    print("FAIL: %s: %s" % (lesson, f))
if len(failures) > 40:
    print("FAIL: ... and %d more" % (len(failures) - 40))
sys.exit(1 if failures else 0)
