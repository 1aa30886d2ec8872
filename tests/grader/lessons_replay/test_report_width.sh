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
# --- grader check's tables, trace and timeline in Japanese: headings over their numbers, 80 display
# columns; the English exactly as before ----------------------------------------------------------------
has_line() { grep -qxF -- "$2" "$1" || fail "$3: no line '$2' in $1"; } # FILE LINE WHAT
check_ja() { # RECORDING LESSON_DIR LESSON ANSWERS
    local recording=$1 dir=$2 lesson=$3 answers=$4 lang html
    [ "$lesson" = 03_mlp ] || return 0
    for lang in ja en; do
        COLUMNS=80 WB_TRACE_MAX_RECORDS=50 WB_TIMELINE_MAX_ITEMS=20 "$GRADER" --lang $lang check "$dir" \
            --predictions "$answers" --replay "$recording" > "$WORK/$lang.txt" 2>&1
        html=$(ls -d "$WB_STATE_DIR"/runs/$lesson/*/ | tail -1)
        cp "$html/timeline.html" "$WORK/$lang.html"; cp "$html/trace.json" "$WORK/$lang.trace.json"
    done
    local ja=$WORK/ja.txt en=$WORK/en.txt
    has_line "$ja" "   時間%   合計 (us)   回数  平均 (us)  名前" "the kernel table's headings in Japanese"
    has_line "$ja" "    49.8      341.73      6      56.95  nvjet_sm90_tst_...h_bz_coopA_TNT  [gemm]" "and its numbers under them"
    has_line "$ja" "  レンジ         回数 カーネル  memset  memcpy  API 呼出  経過 (us)   GPU (us)" "the range table's headings in Japanese"
    has_line "$ja" "  step              3      5.0     2.0     0.0      26.0     259.46     230.34" "and its numbers under them"
    has_line "$ja" "     回数   合計 (us)  平均 (us)  名前" "the API table's headings in Japanese"
    has_line "$ja" "     回数         バイト   合計 (us)  種類" "the copy table's headings in Japanese"
    has_line "$ja" "  PyTorch 2.11.0+cu130 (CUDA 13.0 向けビルド)、Triton 3.6.0、cuBLAS 13.1.0" "the PyTorch line in Japanese"
    has_line "$en" "   time%  total (us)  count   avg (us)  name" "the kernel table in English"
    has_line "$en" "    49.8      341.73      6      56.95  nvjet_sm90_tst_...h_bz_coopA_TNT  [gemm]" "its numbers in English"
    has_line "$en" "  range         count kernels memsets memcpys API calls  wall (us)   GPU (us)" "the range table in English"
    has_line "$en" "  step              3     5.0     2.0     0.0      26.0     259.46     230.34" "its numbers in English"
    has_line "$en" "    count  total (us)   avg (us)  name" "the API table in English"
    has_line "$en" "    count          bytes  total (us)  kind" "the copy table in English"
    has_line "$en" "  PyTorch 2.11.0+cu130 (built for CUDA 13.0), Triton 3.6.0, cuBLAS 13.1.0" "the PyTorch line in English"
    python3 - "$ja" <<'PY' || fail "grader check in Japanese at 80 display columns"
import sys, unicodedata
width = lambda l: sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in l)
bad = [l for l in open(sys.argv[1], encoding="utf-8").read().split("\n") if width(l) > 80 and len(l.split()) > 1]
for l in bad: print("%d columns: %s" % (width(l), l))
sys.exit(1 if bad else 0)
PY
    grep -qF '描いたのはステップの最初の 28.55 &#181;s、最初の 20 項目です (GPU の仕事、ホストの呼び出し、レンジ: 最大 20、docs/limits.md)。それより後に始まるため描いていないもの: カーネル 4 個、memset 1 回、memcpy 0 回 (GPU 上で 173.34 &#181;s 動きました)、API 呼び出し 13 回、レンジ 3 個。' "$WORK/ja.html" || fail "the timeline's cut in Japanese"
    grep -qF 'aria-label="バリアント eager の 1 ステップのタイムライン"' "$WORK/ja.html" || fail "the timeline's label in Japanese"
    grep -qF 'Drawn: the first 28.55 &#181;s of the step, its first 20 items (GPU work, host calls and ranges: at most 20, docs/limits.md). Not drawn, as they start later: 4 kernels, 1 memset and 0 memcpys, which ran 173.34 &#181;s on the GPU; 13 API calls; 3 ranges.' "$WORK/en.html" || fail "the timeline's cut in English"
    grep -qF 'aria-label="timeline of one step of variant eager"' "$WORK/en.html" || fail "the timeline's label in English"
    python3 - "$WORK/ja.trace.json" "$WORK/en.trace.json" <<'PY' || fail "trace.json's names in Japanese, its ids as in English"
import json, sys
ja, en = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:3])
names = lambda t: {e["args"]["name"] for e in t["traceEvents"] if e.get("ph") == "M" and e["name"] == "process_name"}
assert "eager: ホストの API" in names(ja) and "eager: NVTX レンジ" in names(ja), names(ja)
assert "eager: host API" in names(en) and "eager: NVTX ranges" in names(en), names(en)
cut = lambda t: [e["name"] for e in t["traceEvents"] if e.get("cat") == "cut"]
assert cut(ja)[0].startswith("トレースはここまで: この後の "), cut(ja)
assert cut(en)[0].startswith("trace cut here: the "), cut(en)
cats = lambda t: sorted({e.get("cat", "") for e in t["traceEvents"]})
assert cats(ja) == cats(en) and "runtime API" in cats(ja), (cats(ja), cats(en))
assert ja["otherData"]["shows"] == en["otherData"]["shows"] == "the profiled window"
PY
}
for_each_recording check_ja
finish
