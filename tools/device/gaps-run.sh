#!/bin/bash
# Where the time between a 124M step's kernels goes (GPU idle between pieces of work, memsets,
# the step's wall time against its GPU span), eager and --graph, B=16, T=1024, in one call.
#   tools/device/gaps-run.sh BUILD_DIR       (repository root; results in $OUT/results.tgz)
# Environment: OLD=binary also benchmarks an older lesson-04 binary, paired with the new one
# (old, new, old, new; ROUNDS=N pairs, default 2), GPUTESTS=1 first runs the engine's and lesson 04's gpu tests.
set -u
B=${1:-build}
export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=${OUT:-/tmp}/r; mkdir -p "$R"
exec > >(tee "$R/log.txt") 2>&1
BIN=$B/bin/lesson_04_gpt2_autodiff
CUPTI=$(ls /usr/local/cuda/targets/x86_64-linux/lib/libcupti.so.13* 2>/dev/null | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
if [ "${GPUTESTS:-0}" = 1 ]; then
    export LD_LIBRARY_PATH=$(python3 -c "import nvidia.nccl as n; print(list(n.__path__)[0])")/lib:$LD_LIBRARY_PATH
    export NCCL_NVLS_ENABLE=0
    ctest --test-dir "$B" -L gpu -R "engine|lesson_04|dp_one" --output-on-failure > "$R/ctest.txt" 2>&1
    grep -E "tests passed|tests failed|Failed|\*\*\*" "$R/ctest.txt" | head -20
fi
bench() { # label binary args...
    local label=$1 bin=$2; shift 2
    timeout 120 "$bin" --backend cuda --preset 124m --data random --vocab 50257 --steps 25 --profile-warmup 5 \
        --log-every 25 --eval-batches 1 --no-checkpoint --out /tmp/b-$label "$@" > "$R/bench-$label.txt" 2>&1
    echo "$label: $(grep -E '^summary' "$R/bench-$label.txt")"
}
for round in $(seq 1 ${ROUNDS:-2}); do
    for mode in eager graph; do
        extra=; [ $mode = graph ] && extra=--graph
        [ -n "${OLD:-}" ] && bench old-$mode-$round "$OLD" $extra
        bench new-$mode-$round "$BIN" $extra
    done
done
for mode in eager graph; do
    extra=; [ $mode = graph ] && extra=--graph
    CUDA_INJECTION64_PATH=$PWD/$B/lib/libwb_capture.so NVTX_INJECTION64_PATH=$CUPTI WB_CAPTURE_OUT=$R/cap-$mode.json \
        timeout 120 "$BIN" --backend cuda --preset 124m --data random --vocab 50257 --steps 6 --profile-warmup 3 \
        --log-every 1 --no-checkpoint --out /tmp/p-$mode $extra > "$R/prof-$mode.txt" 2>&1
    echo "== $mode"; python3 tools/device/gap_summary.py "$R/cap-$mode.json"
    python3 tools/device/capture_summary.py "$R/cap-$mode.json" > "$R/summary-$mode.txt"; head -3 "$R/summary-$mode.txt"
    python3 tools/device/step_span.py "$R/cap-$mode.json"
    gzip "$R/cap-$mode.json"
done
cd "${OUT:-/tmp}" && tar czf results.tgz r && rm -rf r && ls -la
