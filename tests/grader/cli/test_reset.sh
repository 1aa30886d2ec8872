#!/bin/bash
# test_reset.sh GRADER: `grader reset` starts a lesson again from its template: the learner's file
# is kept as a backup (never replaced), the first-try score stays, the lesson becomes the next one;
# without a template nothing changes.
. "$(dirname "$0")/lib.sh"
make_course
cd "$WORK"
P=lessons/00_probe/predictions.yaml
T=lessons/00_probe/predictions.template.yaml

right_predictions $P 00_probe
sed -i 's/gemms: 1/gemms: 2/' $P # one wrong: first try 7/8
"$GRADER" check 00_probe >/dev/null 2>&1; expect_rc 1 $? "first grading, one wrong"
cp $P "$WORK/graded.yaml"

out=$("$GRADER" reset 00_probe 2>&1); rc=$?
expect_rc 0 $rc "reset"
contains "$out" "kept in lessons/00_probe/predictions.yaml.bak" "names the backup"
cmp -s $P $T || fail "after reset the learner's file is the template"
cmp -s $P.bak "$WORK/graded.yaml" || fail "the backup is the graded file"
out=$("$GRADER" list 2>&1)
contains "$out" "started again" "list says the lesson started again"
contains "$out" "first try 7/8 kept" "list keeps the first try"
lacks "$out" "not started started again" "the state and its note do not contradict"
lacks "$(grep 00_probe <<<"$out")" "not started" "a lesson started again is not 'not started'"
contains "$out" "Next: grader check lessons/00_probe" "the reset lesson is next"
python3 - "$WORK/.workbench/progress.json" <<'PY' || fail "progress after reset"
import json, sys
p = json.load(open(sys.argv[1]))["lessons"]["00_probe"]
assert p["state"] == "reset" and p["resets"] == 1 and p["first_right"] == 7 and p["first_total"] == 8, p
PY

# answered right this time: a regrading, never a first try
right_predictions $P 00_probe
"$GRADER" check 00_probe >/dev/null 2>&1; expect_rc 0 $? "grading after reset"
out=$("$GRADER" list 2>&1)
contains "$out" "8/8 now, first try 7/8" "the first try stays apart"

# a second reset: a second backup, the first one untouched
cp $P "$WORK/second.yaml"
"$GRADER" reset 00_probe >/dev/null 2>&1; expect_rc 0 $? "second reset"
cmp -s $P.bak "$WORK/graded.yaml" || fail "the first backup changed"
cmp -s $P.bak.2 "$WORK/second.yaml" || fail "the second backup is the second file"

# no template: exit 2, the learner's file as it was, no backup made
right_predictions $P 00_probe
cp $P "$WORK/third.yaml"
mv $T "$WORK/template.saved"
out=$("$GRADER" reset 00_probe 2>&1); rc=$?
expect_rc 2 $rc "reset without a template"
contains "$out" "predictions.template.yaml" "names the missing template"
cmp -s $P "$WORK/third.yaml" || fail "the learner's file changed"
[ -e $P.bak.3 ] && fail "a backup was made although nothing changed"
mv "$WORK/template.saved" $T

# a file that is still the untouched template: no backup piles up, by reset or by answering
rm -f lessons/01_two/predictions.yaml*
cp lessons/01_two/predictions.template.yaml lessons/01_two/predictions.yaml
for i in 1 2 3; do "$GRADER" reset 01_two >/dev/null 2>&1; expect_rc 0 $? "reset of an untouched template"; done
ls lessons/01_two/predictions.yaml.bak* >/dev/null 2>&1 && fail "reset of an untouched template made backups: $(ls lessons/01_two)"
out=$(python3 "$(dirname "$0")/pty_drive.py" --timeout 60 "? " "2\n" "? " "q\n" -- "$GRADER" check 01_two 2>&1)
ls lessons/01_two/predictions.yaml.bak* >/dev/null 2>&1 && fail "answering into the untouched template made a backup: $(ls lessons/01_two)"
lacks "$out" "previous file is kept" "no backup is announced"
grep -q "kernels: 2" lessons/01_two/predictions.yaml || fail "the answer is saved"
out=$(python3 "$(dirname "$0")/pty_drive.py" --timeout 60 "? " "1\n" "? " "q\n" -- "$GRADER" check 01_two 2>&1)
[ -f lessons/01_two/predictions.yaml.bak ] || fail "answering into a file with answers keeps a backup"

"$GRADER" reset >/dev/null 2>&1; expect_rc 2 $? "reset without a lesson"
"$GRADER" reset 99_none >/dev/null 2>&1; expect_rc 2 $? "reset of no lesson"
finish
