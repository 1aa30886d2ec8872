#!/bin/bash
# gpt2_profile.sh: lesson 04's CUDA backend on the GPU machine, in one call: the correctness tests
# first (every primitive against the CPU backend, the whole model against the PyTorch fixture),
# then one CUPTI capture of GPT-2 124M training (B=16, T=1024, bf16) per attention spelling,
# summarised per kernel by tools/capture_summary.py (us per step, launches per step), then,
# with BENCH=1, bench/gpt2_bench.sh (tokens/s next to PyTorch; not under capture).
#
#   bench/gpt2_profile.sh [BUILD_DIR]     (run from the repository root; default build)
#
# Writes the logs and captures under $OUT/gpt2_profile (or /tmp/gpt2_profile). Environment:
# ATTN (default "flash bmm"), STEPS (captured steps, default 3),
# BENCH=1, FIXTURE (a fixture file; default the committed one).
set -u
B=${1:-build}
export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=${OUT:-/tmp}/gpt2_profile
mkdir -p "$R"
L=lessons/04_gpt2_autodiff
CUPTI=$(ls /usr/local/cuda/targets/x86_64-linux/lib/libcupti.so.13* 2>/dev/null | head -1)
steps=${STEPS:-3}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader

echo "== gpu_engine_ops (CUDA vs CPU, every primitive)"
"$B/bin/gpu_engine_ops" > "$R/ops.txt" 2>&1
echo "rc=$?"; grep -E "FAIL|passed" "$R/ops.txt"
echo "== gpu_engine_fixture (whole model vs PyTorch)"
WB_GPT2_FIXTURE=${FIXTURE:-$L/fixtures/gpt2_tiny.bin} "$B/bin/gpu_engine_fixture" > "$R/fixture.txt" 2>&1
echo "rc=$?"; grep -E "FAIL|passed" "$R/fixture.txt"

for attn in ${ATTN:-flash bmm}; do
    echo "== capture: GPT-2 124M, --attn $attn, $steps steps after 2 warm-up steps"
    env CUDA_INJECTION64_PATH=$PWD/$B/lib/libwb_capture.so NVTX_INJECTION64_PATH=$CUPTI WB_CAPTURE_OUT=$R/$attn.json \
        "$B/bin/lesson_04_gpt2_autodiff" --backend cuda --attn "$attn" --preset 124m --data random --vocab 50257 \
        --steps $((steps + 2)) --profile-warmup 2 --log-every 1 --out "$R/out-$attn" > "$R/$attn.log" 2>&1
    echo "rc=$?"; grep -E "^step|^summary" "$R/$attn.log" | tail -4
    python3 tools/capture_summary.py "$R/$attn.json" 2>&1 | head -45 | tee "$R/$attn-summary.txt"
done

if [ "${BENCH:-0}" = 1 ]; then
    echo "== bench/gpt2_bench.sh"
    bench/gpt2_bench.sh "$B" 2>&1 | tee "$R/bench.txt" | tail -8
fi
