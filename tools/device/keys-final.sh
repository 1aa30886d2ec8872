#!/bin/bash
# The final GPU check after an engine change, in one call from a carried build: lessons 04 and 06
# (the two that run the engine) recorded again (grader record --repeat 3), their keys' counts set
# from the recording (key_from_replay.py prints each change), checked in replay and live three
# times; every GPU test (with every other lesson's key live once); OTHERS=1 (default) every other
# key live three times more. The new keys and recordings come back
# in $OUT/final.tgz (copy them into the repository, then commit). LESSONS (default "04_gpt2_autodiff
# 06_data_parallel"), REPEAT (live runs, default 3), RECORD_REPEAT (runs
# the recording keeps, default 3), CTEST=0 skips the GPU tests.
#   tools/device/keys-final.sh BUILD_DIR        (from the repository root)
set -u
B=${1:-build-dev}
. tools/device/gpu-env.sh # NCCL from python3's package, NVLS off, WB_STATE_DIR, $R/log.txt
for n in ${LESSONS:-04_gpt2_autodiff 06_data_parallel}; do
    echo "== $n: record --repeat ${RECORD_REPEAT:-3}, key from the recording, replay, live x${REPEAT:-3}"
    L=lessons/$n K=expectations/$n.yaml
    timeout 300 $B/bin/grader record $L --repeat ${RECORD_REPEAT:-3} 2>&1 | tail -3
    $B/bin/grader verify $L --replay > $R/replay-before-$n.txt 2>&1; grep -E "differs|does not hold|holds" $R/replay-before-$n.txt | head -40
    python3 tools/device/key_from_replay.py $K $R/replay-before-$n.txt | tee $R/key-changes-$n.txt
    $B/bin/grader verify $L --replay 2>&1 | tail -3
    $B/bin/grader verify $L --repeat ${REPEAT:-3} > $R/verify-$n.txt 2>&1; echo "verify $n rc=$?"; grep -v "^running" $R/verify-$n.txt | tail -6
    mkdir -p $R/$n; cp $K $L/traces/sm_90.json $R/$n/
    tar czf $OUT/keys-$n.tgz -C $R $n replay-before-$n.txt key-changes-$n.txt verify-$n.txt 2>/dev/null ||
        tar czf $OUT/keys-$n.tgz -C $R $n # at once: a run cut short by its time limit still brings these back
done
if [ "${CTEST:-1}" = 1 ]; then
    echo "== all GPU tests"
    ctest --test-dir $B -L gpu --output-on-failure -j1 -E "(04_gpt2_autodiff|06_data_parallel)_verify_live" > $R/ctest-gpu.txt 2>&1
    echo "ctest rc=$? (each other lesson's key live once: its verify_live test)"
    grep -E "tests passed|tests failed|\*\*\*|Failed|Timeout" $R/ctest-gpu.txt | tail -30
fi
[ "${OTHERS:-1}" = 1 ] && echo "== the other answer keys live, 3 runs each"
[ "${OTHERS:-1}" = 1 ] && for l in tests/grader/probe/lessons/00_probe tests/grader/ranks/lessons/00_ranks lessons/01* lessons/02* lessons/03* lessons/05*; do
    n=$(basename $l)
    $B/bin/grader verify $l --repeat 3 > $R/verify-$n.txt 2>&1; echo "verify $n rc=$?"
    grep -v "^running" $R/verify-$n.txt | tail -2
done
date -u
cd $OUT && tar czf final.tgz r && rm -rf r
