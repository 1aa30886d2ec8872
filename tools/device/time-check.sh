#!/bin/bash
# Lessons 01-03 with their time facts on the GPU machine, from a carried build (no build there):
# the calibration alone, then for each lesson `grader record --repeat 3` (captures, calibration,
# output, two more runs' range times) and `grader verify --repeat 3` (the key live, three times).
# Everything lands in $OUT. Usage, from the repository root there:
#   tools/device/time-check.sh BUILD_DIR COURSE_ROOT     # e.g. .dev/time/devbuild .dev/time
set -u
B=$1 ROOT=$2
export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
export WB_ROOT=$PWD/$ROOT WB_STATE_DIR=$OUT/state
exec > >(tee $OUT/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
echo "== calibration"; $B/bin/wb_calibrate; echo "exit $?"
for l in 01_matmul_add 02_linear 03_mlp; do
  echo "== record $l"; $B/bin/grader record $ROOT/lessons/$l --repeat 3; echo "record $l exit $?"
  mkdir -p $OUT/traces/$l; cp $ROOT/lessons/$l/traces/sm_90.json $OUT/traces/$l/
  echo "== verify $l"; $B/bin/grader verify $ROOT/lessons/$l --repeat 3; echo "verify $l exit $?"
done
