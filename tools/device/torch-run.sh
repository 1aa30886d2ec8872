#!/bin/bash
# The PyTorch variants of lessons 01-03 on the GPU machine, from a carried tree (.dev/torch with
# its build-dev):
#   tools/device/torch-run.sh record [BUILD_DIR]   remakes the three recordings (C and PyTorch
#       variants together, --repeat 3); brings back the recordings and every run's output, and
#       captures tools/device/torch_claims.py (lessons 04 and 05's statements about PyTorch)
#   tools/device/torch-run.sh verify [BUILD_DIR]   the answer keys live (--repeat 3), grader diff of
#       lesson 02's epilogue against nn.Linear, the Python NVTX GPU test
# Everything lands in $OUT/torch-<mode>.tgz (r/log.txt is the whole console). Each lesson is
# bounded (timeout), so that a torch.compile that hangs cannot take the call's ten minutes.
set -u
MODE=${1:-record} B=${2:-build-dev}
. tools/device/gpu-env.sh
export WB_LESSON_TIMEOUT=150 PYTHONUNBUFFERED=1
python3 -c "import torch, triton; print('torch', torch.__version__, 'built for CUDA', torch.version.cuda, 'triton', triton.__version__)"
lessons="02_linear:150 01_matmul_add:180 03_mlp:240"
case $MODE in
record)
  # lesson READMEs' two other statements about PyTorch, captured as the grader would
  CAP=$PWD/$B/lib/libwb_capture.so
  CUDA_INJECTION64_PATH=$CAP NVTX_INJECTION64_PATH=$CAP WB_CAPTURE_OUT=$R/claims.json timeout 120 python3 tools/device/torch_claims.py
  python3 tools/device/capture_facts.py $R/claims.json pageable_nb call pinned_nb residual_bwd AddBackward0 aten::add 2>&1 | cut -c1-600
  for item in $lessons; do
    l=${item%%:*} limit=${item##*:}
    timeout $limit $B/bin/grader record lessons/$l --repeat 3; rc=$?
    echo "record $l rc=$rc ($(date -u +%T))"
    [ $rc -eq 0 ] && cp lessons/$l/traces/sm_90.json $R/$l-sm_90.json
  done
  ;;
verify)
  for item in $lessons; do
    l=${item%%:*} limit=${item##*:}
    timeout $limit $B/bin/grader verify lessons/$l --repeat 3 > $R/verify-$l.txt 2>&1
    echo "verify $l x3 rc=$? ($(date -u +%T))"
    grep -vE "^(repeat [0-9]+: )?running |^measuring" $R/verify-$l.txt
  done
  NO_COLOR=1 $B/bin/grader diff lessons/02_linear:epilogue lessons/02_linear:torch-linear 2>&1 | tee $R/diff-02.txt | head -60
  tests/grader/gpu_python_nvtx.sh $B/bin/grader; echo "gpu_python_nvtx rc=$?"
  ;;
esac
# every run's output and the interpreter probe, for what the report does not show
mkdir -p $R/runs
for f in /tmp/wb-state/runs/*/*/lesson-*.log /tmp/wb-state/python-probe.log; do
  [ -f "$f" ] && cp "$f" "$R/runs/$(basename "$(dirname "$(dirname "$f")")")-$(basename "$f")"
done
date -u
tar czf $OUT/torch-$MODE.tgz -C $OUT r && rm -rf $R && ls -la $OUT
