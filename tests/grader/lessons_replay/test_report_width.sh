#!/bin/bash
# test_report_width.sh GRADER: output that fits the terminal, on every lesson's recording.
#
# `grader check` with the answer key's values, replayed: at COLUMNS=80 no line passes 80 columns
# (but an unbreakable path), explanations wrap only at spaces, and the tables list API calls by
# name and the memsets and memcpys as the recording holds them (check_report.py computes those
# from the recording); at COLUMNS=200 the kernel table has its median/min/max columns; with
# --long-names every kernel's full name is shown. Then the questions a learner is asked on a
# terminal (through a pseudo-terminal, COLUMNS=80) wrap at word boundaries too, and so do hint,
# explain, diff and verify.
. "$(dirname "$0")/lib.sh"

check_lesson() { # RECORDING LESSON_DIR LESSON ANSWERS
    local recording=$1 dir=$2 lesson=$3 answers=$4 rc
    COLUMNS=80 "$GRADER" check "$dir" --predictions "$answers" --replay "$recording" --format json > "$WORK/report.json" 2>/dev/null
    COLUMNS=80 "$GRADER" check "$dir" --predictions "$answers" --replay "$recording" > "$WORK/80.txt" 2>&1; rc=$?
    if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then fail "$lesson: grader check exit $rc: $(tail -3 "$WORK/80.txt")"; return; fi
    python3 "$HERE/check_report.py" "$WORK/80.txt" "$WORK/report.json" "$recording" 80 || fail "$lesson at 80 columns (above)"
    grep -q "med (us)" "$WORK/80.txt" && fail "$lesson: the 80-column kernel table has the wide columns"
    COLUMNS=200 "$GRADER" check "$dir" --predictions "$answers" --replay "$recording" > "$WORK/200.txt" 2>&1
    python3 "$HERE/check_report.py" "$WORK/200.txt" "$WORK/report.json" "$recording" 200 || fail "$lesson at 200 columns (above)"
    grep -q "med (us)" "$WORK/200.txt" || fail "$lesson: no median column at 200 columns"
    COLUMNS=80 "$GRADER" check "$dir" --predictions "$answers" --replay "$recording" --long-names > "$WORK/long.txt" 2>&1
    python3 "$HERE/check_report.py" "$WORK/long.txt" "$WORK/report.json" "$recording" 100000 --long-names ||
        fail "$lesson: --long-names (above)"
    echo "checked $lesson"
}
for_each_recording check_lesson

# --- the questions, asked on a terminal, wrap at 80 columns without splitting a word ------------
L=$SRC/lessons/03_mlp
cp "$L/predictions.template.yaml" "$WORK/open.yaml"
out=$(COLUMNS=80 python3 "$SRC/tests/grader/cli/pty_drive.py" --timeout 60 "? " "q\n" -- \
      "$GRADER" check "$L" --predictions "$WORK/open.yaml" --replay 2>&1 | tr -d '\r')
python3 - "$L/lesson.yaml" <<PY || fail "questions at 80 columns"
import re, sys
out = """$out"""
lines = out.split("\n")
# lines over 80 columns: only an unbreakable word, or a "path:line:column: ..." diagnostic
bad = [l for l in lines if len(l) > 80 and len(l.split()) > 1 and not re.match(r"^  \S+:\d+:\d+: ", l)]
assert not bad, "lines over 80 columns: %r" % bad
# the first question's text, as lesson.yaml has it, appears word for word (joined across lines)
ask = re.search(r'^    ask: "(.*)"$', open(sys.argv[1]).read(), re.M).group(1)
words = " ".join(out.split())
assert " ".join(ask.split()) in words, "the question's words are split or lost:\n%s" % out
assert any(len(l) > 60 for l in lines if l.startswith("  ") and ask.split()[0] in l), "the question was not wrapped near 80"
PY
cmp -s "$L/predictions.template.yaml" "$WORK/open.yaml" || fail "quitting at the first question changed the predictions file"

# --- the other commands that print captured facts or texts fit 80 columns too ----------------------
for cmd in "hint 03 eager-fwd" "explain nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT" "explain --trace 04 --reveal" \
           "diff lessons/02_linear:separate lessons/02_linear:epilogue --reveal" "verify 03" "verify 05"; do
    (cd "$SRC" && COLUMNS=80 $GRADER $cmd </dev/null > "$WORK/cmd.txt" 2>&1)
    python3 - "$WORK/cmd.txt" <<'PY' || fail "grader $cmd at 80 columns"
import sys
bad = [l for l in open(sys.argv[1]).read().split("\n") if len(l) > 80 and len(l.split()) > 1]
if bad:
    print("over 80 columns:", *bad, sep="\n  ")
    sys.exit(1)
PY
done
# --- the instructors' commands in Japanese: 80 display columns (a kanji or kana takes two) ------------
for cmd in "verify 03" "verify 05" "lint 03"; do
    (cd "$SRC" && LANG=ja_JP.UTF-8 COLUMNS=80 $GRADER $cmd </dev/null > "$WORK/cmd.txt" 2>&1)
    python3 - "$WORK/cmd.txt" <<'PY' || fail "grader $cmd in Japanese at 80 display columns"
import sys, unicodedata
def width(line):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
text = open(sys.argv[1], encoding="utf-8").read()
if not any(unicodedata.east_asian_width(c) == "W" for c in text):
    print("not in Japanese:", text[:300])
    sys.exit(1)
bad = [l for l in text.split("\n") if width(l) > 80 and len(l.split()) > 1]
if bad:
    print("over 80 display columns:", *bad, sep="\n  ")
    sys.exit(1)
PY
done
finish
