#!/bin/bash
# test_lint.sh GRADER: `grader lint` on a clean lesson (exit 0), then with one thing broken at a
# time (exit 1, the check and file named), the whole course, JSON, and bad input (exit 2).
. "$(dirname "$0")/lib.sh"
make_course
cd "$WORK"
L=lessons/00_probe

out=$("$GRADER" lint 00_probe 2>&1); rc=$?
expect_rc 0 $rc "a clean lesson"
contains "$out" "00_probe: clean" "says clean"
# lint agrees with grader verify --replay
"$GRADER" verify $L --replay >/dev/null 2>&1; expect_rc 0 $? "verify --replay agrees"

# one break at a time: exit 1, the file (and line) and the check's id
check_break() { # what, file, sed expression, expected text
    cp "$2" "$WORK/saved"
    sed -i "$3" "$2"
    out=$("$GRADER" lint 00_probe 2>&1); rc=$?
    expect_rc 1 $rc "$1"
    contains "$out" "$4" "$1"
    cp "$WORK/saved" "$2"
}
check_break "a template value filled" $L/predictions.template.yaml '0,/gemms: ~/s//gemms: 1/' "$L/predictions.template.yaml:"
check_break "a template value filled" $L/predictions.template.yaml '0,/gemms: ~/s//gemms: 1/' "a template ships every value as ~ [template]"
check_break "a range the program never emits" $L/lesson.yaml 's/^ranges: \[/ranges: [bogus, /' "range 'bogus' is listed"
check_break "a range the program never emits" $L/lesson.yaml 's/^ranges: \[/ranges: [bogus, /' "[range-not-emitted]"
check_break "a range that is not listed" $L/lesson.yaml 's/, empty//; s/empty, //' "[range-not-listed]"
check_break "a wrong answer" expectations/00_probe.yaml 's/gemms: 1/gemms: 3/' "[key-differs]"
check_break "an answer one too small" expectations/00_probe.yaml 's/gemms: 1/gemms: 0/' "[cannot-fail]"
check_break "a question the key does not answer" expectations/00_probe.yaml 's/id: gemm$/id: gemm-renamed/' "[key-unanswered]"
check_break "a missing explanation" expectations/00_probe.yaml '/^  gemm:/d' "[explanation-missing]"
check_break "no verified architecture" expectations/00_probe.yaml 's/status: verified/status: unverified/' "[key-no-verified]"
check_break "a stale recording" $L/lesson.yaml 's/"--graph"/"--graph", "--more"/' "[recording-args]"
check_break "a question the template lacks" $L/lesson.yaml 's/facts: \[gemms\]/facts: [gemms, kernels]/' "lacks kernels, which lesson.yaml asks for"

# the whole course: 01_two has no answer key; a NN_ folder without lesson.yaml is reported
mkdir -p lessons/05_unfinished
out=$("$GRADER" lint 2>&1); rc=$?
expect_rc 1 $rc "the whole course"
contains "$out" "00_probe: clean" "the clean one"
contains "$out" "expectations/01_two.yaml: error: no answer key" "the key is missing, named by path"
contains "$out" "lessons/05_unfinished: error:" "the folder without lesson.yaml"
contains "$out" "[lesson-missing]" "its check"
contains "$out" "lint: 3 lessons" "the summary"

json=$("$GRADER" lint 00_probe 01_two --format json 2>&1); rc=$?
expect_rc 1 $rc "json"
python3 - "$json" <<'PY' || fail "lint --format json"
import json, sys
d = json.loads(sys.argv[1])
assert d["clean"] is False and d["errors"] >= 1, d
l = {x["lesson"]: x for x in d["lessons"]}
assert l["00_probe"]["errors"] == 0 and l["01_two"]["errors"] >= 1, l
assert any(i["check"] == "key-missing" for i in l["01_two"]["issues"])
PY

# bad input
out=$("$GRADER" lint 99_none 2>&1); rc=$?
expect_rc 2 $rc "a lesson that does not exist"
contains "$out" "no lesson '99_none'" "says which"
"$GRADER" lint lessons/05_unfinished >/dev/null 2>&1; expect_rc 2 $? "a folder that is not a lesson"
"$GRADER" lint --strict >/dev/null 2>&1; expect_rc 2 $? "unknown option"
out=$("$GRADER" lint --help 2>&1); expect_rc 0 $? "--help"
contains "$out" "usage: grader lint [LESSON...]" "--help"

# a draft without a GPU yet (no recording, nothing verified): passes, the GPU checks pending
rm lessons/00_probe/traces/sm_90.json
sed -i 's/status: verified/status: unverified/' expectations/00_probe.yaml
out=$("$GRADER" lint 00_probe 2>&1); rc=$?
expect_rc 1 $rc "no recording, nothing verified, not a draft"
sed -i 's/^binary: wb_probe$/binary: wb_probe\ndraft: true/' lessons/00_probe/lesson.yaml
out=$("$GRADER" lint 00_probe 2>&1); rc=$?
expect_rc 0 $rc "the same lesson as a draft"
contains "$out" "pending: no recording" "the recording is pending"
contains "$out" "[key-no-verified]" "verifying is pending"
contains "$out" "00_probe: clean" "clean otherwise"
finish
