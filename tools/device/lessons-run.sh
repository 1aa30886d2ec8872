#!/bin/bash
# Lessons 01-03 on the GPU machine: GPU tests, recordings, answer-key checks (with a flakiness
# check), and the benchmark against PyTorch. Usage: tools/device/lessons-run.sh BUILD_DIR
set -u
B=${1:-build}
export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
echo "== GPU tests (lessons and grader)"
ctest --test-dir $B -L gpu -E "engine|verify_live" --output-on-failure 2>&1 | tail -40
echo "== record"
for l in tests/grader/probe/lessons/00_probe lessons/01_matmul_add lessons/02_linear lessons/03_mlp; do
  $B/bin/grader record $l; echo "record $l exit $?"
done
echo "== verify --repeat 3 (live)"
for l in tests/grader/probe/lessons/00_probe lessons/01_matmul_add lessons/02_linear lessons/03_mlp; do
  $B/bin/grader verify $l --repeat 3; echo "verify $l exit $?"
done
echo "== benchmark"
bench/run_lessons_bench.sh 2>&1 | tail -60
mkdir -p $R/traces
for l in lessons/0*/traces/*.json tests/grader/probe/lessons/00_probe/traces/*.json; do
  n=$(echo $l | cut -d/ -f2); [ "$n" = grader ] && n=00_probe; cp $l $R/traces/$n-$(basename $l); done
cp $OUT/bench.md $R/ 2>/dev/null
cd $OUT && tar czf results.tgz r && rm -rf r && ls -la $OUT
