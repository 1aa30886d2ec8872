#!/bin/sh
# flash_attn_bench.sh: lesson 04's flash-attention kernels (bench_flash_attn: the engine's and
# the mma.sync kernels of rounds 4-5) and PyTorch's scaled_dot_product_attention backends, at GPT-2 124M's shape, in one run
# on the same GPU.
#
#   bench/flash_attn_bench.sh [BUILD_DIR]      (default build; run from the repository root)
#
# Environment: ITERS (default 20), SKIP_TORCH=1.
set -eu
build=${1:-build}
bin=$build/bin/bench_flash_attn
[ -x "$bin" ] || { echo "flash_attn_bench.sh: $bin not built" >&2; exit 2; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null || true
"$bin" 16 12 1024 "${ITERS:-20}"
if [ "${SKIP_TORCH:-0}" != 1 ]; then
    python3 "$(dirname "$0")/flash_attn_torch.py" --iters "${ITERS:-20}"
fi
