#!/bin/bash
# test_submit.sh GRADER: `grader submit` as a learner runs it, and its file as the gradebook takes
# it, on a copy of the probe course (../cli/lib.sh).
#
#   - nothing graded, or a lesson asked for that is not graded: exit 2, saying what to do
#   - the submission holds each fact's first and latest grading; a second grading after a fix
#     changes the latest only; the same progress gives the same bytes
#   - the course identity is the one computed from the course's files (gen_cohort.py's code)
#   - a learner's copy made by grader release has the checkout's identity: its submission is
#     imported in the checkout
#   - a live grading on a GPU the course has no recording of is graded against that GPU's key
#     where the key has it, and stays unverified where it has not
. "$(dirname "$0")/../cli/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
make_course
cd "$WORK" || exit 1

out=$("$GRADER" submit --name Ada --out "$WORK/none.json" 2>&1); rc=$?
expect_rc 2 $rc "submit before any grading"
contains "$out" "no lesson has been graded yet" "submit before any grading"
[ ! -e "$WORK/none.json" ] || fail "submit before any grading wrote a file"

# a first try with one wrong fact (3 kernels for two launches), then the fix
right_predictions "$WORK/lessons/00_probe/predictions.yaml" 00_probe
sed -i '0,/kernels: 2/s//kernels: 3/' "$WORK/lessons/00_probe/predictions.yaml"
"$GRADER" check 00_probe </dev/null >/dev/null 2>&1; rc=$?
expect_rc 1 $rc "the first check (one fact wrong)"
"$GRADER" submit --name Ada --out "$WORK/s1.json" >/dev/null; rc=$?
expect_rc 0 $rc "submit"
"$GRADER" submit --name Ada --out "$WORK/s1-again.json" >/dev/null
cmp -s "$WORK/s1.json" "$WORK/s1-again.json" || fail "the same progress gave two different submissions"
right_predictions "$WORK/lessons/00_probe/predictions.yaml" 00_probe
"$GRADER" check 00_probe </dev/null >/dev/null 2>&1; rc=$?
expect_rc 0 $rc "the second check (fixed)"
out=$("$GRADER" submit 00_probe --name Ada --out "$WORK/s2.json" 2>&1); rc=$?
expect_rc 0 $rc "submit 00_probe"
contains "$out" "Wrote $WORK/s2.json: 1 lesson" "submit 00_probe"
out=$("$GRADER" submit 01_two --name Ada --out "$WORK/s3.json" 2>&1); rc=$?
expect_rc 2 $rc "submit of a lesson not graded"
contains "$out" "lesson 01_two has not been graded yet: grade it first (grader check 01_two)" "submit of a lesson not graded"

python3 - "$WORK/s1.json" "$WORK/s2.json" "$WORK" "$HERE" <<'PY' || fail "the submissions do not hold what was graded"
import json, sys
sys.path.insert(0, sys.argv[4])
import gen_cohort
s1, s2 = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ids = {n: "sha256:" + gen_cohort.lesson_identity(sys.argv[3], n) for n in ("00_probe", "01_two")}
import hashlib
course = "sha256:" + hashlib.sha256("".join("%s %s\n" % (n, ids[n][7:]) for n in ("00_probe", "01_two")).encode()).hexdigest()
for s in (s1, s2):
    assert s["format"] == "gpu-workbench-submission" and s["version"] == 1 and s["learner"] == "Ada"
    assert s["course"]["id"] == course, (s["course"]["id"], course)
    assert s["course"]["lessons"] == {"00_probe": ids["00_probe"]}
    assert [l["lesson"] for l in s["lessons"]] == ["00_probe"]
def fact(s, q, f):
    return next(x for x in next(x for x in s["lessons"][0]["questions"] if x["id"] == q)["facts"] if x["fact"] == f)
k1, k2 = fact(s1, "two-kernels", "kernels"), fact(s2, "two-kernels", "kernels")
assert k1["first"]["predicted"] == 3 and k1["first"]["right"] is False and k1["first"]["actual"] == 2, k1
assert k1["latest"] == k1["first"]
assert k2["first"] == k1["first"], "the first try changed after a second grading"
assert k2["latest"]["predicted"] == 2 and k2["latest"]["right"] is True, k2
for k in (k1, k2):
    assert k["first"]["source"] == "replay" and k["first"]["arch"] == "sm_90" and k["first"]["gpu"]
