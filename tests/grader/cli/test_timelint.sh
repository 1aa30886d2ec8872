#!/bin/bash
# test_timelint.sh GRADER: grader lint's time checks on a copy of lesson 01 (its H200 recording
# keeps the calibration and two repeats): clean as shipped; then one break at a time, each found
# by its check: a tolerance so wide that twice the answer passes (time-too-lenient), a time answer
# off by a factor of 2 (key-differs), a repeat where the time left its band (time-unstable), a
# bound without declared work (work-missing), a recording without repeats (time-no-repeats, a
# warning) or without calibration (the bound cannot be judged).
. "$(dirname "$0")/lib.sh"
SRC=$WB_SOURCE_DIR
L=lessons/01_matmul_add
mkdir -p "$WORK/$L/traces" "$WORK/expectations"
cp "$SRC/$L/lesson.yaml" "$SRC/$L/predictions.template.yaml" "$SRC/$L/README.md" "$SRC/$L/CMakeLists.txt" "$WORK/$L/"
cp "$SRC/$L/traces/sm_90.json" "$WORK/$L/traces/"
cp "$SRC/expectations/01_matmul_add.yaml" "$WORK/expectations/"
cd "$WORK"
K=expectations/01_matmul_add.yaml T=$L/traces/sm_90.json

out=$("$GRADER" lint 01 2>&1); rc=$?
expect_rc 0 $rc "lesson 01 as shipped"
contains "$out" "01_matmul_add: clean" "says clean"

check() { # what, file, command that breaks it, expected exit, expected text
    cp "$2" "$WORK/saved"
    eval "$3"
    out=$("$GRADER" lint 01 2>&1); rc=$?
    expect_rc "$4" $rc "$1"
    contains "$out" "$5" "$1"
    cp "$WORK/saved" "$2"
}
edit_json() { python3 -c "import json,sys; r=json.load(open('$T')); $1; json.dump(r, open('$T','w'))"; }
check "a 60% tolerance" $L/lesson.yaml \
    "sed -i '/id: large-bias-time/,/ask:/ s/^    facts: \[gpu_us, bound\]/&\n    tolerance: 60%/' $L/lesson.yaml" 1 "[time-too-lenient]"
check "a time answer twice the actual" $K "sed -i 's/gpu_us: 15.5/gpu_us: 31/' $K" 1 "answers gpu_us of 'large-bias-time' with 31"
check "a repeat where the bias kernel ran 3x longer" $T \
    "edit_json \"[t.update(gpu_us=[3*x for x in t['gpu_us']]) for t in r['repeats'][1]['ranges'] if t['range'] == 'bias_add']\"" \
    1 "but not in repeat 3"
check "a repeat where the bias kernel ran 3x longer" $T \
    "edit_json \"[t.update(gpu_us=[3*x for x in t['gpu_us']]) for t in r['repeats'][1]['ranges'] if t['range'] == 'bias_add']\"" \
    1 "[time-unstable]"
check "a bound without declared work" $L/lesson.yaml "python3 -c \"
p='$L/lesson.yaml'; s=open(p).read(); i=s.rindex('  - variant: eager-4096'); open(p,'w').write(s[:i])\"" 1 "[work-missing]"
check "a recording without repeats" $T "edit_json \"r.pop('repeats')\"" 0 "[time-no-repeats]"
check "a recording without calibration" $T "edit_json \"r.pop('calibration')\"" 1 "holds no calibration of the GPU"
# the same finding whole (COLUMNS=400: one line), in English and in Japanese
cp $T "$WORK/saved" && edit_json "r.pop('calibration')"
out=$(COLUMNS=400 "$GRADER" lint 01 2>&1)
grep -qFx "$T: error: $T holds no calibration of the GPU (copy bandwidth, matrix rate), which prediction 'large-step' needs for its bound; re-record the lesson with grader record, or check live [key-differs]" <<<"$out" ||
    fail "a recording without calibration: $out"
out=$(COLUMNS=400 LANG=ja_JP.UTF-8 "$GRADER" lint 01 2>&1)
grep -qFx "$T: エラー: $T には GPU の較正 (コピー帯域、行列演算の性能) がありません。予測 'large-step' のバウンドを判定するのに必要です。grader record でレッスンを記録し直すか、実機で採点してください [key-differs]" <<<"$out" ||
    fail "a recording without calibration, in Japanese: $out"
cp "$WORK/saved" $T
finish
