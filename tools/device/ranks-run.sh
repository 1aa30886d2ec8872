#!/bin/bash
# ranks' device run, from a carried build (no build there): `grader record` of the test lesson of
# two processes (tests/grader/ranks; its recording is committed for the replay test), then the
# multi-process capture test on one GPU (tests/grader/ranks_capture.sh: the ranks' own capture
# files, grader verify and grader check live, a missing rank). Results: four files in $OUT.
#   Usage, from the repository root there: tools/device/ranks-run.sh WORKTREE BUILD_DIR
set -u
cd "${1:-.}"
B=${2:-build-dev}
export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
export WB_STATE_DIR=/tmp/wb-state NO_COLOR=1
exec > >(tee $OUT/log.txt) 2>&1
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== grader record"
s=$(date +%s%N)
$B/bin/grader record tests/grader/ranks/lessons/00_ranks > $OUT/record.txt 2>&1; echo "record rc=$? in $(ms $s) ms"; tail -3 $OUT/record.txt
cp tests/grader/ranks/lessons/00_ranks/traces/sm_90.json $OUT/ 2>/dev/null
echo "== ranks_capture.sh"
s=$(date +%s%N)
WB_SOURCE_DIR=$PWD tests/grader/ranks_capture.sh $PWD/$B/bin/grader $PWD/$B/bin/wb_ranks > $OUT/ranks_capture.txt 2>&1
echo "ranks_capture rc=$? in $(ms $s) ms"; grep -E "FAIL|Score|passed|failure" $OUT/ranks_capture.txt
date -u
