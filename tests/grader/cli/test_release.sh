#!/bin/bash
# test_release.sh GRADER: `grader release DIR` writes a learner's copy of the course: no answer key
# (sealed instead: no answer values or explanations in any file), no draft lesson, no learner's
# file or state; in that copy grader check still grades, and each explanation opens only once its
# question is graded against a capture that agrees with the verified answers.
. "$(dirname "$0")/lib.sh"
make_course
cd "$WORK"
sed -i 's/^binary: wb_probe$/binary: wb_probe\ndraft: true/' lessons/01_two/lesson.yaml # a draft: left out
right_predictions lessons/00_probe/predictions.yaml 00_probe # a learner's file: never released
mkdir -p .workbench && echo '{}' >.workbench/progress.json
sed 's/^lesson: 00_probe/lesson: 01_two/' expectations/00_probe.yaml >expectations/01_two.yaml # a draft's key
cp expectations/00_probe.yaml expectations/00_probe.yaml~ # an editor's backup
cp expectations/00_probe.yaml expectations/00_probe.orig  # a merge's leftover
mkdir -p expectations/old tests/corpus && cp expectations/00_probe.yaml expectations/old/
cp expectations/00_probe.yaml tests/corpus/seed.yaml      # a copy of the key outside expectations/
R=$(dirname "$WORK")/$(basename "$WORK")-release # not through $WORK: the trap removes it first
trap 'rm -rf "$WORK" "$R"' EXIT

out=$("$GRADER" release "$R" 2>&1); rc=$?
expect_rc 0 $rc "release"
contains "$out" "1 answer key sealed" "says what it sealed"
contains "$out" "1 draft lesson left out" "says what it left out"
[ -f "$R/lessons/00_probe/predictions.template.yaml" ] || fail "the template is released"
[ -f "$R/lessons/00_probe/traces/sm_90.json" ] || fail "the recording is released"
[ -x "$R/common/wb_steps.c" ] && fail "modes: a source file became executable"
[ -e "$R/lessons/00_probe/predictions.yaml" ] && fail "a learner's predictions were released"
[ -e "$R/.workbench" ] && fail "the grader's state was released"
[ -e "$R/lessons/01_two" ] && fail "a draft lesson was released"
[ -e "$R/expectations/00_probe.yaml" ] && fail "the answer key was released"
[ -f "$R/expectations/00_probe.sealed.json" ] || fail "no sealed key"
[ -e "$R/expectations/01_two.sealed.json" ] && fail "the draft lesson's key was sealed into the release"
extra=$(cd "$R/expectations" && ls -A | grep -vx '00_probe.sealed.json')
[ -z "$extra" ] || fail "expectations/ holds more than the sealed key: $extra"
[ -e "$R/tests/corpus/seed.yaml" ] && fail "a copy of the answer key outside expectations/ was released"
contains "$out" "other key files left out" "says it left the other key files out"
for text in "Two launches, two kernels." "One cudaGraphLaunch replays both." "cuBLAS runs one nvjet kernel."; do
    grep -rqF "$text" "$R" && fail "an explanation is readable in the release: $text"
done
python3 - "$R/expectations/00_probe.sealed.json" <<'PY' || fail "the sealed key holds no answer values"
import json, sys
k = json.load(open(sys.argv[1]))
assert k["architectures"]["sm_90"]["status"] == "verified", k
assert set(k) == {"format", "version", "lesson", "about", "architectures", "explanations"}, set(k)
assert all(set(a) <= {"status", "verified_on"} for a in k["architectures"].values()), k["architectures"]
assert all(set(e) == {"id", "arch", "salt", "iv", "data", "tag"} for e in k["explanations"]), k["explanations"]
assert {e["id"] for e in k["explanations"]} == {"two-kernels", "graph-kernels", "memset", "gemm"}, k["explanations"]
PY
out=$("$GRADER" release "$R" 2>&1); rc=$?
expect_rc 2 $rc "a folder that is not empty"
contains "$out" "not empty" "says why"

# in the released copy: grading works, each graded question's explanation opens, none other
cd "$R"
export WB_ROOT=$R WB_STATE_DIR=$R/.workbench
right_predictions "$WORK/right.yaml" 00_probe
sed -i 's/gemms: 1/gemms: 2/' "$WORK/right.yaml" # a wrong answer does not keep the explanation shut
out=$("$GRADER" check 00_probe --predictions "$WORK/right.yaml" --variant graph </dev/null 2>&1); rc=$?
expect_rc 0 $rc "check --variant graph in the release"
contains "$out" "One cudaGraphLaunch replays both." "the graded question's explanation"
lacks "$out" "Two launches, two kernels." "no explanation of a question not graded"
out=$("$GRADER" check 00_probe --predictions "$WORK/right.yaml" </dev/null 2>&1); rc=$?
expect_rc 1 $rc "the full check, one fact wrong"
contains "$out" "Score: 7 of 8" "graded against the recording"
contains "$out" "Two launches, two kernels." "explanations after grading"
contains "$out" "cuBLAS runs one nvjet kernel." "the wrongly answered question's explanation too"
# a capture that differs from the verified answers opens nothing
python3 - lessons/00_probe/traces/sm_90.json "$WORK/other.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for run in r["runs"]:
    c = run["capture"]
    k = [x for x in c["kernels"] if x["name"].startswith("nvjet")]
    c["kernels"] = [x for x in c["kernels"] if x not in k]
json.dump(r, open(sys.argv[2], "w"))
PY
out=$("$GRADER" check 00_probe --predictions "$WORK/right.yaml" --replay "$WORK/other.json" </dev/null 2>&1)
contains "$out" "stay sealed: this capture differs" "says why an explanation stays sealed"
lacks "$out" "cuBLAS runs one nvjet kernel." "the question whose answer differs stays sealed"
contains "$out" "Two launches, two kernels." "the others open"
out=$("$GRADER" lint 2>&1); rc=$?
expect_rc 0 $rc "lint in the released copy"
contains "$out" "[key-sealed]" "says the key is sealed"
# a sealed key that is not one (another format, then no JSON at all): grading goes on, and the
# note says why no explanation opens, whole, in English and in Japanese (COLUMNS=400: one line)
cp expectations/00_probe.sealed.json "$WORK/sealed.json"
key=$R/lessons/00_probe/../../expectations/00_probe.sealed.json
for broken in '{"format": "something else"}' 'not json'; do
    printf '%s\n' "$broken" >expectations/00_probe.sealed.json
    at=$key; [ "$broken" = 'not json' ] && at=$key:1
    out=$(COLUMNS=400 "$GRADER" check 00_probe --predictions "$WORK/right.yaml" </dev/null 2>&1); rc=$?
    expect_rc 1 $rc "a sealed key that is not one ($broken): grading goes on"
    grep -qFx "note: explanations unavailable: $at: not a sealed answer key (grader release writes them)" <<<"$out" ||
        fail "a sealed key that is not one ($broken): $(grep -F 'note:' <<<"$out")"
    out=$(COLUMNS=400 LANG=ja_JP.UTF-8 "$GRADER" check 00_probe --predictions "$WORK/right.yaml" </dev/null 2>&1); rc=$?
    expect_rc 1 $rc "a sealed key that is not one ($broken), in Japanese: grading goes on"
    grep -qFx "注意: 解説を表示できません: $at: 封印した解答キーではありません (grader release が書き出すファイルです)" <<<"$out" ||
        fail "a sealed key that is not one ($broken), in Japanese: $(grep -F '注意:' <<<"$out")"
done
cp "$WORK/sealed.json" expectations/00_probe.sealed.json
finish
