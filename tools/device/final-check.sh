#!/bin/bash
# Final check on the GPU machine: every GPU test, fresh recordings of every lesson and of the
# probe, the answer keys live three times each (flakiness), a live `grader check` report to quote,
# and the lessons 01-03 benchmark. Usage: tools/device/final-check.sh BUILD_DIR
set -u
B=${1:-build}
export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R/traces
exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "== all GPU tests"
ctest --test-dir $B -L gpu --output-on-failure 2>&1 | tail -25
echo "== recordings and answer keys (live, 3 runs each)"
for l in tests/grader/probe/lessons/00_probe lessons/01_matmul_add lessons/02_linear lessons/03_mlp lessons/04_gpt2_autodiff lessons/05_streams; do
  # 05_streams has time facts: lint checks them against the repeats a recording keeps
  case $l in lessons/05_streams) rep="--repeat 3" ;; *) rep="" ;; esac
  $B/bin/grader record $l $rep 2>&1 | tail -2
  $B/bin/grader verify $l --repeat 3 2>&1 | grep -v "^running" | tail -6
  n=$(basename $l); cp $l/traces/sm_90.json $R/traces/$n.json
done
echo "== a live grader check, with the answer key as predictions"
python3 - <<'PY'
import yaml
k = yaml.safe_load(open("expectations/01_matmul_add.yaml"))
yaml.safe_dump({"lesson": "01_matmul_add", "predictions": k["architectures"]["sm_90"]["predictions"]},
               open("/tmp/p01.yaml", "w"), sort_keys=False)
PY
NO_COLOR=1 $B/bin/grader check lessons/01_matmul_add --predictions /tmp/p01.yaml > $R/check-live-01.txt 2>&1; echo "check rc=$?"
head -60 $R/check-live-01.txt
echo "== lessons benchmark"
WB_BUILD_DIR=$B PYTHONUNBUFFERED=1 timeout 420 bench/run_lessons_bench.sh > $R/lessons-bench.txt 2>&1; echo "bench rc=$?"
tail -80 $R/lessons-bench.txt
cp $OUT/bench.md $OUT/bench.json $OUT/sass_lesson_03.txt $R/ 2>/dev/null
cd $OUT && tar czf results.tgz r && rm -rf r && ls -la
