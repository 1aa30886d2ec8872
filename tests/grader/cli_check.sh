#!/bin/bash
# cli_check.sh GRADER: `grader check` end to end, as a learner meets it, on a copy of the probe
# course (replaying its H200 recordings, so it runs without a GPU). Each case checks the exit
# code, what is shown (and what is not), and that the learner's files are left as they were.
set -u
GRADER=$1
SRC=${WB_SOURCE_DIR:?}/tests/grader/probe
WORK=$(mktemp -d /tmp/wb-cli-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cp -r "$SRC"/. "$WORK"/
rm -rf "$WORK/.workbench"
L=$WORK/lessons/00_probe
export WB_FORCE_REPLAY=1 NO_COLOR=1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect_rc() { # want, got, what
  [ "$1" = "$2" ] || fail "$3: exit $2, expected $1"
}
# Messages wrap at the terminal's width (80 columns off a terminal): text is also looked for
# with the output's lines joined again (runs of spaces and newlines as one space).
squash() { printf '%s' "$1" | tr -s ' \r\n' '   '; }
contains() { grep -qF -- "$2" <<<"$1" || grep -qF -- "$(squash "$2")" <<<"$(squash "$1")" || fail "$3: output lacks '$2'"; }
lacks() { ! grep -qF -- "$2" <<<"$1" && ! grep -qF -- "$(squash "$2")" <<<"$(squash "$1")" || fail "$3: output shows '$2'"; }

# --- all right: exit 0, score, reveal after grading, trace file valid, progress recorded --------
cat > $WORK/right.yaml <<'Y'
lesson: 00_probe
predictions:
  - id: two-kernels
    variant: eager
    range: two_kernels
    kernels: 2
    api_calls: {cudaLaunchKernel: 2}
  - id: graph-kernels
    variant: graph
    range: two_kernels
    kernels: 2
    api_calls: {cudaGraphLaunch: 1}
Y
out=$($GRADER check $L --predictions $WORK/right.yaml 2>&1); rc=$?
expect_rc 0 $rc "all right"
contains "$out" "Score: 4 of 4 facts right" "all right"
contains "$out" "Kernels of variant 'eager'" "reveal after grading"
contains "$out" "Recording: " "says which recording it replayed"
contains "$out" "NVIDIA H200" "names the recording's GPU"
trace=$(grep -o '/[^ ]*trace.json' <<<"$out" | head -1)
[ -f "$trace" ] || fail "trace file $trace missing"
python3 -c "import json,sys; t=json.load(open(sys.argv[1])); assert t['traceEvents']" "$trace" || fail "trace is not valid JSON"
python3 - "$WORK/.workbench/progress.json" <<'PY' || fail "progress not recorded"
import json, sys
p = json.load(open(sys.argv[1]))["lessons"]["00_probe"]
assert p["state"] == "graded" and p["right"] == 4 and p["total"] == 4 and p["predictions_hash"].startswith("fnv1a64:"), p
PY
printf '%s' "$out" | grep -q $'\033' && fail "colour codes with NO_COLOR set"

# --- WB_TIMINGS=1: where the time goes, one line a phase on stderr, nothing on stdout ------------
err=$(WB_TIMINGS=1 $GRADER check $L --predictions $WORK/right.yaml 2>&1 >/dev/null)
for phase in "start (loading" "device probe" "captures ready to grade" "grading" "progress recorded" "traces written" "done"; do
  grep -q "^timing: $phase" <<<"$err" || fail "WB_TIMINGS=1: no 'timing: $phase' line"
done
out=$(WB_TIMINGS=1 $GRADER check $L --predictions $WORK/right.yaml 2>/dev/null)
lacks "$out" "timing:" "WB_TIMINGS=1 keeps stdout clean"
out=$($GRADER check $L --predictions $WORK/right.yaml 2>&1)
lacks "$out" "timing:" "no timing lines without WB_TIMINGS"

# --- one fact wrong: exit 1 ----------------------------------------------------------------------
sed 's/kernels: 2$/kernels: 3/' $WORK/right.yaml > $WORK/wrong.yaml
out=$($GRADER check $L --predictions $WORK/wrong.yaml 2>&1); rc=$?
expect_rc 1 $rc "one wrong"
contains "$out" "WRONG  kernels" "one wrong"
contains "$out" "Score: 2 of 4" "one wrong"

# --- --variant keeps one variant's predictions ------------------------------------------------
out=$($GRADER check $L --predictions $WORK/wrong.yaml --variant graph 2>&1); rc=$?
expect_rc 1 $rc "--variant graph"
contains "$out" "Score: 1 of 2" "--variant graph"
lacks "$out" "Kernels of variant 'eager'" "--variant graph"

# --- --format json: one JSON object on stdout --------------------------------------------------
$GRADER check $L --predictions $WORK/wrong.yaml --format json > $WORK/report.json 2>$WORK/stderr.txt; rc=$?
expect_rc 1 $rc "json"
python3 - $WORK/report.json <<'PY' || fail "json report fields"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["lesson"] == "00_probe" and r["source"] == "replay" and r["arch"] == "sm_90", r
assert r["score"] == {"right": 2, "total": 4}, r["score"]
f = [x for x in r["facts"] if x["id"] == "two-kernels" and x["fact"] == "kernels"][0]
assert f["predicted"] == 3 and f["actual"] == 2 and f["right"] is False, f
assert set(["id", "fact", "predicted", "actual", "right"]) <= set(f)
assert r["trace_file"].endswith("trace.json") and "eager" in r["summary"]
PY

# --- --format json on failure: still one JSON object, with the error -----------------------------
$GRADER check $L --predictions $WORK/missing.yaml --format json > $WORK/error.json 2>/dev/null; rc=$?
expect_rc 2 $rc "json error"
python3 - $WORK/error.json <<'PY' || fail "json error object"
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["exit_code"] == 2 and "missing.yaml" in e["message"], e
PY

# --- ~ values, not on a terminal: exit 2, the missing list, nothing revealed, file untouched ----
cp $L/../../lessons/00_probe/lesson.yaml /dev/null
cat > $WORK/open.yaml <<'Y'
lesson: 00_probe
predictions:
  # Q: how many kernels?
  - id: two-kernels
    variant: eager
    range: two_kernels
    kernels: ~
    gemms: 0
    api_calls: {cudaLaunchKernel: ~}
Y
cp $WORK/open.yaml $WORK/open.orig
out=$($GRADER check $L --predictions $WORK/open.yaml </dev/null 2>&1); rc=$?
expect_rc 2 $rc "open predictions"
contains "$out" "open.yaml:7:14: two-kernels: kernels" "lists the open value with its position"
contains "$out" "open.yaml:9:35: two-kernels: api_calls.cudaLaunchKernel" "lists the open value with its position"
lacks "$out" "Kernels of variant" "nothing revealed while values are open"
lacks "$out" "Score" "nothing graded while values are open"
cmp -s $WORK/open.yaml $WORK/open.orig || fail "open predictions file changed"

# --- ~ values on a terminal: asked, answers written, comments kept, backup made ------------------
python3 - "$GRADER" "$L" "$WORK/open.yaml" <<'PY' || fail "interactive answering"
import os, pty, sys, select, time
grader, lesson, path = sys.argv[1:4]
pid, fd = pty.fork()
if pid == 0:
    os.execv(grader, [grader, "check", lesson, "--predictions", path])
out = b""; answers = [b"2\n", b"two\n", b"2\n"]; deadline = time.time() + 30
while time.time() < deadline:
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        try: chunk = os.read(fd, 4096)
        except OSError: break
        if not chunk: break
        out += chunk
        if out.rstrip().endswith(b"?") and answers:
            os.write(fd, answers.pop(0))
_, status = os.waitpid(pid, 0)
text = open(path).read()
assert "kernels: 2" in text and "cudaLaunchKernel: 2" in text, text
assert "# Q: how many kernels?" in text, "comment lost"
assert open(path + ".bak").read().count("~") == 2, "backup is not the original"
assert b"a whole number" in out, "bad answer not re-asked: %r" % out
assert b"Score: 3 of 3" in out, out.decode(errors="replace")
assert os.WEXITSTATUS(status) == 0, status
PY

# --- bad input: exit 2, file:line:col, file untouched, nothing revealed ------------------------
printf 'lesson: 00_probe\npredictions:\n  - id: a\n    variant: eager\n    range: two_kernels\n    kernels: five\n' > $WORK/bad.yaml
cp $WORK/bad.yaml $WORK/bad.orig
out=$($GRADER check $L --predictions $WORK/bad.yaml 2>&1); rc=$?
expect_rc 2 $rc "wrong type"
contains "$out" "bad.yaml:6:14:" "wrong type names line and column"
cmp -s $WORK/bad.yaml $WORK/bad.orig || fail "bad file changed"
lacks "$out" "Kernels of variant" "nothing revealed on bad input"
printf 'lesson: 00_probe\npredictions:\n  - id: a\n    variant: eager\n    range: nope\n    kernels: 1\n' > $WORK/range.yaml
out=$($GRADER check $L --predictions $WORK/range.yaml 2>&1); rc=$?
expect_rc 2 $rc "unknown range"
contains "$out" "unknown range 'nope'" "unknown range"
# a prediction of a range or a variant the lesson does not have, whole (COLUMNS=400: one line), in
# English and in Japanese; the Japanese wrapped to 80 columns stays within them
printf 'lesson: 00_probe\npredictions:\n  - id: a\n    variant: lazy\n    range: two_kernels\n    kernels: 1\n' > $WORK/variant.yaml
ranges="setup, measured, step, two_kernels, memset, copy, gemm, outer, inner, empty"
refusal() { # LANG FILE WANT: grader check exits 2 with WANT as its whole message
    local out rc
    out=$(COLUMNS=400 LANG=$1 $GRADER check $L --predictions $WORK/$2 2>&1); rc=$?
    expect_rc 2 $rc "$2 in $1"
    [ "$out" = "$3" ] || fail "$2 in $1: '$out', expected '$3'"
}
refusal C.UTF-8 range.yaml "grader check: $WORK/range.yaml:3: prediction 'a': unknown range 'nope' (lesson 00_probe has: $ranges)"
refusal ja_JP.UTF-8 range.yaml "grader check: $WORK/range.yaml:3: 予測 'a': レッスン 00_probe にレンジ 'nope' はありません (あるのは: $ranges)"
refusal C.UTF-8 variant.yaml "grader check: $WORK/variant.yaml:3: prediction 'a': unknown variant 'lazy' (lesson 00_probe has: eager, graph)"
refusal ja_JP.UTF-8 variant.yaml "grader check: $WORK/variant.yaml:3: 予測 'a': レッスン 00_probe にバリアント 'lazy' はありません (あるのは: eager, graph)"
COLUMNS=80 LANG=ja_JP.UTF-8 $GRADER check $L --predictions $WORK/range.yaml >$WORK/range-ja.txt 2>&1
python3 - $WORK/range-ja.txt <<'PY' || fail "the Japanese unknown range passes 80 display columns (above)"
import sys, unicodedata
width = lambda l: sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in l)
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
bad = [l for l in lines if width(l) > 80]
for l in bad: print("%d columns: %s" % (width(l), l))
sys.exit(1 if bad or len(lines) < 3 else 0)
PY
out=$($GRADER check $L --predictions $WORK/missing.yaml 2>&1); rc=$?
expect_rc 2 $rc "missing file"
contains "$out" "missing.yaml: no such predictions file" "missing file"
head -c 300 /dev/urandom > $WORK/binary.yaml; printf '\0' >> $WORK/binary.yaml
out=$($GRADER check $L --predictions $WORK/binary.yaml 2>&1); rc=$?
expect_rc 2 $rc "binary file"
out=$($GRADER check $L --frobnicate 2>&1); rc=$?
expect_rc 2 $rc "unknown option"
contains "$out" "usage: grader check" "unknown option shows usage"
out=$($GRADER check $WORK/lessons/nope 2>&1); rc=$?
expect_rc 2 $rc "not a lesson"
out=$($GRADER check $L --predictions $WORK/right.yaml --variant lazy 2>&1); rc=$?
expect_rc 2 $rc "unknown variant"
echo '{"format": "gpu-workbench-recording", "version": 1, "lesson": "00_probe", "recorded_at": "x", "runs": [' > $WORK/corrupt.json
out=$($GRADER check $L --predictions $WORK/right.yaml --replay $WORK/corrupt.json 2>&1); rc=$?
expect_rc 2 $rc "corrupt recording"
contains "$out" "corrupt.json:" "corrupt recording named"

