#!/bin/sh
# gemm_shapes_bench.sh: bench_gemm_shapes on the GPU machine: every GEMM of a GPT-2 124M step as
# lesson 04's engine plans it, beside cuBLASLt's other algorithms for the same descriptors, at the
# benchmark's size (B=16, T=1024), at the lesson's gpt2-124m variant (B=1) and at its tiny model
# (B=4, T=64, width 64, vocab 512): what each GEMM launches there, for the answer key's counts.
#
#   bench/gemm_shapes_bench.sh [BUILD_DIR]      (default build; run from the repository root)
#
# Environment: ITERS (default 20).
set -eu
build=${1:-build}
bin=$build/bin/bench_gemm_shapes
[ -x "$bin" ] || { echo "gemm_shapes_bench.sh: $bin not built" >&2; exit 2; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null || true
"$bin" 16 1024 "${ITERS:-20}"
"$bin" 1 1024 3
"$bin" 4 64 3 64 512
