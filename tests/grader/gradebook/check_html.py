#!/usr/bin/env python3
"""check_html.py REPORT.json DOM.html SCREENSHOT.png: the gradebook page Chromium rendered shows
the report: every lesson's section with its cohort, every fact's row with its learners, first-try
share, discrimination index and flags (read from the row's data- attributes and its cells), the
learners' table; the screenshot is a real picture (a PNG of the window's size, not one colour)."""
import html.parser
import json
import struct
import sys
import zlib

report = json.load(open(sys.argv[1]))
problems = []


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.facts, self.sections, self.learners, self.summary = [], [], 0, None
        self.row, self.cells, self.cell = None, [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and "data-lesson" in a:
            self.sections.append((a["data-lesson"], int(a["data-cohort"])))
        if tag == "p" and a.get("id") == "summary":
            self.summary = (int(a["data-learners"]), int(a["data-submissions"]))
        if tag == "tr" and a.get("class") == "fact":
            self.row, self.cells = a, []
        if tag == "tr" and a.get("class") == "learner":
            self.learners += 1
        if tag == "td" and self.row is not None:
            self.cell = ""

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.cells.append(self.cell.strip())
            self.cell = None
        if tag == "tr" and self.row is not None:
            self.facts.append((self.row, self.cells))
            self.row = None


page = Page()
page.feed(open(sys.argv[2]).read())
if page.summary != (report["learners"], report["submissions"]):
    problems.append("summary %r, report %r" % (page.summary, (report["learners"], report["submissions"])))
want_sections = [(l["lesson"], l["cohort"]) for l in report["lessons"]]
if page.sections != want_sections:
    problems.append("sections %r, report %r" % (page.sections, want_sections))
want = [(l["lesson"], q["id"], f) for l in report["lessons"] for q in l["questions"] for f in q["facts"]]
if len(page.facts) != len(want):
    problems.append("%d fact rows, the report has %d facts" % (len(page.facts), len(want)))
for (row, cells), (lesson, qid, f) in zip(page.facts, want):
    where = "%s %s %s" % (lesson, qid, f["fact"])
    if (row["data-lesson"], row["data-question"], row["data-fact"]) != (lesson, qid, f["fact"]):
        problems.append("%s: row is %r" % (where, (row["data-lesson"], row["data-question"], row["data-fact"])))
        continue
    if int(row["data-learners"]) != f["learners"] or cells[0] != f["fact"] or int(cells[1]) != f["learners"]:
        problems.append("%s: learners %r / %r" % (where, row["data-learners"], cells[:2]))
    for attr, key in (("data-right-share", "right_share"), ("data-discrimination", "discrimination")):
        got = row[attr]
        if (f[key] is None) != (got == "") or (f[key] is not None and abs(float(got) - f[key]) > 1e-12):
            problems.append("%s: %s %r, report %r" % (where, attr, got, f[key]))
    if f["right_share"] is not None and cells[2] != "%.0f%%" % (100 * f["right_share"]):
        problems.append("%s: share cell %r" % (where, cells[2]))
    if row["data-flags"].split() != f["flags"]:
        problems.append("%s: flags %r, report %r" % (where, row["data-flags"], f["flags"]))
    for w in f.get("wrong_answers", []):
        if "%s\xa0\xd7%d" % (w["answer"], w["count"]) not in cells[5]:
            problems.append("%s: wrong answer %r not in %r" % (where, w, cells[5]))
if page.learners != sum(len(l["learners"]) for l in report["lessons"]):
    problems.append("%d learner rows" % page.learners)

png = open(sys.argv[3], "rb").read()
if png[:8] != b"\x89PNG\r\n\x1a\n":
    problems.append("the screenshot is no PNG")
else:
    w, h = struct.unpack(">II", png[16:24])
    if (w, h) != (1280, 900):
        problems.append("the screenshot is %dx%d" % (w, h))
    data = b"".join(png[i + 8:i + 8 + struct.unpack(">I", png[i:i + 4])[0]]
                    for i in range(8, len(png) - 12) if png[i + 4:i + 8] == b"IDAT")
    raw = zlib.decompress(data)
    if len(set(raw[: len(raw) // 2])) < 8:
        problems.append("the screenshot is nearly one colour: nothing was drawn")
for p in problems[:30]:
    print("FAIL:", p)
if problems:
    sys.exit(1)
print("the page shows every figure: %d facts, %d lessons" % (len(want), len(want_sections)))
