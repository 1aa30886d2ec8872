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
echo "== lesson programs (the ctest lesson_0[1-3] cases: each checks its result against the CPU)"
t() { "$@" > $OUT/last.txt 2>&1; rc=$?; echo "exit $rc: ${*#$B/bin/}"; [ $rc = 0 ] || tail -5 $OUT/last.txt; }
for v in eager graph; do for a in "--size 64 --steps 3" "--size 4096 --steps 2" "--size 67 --steps 2"; do
  t $B/bin/lesson_01_matmul_add --variant $v $a --warmup 1; done; done
for v in separate epilogue graph; do for a in "--steps 3" "--batch 8192 --in_dim 4096 --out_dim 4096 --steps 2" \
    "--batch 33 --in_dim 24 --out_dim 40 --steps 2"; do t $B/bin/lesson_02_linear --variant $v $a --warmup 1; done; done
t $B/bin/lesson_02_linear --variant separate --batch 33 --in_dim 17 --out_dim 45 --steps 2 --warmup 1
for v in eager fused merged graph; do for a in "--steps 3" "--batch 3 --seq 5 --dim 40 --hidden 100 --steps 2" \
    "--batch 2 --seq 64 --dim 64 --hidden 104 --steps 2"; do t $B/bin/lesson_03_mlp --variant $v $a --warmup 1; done; done
for a in "--iters 5" "--rows 37 --cols 1001 --iters 3" "--rows 1000 --cols 24 --iters 3"; do t $B/bin/bench_gelu_mul $a; done
echo "== calibration"; $B/bin/wb_calibrate; echo "exit $?"
for l in 01_matmul_add 02_linear 03_mlp; do
  echo "== record $l"; $B/bin/grader record $ROOT/lessons/$l --repeat 3; echo "record $l exit $?"
  mkdir -p $OUT/traces/$l; cp $ROOT/lessons/$l/traces/sm_90.json $OUT/traces/$l/
  echo "== verify $l"; $B/bin/grader verify $ROOT/lessons/$l --repeat 3; echo "verify $l exit $?"
done
