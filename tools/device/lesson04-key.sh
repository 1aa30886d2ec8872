#!/bin/bash
# Lesson 04's recording and answer key on the GPU machine: record every variant, set the answers of
# new questions from the recording (tools/device/key_from_replay.py prints each change), check the
# key against the recording, then live three times (grader verify --repeat 3). Everything comes
# back as $OUT/results.tgz.   tools/device/lesson04-key.sh BUILD_DIR   (from the repository root)
# REPEAT: runs per variant of the recording (grader record --repeat, default 3).
set -u
B=${1:-build}
export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=${OUT:-/tmp}/r
mkdir -p "$R"
exec > >(tee "$R/log.txt") 2>&1
L=lessons/04_gpt2_autodiff
K=expectations/04_gpt2_autodiff.yaml
"$B/bin/grader" record $L --repeat "${REPEAT:-3}" 2>&1 | tail -3
"$B/bin/grader" verify $L --replay > "$R/replay-before.txt" 2>&1; tail -25 "$R/replay-before.txt"
python3 tools/device/key_from_replay.py $K "$R/replay-before.txt" | tee "$R/key-changes.txt"
"$B/bin/grader" verify $L --replay 2>&1 | tail -4
"$B/bin/grader" verify $L --repeat 3 2>&1 | grep -v "^running" | tail -40
cp $K $L/traces/sm_90.json "$R/"; cp .workbench/runs/04_gpt2_autodiff/*record*/lesson-*.log "$R/" 2>/dev/null
ls -la $L/traces/
cd "${OUT:-/tmp}" && tar czf results.tgz r && rm -rf r && ls -la
