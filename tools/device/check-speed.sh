#!/bin/bash
# How long `grader check LESSON` takes live, from a carried build, and where the time goes:
#   tools/device/check-speed.sh BUILD_DIR [LESSON] [RUNS]      (defaults: build-dev 03_mlp 4)
# Fills a predictions file from the lesson's template (every count 1, every bound memory: the
# score does not matter, only that nothing is left open), then runs the check RUNS times with a
# fresh state folder: the first run measures the calibration, the later ones may reuse it (a build
# without the calibration cache measures every time). Each run's wall time (date, around the
# whole command) is printed; with WB_TIMINGS=1 a build that knows it adds its phase lines
# (timing: ...) and each variant's capture-library lines from the run folder's logs.
# Output: $OUT/r/log.txt, in $OUT/check-speed-<build>.tgz.
set -u
B=${1:-build-dev}
LESSON=${2:-03_mlp}
RUNS=${3:-4}
. tools/device/gpu-env.sh
export WB_STATE_DIR=/tmp/wb-speed-$(basename "$B")
rm -rf "$WB_STATE_DIR"
P=/tmp/wb-speed-predictions.yaml
sed -e 's/bound: ~/bound: memory/' -e 's/: ~$/: 1/' lessons/$LESSON/predictions.template.yaml >$P
for i in $(seq 1 "$RUNS"); do
    t0=$(date +%s.%N)
    WB_TIMINGS=1 NO_COLOR=1 $B/bin/grader check lessons/$LESSON --predictions $P </dev/null >$R/check-$i.txt 2>&1
    rc=$?
    t1=$(date +%s.%N)
    echo "run $i: grader check $LESSON rc=$rc wall $(python3 -c "print(f'{$t1 - $t0:.3f}')") s"
    grep -E "^timing:|measur|cached" $R/check-$i.txt | sed 's/^/    /'
    for log in $(ls -td $WB_STATE_DIR/runs/*/*/ | head -1)lesson-*.log; do
        [ -f "$log" ] && grep "^timing:" "$log" | sed "s|^|    $(basename "$log" .log): |"
    done
done
date -u
tar czf $OUT/check-speed-$(basename "$B").tgz -C $OUT r
