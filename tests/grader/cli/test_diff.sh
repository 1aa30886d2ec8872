#!/bin/bash
# test_diff.sh GRADER: `grader diff` between variants, recordings, lessons and capture files, as
# text and JSON; exit 0 for the same launches, 1 for differences, 2 for bad input.
. "$(dirname "$0")/lib.sh"
make_course
cd "$WORK"

# nothing of a lesson not graded yet: refused off a terminal (nothing shown, nothing recorded),
# shown with --reveal, which the progress file records
out=$("$GRADER" diff "$PROBE_REC:eager" "$PROBE_REC:graph" </dev/null 2>&1); rc=$?
expect_rc 2 $rc "a lesson not graded yet, off a terminal"
contains "$out" "lesson 00_probe is not graded yet" "says why it refuses"
contains "$out" "add --reveal" "says how to go on"
lacks "$out" "cudaGraphLaunch" "shows nothing of the lesson"
[ -f "$WORK/.workbench/progress.json" ] && grep -q revealed "$WORK/.workbench/progress.json" && fail "a refusal recorded a reveal"

out=$("$GRADER" diff "$PROBE_REC:eager" "$PROBE_REC:graph" --reveal 2>&1); rc=$?
expect_rc 1 $rc "eager against graph"
contains "$out" "A: $PROBE_REC, variant eager" "names A"
contains "$out" "B: $PROBE_REC, variant graph" "names B"
contains "$out" "Whole profiled window" "totals"
contains "$out" "two_kernels:" "by range"
contains "$out" "cudaGraphLaunch" "API calls by name"
contains "$out" "The captures launch different work" "the verdict"
contains "$out" "wall time of the window (us)" "a wall-time row for the window"
contains "$out" "  wall time (us)" "a wall-time row per range"
lacks "$out" "times are not compared" "no claim that the times shown are not compared"
contains "$(tr -s "\n " "  " <<<"$out")" "the times above are" "says what the times are (text wrapped to the width: lines joined)"

out=$("$GRADER" diff "$PROBE_REC" "$PROBE_REC" 2>&1); rc=$?
expect_rc 0 $rc "a recording against itself, variant by variant"
contains "$out" "variant eager" "pairs eager"
contains "$out" "variant graph" "pairs graph"
contains "$out" "Same launches in both" "the verdict"

"$GRADER" diff lessons/00_probe:eager 00_probe:eager >/dev/null 2>&1; expect_rc 0 $? "lesson folder and lesson name"
python3 - "$WORK/.workbench/progress.json" <<'PY' || fail "diff --reveal is recorded"
import json, sys
p = json.load(open(sys.argv[1]))["lessons"]
assert p["00_probe"]["revealed_by"] == "grader diff" and p["00_probe"]["revealed_without_predictions"] is True, p
assert "01_two" not in p, p
PY
"$GRADER" diff "$PROBE_REC" 01_two:graph >/dev/null 2>&1; expect_rc 2 $? "the other side's lesson is gated too"
"$GRADER" diff "$PROBE_REC" 01_two:graph --reveal >/dev/null 2>&1; expect_rc 0 $? "one side names the variant"

json=$("$GRADER" diff 00_probe:eager 00_probe:graph --format json 2>&1); rc=$?
expect_rc 1 $rc "json"
python3 - "$json" <<'PY' || fail "diff --format json"
import json, sys
d = json.loads(sys.argv[1])
assert d["differs"] is True
c = d["comparisons"][0]
assert c["a"]["variant"] == "eager" and c["b"]["variant"] == "graph", c["a"]
r = [x for x in c["diff"]["ranges"] if x["name"] == "two_kernels"][0]
api = {x["name"]: (x["a"], x["b"]) for x in r["api_calls_by_name"]}
assert api["cudaLaunchKernel"] == (2, 0) and api["cudaGraphLaunch"] == (0, 1), api
assert r["kernels"] == {"a": 2, "b": 2} and r["kernel_changes"] == [], r
PY

# a capture file (the eager run of the recording)
python3 - "$PROBE_REC" "$WORK/capture.json" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))
json.dump([r for r in rec["runs"] if r["variant"] == "eager"][0]["capture"], open(sys.argv[2], "w"))
PY
out=$("$GRADER" diff "$WORK/capture.json" "$PROBE_REC:eager" 2>&1); rc=$?
expect_rc 0 $rc "a capture file against the run it came from"

# a kernel renamed in place: the same position under another name
python3 - "$WORK/capture.json" "$WORK/renamed.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
for k in c["kernels"]:
    if k["name"].startswith("nvjet"):
        k["name"] = "my_gemm_kernel"
json.dump(c, open(sys.argv[2], "w"))
PY
out=$("$GRADER" diff "$WORK/capture.json" "$WORK/renamed.json" 2>&1); rc=$?
expect_rc 1 $rc "a renamed kernel"
contains "$out" "renamed   kernel 1: nvjet" "renamed, at its position"
contains "$out" "-> my_gemm_kernel" "renamed to"

# errors
out=$("$GRADER" diff "$PROBE_REC:nope" "$PROBE_REC" 2>&1); rc=$?
expect_rc 2 $rc "unknown variant"
contains "$out" "no variant 'nope'" "says which"
out=$("$GRADER" diff "$PROBE_REC:eager" "$WORK/capture.json:eager" 2>&1); rc=$?
expect_rc 2 $rc "a variant of a capture file"
out=$("$GRADER" diff "$WORK/capture.json" "$PROBE_REC" 2>&1); rc=$?
expect_rc 2 $rc "one run against several"
contains "$out" "name one" "asks for a variant"
"$GRADER" diff "$PROBE_REC" >/dev/null 2>&1; expect_rc 2 $? "one side only"
"$GRADER" diff a b c >/dev/null 2>&1; expect_rc 2 $? "three sides"
out=$("$GRADER" diff /tmp/no/such.json "$PROBE_REC" 2>&1); expect_rc 2 $? "missing file"
contains "$out" "/tmp/no/such.json" "names it"
out=$("$GRADER" diff --help 2>&1); expect_rc 0 $? "--help"
contains "$out" "usage: grader diff A B" "--help"
finish
