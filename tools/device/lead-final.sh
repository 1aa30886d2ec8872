#!/bin/bash
# The lead's final check on the GPU machine, from a carried build of main (no build there): every
# GPU test, then every answer key live three times (`grader verify --repeat 3`), then a live
# `grader check` of lesson 01 with its key as predictions. Recordings are not remade here: each
# lesson's owner recorded it from the committed code. Results: $OUT/final.tgz.
#   Usage, from the repository root there: tools/device/lead-final.sh BUILD_DIR
set -u
B=${1:-build-dev}
. tools/device/gpu-env.sh # NCCL from python3's package, NVLS off, WB_STATE_DIR, $R/log.txt
echo "== all GPU tests"
ctest --test-dir $B -L gpu --output-on-failure -j1 > $R/ctest-gpu.txt 2>&1; echo "ctest rc=$?"
grep -E "tests passed|tests failed|\*\*\*|Failed|Timeout" $R/ctest-gpu.txt | tail -30
echo "== answer keys live, 3 runs each"
for l in tests/grader/probe/lessons/00_probe tests/grader/ranks/lessons/00_ranks lessons/0*; do
  n=$(basename $l)
  $B/bin/grader verify $l --repeat 3 > $R/verify-$n.txt 2>&1; echo "verify $n rc=$?"
  grep -v "^running" $R/verify-$n.txt | tail -4
done
echo "== a live grader check of lesson 01 with the answer key as predictions"
python3 - <<'PY'
import yaml
k = yaml.safe_load(open("expectations/01_matmul_add.yaml"))
yaml.safe_dump({"lesson": "01_matmul_add", "predictions": k["architectures"]["sm_90"]["predictions"]},
               open("/tmp/p01.yaml", "w"), sort_keys=False)
PY
COLUMNS=100 NO_COLOR=1 $B/bin/grader check lessons/01_matmul_add --predictions /tmp/p01.yaml < /dev/null > $R/check-live-01.txt 2>&1
echo "check rc=$?"; grep -E "Score|graded against" $R/check-live-01.txt
date -u
cd $OUT && tar czf final.tgz r && rm -rf r
