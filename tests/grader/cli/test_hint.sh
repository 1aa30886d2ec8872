#!/bin/bash
# test_hint.sh GRADER: `grader hint`: one hint per call, remembered in the progress file, the next
# question when one runs out, and a clear message when none is left.
. "$(dirname "$0")/lib.sh"
make_course
cd "$WORK"

out=$("$GRADER" hint 00_probe 2>&1); rc=$?
expect_rc 0 $rc "first hint"
contains "$out" "Hint 1 of 2 for 'two-kernels'" "the first open question's first hint"
contains "$out" "Count the <<<>>>." "the hint's text"
contains "$out" "Q: How many kernels do two launches make?" "the question"
contains "$out" "1 more: grader hint 00_probe two-kernels" "says how to get the next"
lacks "$out" "Each <<<>>> is one cudaLaunchKernel." "one hint at a time"

out=$("$GRADER" hint lessons/00_probe 2>&1)
contains "$out" "Hint 2 of 2 for 'two-kernels'" "the next hint (lesson given as a folder)"
contains "$out" "Each <<<>>> is one cudaLaunchKernel." "the second hint's text"
contains "$out" "That was the last hint for 'two-kernels'." "says it was the last"

python3 - "$WB_STATE_DIR/progress.json" <<'PY' || fail "progress.json remembers the hints"
import json, sys
e = json.load(open(sys.argv[1]))["lessons"]["00_probe"]
assert e["hints_shown"] == {"two-kernels": 2}, e
PY

out=$("$GRADER" hint 00 2>&1)
contains "$out" "Hint 1 of 1 for 'memset'" "moves to the next question with hints (lesson given by number)"

out=$("$GRADER" hint 00_probe 2>&1); rc=$?
expect_rc 0 $rc "none left"
contains "$out" "No hints left in lesson 00_probe: you have seen all 3." "says none are left"

out=$("$GRADER" hint 00_probe two-kernels 2>&1); rc=$?
expect_rc 0 $rc "a question's hints again"
contains "$out" "No more hints for 'two-kernels': you have seen all 2." "says so"
contains "$out" "2. Each <<<>>> is one cudaLaunchKernel." "lists the hints seen"

out=$("$GRADER" hint 00_probe gemm 2>&1); rc=$?
expect_rc 0 $rc "a question without hints"
contains "$out" "Question 'gemm' of lesson 00_probe has no hints." "says so"

# a question already predicted is skipped while an open one has hints
rm -f "$WB_STATE_DIR/progress.json"
right_predictions lessons/01_two/predictions.yaml 01_two
sed -i '0,/memsets: 1/s//memsets: ~/' lessons/01_two/predictions.yaml
out=$("$GRADER" hint 01_two 2>&1)
contains "$out" "for 'memset'" "the open question first"

# errors
out=$("$GRADER" hint 00_probe nope 2>&1); rc=$?
expect_rc 2 $rc "unknown question"
contains "$out" "lessons/00_probe/lesson.yaml" "names the file"
contains "$out" "two-kernels, graph-kernels, memset, gemm" "lists the questions"
out=$("$GRADER" hint 99_none 2>&1); rc=$?
expect_rc 2 $rc "unknown lesson"
contains "$out" "no lesson '99_none'" "says which"
contains "$out" "00_probe, 01_two" "lists the lessons"
"$GRADER" hint >/dev/null 2>&1; expect_rc 2 $? "no lesson"
"$GRADER" hint 00_probe a b >/dev/null 2>&1; expect_rc 2 $? "too many arguments"
"$GRADER" hint --bogus >/dev/null 2>&1; expect_rc 2 $? "unknown option"
out=$("$GRADER" hint --help 2>&1); rc=$?
expect_rc 0 $rc "--help"
contains "$out" "usage: grader hint LESSON [QUESTION]" "--help"
finish