# --- captures that must not be graded: exit 3 ----------------------------------------------------
out=$($GRADER check $WORK/lessons/00_crash 2>&1); rc=$?
expect_rc 3 $rc "crashed lesson"
contains "$out" "crashed with signal 11" "crash reported"
contains "$out" "kernels" "what the crashed run captured is reported"
python3 - $L/traces/sm_90.json $WORK/dropped.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); r["runs"][0]["capture"]["dropped_records"] = 12
json.dump(r, open(sys.argv[2], "w"))
PY
out=$($GRADER check $L --predictions $WORK/right.yaml --replay $WORK/dropped.json 2>&1); rc=$?
expect_rc 3 $rc "dropped records"
contains "$out" "dropped 12 records" "dropped records reported"
lacks "$out" "Score" "a capture with dropped records is never graded"

# --- --reveal without predictions: shown, and recorded as such ----------------------------------
out=$($GRADER check $L --reveal 2>&1); rc=$?
expect_rc 0 $rc "reveal"
contains "$out" "revealed without predictions" "reveal"
contains "$out" "Kernels of variant 'graph'" "reveal shows every variant"
python3 - "$WORK/.workbench/progress.json" <<'PY' || fail "reveal not in progress"
import json, sys
p = json.load(open(sys.argv[1]))["lessons"]["00_probe"]
assert p.get("revealed_at"), p
PY

[ $failures -eq 0 ] && echo "cli_check: all cases passed" || { echo "cli_check: $failures failure(s)"; exit 1; }
