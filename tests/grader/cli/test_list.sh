#!/bin/bash
# test_list.sh GRADER: `grader list` through a learner's course: not started, in progress,
# predicted, graded, regraded (the prediction lock), revealed, and a broken lesson.
. "$(dirname "$0")/lib.sh"
make_course
cd "$WORK"
P=lessons/00_probe/predictions.yaml

out=$("$GRADER" list 2>&1); rc=$?
expect_rc 0 $rc "fresh course"
contains "$out" "00_probe" "lists the lessons"
contains "$out" "01_two" "lists the lessons"
[ "$(grep -n '00_probe' <<<"$out" | head -1 | cut -d: -f1)" -lt "$(grep -n '01_two' <<<"$out" | head -1 | cut -d: -f1)" ] ||
    fail "course order is the NN prefix"
contains "$out" "not started" "fresh lessons are not started"
contains "$out" "Next: grader check lessons/00_probe" "suggests the first lesson"
[ -e $P ] && fail "grader list made the learner's predictions file"

# the first check makes the learner's file from the template (not on a terminal: lists what is open)
out=$("$GRADER" check lessons/00_probe </dev/null 2>&1); rc=$?
expect_rc 2 $rc "first check with every value open"
contains "$out" "Made your predictions file" "says it made the learner's file"
cmp -s $P lessons/00_probe/predictions.template.yaml || fail "the learner's file is a copy of the template"
out=$("$GRADER" list 2>&1)
contains "$out" "not started" "a fresh copy of the template is not started"

sed -i '0,/gemms: ~/s//gemms: 1/' $P
out=$("$GRADER" list 2>&1)
contains "$out" "in progress" "some values predicted"
contains "$out" "1 of 8 values predicted" "counts the values"

right_predictions $P 00_probe
out=$("$GRADER" list 2>&1)
contains "$out" "predicted" "every value predicted"
contains "$out" "ready to check" "every value predicted"

# graded: check replays the recording, records the score
out=$("$GRADER" check lessons/00_probe 2>&1); rc=$?
expect_rc 0 $rc "grader check with right predictions"
out=$("$GRADER" list 2>&1)
contains "$out" "graded" "after grading"
contains "$out" "8/8 first try" "score, as a first try"
contains "$out" "Next: grader check lessons/01_two" "moves on"

# the lock: change the graded file, grade again: regraded, first try kept apart
sed -i 's/gemms: 1/gemms: 2/' $P
out=$("$GRADER" list 2>&1)
contains "$out" "regraded" "edited after grading"
contains "$out" "edited since the last grading" "says the file changed"
lacks "$out" "8/8 first try" "never a first try once edited"
"$GRADER" check lessons/00_probe >/dev/null 2>&1; rc=$?
expect_rc 1 $rc "grader check with one wrong fact"
out=$("$GRADER" list 2>&1)
contains "$out" "regraded" "graded again after editing"
contains "$out" "7/8 now, first try 8/8" "latest score and first-try score apart"
json=$("$GRADER" list --format json 2>&1); rc=$?
expect_rc 0 $rc "list --format json"
python3 - "$json" <<'PY' || fail "JSON: regraded with both scores"
import json, sys
d = json.loads(sys.argv[1])
l = {x["lesson"]: x for x in d["lessons"]}
p = l["00_probe"]
assert p["state"] == "regraded" and p["right"] == 7 and p["first_right"] == 8 and p["total"] == 8, p
assert p["attempts"] == 2, p
assert l["01_two"]["state"] == "not started", l["01_two"]
assert d["next"].endswith("lessons/01_two"), d["next"]
PY

# revealed without predicting
"$GRADER" check lessons/01_two --reveal >/dev/null 2>&1; rc=$?
expect_rc 0 $rc "grader check --reveal"
out=$("$GRADER" list 2>&1)
contains "$out" "revealed" "trace shown first"
contains "$out" "trace seen before predicting" "says why"
right_predictions lessons/01_two/predictions.yaml 01_two
out=$("$GRADER" check lessons/01_two 2>&1)
contains "$out" "Every lesson is graded." "check's closing line once the last lesson is graded"
out=$(LANG=ja_JP.UTF-8 "$GRADER" check lessons/01_two 2>&1)
contains "$out" "すべてのレッスンを採点済みです。" "check's closing line in Japanese"
out=$("$GRADER" list 2>&1)
contains "$out" "after seeing the trace" "graded after a reveal is no first try"
contains "$out" "Every lesson is graded." "nothing left"