assert s2["lessons"][0]["attempts"] == 2 and s2["lessons"][0]["revealed_before_grading"] is False
n = sum(len(q["facts"]) for q in s2["lessons"][0]["questions"])
assert n == 8, n
PY

# the instructor imports it; a submission made in the learners' release imports in the checkout too
out=$("$GRADER" gradebook import "$WORK/s2.json" --db "$WORK/gb.db" 2>&1); rc=$?
expect_rc 0 $rc "import of a learner's submission"
contains "$out" "Ada, 1 lesson, 8 facts regraded" "import of a learner's submission"
"$GRADER" release "$WORK/release" >/dev/null 2>&1 || fail "grader release"
mkdir -p "$WORK/release-state"
right_predictions "$WORK/release/lessons/00_probe/predictions.yaml" 00_probe
(cd "$WORK/release" && WB_ROOT=$WORK/release WB_STATE_DIR=$WORK/release-state "$GRADER" check 00_probe </dev/null >/dev/null 2>&1 &&
    WB_ROOT=$WORK/release WB_STATE_DIR=$WORK/release-state "$GRADER" submit --name Grace --out "$WORK/grace.json" >/dev/null) ||
    fail "check and submit in the release"
out=$("$GRADER" gradebook import "$WORK/grace.json" --db "$WORK/gb.db" 2>&1); rc=$?
expect_rc 0 $rc "import of a submission made in the release"
contains "$out" "Grace, 1 lesson, 8 facts regraded" "import of a submission made in the release"

# live on other GPUs: sm_80 has a verified key (the same answers), sm_86 has nothing
sed -i 's/^architectures:/architectures:\n  sm_80:\n    status: verified\n    verified_on: "the same answers as sm_90"\n    predictions:\n      - id: two-kernels\n        variant: eager\n        range: two_kernels\n        kernels: 2\n        kernels_named: {wb_probe_scale: 2}\n        api_calls: {cudaLaunchKernel: 2}/' \
    "$WORK/expectations/00_probe.yaml"
python3 - "$WORK/s1.json" "$WORK" <<'PY'
import json, sys
for who, arch in (("Bob", "sm_80"), ("Carl", "sm_86")):
    s = json.load(open(sys.argv[1]))
    s["learner"] = who
    for q in s["lessons"][0]["questions"]:
        for f in q["facts"]:
            for g in (f["first"], f["latest"]):
                g.update(source="live", arch=arch, gpu="another GPU")
    json.dump(s, open("%s/%s.json" % (sys.argv[2], who.lower()), "w"))
PY
"$GRADER" gradebook import "$WORK/bob.json" "$WORK/carl.json" --db "$WORK/gb.db" >/dev/null 2>&1; rc=$?
expect_rc 0 $rc "import of live gradings on other GPUs"
python3 - "$WORK/gb.db" <<'PY' || fail "live gradings on other GPUs are not graded as documented"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = dict(((n, l), (a, r)) for n, l, a, r in db.execute(
    "SELECT n.name, f.question || '/' || f.label, a.graded_against, a.right FROM attempts a JOIN learners n ON n.id = a.learner_id"
    " JOIN facts f ON f.id = a.fact_id WHERE a.try = 'first'"))
assert rows[("Bob", "two-kernels/kernels")] == ("key sm_80", 0), rows[("Bob", "two-kernels/kernels")]
assert rows[("Bob", "two-kernels/api_calls.cudaLaunchKernel")] == ("key sm_80", 1)
assert rows[("Bob", "memset/memsets")][0] == "nothing for sm_80"  # the sm_80 key does not answer it
assert rows[("Carl", "two-kernels/kernels")] == ("nothing for sm_86", 0)
status = dict(db.execute("SELECT n.name, ll.status FROM learner_lessons ll JOIN learners n ON n.id = ll.learner_id"))
assert status == {"Ada": "regraded", "Grace": "regraded", "Bob": "unverified", "Carl": "unverified"}, status
PY
finish
