#!/bin/bash
# The attention kernels on the GPU machine in one call (issue 10, round 4): bench/flash_attn_bench.sh
# (this round's kernels, round 3's and PyTorch's SDPA in one run), Nsight Compute on one launch of
# each main kernel where ncu exists, the engine's GPU tests, GPT-2 124M steps (eager and --graph)
# and a CUPTI profile of 3 steps summarised per kernel.
#   tools/device/flash-run.sh BUILD_DIR      (from the repository root; results in $OUT/results.tgz)
# Environment: NCU=0 skips Nsight Compute, TESTS=0 the GPU tests, STEPS=0 the engine runs.
set -u
B=${1:-build}
export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=${OUT:-/tmp}/r
mkdir -p "$R"
exec > >(tee "$R/log.txt") 2>&1
t0=$(date +%s)
stamp() { echo "-- $(( $(date +%s) - t0 )) s: $*"; }
stamp "attention bench"
timeout 120 bench/flash_attn_bench.sh "$B" 2>&1 | tee "$R/bench.txt"
if [ "${NCU:-1}" = 1 ]; then
    ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    if [ -n "$ncu" ]; then
        for k in '^r4::k_flash_fwd' '^r4::k_flash_bwd\('; do
            stamp "ncu $k"
            timeout 60 "$ncu" --kernel-name-base demangled -k "regex:$k" -c 1 --section SpeedOfLight --section Occupancy \
                --section LaunchStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
                --section MemoryWorkloadAnalysis "$B/bin/bench_flash_attn" 16 12 1024 1 > "$R/ncu-$(echo "$k" | tr -dc 'a-z0-9_').txt" 2>&1
            grep -E "Duration|Registers|Achieved Occupancy|Theoretical Occupancy|Stall|Issue Slots|Warp Cycles|Shared|Pipe|L1/TEX Hit|Mem Busy|Max Bandwidth" "$R/ncu-$(echo "$k" | tr -dc 'a-z0-9_').txt" | head -30
        done
    else
        echo "no ncu on this machine"
    fi
fi
if [ "${TESTS:-1}" = 1 ]; then
    stamp "GPU tests (engine and lesson 04)"
    ctest --test-dir "$B" -L gpu -R "engine|lesson_04" --output-on-failure > "$R/ctest.txt" 2>&1
    grep -E "tests passed|tests failed|Failed|\*\*\*" "$R/ctest.txt" | head -20
    grep -E "attention" "$R/ctest.txt" | head -10
fi
if [ "${STEPS:-1}" = 1 ]; then
    BIN=$B/bin/lesson_04_gpt2_autodiff
    for mode in eager graph; do
        stamp "GPT-2 124M, B=16, $mode"
        extra=; [ $mode = graph ] && extra=--graph
        timeout 120 "$BIN" --backend cuda --preset 124m --data random --vocab 50257 --steps 25 --profile-warmup 5 \
            --log-every 25 --eval-batches 1 --no-checkpoint --out /tmp/b-$mode $extra > "$R/step-$mode.txt" 2>&1
        grep "^summary" "$R/step-$mode.txt"
    done
    CUPTI=$(ls /usr/local/cuda/targets/x86_64-linux/lib/libcupti.so.13* 2>/dev/null | head -1)
    stamp "profile: CUPTI capture of 3 steps"
    CUDA_INJECTION64_PATH=$PWD/$B/lib/libwb_capture.so NVTX_INJECTION64_PATH=$CUPTI WB_CAPTURE_OUT=$R/prof.json \
        timeout 120 "$BIN" --backend cuda --preset 124m --data random --vocab 50257 --steps 5 --profile-warmup 2 \
        --log-every 1 --no-checkpoint --out /tmp/prof > "$R/prof-run.txt" 2>&1
    python3 tools/device/capture_summary.py "$R/prof.json" > "$R/prof-summary.txt" 2>&1
    head -30 "$R/prof-summary.txt"; rm -f "$R/prof.json"
fi
stamp done
tar -C "$R" -czf "${OUT:-/tmp}/results.tgz" .