# another predictions file graded (--predictions): the lesson's own file was not edited, so list
# does not say so; it names the file graded
mkdir -p "$WORK/elsewhere"
right_predictions "$WORK/elsewhere/other.yaml" 01_two
echo "# the same answers, another file" >>"$WORK/elsewhere/other.yaml"
"$GRADER" check lessons/01_two --predictions "$WORK/elsewhere/other.yaml" >/dev/null 2>&1; expect_rc 0 $? "check --predictions OTHER"
out=$("$GRADER" list 2>&1)
lacks "$out" "edited since the last grading" "--predictions OTHER: the lesson's file was not edited"
contains "$out" "graded from other.yaml" "--predictions OTHER: names the file graded"
sed -i 's/gemms: 1/gemms: 2/' "$WORK/elsewhere/other.yaml"
out=$("$GRADER" list 2>&1)
contains "$out" "edited since the last grading" "--predictions OTHER edited after grading"

# hints are counted
"$GRADER" hint 00_probe >/dev/null 2>&1
out=$("$GRADER" list 2>&1)
contains "$out" "1 hint" "hints seen"

# a broken lesson.yaml: the others are still listed, exit 2, the file is named
sed -i 's/^binary: wb_probe/binary: wb_probe\nbinray: typo/' lessons/01_two/lesson.yaml
out=$("$GRADER" list 2>&1); rc=$?
expect_rc 2 $rc "a broken lesson.yaml"
contains "$out" "broken" "marks it"
contains "$out" "lessons/01_two/lesson.yaml" "names the file"
contains "$out" "00_probe" "lists the others"

# every row fits 80 columns, however long the titles and scores
sed -i 's/^title: .*/title: "probe: a program with a known trace, whose title is much longer than a terminal row can hold"/' lessons/00_probe/lesson.yaml
out=$(COLUMNS=80 "$GRADER" list 2>&1)
python3 - "$out" <<'PY' || fail "list rows at 80 columns"
import sys
bad = [l for l in sys.argv[1].split("\n") if len(l) > 80]
assert not bad, "over 80 columns: %r" % bad
PY
contains "$out" "probe: a program with a known trace" "the title is shown"

# usage
out=$("$GRADER" list --help 2>&1); rc=$?
expect_rc 0 $rc "--help"
contains "$out" "usage: grader list" "--help prints the usage"
"$GRADER" list --format yaml >/dev/null 2>&1; expect_rc 2 $? "bad --format"
out=$("$GRADER" list extra 2>&1); expect_rc 2 $? "unexpected argument"
[ "$(head -1 <<<"$out")" = "grader list: unexpected argument extra" ] || fail "unexpected argument: $(head -1 <<<"$out")"
out=$(LANG=ja_JP.UTF-8 "$GRADER" list extra 2>&1); expect_rc 2 $? "unexpected argument, in Japanese"
[ "$(head -1 <<<"$out")" = "grader list: 余分な引数 extra" ] || fail "unexpected argument, in Japanese: $(head -1 <<<"$out")"
# colours only on a terminal: none here
out=$("$GRADER" list 2>&1)
lacks "$out" $'\033[' "no colour when not a terminal"

# a draft lesson is out of the learners' course: not listed, never the next lesson
rm -rf .workbench
sed -i '/^binray: typo$/d' lessons/01_two/lesson.yaml # mended
sed -i 's/^binary: wb_probe$/binary: wb_probe\ndraft: true/' lessons/00_probe/lesson.yaml
out=$("$GRADER" list 2>&1); rc=$?
expect_rc 0 $rc "a course with a draft"
lacks "$out" "00_probe" "the draft is not listed"
contains "$out" "1 draft lesson not listed" "says a draft is left out"
contains "$out" "Next: grader check lessons/01_two" "the next lesson skips the draft"
out=$("$GRADER" check </dev/null 2>&1)
contains "$out" "Next lesson: " "check without a lesson"
lacks "$out" "00_probe" "check's next lesson skips the draft"
finish
