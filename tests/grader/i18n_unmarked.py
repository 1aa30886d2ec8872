#!/usr/bin/env python3
"""i18n_unmarked.py SRC: every string of grader/src that reads as English prose goes through
gettext (docs/i18n.md), or is listed in grader/po/untranslated.txt with the reason it stays
English.

xgettext lists every string literal of the C sources (-a) and, separately, the ones passed to the
gettext keywords of base/i18n.h; a literal in the first list and not in the second, at the same
place, is unmarked. Prose means two words of letters with a space between ("cannot write"), so
file names, format fragments and identifiers are not counted. Left out without a listing: SQL,
HTML/SVG/CSS markup, and the phases of wb_timing_mark (WB_TIMINGS, a developer's diagnostic).

grader/po/untranslated.txt: one entry a line, FILE<TAB>MSGID-PREFIX<TAB>WHY (the prefix as the
literal is written in the source, escapes included); an entry no literal matches any more is an
error too, so the list cannot rot.
"""
import os
import re
import subprocess
import sys
import tempfile

KEYWORDS = ["--keyword=_", "--keyword=N_", "--keyword=wb_ngettext:1,2", "--keyword=C_:1c,2",
            "--keyword=NC_:1c,2", "--keyword=wb_pgettext:1c,2"]
CONTEXTS = ["-k", "--keyword=C_:1", "--keyword=NC_:1", "--keyword=wb_pgettext:1"]  # a msgctxt is not a message
COMMAND = re.compile(r"^(\\n)?grader( [a-z-]+)*( --[a-z-]+)*(: %s\\n)?$")  # a command's name stays English
PROSE = re.compile(r"[A-Za-z]{2,}[,.;:?!)]? \(?[A-Za-z]{2,}")
SQL = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|PRAGMA|BEGIN|COMMIT|ROLLBACK|DROP|ALTER|WITH)\b")
MARKUP = re.compile(r"^\s*(<|\\\"|\"|[a-z-]+\{|[.#]?[a-z][a-z0-9-]*( [a-z0-9.#-]+)*\{|@media)")


def extract(src, files, options):
    """(msgid, 'file:line') for each string xgettext finds with these options."""
    with tempfile.TemporaryDirectory() as work:
        pot = os.path.join(work, "out.pot")
        run = subprocess.run(["xgettext", "--from-code=UTF-8", "--language=C", "--force-po", "-o", pot] + options + files,
                             cwd=src, stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:  # its warnings (empty and \r literals) are expected; a failure is not
            sys.exit(f"FAIL: xgettext: {run.stderr}")
        text = open(pot, encoding="utf-8").read()
    found = set()
    for block in text.split("\n\n"):
        locations = " ".join(re.findall(r"^#: (.*)$", block, re.M)).split()
        for key in ("msgid", "msgid_plural"):
            m = re.search(r"^" + key + r" ((?:\".*\"\n?)+)", block, re.M)
            if not m:
                continue
            msgid = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))
            for where in locations:
                found.add((msgid, where))
    return found


def main():
    src = sys.argv[1]
    files = sorted(os.path.relpath(os.path.join(d, f), src)
                   for d, _, names in os.walk(os.path.join(src, "grader/src")) for f in names if f.endswith(".c"))
    everything = extract(src, files, ["-a"])
    # marked: by message and file, as xgettext places a plural or a context at its first string's line
    marked = {(msgid, where.rsplit(":", 1)[0])
              for msgid, where in extract(src, files, KEYWORDS) | extract(src, files, CONTEXTS)
              | extract(src, files, ["-k", "--keyword=wb_timing_mark"])}
    allowed = []
    listing = os.path.join(src, "grader/po/untranslated.txt")
    for number, line in enumerate(open(listing, encoding="utf-8"), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.rstrip("\n").split("\t")
        if len(fields) != 3 or not all(fields):
            print(f"grader/po/untranslated.txt:{number}: write FILE<TAB>MSGID-PREFIX<TAB>WHY")
            return 1
        allowed.append([fields[0], fields[1], number, 0])
    failures = 0
    for msgid, where in sorted(everything, key=lambda e: e[1]):
        path = where.rsplit(":", 1)[0]
        if (msgid, path) in marked or not msgid or not PROSE.search(msgid) or SQL.match(msgid) or MARKUP.match(msgid) \
                or COMMAND.match(msgid):
            continue
        hit = [a for a in allowed if a[0] == path and msgid.startswith(a[1])]
        for a in hit:
            a[3] += 1
        if not hit:
            print(f"{where}: not marked for translation: \"{msgid[:100]}\"")
            failures += 1
    for path, prefix, number, uses in allowed:
        if uses == 0:
            print(f"grader/po/untranslated.txt:{number}: no literal of {path} starts with \"{prefix[:60]}\" any more; remove the line")
            failures += 1
    if failures:
        print(f"FAIL: {failures} finding(s). Mark a message with _() and translate it (docs/i18n.md),")
        print("or list it in grader/po/untranslated.txt with the reason it stays English.")
        return 1
    print(f"every prose literal of {len(files)} files is marked or listed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
