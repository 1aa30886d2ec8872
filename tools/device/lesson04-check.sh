#!/bin/bash
# Lesson 04 on the GPU machine, correctness part: the PyTorch fixture, the CUDA-vs-CPU primitive
# test, the whole-model comparison, short training smokes, and the grader's recordings of the
# probe and of lesson 04 with a live answer-key check. Usage: tools/device/lesson04-check.sh BUILD
set -u
B=${1:-build}
export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/r; mkdir -p $R
exec > >(tee $R/log.txt) 2>&1
L=lessons/04_gpt2_autodiff
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== fixture"; python3 $L/scripts/make_fixture.py --out $OUT/gpt2_tiny.bin; echo "fixture rc=$?"
echo "== gpu_engine_ops"; $B/bin/gpu_engine_ops > $R/ops.txt 2>&1; echo "ops rc=$?"; tail -15 $R/ops.txt
echo "== gpu_engine_fixture"; WB_GPT2_FIXTURE=$OUT/gpt2_tiny.bin $B/bin/gpu_engine_fixture > $R/fixture.txt 2>&1; echo "fixture test rc=$?"; tail -25 $R/fixture.txt
for attn in bmm flash; do
  heads=2; [ $attn = flash ] && heads=1
  echo "== smoke $attn"; timeout 120 $B/bin/lesson_04_gpt2_autodiff --attn $attn --heads $heads --steps 30 --out /tmp/s-$attn > $R/smoke-$attn.txt 2>&1; echo "smoke $attn rc=$?"; tail -6 $R/smoke-$attn.txt
done
echo "== probe record + verify"
$B/bin/grader record tests/grader/probe/lessons/00_probe && $B/bin/grader verify tests/grader/probe/lessons/00_probe; echo "probe rc=$?"
cp tests/grader/probe/lessons/00_probe/traces/sm_90.json $R/probe-sm_90.json
echo "== lesson 04 record + verify"
$B/bin/grader record $L; echo "record rc=$?"
$B/bin/grader verify $L --replay; echo "verify rc=$?"
cp $L/traces/sm_90.json $R/l04-sm_90.json 2>/dev/null
$B/bin/grader check $L --reveal > $R/l04-reveal.txt 2>&1; head -120 $R/l04-reveal.txt
$B/bin/grader lint $L; echo "lint rc=$?"
cd $OUT && tar czf results.tgz r && rm -rf r && ls -la
