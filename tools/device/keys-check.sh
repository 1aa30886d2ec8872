#!/bin/bash
# Answer keys live, N runs each, from a carried build (no recording is remade):
#   tools/device/keys-check.sh BUILD_DIR "06_data_parallel:5 03_mlp:5 04_gpt2_autodiff:3"
# Each lesson's grader verify output goes to $OUT/r/verify-<lesson>.txt, all of it in $OUT/keys-check.tgz.
set -u
B=${1:-build-dev}
. tools/device/gpu-env.sh
for item in ${2:-}; do
    n=${item%%:*} reps=${item##*:}
    $B/bin/grader verify lessons/$n --repeat "$reps" > $R/verify-$n.txt 2>&1
    echo "verify $n x$reps rc=$?"
    grep -E "flaky|differs|^  time|^    |holds|does not hold" $R/verify-$n.txt | grep -v "^running" | tail -12
done
date -u
tar czf $OUT/keys-check.tgz -C $OUT r
